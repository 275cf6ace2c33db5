//! `fn-hcl serve`: the gRPC composition function Crossplane calls.

use std::process::ExitCode;

/// The function-sdk-rust server flags (its struct is also named `Args`,
/// hence the explicit group id).
#[derive(clap::Args)]
#[group(id = "serve-args")]
pub(crate) struct Args {
    #[command(flatten)]
    server: fnhcl_server::Args,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    fnhcl_server::serve_blocking(&args.server).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}
