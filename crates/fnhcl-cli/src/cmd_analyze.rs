//! `fn-hcl analyze [DIR] [--format text|json]`: static checks of a
//! composition directory (the same files `fn-hcl package` bundles). Each
//! finding has a code, a severity, a `file:line,col` position and, in text
//! form, a code frame. Exit status 1 when there is an error.

use std::path::PathBuf;
use std::process::ExitCode;

use fnhcl_base::{Diagnostic, Severity, SourceMap};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The composition directory (default `.`).
    dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The composite's CompositeResourceDefinition (YAML), to check
    /// `req.composite` paths (default: found among DIR's *.yaml files).
    #[arg(long, value_name = "XRD.yaml")]
    xrd: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    let files = crate::cmd_package::load_dir(&dir)?;
    let sources = crate::cmd_package::source_map(&files);
    let options = crate::cmd_package::analysis_options(&dir, args.xrd.as_deref())?;
    let diags = fnhcl_analyze::analyze_with(&sources, &options);
    match args.format {
        Format::Text => print!("{}", render_text(&diags, &sources, true)),
        Format::Json => println!("{}", render_json(&diags, &sources)),
    }
    Ok(if fnhcl_analyze::has_errors(&diags) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn severity(d: &Diagnostic) -> &'static str {
    match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `file:line,col` of a finding (`<nil>` without a position).
fn position(d: &Diagnostic, sources: &SourceMap) -> String {
    match d.primary {
        Some(s) => {
            let f = sources.get(s.file);
            let lc = f.line_col(s.start);
            format!("{}:{},{}", f.name, lc.line, lc.col)
        }
        None => "<nil>".to_owned(),
    }
}

/// One header line per finding (`main.hcl:3,5: error[E0301]: summary`)
/// followed by its code frame (with the detail as a note), then a count
/// line when `summary`.
pub(crate) fn render_text(diags: &[Diagnostic], sources: &SourceMap, summary: bool) -> String {
    let mut out = String::new();
    for d in diags {
        let code = d.code.unwrap_or("-");
        out.push_str(&format!(
            "{}: {}[{code}]: {}\n",
            position(d, sources),
            severity(d),
            d.summary
        ));
        if d.primary.is_some() {
            // The frame repeats the title line; the header above replaces it.
            let frame = d.to_code_frame(sources);
            let body = frame.split_once('\n').map_or("", |(_, rest)| rest);
            out.push_str(body);
        } else {
            if !d.detail.is_empty() {
                out.push_str(&format!("  = {}\n", d.detail));
            }
            out.push('\n');
        }
    }
    if summary {
        let errors = diags.iter().filter(|d| d.is_error()).count();
        let warnings = diags.len() - errors;
        let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "{}, {}\n",
            plural(errors, "error"),
            plural(warnings, "warning")
        ));
    }
    out
}

/// A JSON array of findings.
pub(crate) fn render_json(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let items: Vec<serde_json::Value> = diags
        .iter()
        .map(|d| {
            let mut o = serde_json::Map::new();
            let code = d.code.unwrap_or("");
            o.insert("code".into(), code.into());
            o.insert("name".into(), fnhcl_analyze::codes::name(code).into());
            o.insert("severity".into(), severity(d).into());
            o.insert("summary".into(), d.summary.clone().into());
            o.insert("detail".into(), d.detail.clone().into());
            if let Some(s) = d.primary {
                let f = sources.get(s.file);
                let a = f.line_col(s.start);
                let b = f.line_col(s.end);
                o.insert("file".into(), f.name.clone().into());
                o.insert("line".into(), a.line.into());
                o.insert("column".into(), a.col.into());
                o.insert("end_line".into(), b.line.into());
                o.insert("end_column".into(), b.col.into());
                o.insert("range".into(), sources.range_text(s).into());
            }
            let labels: Vec<serde_json::Value> = d
                .labels
                .iter()
                .map(|l| {
                    serde_json::json!({
                        "range": sources.range_text(l.span),
                        "message": l.message,
                    })
                })
                .collect();
            if !labels.is_empty() {
                o.insert("labels".into(), labels.into());
            }
            serde_json::Value::Object(o)
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_else(|_| "[]".to_owned())
}
