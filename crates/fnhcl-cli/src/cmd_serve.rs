use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`fn-hcl serve` is not built yet")
}
