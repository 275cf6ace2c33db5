//! Peak memory per request and growth over many requests, read from
//! `/proc/self/status` (Linux). Run: `cargo bench -p fnhcl-bench --bench memory`.
//!
//! For each case: the peak RSS (VmHWM) is reset through
//! `/proc/self/clear_refs`, one request runs, and the rise of VmHWM over
//! the RSS before it is that request's peak memory. Then many requests run
//! and the RSS before and after shows whether memory grows.
//!
//! With `--features count-alloc` (a counting global allocator instead of
//! mimalloc) it also says what the peak of one 500-resource request
//! consists of, in live heap bytes: the decoded request, the compiled
//! program (and the peak while compiling), the evaluation's request view,
//! the evaluation (its peak and the Output it returns) and the SDK
//! response; then the peak of whole runs (`Function::run`), uncached and
//! cached:
//! `cargo bench -p fnhcl-bench --features count-alloc --bench memory`.

use fnhcl_crossplane::{Function, Options};

fn status_kib(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn peak_of(f: impl FnOnce()) -> Option<(u64, u64)> {
    if !reset_peak() {
        return None;
    }
    let before = status_kib("VmRSS:")?;
    f();
    let peak = status_kib("VmHWM:")?;
    Some((before, peak.saturating_sub(before)))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too,
    // so keep it quick unless asked for the long run.
    let quick = std::env::args().any(|a| a == "--test");
    let rss0 = status_kib("VmRSS:").unwrap_or(0);
    println!("memory: process RSS at start {rss0} KiB");
    for n in [10usize, 500] {
        let hcl = fnhcl_bench::composition(n);
        let req = fnhcl_bench::request(n, &hcl);
        let f = Function::new(Options::default());
        let uncached = peak_of(|| {
            let _ = f.run(&req);
        });
        let cached = peak_of(|| {
            let _ = f.run(&req);
        });
        let report = |what: &str, m: Option<(u64, u64)>| match m {
            Some((before, rise)) => {
                println!("memory: {n:>3} resources, {what}: peak +{rise} KiB over RSS {before} KiB")
            }
            None => println!("memory: {what}: /proc/self/status not available"),
        };
        report("uncached (compile + run)", uncached);
        report("cached", cached);
        let runs = match (quick, n) {
            (true, _) => 100,
            (false, 10) => 100_000,
            (false, _) => 5_000,
        };
        let warm = runs / 10;
        for _ in 0..warm {
            let _ = f.run(&req);
        }
        let before = status_kib("VmRSS:").unwrap_or(0);
        let start = std::time::Instant::now();
        for _ in 0..runs {
            let _ = f.run(&req);
        }
        let per = start.elapsed() / runs as u32;
        let after = status_kib("VmRSS:").unwrap_or(0);
        println!(
            "memory: {n:>3} resources, {runs} more requests: RSS {before} KiB -> {after} KiB ({:+} KiB), {per:?}/request",
            after as i64 - before as i64
        );
    }
    // Last: the counting build runs on the system allocator, whose RSS
    // (above) is not mimalloc's, so only the counts below are its point.
    #[cfg(feature = "count-alloc")]
    parts(500);
}

/// The parts of one `n`-resource request's peak, in live heap bytes.
#[cfg(feature = "count-alloc")]
fn parts(n: usize) {
    use fnhcl_bench::alloc_count::{live, peak, reset_peak};
    use prost::Message as _;
    let kib = |b: usize| b as f64 / 1024.0;
    let hcl = fnhcl_bench::composition(n);
    let bytes = fnhcl_bench::request(n, &hcl).encode_to_vec();
    println!(
        "parts ({n} resources; live heap bytes, counted; request {:.0} KiB encoded, program {:.0} KiB):",
        kib(bytes.len()),
        kib(hcl.len())
    );
    let line = |what: &str, held: usize, peak_over: Option<usize>| match peak_over {
        Some(p) => println!(
            "  {what:<44} holds {:>9.0} KiB, peak +{:>9.0} KiB",
            kib(held),
            kib(p)
        ),
        None => println!("  {what:<44} holds {:>9.0} KiB", kib(held)),
    };
    let base = reset_peak();
    let req = fnhcl_crossplane::proto::RunFunctionRequest::decode(&bytes[..]).expect("decode");
    let after_req = live();
    line("request (decoded protobuf)", after_req - base, None);

    let before = reset_peak();
    let mut sources = fnhcl_base::SourceMap::new();
    let file = sources.add("main.hcl", hcl.as_str());
    let (body, _) = fnhcl_syntax::parse_file(&sources, file);
    line(
        "parse alone (text + syntax tree)",
        live() - before,
        Some(peak() - before),
    );
    drop((body, sources));

    let before = reset_peak();
    let mut sources = fnhcl_base::SourceMap::new();
    sources.add("main.hcl", hcl.as_str());
    let program = fnhcl_eval::compile(std::sync::Arc::new(sources)).expect("compiles");
    line(
        "compiled program (sources included)",
        live() - before,
        Some(peak() - before),
    );

    let before = reset_peak();
    let eval_req = fnhcl_crossplane::request::eval_request_for(&req, program.demand());
    line(
        "evaluation's request (req.*)",
        live() - before,
        Some(peak() - before),
    );

    let before = reset_peak();
    let limits = fnhcl_crossplane::Options::default().limits.eval;
    let output = fnhcl_eval::evaluate_with_limits(&program, &eval_req, &limits).expect("runs");
    line(
        "evaluation -> Output",
        live() - before,
        Some(peak() - before),
    );

    let before = reset_peak();
    let rsp = fnhcl_crossplane::response::success(
        &req,
        fnhcl_crossplane::DEFAULT_TTL,
        &output,
        fnhcl_crossplane::response::Settings::default(),
    )
    .expect("response");
    let encoded = prost::Message::encode_to_vec(&rsp);
    drop(rsp);
    line("response bytes", live() - before, Some(peak() - before));
    println!(
        "  all of them held at once: {:.0} KiB over the start; response {:.0} KiB encoded",
        kib(live() - base),
        kib(encoded.len())
    );
    drop((output, eval_req, program, encoded));

    let f = Function::new(Options::default());
    for what in ["uncached", "cached"] {
        let before = reset_peak();
        let outcome = f.run_outcome(&req);
        assert!(
            outcome.error.is_none() && outcome.warnings == 0,
            "{:?}",
            outcome.error
        );
        let held = live() - before;
        drop(outcome);
        println!(
            "  run_outcome, {what:<8}: peak +{:.0} KiB over the decoded request ({:.0} KiB held after, response included)",
            kib(peak() - before),
            kib(held)
        );
    }
}
