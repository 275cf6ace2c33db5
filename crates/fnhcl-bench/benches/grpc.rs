//! gRPC round trip over loopback against the real server (`fnhcl-server`,
//! insecure, started in-process on a free port), with a tonic client.
//! Run: `cargo bench -p fnhcl-bench --bench grpc`.

use std::time::Duration;

use divan::Bencher;
use fnhcl_crossplane::proto::RunFunctionRequest;
use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use fnhcl_server::{Args, HclFunction};
use tonic::transport::Channel;

// mimalloc: faster than glibc malloc for the many small, short-lived
// allocations of a run (see docs/benchmarks.md), same allocator as `fn-hcl`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

struct Harness {
    rt: tokio::runtime::Runtime,
    client: FunctionRunnerServiceClient<Channel>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("ephemeral port")
}

/// Starts the server on its own runtime (as `fn-hcl serve` runs it) and
/// connects a client on a second, single-threaded runtime.
fn harness() -> Harness {
    let port = free_port();
    let args = Args {
        debug: false,
        address: format!("127.0.0.1:{port}"),
        insecure: true,
        tls_certs_dir: None,
        max_recv_message_size: None,
        metrics_address: String::new(),
    };
    std::thread::spawn(move || {
        // The runtime `fnhcl_server::serve_blocking` (`fn-hcl serve`) uses.
        let rt = fnhcl_server::runtime().expect("server runtime");
        rt.block_on(async {
            let f = HclFunction::standard().with_debug_sink(std::sync::Arc::new(|_: &str| {}));
            fnhcl_server::serve(f, &args).await.expect("serve");
        });
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let client = rt.block_on(async {
        for _ in 0..200 {
            if let Ok(c) =
                FunctionRunnerServiceClient::connect(format!("http://127.0.0.1:{port}")).await
            {
                return c;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("cannot connect to the server on port {port}");
    });
    Harness { rt, client }
}

const SIZES: &[usize] = &[10, 50, 500];

/// One RunFunction call over loopback (program cached after the first).
#[divan::bench(args = SIZES)]
fn round_trip(b: Bencher<'_, '_>, n: usize) {
    let h = harness();
    let hcl = fnhcl_bench::composition(n);
    let req: RunFunctionRequest = fnhcl_bench::request(n, &hcl);
    let mut client = h.client.clone();
    let first =
        h.rt.block_on(client.run_function(req.clone()))
            .expect("first call")
            .into_inner();
    assert!(first.results.is_empty(), "{:?}", first.results);
    b.with_inputs(|| req.clone()).bench_local_values(|r| {
        h.rt.block_on(client.run_function(r))
            .expect("call")
            .into_inner()
    });
}
