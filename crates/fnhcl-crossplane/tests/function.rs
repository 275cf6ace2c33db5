//! The function's request -> response behaviour through its public API:
//! input errors, the program cache, the FileSystem source, panics, debug
//! dumps, TTL, fatal pass-through and the response shapes of §5 / D17–D22.
//!
//! Size: one test per behaviour of the function's one entry point, sharing
//! this file's request builders; split by topic, each part would import the
//! same helpers.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fnhcl_base::txtar::TxtarFile;
use fnhcl_crossplane::convert::{json_to_struct, struct_to_json};
use fnhcl_crossplane::proto::{
    RequestMeta, Resource, RunFunctionRequest, RunFunctionResponse, Severity, State, Status,
};
use fnhcl_crossplane::{DirectoryReader, Function, Options};
use serde_json::{Value as Json, json};

fn xr(annotations: Json) -> Resource {
    Resource {
        resource: json_to_struct(&json!({
            "apiVersion": "example.com/v1", "kind": "XNet",
            "metadata": {"name": "net-1", "annotations": annotations,
                         "managedFields": [{"manager": "crossplane"}], "uid": "u-1"},
            "spec": {"cidr": "10.0.0.0/16", "zones": ["a", "b"]}
        })),
        ..Default::default()
    }
}

fn request(input: Json) -> RunFunctionRequest {
    RunFunctionRequest {
        meta: Some(RequestMeta {
            tag: "t".into(),
            capabilities: vec![],
        }),
        observed: Some(State {
            composite: Some(xr(json!({}))),
            resources: HashMap::new(),
        }),
        input: json_to_struct(&input),
        ..Default::default()
    }
}

fn inline(hcl: &str) -> RunFunctionRequest {
    request(json!({"apiVersion": "function-hcl/v1", "kind": "HclInput", "hcl": hcl}))
}

fn fatal_message(rsp: &RunFunctionResponse) -> &str {
    assert_eq!(rsp.results.len(), 1, "{:?}", rsp.results);
    assert_eq!(rsp.results[0].severity, Severity::Fatal as i32);
    assert!(rsp.conditions.is_empty());
    assert!(rsp.requirements.is_none());
    &rsp.results[0].message
}

const SUBNETS: &str = r#"
resources subnet {
  for_each = req.composite.spec.zones
  template {
    body = {
      apiVersion = "ec2.aws.upbound.io/v1beta1"
      kind       = "Subnet"
      spec       = { zone = each.value, cidr = cidrsubnet(req.composite.spec.cidr, 8, each.key) }
    }
  }
}
"#;

#[test]
fn plain_hcl_is_one_file_and_collections_are_annotated() {
    let rsp = Function::default().run(&inline(SUBNETS));
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let desired = rsp.desired.expect("desired");
    let mut names: Vec<&String> = desired.resources.keys().collect();
    names.sort();
    assert_eq!(names, ["subnet-0", "subnet-1"]);
    let body = struct_to_json(
        desired.resources["subnet-1"]
            .resource
            .as_ref()
            .expect("body"),
    );
    assert_eq!(body["spec"], json!({"zone": "b", "cidr": "10.0.1.0/24"}));
    assert_eq!(
        body["metadata"]["annotations"],
        json!({"hcl.fn.crossplane.io/collection-base-name": "subnet",
               "hcl.fn.crossplane.io/collection-index": "s000001"})
    );
}

#[test]
fn input_errors_are_fatal_with_clear_messages() {
    let f = Function::default();
    let rsp = f.run(&request(json!({"hcl": SUBNETS, "debugNeW": true})));
    let msg = fatal_message(&rsp);
    assert!(msg.contains("unknown field \"debugNeW\""), "{msg}");

    let rsp = f.run(&request(json!({"kind": "HclInput"})));
    assert_eq!(fatal_message(&rsp), "input HCL was not specified");

    let mut req = request(json!({}));
    req.input = None;
    assert_eq!(fatal_message(&f.run(&req)), "input HCL was not specified");

    let rsp = f.run(&inline("-- a.hcl --\nlocals {}\n-- a.hcl --\nlocals {}\n"));
    assert!(fatal_message(&rsp).contains("\"a.hcl\""));
}

#[test]
fn evaluation_errors_start_with_the_source_range() {
    let rsp = Function::default().run(&inline(
        "-- main.hcl --\nresource x {\n  body = nope.a\n}\n",
    ));
    let msg = fatal_message(&rsp);
    assert!(msg.starts_with("main.hcl:2,10-14: "), "{msg}");
}

#[test]
fn fatal_results_pass_desired_state_and_context_through() {
    let mut req = inline("-- main.hcl --\nresource x {\n");
    req.desired = Some(State {
        composite: Some(xr(json!({"from": "earlier"}))),
        resources: HashMap::from([(
            "earlier".to_owned(),
            Resource {
                resource: json_to_struct(&json!({"kind": "Kept"})),
                ..Default::default()
            },
        )]),
    });
    req.context = json_to_struct(&json!({"k": {"v": 1}}));
    let rsp = Function::default().run(&req);
    fatal_message(&rsp);
    assert_eq!(rsp.desired, req.desired);
    assert_eq!(rsp.context, req.context);
    let meta = rsp.meta.expect("meta");
    assert_eq!(meta.tag, "t");
    assert_eq!(meta.ttl.expect("ttl").seconds, 60);
}

#[test]
fn ttl_can_be_overridden() {
    let rsp = Function::default().run(&request(json!({"hcl": SUBNETS, "ttl": "2m"})));
    assert_eq!(rsp.meta.expect("meta").ttl.expect("ttl").seconds, 120);
    let f = Function::new(Options {
        default_ttl: Duration::from_secs(5),
        ..Options::default()
    });
    let rsp = f.run(&inline(SUBNETS));
    assert_eq!(rsp.meta.expect("meta").ttl.expect("ttl").seconds, 5);
}

