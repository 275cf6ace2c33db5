//! Texts the Crossplane mapping shows to users (upstream §5.7, §5.8).

use fnhcl_base::{Diagnostic, Severity, SourceMap};

use crate::Output;

/// Annotation naming the collection a member belongs to (upstream §5.1).
pub const COLLECTION_BASE_NAME_ANNOTATION: &str = "hcl.fn.crossplane.io/collection-base-name";
/// Annotation with a member's zero-based iteration index as `s%06d`.
pub const COLLECTION_INDEX_ANNOTATION: &str = "hcl.fn.crossplane.io/collection-index";

/// A condition to set on the composite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionText {
    /// `True` when `true`, `False` otherwise.
    pub status: bool,
    pub reason: &'static str,
    pub message: String,
}

/// The `FullyResolved` condition (upstream §5.7): true with
/// `AllItemsProcessed` / `all items complete` when nothing was reported as
/// discarded; otherwise false with `IncompleteItemsPresent` and a message
/// naming the first three discards (`resource a, context  incomplete`,
/// `... and N more items incomplete`).
pub fn fully_resolved(output: &Output) -> ConditionText {
    let reported: Vec<_> = output.reported_discards().collect();
    if reported.is_empty() {
        return ConditionText {
            status: true,
            reason: "AllItemsProcessed",
            message: "all items complete".to_owned(),
        };
    }
    let shown: Vec<String> = reported
        .iter()
        .take(3)
        .map(|d| format!("{} {}", d.kind.as_str(), d.name))
        .collect();
    let mut message = shown.join(", ");
    if reported.len() <= 3 {
        message.push_str(" incomplete");
    } else {
        message.push_str(&format!(
            " and {} more items incomplete",
            reported.len() - 3
        ));
    }
    ConditionText {
        status: false,
        reason: "IncompleteItemsPresent",
        message,
    }
}

/// The `HclDiagnostics` condition and, when there are warnings, the Warning
/// result message (upstream §5.8): `hcl.Diagnostics contains N warnings;
/// s1; s2` / `warnings: [s1; s2]` where each `s` is `<range>: <summary>`.
pub fn hcl_diagnostics(output: &Output) -> (ConditionText, Option<String>) {
    let lines = warning_lines(&output.warnings, &output.sources);
    if lines.is_empty() {
        return (
            ConditionText {
                status: true,
                reason: "Eval",
                message: "hcl.Diagnostics contains no warnings".to_owned(),
            },
            None,
        );
    }
    let cond = ConditionText {
        status: false,
        reason: "Eval",
        message: format!(
            "hcl.Diagnostics contains {} warnings; {}",
            lines.len(),
            lines.join("; ")
        ),
    };
    (cond, Some(format!("warnings: [{}]", lines.join("; "))))
}

fn warning_lines(diags: &[Diagnostic], sources: &SourceMap) -> Vec<String> {
    diags
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .map(|d| {
            let range = d
                .primary
                .or(d.context)
                .map(|s| sources.range_text(s))
                .unwrap_or_else(|| "<nil>".to_owned());
            format!("{range}: {}", d.summary)
        })
        .collect()
}
