//! Every resource limit, end to end through `Function::run`: exceeding it
//! gives that request a Fatal result naming the limit (never a crash), and
//! the same `Function` then serves a normal request as before.
//!
//! Each run happens on a thread with a 2 MiB stack, the size of the tokio
//! blocking-pool threads the server runs requests on.

use fnhcl_crossplane::convert::json_to_struct;
use fnhcl_crossplane::proto::{RunFunctionRequest, RunFunctionResponse, Severity};
use fnhcl_crossplane::{Function, Limits, Options};
use pbjson_types::Value as PbValue;
use pbjson_types::value::Kind;

const STACK: usize = 2 << 20;

fn run_small_stack(f: &Function, req: &RunFunctionRequest) -> RunFunctionResponse {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || f.run(req))
            .expect("spawn")
            .join()
            .expect("run must not crash")
    })
}

fn fatal_message(rsp: &RunFunctionResponse) -> Option<String> {
    rsp.results
        .iter()
        .find(|r| r.severity == Severity::Fatal as i32)
        .map(|r| r.message.clone())
}

fn with_limits(edit: impl FnOnce(&mut Limits)) -> Function {
    let mut limits = Limits::default();
    edit(&mut limits);
    Function::new(Options {
        limits,
        ..Options::default()
    })
}

/// A request for one resource whose body has `expr` as `spec.value`.
fn body_request(expr: &str) -> RunFunctionRequest {
    let hcl = format!(
        "resource r {{\n  body = {{\n    apiVersion = \"v1\"\n    kind = \"ConfigMap\"\n    spec = {{ value = {expr} }}\n  }}\n}}\n"
    );
    fnhcl_bench::request(0, &hcl)
}

/// A request for one resource whose body reads local `x = expr`.
fn local_request(expr: &str) -> RunFunctionRequest {
    let hcl = format!(
        "locals {{\n  x = {expr}\n}}\nresource r {{\n  body = {{\n    apiVersion = \"v1\"\n    kind = \"ConfigMap\"\n    spec = {{ value = x }}\n  }}\n}}\n"
    );
    fnhcl_bench::request(0, &hcl)
}

/// Runs `req` expecting a Fatal result containing every one of `wanted`,
/// then a normal 10-resource request on the same function.
fn assert_fatal_then_fine(f: &Function, req: &RunFunctionRequest, wanted: &[&str]) {
    let rsp = run_small_stack(f, req);
    let msg = fatal_message(&rsp).unwrap_or_else(|| panic!("no Fatal result: {:?}", rsp.results));
    for w in wanted {
        assert!(msg.contains(w), "{msg:?} does not contain {w:?}");
    }
    assert!(rsp.desired.as_ref().is_none_or(|d| d.resources.is_empty()));
    let hcl = fnhcl_bench::composition(10);
    let ok = run_small_stack(f, &fnhcl_bench::request(10, &hcl));
    assert_eq!(fatal_message(&ok), None, "{:?}", ok.results);
    assert_eq!(ok.desired.map(|d| d.resources.len()), Some(10));
}

#[test]
fn program_size() {
    // 50 resources are ~40 KiB, over a 10 KiB limit; the normal request
    // after it (10 resources) is ~8 KiB.
    let hcl = fnhcl_bench::composition(50);
    let f = with_limits(|l| l.max_program_bytes = 10 << 10);
    assert_fatal_then_fine(
        &f,
        &fnhcl_bench::request(50, &hcl),
        &["the program is", "more than the limit of 10240 bytes"],
    );
}

#[test]
fn output_size() {
    let f = with_limits(|l| l.max_output_bytes = 64 << 10);
    let hcl = fnhcl_bench::composition(200);
    assert_fatal_then_fine(
        &f,
        &fnhcl_bench::request(200, &hcl),
        &[
            "the response would be",
            "more than the limit of 65536 bytes",
        ],
    );
}

#[test]
fn collection_size() {
    let f = Function::default();
    // A for expression over 1e9 elements never starts: the steps budget
    // and the collection limit stop it.
    let big = "[for i in range(1000) : [for j in range(1000) : [for k in range(1000) : k]]]";
    assert_fatal_then_fine(&f, &body_request(big), &["Evaluation limit exceeded"]);
    let f = with_limits(|l| l.eval.max_collection_len = 500);
    assert_fatal_then_fine(
        &f,
        &local_request("[for i in range(1000) : i]"),
        &["Result too large", "more than 500 elements"],
    );
}

