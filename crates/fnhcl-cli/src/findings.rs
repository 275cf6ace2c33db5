//! Analysis findings as text (header line and code frame) and as JSON
//! objects, for `fn-hcl analyze` and the analysis `fn-hcl package` runs.

use fnhcl_base::{Diagnostic, Severity, SourceMap};

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

/// Findings as JSON objects.
pub(crate) fn json_items(diags: &[Diagnostic], sources: &SourceMap) -> Vec<serde_json::Value> {
    diags
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
        .collect()
}
