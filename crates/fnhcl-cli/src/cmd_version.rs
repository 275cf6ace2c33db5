use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> anyhow::Result<ExitCode> {
    println!("fn-hcl {}", env!("CARGO_PKG_VERSION"));
    Ok(ExitCode::SUCCESS)
}
