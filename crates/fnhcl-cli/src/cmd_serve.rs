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

    /// Longest time, in seconds, one request may evaluate.
    #[arg(long, env = "FNHCL_MAX_EVAL_SECONDS", default_value_t = fnhcl_crossplane::DEFAULT_MAX_EVAL_TIME.as_secs_f64())]
    max_eval_seconds: f64,
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
    limits.max_eval_time = std::time::Duration::try_from_secs_f64(args.max_eval_seconds)
        .map_err(|e| anyhow::anyhow!("--max-eval-seconds {}: {e}", args.max_eval_seconds))?;
    fnhcl_server::serve_blocking_with(&args.server, caches, limits)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
