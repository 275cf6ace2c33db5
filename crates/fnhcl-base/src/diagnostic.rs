use std::fmt::Write as _;

use codespan_reporting::diagnostic as cs;
use codespan_reporting::term;

use crate::{SourceMap, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
}

/// A secondary location with a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A problem in the user's program. One model, rendered several ways:
/// HCL range text (results, conditions), a code frame (CLI), JSON (tools).
///
/// `summary` and `detail` follow HCL's split: the summary is short, the
/// detail explains; the Crossplane rendering is `range: summary; detail`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    /// Where the problem is (HCL's "subject").
    pub primary: Option<Span>,
    /// The expression the problem is blamed on (HCL's diagnostic
    /// `Expression`): for evaluation errors from `fnhcl-expr`, the whole
    /// traversal for attribute/index errors, otherwise the operand, template
    /// part, collection, condition, key, argument or the whole call.
    pub context: Option<Span>,
    /// Source text of the expression being evaluated when the problem arose
    /// (for discard records), if any.
    pub expr_text: Option<String>,
    pub labels: Vec<Label>,
    /// A stable identifier for tools (`fn-hcl analyze`), e.g. `E0301`.
    pub code: Option<&'static str>,
}

impl Diagnostic {
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            primary: None,
            context: None,
            expr_text: None,
            labels: Vec::new(),
            code: None,
        }
    }
    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(summary, detail)
        }
    }
    pub fn with_span(mut self, span: Span) -> Diagnostic {
        self.primary = Some(span);
        self
    }
    pub fn with_context(mut self, span: Span) -> Diagnostic {
        self.context = Some(span);
        self
    }
    pub fn with_label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }
    /// Sets the stable code (see [`Diagnostic::code`]).
    pub fn with_code(mut self, code: &'static str) -> Diagnostic {
        self.code = Some(code);
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
    /// Same diagnostic as a warning (locals downgrade their errors).
    pub fn downgraded(mut self) -> Diagnostic {
        self.severity = Severity::Warning;
        self
    }

    /// HCL's one-line form: `file.hcl:L,C-C: summary; detail`
    /// (`<nil>` when there is no range).
    pub fn to_hcl_string(&self, sources: &SourceMap) -> String {
        let range = match self.primary {
            Some(s) => sources.range_text(s),
            None => "<nil>".to_owned(),
        };
        format!("{range}: {}; {}", self.summary, self.detail)
    }

    /// Human code frame for the terminal (no colour).
    pub fn to_code_frame(&self, sources: &SourceMap) -> String {
        render_frames(std::slice::from_ref(self), sources)
    }
}

/// The byte range a code frame underlines for `span`. A span that ends
/// with the newline of its line (HCL's ranges for "found a newline" errors
/// end at the start of the next line) is drawn without it, so that the frame
/// stays on one line.
fn frame_range(sources: &SourceMap, span: Span) -> std::ops::Range<usize> {
    let (start, mut end) = (span.start as usize, span.end as usize);
    let file = sources.files().find(|(id, _)| *id == span.file);
    if let Some(rest) = file
        .and_then(|(_, f)| f.text.get(start..end))
        .and_then(|covered| covered.strip_suffix('\n'))
    {
        end -= if rest.ends_with('\r') { 2 } else { 1 };
    }
    start..end
}

/// Renders diagnostics as code frames, one after the other.
pub fn render_frames(diags: &[Diagnostic], sources: &SourceMap) -> String {
    let mut files = codespan_reporting::files::SimpleFiles::new();
    for (_, f) in sources.files() {
        files.add(f.name.clone(), f.text.clone());
    }
    let config = term::Config::default();
    let mut out = String::new();
    for d in diags {
        let sev = match d.severity {
            Severity::Error => cs::Severity::Error,
            Severity::Warning => cs::Severity::Warning,
        };
        let mut labels = Vec::new();
        if let Some(p) = d.primary {
            labels.push(cs::Label::primary(
                p.file.0 as usize,
                frame_range(sources, p),
            ));
        }
        for l in &d.labels {
            labels.push(
                cs::Label::secondary(l.span.file.0 as usize, frame_range(sources, l.span))
                    .with_message(l.message.clone()),
            );
        }
        let mut diag = cs::Diagnostic::new(sev)
            .with_message(d.summary.clone())
            .with_labels(labels);
        if let Some(code) = d.code {
            diag = diag.with_code(code);
        }
        if !d.detail.is_empty() {
            diag = diag.with_notes(vec![d.detail.clone()]);
        }
        let mut buf = term::termcolor::NoColor::new(Vec::new());
        if term::emit(&mut buf, &config, &files, &diag).is_err() {
            let _ = writeln!(out, "{}: {}", d.summary, d.detail);
            continue;
        }
        out.push_str(&String::from_utf8_lossy(&buf.into_inner()));
    }
    out
}
