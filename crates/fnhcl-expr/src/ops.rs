//! cty operator semantics used by HCL's binary and unary operators:
//! equality (`Value.Equals`), ordering and arithmetic on numbers, boolean
//! logic. Operands arrive already converted to the parameter type; marks
//! are handled by the caller.

use std::sync::Arc;

use fnhcl_value::{Number, Type, Value};

const MAX_DEPTH: usize = 512;

/// cty's `TestConformance`: `given` conforms to `want` if they are equal,
/// with `Dynamic` in `want` matching anything.
pub(crate) fn conforms(given: &Type, want: &Type) -> bool {
    match (given, want) {
        (_, Type::Dynamic) => true,
        (Type::List(a), Type::List(b))
        | (Type::Set(a), Type::Set(b))
        | (Type::Map(a), Type::Map(b)) => conforms(a, b),
        (Type::Tuple(a), Type::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| conforms(x, y))
        }
        (Type::Object(a), Type::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b.iter())
                    .all(|((ka, ta), (kb, tb))| ka == kb && conforms(ta, tb))
        }
        (a, b) => a == b,
    }
}

/// cty `Value.HasWhollyKnownType`.
fn has_wholly_known_type(v: &Value) -> bool {
    let v = v.unmarked();
    match v {
        Value::Null(_) => true,
        Value::Unknown(t) => !t.has_dynamic(),
        Value::List(c) | Value::Set(c) => c.items.iter().all(has_wholly_known_type),
        Value::Map(m) => m.items.values().all(has_wholly_known_type),
        Value::Tuple(items) => items.iter().all(has_wholly_known_type),
        Value::Object(attrs) => attrs.values().all(has_wholly_known_type),
        _ => true,
    }
}

/// cty `Value.Equals` on unmarked operands: `Some(bool)` or `None` for
/// an unknown result.
pub(crate) fn equals(a: &Value, b: &Value) -> Option<bool> {
    equals_d(a.unmarked(), b.unmarked(), 0)
}

fn equals_d(a: &Value, b: &Value, d: usize) -> Option<bool> {
    if d > MAX_DEPTH {
        return None;
    }
    let (a, b) = (a.unmarked(), b.unmarked());
    let (ak, bk) = (a.is_known(), b.is_known());
    let (ta, tb) = (a.type_of(), b.type_of());
    match (ak, bk) {
        (false, false) => return None,
        (true, false) | (false, true) => {
            let (known, unknown_ty) = if ak { (a, &tb) } else { (b, &ta) };
            if known.is_null() || unknown_ty.has_dynamic() {
                return None;
            }
            return if ta != tb { Some(false) } else { None };
        }
        _ => {}
    }
    match (a.is_null(), b.is_null()) {
        (true, true) => return Some(true),
        (true, false) | (false, true) => return Some(false),
        _ => {}
    }
    if !has_wholly_known_type(a) || !has_wholly_known_type(b) {
        if !conforms(&ta, &tb) && !conforms(&tb, &ta) {
            return Some(false);
        }
        return None;
    }
    if ta != tb {
        return Some(false);
    }
    let d = d + 1;
    let pairwise = |pairs: &mut dyn Iterator<Item = (&Value, &Value)>| -> Option<bool> {
        for (x, y) in pairs {
            match equals_d(x, y, d) {
                None => return None,
                Some(false) => return Some(false),
                Some(true) => {}
            }
        }
        Some(true)
    };
    match (a, b) {
        (Value::Bool(x), Value::Bool(y)) => Some(x == y),
        (Value::Number(x), Value::Number(y)) => Some(x == y),
        (Value::String(x), Value::String(y)) => Some(x == y),
        (Value::Object(x), Value::Object(y)) => pairwise(&mut x.values().zip(y.values())),
        (Value::Tuple(x), Value::Tuple(y)) => pairwise(&mut x.iter().zip(y.iter())),
        (Value::List(x), Value::List(y)) => {
            if x.items.len() != y.items.len() {
                return Some(false);
            }
            pairwise(&mut x.items.iter().zip(y.items.iter()))
        }
        (Value::Set(x), Value::Set(y)) => {
            if x.items.iter().chain(y.items.iter()).any(|v| !v.is_known()) {
                return None;
            }
            let has = |s: &[Value], v: &Value| s.iter().any(|o| equals_d(o, v, d) == Some(true));
            Some(
                x.items.iter().all(|v| has(&y.items, v))
                    && y.items.iter().all(|v| has(&x.items, v)),
            )
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.items.len() != y.items.len() {
                return Some(false);
            }
            for (k, v) in x.items.iter() {
                let Some(w) = y.items.get(k) else {
                    return Some(false);
                };
                match equals_d(v, w, d) {
                    None => return None,
                    Some(false) => return Some(false),
                    Some(true) => {}
                }
            }
            Some(true)
        }
        _ => Some(false),
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