#[test]
fn the_same_program_is_compiled_once() {
    let f = Function::default();
    for _ in 0..5 {
        f.run(&inline(SUBNETS));
    }
    // Compile errors are cached too.
    for _ in 0..3 {
        f.run(&inline("-- main.hcl --\nresource {\n"));
    }
    assert_eq!(hits_misses(&f), (6, 2));
}

fn hits_misses(f: &Function) -> (u64, u64) {
    let s = f.cache_stats();
    (s.hits, s.misses)
}

#[test]
fn cache_is_bounded() {
    let f = Function::new(Options {
        cache_max_entries: 2,
        ..Options::default()
    });
    for i in 0..4 {
        f.run(&inline(&format!("locals {{ a = {i} }}\n")));
    }
    f.run(&inline("locals { a = 0 }\n"));
    assert_eq!(hits_misses(&f), (0, 5), "the oldest entry was evicted");
    let s = f.cache_stats();
    assert_eq!((s.entries, s.evictions), (2, 3));
}

#[test]
fn cache_is_bounded_by_bytes() {
    // A program's estimated size is so many bytes per source byte plus
    // 16 KiB; this budget holds two small programs but not three.
    let small = |i: usize| format!("locals {{ a = {i} }}\n");
    let one = fnhcl_crossplane::PROGRAM_BYTES_PER_SOURCE_BYTE * (small(0).len() + "main.hcl".len())
        + fnhcl_crossplane::PROGRAM_BYTES_FIXED;
    let f = Function::new(Options {
        cache_max_bytes: 2 * one + 2 * 1024,
        ..Options::default()
    });
    f.run(&inline(&small(0)));
    f.run(&inline(&small(1)));
    f.run(&inline(&small(0))); // 0 is now the most recently used
    let s = f.cache_stats();
    assert_eq!((s.entries, s.evictions), (2, 0));
    assert!(s.bytes > 2 * one && s.bytes <= s.max_bytes, "{s:?}");
    f.run(&inline(&small(2))); // evicts 1
    let s = f.cache_stats();
    assert_eq!((s.entries, s.evictions), (2, 1));
    assert_eq!(hits_misses(&f), (1, 3));
    f.run(&inline(&small(0)));
    assert_eq!(
        hits_misses(&f),
        (2, 3),
        "the recently used program survived"
    );
    f.run(&inline(&small(1)));
    assert_eq!(
        hits_misses(&f),
        (2, 4),
        "the least recently used one was evicted"
    );

    // A program bigger than the whole budget runs, but is not kept.
    let big = format!("locals {{ a = \"{}\" }}\n", "x".repeat(8 << 10));
    for _ in 0..2 {
        let rsp = f.run(&inline(&big));
        assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    }
    assert_eq!(hits_misses(&f), (2, 6));
    assert!(f.cache_stats().bytes <= f.cache_stats().max_bytes);
}

/// A directory whose content changes on every request: each version is a
/// new program, and the cache stays within its bounds.
#[test]
fn a_changing_directory_does_not_grow_the_cache() {
    struct Changing(AtomicUsize);
    impl DirectoryReader for Changing {
        fn read_hcl_files(&self, _: &str) -> Result<Arc<Vec<TxtarFile>>, String> {
            let n = self.0.fetch_add(1, Ordering::SeqCst);
            Ok(Arc::new(vec![TxtarFile {
                name: "main.hcl".into(),
                data: format!("resource r {{\n  body = {{ kind = \"K\", n = {n} }}\n}}\n"),
            }]))
        }
    }
    let f = Function::new(Options {
        directory_reader: Some(Arc::new(Changing(AtomicUsize::new(0)))),
        cache_max_entries: 4,
        ..Options::default()
    });
    let req = request(json!({"source": "FileSystem", "path": "/hcl"}));
    for _ in 0..50 {
        let rsp = f.run(&req);
        assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    }
    let s = f.cache_stats();
    assert_eq!((s.entries, s.misses, s.evictions), (4, 50, 46));
}

struct MemReader {
    files: Vec<TxtarFile>,
    reads: AtomicUsize,
}

impl DirectoryReader for MemReader {
    fn read_hcl_files(&self, path: &str) -> Result<Arc<Vec<TxtarFile>>, String> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        if path == "/hcl" {
            Ok(Arc::new(self.files.clone()))
        } else {
            Err("no such directory".to_owned())
        }
    }
}

#[test]
fn filesystem_source_reads_through_the_directory_reader() {
    let reader = Arc::new(MemReader {
        files: vec![
            TxtarFile {
                name: "a.hcl".into(),
                data: "locals { zones = req.composite.spec.zones }\n".into(),
            },
            TxtarFile {
                name: "b.hcl".into(),
                data: "resource r {\n  body = { kind = \"K\", zones = zones }\n}\n".into(),
            },
        ],
        reads: AtomicUsize::new(0),
    });
    let f = Function::new(Options {
        directory_reader: Some(reader.clone()),
        ..Options::default()
    });
    let req = request(json!({"source": "FileSystem", "path": "/hcl"}));
    let rsp = f.run(&req);
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let body = struct_to_json(
        rsp.desired.expect("desired").resources["r"]
            .resource
            .as_ref()
            .expect("body"),
    );
    assert_eq!(body, json!({"kind": "K", "zones": ["a", "b"]}));
    f.run(&req);
    assert_eq!(reader.reads.load(Ordering::SeqCst), 2, "read on every run");
    assert_eq!(hits_misses(&f), (1, 1), "compiled once");

    let rsp = f.run(&request(json!({"source": "FileSystem", "path": "/nope"})));
    assert!(fatal_message(&rsp).contains("no such directory"));

    let rsp = Function::default().run(&req);
    assert!(fatal_message(&rsp).contains("FileSystem"));
}

