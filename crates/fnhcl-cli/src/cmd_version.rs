//! `fn-hcl version`: version, git commit and target, as an aligned table
//! (upstream prints the same kind of table), or `--short` for the version
//! alone.

use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Print only the version number.
    #[arg(long)]
    short: bool,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.short {
        println!("{}", env!("CARGO_PKG_VERSION"));
    } else {
        print!("{}", table());
    }
    Ok(ExitCode::SUCCESS)
}

fn table() -> String {
    let rows = [
        ("Version", env!("CARGO_PKG_VERSION")),
        ("Commit", env!("FNHCL_GIT_COMMIT")),
        ("Target", env!("FNHCL_TARGET")),
    ];
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (k, v) in rows {
        out.push_str(&format!("{k:<width$}  {v}\n"));
    }
    out
}
