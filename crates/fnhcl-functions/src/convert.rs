//! Argument conversion to parameter types. TEMPORARY minimal version until
//! `fnhcl_value`'s conversion lands: exact types, `Dynamic`, and the
//! primitive conversions.

use fnhcl_value::{Type, Value};

pub(crate) fn convert(v: &Value, to: &Type) -> Result<Value, String> {
    if *to == Type::Dynamic {
        return Ok(v.clone());
    }
    let (inner, marked) = match v {
        Value::Marked(inner) => ((**inner).clone(), true),
        other => (other.clone(), false),
    };
    let from = inner.type_of();
    if from == *to {
        return Ok(v.clone());
    }
    let out = match (&inner, to) {
        (Value::Null(_), _) => Value::Null(to.clone()),
        (Value::Unknown(Type::Dynamic), _) => Value::Unknown(to.clone()),
        (Value::Number(n), Type::String) => Value::string(n.to_string()),
        (Value::Bool(b), Type::String) => Value::string(if *b { "true" } else { "false" }),
        (Value::String(s), Type::Number) => match fnhcl_value::Number::parse(s) {
            Some(n) => Value::Number(n),
            None => return Err("a number is required".into()),
        },
        (Value::String(s), Type::Bool) => match &**s {
            "true" => Value::TRUE,
            "false" => Value::FALSE,
            _ => return Err("a bool is required".into()),
        },
        (_, Type::Number) => return Err("a number is required".into()),
        (_, Type::Bool) => return Err("a bool is required".into()),
        (_, Type::String) => return Err("string required".into()),
        _ => return Err(format!("{} required", to.friendly_name())),
    };
    Ok(out.mark_if(marked))
}