#[test]
fn filesystem_source_loads_modules_from_subdirectories() {
    // What a reader returns for a mounted directory with a module in a
    // subdirectory: names relative to the path, `/`-separated.
    let reader = Arc::new(MemReader {
        files: vec![
            TxtarFile {
                name: "main.hcl".into(),
                data: "import \"modules/subnet\" {}\n\nmodule \"subnet\" \"a\" {\n  zone = req.composite.spec.zones[0]\n}\n\nmodule \"subnet\" \"b\" {\n  zone = req.composite.spec.zones[1]\n}\n\ncomposite status {\n  body = { zones = [module.a.zone, module.b.zone] }\n}\n".into(),
            },
            TxtarFile {
                name: "modules/subnet/main.hcl".into(),
                data: "param \"zone\" {}\n\nresource subnet {\n  body = { kind = \"Subnet\", zone = param.zone }\n}\n\nexport {\n  zone = param.zone\n}\n".into(),
            },
        ],
        reads: AtomicUsize::new(0),
    });
    let f = Function::new(Options {
        directory_reader: Some(reader),
        ..Options::default()
    });
    let rsp = f.run(&request(json!({"source": "FileSystem", "path": "/hcl"})));
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let desired = rsp.desired.expect("desired");
    let mut names: Vec<&String> = desired.resources.keys().collect();
    names.sort();
    assert_eq!(names, ["a-subnet", "b-subnet"], "instance-prefixed names");
    let body = struct_to_json(
        desired.resources["b-subnet"]
            .resource
            .as_ref()
            .expect("body"),
    );
    assert_eq!(body, json!({"kind": "Subnet", "zone": "b"}));
    let status = struct_to_json(
        desired
            .composite
            .expect("composite")
            .resource
            .as_ref()
            .expect("xr"),
    );
    assert_eq!(status["status"], json!({"zones": ["a", "b"]}));
}

struct PanickingReader;

impl DirectoryReader for PanickingReader {
    fn read_hcl_files(&self, _: &str) -> Result<Arc<Vec<TxtarFile>>, String> {
        panic!("reader exploded")
    }
}

#[test]
fn a_panic_is_a_fatal_result_and_the_function_keeps_working() {
    let f = Function::new(Options {
        directory_reader: Some(Arc::new(PanickingReader)),
        ..Options::default()
    });
    let rsp = f.run(&request(json!({"source": "FileSystem", "path": "/x"})));
    let msg = fatal_message(&rsp);
    assert!(
        msg.contains("panicked") && msg.contains("reader exploded"),
        "{msg}"
    );
    let ok = f.run(&inline(SUBNETS));
    assert!(ok.results.is_empty());
}

#[test]
fn discards_are_warnings_and_conditions_report_them() {
    let hcl = r#"
resource a {
  body = { kind = "A", arn = req.resource.b.status.arn }
}
resource c {
  condition = false
  body      = { kind = "C" }
}
"#;
    let rsp = Function::default().run(&inline(hcl));
    assert_eq!(rsp.results.len(), 2, "{:?}", rsp.results);
    let r = &rsp.results[0];
    assert_eq!(r.severity, Severity::Warning as i32);
    assert_eq!(r.reason.as_deref(), Some("incomplete"));
    assert!(
        r.message.starts_with("main.hcl:") && r.message.contains(":discarded resource a"),
        "{}",
        r.message
    );
    let summary = &rsp.results[1];
    assert_eq!(summary.severity, Severity::Warning as i32);
    assert_eq!(summary.reason.as_deref(), Some("HclDiagnostics"));
    assert!(
        summary.message.starts_with("warnings: [main.hcl:"),
        "{}",
        summary.message
    );
    let c = &rsp.conditions[0];
    assert_eq!(c.r#type, "FullyResolved");
    assert_eq!(c.status, Status::ConditionFalse as i32);
    assert_eq!(c.reason, "IncompleteItemsPresent");
    assert_eq!(c.message.as_deref(), Some("resource a incomplete"));
    assert_eq!(rsp.conditions[1].r#type, "HclDiagnostics");
    assert_eq!(rsp.conditions[1].status, Status::ConditionFalse as i32);
    assert!(rsp.desired.expect("desired").resources.is_empty());
}

#[test]
fn debug_dumps_follow_the_switches() {
    let f = Function::default();
    let off = f.run_outcome(&inline(SUBNETS));
    assert!(off.debug_request.is_none() && off.debug_response.is_none());

    let on = f.run_outcome(&request(json!({"hcl": SUBNETS, "debug": true})));
    let req_dump = on.debug_request.expect("request dump");
    assert!(req_dump.starts_with("## start request ##\n\n-- xr.yaml --\n"));
    assert!(req_dump.ends_with("## end request ##\n"));
    assert!(req_dump.contains("name: net-1"));
    assert!(!req_dump.contains("managedFields"), "noise is stripped");
    assert!(!req_dump.contains("uid: u-1"), "noise is stripped");
    let rsp_dump = on.debug_response.expect("response dump");
    assert!(rsp_dump.starts_with("-- rendered.yaml --\n# returned composite status\n"));
    assert!(rsp_dump.contains("# desired object: subnet-0\n"));
    assert!(rsp_dump.contains("generateName: net-1-"));
    assert!(rsp_dump.contains("crossplane.io/composition-resource-name: subnet-0"));
    assert!(rsp_dump.ends_with("## end response ##\n"));

    // debugNew: only while nothing is observed yet.
    let mut req = request(json!({"hcl": SUBNETS, "debugNew": true}));
    assert!(f.run_outcome(&req).debug_request.is_some());
    if let Some(o) = req.observed.as_mut() {
        o.resources.insert("subnet-0".into(), Resource::default());
    }
    assert!(f.run_outcome(&req).debug_request.is_none());

    // The annotation on the observed XR.
    let mut req = inline(SUBNETS);
    if let Some(o) = req.observed.as_mut() {
        o.composite = Some(xr(json!({"hcl.fn.crossplane.io/debug": "true"})));
    }
    assert!(f.run_outcome(&req).debug_request.is_some());

    // Forced on by the caller (`fn-hcl run --debug`).
    let forced = Function::new(Options {
        always_debug: true,
        ..Options::default()
    });
    let o = forced.run_outcome(&inline(SUBNETS));
    assert!(o.debug_request.is_some() && o.debug_response.is_some());

    // A failed run dumps the request only.
    let failed = f.run_outcome(&request(json!({"hcl": "resource {", "debug": true})));
    assert!(failed.debug_request.is_some() && failed.debug_response.is_none());
    assert!(failed.error.is_some());
}

#[test]
fn outcome_names_the_composite() {
    let o = Function::default().run_outcome(&inline(SUBNETS));
    assert_eq!(
        (o.xr.kind(), o.xr.name(), o.tag.as_str()),
        ("XNet", "net-1", "t")
    );
    assert_eq!(o.error, None);
    assert_eq!(o.cache_hit, Some(false));
}

#[test]
fn the_process_wide_run_works() {
    let rsp = fnhcl_crossplane::run(&inline(SUBNETS));
    assert_eq!(rsp.desired.expect("desired").resources.len(), 2);
}

/// Deeply nested data (here YAML nested by indentation, 1,500 levels) needs
/// more stack than the 2 MiB threads of a server's pool have; the function
/// must answer (with a result or a discard), not overflow the stack, which
/// would abort the whole process.
#[test]
fn deep_recursion_does_not_overflow_a_small_thread_stack() {
    let mut yaml = String::new();
    for i in 0..1500 {
        yaml.push_str(&" ".repeat(2 * i));
        yaml.push_str("- \n");
    }
    let hcl =
        format!("resource b {{\n  body = {{ a = length(yamldecode(<<EOT\n{yaml}EOT\n)) }}\n}}\n");
    let req = inline(&hcl);
    let rsp = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || Function::default().run(&req))
        .expect("spawn")
        .join()
        .expect("no panic");
    assert!(!rsp.results.is_empty() || rsp.desired.is_some());
    // Whatever the outcome, the next request on a small stack works too.
    let rsp = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| Function::default().run(&inline(SUBNETS)))
        .expect("spawn")
        .join()
        .expect("no panic");
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
}

