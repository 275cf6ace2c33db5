//! The gRPC `FunctionRunnerService` server: [`fnhcl_crossplane::Function`]
//! behind `function-sdk-rust`'s spec-compliant runtime (mTLS or insecure,
//! health, reflection, metrics, graceful shutdown on SIGTERM).
//!
//! Requests run concurrently on tokio's blocking pool (evaluation is CPU
//! work); a panic in one becomes a Fatal result for that request only.

mod fs;
mod metrics;

use std::sync::Arc;
use std::time::Instant;

use fnhcl_crossplane::{Function, Options, Outcome};
use function_sdk_rust::proto::v1::function_runner_service_server::FunctionRunnerService;
use function_sdk_rust::proto::v1::{RunFunctionRequest, RunFunctionResponse};
use tonic::{Request, Response, Status};

pub use fs::FsDirectoryReader;
pub use function_sdk_rust::Args;
pub use metrics::Metrics;

/// Where debug dumps (upstream §9) go.
pub type DebugSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The function as a gRPC service.
#[derive(Clone)]
pub struct HclFunction {
    function: Arc<Function>,
    debug_sink: DebugSink,
    metrics: Option<Arc<Metrics>>,
}

impl HclFunction {
    /// A service around `function`; debug dumps are written to stderr.
    pub fn new(function: Arc<Function>) -> HclFunction {
        HclFunction {
            function,
            debug_sink: Arc::new(|text: &str| eprintln!("{text}")),
            metrics: None,
        }
    }

    /// A service with the standard options: program cache and the
    /// `FileSystem` source reading from the local disk.
    pub fn standard() -> HclFunction {
        HclFunction::new(Arc::new(standard_function()))
    }

    /// Sends debug dumps somewhere else than stderr.
    pub fn with_debug_sink(mut self, sink: DebugSink) -> HclFunction {
        self.debug_sink = sink;
        self
    }

    /// Records every run in `metrics`.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> HclFunction {
        self.metrics = Some(metrics);
        self
    }

    /// Runs one request off the async executor and logs it.
    pub async fn handle(&self, req: RunFunctionRequest) -> Result<RunFunctionResponse, Status> {
        let function = self.function.clone();
        let start = Instant::now();
        let outcome = tokio::task::spawn_blocking(move || function.run_outcome(&req))
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "function run did not complete");
                Status::internal(format!("function run did not complete: {e}"))
            })?;
        self.report(&outcome, start);
        Ok(outcome.response)
    }

    fn report(&self, outcome: &Outcome, start: Instant) {
        if let Some(text) = &outcome.debug_request {
            (self.debug_sink)(text);
        }
        if let Some(text) = &outcome.debug_response {
            (self.debug_sink)(text);
        }
        let elapsed = start.elapsed().as_secs_f64();
        if let Some(m) = &self.metrics {
            m.observe(outcome.error.is_some(), outcome.cache_hit, elapsed);
        }
        let elapsed_ms = elapsed * 1000.0;
        let xr = &outcome.xr;
        match &outcome.error {
            None => tracing::info!(
                tag = %outcome.tag,
                xr_version = %xr.api_version,
                xr_kind = %xr.kind,
                xr_name = %xr.name,
                xr_namespace = %xr.namespace,
                warnings = outcome.warnings,
                cached = outcome.cache_hit.unwrap_or(false),
                elapsed_ms,
                "ran function"
            ),
            Some(error) => tracing::warn!(
                tag = %outcome.tag,
                xr_version = %xr.api_version,
                xr_kind = %xr.kind,
                xr_name = %xr.name,
                xr_namespace = %xr.namespace,
                error = %error,
                elapsed_ms,
                "function returned a fatal result"
            ),
        }
    }
}

/// The function with the options the server uses.
pub fn standard_function() -> Function {
    Function::new(standard_options())
}

/// The server's options: the defaults plus the `FileSystem` source reading
/// from the local disk.
pub fn standard_options() -> Options {
    Options {
        directory_reader: Some(Arc::new(FsDirectoryReader::new())),
        ..Options::default()
    }
}

#[tonic::async_trait]
impl FunctionRunnerService for HclFunction {
    async fn run_function(
        &self,
        request: Request<RunFunctionRequest>,
    ) -> Result<Response<RunFunctionResponse>, Status> {
        self.handle(request.into_inner()).await.map(Response::new)
    }
}

/// Serves until SIGTERM/SIGINT, then shuts down gracefully. The function's
/// own metrics are served with the SDK's at `--metrics-address`.
pub async fn serve(function: HclFunction, args: &Args) -> Result<(), function_sdk_rust::Error> {
    let mut registry = prometheus_client::registry::Registry::default();
    let function = function.with_metrics(Arc::new(Metrics::register(&mut registry)));
    function_sdk_rust::Server::new(function, args)
        .metrics_registry(registry)
        .serve()
        .await
}

/// Configures logging as Crossplane functions do (JSON lines on stderr;
/// human-readable with `debug`). Call once.
pub fn init_logging(debug: bool) {
    function_sdk_rust::logging::configure(debug);
}

/// How many runs the server executes at once: twice the available cores,
/// at least 4.
fn max_concurrent_runs() -> usize {
    std::thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .saturating_mul(2)
        .max(4)
}

/// The multi-threaded runtime the server runs on (what [`serve_blocking`]
/// uses; benchmarks start the server on the same).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Runs need a big stack (deep data); giving the pool threads one
        // saves mapping a fresh stack per request.
        .thread_stack_size(fnhcl_crossplane::THREAD_STACK_BYTES)
        // Runs are CPU-bound: more of them at once than cores only adds
        // threads, each with its own allocator caches (memory grew with
        // the pool under load). Twice the cores, so a slow run does not
        // hold up every other request.
        .max_blocking_threads(max_concurrent_runs())
        .build()
}

/// Configures logging, then serves on a new multi-threaded runtime until
/// SIGTERM/SIGINT (what `fn-hcl serve` runs).
pub fn serve_blocking(args: &Args) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    init_logging(args.debug);
    let runtime = runtime()?;
    runtime.block_on(serve(HclFunction::standard(), args))?;
    Ok(())
}
