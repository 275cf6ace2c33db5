//! `fn-hcl eval`: an HCL expression console.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::Context as _;
use fnhcl_base::{SourceMap, render_frames};
use fnhcl_expr::jsonl;
use fnhcl_expr::{EvalContext, Limits};
use fnhcl_value::Value;

/// Answers each line of `input` (the `--jsonl` protocol). Lines are found
/// in 64 KiB blocks read into one buffer and answered where they lie;
/// only the part of a line the block cut is moved (to the buffer's
/// front) before the next read. The buffer is zeroed only as it grows,
/// not before every read. A line that is not UTF-8 stops the run with
/// the error `read_line` gives, after the answers before it. Answers go
/// out through a buffer flushed before each read and at the end: a
/// client that waits for an answer before writing more gets it.
fn jsonl_lines(mut input: impl Read) -> anyhow::Result<ExitCode> {
    const BLOCK: usize = 1 << 16;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(BLOCK, stdout.lock());
    // `store[..end]` holds what was read; `store[end..]` is room.
    let mut store: Vec<u8> = Vec::new();
    let mut end = 0;
    // `store[start..end]` is not answered yet; no `\n` in `store[start..seen]`.
    let (mut start, mut seen) = (0, 0);
    let mut eof = false;
    // Keeps each expression's compiled form for the lines after it.
    let mut lines = jsonl::Lines::default();
    loop {
        let buf = &store[..end];
        let line_end = match memchr::memchr(b'\n', &buf[seen..]) {
            Some(n) => seen + n,
            None if eof => buf.len(),
            None => {
                store.copy_within(start..end, 0);
                end -= start;
                seen = end;
                start = 0;
                if store.len() < end + BLOCK {
                    store.resize(end + BLOCK, 0);
                }
                // Every line read so far is answered: its answer goes out
                // before the next read can wait (a client may be waiting
                // for it before it writes more), not after every line.
                out.flush()?;
                let n = loop {
                    match input.read(&mut store[end..]) {
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        r => break r.context("reading stdin")?,
                    }
                };
                end += n;
                eof = n == 0;
                continue;
            }
        };
        if start == buf.len() {
            break;
        }
        let raw = &buf[start..line_end];
        let next = (line_end + 1).min(buf.len());
        start = next;
        seen = next;
        let Ok(text) = std::str::from_utf8(raw) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "stream did not contain valid UTF-8",
            ))
            .context("reading stdin");
        };
        // As `lines()`: without the `\n` or `\r\n`.
        let line = if line_end < buf.len() {
            text.strip_suffix('\r').unwrap_or(text)
        } else {
            text
        };
        if line.trim().is_empty() {
            continue;
        }
        let mut answer = lines.answer(line);
        answer.push('\n');
        out.write_all(answer.as_bytes())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

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
        return jsonl_lines(std::io::stdin().lock());
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
    // The codes are those of `fn-hcl analyze`'s findings: of an expression's
    // errors only the parser's have one, and the console shows none.
    let diagnostics: Vec<_> = ev
        .diagnostics
        .iter()
        .map(|d| fnhcl_base::Diagnostic {
            code: None,
            ..d.clone()
        })
        .collect();
    if ev.has_errors() {
        eprint!("{}", render_frames(&diagnostics, &sources));
        return Ok(ExitCode::FAILURE);
    }
    if !diagnostics.is_empty() {
        eprint!("{}", render_frames(&diagnostics, &sources));
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