/// `run_outcome_with`'s interrupt: a run that says stop ends in a Fatal
/// result naming the cancellation; many small expressions are checked as
/// well as one long one (the budget of the whole request counts).
#[test]
fn an_interrupt_that_says_stop_ends_the_run() {
    let f = Function::default();
    let long = inline(
        "locals {\n  xs = [for a in range(100) : [for b in range(100) : a * b]]\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = length(flatten(xs)) } }\n}\n",
    );
    let stop = || Some(fnhcl_crossplane::Interrupt::new(|| false));
    let out = f.run_outcome_with(&long, stop());
    assert!(out.error.is_some());
    let msg = fatal_message(&out.response);
    assert!(msg.contains(fnhcl_crossplane::INTERRUPTED_DETAIL), "{msg}");
    // 300 small resources, none near the interval on its own.
    let mut many = String::new();
    for i in 0..300 {
        many.push_str(&format!(
            "resource r{i} {{\n  body = {{ apiVersion = \"v1\", kind = \"ConfigMap\", data = {{ a = \"${{upper(\"x\")}}-{i}\", b = lower(\"Y\") }} }}\n}}\n"
        ));
    }
    let many = inline(&many);
    // Compiled first (a program this large asks the interrupt while it
    // compiles too, which the test below covers).
    assert!(f.run(&many).results.is_empty());
    let msg = fatal_message(&f.run_outcome_with(&many, stop()).response).to_owned();
    assert!(msg.contains(fnhcl_crossplane::INTERRUPTED_DETAIL), "{msg}");
    // Without an interrupt, or with one that says go on, both run.
    let go = Some(fnhcl_crossplane::Interrupt::new(|| true));
    for req in [&long, &many] {
        assert!(f.run_outcome_with(req, go.clone()).error.is_none());
        assert!(f.run(req).results.is_empty());
    }
}

/// A large program's compile asks the run's interrupt too: stopped, the
/// run ends in a Fatal result naming the cancellation, and nothing is
/// cached, so the next run compiles it. A small program (which a server
/// may run inline, where the first interrupt check moves the run to its
/// pool) is never stopped while it compiles.
#[test]
fn an_interrupt_stops_a_large_compile_and_nothing_is_cached() {
    let mut hcl = String::from("locals {\n  a0 = 0\n");
    for i in 1..5_000 {
        hcl.push_str(&format!("  a{i} = a{}\n", i - 1));
    }
    hcl.push_str("}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = a4999 } }\n}\n");
    assert!(hcl.len() > 32 << 10);
    let req = inline(&hcl);
    let f = Function::default();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let stop = fnhcl_crossplane::Interrupt::new(move || {
        counter.fetch_add(1, Ordering::SeqCst);
        false
    });
    let out = f.run_outcome_with(&req, Some(stop));
    let msg = fatal_message(&out.response);
    assert_eq!(msg, fnhcl_eval::COMPILE_INTERRUPTED_DETAIL);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "stopped at its first check"
    );
    let go = fnhcl_crossplane::Interrupt::new(|| true);
    let out = f.run_outcome_with(&req, Some(go));
    assert!(out.error.is_none(), "{:?}", out.response.results);
    assert_eq!(
        out.cache_hit,
        Some(false),
        "the stopped compile was not cached"
    );

    // A small program compiles whatever the interrupt says (its run is
    // stopped once it evaluates).
    let small = inline(
        "locals {\n  a = 1\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = a } }\n}\n",
    );
    let stop = fnhcl_crossplane::Interrupt::new(|| false);
    let out = f.run_outcome_with(&small, Some(stop));
    assert!(out.error.is_none(), "{:?}", out.response.results);
}

