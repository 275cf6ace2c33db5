//! The Go function-hcl as an oracle: every evaluator case
//! (`crates/fnhcl-eval/tests/cases`) and generated programs
//! (`fnhcl_bench::difftest::generated`) sent as the same
//! `RunFunctionRequest`, through the same client, to the Go function-hcl
//! and to `fn-hcl`'s server, both on loopback; the responses compared
//! after the documented deliberate differences (`difftest::NORMALISATIONS`).
//!
//! `tests/crossplane/run.sh` builds the Go function-hcl (v0.2.0) from the
//! Go module proxy and runs this with `--ignored`:
//!
//! - `FNHCL_FUNCTION_HCL_GO`: its binary;
//! - `FNHCL_DIFF_CASES`: how many generated programs (default 300);
//! - `FNHCL_DIFF_SECONDS`: instead, generate for this many seconds;
//! - `FNHCL_DIFF_SEED`: the first seed (default 1).
//!
//! Divergences in the evaluator's cases are listed, with the decision
//! that explains each, in `EXPLAINED` below; a listed case that agrees
//! fails the test, so the list only shrinks.

use std::collections::BTreeMap;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fnhcl_bench::difftest::{self, Program, Verdict};
use fnhcl_crossplane::proto::RunFunctionRequest;
use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use tonic::transport::Channel;

/// Evaluator cases whose responses differ from Go's on purpose, with the
/// entry of `docs/differences-from-go.md` that says why.
const EXPLAINED: &[(&str, &str)] = &[
    (
        "depends-on-recorded",
        "D40: depends_on (Go: Unsupported argument)",
    ),
    (
        "on-incomplete-keep",
        "D41: on_incomplete (Go: Unsupported argument)",
    ),
    (
        "on-incomplete-keep-instance-and-collection",
        "D24-D31: modules (Go: Unsupported block type); D41: on_incomplete",
    ),
    (
        "requirement-namespace",
        "D36: `namespace` in a select block (Go: Unsupported argument)",
    ),
    (
        "requirement-namespace-incomplete",
        "D36: `namespace` in a select block (Go: Unsupported argument)",
    ),
    (
        "readiness-gating-optional",
        "D32: `optional` on resource and resources blocks (Go: Unsupported argument)",
    ),
    (
        "module-optional-not-gating",
        "D24-D31: modules (Go: Unsupported block type); D32: optional",
    ),
    (
        "user-conditions-and-results",
        "D35: composite condition and result blocks (Go: invalid composite label, Unsupported block type)",
    ),
    (
        "composite-ready-explicit",
        "D33: composite ready (Go: invalid composite label)",
    ),
    (
        "composite-ready-incomplete",
        "D33: composite ready (Go: invalid composite label)",
    ),
    (
        "unknown-conditional-not-refined",
        "Refinements: HCL 2.24 narrows an unknown conditional to the range of its branches, which can make it known; we keep it unknown and defer",
    ),
    (
        "body-block-d4",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "builtins-d8-pure-additions",
        "D8: the pure built-ins Go lacks (uuidv5, type, nonsensitive, ...)",
    ),
    (
        "collection-template-self-observed",
        "D13: self.resource in templates is the member's observed body (Go: always null)",
    ),
    (
        "connection-merge",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "err-builtins-d8-not-hermetic",
        "D8 and Checked once: an impure built-in is an error when the program is loaded (Go: unknown function at run time)",
    ),
    (
        "err-self-bad-attribute",
        "Checked once, when the program is loaded: an undefined name or function, a bad `self` attribute or a dynamic invoke is an error up front (Go: the block is discarded at run time)",
    ),
    (
        "err-undefined-in-body",
        "Checked once, when the program is loaded: an undefined name or function, a bad `self` attribute or a dynamic invoke is an error up front (Go: the block is discarded at run time)",
    ),
    (
        "err-unknown-builtin-function",
        "Checked once, when the program is loaded: an undefined name or function, a bad `self` attribute or a dynamic invoke is an error up front (Go: the block is discarded at run time)",
    ),
    (
        "err-unknown-function-hints",
        "Checked once, when the program is loaded: an undefined name or function, a bad `self` attribute or a dynamic invoke is an error up front (Go: the block is discarded at run time)",
    ),
    (
        "invoke-static-checks",
        "Checked once, when the program is loaded: an undefined name or function, a bad `self` attribute or a dynamic invoke is an error up front (Go: the block is discarded at run time)",
    ),
    (
        "limit-locals-chain-depth",
        "Smaller differences: chains of locals deeper than 1,000 give a warning and an unknown value",
    ),
    (
        "module-collections-requirements-functions",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-condition-incomplete-discards",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-conditions-and-groups",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-export-deferred",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-nested-two-deep",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-path-label",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-resource-export-observed",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-status-merge-and-ready",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-switch-inside",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "module-three-instances",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "req-variables",
        "Smaller differences: matchLabels accepts a map; D13: self.resource in templates",
    ),
    (
        "requirement-absent-and-empty",
        "D19: a requirement answered with no match is an empty list (Go: null)",
    ),
    (
        "requirement-incomplete-omitted",
        "D16: an incomplete requirement selector is omitted (Go: an empty selector)",
    ),
    (
        "seed-conditions",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "seed-conditions-resources-body-shorthand",
        "D4: `body` directly in a `resources` block",
    ),
    (
        "seed-connection-in-resource",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "seed-connection-top-level",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "seed-discard-status-incomplete",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "seed-group-local-not-visible-outside",
        "Checked once, when the program is loaded: an undefined name or function, a bad `self` attribute or a dynamic invoke is an error up front (Go: the block is discarded at run time)",
    ),
    (
        "seed-status-merge",
        "D4: `body { ... }` as a block (Go: Missing required argument \"body\")",
    ),
    (
        "switch-branches-and-exports",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "switch-default-no-match",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
    (
        "switch-incomplete-discards",
        "D24-D31: modules, parameters, exports and switch (Go: Unsupported block type)",
    ),
];

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind an ephemeral port")
        .local_addr()
        .expect("local address")
        .port()
}

