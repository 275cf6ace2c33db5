//! `fn-hcl render`: `crossplane render` in-process, without Docker.
//!
//! Same arguments and output as `crossplane render` (v1.20 by default); the
//! function-hcl steps run in-process through `fnhcl_crossplane::run`.
//! Errors: nothing on stdout, `fn-hcl: error: <message>` (worded as
//! crossplane words it) plus code frames on stderr, exit code 1.

use std::io::Write as _;
use std::path::Path;
use std::process::ExitCode;

use fnhcl_testkit::render_args::{RenderArgs, error_text};

#[derive(clap::Args)]
pub(crate) struct Args {
    #[command(flatten)]
    render: RenderArgs,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    // A fatal result names its first diagnostic and counts the others:
    // the failed run's every diagnostic is kept to be shown.
    let function = fnhcl_crossplane::Function::default();
    let details = std::cell::RefCell::new(Vec::new());
    let run = |req: &fnhcl_crossplane::proto::RunFunctionRequest| {
        let o = function.run_outcome(req);
        if o.error.is_some() {
            *details.borrow_mut() = o.error_details;
        }
        o.response
    };
    let result = args.render.render(Path::new(""), &run);
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            eprint!("{}", error_text("fn-hcl", &e));
            let details = details.borrow();
            if !details.is_empty() {
                eprintln!("fn-hcl: the {} diagnostics:", details.len());
                for d in details.iter() {
                    eprintln!("  {d}");
                }
            }
            return Ok(ExitCode::FAILURE);
        }
    };
    for w in &out.warnings {
        eprintln!("fn-hcl: warning: {w}");
    }
    let text = match out.to_yaml() {
        Ok(t) => t,
        Err(e) => {
            eprintln!("fn-hcl: error: {e}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(ExitCode::SUCCESS)
}
