//! `fn-hcl run`: one RunFunctionRequest through the function, exactly as
//! the server runs it, the RunFunctionResponse printed as YAML (or JSON).

use std::io::{Read as _, Write as _};
use std::process::ExitCode;

use anyhow::Context as _;
use fnhcl_render::yaml;

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Yaml,
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The RunFunctionRequest: protojson, JSON or YAML; `-` reads stdin.
    #[arg(long, short = 'r', value_name = "FILE")]
    request: String,
    /// Output format of the RunFunctionResponse.
    #[arg(long, short = 'o', value_enum, default_value = "yaml")]
    output: Format,
    /// Print the debug dumps of the request and the response to stderr
    /// (the layout `fn-hcl render` fixtures use), whatever the input says.
    #[arg(long)]
    debug: bool,
}

fn read_input(path: &str) -> anyhow::Result<String> {
    if path == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the request from stdin")?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))
    }
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let text = read_input(&args.request)?;
    let response = fnhcl_crossplane_run(&text, args.debug)?;
    let json = serde_json::to_value(&response).context("cannot encode the response")?;
    let out = match args.output {
        Format::Yaml => yaml::to_yaml(&json)?,
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&json)?),
    };
    std::io::stdout().write_all(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Decodes a request (JSON or YAML) and runs it
/// through the same function the server uses; debug dumps go to stderr.
fn fnhcl_crossplane_run(
    text: &str,
    always_debug: bool,
) -> anyhow::Result<fnhcl_crossplane::proto::RunFunctionResponse> {
    let json = if text.trim_start().starts_with('{') {
        serde_json::from_str(text).context("cannot parse the request as JSON")?
    } else {
        yaml::load_first(text)
            .map_err(|e| anyhow::anyhow!("cannot parse the request: {e}"))?
            .unwrap_or_default()
    };
    let request: fnhcl_crossplane::proto::RunFunctionRequest =
        serde_json::from_value(json).context("not a RunFunctionRequest")?;
    let function = fnhcl_crossplane::Function::new(fnhcl_crossplane::Options {
        always_debug,
        ..fnhcl_server::standard_options()
    });
    let outcome = function.run_outcome(&request);
    for dump in [&outcome.debug_request, &outcome.debug_response]
        .into_iter()
        .flatten()
    {
        eprintln!("{dump}");
    }
    Ok(outcome.response)
}