/// The runs of one `Function` share `max_eval_memory`: while one run that
/// built most of it waits (parked in its interrupt check, as a server's
/// heavy lane parks runs), another that needs as much is stopped with a
/// Fatal result naming the shared limit; once the first ends, the second
/// runs. Each alone is within its own `max_bytes`.
#[test]
fn concurrent_runs_share_the_evaluation_memory() {
    let mut options = Options::default();
    options.limits.max_eval_memory = 40 << 20;
    let f = Arc::new(Function::new(options));
    // 2 × 1,000 × 16 KiB: about 32 MiB of text.
    let hcl = "locals {\n  k = join(\"\", [for i in range(1024) : \"0123456789abcdef\"])\n  a = [for i in range(1000) : \"${k}${i}\"]\n  b = [for i in range(1000) : \"${k}-${i}\"]\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = length(a) + length(b) } }\n}\n";
    let req = inline(hcl);
    assert!(f.run(&req).results.is_empty());
    assert_eq!(f.eval_memory_taken(), 0, "a run gives its memory back");

    let (parked_tx, parked_rx) = std::sync::mpsc::channel::<()>();
    let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
    let go_rx = std::sync::Mutex::new(go_rx);
    let first = {
        let f = f.clone();
        let req = req.clone();
        std::thread::spawn(move || {
            let watcher = f.clone();
            let parked = std::sync::atomic::AtomicBool::new(false);
            let interrupt = fnhcl_crossplane::Interrupt::new(move || {
                if watcher.eval_memory_taken() >= 30 << 20 && !parked.swap(true, Ordering::SeqCst) {
                    let _ = parked_tx.send(());
                    let _ = go_rx.lock().expect("lock").recv();
                }
                true
            });
            f.run_outcome_with(&req, Some(interrupt))
        })
    };
    parked_rx
        .recv()
        .expect("the first run parks holding its memory");
    let second = f.run(&req);
    let msg = fatal_message(&second);
    assert!(
        msg.contains("all the memory it gives them") && msg.contains("41943040 bytes"),
        "{msg}"
    );
    go_tx.send(()).expect("resume");
    let first = first.join().expect("no panic");
    assert!(first.error.is_none(), "{:?}", first.response.results);
    assert_eq!(f.eval_memory_taken(), 0);
    assert!(f.run(&req).results.is_empty());
}

/// Determinism: the same request gives the same response, whether the
/// program is cached or not, in another `Function`, and from a copy of the
/// request whose maps iterate in another order; its encoding decodes to
/// the same message.
#[test]
fn the_same_request_gives_the_same_response() {
    use prost::Message as _;
    let hcl = many_maps_program();
    let mut req = inline(&hcl);
    let observed = req.observed.as_mut().expect("observed");
    for i in 0..20 {
        observed.resources.insert(
            format!("r{i}"),
            Resource {
                resource: json_to_struct(
                    &json!({"apiVersion": "v1", "kind": "K", "status": {"i": i}}),
                ),
                ..Default::default()
            },
        );
    }
    let f = Function::default();
    let first = f.run(&req);
    assert!(first.results.is_empty(), "{:?}", first.results);
    assert_eq!(first.desired.as_ref().map(|d| d.resources.len()), Some(20));
    assert_eq!(f.run(&req), first, "cached");
    assert_eq!(Function::default().run(&req), first, "another Function");
    // The request through prost (a new map, another iteration order).
    let copy = RunFunctionRequest::decode(req.encode_to_vec().as_slice()).expect("decodes");
    assert_eq!(Function::default().run(&copy), first, "a decoded copy");
    let decoded = RunFunctionResponse::decode(first.encode_to_vec().as_slice()).expect("decodes");
    assert_eq!(decoded, first);
}

/// Twenty resources, each reading its observed status, with a context
/// key and a composite status: maps in every part of the response.
fn many_maps_program() -> String {
    let mut hcl = String::new();
    for i in 0..20 {
        hcl.push_str(&format!(
            "resource r{i} {{\n  body = {{ apiVersion = \"v1\", kind = \"K\", spec = {{ i = {i}, zones = req.composite.spec.zones }} }}\n}}\n"
        ));
    }
    hcl.push_str("composite status {\n  body = { cidr = req.composite.spec.cidr }\n}\n");
    hcl.push_str("context {\n  key = \"example.com/k\"\n  value = { n = 1 }\n}\n");
    hcl
}

/// The composite's readiness in a response.
fn composite_ready(rsp: &RunFunctionResponse) -> Option<i32> {
    rsp.desired
        .as_ref()
        .and_then(|d| d.composite.as_ref())
        .map(|c| c.ready)
}

const GATED: &str = r#"
resource vpc {
  body = { apiVersion = "ec2.aws.upbound.io/v1beta1", kind = "VPC" }
}
resource subnet {
  body = {
    apiVersion = "ec2.aws.upbound.io/v1beta1"
    kind       = "Subnet"
    vpcId      = req.resource.vpc.status.atProvider.id
  }
}
"#;

#[test]
fn a_deferred_resource_makes_the_composite_not_ready() {
    use fnhcl_crossplane::proto::Ready;
    let f = Function::default();
    // D32: the subnet waits for the VPC's id.
    let rsp = f.run(&inline(GATED));
    assert_eq!(composite_ready(&rsp), Some(Ready::False as i32));
    // Off: as upstream, the composite's readiness is left alone.
    let off = f.run(&request(json!({"hcl": GATED, "readinessGating": "Off"})));
    assert_eq!(composite_ready(&off), None);
    // Optional: it does not gate.
    let optional = GATED.replace("resource subnet {", "resource subnet {\n  optional = true");
    assert_eq!(composite_ready(&f.run(&inline(&optional))), None);
    // D33: an explicit value wins.
    let explicit = format!("{GATED}\ncomposite ready {{ value = \"READY_TRUE\" }}\n");
    assert_eq!(
        composite_ready(&f.run(&inline(&explicit))),
        Some(Ready::True as i32)
    );
    // Once the VPC reports its id, nothing is missing: left alone.
    let mut req = inline(GATED);
    req.observed.as_mut().unwrap().resources.insert(
        "vpc".into(),
        Resource {
            resource: json_to_struct(&json!({
                "apiVersion": "ec2.aws.upbound.io/v1beta1", "kind": "VPC",
                "status": {"atProvider": {"id": "vpc-1"},
                           "conditions": [{"type": "Ready", "status": "True"}]}
            })),
            ..Default::default()
        },
    );
    let rsp = f.run(&req);
    assert_eq!(composite_ready(&rsp), None);
    let desired = rsp.desired.as_ref().unwrap();
    assert_eq!(desired.resources.len(), 2);
    // D34 off by default: the observed VPC's readiness is not set...
    assert_eq!(desired.resources["vpc"].ready, Ready::Unspecified as i32);
    // ...and with autoReady, its Ready condition makes it ready; the
    // subnet, not observed, stays unspecified.
    req.input = json_to_struct(&json!({"hcl": GATED, "autoReady": true}));
    let rsp = f.run(&req);
    let desired = rsp.desired.as_ref().unwrap();
    assert_eq!(desired.resources["vpc"].ready, Ready::True as i32);
    assert_eq!(desired.resources["subnet"].ready, Ready::Unspecified as i32);
}