#[test]
fn range_of_a_billion_is_an_error() {
    // cty's own limit (upstream behaviour): a function error naming it,
    // and the resource is not emitted.
    let rsp = run_small_stack(&Function::default(), &body_request("range(1e9)"));
    let text = format!("{:?}", rsp.results);
    assert!(text.contains("more than 1024 values"), "{text}");
    assert!(rsp.desired.is_none_or(|d| d.resources.is_empty()));
}

#[test]
fn string_size() {
    let f = Function::default();
    assert_fatal_then_fine(
        &f,
        &body_request(r#"format("%999999999s", "")"#),
        &["width and precision must not exceed 16777216"],
    );
    assert_fatal_then_fine(
        &f,
        &local_request(r#"format("%999999999s", "")"#),
        &["width and precision must not exceed 16777216"],
    );
    let f = with_limits(|l| l.eval.max_string_bytes = 1000);
    assert_fatal_then_fine(
        &f,
        &local_request(r#""${join("", [for i in range(1000) : "ab"])}!""#),
        &["Result too large", "longer than the limit of 1000 bytes"],
    );
}

#[test]
fn evaluation_steps_per_request() {
    let f = with_limits(|l| l.eval.max_steps = 1_000);
    let hcl = fnhcl_bench::composition(100);
    assert_fatal_then_fine(
        &f,
        &fnhcl_bench::request(100, &hcl),
        &["Evaluation limit exceeded", "more than"],
    );
    // In a local, whose other errors are only warnings, too.
    let f = with_limits(|l| l.eval.max_steps = 100_000);
    assert_fatal_then_fine(
        &f,
        &local_request("[for i in range(1000) : [for j in range(1000) : i + j]]"),
        &["Evaluation limit exceeded"],
    );
}

#[test]
fn nesting_in_source() {
    let f = Function::default();
    for n in [300, 10_000] {
        let parens = format!("{}1{}", "(".repeat(n), ")".repeat(n));
        let rsp = run_small_stack(&f, &body_request(&parens));
        assert!(
            fatal_message(&rsp).is_some(),
            "{n} parens: {:?}",
            rsp.results
        );
        let objects = format!("{}1{}", "{ a = ".repeat(n), " }".repeat(n));
        let rsp = run_small_stack(&f, &body_request(&objects));
        assert!(
            fatal_message(&rsp).is_some(),
            "{n} objects: {:?}",
            rsp.results
        );
        let lists = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        assert_fatal_then_fine(&f, &body_request(&lists), &[]);
    }
}

#[test]
fn nesting_in_request_data() {
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(|| {
            let f = Function::default();
            // The limit applies to what the program reads (its demand):
            // this one reads the whole composite and context.
            let hcl = format!(
                "{}\nlocals {{\n  whole = [req.composite, req.context]\n}}\n",
                fnhcl_bench::composition(2)
            );
            // Just past the limit, and further past it.
            for depth in [201, 250] {
                let mut req = fnhcl_bench::request(2, &hcl);
                fnhcl_bench::set_composite_field(
                    &mut req,
                    "deep",
                    Kind::StructValue(fnhcl_bench::deep_struct(depth)),
                );
                assert_fatal_then_fine(
                    &f,
                    &req,
                    &["observed composite resource is nested deeper than the limit of 200 levels"],
                );
                let mut req = fnhcl_bench::request(2, &hcl);
                req.context = json_to_struct(&serde_json::json!({}));
                if let Some(c) = req.context.as_mut() {
                    c.fields.insert(
                        "deep".to_owned(),
                        PbValue {
                            kind: Some(Kind::StructValue(fnhcl_bench::deep_struct(depth))),
                        },
                    );
                }
                assert_fatal_then_fine(&f, &req, &["the context is nested deeper"]);
            }
            // Deep data the program never reads is never converted, so it
            // cannot be cut off and does not fail the run.
            let hcl = fnhcl_bench::composition(2);
            let mut req = fnhcl_bench::request(2, &hcl);
            fnhcl_bench::set_composite_field(
                &mut req,
                "deep",
                Kind::StructValue(fnhcl_bench::deep_struct(250)),
            );
            let rsp = f.run(&req);
            assert!(rsp.results.is_empty(), "{:?}", rsp.results);
            assert_eq!(rsp.desired.map(|d| d.resources.len()), Some(2));
        })
        .expect("spawn")
        .join()
        .expect("no crash");
}

#[test]
fn regex_size() {
    // Go's regexp has a size limit too, so upstream fails the same
    // pattern: a function error naming it, and the resource is not emitted.
    let f = Function::default();
    let rsp = run_small_stack(&f, &body_request(r#"regex("(((a{100}){100}){100})", "a")"#));
    let text = format!("{:?}", rsp.results);
    assert!(text.contains("expression too large"), "{text}");
    assert!(rsp.desired.is_none_or(|d| d.resources.is_empty()));
    let hcl = fnhcl_bench::composition(10);
    let ok = run_small_stack(&f, &fnhcl_bench::request(10, &hcl));
    assert_eq!(ok.desired.map(|d| d.resources.len()), Some(10));
}

#[test]
fn user_function_depth() {
    // Upstream's limit (the 100th nested call fails): the resource is not
    // emitted and a Warning names the limit.
    let hcl = r#"
function down {
  arg n {}
  body = n <= 0 ? 0 : 1 + invoke("down", { n = n - 1 })
}
resource r {
  body = { apiVersion = "v1", kind = "ConfigMap", spec = { depth = invoke("down", { n = 1000 }) } }
}
"#;
    let f = Function::default();
    let rsp = run_small_stack(&f, &fnhcl_bench::request(0, hcl));
    let text = format!("{:?}", rsp.results);
    assert!(text.contains("max depth 100 exceeded"), "{text}");
    assert!(rsp.desired.is_none_or(|d| d.resources.is_empty()));
}

/// Request size is the server's limit (`--max-recv-message-size`, gRPC's
/// 4 MiB by default): a bigger request is refused with a gRPC error before
/// it is decoded, and the server goes on serving.
#[test]
fn request_size_over_grpc() {
    use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let args = fnhcl_server::Args {
        debug: false,
        address: format!("127.0.0.1:{port}"),
        insecure: true,
        tls_certs_dir: None,
        max_recv_message_size: Some(64 << 10),
        metrics_address: String::new(),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        tokio::spawn(async move {
            let f = fnhcl_server::HclFunction::standard()
                .with_debug_sink(std::sync::Arc::new(|_: &str| {}));
            fnhcl_server::serve(f, &args).await.expect("serve");
        });
        let mut client = None;
        for _ in 0..200 {
            if let Ok(c) =
                FunctionRunnerServiceClient::connect(format!("http://127.0.0.1:{port}")).await
            {
                client = Some(c);
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        let mut client = client.expect("connect");
        let hcl = fnhcl_bench::composition(200);
        let big = fnhcl_bench::request(200, &hcl);
        let err = client.run_function(big).await.expect_err("too big");
        assert!(
            matches!(
                err.code(),
                tonic::Code::OutOfRange | tonic::Code::ResourceExhausted
            ),
            "{err:?}"
        );
        let hcl = fnhcl_bench::composition(10);
        let ok = client
            .run_function(fnhcl_bench::request(10, &hcl))
            .await
            .expect("a normal request after it")
            .into_inner();
        assert_eq!(fatal_message(&ok), None);
        assert_eq!(ok.desired.map(|d| d.resources.len()), Some(10));
    });
}

/// The 150-byte program that once aborted the server: 200 strings of
/// 16 MB built from one. The bytes budget stops it as it builds, with a
/// Fatal naming the expression.
#[test]
fn bytes_built() {
    let hcl = "locals {\n  s = format(\"%16000000s\", \"\")\n  xs = [for i in range(200) : \"${s}${i}\"]\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"K\", n = length(xs) }\n}\n";
    let f = Function::default();
    assert_fatal_then_fine(
        &f,
        &fnhcl_bench::request(0, hcl),
        &[
            "Evaluation limit exceeded",
            "built more than 67108864 bytes of values",
            "main.hcl:3,",
        ],
    );
    // Elements built by a `for` count too, without any text.
    let f = with_limits(|l| l.eval.max_bytes = 1 << 20);
    assert_fatal_then_fine(
        &f,
        &local_request("[for i in range(1000) : [for j in range(100) : {a = i, b = j}]]"),
        &["built more than 1048576 bytes of values"],
    );
}

/// Text copied costs steps by its bytes: with no bytes budget, the step
/// budget still stops a loop over a large string early.
#[test]
fn steps_by_bytes_copied() {
    let hcl = "locals {\n  s = format(\"%1000000s\", \"\")\n  xs = [for i in range(1000) : \"${s}${i}\"]\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"K\", n = length(xs) }\n}\n";
    let f = with_limits(|l| {
        l.eval.max_bytes = u64::MAX;
        l.eval.max_steps = 1_000_000;
    });
    assert_fatal_then_fine(
        &f,
        &fnhcl_bench::request(0, hcl),
        &["Evaluation limit exceeded", "more than 1000000 steps"],
    );
}

/// Evaluation time is bounded whatever the steps allow; time the caller's
/// interrupt holds the run (a scheduler parking it) does not count.
#[test]
fn evaluation_time() {
    let heavy = "[for a in range(1000) : [for b in range(1000) : a * b]]";
    let f = with_limits(|l| {
        l.max_eval_time = std::time::Duration::from_millis(1);
        l.eval.max_steps = u64::MAX;
    });
    assert_fatal_then_fine(
        &f,
        &local_request(heavy),
        &[
            "Evaluation limit exceeded",
            "The evaluation took longer than the limit of 0.001 s",
        ],
    );
    // About 10,000 steps: a few interrupt checks, each holding the run
    // for longer than the whole limit.
    let f = with_limits(|l| l.max_eval_time = std::time::Duration::from_millis(500));
    let parked = fnhcl_crossplane::Interrupt::new(|| {
        std::thread::sleep(std::time::Duration::from_millis(200));
        true
    });
    let req = local_request("[for a in range(60) : [for b in range(60) : a * b]]");
    let rsp = std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, || f.run_outcome_with(&req, Some(parked)).response)
            .expect("spawn")
            .join()
            .expect("run must not crash")
    });
    assert_eq!(fatal_message(&rsp), None, "{:?}", rsp.results);
}

/// Infinities never reach desired state: JSON cannot hold them.
#[test]
fn infinite_numbers_are_fatal() {
    let f = Function::default();
    for (expr, sign) in [("1/0", "+"), ("pow(10, 1e9)", "+"), ("log(0, 10)", "-")] {
        assert_fatal_then_fine(
            &f,
            &body_request(expr),
            &[
                "unable to convert resource body to struct: r:",
                &format!("the number at spec.value is {sign}Inf"),
            ],
        );
    }
}

/// Checking a body is linear in its attributes: 50,000 locals (each
/// checked against the others for duplicates) compile and run, and the
/// one duplicate is reported.
/// Shapes whose compile or dependency handling once grew with the square
/// of their size (a search through every name in scope per reference, or
/// through every resource per dependency): at these sizes that took
/// minutes. No timing is asserted; the suite's time shows a regression.
#[test]
fn programs_that_were_quadratic() {
    // 100,000 locals, each reading the one before.
    let mut hcl = String::from("locals {\n  a0 = 0\n");
    for i in 1..100_000 {
        hcl.push_str(&format!("  a{i} = a{}\n", i - 1));
    }
    hcl.push_str("}\n");
    // Groups in that scope, each with a local of its own.
    for i in 0..2_000 {
        hcl.push_str(&format!(
            "group {{\n  locals {{\n    g{i} = a{i}\n  }}\n}}\n"
        ));
    }
    hcl.push_str("resource r {\n  body = { apiVersion = \"v1\", kind = \"K\", n = a500 }\n}\n");
    let rsp = run_small_stack(&Function::default(), &fnhcl_bench::request(0, &hcl));
    assert_eq!(fatal_message(&rsp), None, "{:?}", rsp.results);
    assert_eq!(rsp.desired.map(|d| d.resources.len()), Some(1));

    // 5,000 resources, and one that depends on all of them: held back,
    // naming what it waits for.
    let mut hcl = String::new();
    let mut names = Vec::new();
    for i in 0..5_000 {
        hcl.push_str(&format!(
            "resource r{i} {{\n  body = {{ apiVersion = \"v1\", kind = \"K\", metadata = {{ name = \"r{i}\" }} }}\n}}\n"
        ));
        names.push(format!("\"r{i}\""));
    }
    hcl.push_str(&format!(
        "resource last {{\n  depends_on = [{}]\n  body = {{ apiVersion = \"v1\", kind = \"K\" }}\n}}\n",
        names.join(", ")
    ));
    let rsp = run_small_stack(&Function::default(), &fnhcl_bench::request(0, &hcl));
    assert_eq!(fatal_message(&rsp), None, "{:?}", rsp.results);
    assert_eq!(rsp.desired.map(|d| d.resources.len()), Some(5_000));
    let text = format!("{:?}", rsp.results);
    assert!(
        text.contains("held back resource last\\nwaiting for r0, r1,"),
        "{text}"
    );
}

#[test]
fn many_attributes_in_one_body() {
    let mut hcl = String::from("locals {\n");
    for i in 0..50_000 {
        hcl.push_str(&format!("  a{i} = {i}\n"));
    }
    hcl.push_str(
        "}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"K\", n = a49999 }\n}\n",
    );
    let rsp = run_small_stack(&Function::default(), &fnhcl_bench::request(0, &hcl));
    assert_eq!(fatal_message(&rsp), None, "{:?}", rsp.results);
    hcl.push_str("locals {\n  a7 = 1\n}\n");
    let f = Function::default();
    assert_fatal_then_fine(&f, &fnhcl_bench::request(0, &hcl), &["a7"]);
}
