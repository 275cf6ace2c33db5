//! Peak memory per request and growth over many requests, read from
//! `/proc/self/status` (Linux). Run: `cargo bench -p fnhcl-bench --bench memory`.
//!
//! For each case: the peak RSS (VmHWM) is reset through
//! `/proc/self/clear_refs`, one request runs, and the rise of VmHWM over
//! the RSS before it is that request's peak memory. Then many requests run
//! and the RSS before and after shows whether memory grows.

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
}
