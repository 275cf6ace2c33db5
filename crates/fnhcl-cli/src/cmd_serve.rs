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
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let caches = fnhcl_server::CacheLimits {
        program_entries: args.program_cache_entries,
        program_bytes: args.program_cache_bytes,
        files_entries: args.files_cache_entries,
        files_bytes: args.files_cache_bytes,
    };
    fnhcl_server::serve_blocking_with(&args.server, caches).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
