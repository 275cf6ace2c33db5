//! The gRPC `FunctionRunnerService` server: [`fnhcl_crossplane::Function`]
//! behind a tonic server assembled here ([`server`]) with what
//! function-sdk-rust's runtime served (mTLS or insecure, health,
//! reflection, the `grpc_server_*` metrics, graceful shutdown on SIGTERM),
//! RunFunction decoded and encoded by prost ([`codec`], which turns a
//! request prost refuses into a Fatal result).
//!
//! Requests run concurrently on tokio's blocking pool (evaluation is CPU
//! work), admitted through two lanes ([`lanes`]) so that long runs do not
//! hold up short ones; a panic in one becomes a Fatal result for that
//! request only.

mod calls;
pub mod codec;
mod fs;
mod grpc_metrics;
pub mod lanes;
pub mod logging;
mod metrics;
mod metrics_http;
pub mod server;
pub mod transport;

use std::sync::Arc;
use std::time::Instant;

use fnhcl_crossplane::{Function, Options, Outcome};
use function_sdk_rust::proto::v1::function_runner_service_server::FunctionRunnerService;
use function_sdk_rust::proto::v1::{RunFunctionRequest, RunFunctionResponse};
use tonic::{Request, Response, Status};

pub use fs::{DEFAULT_FILES_CACHE_MAX_BYTES, DEFAULT_FILES_CACHE_MAX_ENTRIES, FsDirectoryReader};
pub use function_sdk_rust::Args;
pub use lanes::{LaneLimits, LaneStats, Lanes};
pub use metrics::{CacheCollector, Metrics, StatsSource};
pub use server::{RunFunctionService, serve, serve_with};
pub use transport::Transport;

/// The bounds of the server's two caches (least recently used entries go
/// first when either bound of a cache is reached).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLimits {
    /// Most compiled programs kept.
    pub program_entries: usize,
    /// Most estimated memory of the compiled programs kept (sources
    /// included).
    pub program_bytes: usize,
    /// Most `FileSystem` source directories whose files are kept.
    pub files_entries: usize,
    /// Most bytes of `FileSystem` source files kept.
    pub files_bytes: usize,
    /// Most compiled schemas kept.
    pub schema_entries: usize,
    /// Most estimated memory of the compiled schemas kept.
    pub schema_bytes: usize,
}

impl Default for CacheLimits {
    fn default() -> CacheLimits {
        CacheLimits {
            program_entries: fnhcl_crossplane::DEFAULT_CACHE_MAX_ENTRIES,
            program_bytes: fnhcl_crossplane::DEFAULT_CACHE_MAX_BYTES,
            files_entries: DEFAULT_FILES_CACHE_MAX_ENTRIES,
            files_bytes: DEFAULT_FILES_CACHE_MAX_BYTES,
            schema_entries: fnhcl_crossplane::schemas::DEFAULT_CACHE_ENTRIES,
            schema_bytes: fnhcl_crossplane::schemas::DEFAULT_CACHE_BYTES,
        }
    }
}

/// Where debug dumps (upstream §9) go.
pub type DebugSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The function as a gRPC service.
#[derive(Clone)]
pub struct HclFunction {
    function: Arc<Function>,
    /// The `FileSystem` source's reader, when the server owns it (for its
    /// cache metrics).
    files: Option<Arc<FsDirectoryReader>>,
    debug_sink: DebugSink,
    metrics: Option<Arc<Metrics>>,
    lanes: Arc<Lanes>,
}

impl HclFunction {
    /// A service around `function`; debug dumps are written to stderr.
    /// The function it serves.
    pub fn crossplane_function(&self) -> Arc<Function> {
        self.function.clone()
    }

    pub fn new(function: Arc<Function>) -> HclFunction {
        HclFunction {
            function,
            files: None,
            debug_sink: Arc::new(|text: &str| eprintln!("{text}")),
            metrics: None,
            lanes: Arc::new(Lanes::new(LaneLimits::detect())),
        }
    }

    /// A service with the standard options: program cache and the
    /// `FileSystem` source reading from the local disk, both with the
    /// default bounds.
    pub fn standard() -> HclFunction {
        HclFunction::with_cache_limits(CacheLimits::default())
    }

    /// A service with the standard options and the given cache bounds.
    pub fn with_cache_limits(limits: CacheLimits) -> HclFunction {
        HclFunction::configured(limits, fnhcl_crossplane::Limits::default())
    }