#[test]
fn user_conditions_and_results_reach_the_response() {
    use fnhcl_crossplane::proto::{Status as CondStatus, Target};
    let f = Function::default();
    let hcl = r#"
composite condition {
  type    = "NetworkReady"
  status  = false
  reason  = "WaitingForVPC"
  message = "waiting for the VPC"
  target  = "CompositeAndClaim"
}
result {
  severity = "Warning"
  message  = "spec.size is deprecated"
  reason   = "Deprecated"
}
"#;
    let rsp = f.run(&inline(hcl));
    let types: Vec<&str> = rsp.conditions.iter().map(|c| c.r#type.as_str()).collect();
    assert_eq!(types, ["FullyResolved", "HclDiagnostics", "NetworkReady"]);
    let c = &rsp.conditions[2];
    assert_eq!(c.status, CondStatus::ConditionFalse as i32);
    assert_eq!(c.reason, "WaitingForVPC");
    assert_eq!(c.target, Some(Target::CompositeAndClaim as i32));
    let last = rsp.results.last().expect("a result");
    assert_eq!(last.severity, Severity::Warning as i32);
    assert_eq!(last.message, "spec.size is deprecated");
    assert_eq!(last.reason.as_deref(), Some("Deprecated"));
    // A Fatal result: the run stops with the user's message.
    let fatal = f.run(&inline(
        "result {\n  severity = \"Fatal\"\n  message = \"size too large\"\n}\n",
    ));
    assert_eq!(fatal_message(&fatal), "size too large");
}

/// D38: a credential reaches the response body where the program puts it,
/// and nothing else: not results, conditions, the error of a failed run
/// nor the debug dumps (the `debug` input, `debugNew`, the annotation).
#[test]
fn credentials_are_sensitive_end_to_end() {
    use fnhcl_crossplane::proto::{CredentialData, Credentials, credentials};
    const TOKEN: &str = "tok-h7Qz9";
    const TOKEN_B64: &str = "dG9rLWg3UXo5";
    let program = r#"
locals {
  token = base64decode(req.credentials.api.token)
}
resource api-token {
  body = {
    apiVersion = "v1"
    kind       = "Secret"
    metadata   = { name = "api-token" }
    data       = { token = req.credentials.api.token }
  }
}
resource copy {
  body = {
    apiVersion = "example.com/v1"
    kind       = "Copy"
    metadata   = { name = "copy" }
    spec       = { token = token, upper = upper(token) }
  }
}
# A deliberately failing expression over the credential.
resource port {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "port" }
    data       = { port = tostring(tonumber(token) + 1) }
  }
}
result {
  severity = "Warning"
  message  = "read ${token}"
}
composite condition {
  type    = "TokenRead"
  status  = "True"
  reason  = "Read"
  message = "token ${token}"
}
composite status {
  body = { token = token, plain = "visible" }
}
context {
  key   = "example.com/token"
  value = { token = token }
}
"#;
    let with_credentials = |input: Json| {
        let mut req = request(input);
        req.credentials.insert(
            "api".into(),
            Credentials {
                source: Some(credentials::Source::CredentialData(CredentialData {
                    data: HashMap::from([("token".to_owned(), TOKEN.as_bytes().to_vec())]),
                })),
            },
        );
        req
    };
    let f = Function::default();
    let o = f.run_outcome(&with_credentials(json!({"hcl": program, "debug": true})));
    assert!(o.error.is_none(), "{:?}", o.error);
    let desired = o.response.desired.as_ref().expect("desired");
    let body =
        |name: &str| struct_to_json(desired.resources[name].resource.as_ref().expect("body"));
    // Where the program puts it, the value is sent to Crossplane.
    assert_eq!(body("api-token")["data"]["token"], TOKEN_B64);
    assert_eq!(body("copy")["spec"]["token"], TOKEN);
    assert_eq!(body("copy")["spec"]["upper"], TOKEN.to_uppercase());
    let status = struct_to_json(
        desired
            .composite
            .as_ref()
            .and_then(|c| c.resource.as_ref())
            .expect("composite"),
    );
    assert_eq!(status["status"]["token"], TOKEN);
    assert!(
        !desired.resources.contains_key("port"),
        "the failing block is discarded"
    );
    // Nowhere else.
    let leaks = |text: &str| {
        text.contains(TOKEN) || text.contains(TOKEN_B64) || text.contains(&TOKEN.to_uppercase())
    };
    for r in &o.response.results {
        assert!(!leaks(&r.message), "result: {}", r.message);
    }
    assert!(
        o.response
            .results
            .iter()
            .any(|r| r.message == "(sensitive value)"),
        "{:?}",
        o.response.results
    );
    assert!(
        o.response
            .results
            .iter()
            .any(|r| r.message.contains("tonumber")),
        "the failing expression is reported: {:?}",
        o.response.results
    );
    for c in &o.response.conditions {
        assert!(
            !leaks(c.message.as_deref().unwrap_or_default()),
            "condition: {c:?}"
        );
    }
    let user = o
        .response
        .conditions
        .iter()
        .find(|c| c.r#type == "TokenRead")
        .expect("condition");
    assert_eq!(user.message.as_deref(), Some("(sensitive value)"));
    let dump = o.debug_response.expect("response dump");
    assert!(!leaks(&dump), "{dump}");
    assert!(dump.contains("token: (sensitive value)"), "{dump}");
    assert!(dump.contains("plain: visible"), "{dump}");
    assert!(!leaks(&o.debug_request.expect("request dump")));

    // A run that fails on the credential says so without it.
    let fatal = format!(
        "{program}\nresources bad {{\n  for_each = range(tonumber(token))\n  template {{\n    body = {{}}\n  }}\n}}\n"
    );
    let o = f.run_outcome(&with_credentials(json!({"hcl": fatal, "debug": true})));
    let error = o.error.expect("fails");
    assert!(!leaks(&error), "{error}");
    assert!(!leaks(fatal_message(&o.response)));
    assert!(!leaks(&o.debug_request.expect("request dump")));
    // A Fatal result block with the credential in its message.
    let fatal = format!(
        "{program}\nresult {{\n  severity = \"Fatal\"\n  message = \"stop: ${{token}}\"\n}}\n"
    );
    let o = f.run_outcome(&with_credentials(json!({"hcl": fatal})));
    let error = o.error.expect("fails");
    assert!(!leaks(&error), "{error}");
    assert!(error.contains("(sensitive value)"), "{error}");
}

