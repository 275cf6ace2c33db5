//! Numeric functions: abs ceil floor log max min parseint pow signum
//! (cty stdlib semantics, as Terraform 1.5.7 registers them).

use fnhcl_value::{Number, Type, Value};
use num_bigint::BigInt;

use crate::args::{num, to_int};
use crate::error::CallError;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "abs",
            "Returns the absolute value of the given number (its positive equivalent if negative).",
        )
        .param(
            Param::new("num", Type::Number)
                .allow_dynamic_type()
                .allow_marked(),
        )
        .returns(Type::Number)
        .implement(|args| {
            let (v, marked) = args[0].unmark_deep();
            Ok(Value::Number(num(&[v], 0)?.abs()).mark_if(marked))
        }),
    );
    r.add(
        FuncDef::new(
            "ceil",
            "Returns the smallest whole number that is greater than or equal to the given value.",
        )
        .param(Param::new("num", Type::Number))
        .returns(Type::Number)
        .implement(|args| Ok(Value::Number(num(args, 0)?.ceil()))),
    );
    r.add(
        FuncDef::new(
            "floor",
            "Returns the greatest whole number that is less than or equal to the given value.",
        )
        .param(Param::new("num", Type::Number))
        .returns(Type::Number)
        .implement(|args| Ok(Value::Number(num(args, 0)?.floor()))),
    );
    r.add(
        FuncDef::new(
            "log",
            "Returns the logarithm of the given number in the given base (float64 precision).",
        )
        .param(Param::new("num", Type::Number))
        .param(Param::new("base", Type::Number))
        .returns(Type::Number)
        .implement(|args| {
            let n = to_float(num(args, 0)?)?;
            let b = to_float(num(args, 1)?)?;
            float_result(n.ln() / b.ln())
        }),
    );
    r.add(
        FuncDef::new(
            "pow",
            "Returns the given number raised to the given power (float64 precision).",
        )
        .param(Param::new("num", Type::Number))
        .param(Param::new("power", Type::Number))
        .returns(Type::Number)
        .implement(|args| {
            let n = to_float(num(args, 0)?)?;
            let p = to_float(num(args, 1)?)?;
            float_result(n.powf(p))
        }),
    );
    r.add(
        FuncDef::new(
            "signum",
            "Returns -1, 0 or 1 for a negative, zero or positive whole number.",
        )
        .param(Param::new("num", Type::Number))
        .returns(Type::Number)
        .implement(|args| {
            let n = to_int(num(args, 0)?).map_err(CallError::new)?;
            Ok(Value::Number(Number::cty_int_val(n.signum())))
        }),
    );
    r.add(
        FuncDef::new(
            "max",
            "Returns the numerically greatest of the given numbers.",
        )
        .variadic(Param::new("numbers", Type::Number).allow_dynamic_type())
        .returns(Type::Number)
        .implement(|args| extreme(args, std::cmp::Ordering::Greater)),
    );
    r.add(
        FuncDef::new(
            "min",
            "Returns the numerically smallest of the given numbers.",
        )
        .variadic(Param::new("numbers", Type::Number).allow_dynamic_type())
        .returns(Type::Number)
        .implement(|args| extreme(args, std::cmp::Ordering::Less)),
    );
    r.add(
        FuncDef::new(
            "parseint",
            "Parses a string as a whole number in the given base (2 to 62).",
        )
        .param(Param::new("number", Type::Dynamic))
        .param(Param::new("base", Type::Number))
        .returns_with("number", |args| {
            let t = args[0].type_of();
            if t != Type::String {
                return Err(CallError::arg(
                    0,
                    format!("first argument must be a string, not {}", t.friendly_name()),
                ));
            }
            Ok(Type::Number)
        })
        .implement(parseint),
    );
}

fn extreme(args: &[Value], want: std::cmp::Ordering) -> Result<Value, CallError> {
    let mut best: Option<&Number> = None;
    for i in 0..args.len() {
        let n = num(args, i)?;
        if best.is_none_or(|b| n.cmp(b) == want) {
            best = Some(n);
        }
    }
    best.map(|n| Value::Number(n.clone()))
        .ok_or_else(|| CallError::new("must pass at least one number"))
}

/// gocty conversion to float64: precision loss is fine, overflow is not.
fn to_float(n: &Number) -> Result<f64, CallError> {
    let f = n.to_f64();
    if f.is_infinite() && !n.is_infinite() {
        return Err(CallError::new(format!(
            "value must be between {:.6} and {:.6} inclusive",
            -f64::MAX,
            f64::MAX
        )));
    }
    Ok(f)
}

/// `cty.NumberFloatVal`: NaN is not a number cty can hold (Go panics and
/// cty reports the panic as an error).
fn float_result(f: f64) -> Result<Value, CallError> {
    Number::cty_float_val(f)
        .map(Value::Number)
        .ok_or_else(|| CallError::new("panic in function implementation: Float.SetFloat64(NaN)"))
}

/// Longest digit string `parseint` accepts (the conversion is quadratic).
const MAX_PARSEINT_DIGITS: usize = 100_000;

fn parseint(args: &[Value]) -> Result<Value, CallError> {
    let s = args[0]
        .as_str()
        .ok_or_else(|| CallError::arg(0, "a string is required"))?;
    let base = to_int(num(args, 1)?).map_err(|m| CallError::arg(1, m))?;
    if !(2..=62).contains(&base) {
        return Err(CallError::arg(
            1,
            "base must be a whole number between 2 and 62 inclusive",
        ));
    }
    let fail = || {
        CallError::arg(
            0,
            format!(
                "cannot parse {} as a base {base} integer",
                crate::quote::go_quote_basic(s)
            ),
        )
    };
    if s.len() > MAX_PARSEINT_DIGITS {
        return Err(CallError::arg(
            0,
            format!("the number is longer than {MAX_PARSEINT_DIGITS} characters"),
        ));
    }
    let n = parse_big_int(s, base as u32).ok_or_else(fail)?;
    // big.Float.SetInt: exact; small values get Go's 64-bit precision.
    Ok(Value::Number(match i64::try_from(&n) {
        Ok(i) => Number::cty_int_val(i),
        Err(_) => Number::from_bigint(&n),
    }))
}

/// Go's `big.Int.SetString(s, base)` for a base from 2 to 62: optional
/// sign, at least one digit, no prefixes or underscores; letters are
/// case-insensitive up to base 36, above it `a`–`z` are 10–35 and `A`–`Z`
/// are 36–61.
fn parse_big_int(s: &str, base: u32) -> Option<BigInt> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut acc = BigInt::from(0u32);
    for c in digits.bytes() {
        let d = match c {
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'z' => u32::from(c - b'a') + 10,
            b'A'..=b'Z' if base <= 36 => u32::from(c - b'A') + 10,
            b'A'..=b'Z' => u32::from(c - b'A') + 36,
            _ => return None,
        };
        if d >= base {
            return None;
        }
        acc = acc * base + d;
    }
    Some(if neg { -acc } else { acc })
}
