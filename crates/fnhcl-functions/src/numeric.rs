//! Numeric functions: abs ceil floor log max min parseint pow signum.

use fnhcl_value::{Type, Value};

use crate::CallError;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new("abs", "Returns the absolute value of the given number.")
            .param(Param::new("num", Type::Number).allow_dynamic_type())
            .returns(Type::Number)
            .implement(|args| Ok(Value::Number(num(args, 0)?.abs()))),
    );
}

/// Argument `i` as a number. The dispatcher guarantees the type, so a
/// mismatch is reported rather than panicking.
pub(crate) fn num(args: &[Value], i: usize) -> Result<&fnhcl_value::Number, CallError> {
    args.get(i)
        .and_then(Value::as_number)
        .ok_or_else(|| CallError::arg(i, "a number is required"))
}