/// An operation's request (D39): no observed composite, the watched
/// object (if any) under its requirement, Crossplane 2's capabilities.
fn operation_request(hcl: &str, watched: Option<Json>) -> RunFunctionRequest {
    use fnhcl_crossplane::proto::{Capability, Resources};
    let mut req = RunFunctionRequest {
        meta: Some(RequestMeta {
            tag: "op".into(),
            capabilities: vec![
                Capability::Capabilities as i32,
                Capability::RequiredResources as i32,
            ],
        }),
        input: json_to_struct(
            &json!({"apiVersion": "function-hcl/v1", "kind": "HclInput", "hcl": hcl}),
        ),
        ..Default::default()
    };
    if let Some(w) = watched {
        req.required_resources.insert(
            fnhcl_eval::WATCHED_RESOURCE.to_owned(),
            Resources {
                items: vec![Resource {
                    resource: json_to_struct(&w),
                    ..Default::default()
                }],
            },
        );
    }
    req
}

const LABEL_WATCHED: &str = r#"
locals {
  d = req.watched
}
resource labelled {
  body = {
    apiVersion = d.apiVersion
    kind       = d.kind
    metadata = {
      name      = d.metadata.name
      namespace = d.metadata.namespace
      labels    = { "example.com/audited" = "true" }
    }
  }
}
output {
  body = { labelled = "${d.metadata.namespace}/${d.metadata.name}" }
}
output {
  body = { replicas = d.spec.replicas }
}
"#;

#[test]
fn an_operation_applies_objects_and_reports_output() {
    let f = Function::default();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "uid": "u"}, "spec": {"replicas": 3}});
    let o = f.run_outcome(&operation_request(LABEL_WATCHED, Some(deployment)));
    assert!(o.error.is_none(), "{:?}", o.error);
    let rsp = &o.response;
    let body = struct_to_json(
        rsp.desired.as_ref().expect("desired").resources["labelled"]
            .resource
            .as_ref()
            .expect("body"),
    );
    assert_eq!(
        body,
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web",
            "namespace": "shop", "labels": {"example.com/audited": "true"}}})
    );
    assert_eq!(
        struct_to_json(rsp.output.as_ref().expect("output")),
        json!({"labelled": "shop/web", "replicas": 3})
    );
    assert!(rsp.conditions.is_empty(), "{:?}", rsp.conditions);
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let desired = rsp.desired.as_ref().expect("desired");
    assert!(desired.composite.is_none(), "no readiness, no composite");
}

#[test]
fn an_operation_does_not_wait() {
    let f = Function::default();
    // A WatchOperation's program run without a watched object.
    let o = f.run_outcome(&operation_request(LABEL_WATCHED, None));
    let message = fatal_message(&o.response);
    assert!(
        message.starts_with("this program reads req.watched, and the request has no watched resource (a WatchOperation sends the object it watched; fn-hcl render takes it with -w/--watched-resource); an Operation cannot wait for values it does not have: main.hcl:"),
        "{message}"
    );
    // The unknown references, as the program names them.
    assert!(
        message.contains("unknown values: d.apiVersion"),
        "{message}"
    );

    // A requirement Crossplane has not answered yet: asked for, no Fatal.
    let hcl = r#"
requirement cfg {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "settings"
    namespace  = "ops"
  }
}
resource copy {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = "copy", namespace = "ops" }
    data       = req.extra_resources.cfg[0].data
  }
}
"#;
    let mut req = operation_request(hcl, None);
    let first = f.run_outcome(&req);
    assert!(first.error.is_none(), "{:?}", first.error);
    let sel = &first
        .response
        .requirements
        .as_ref()
        .expect("requirements")
        .resources["cfg"];
    assert_eq!(sel.namespace.as_deref(), Some("ops"));
    // Answered: the object; answered with nothing: the Operation fails.
    req.required_resources.insert(
        "cfg".into(),
        fnhcl_crossplane::proto::Resources {
            items: vec![Resource {
                resource: json_to_struct(&json!({"apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": "settings", "namespace": "ops"}, "data": {"k": "v"}})),
                ..Default::default()
            }],
        },
    );
    let second = f.run_outcome(&req);
    assert!(second.error.is_none(), "{:?}", second.error);
    assert!(
        second
            .response
            .desired
            .as_ref()
            .expect("desired")
            .resources
            .contains_key("copy")
    );
    req.required_resources
        .get_mut("cfg")
        .expect("cfg")
        .items
        .clear();
    let empty = f.run_outcome(&req);
    assert!(
        fatal_message(&empty.response).contains("discarded resource copy"),
        "{:?}",
        empty.response.results
    );
}