/// The Go function-hcl's process, started again when it dies (it panics
/// on some programs, and gRPC-Go does not catch a handler's panic).
struct Go {
    bin: String,
    address: String,
    child: Child,
}

impl Go {
    fn start(bin: &str) -> Go {
        let address = format!("127.0.0.1:{}", free_port());
        let child = Command::new(bin)
            .args(["--insecure", &format!("--address={address}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {bin}: {e}"));
        Go {
            bin: bin.to_owned(),
            address,
            child,
        }
    }

    /// Whether the process has died; if so, a new one is started.
    fn restart_if_dead(&mut self) -> bool {
        if self.child.try_wait().ok().flatten().is_none() {
            return false;
        }
        *self = Go::start(&self.bin.clone());
        true
    }
}

impl Drop for Go {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn connect(address: &str) -> FunctionRunnerServiceClient<Channel> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match FunctionRunnerServiceClient::connect(format!("http://{address}")).await {
            Ok(c) => return c.max_decoding_message_size(64 << 20),
            Err(e) => {
                assert!(
                    Instant::now() < deadline,
                    "cannot connect to {address}: {e}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

struct Tally {
    programs: usize,
    same: usize,
    documented: BTreeMap<&'static str, usize>,
    normalised: BTreeMap<&'static str, usize>,
    divergences: Vec<String>,
    explained: Vec<String>,
}

async fn check(
    program: &Program,
    go_process: &mut Go,
    go: &mut FunctionRunnerServiceClient<Channel>,
    ours: &mut FunctionRunnerServiceClient<Channel>,
    tally: &mut Tally,
) {
    let req: RunFunctionRequest = match program.run_function_request() {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let g = go.run_function(req.clone()).await;
    let o = ours.run_function(req).await;
    tally.programs += 1;
    let explained = EXPLAINED.iter().find(|(n, _)| *n == program.name);
    let (g, o) = match (g, o) {
        (Ok(g), Ok(o)) => (g.into_inner(), o.into_inner()),
        (Err(_), Ok(o)) if go_process.restart_if_dead() => {
            *go = connect(&go_process.address).await;
            // Go's process died on this program; we must answer it
            // with a Fatal result rather than crash.
            let fatal = o
                .get_ref()
                .results
                .iter()
                .any(|r| r.severity == fnhcl_crossplane::proto::Severity::Fatal as i32);
            if fatal {
                *tally.documented.entry("Go-crash").or_default() += 1;
                eprintln!("{}: the Go function crashed", program.name);
            } else {
                tally.divergences.push(format!(
                    "{}: the Go function crashed; we answered without a Fatal result",
                    program.name
                ));
            }
            return;
        }
        (Err(status), Ok(o)) => {
            // Go v0.2.0 returns a failed evaluation as a gRPC error; we
            // answer a Fatal result with the same message.
            let ours_fatal = o
                .get_ref()
                .results
                .iter()
                .find(|r| r.severity == fnhcl_crossplane::proto::Severity::Fatal as i32);
            match ours_fatal {
                Some(_) => {
                    *tally.documented.entry("Go-grpc-error").or_default() += 1;
                }
                None if explained.is_some() => {
                    let (n, why) = explained.expect("checked");
                    tally.explained.push(format!("{n}: {why}"));
                }
                None => tally.divergences.push(format!(
                    "{}:\n{}\nGo: gRPC error {:?} {:?}\nours: {:?}",
                    program.name,
                    program.hcl,
                    status.code(),
                    status.message(),
                    o.get_ref().results
                )),
            }
            return;
        }
        (g, o) => {
            tally.divergences.push(format!(
                "{}: a call failed: Go {:?}, ours {:?}",
                program.name,
                g.err().map(|s| s.message().to_owned()),
                o.err().map(|s| s.message().to_owned())
            ));
            return;
        }
    };
    match difftest::compare(program, &g, &o) {
        Verdict::Same(applied) => {
            tally.same += 1;
            for a in applied {
                *tally.normalised.entry(a).or_default() += 1;
            }
            if let Some((n, _)) = explained {
                tally.divergences.push(format!(
                    "{n}: listed in EXPLAINED but agrees with Go now: remove it"
                ));
            }
        }
        Verdict::Documented(name) => *tally.documented.entry(name).or_default() += 1,
        Verdict::Differs(d) => match explained {
            Some((n, why)) => tally.explained.push(format!("{n}: {why}")),
            None => tally.divergences.push(format!(
                "{}:\n{}\nrequest: {}\n{}",
                program.name, program.hcl, program.request, d
            )),
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the Go function-hcl from the Go module proxy: run tests/crossplane/run.sh"]
async fn the_go_function_hcl_answers_the_same() {
    let go_bin = std::env::var("FNHCL_FUNCTION_HCL_GO")
        .expect("FNHCL_FUNCTION_HCL_GO is not set: run tests/crossplane/run.sh");
    let count: u64 = std::env::var("FNHCL_DIFF_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let seconds: Option<u64> = std::env::var("FNHCL_DIFF_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok());
    let first_seed: u64 = std::env::var("FNHCL_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);

    let mut go_process = Go::start(&go_bin);
    let our_address = format!("127.0.0.1:{}", free_port());
    let args = fnhcl_server::Args {
        debug: false,
        address: our_address.clone(),
        insecure: true,
        tls_certs_dir: None,
        max_recv_message_size: None,
        metrics_address: String::new(),
    };
    // What `fn-hcl serve` runs, without its logging (each Fatal result
    // would be a line on stderr).
    std::thread::spawn(move || {
        let rt = fnhcl_server::runtime().expect("runtime");
        let function = fnhcl_server::HclFunction::configured(
            fnhcl_server::CacheLimits::default(),
            fnhcl_crossplane::Limits::default(),
        );
        rt.block_on(fnhcl_server::serve(function, &args))
    });
    let mut go = connect(&go_process.address).await;
    let mut ours = connect(&our_address).await;

    let mut tally = Tally {
        programs: 0,
        same: 0,
        documented: BTreeMap::new(),
        normalised: BTreeMap::new(),
        divergences: Vec::new(),
        explained: Vec::new(),
    };
    for dir in &fnhcl_cases::eval_case::eval_case_dirs() {
        let program = difftest::eval_case(dir).unwrap_or_else(|e| panic!("{e}"));
        check(&program, &mut go_process, &mut go, &mut ours, &mut tally).await;
    }
    let conformance = tally.programs;
    let start = Instant::now();
    let mut seed = first_seed;
    loop {
        let done = match seconds {
            Some(s) => start.elapsed() >= Duration::from_secs(s),
            None => seed >= first_seed + count,
        };
        if done {
            break;
        }
        check(
            &difftest::generated(seed),
            &mut go_process,
            &mut go,
            &mut ours,
            &mut tally,
        )
        .await;
        seed += 1;
    }
    eprintln!(
        "{} programs ({conformance} evaluator cases, {} generated): {} the same, documented differences {:?}, explained cases {}, divergences {}",
        tally.programs,
        tally.programs - conformance,
        tally.same,
        tally.documented,
        tally.explained.len(),
        tally.divergences.len()
    );
    eprintln!("normalisations applied: {:?}", tally.normalised);
    for e in &tally.explained {
        eprintln!("explained: {e}");
    }
    assert!(
        tally.divergences.is_empty(),
        "{} divergences from the Go function-hcl:\n\n{}",
        tally.divergences.len(),
        tally.divergences.join("\n\n")
    );
}
