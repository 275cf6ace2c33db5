//! The generated benchmark compositions evaluate completely: every
//! resource is emitted, nothing is deferred, no Fatal result.

use fnhcl_crossplane::{Function, Options};

#[test]
fn generated_compositions_render_every_resource() {
    for n in [1, 10, 50] {
        let hcl = fnhcl_bench::composition(n);
        let req = fnhcl_bench::request(n, &hcl);
        let rsp = Function::new(Options::default()).run(&req);
        let results: Vec<_> = rsp.results.iter().map(|r| r.message.clone()).collect();
        assert!(results.is_empty(), "n={n}: unexpected results {results:?}");
        let desired = rsp.desired.expect("desired state");
        assert_eq!(desired.resources.len(), n, "n={n}");
        assert!(desired.resources.contains_key(&format!("bucket-{}", n - 1)));
    }
}

/// The desired resources of one run, as sorted (name, body JSON) pairs;
/// the run must have no results.
fn desired_bodies(req: &fnhcl_crossplane::proto::RunFunctionRequest) -> Vec<(String, String)> {
    let rsp = Function::new(Options::default()).run(req);
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let mut out: Vec<(String, String)> = rsp
        .desired
        .expect("desired state")
        .resources
        .into_iter()
        .map(|(k, v)| {
            (
                k,
                serde_json::to_value(&v.resource).expect("json").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The live-sized request reads the same fields as the small one, so
/// both give the same desired resources (the benchmark of the two measures
/// the size of the observed state and nothing else).
#[test]
fn live_request_renders_like_the_small_one() {
    let hcl = fnhcl_bench::composition(10);
    let small = desired_bodies(&fnhcl_bench::request(10, &hcl));
    assert_eq!(small.len(), 10);
    assert_eq!(small, desired_bodies(&fnhcl_bench::live_request(10, &hcl)));
}

/// The module benchmark's two programs emit the same resources, bodies
/// included, so the comparison measures modules and nothing else.
#[test]
fn modular_and_flat_compositions_are_equivalent() {
    let run = |hcl: String| desired_bodies(&fnhcl_bench::request(0, &hcl));
    let flat = run(fnhcl_bench::flat_composition(10, 5));
    let modular = run(fnhcl_bench::modular_composition(10, 5));
    assert_eq!(flat.len(), 50);
    assert_eq!(flat, modular);
}

#[test]
fn large_program_compiles() {
    let text = fnhcl_bench::large_txtar(50, 2);
    let lines = text.lines().count();
    assert!(lines >= 1_800, "only {lines} lines");
    let mut sources = fnhcl_base::SourceMap::new();
    fnhcl_base::txtar::load_into(&mut sources, &text).expect("txtar");
    assert!(fnhcl_eval::compile(std::sync::Arc::new(sources)).is_ok());
}

#[test]
fn expression_cases_evaluate_without_errors() {
    use fnhcl_expr::{EvalContext, Limits};
    let limits = Limits::default();
    let vars = fnhcl_bench::expr_vars();
    let ctx = EvalContext {
        vars: &vars,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    for (name, text) in fnhcl_bench::EXPR_CASES {
        let mut sources = fnhcl_base::SourceMap::new();
        let (r, parse_failed) = fnhcl_expr::eval_source(&mut sources, name, text, &ctx);
        assert!(!parse_failed, "{name}: {:?}", r.diagnostics);
        assert!(r.diagnostics.is_empty(), "{name}: {:?}", r.diagnostics);
        assert!(r.value.is_known(), "{name}");
    }
}
