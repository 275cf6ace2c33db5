//! Pure checks of evaluated values shared by the compiler (constant
//! `ready` values and requirement selectors) and the evaluator.

use fnhcl_base::{Diagnostic, Span};
use fnhcl_value::{Type, Value};

use crate::api::ReadyState;

/// Fields of a `select` block.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SelectField {
    ApiVersion,
    Kind,
    MatchName,
    MatchLabels,
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
        .with_span(span))
    };
    match f {
        SelectField::ApiVersion if v.as_str().is_none() => err("api version", v),
        SelectField::Kind if v.as_str().is_none() => err("kind", v),
        SelectField::MatchName if v.as_str().is_none() => err("matchName", v),
        SelectField::MatchLabels => match v.as_entries() {
            None => Err(Diagnostic::error(
                format!("matchLabels in requirement selector of \"{name}\" was not an object"),
                format!("got {}", type_name(v)),
            )
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
    })
}

/// Terraform's type name for messages (D9).
pub(crate) fn type_name(v: &Value) -> String {
    if v.is_null() && v.type_of() == Type::Dynamic {
        return "null".to_owned();
    }
    v.type_of().to_string()
}
