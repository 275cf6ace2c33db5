//! Texts the Crossplane mapping shows to users (upstream §5.7, §5.8).

use fnhcl_base::{Diagnostic, Severity, SourceMap};

use crate::{DiscardReason, Output};

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
        .map(|d| match d.reason {
            // D40, D41: what it waits for; that it stays as observed.
            DiscardReason::HeldBack => {
                format!("{} {} ({})", d.kind.as_str(), d.name, d.context.join("; "))
            }
            DiscardReason::Kept => format!("{} {} (kept as observed)", d.kind.as_str(), d.name),
            DiscardReason::EvaluationError => {
                format!("{} {} (evaluation error)", d.kind.as_str(), d.name)
            }
            _ => format!("{} {}", d.kind.as_str(), d.name),
        })
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fnhcl_base::{Diagnostic, SourceMap, Span};

    use super::*;
    use crate::{Discard, DiscardKind, DiscardReason};

    fn discard(kind: DiscardKind, reason: DiscardReason, name: &str) -> Discard {
        Discard {
            kind,
            reason,
            name: name.to_owned(),
            span: None,
            range: "<nil>".to_owned(),
            context: Vec::new(),
        }
    }

    #[test]
    fn fully_resolved_messages() {
        let mut out = Output::default();
        let c = fully_resolved(&out);
        assert!(c.status);
        assert_eq!(c.reason, "AllItemsProcessed");
        assert_eq!(c.message, "all items complete");

        // Silent user-condition discards do not count.
        out.discards.push(discard(
            DiscardKind::Resource,
            DiscardReason::UserCondition,
            "x",
        ));
        assert!(fully_resolved(&out).status);

        out.discards.push(discard(
            DiscardKind::CompositeStatus,
            DiscardReason::Incomplete,
            "",
        ));
        let c = fully_resolved(&out);
        assert!(!c.status);
        assert_eq!(c.reason, "IncompleteItemsPresent");
        assert_eq!(c.message, "composite-status  incomplete");

        for n in ["a", "b", "c", "d"] {
            out.discards
                .push(discard(DiscardKind::Resource, DiscardReason::Incomplete, n));
        }
        assert_eq!(
            fully_resolved(&out).message,
            "composite-status , resource a, resource b and 2 more items incomplete"
        );
    }

    #[test]
    fn hcl_diagnostics_messages() {
        let mut sm = SourceMap::new();
        let f = sm.add("main.hcl", "0123456789\nabcdefghij\n");
        let mut out = Output {
            sources: Arc::new(sm),
            ..Output::default()
        };
        let (c, r) = hcl_diagnostics(&out);
        assert!(c.status);
        assert_eq!(c.message, "hcl.Diagnostics contains no warnings");
        assert_eq!(r, None);

        out.warnings = vec![
            Diagnostic::warning("Attempt to get attribute from null value", "detail")
                .with_span(Span::new(f, 2, 5)),
            Diagnostic::warning("connection secret key \"k\" not in base64 format", ""),
        ];
        let (c, r) = hcl_diagnostics(&out);
        assert!(!c.status);
        assert_eq!(c.reason, "Eval");
        assert_eq!(
            c.message,
            "hcl.Diagnostics contains 2 warnings; main.hcl:1,3-6: Attempt to get attribute from null value; <nil>: connection secret key \"k\" not in base64 format"
        );
        assert_eq!(
            r.as_deref(),
            Some(
                "warnings: [main.hcl:1,3-6: Attempt to get attribute from null value; <nil>: connection secret key \"k\" not in base64 format]"
            )
        );
    }
}
