//! gRPC round trip over loopback against the real server (`fnhcl-server`,
//! insecure, started in-process on a free port), with a tonic client.
//! Run: `cargo bench -p fnhcl-bench --bench grpc`.

use std::time::Duration;

use divan::Bencher;
use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use fnhcl_crossplane::proto::function_runner_service_server::FunctionRunnerService;
use fnhcl_crossplane::proto::{RunFunctionRequest, RunFunctionResponse};
use fnhcl_server::{Args, HclFunction};
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

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

/// Answers every request with a fixed response: the transport floor (the
/// SDK's server, tonic, HTTP/2 over loopback and prost encoding of the
/// same messages, without evaluation).
struct Canned(RunFunctionResponse);

#[tonic::async_trait]
impl FunctionRunnerService for Canned {
    async fn run_function(
        &self,
        _request: Request<RunFunctionRequest>,
    ) -> Result<Response<RunFunctionResponse>, Status> {
        Ok(Response::new(self.0.clone()))
    }
}

/// Starts the server on its own runtime (as `fn-hcl serve` runs it) and
/// connects a client on a second, single-threaded runtime; `canned`
/// serves that response instead of running the function.
fn harness(canned: Option<RunFunctionResponse>) -> Harness {
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
            match canned {
                Some(rsp) => function_sdk_rust::serve(Canned(rsp), &args)
                    .await
                    .expect("serve"),
                None => {
                    let f =
                        HclFunction::standard().with_debug_sink(std::sync::Arc::new(|_: &str| {}));
                    fnhcl_server::serve(f, &args).await.expect("serve");
                }
            }
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
    let h = harness(None);
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

/// The transport floor: the same request and response messages through the
/// same server and client, the response precomputed (no evaluation).
#[divan::bench(args = SIZES)]
fn transport_floor(b: Bencher<'_, '_>, n: usize) {
    let hcl = fnhcl_bench::composition(n);
    let req: RunFunctionRequest = fnhcl_bench::request(n, &hcl);
    let rsp = fnhcl_server::standard_function().run(&req);
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let h = harness(Some(rsp));
    let mut client = h.client.clone();
    b.with_inputs(|| req.clone()).bench_local_values(|r| {
        h.rt.block_on(client.run_function(r))
            .expect("call")
            .into_inner()
    });
}

/// An empty request and response: what one gRPC call costs on this
/// machine before any payload.
#[divan::bench]
fn empty_call(b: Bencher<'_, '_>) {
    let h = harness(Some(RunFunctionResponse::default()));
    let mut client = h.client.clone();
    b.bench_local(|| {
        h.rt.block_on(client.run_function(RunFunctionRequest::default()))
            .expect("call")
            .into_inner()
    });
}
