//! cty's JSON encoder, used by `jsonencode` and by `format`'s `%#v` and
//! `%q`: compact, object keys sorted bytewise, numbers exact decimals, and
//! strings escaped as Go's `encoding/json` does (HTML characters `<`, `>`,
//! `&` and U+2028/U+2029 as `\u` escapes).

use std::collections::BTreeMap;

use fnhcl_value::{Key, Value};

/// cty's `json.Marshal(v, v.Type())`.
pub(crate) fn encode(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    encode_into(&mut out, v)?;
    Ok(out)
}

fn encode_into(out: &mut String, v: &Value) -> Result<(), String> {
    match v {
        Value::Marked(_) => Err("value has marks, so it cannot be serialized as JSON".into()),
        Value::Null(_) => {
            out.push_str("null");
            Ok(())
        }
        Value::Unknown(_) => Err("value is not known".into()),
        Value::Bool(b) => {
            out.push_str(if *b { "true" } else { "false" });
            Ok(())
        }
        Value::Number(n) => {
            out.push_str(&n.to_string());
            Ok(())
        }
        Value::String(s) => {
            quote_into(out, s);
            Ok(())
        }
        Value::List(c) | Value::Set(c) => encode_seq(out, &c.items),
        Value::Tuple(items) => encode_seq(out, items),
        Value::Map(m) => encode_obj(out, &m.items),
        Value::Object(attrs) => encode_obj(out, attrs),
    }
}

fn encode_seq(out: &mut String, items: &[Value]) -> Result<(), String> {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        encode_into(out, item)?;
    }
    out.push(']');
    Ok(())
}

fn encode_obj(out: &mut String, items: &BTreeMap<Key, Value>) -> Result<(), String> {
    out.push('{');
    for (i, (k, v)) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        quote_into(out, k);
        out.push(':');
        encode_into(out, v)?;
    }
    out.push('}');
    Ok(())
}

/// A JSON string literal as Go's `encoding/json` writes it (HTML-safe).
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(&mut out, s);
    out
}

fn quote_into(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '<' || c == '>' || c == '&' => {
                let b = c as u32 as usize;
                out.push_str("\\u00");
                out.push(HEX[b >> 4] as char);
                out.push(HEX[b & 0xF] as char);
            }
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use fnhcl_value::Type;

    use super::*;

    #[test]
    fn encode_like_cty() {
        let mut m = BTreeMap::new();
        m.insert(
            Key::from("hello"),
            crate::limits::cty_string("<cats & kittens>"),
        );
        m.insert(
            Key::from("a"),
            Value::tuple(vec![Value::int(2), Value::null()]),
        );
        assert_eq!(
            encode(&Value::object(m)).ok().as_deref(),
            Some(r#"{"a":[2,null],"hello":"\u003ccats \u0026 kittens\u003e"}"#)
        );
        assert_eq!(
            quote("tab\there\u{1}\u{2028}"),
            r#""tab\there\u0001\u2028""#
        );
        assert!(encode(&Value::Unknown(Type::String)).is_err());
    }
}
