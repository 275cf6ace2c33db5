//! `fn-hcl eval`: an HCL expression console.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use fnhcl_base::{SourceMap, render_frames};
use fnhcl_expr::jsonl;
use fnhcl_expr::{EvalContext, Limits};
use fnhcl_value::Value;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// JSON file whose top-level object members become variables
    /// (`{"$unknown": "<type>"}` makes an unknown value of that type).
    #[arg(long, value_name = "FILE.json")]
    vars: Option<std::path::PathBuf>,
    /// Read JSON lines `{"id","expr","vars"}` from stdin and answer each
    /// with one JSON line (the hcl-oracle protocol).
    #[arg(long, conflicts_with_all = ["vars", "expr"])]
    jsonl: bool,
    /// The expression to evaluate.
    #[arg(required_unless_present = "jsonl")]
    expr: Option<String>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.jsonl {
        // One line buffer for all lines (lines of tens of KB would each
        // grow a new `String` from nothing), read in 64 KiB blocks.
        let mut input = std::io::BufReader::with_capacity(1 << 16, std::io::stdin().lock());
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::new(stdout.lock());
        let mut buf = String::new();
        loop {
            buf.clear();
            if input.read_line(&mut buf).context("reading stdin")? == 0 {
                break;
            }
            // As `lines()`: without the `\n` or `\r\n`.
            let line = match buf.strip_suffix('\n') {
                Some(l) => l.strip_suffix('\r').unwrap_or(l),
                None => &buf,
            };
            if line.trim().is_empty() {
                continue;
            }
            let mut answer = jsonl::process_line(line);
            answer.push('\n');
            out.write_all(answer.as_bytes())?;
            out.flush()?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut vars: BTreeMap<String, Value> = BTreeMap::new();
    if let Some(path) = &args.vars {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let json = fnhcl_value::json::from_json_text(&text)
            .map_err(|e| anyhow::anyhow!("{}: invalid JSON: {e}", path.display()))?;
        let Value::Object(members) = json else {
            anyhow::bail!(
                "{}: the variables file must hold a JSON object",
                path.display()
            );
        };
        for (k, v) in members.iter() {
            let val = jsonl::var_value(v, 0)
                .map_err(|e| anyhow::anyhow!("{}: variable {k:?}: {e}", path.display()))?;
            vars.insert(k.to_string(), val);
        }
    }
    let expr = args.expr.unwrap_or_default();
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &vars,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    let mut sources = SourceMap::new();
    let (ev, _) = fnhcl_expr::eval_source(&mut sources, "<expr>", &expr, &ctx);
    if ev.has_errors() {
        eprint!("{}", render_frames(&ev.diagnostics, &sources));
        return Ok(ExitCode::FAILURE);
    }
    if !ev.diagnostics.is_empty() {
        eprint!("{}", render_frames(&ev.diagnostics, &sources));
    }
    let v = &ev.value;
    if !v.is_wholly_known() {
        println!("(unknown {})", v.type_of());
        return Ok(ExitCode::SUCCESS);
    }
    let s = fnhcl_value::json::to_json_text_plain(v)
        .map_err(|e| anyhow::anyhow!("cannot print result: {e}"))?;
    if v.is_marked_deep() {
        println!("{s} (sensitive)");
    } else {
        println!("{s}");
    }
    Ok(ExitCode::SUCCESS)
}
