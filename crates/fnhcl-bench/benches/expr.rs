//! Expression-heavy benchmarks (`fnhcl_expr` alone): for-expressions over
//! 10,000 elements, merge/flatten/format in loops, regular expressions.
//! Run: `cargo bench -p fnhcl-bench --bench expr`.

use divan::{Bencher, black_box};
use fnhcl_base::SourceMap;
use fnhcl_expr::{EvalContext, Limits};

fn main() {
    divan::main();
}

fn names() -> Vec<&'static str> {
    fnhcl_bench::EXPR_CASES.iter().map(|c| c.0).collect()
}

/// Evaluation only (the expression is parsed once, outside the loop).
#[divan::bench(args = names())]
fn eval(b: Bencher<'_, '_>, name: &str) {
    let text = fnhcl_bench::EXPR_CASES
        .iter()
        .find(|c| c.0 == name)
        .map(|c| c.1)
        .expect("case");
    let mut sources = SourceMap::new();
    let file = sources.add(name, text);
    let (expr, diags) = fnhcl_syntax::parse_expr(&sources, file);
    assert!(diags.is_empty(), "{name}: {diags:?}");
    let expr = expr.expect("expression");
    let limits = Limits::default();
    let vars = fnhcl_bench::expr_vars();
    b.bench_local(|| {
        let ctx = EvalContext {
            vars: &vars,
            invoker: None,
            functions: true,
            limits: &limits,
        };
        fnhcl_expr::evaluate_with_sources(black_box(&expr), &ctx, &sources)
    });
}
