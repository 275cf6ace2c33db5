//! In-process benchmarks of the function. Run: `cargo bench -p fnhcl-bench`.

use std::sync::Arc;

use divan::{Bencher, black_box};
use fnhcl_base::SourceMap;
use fnhcl_crossplane::{Function, Options};
use prost::Message as _;

fn main() {
    // Like a server pool thread (`fnhcl_crossplane::THREAD_STACK_BYTES`):
    // runs then need no stack of their own, as in `fn-hcl serve`.
    std::thread::Builder::new()
        .stack_size(fnhcl_crossplane::THREAD_STACK_BYTES)
        .spawn(divan::main)
        .expect("bench thread")
        .join()
        .expect("benchmarks");
}

/// Parse + static check of a ~2,000-line program in 50 files.
#[divan::bench]
fn parse_and_check(b: Bencher<'_, '_>) {
    let text = fnhcl_bench::large_txtar(50, 2);
    b.bench(|| {
        let mut sources = SourceMap::new();
        fnhcl_base::txtar::load_into(&mut sources, black_box(&text)).expect("txtar");
        fnhcl_eval::compile(Arc::new(sources))
    });
}

const SIZES: &[usize] = &[10, 50, 500];

/// RunFunction with the compiled program cached (the steady state): the
/// request to the response's bytes, as the server runs it.
#[divan::bench(args = SIZES)]
fn run_cached(b: Bencher<'_, '_>, n: usize) {
    cached(b, fnhcl_bench::request(n, &fnhcl_bench::composition(n)));
}

/// Running `req` from its protobuf bytes (what the server receives: prost
/// decodes it, and encodes the response) with its program already
/// compiled.
fn cached(b: Bencher<'_, '_>, req: fnhcl_crossplane::proto::RunFunctionRequest) {
    let f = Function::new(Options::default());
    let _ = f.run(&req);
    let bytes = req.encode_to_vec();
    b.bench(|| fnhcl_bench::serve_bytes(&f, black_box(&bytes)));
}

/// 50 resources from 10 instances of one module, against the same 50
/// resources written flat (cached programs; the bound: modules
/// within 1.3x of flat).
#[divan::bench(args = ["flat", "modules"])]
fn modules_vs_flat(b: Bencher<'_, '_>, kind: &str) {
    let hcl = match kind {
        "flat" => fnhcl_bench::flat_composition(10, 5),
        _ => fnhcl_bench::modular_composition(10, 5),
    };
    let req = fnhcl_bench::request(0, &hcl);
    let f = Function::new(Options::default());
    let rsp = f.run(&req);
    assert_eq!(rsp.desired.map_or(0, |d| d.resources.len()), 50, "{kind}");
    let bytes = req.encode_to_vec();
    b.bench(|| fnhcl_bench::serve_bytes(&f, black_box(&bytes)));
}

/// 50 valid buckets (cached program) without schemas, against the same run
/// when Crossplane advertises `CAPABILITY_REQUIRED_SCHEMAS` and supplies the
/// upjet S3 Bucket CRD's schema: what validating every desired body costs
/// (the bound: at most 20% more).
#[divan::bench(args = ["off", "validated"])]
fn schema_validation(b: Bencher<'_, '_>, mode: &str) {
    let hcl = fnhcl_bench::flat_composition(10, 5);
    let mut req = fnhcl_bench::request(0, &hcl);
    if mode == "validated" {
        fnhcl_bench::supply_bucket_schema(&mut req);
    }
    let f = Function::new(Options::default());
    let rsp = f.run(&req);
    assert_eq!(rsp.desired.map_or(0, |d| d.resources.len()), 50, "{mode}");
    assert!(
        rsp.results
            .iter()
            .all(|r| r.reason.as_deref() != Some("SchemaViolation")),
        "{:?}",
        rsp.results
    );
    let bytes = req.encode_to_vec();
    b.bench(|| fnhcl_bench::serve_bytes(&f, black_box(&bytes)));
}

/// Parse + check of the module program (cold compile).
#[divan::bench]
fn modules_compile(b: Bencher<'_, '_>) {
    let text = fnhcl_bench::modular_composition(10, 5);
    b.bench(|| {
        let mut sources = SourceMap::new();
        fnhcl_base::txtar::load_into(&mut sources, black_box(&text)).expect("txtar");
        fnhcl_eval::compile(Arc::new(sources))
    });
}

/// RunFunction with a cold cache: parse, check and evaluate every time.
#[divan::bench(args = SIZES)]
fn run_uncached(b: Bencher<'_, '_>, n: usize) {
    let hcl = fnhcl_bench::composition(n);
    let bytes = fnhcl_bench::request(n, &hcl).encode_to_vec();
    b.bench(|| fnhcl_bench::serve_bytes(&Function::new(Options::default()), black_box(&bytes)));
}

/// Protobuf decode of the request plus encode of the response: the floor
/// any function pays per call, to compare evaluation against.
#[divan::bench(args = SIZES)]
fn protobuf_decode_encode(b: Bencher<'_, '_>, n: usize) {
    decode_encode(b, fnhcl_bench::request(n, &fnhcl_bench::composition(n)));
}

/// Decoding `req` and encoding the response it gets, without running.
fn decode_encode(b: Bencher<'_, '_>, req: fnhcl_crossplane::proto::RunFunctionRequest) {
    let rsp = Function::new(Options::default()).run(&req);
    let req_bytes = req.encode_to_vec();
    b.bench(|| {
        let decoded =
            fnhcl_crossplane::proto::RunFunctionRequest::decode(black_box(&req_bytes[..]))
                .expect("decode");
        black_box(decoded);
        black_box(&rsp).encode_to_vec()
    });
}

/// [`run_cached`] with observed objects the size Crossplane sends
/// (`fnhcl_bench::live_request`): metadata with managed fields, status,
/// conditions, of which the program reads a few fields.
#[divan::bench(args = [10, 50])]
fn run_cached_live(b: Bencher<'_, '_>, n: usize) {
    cached(
        b,
        fnhcl_bench::live_request(n, &fnhcl_bench::composition(n)),
    );
}

/// [`protobuf_decode_encode`] of the live-sized request.
#[divan::bench(args = [10, 50])]
fn protobuf_decode_encode_live(b: Bencher<'_, '_>, n: usize) {
    decode_encode(
        b,
        fnhcl_bench::live_request(n, &fnhcl_bench::composition(n)),
    );
}
