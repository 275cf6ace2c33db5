//! Pure checks of evaluated values shared by the compiler (constant
//! `ready` values and requirement selectors) and the evaluator.

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_value::{Type, Value};

use crate::api::{ConditionStatus, ReadyState, ResultSeverity, Target, UserCondition, UserResult};

/// Condition types Crossplane and this function set themselves (D35).
pub(crate) const RESERVED_CONDITION_TYPES: [&str; 5] = [
    "Ready",
    "Synced",
    "Healthy",
    "FullyResolved",
    "HclDiagnostics",
];

fn block_name(condition: bool) -> &'static str {
    if condition {
        "composite condition"
    } else {
        "result"
    }
}

fn want_str<'v>(
    condition: bool,
    key: &str,
    v: &'v Value,
    span: Span,
) -> Result<&'v str, Diagnostic> {
    v.as_str().ok_or_else(|| {
        Diagnostic::error(
            format!("{key} in {} must be a string", block_name(condition)),
            format!("got {}", type_name(v)),
        )
        .with_code(codes::PROGRAM)
        .with_span(span)
    })
}

/// One attribute of a `composite condition` (`condition` true) or a
/// `result` (D35).
pub(crate) fn user_field(
    condition: bool,
    key: &str,
    v: &Value,
    span: Span,
) -> Result<(), Diagnostic> {
    let bad = |what: String, detail: String| {
        Err(Diagnostic::error(what, detail)
            .with_code(codes::PROGRAM)
            .with_span(span))
    };
    // D38: only a message may show a sensitive value (as `(sensitive
    // value)`); the other attributes are checked against their values.
    if key != "message" && matches!(v, Value::Marked(_)) {
        return bad(
            format!("{key} in {} must not be sensitive", block_name(condition)),
            "it is derived from a sensitive value (such as req.credentials), which is never shown"
                .into(),
        );
    }
    match (condition, key) {
        (true, "type") => {
            let t = want_str(condition, key, v, span)?;
            if RESERVED_CONDITION_TYPES.contains(&t) {
                return bad(
                    format!("condition type \"{t}\" is reserved"),
                    format!(
                        "Crossplane or this function sets it; choose another type (reserved: {})",
                        RESERVED_CONDITION_TYPES.join(", ")
                    ),
                );
            }
            if t.is_empty() {
                return bad("condition type must not be empty".into(), String::new());
            }
            Ok(())
        }
        (true, "status") => match v {
            Value::Bool(_) => Ok(()),
            _ => match want_str(condition, key, v, span)? {
                "True" | "False" | "Unknown" => Ok(()),
                s => bad(
                    "status in composite condition must be \"True\", \"False\" or \"Unknown\" (or a bool)".into(),
                    format!("got \"{s}\""),
                ),
            },
        },
        (_, "reason") => {
            let r = want_str(condition, key, v, span)?;
            let camel = r.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && r.chars().all(|c| c.is_ascii_alphanumeric());
            if camel {
                Ok(())
            } else {
                bad(
                    format!("reason \"{r}\" in {} is not CamelCase", block_name(condition)),
                    "a reason starts with an upper-case letter and has only letters and digits, e.g. WaitingForVPC".into(),
                )
            }
        }
        (_, "message") => want_str(condition, key, v, span).map(|_| ()),
        (_, "target") => match want_str(condition, key, v, span)? {
            "Composite" | "CompositeAndClaim" => Ok(()),
            s => bad(
                format!("target in {} must be \"Composite\" or \"CompositeAndClaim\"", block_name(condition)),
                format!("got \"{s}\""),
            ),
        },
        (false, "severity") => match want_str(condition, key, v, span)? {
            "Normal" | "Warning" | "Fatal" => Ok(()),
            s => bad(
                "severity in result must be \"Normal\", \"Warning\" or \"Fatal\"".into(),
                format!("got \"{s}\""),
            ),
        },
        _ => Ok(()),
    }
}

fn fields(condition: bool, v: &Value, span: Span) -> Result<Vec<(String, Value)>, Diagnostic> {
    let entries = v.as_entries().ok_or_else(|| {
        Diagnostic::error(
            format!("{} must be an object", block_name(condition)),
            format!("got {}", type_name(v)),
        )
        .with_code(codes::PROGRAM)
        .with_span(span)
    })?;
    let mut out = Vec::new();
    for (k, x) in entries {
        if x.is_null() {
            continue;
        }
        user_field(condition, k, x, span)?;
        out.push((k.to_string(), x.clone()));
    }
    Ok(out)
}

fn target_of(fs: &[(String, Value)]) -> Target {
    match get(fs, "target").and_then(Value::as_str) {
        Some("CompositeAndClaim") => Target::CompositeAndClaim,
        _ => Target::Composite,
    }
}