    /// The server's function with the given cache bounds and per-request
    /// limits (what `fn-hcl serve` runs).
    pub fn configured(caches: CacheLimits, limits: fnhcl_crossplane::Limits) -> HclFunction {
        let files = Arc::new(FsDirectoryReader::with_limits(
            caches.files_entries,
            caches.files_bytes,
        ));
        let function = Function::new(Options {
            cache_max_entries: caches.program_entries,
            cache_max_bytes: caches.program_bytes,
            schema_cache_max_entries: caches.schema_entries,
            schema_cache_max_bytes: caches.schema_bytes,
            directory_reader: Some(files.clone()),
            limits,
            ..Options::default()
        });
        HclFunction {
            files: Some(files),
            ..HclFunction::new(Arc::new(function))
        }
    }

    /// Where the caches' numbers come from, by cache name (`program`,
    /// and `filesystem` when the service owns the `FileSystem` reader).
    pub fn cache_sources(&self) -> Vec<(&'static str, StatsSource)> {
        let function = self.function.clone();
        let schemas = self.function.clone();
        let mut out: Vec<(&'static str, StatsSource)> = vec![
            ("program", Arc::new(move || function.cache_stats())),
            ("schema", Arc::new(move || schemas.schema_cache_stats())),
        ];
        if let Some(files) = &self.files {
            let files = files.clone();
            out.push(("filesystem", Arc::new(move || files.stats())));
        }
        out
    }

    /// Sends debug dumps somewhere else than stderr.
    pub fn with_debug_sink(mut self, sink: DebugSink) -> HclFunction {
        self.debug_sink = sink;
        self
    }

    /// Admits requests through lanes of the given sizes instead of the
    /// defaults for this machine ([`LaneLimits::detect`]).
    pub fn with_lanes(mut self, limits: LaneLimits) -> HclFunction {
        self.lanes = Arc::new(Lanes::new(limits));
        self
    }

    /// The lanes' counters (admitted, moved to the heavy lane, skipped,
    /// interrupted).
    pub fn lane_stats(&self) -> LaneStats {
        self.lanes.stats()
    }

    /// Records every run in `metrics`.
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> HclFunction {
        self.metrics = Some(metrics);
        self
    }

    /// Runs one request off the async executor, once the lanes admit it,
    /// and logs it. When the caller goes away (tonic drops this future),
    /// the request is not started, or its evaluation stops at its next
    /// interrupt check.
    pub async fn handle(&self, req: RunFunctionRequest) -> Result<RunFunctionResponse, Status> {
        let len = prost::Message::encoded_len(&req);
        self.handle_received(req, len).await
    }

    /// [`HclFunction::handle`] of a request that arrived as `len` bytes
    /// (the server knows the length: nothing walks the message for it).
    pub async fn handle_received(
        &self,
        req: RunFunctionRequest,
        len: usize,
    ) -> Result<RunFunctionResponse, Status> {
        if lanes::small_request(&req, len) {
            let start = Instant::now();
            if let Some(outcome) = self.run_inline(&req) {
                self.report(&outcome, start);
                return Ok(outcome.response);
            }
        }
        self.run_in_pool(move || Ok(req)).await
    }

    /// [`HclFunction::handle`] of a large request's bytes: decoded on the
    /// run's pool thread ([`crate::codec::Received`]); bytes prost refuses
    /// get a Fatal result naming the problem.
    pub async fn handle_bytes(&self, bytes: bytes::Bytes) -> Result<RunFunctionResponse, Status> {
        self.run_in_pool(move || fnhcl_crossplane::decode_request(&bytes))
            .await
    }

    /// The answer to a request that could not be decoded: a Fatal result
    /// naming the problem (there is no request to echo a tag from).
    pub fn refuse(&self, message: String) -> RunFunctionResponse {
        tracing::warn!(error = %clip(&message, LOGGED_ERROR_BYTES), "function returned a fatal result");
        if let Some(m) = &self.metrics {
            m.observe(true, None, 0.0);
        }
        fnhcl_crossplane::response::fatal(
            &RunFunctionRequest::default(),
            fnhcl_crossplane::DEFAULT_TTL,
            message,
        )
    }

    /// Runs a small request on the calling thread (the runtime's: no
    /// hand-off to another thread, which costs more CPU than a small run
    /// itself), unless it turns out to need more than
    /// [`fnhcl_crossplane::INTERRUPT_INTERVAL`] evaluation steps: then the
    /// run is stopped at once and `None` says to run it in the pool.
    fn run_inline(&self, req: &RunFunctionRequest) -> Option<Outcome> {
        let long = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = long.clone();
        let interrupt = fnhcl_crossplane::Interrupt::new(move || {
            flag.store(true, std::sync::atomic::Ordering::Relaxed);
            false
        });
        let outcome = self.function.run_outcome_with(req, Some(interrupt));
        if long.load(std::sync::atomic::Ordering::Relaxed) {
            self.lanes.note_moved();
            return None;
        }
        self.lanes.note_inline();
        Some(outcome)
    }

