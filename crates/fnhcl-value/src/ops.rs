//! cty value operations shared by the expression evaluator and the
//! functions: equality, ordering comparisons and arithmetic, with cty's
//! handling of unknowns, nulls and marks.

use crate::convert::convert;
use crate::{Number, Type, Value};

/// True if `given` conforms to `want` (cty `TestConformance` finds no
/// error): `Dynamic` in `want` matches anything.
pub fn type_conforms(given: &Type, want: &Type) -> bool {
    if *want == Type::Dynamic || given == want {
        return true;
    }
    match (given, want) {
        (Type::Object(g), Type::Object(w)) => {
            g.len() == w.len()
                && g.iter()
                    .all(|(k, gt)| w.get(k).is_some_and(|wt| type_conforms(gt, wt)))
        }
        (Type::Tuple(g), Type::Tuple(w)) => {
            g.len() == w.len() && g.iter().zip(w.iter()).all(|(a, b)| type_conforms(a, b))
        }
        (Type::List(g), Type::List(w))
        | (Type::Map(g), Type::Map(w))
        | (Type::Set(g), Type::Set(w)) => type_conforms(g, w),
        _ => false,
    }
}

/// cty `HasWhollyKnownType`: false if the value is, or contains, an
/// unknown of unknown type.
fn has_wholly_known_type(v: &Value) -> bool {
    match v.unmarked() {
        Value::Null(_) => true,
        Value::Unknown(t) => !t.has_dynamic(),
        Value::List(c) | Value::Set(c) => c.items.iter().all(has_wholly_known_type),
        Value::Map(m) => m.items.values().all(has_wholly_known_type),
        Value::Tuple(items) => items.iter().all(has_wholly_known_type),
        Value::Object(attrs) => attrs.values().all(has_wholly_known_type),
        _ => true,
    }
}

/// cty `Equals` (HCL's `==`): a known bool, or an unknown bool when the
/// answer depends on unknown values. Types must match exactly (`1 == "1"`
/// is false); any two nulls are equal; collections compare deeply;
/// numbers compare as cty does ([`Number::cty_equals`]). Marks on the
/// operands carry over to the result.
pub fn equals(a: &Value, b: &Value) -> Value {
    // Known, unmarked primitives of the same type (the usual case).
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => return Value::Bool(x.cty_equals(y)),
        (Value::String(x), Value::String(y)) => {
            return Value::Bool(crate::key_eq(x.as_bytes(), y.as_bytes()));
        }
        (Value::Bool(x), Value::Bool(y)) => return Value::Bool(x == y),
        _ => {}
    }
    if a.is_marked_deep() || b.is_marked_deep() {
        let (a, _) = a.unmark_deep();
        let (b, _) = b.unmark_deep();
        return equals(&a, &b).mark();
    }
    match equals_inner(a, b) {
        Some(r) => Value::Bool(r),
        None => Value::Unknown(Type::Bool),
    }
}

