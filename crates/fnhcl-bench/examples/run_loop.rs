//! Runs the generated N-resource request K times through a cached
//! `Function` (for `perf record` / `valgrind --tool=callgrind`):
//! `cargo run --release -p fnhcl-bench --example run_loop -- 10 10000`.
//! With a third argument `encode`, only decodes and encodes the protobuf
//! messages instead (the floor to compare against); with `build`, only
//! clones and drops the response (what building the SDK's protobuf
//! response types costs at the least, without evaluating anything). Modes
//! `flat` and `schemas` run the 50 buckets of `flat_composition(10, 5)`
//! (N is ignored) without schemas, and validated against the S3 Bucket
//! CRD's schema as Crossplane supplies it. Mode `buckets` runs N buckets
//! of `bucket_composition` (function-starlark's workload). Mode `bytes`
//! does what the server does per call with the default mode's request:
//! its protobuf bytes decoded, run, the response encoded
//! (`fnhcl_bench::serve_bytes`); the default mode runs the message
//! (`Function::run`); mode `split` does what `bytes` does and times its
//! parts (decode, run, encode, drop), and the encoding of the response
//! built before the loop (the floor's encode) beside them. Mode `live` runs N resources of `composition` with observed
//! objects the size Crossplane sends (`live_request`), `live-bytes` the
//! same from its bytes (as `bytes`), and `live-encode` its protobuf
//! floor. Modes `compile` and `parse` take the
//! ~2,000-line, 50-file program of `large_txtar(50, 2)` (N is ignored) and,
//! K times, load and compile it uncached (parse + check + compile: the first
//! run of a new program) or only parse its files.

use fnhcl_crossplane::{Function, Options};
use prost::Message as _;

fn main() {
    // Like a server pool thread (see fnhcl_crossplane::THREAD_STACK_BYTES).
    std::thread::Builder::new()
        .stack_size(fnhcl_crossplane::THREAD_STACK_BYTES)
        .spawn(run)
        .expect("thread")
        .join()
        .expect("run");
}

fn run() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10);
    let k: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let mode = args.next();
    let encode_only = matches!(mode.as_deref(), Some("encode" | "live-encode"));
    let build_only = mode.as_deref() == Some("build");
    let schemas = mode.as_deref() == Some("schemas");
    let bytes_mode = matches!(mode.as_deref(), Some("bytes" | "live-bytes"));
    if matches!(mode.as_deref(), Some("compile" | "parse")) {
        return compile_loop(k, mode.as_deref() == Some("parse"));
    }
    let mut req = if schemas || mode.as_deref() == Some("flat") {
        fnhcl_bench::request(0, &fnhcl_bench::flat_composition(10, 5))
    } else if matches!(mode.as_deref(), Some("live" | "live-encode" | "live-bytes")) {
        fnhcl_bench::live_request(n, &fnhcl_bench::composition(n))
    } else if mode.as_deref() == Some("buckets") {
        fnhcl_bench::request(n, &fnhcl_bench::bucket_composition(n))
    } else {
        fnhcl_bench::request(n, &fnhcl_bench::composition(n))
    };
    if schemas {
        fnhcl_bench::supply_bucket_schema(&mut req);
    }
    let f = Function::new(Options::default());
    // The response: the floor's encode and `build` work on it.
    let rsp = f.run(&req);
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let bytes = req.encode_to_vec();
    let split = mode.as_deref() == Some("split");
    let mut parts = [std::time::Duration::ZERO; 5];
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for _ in 0..k {
        if split {
            let mut at = [std::time::Instant::now(); 6];
            let r =
                fnhcl_crossplane::proto::RunFunctionRequest::decode(&bytes[..]).expect("decode");
            at[1] = std::time::Instant::now();
            let out = f.run(&r);
            at[2] = std::time::Instant::now();
            total += out.encode_to_vec().len();
            at[3] = std::time::Instant::now();
            drop((out, r));
            at[4] = std::time::Instant::now();
            total += rsp.encode_to_vec().len();
            at[5] = std::time::Instant::now();
            for (i, p) in parts.iter_mut().enumerate() {
                *p += at[i + 1] - at[i];
            }
        } else if build_only {
            total += std::hint::black_box(rsp.clone()).desired.iter().count();
        } else if bytes_mode {
            total += fnhcl_bench::serve_bytes(&f, std::hint::black_box(&bytes)).len();
        } else if encode_only {
            let r =
                fnhcl_crossplane::proto::RunFunctionRequest::decode(&bytes[..]).expect("decode");
            total += r.input.map_or(0, |i| i.fields.len());
            total += rsp.encode_to_vec().len();
        } else {
            total += f.run(&req).results.len();
        }
    }
    let per = start.elapsed() / k as u32;
    if split {
        let [decode, run, encode, drop, floor_encode] = parts.map(|p| p / k as u32);
        println!(
            "decode {decode:?}, run {run:?}, encode {encode:?}, drop {drop:?}; \
             the prebuilt response's encode {floor_encode:?}"
        );
    }
    println!("{n} resources, {k} runs: {per:?} per run ({total})");
}

/// K uncached loads of `large_txtar(50, 2)`: compiled (parse + check +
/// compile), or only parsed file by file.
fn compile_loop(k: usize, parse_only: bool) {
    let text = fnhcl_bench::large_txtar(50, 2);
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for _ in 0..k {
        let mut sources = fnhcl_base::SourceMap::new();
        fnhcl_base::txtar::load_into(&mut sources, std::hint::black_box(&text)).expect("txtar");
        if parse_only {
            for (id, _) in sources.files() {
                let (body, diags) = fnhcl_syntax::parse_file(&sources, id);
                assert!(diags.is_empty(), "{diags:?}");
                total += body.items.len();
            }
        } else {
            let program = fnhcl_eval::compile(std::sync::Arc::new(sources));
            total += usize::from(program.is_ok());
        }
    }
    let per = start.elapsed() / k as u32;
    let what = if parse_only {
        "parse"
    } else {
        "parse + check + compile"
    };
    println!("large_txtar(50, 2), {k} runs of {what}: {per:?} per run ({total})");
}
