//! Argument accessors shared by the function categories. The dispatcher
//! has already converted each argument to its parameter type; these read
//! it back, reporting a mismatch instead of panicking.

use fnhcl_value::{Number, Value};

use crate::error::CallError;

/// Argument `i` as a string (the dispatcher guarantees the type).
pub(crate) fn str_arg(args: &[Value], i: usize) -> Result<&str, CallError> {
    args.get(i)
        .and_then(Value::as_str)
        .ok_or_else(|| CallError::arg(i, "string required"))
}

/// Argument `i` as a whole number that fits a Go `int` (cty's gocty).
pub(crate) fn int_arg(args: &[Value], i: usize) -> Result<i64, CallError> {
    let n = args
        .get(i)
        .and_then(Value::as_number)
        .ok_or_else(|| CallError::arg(i, "a number is required"))?;
    n.to_i64().ok_or_else(|| {
        CallError::arg(
            i,
            format!(
                "value must be a whole number, between {} and {}",
                i64::MIN,
                i64::MAX
            ),
        )
    })
}

/// gocty conversion to a Go `int` (64-bit).
pub(crate) fn to_int(n: &Number) -> Result<i64, String> {
    match n.to_i64() {
        Some(i) if n.is_integer() => Ok(i),
        _ => Err(format!(
            "value must be a whole number, between {} and {}",
            i64::MIN,
            i64::MAX
        )),
    }
}

/// Argument `i` as a number. The dispatcher guarantees the type, so a
/// mismatch is reported rather than panicking.
pub(crate) fn num(args: &[Value], i: usize) -> Result<&Number, CallError> {
    args.get(i)
        .and_then(Value::as_number)
        .ok_or_else(|| CallError::arg(i, "a number is required"))
}
