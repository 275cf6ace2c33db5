//! cty operator semantics used by HCL's binary and unary operators:
//! equality (`Value.Equals`), ordering and arithmetic on numbers, boolean
//! logic. Operands arrive already converted to the parameter type; marks
//! are handled by the caller.

use std::sync::Arc;

use fnhcl_value::{Number, Value};

/// cty `Value.Equals` on unmarked operands: `Some(bool)` or `None` for
/// an unknown result.
pub(crate) fn equals(a: &Value, b: &Value) -> Option<bool> {
    match fnhcl_value::ops::equals(a, b).unmarked() {
        Value::Bool(x) => Some(*x),
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// Arithmetic on two known, non-null numbers, with cty's error texts.
pub(crate) fn arith(op: Arith, a: &Number, b: &Number) -> Result<Number, String> {
    let r = match op {
        Arith::Add => a.add(b),
        Arith::Sub => a.sub(b),
        Arith::Mul => a.mul(b),
        Arith::Div => a.div(b),
        Arith::Mod => a.rem(b),
    };
    r.map_err(|_| {
        match op {
            Arith::Add => "can't compute sum of opposing infinities",
            Arith::Sub => "can't subtract infinity from itself",
            Arith::Mul => "can't multiply zero by infinity",
            Arith::Div => "can't divide zero by zero or infinity by infinity",
            Arith::Mod => "can't use modulo with zero and infinity",
        }
        .to_owned()
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Lt,
    LtEq,
    Gt,
    GtEq,
}

pub(crate) fn compare(op: Cmp, a: &Number, b: &Number) -> bool {
    match op {
        Cmp::Lt => a < b,
        Cmp::LtEq => a <= b,
        Cmp::Gt => a > b,
        Cmp::GtEq => a >= b,
    }
}

/// An empty tuple value.
pub(crate) fn empty_tuple() -> Value {
    Value::Tuple(Arc::new(Vec::new()))
}