fn get<'a>(fs: &'a [(String, Value)], key: &str) -> Option<&'a Value> {
    fs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn required<'a>(
    condition: bool,
    fs: &'a [(String, Value)],
    key: &str,
    span: Span,
) -> Result<&'a Value, Diagnostic> {
    get(fs, key).ok_or_else(|| {
        Diagnostic::error(
            format!("{} needs {key}", block_name(condition)),
            format!("{key} is null"),
        )
        .with_code(codes::PROGRAM)
        .with_span(span)
    })
}

/// A string attribute as the user will see it: a value derived from a
/// sensitive one (D38) is shown as `(sensitive value)`.
fn shown(v: &Value) -> Option<String> {
    match v {
        Value::Marked(_) if v.as_str().is_some() => Some(SENSITIVE.to_owned()),
        _ => v.as_str().map(str::to_owned),
    }
}

/// What is shown in place of a sensitive value (D38), as Terraform does.
pub(crate) const SENSITIVE: &str = "(sensitive value)";

/// The evaluated attributes of a `composite condition` block.
pub(crate) fn user_condition(v: &Value, span: Span) -> Result<UserCondition, Diagnostic> {
    let fs = fields(true, v, span)?;
    let status = match required(true, &fs, "status", span)? {
        Value::Bool(true) => ConditionStatus::True,
        Value::Bool(false) => ConditionStatus::False,
        s => match s.as_str() {
            Some("True") => ConditionStatus::True,
            Some("False") => ConditionStatus::False,
            _ => ConditionStatus::Unknown,
        },
    };
    Ok(UserCondition {
        type_: shown(required(true, &fs, "type", span)?).unwrap_or_default(),
        status,
        reason: shown(required(true, &fs, "reason", span)?).unwrap_or_default(),
        message: get(&fs, "message").and_then(shown),
        target: target_of(&fs),
    })
}

/// The evaluated attributes of a `result` block.
pub(crate) fn user_result(v: &Value, span: Span) -> Result<UserResult, Diagnostic> {
    let fs = fields(false, v, span)?;
    let severity = match required(false, &fs, "severity", span)?.as_str() {
        Some("Fatal") => ResultSeverity::Fatal,
        Some("Warning") => ResultSeverity::Warning,
        _ => ResultSeverity::Normal,
    };
    Ok(UserResult {
        severity,
        message: shown(required(false, &fs, "message", span)?).unwrap_or_default(),
        reason: get(&fs, "reason").and_then(shown),
        target: target_of(&fs),
    })
}

/// Fields of a `select` block.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SelectField {
    ApiVersion,
    Kind,
    MatchName,
    MatchLabels,
    /// D36 (null: no namespace).
    Namespace,
}

/// Type checks of a requirement selector's values (upstream §5.6).
pub(crate) fn check_select_value(
    f: SelectField,
    v: &Value,
    name: &str,
    span: Span,
) -> Result<(), Diagnostic> {
    let err = |what: &str, got: &Value| {
        Err(Diagnostic::error(
            format!("{what} in requirement selector of \"{name}\" was not a string"),
            format!("got {}", type_name(got)),
        )
        .with_code(codes::SCHEMA)
        .with_span(span))
    };
    match f {
        SelectField::ApiVersion if v.as_str().is_none() => err("api version", v),
        SelectField::Kind if v.as_str().is_none() => err("kind", v),
        SelectField::MatchName if v.as_str().is_none() => err("matchName", v),
        SelectField::Namespace if !v.is_null() && v.as_str().is_none() => err("namespace", v),
        SelectField::MatchLabels => match v.as_entries() {
            None => Err(Diagnostic::error(
                format!("matchLabels in requirement selector of \"{name}\" was not an object"),
                format!("got {}", type_name(v)),
            )
            .with_code(codes::SCHEMA)
            .with_span(span)),
            Some(m) => {
                for (k, x) in m {
                    if x.as_str().is_none() {
                        return err(&format!("match label \"{k}\""), x);
                    }
                }
                Ok(())
            }
        },
        _ => Ok(()),
    }
}

/// The value of a `ready` block.
pub(crate) fn ready_state(v: &Value, owner: &str, span: Span) -> Result<ReadyState, Diagnostic> {
    let Some(s) = v.as_str() else {
        return Err(Diagnostic::error(
            format!("attribute \"value\" not a string in ready block for {owner}"),
            format!("got {}", type_name(v)),
        )
        .with_code(codes::PROGRAM)
        .with_span(span));
    };
    ReadyState::parse(s).ok_or_else(|| {
        Diagnostic::error(
            format!(
                "attribute \"value\" does not have a valid value in ready block for {owner}, must be one of \"READY_FALSE, READY_TRUE, READY_UNSPECIFIED\""
            ),
            format!("got \"{s}\""),
        )
        .with_span(span)
        .with_code(codes::PROGRAM)
    })
}

/// Terraform's type name for messages (D9).
pub(crate) fn type_name(v: &Value) -> String {
    if v.is_null() && v.type_of() == Type::Dynamic {
        return "null".to_owned();
    }
    v.type_of().to_string()
}