/// `None` = unknown.
fn equals_inner(a: &Value, b: &Value) -> Option<bool> {
    match (a.is_known(), b.is_known()) {
        (false, false) => return None,
        (true, false) => {
            let bt = b.type_of();
            if a.is_null() || bt.has_dynamic() {
                return None;
            }
            return if a.type_of() != bt { Some(false) } else { None };
        }
        (false, true) => return equals_inner(b, a),
        (true, true) => {}
    }
    match (a.is_null(), b.is_null()) {
        (true, true) => return Some(true),
        (true, false) | (false, true) => return Some(false),
        _ => {}
    }
    let (at, bt) = (a.type_of(), b.type_of());
    if !has_wholly_known_type(a) || !has_wholly_known_type(b) {
        if !type_conforms(&at, &bt) && !type_conforms(&bt, &at) {
            return Some(false);
        }
        return None;
    }
    if at != bt {
        return Some(false);
    }
    fn all_pairs<'a>(pairs: impl Iterator<Item = (&'a Value, &'a Value)>) -> Option<bool> {
        for (x, y) in pairs {
            match equals_inner(x, y) {
                None => return None,
                Some(false) => return Some(false),
                Some(true) => {}
            }
        }
        Some(true)
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Some(x.cty_equals(y)),
        (Value::Bool(x), Value::Bool(y)) => Some(x == y),
        (Value::String(x), Value::String(y)) => Some(x == y),
        (Value::Object(x), Value::Object(y)) => all_pairs(x.values().zip(y.values())),
        (Value::Tuple(x), Value::Tuple(y)) => all_pairs(x.iter().zip(y.iter())),
        (Value::List(x), Value::List(y)) => {
            if x.items.len() != y.items.len() {
                return Some(false);
            }
            all_pairs(x.items.iter().zip(y.items.iter()))
        }
        (Value::Set(x), Value::Set(y)) => {
            if x.items.iter().chain(y.items.iter()).any(|v| !v.is_known()) {
                return None;
            }
            let has =
                |set: &[Value], v: &Value| set.iter().any(|w| equals_inner(v, w) == Some(true));
            Some(
                x.items.iter().all(|v| has(&y.items, v))
                    && y.items.iter().all(|v| has(&x.items, v)),
            )
        }
        (Value::Map(x), Value::Map(y)) => {
            if x.items.len() != y.items.len() {
                return Some(false);
            }
            for (k, xv) in &x.items {
                let Some(yv) = y.items.get(k) else {
                    return Some(false);
                };
                match equals_inner(xv, yv) {
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

/// HCL's `!=`.
pub fn not_equals(a: &Value, b: &Value) -> Value {
    let r = equals(a, b);
    let marked = matches!(r, Value::Marked(_));
    match r.unmarked() {
        Value::Bool(x) => Value::Bool(!x),
        other => other.clone(),
    }
    .mark_if(marked)
}

/// cty `RawEquals`: structural identity, including unknowns (two unknowns
/// of the same type are equal), marks and exact types. For tests and
/// caches; not an HCL operator.
pub fn raw_equals(a: &Value, b: &Value) -> bool {
    if a.type_of() != b.type_of() {
        return false;
    }
    match (a, b) {
        (Value::Marked(x), Value::Marked(y)) => raw_equals(x, y),
        (Value::Marked(_), _) | (_, Value::Marked(_)) => false,
        (Value::Unknown(_), Value::Unknown(_)) | (Value::Null(_), Value::Null(_)) => true,
        (Value::Unknown(_), _) | (_, Value::Unknown(_)) => false,
        (Value::Null(_), _) | (_, Value::Null(_)) => false,
        (Value::Number(x), Value::Number(y)) => x.cty_equals(y),
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::List(x), Value::List(y)) | (Value::Set(x), Value::Set(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(y.items.iter())
                    .all(|(p, q)| raw_equals(p, q))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.items.len() == y.items.len()
                && x.items
                    .iter()
                    .zip(y.items.iter())
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && raw_equals(v1, v2))
        }
        (Value::Tuple(x), Value::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| raw_equals(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.values().zip(y.values()).all(|(p, q)| raw_equals(p, q))
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------
// Operators (HCL binary/unary operators over cty stdlib functions)

/// Why an operator failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// An operand could not be converted to the operator's parameter type
    /// (HCL: "Invalid operand" / "Unsuitable value for left operand: ...").
    /// `index` is 0 for the left (or only) operand, 1 for the right one.
    Operand { index: usize, message: String },
    /// The operation itself failed (HCL: "Operation failed" / "Error
    /// during operation: ..."), e.g. a null operand or `0/0`.
    Failed(String),
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpError::Operand { message, .. } | OpError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for OpError {}

/// Result of an operator.
pub type OpResult = Result<Value, OpError>;

/// HCL's operator evaluation: converts each operand to `want` (cty
/// `Convert`, so `"2" * 3` is 6), then applies cty's function-call rules:
/// a null operand is an error, an unknown operand gives an unknown result
/// of type `result`, marks are removed and put on the result.
fn with_operands(
    args: &[&Value],
    want: Type,
    result: Type,
    f: impl FnOnce(&[Value]) -> OpResult,
) -> OpResult {
    let mut converted = Vec::with_capacity(args.len());
    for (index, a) in args.iter().enumerate() {
        match convert(a, &want) {
            Ok(v) => converted.push(v),
            Err(e) => {
                return Err(OpError::Operand {
                    index,
                    message: e.message,
                });
            }
        }
    }
    let mut marked = false;
    let mut plain = Vec::with_capacity(converted.len());
    for v in converted {
        let (u, m) = v.unmark_deep();
        marked |= m;
        plain.push(u);
    }
    if plain.iter().any(Value::is_null) {
        return Err(OpError::Failed("argument must not be null".into()));
    }
    if plain.iter().any(|a| !a.is_known()) {
        return Ok(Value::Unknown(result).mark_if(marked));
    }
    f(&plain).map(|v| v.mark_if(marked))
}

fn num(v: &Value) -> Number {
    v.as_number()
        .cloned()
        .unwrap_or_else(|| Number::from_i64(0))
}

fn arith(
    a: &Value,
    b: &Value,
    op: impl FnOnce(&Number, &Number) -> Result<Number, crate::NumberError>,
) -> OpResult {
    with_operands(&[a, b], Type::Number, Type::Number, |v| {
        op(&num(&v[0]), &num(&v[1]))
            .map(Value::Number)
            .map_err(|e| OpError::Failed(e.to_string()))
    })
}

/// `a + b` (numbers).
pub fn add(a: &Value, b: &Value) -> OpResult {
    arith(a, b, Number::add)
}
/// `a - b`.
pub fn sub(a: &Value, b: &Value) -> OpResult {
    arith(a, b, Number::sub)
}
/// `a * b`.
pub fn mul(a: &Value, b: &Value) -> OpResult {
    arith(a, b, Number::mul)
}
/// `a / b` (`x/0` is ±infinity, as in cty).
pub fn div(a: &Value, b: &Value) -> OpResult {
    arith(a, b, Number::div)
}
/// `a % b` (cty `Modulo`).
pub fn modulo(a: &Value, b: &Value) -> OpResult {
    arith(a, b, Number::rem)
}
/// `-a`.
pub fn neg(a: &Value) -> OpResult {
    with_operands(&[a], Type::Number, Type::Number, |v| {
        Ok(Value::Number(num(&v[0]).neg()))
    })
}
/// `!a`.
pub fn not(a: &Value) -> OpResult {
    with_operands(&[a], Type::Bool, Type::Bool, |v| {
        Ok(Value::Bool(!v[0].as_bool().unwrap_or(false)))
    })
}
/// `a && b` (both operands evaluated; unknown if either is unknown, as
/// cty's `And`).
pub fn and(a: &Value, b: &Value) -> OpResult {
    with_operands(&[a, b], Type::Bool, Type::Bool, |v| {
        Ok(Value::Bool(
            v[0].as_bool().unwrap_or(false) && v[1].as_bool().unwrap_or(false),
        ))
    })
}
/// `a || b`.
pub fn or(a: &Value, b: &Value) -> OpResult {
    with_operands(&[a, b], Type::Bool, Type::Bool, |v| {
        Ok(Value::Bool(
            v[0].as_bool().unwrap_or(false) || v[1].as_bool().unwrap_or(false),
        ))
    })
}

fn compare(a: &Value, b: &Value, f: impl FnOnce(std::cmp::Ordering) -> bool) -> OpResult {
    with_operands(&[a, b], Type::Number, Type::Bool, |v| {
        Ok(Value::Bool(f(num(&v[0]).cmp(&num(&v[1])))))
    })
}
/// `a < b`.
pub fn less_than(a: &Value, b: &Value) -> OpResult {
    compare(a, b, |o| o.is_lt())
}
/// `a <= b`.
pub fn less_than_or_equal(a: &Value, b: &Value) -> OpResult {
    compare(a, b, |o| o.is_le())
}
/// `a > b`.
pub fn greater_than(a: &Value, b: &Value) -> OpResult {
    compare(a, b, |o| o.is_gt())
}
/// `a >= b`.
pub fn greater_than_or_equal(a: &Value, b: &Value) -> OpResult {
    compare(a, b, |o| o.is_ge())
}
