//! `fn-hcl serve`: the gRPC composition function Crossplane calls.

use std::process::ExitCode;

/// The function-sdk-rust server flags (its struct is also named `Args`,
/// hence the explicit group id), plus the bounds of the function's caches.
#[derive(clap::Args)]
#[group(id = "serve-args")]
pub(crate) struct Args {
    #[command(flatten)]
    server: fnhcl_server::Args,

    /// Most compiled programs kept in memory (least recently used go first).
    #[arg(long, env = "FNHCL_PROGRAM_CACHE_ENTRIES", default_value_t = fnhcl_crossplane::DEFAULT_CACHE_MAX_ENTRIES)]
    program_cache_entries: usize,

    /// Most estimated memory, in bytes, of the compiled programs kept (about
    /// 20 bytes per byte of program source).
    #[arg(long, env = "FNHCL_PROGRAM_CACHE_BYTES", default_value_t = fnhcl_crossplane::DEFAULT_CACHE_MAX_BYTES)]
    program_cache_bytes: usize,

    /// Most `source: FileSystem` directories whose files are kept in memory.
    #[arg(long, env = "FNHCL_FILES_CACHE_ENTRIES", default_value_t = fnhcl_server::DEFAULT_FILES_CACHE_MAX_ENTRIES)]
    files_cache_entries: usize,

    /// Most bytes of `source: FileSystem` files kept in memory.
    #[arg(long, env = "FNHCL_FILES_CACHE_BYTES", default_value_t = fnhcl_server::DEFAULT_FILES_CACHE_MAX_BYTES)]
    files_cache_bytes: usize,

    /// Most compiled schemas (schema validation) kept in memory.
    #[arg(long, env = "FNHCL_SCHEMA_CACHE_ENTRIES", default_value_t = fnhcl_crossplane::schemas::DEFAULT_CACHE_ENTRIES)]
    schema_cache_entries: usize,

    /// Most estimated memory, in bytes, of the compiled schemas kept.
    #[arg(long, env = "FNHCL_SCHEMA_CACHE_BYTES", default_value_t = fnhcl_crossplane::schemas::DEFAULT_CACHE_BYTES)]
    schema_cache_bytes: usize,

    /// Most evaluation steps one request may take (expression nodes,
    /// iterations, elements, 16 bytes of text copied each).
    #[arg(long, env = "FNHCL_MAX_STEPS", default_value_t = fnhcl_crossplane::DEFAULT_MAX_STEPS)]
    max_steps: u64,

    /// Most bytes of values (text, collections) one request's evaluation
    /// may build.
    #[arg(long, env = "FNHCL_MAX_EVAL_BYTES", default_value_t = fnhcl_eval::DEFAULT_MAX_BYTES)]
    max_eval_bytes: u64,

    /// Most bytes of values all the requests evaluating at once may build
    /// together; a request that would go past it is stopped with a Fatal
    /// result (Crossplane calls again).
    #[arg(long, env = "FNHCL_MAX_EVAL_MEMORY", default_value_t = fnhcl_crossplane::DEFAULT_MAX_EVAL_MEMORY)]
    max_eval_memory: u64,

    /// Longest time, in seconds, one request may evaluate.
    #[arg(long, env = "FNHCL_MAX_EVAL_SECONDS", default_value_t = fnhcl_crossplane::DEFAULT_MAX_EVAL_TIME.as_secs_f64())]
    max_eval_seconds: f64,

    /// Most calls in flight on one connection (HTTP/2
    /// SETTINGS_MAX_CONCURRENT_STREAMS).
    #[arg(long, env = "FNHCL_MAX_CONCURRENT_STREAMS", default_value_t = fnhcl_server::transport::DEFAULT_MAX_CONCURRENT_STREAMS)]
    max_concurrent_streams: u32,

    /// Longest time, in seconds, of one call (upload, evaluation, answer).
    #[arg(long, env = "FNHCL_REQUEST_TIMEOUT_SECONDS", default_value_t = 60.0)]
    request_timeout_seconds: f64,

    /// Longest time, in seconds, a TLS handshake may take.
    #[arg(long, env = "FNHCL_TLS_HANDSHAKE_SECONDS", default_value_t = 10.0)]
    tls_handshake_seconds: f64,

    /// Seconds between HTTP/2 keepalive pings (a peer that does not answer
    /// within a third of it is disconnected).
    #[arg(long, env = "FNHCL_KEEPALIVE_SECONDS", default_value_t = 60.0)]
    keepalive_seconds: f64,

    /// Seconds after which a connection is asked to go away (and closed a
    /// minute later).
    #[arg(
        long,
        env = "FNHCL_MAX_CONNECTION_AGE_SECONDS",
        default_value_t = 1800.0
    )]
    max_connection_age_seconds: f64,

    /// After SIGTERM, seconds calls in flight may take to finish before
    /// every connection is closed.
    #[arg(long, env = "FNHCL_DRAIN_SECONDS", default_value_t = 10.0)]
    drain_seconds: f64,

    /// Bytes of RunFunction requests held at once, over every connection,
    /// from their first byte until they are answered; a request past it is
    /// not read further and gets a Fatal result (Crossplane calls again).
    #[arg(long, env = "FNHCL_MAX_REQUEST_BYTES_IN_FLIGHT", default_value_t = fnhcl_server::transport::DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT)]
    max_request_bytes_in_flight: usize,
}

/// A duration flag in seconds.
fn seconds(flag: &str, v: f64) -> anyhow::Result<std::time::Duration> {
    std::time::Duration::try_from_secs_f64(v).map_err(|e| anyhow::anyhow!("--{flag} {v}: {e}"))
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let caches = fnhcl_server::CacheLimits {
        program_entries: args.program_cache_entries,
        program_bytes: args.program_cache_bytes,
        files_entries: args.files_cache_entries,
        files_bytes: args.files_cache_bytes,
        schema_entries: args.schema_cache_entries,
        schema_bytes: args.schema_cache_bytes,
    };
    let mut limits = fnhcl_crossplane::Limits::default();
    limits.eval.max_steps = args.max_steps;
    limits.eval.max_bytes = args.max_eval_bytes;
    limits.max_eval_memory = args.max_eval_memory;
    limits.max_eval_time = seconds("max-eval-seconds", args.max_eval_seconds)?;
    let transport = fnhcl_server::Transport {
        max_concurrent_streams: args.max_concurrent_streams,
        request_timeout: seconds("request-timeout-seconds", args.request_timeout_seconds)?,
        tls_handshake_timeout: seconds("tls-handshake-seconds", args.tls_handshake_seconds)?,
        keepalive: seconds("keepalive-seconds", args.keepalive_seconds)?,
        max_connection_age: seconds(
            "max-connection-age-seconds",
            args.max_connection_age_seconds,
        )?,
        drain_timeout: seconds("drain-seconds", args.drain_seconds)?,
        max_request_bytes_in_flight: args.max_request_bytes_in_flight,
    };
    fnhcl_server::serve_blocking_with(&args.server, caches, limits, transport)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
