//! `fn-hcl lsp [--stdio | --port N]`: the language server (see
//! `docs/editors.md`). Invoked as `function-hcl-ls` (a symlink to this
//! binary), the command line of the Go function-hcl's language server is
//! accepted too: `serve [--stdio | --port N]` and `version [--json]`, so
//! upstream's editor plugins start our server unchanged.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Speak LSP over stdin/stdout (the default).
    #[arg(long, conflicts_with = "port")]
    stdio: bool,
    /// Listen on 127.0.0.1:PORT for one client instead.
    #[arg(long)]
    port: Option<u16>,
    /// Accepted for compatibility with upstream's language server; logs go
    /// to the client (window/logMessage).
    #[arg(long, hide = true)]
    log_file: Option<String>,
    /// The most bytes of CRD files one CRD source (`.crd-sources.yaml` or
    /// `.crds/`) may load, all together. Compiled, a schema takes up to
    /// about 60 times its text in memory.
    #[arg(
        long,
        value_name = "BYTES",
        env = "FNHCL_CRDS_MAX_BYTES",
        default_value_t = fnhcl_testkit::render_args::DEFAULT_CRDS_MAX_BYTES
    )]
    crds_max_bytes: u64,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let _ = (args.stdio, args.log_file);
    let settings = fnhcl_lsp::Settings {
        crds_max_bytes: args.crds_max_bytes,
    };
    match args.port {
        Some(port) => fnhcl_lsp::run_tcp_with(port, &settings)?,
        None => fnhcl_lsp::run_stdio_with(&settings)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The command line of upstream's `function-hcl-ls`.
#[derive(Parser)]
#[command(
    name = "function-hcl-ls",
    version,
    about = "function-hcl language server (fn-hcl lsp, with upstream's command line)"
)]
struct Upstream {
    #[command(subcommand)]
    command: UpstreamCommand,
}

#[derive(Subcommand)]
enum UpstreamCommand {
    /// Serve the language server (stdio unless --port).
    Serve {
        #[command(flatten)]
        args: Args,
        /// Accepted and ignored (upstream's profiling and tuning flags).
        #[arg(long, hide = true)]
        log_modules: Option<String>,
        #[arg(long, hide = true)]
        cpu_profile: Option<String>,
        #[arg(long, hide = true)]
        mem_profile: Option<String>,
        #[arg(long, hide = true)]
        concurrency: Option<u32>,
    },
    /// Print the version.
    Version {
        /// As JSON.
        #[arg(long)]
        json: bool,
    },
}

/// True when the binary was started under upstream's name.
pub(crate) fn invoked_as_upstream() -> bool {
    std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .is_some_and(|s| s == "function-hcl-ls")
}

pub(crate) fn run_upstream() -> anyhow::Result<ExitCode> {
    match Upstream::parse().command {
        UpstreamCommand::Serve { args, .. } => run(args),
        UpstreamCommand::Version { json } => {
            let version = env!("CARGO_PKG_VERSION");
            if json {
                println!("{}", serde_json::json!({ "version": version }));
            } else {
                println!("{version}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