    /// Runs the request `decode` gives on a pool thread, once the lanes
    /// admit it.
    async fn run_in_pool(
        &self,
        decode: impl FnOnce() -> Result<RunFunctionRequest, String> + Send + 'static,
    ) -> Result<RunFunctionResponse, Status> {
        let gone = lanes::Guard::new();
        let ticket = self.lanes.admit(&gone).await;
        let function = self.function.clone();
        let start = Instant::now();
        let outcome = tokio::task::spawn_blocking(move || {
            if ticket.caller_gone() {
                return None;
            }
            let req = match decode() {
                Ok(req) => req,
                Err(e) => return Some(Err(e)),
            };
            let ticket = Arc::new(ticket);
            let interrupt = fnhcl_crossplane::Interrupt::new(move || ticket.check());
            Some(Ok(function.run_outcome_with(&req, Some(interrupt))))
        })
        .await
        .map_err(|e| {
            tracing::error!(error = %e, "function run did not complete");
            Status::internal(format!("function run did not complete: {e}"))
        })?
        .ok_or_else(|| Status::cancelled("the caller went away"))?;
        drop(gone);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(e) => return Ok(self.refuse(format!("invalid request: {e}"))),
        };
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
        // A request's own strings are logged cut short: one call must not
        // make a log line of megabytes.
        let tag = clip(&outcome.tag, LOGGED_TAG_BYTES);
        match &outcome.error {
            // One line per request is for debugging (as the Go SDK's);
            // fatal results are worth a warning.
            None => tracing::debug!(
                tag = %tag,
                xr_version = %xr.api_version(),
                xr_kind = %xr.kind(),
                xr_name = %xr.name(),
                xr_namespace = %xr.namespace(),
                warnings = outcome.warnings,
                cached = outcome.cache_hit.unwrap_or(false),
                elapsed_ms,
                "ran function"
            ),
            Some(error) => tracing::warn!(
                tag = %tag,
                xr_version = %xr.api_version(),
                xr_kind = %xr.kind(),
                xr_name = %xr.name(),
                xr_namespace = %xr.namespace(),
                error = %clip(error, LOGGED_ERROR_BYTES),
                elapsed_ms,
                "function returned a fatal result"
            ),
        }
    }
}

/// The longest request tag logged.
const LOGGED_TAG_BYTES: usize = 256;
/// The longest error message logged (the Fatal result has it whole).
const LOGGED_ERROR_BYTES: usize = 4096;

/// `s` cut to at most `max` bytes at a character boundary, with `…` when
/// cut.
fn clip(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if s.len() <= max {
        return s.into();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end]).into()
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

/// Configures logging as Crossplane functions do (JSON lines on stderr;
/// human-readable with `debug`), through a bounded queue so that a stuck
/// stderr never blocks the server (see [`logging`]). Call once.
pub fn init_logging(debug: bool) {
    logging::init(debug);
}

/// Threads of the blocking pool: what the lanes can occupy (see
/// [`lanes`]), plus two for anything else that blocks.
fn max_blocking_threads() -> usize {
    LaneLimits::detect().threads().saturating_add(2)
}

/// The multi-threaded runtime the server runs on (what [`serve_blocking`]
/// uses; benchmarks start the server on the same).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Runs need a big stack (deep data); giving the pool threads one
        // saves mapping a fresh stack per request.
        .thread_stack_size(fnhcl_crossplane::THREAD_STACK_BYTES)
        // Runs are CPU-bound: more threads than runs the lanes admit only
        // adds allocator caches (memory grew with an unbounded pool under
        // load). The lanes bound the runs; their threads are this bound.
        .max_blocking_threads(max_blocking_threads())
        .build()
}

/// Configures logging, then serves on a new multi-threaded runtime until
/// SIGTERM/SIGINT, with the default cache bounds.
pub fn serve_blocking(args: &Args) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    serve_blocking_with(
        args,
        CacheLimits::default(),
        fnhcl_crossplane::Limits::default(),
        Transport::default(),
    )
}

/// [`serve_blocking`] with the given cache bounds and per-request limits
/// (what `fn-hcl serve` runs).
pub fn serve_blocking_with(
    args: &Args,
    caches: CacheLimits,
    limits: fnhcl_crossplane::Limits,
    transport: Transport,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    init_logging(args.debug);
    let runtime = runtime()?;
    runtime.block_on(serve_with(
        HclFunction::configured(caches, limits),
        args,
        transport,
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn logged_strings_are_clipped_at_a_character_boundary() {
        assert_eq!(super::clip("short", 8), "short");
        assert_eq!(super::clip("abcdefgh", 8), "abcdefgh");
        assert_eq!(super::clip("abcdefghi", 8), "abcdefgh…");
        // `é` is two bytes: a cut inside it moves back before it.
        assert_eq!(super::clip("abcdefgé", 8), "abcdefg…");
    }
}
