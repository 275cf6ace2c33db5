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
//! of `bucket_composition` (function-starlark's workload); `wire` does
//! what the server does per call with them: the request's protobuf bytes
//! to the response's (`Function::run_bytes`: the request read where it is,
//! no message decoded). Mode `bytes` runs the SDK message of the default
//! mode's request to the response's protobuf bytes
//! (`Function::run_encoded_with`: prost encodes the request first, then as
//! `run_bytes`); `req-bytes` runs that request from its bytes
//! (`Function::run_bytes`, what the server does). The default mode's
//! `Function::run` decodes the response into the SDK's message too. Mode `live` runs N resources of `composition` with observed
//! objects the size Crossplane sends (`live_request`), `live-bytes` the
//! same from its bytes (as `req-bytes`), and `live-encode` its protobuf
//! floor. Modes `compile` and `parse` take the
//! ~2,000-line, 50-file program of `large_txtar(50, 2)` (N is ignored) and,
//! K times, load and compile it uncached (parse + check + compile: the first
//! run of a new program) or only parse its files. Modes `encode-prost` and
//! `encode-ours` only encode the response to N buckets of
//! `bucket_composition`, with prost or with `fn-hcl serve`'s codec
//! (`fnhcl_server::codec`).

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
    let wire = mode.as_deref() == Some("wire");
    let bytes_mode = mode.as_deref() == Some("bytes");
    let req_bytes = matches!(mode.as_deref(), Some("req-bytes" | "live-bytes"));
    let encode_response = match mode.as_deref() {
        Some("encode-prost") => Some(false),
        Some("encode-ours") => Some(true),
        _ => None,
    };
    if matches!(mode.as_deref(), Some("compile" | "parse")) {
        return compile_loop(k, mode.as_deref() == Some("parse"));
    }
    let mut req = if schemas || mode.as_deref() == Some("flat") {
        fnhcl_bench::request(0, &fnhcl_bench::flat_composition(10, 5))
    } else if matches!(mode.as_deref(), Some("live" | "live-encode" | "live-bytes")) {
        fnhcl_bench::live_request(n, &fnhcl_bench::composition(n))
    } else if wire || encode_response.is_some() || mode.as_deref() == Some("buckets") {
        fnhcl_bench::request(n, &fnhcl_bench::bucket_composition(n))
    } else {
        fnhcl_bench::request(n, &fnhcl_bench::composition(n))
    };
    if schemas {
        fnhcl_bench::supply_bucket_schema(&mut req);
    }
    let f = Function::new(Options::default());
    // The message as prost decodes the function's bytes (what a prost
    // client holds): the floor's encode and `build` work on it.
    let rsp = fnhcl_crossplane::proto::RunFunctionResponse::decode(
        f.run_encoded_with(&req, None).response.as_slice(),
    )
    .expect("decode");
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let bytes = req.encode_to_vec();
    let start = std::time::Instant::now();
    let mut total = 0usize;
    for _ in 0..k {
        if let Some(ours) = encode_response {
            let rsp = std::hint::black_box(&rsp);
            total += if ours {
                fnhcl_server::codec::response_bytes(rsp).len()
            } else {
                rsp.encode_to_vec().len()
            };
        } else if build_only {
            total += std::hint::black_box(rsp.clone()).desired.iter().count();
        } else if wire || req_bytes {
            total += f
                .run_bytes(std::hint::black_box(&bytes), None)
                .response
                .len();
        } else if bytes_mode {
            total += f.run_encoded_with(&req, None).response.len();
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