#[test]
fn an_operation_has_no_composite() {
    let f = Function::default();
    let hcl = r#"
resource r {
  body = {
    apiVersion = "v1"
    kind       = "ConfigMap"
    metadata   = { name = req.composite.metadata.name }
  }
  ready {
    value = "READY_TRUE"
  }
}
composite status {
  body = { x = 1 }
}
"#;
    let o = f.run_outcome(&operation_request(hcl, None));
    let message = fatal_message(&o.response);
    assert!(
        message.starts_with("main.hcl:6,27-40: req.composite in an Operation: an Operation has no composite resource"),
        "{message}"
    );
    assert!(
        message.contains("ready block at main.hcl:8,3-8"),
        "{message}"
    );
    assert!(
        message.contains("composite status block at main.hcl:12,1-17"),
        "{message}"
    );

    // Objects must be identified.
    let hcl = "resource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\" }\n}\n";
    let o = f.run_outcome(&operation_request(hcl, None));
    assert_eq!(
        fatal_message(&o.response),
        "resource \"r\": an Operation applies objects by apiVersion, kind and metadata.name, and this body has no metadata.name"
    );

    // And a composition has no output.
    let o = f.run_outcome(&inline("output {\n  body = { a = 1 }\n}\n"));
    assert!(
        fatal_message(&o.response).starts_with("output blocks are for Operations"),
        "{:?}",
        o.response.results
    );
}

/// D40, D41: whatever is observed, ready or incomplete, a response that
/// is not Fatal names every observed resource in its desired state: no
/// held-back or kept block ever lets Crossplane delete what exists.
#[test]
fn dependencies_and_keep_never_drop_an_observed_resource() {
    use fnhcl_crossplane::proto::State;
    // Each program with the names of the resources its blocks make.
    let programs: [(&str, &[&str]); 2] = [
        // A chain, each link reading the one before.
        (
            r#"
resource a {
  body = { apiVersion = "v1", kind = "A", metadata = { name = "a" } }
}
resource b {
  depends_on    = ["a"]
  on_incomplete = "keep"
  body = { apiVersion = "v1", kind = "B", metadata = { name = "b" }, spec = { x = req.resource.a.status.x } }
}
resource c {
  depends_on = ["b"]
  body = { apiVersion = "v1", kind = "C", metadata = { name = "c" }, spec = { y = req.resource.b.status.y } }
}
"#,
            &["a", "b", "c"],
        ),
        // A collection waiting for a kept resource.
        (
            r#"
resource a {
  on_incomplete = "keep"
  body = { apiVersion = "v1", kind = "A", metadata = { name = "a" }, spec = { x = req.composite.spec.x } }
}
resources b {
  for_each   = ["p", "q"]
  depends_on = ["a"]
  template {
    body = { apiVersion = "v1", kind = "B", metadata = { name = "b-${each.value}" } }
  }
}
resource c {
  depends_on    = ["b", "a"]
  on_incomplete = "keep"
  body = { apiVersion = "v1", kind = "C", metadata = { name = "c" }, spec = { z = req.resource.a.status.z } }
}
"#,
            &["a", "b-0", "b-1", "c"],
        ),
    ];
    let f = Function::default();
    let mut runs = 0;
    let (mut held, mut kept) = (0, 0);
    for (program, names) in programs {
        for observed_mask in 0u32..(1 << names.len()) {
            for variant in 0..4u32 {
                let mut resources = HashMap::new();
                for (i, n) in names.iter().enumerate() {
                    if observed_mask & (1 << i) == 0 {
                        continue;
                    }
                    let mut body = json!({"apiVersion": "v1", "kind": "X",
                        "metadata": {"name": n, "annotations": {}}});
                    if let Some(rest) = n.strip_prefix("b-") {
                        body["metadata"]["annotations"] = json!({
                            "hcl.fn.crossplane.io/collection-base-name": "b",
                            "hcl.fn.crossplane.io/collection-index": format!("s00000{rest}"),
                        });
                    }
                    // Status present or missing, Ready or not, by variant.
                    if variant & 1 == 1 {
                        body["status"] = json!({"x": 1, "y": 2, "z": 3});
                    }
                    if variant & 2 == 2 {
                        body["status"]["conditions"] = json!([{"type": "Ready", "status": "True"}]);
                    }
                    resources.insert(
                        (*n).to_owned(),
                        Resource {
                            resource: json_to_struct(&body),
                            ..Default::default()
                        },
                    );
                }
                let mut req = inline(program);
                if variant == 3
                    && let Some(o) = req.observed.as_mut()
                {
                    o.composite = Some(Resource {
                        resource: json_to_struct(&json!({"apiVersion": "example.com/v1",
                                "kind": "XNet", "metadata": {"name": "net-1"}, "spec": {"x": 1}})),
                        ..Default::default()
                    });
                }
                let observed: Vec<String> = resources.keys().cloned().collect();
                if let Some(o) = req.observed.as_mut() {
                    o.resources = resources;
                }
                let rsp = f.run(&req);
                runs += 1;
                if rsp
                    .results
                    .iter()
                    .any(|r| r.severity == Severity::Fatal as i32)
                {
                    continue;
                }
                held += rsp
                    .results
                    .iter()
                    .filter(|r| r.message.contains(":held back"))
                    .count();
                kept += rsp
                    .results
                    .iter()
                    .filter(|r| r.message.contains(" as observed"))
                    .count();
                let desired = rsp.desired.unwrap_or_else(State::default);
                for n in &observed {
                    assert!(
                        desired.resources.contains_key(n),
                        "observed {n} dropped (mask {observed_mask:#b}, variant {variant}):\n{program}\n{:?}",
                        rsp.results
                    );
                }
            }
        }
    }
    assert_eq!(runs, (8 + 16) * 4);
    // Both rules were at work.
    assert!(held > 0 && kept > 0, "held back {held}, kept {kept}");
}
