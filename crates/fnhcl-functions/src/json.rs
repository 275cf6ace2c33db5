//! `jsonencode` and `jsondecode` (cty's JSON mapping).
//!
//! Encoding is `fnhcl_value::json::to_cty_json_text` (shared with
//! `format`). Decoding
//! keeps numbers exact, gives objects and tuples, and a null of dynamic
//! type for `null`.

use std::collections::BTreeMap;

use fnhcl_value::json::to_cty_json_text;
use fnhcl_value::{Key, Number, Type, Value};

use crate::args::str_arg;
use crate::error::CallError;
use crate::registry::{FuncDef, Param, Registry};

/// Nesting limit for decoded documents.
const MAX_DEPTH: usize = 512;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "jsonencode",
            "Returns a string containing a JSON representation of the given value.",
        )
        .param(
            Param::new("val", Type::Dynamic)
                .allow_dynamic_type()
                .allow_null(),
        )
        .returns(Type::String)
        .implement(|a| {
            let v = &a[0];
            if !v.is_wholly_known() {
                return Ok(Value::Unknown(Type::String));
            }
            to_cty_json_text(v)
                .map(crate::limits::cty_string)
                .map_err(CallError::new)
        }),
    );
    r.add(
        FuncDef::new(
            "jsondecode",
            "Parses the given string as JSON and returns a value corresponding to what the JSON document describes.",
        )
        .param(Param::new("str", Type::String))
        // The type of a known document is that of the decoded value: the
        // return type only serves the unknown short-circuit, which a known
        // argument does not take, so the document is not decoded (and
        // typed) twice. A bad document fails in the implementation, with
        // the same error.
        .returns_with("any (from the document)", |_| Ok(Type::Dynamic))
        .implement(|a| match &a[0] {
            Value::String(text) => decode_shared(text).map_err(CallError::new),
            _ => decode(str_arg(a, 0)?).map_err(CallError::new),
        }),
    );
}

thread_local! {
    /// The last document [`decode_shared`] decoded and its value.
    static LAST_DECODED: std::cell::RefCell<Option<(std::sync::Arc<str>, Value)>> =
        const { std::cell::RefCell::new(None) };
}

/// [`decode`] of a string value, remembering the last one decoded on this
/// thread: an expression that reads several parts of one document
/// (`jsondecode(doc).a`, `jsondecode(doc).b`) decodes it once. The same
/// document is the same shared text (`Arc`), kept alive by the memory, so
/// a reused address cannot stand for another text; values are immutable,
/// so the copy given out is the value decoded. Documents over 64 KiB are
/// not kept (one thread would hold their values until its next decode).
fn decode_shared(text: &std::sync::Arc<str>) -> Result<Value, String> {
    const MAX_KEPT: usize = 64 << 10;
    let hit = LAST_DECODED
        .try_with(|last| match &*last.borrow() {
            Some((seen, v)) if std::sync::Arc::ptr_eq(seen, text) => Some(v.clone()),
            _ => None,
        })
        .ok()
        .flatten();
    if let Some(v) = hit {
        return Ok(v);
    }
    let v = decode(text)?;
    if text.len() <= MAX_KEPT {
        let _ = LAST_DECODED.try_with(|last| *last.borrow_mut() = Some((text.clone(), v.clone())));
    }
    Ok(v)
}

/// Parses a JSON document into a cty value (objects, tuples, exact
/// numbers; `null` is a null of dynamic type).
pub(crate) fn decode(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: text,
        b: text.as_bytes(),
        pos: 0,
        keys: fnhcl_value::intern::ThreadCache::take(),
    };
    p.skip_ws();
    let v = p.value(0)?;
    p.skip_ws();
    // cty checks `Decoder.More()`, which is false at the end and before a
    // closing `]` or `}`: such trailing text is ignored.
    if p.pos < p.b.len() && !matches!(p.b[p.pos], b']' | b'}') {
        return Err("extraneous data after JSON object".into());
    }
    Ok(v)
}

/// Whether cty's JSON unmarshalling of `v` (as decoded from JSON) into `ty`
/// succeeds; the error is cty's.
fn check_against(v: &Value, ty: &Type) -> Result<(), String> {
    if v.is_null() {
        return Ok(());
    }
    match ty {
        Type::Dynamic => match v {
            Value::Object(attrs) => {
                if let Some(k) = attrs.keys().find(|k| &***k != "type" && &***k != "value") {
                    return Err(format!(
                        "invalid key {} in dynamically-typed value",
                        crate::quote::go_quote(k)
                    ));
                }
                if !attrs.contains_key("type") {
                    return Err("missing type in dynamically-typed value".into());
                }
                if !attrs.contains_key("value") {
                    return Err("missing value in dynamically-typed value".into());
                }
                Ok(())
            }
            _ => Err("missing expected {".into()),
        },
        Type::Bool => match v {
            Value::Bool(_) => Ok(()),
            Value::String(s) if &**s == "true" || &**s == "false" => Ok(()),
            Value::String(_) => Err("a bool is required".into()),
            _ => Err("bool is required".into()),
        },
        Type::Number => match v {
            Value::Number(_) => Ok(()),
            Value::String(s) if Number::parse(s).is_some() => Ok(()),
            Value::String(_) => Err("a number is required".into()),
            _ => Err("number is required".into()),
        },
        Type::String => match v {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => Ok(()),
            _ => Err("string is required".into()),
        },
        Type::Tuple(etys) => match v {
            Value::Tuple(items) => {
                for (item, ety) in items.iter().zip(etys.iter()) {
                    check_against(item, ety)?;
                }
                match items.len().cmp(&etys.len()) {
                    std::cmp::Ordering::Greater => {
                        Err(format!("too many tuple elements (need {})", etys.len()))
                    }
                    std::cmp::Ordering::Less => {
                        Err(format!("not enough tuple elements (need {})", etys.len()))
                    }
                    std::cmp::Ordering::Equal => Ok(()),
                }
            }
            _ => Err("missing expected [".into()),
        },
        Type::Object(atys) => match v {
            Value::Object(attrs) => {
                for (k, item) in attrs.iter() {
                    let Some(aty) = atys.get(k) else {
                        return Err(format!(
                            "unsupported attribute {}",
                            crate::quote::go_quote(k)
                        ));
                    };
                    check_against(item, aty)?;
                }
                Ok(())
            }
            _ => Err("missing expected {".into()),
        },
        _ => Ok(()),
    }
}

/// An object whose members (in text order) did not arrive in key order:
/// a later repeat of a key replaces the earlier one, which cty decodes
/// against the type of the last, so it must be compatible with it.
fn sorted_object(members: Vec<(Key, Value)>) -> Result<Value, String> {
    let mut attrs: BTreeMap<Key, Value> = BTreeMap::new();
    let mut shadowed: Vec<(Key, Value)> = Vec::new();
    for (key, v) in members {
        if let Some(old) = attrs.insert(key.clone(), v) {
            shadowed.push((key, old));
        }
    }
    for (k, old) in &shadowed {
        if let Some(last) = attrs.get(k) {
            check_against(old, &last.type_of())?;
        }
    }
    Ok(Value::object(attrs.into()))
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Short keys read before, shared (a document's objects repeat them).
    keys: fnhcl_value::intern::ThreadCache,
}

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        while self.pos < self.b.len() && matches!(self.b[self.pos], b' ' | b'\t' | b'\n' | b'\r') {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn invalid(&self, context: &str) -> String {
        match self.peek() {
            // Go's decoder reports a plain EOF between tokens.
            None if context.starts_with("looking for") || context.starts_with("after") => {
                "EOF".into()
            }
            None => "unexpected EOF".into(),
            Some(c) => {
                let ch = std::str::from_utf8(&self.b[self.pos..])
                    .ok()
                    .and_then(|s| s.chars().next())
                    .unwrap_or(c as char);
                format!(
                    "invalid character {} {context}",
                    crate::quote::go_quote_rune(ch)
                )
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "JSON nesting exceeds the limit of {MAX_DEPTH} levels"
            ));
        }
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(crate::limits::cty_string),
            Some(b't') => self.keyword("true", Value::TRUE),
            Some(b'f') => self.keyword("false", Value::FALSE),
            Some(b'n') => self.keyword("null", Value::null()),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.invalid("looking for beginning of value")),
        }
    }

    fn keyword(&mut self, word: &str, v: Value) -> Result<Value, String> {
        for &w in word.as_bytes() {
            if self.peek() != Some(w) {
                return Err(self.invalid(&format!("in literal {word} (expecting '{}')", w as char)));
            }
            self.pos += 1;
        }
        Ok(v)
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.invalid("in numeric literal")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.invalid("after decimal point in numeric literal"));
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.invalid("in exponent of numeric literal"));
            }
            while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1;
            }
        }
        let text = std::str::from_utf8(&self.b[start..self.pos]).unwrap_or("0");
        Number::parse(text)
            .map(Value::Number)
            .ok_or_else(|| format!("invalid number {text}"))
    }

    /// A string, borrowed from the text when it has no escape (the usual
    /// case: no buffer to grow and copy again).
    fn string(&mut self) -> Result<std::borrow::Cow<'a, str>, String> {
        // At the opening quote.
        self.pos += 1;
        let start = self.pos;
        let end = fnhcl_value::scan::plain_end(self.b, start);
        if self.b.get(end) == Some(&b'"') {
            self.pos = end + 1;
            // The run ends at an ASCII byte: whole characters of the text.
            return Ok(std::borrow::Cow::Borrowed(&self.s[start..end]));
        }
        self.escaped_string().map(std::borrow::Cow::Owned)
    }

    /// The rest of [`Self::string`] (after the opening quote) when it holds
    /// an escape or ends badly.
    fn escaped_string(&mut self) -> Result<String, String> {
        let mut out = String::new();
        loop {
            let start = self.pos;
            // Runs without escapes are copied whole; they end at an ASCII
            // byte, so the slice is whole characters of the text.
            self.pos = fnhcl_value::scan::plain_end(self.b, start);
            out.push_str(&self.s[start..self.pos]);
            match self.peek() {
                None => return Err("unexpected EOF".into()),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        return Err("unexpected EOF".into());
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\x08'),
                        b'f' => out.push('\x0C'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xD800..0xDC00).contains(&hi)
                                && self.b.get(self.pos) == Some(&b'\\')
                                && self.b.get(self.pos + 1) == Some(&b'u')
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                                    out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
                                    continue;
                                }
                                self.pos = save;
                            }
                            out.push(char::from_u32(hi).unwrap_or('\u{FFFD}'));
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.invalid("in string escape code"));
                        }
                    }
                }
                Some(_) => return Err(self.invalid("in string literal")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut v = 0u32;
        for _ in 0..4 {
            let Some(d) = self.peek().and_then(|c| (c as char).to_digit(16)) else {
                return Err(self.invalid("in \\u hexadecimal character escape"));
            };
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    fn object(&mut self, depth: usize) -> Result<Value, String> {
        self.pos += 1;
        // In text order; keys usually arrive sorted, and then none repeats
        // (`sorted_object` otherwise).
        let mut attrs: Vec<(Key, Value)> = Vec::new();
        let mut sorted = true;
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::empty_object());
        }
        let mut first = true;
        loop {
            self.skip_ws();
            if self.peek() != Some(b'"') {
                // Go's decoder gives no context right after `{`.
                return Err(if first && self.peek().is_some() {
                    self.invalid("").trim_end().to_owned()
                } else {
                    self.invalid("looking for beginning of object key string")
                });
            }
            first = false;
            let k = self.string()?;
            self.skip_ws();
            if self.peek() != Some(b':') {
                return Err(self.invalid("after object key"));
            }
            self.pos += 1;
            self.skip_ws();
            let v = self.value(depth + 1)?;
            let key = match crate::limits::nfc(&k) {
                std::borrow::Cow::Borrowed(text) => self.keys.get(text),
                std::borrow::Cow::Owned(text) => Key::from(text),
            };
            sorted &= attrs.last().is_none_or(|(last, _)| *last < key);
            attrs.push((key, v));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    if sorted {
                        return Ok(Value::object(fnhcl_value::ObjMap::from_sorted_iter(attrs)));
                    }
                    return sorted_object(attrs);
                }
                _ => return Err(self.invalid("after object key:value pair")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, String> {
        self.pos += 1;
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::tuple(items));
        }
        loop {
            self.skip_ws();
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::tuple(items));
                }
                _ => return Err(self.invalid("after array element")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(s: &str) -> String {
        let mut out = String::new();
        fnhcl_value::json::write_json_string(&mut out, s);
        out
    }

    #[test]
    fn encode_like_cty() {
        let mut m = fnhcl_value::ObjMap::new();
        m.insert(
            Key::from("hello"),
            crate::limits::cty_string("<cats & kittens>"),
        );
        m.insert(
            Key::from("a"),
            Value::tuple(vec![Value::int(2), Value::null()]),
        );
        assert_eq!(
            to_cty_json_text(&Value::object(m)).ok().as_deref(),
            Some(r#"{"a":[2,null],"hello":"\u003ccats \u0026 kittens\u003e"}"#)
        );
        assert_eq!(
            quote("tab\there\u{1}\u{2028}"),
            r#""tab\there\u0001\u2028""#
        );
        assert!(to_cty_json_text(&Value::Unknown(Type::String)).is_err());
    }

    #[test]
    fn decode_like_cty() {
        let v = decode(r#"{"b": 1, "a": [], "c": "\u00e9\ud83d\ude00"}"#);
        assert_eq!(
            v.as_ref().map(|v| v.type_of().to_string()).ok().as_deref(),
            Some("object({a: tuple([]), b: number, c: string})")
        );
        assert_eq!(decode("null").ok(), Some(Value::null()));
        assert_eq!(decode("1.5e3").ok(), Some(Value::int(1500)));
        assert!(decode("{").is_err());
        assert!(decode("[1,]").is_err());
        assert!(decode("1 2").is_err());
        assert!(decode("01").is_err());
        assert!(decode(&"[".repeat(10_000)).is_err());
    }

    /// The document decoded last is given again for the same shared text
    /// only: other texts (each freed before the next, so addresses are
    /// reused), an equal text in another allocation and a failed document
    /// are decoded afresh.
    #[test]
    fn the_last_document_is_remembered_by_identity() {
        use std::sync::Arc;
        let a: Arc<str> = Arc::from(r#"{"x": [1, 2]}"#);
        let first = decode_shared(&a).expect("decodes");
        assert_eq!(decode_shared(&a).expect("again"), first);
        let equal: Arc<str> = Arc::from(r#"{"x": [1, 2]}"#);
        assert_eq!(decode_shared(&equal).expect("equal text"), first);
        for n in 0..50 {
            let other: Arc<str> = Arc::from(format!(r#"{{"n": {n}}}"#));
            let want = decode(&other).expect("decodes");
            assert_eq!(decode_shared(&other).expect("other"), want);
        }
        let bad: Arc<str> = Arc::from("[1,");
        assert!(decode_shared(&bad).is_err());
        assert!(decode_shared(&bad).is_err());
        assert_eq!(decode_shared(&a).expect("a again"), first);
    }

    /// Keys in order, out of order and repeated: the last of a repeated
    /// key wins, and an earlier one must fit its type (cty).
    #[test]
    fn object_keys_in_any_order() {
        let show = |t: &str| decode(t).map(|v| fnhcl_value::json::to_json_text(&v).unwrap());
        assert_eq!(
            show(r#"{"a":1,"b":"x"}"#).as_deref(),
            Ok(r#"{"a":1,"b":"x"}"#)
        );
        assert_eq!(show(r#"{"b":1,"a":2}"#).as_deref(), Ok(r#"{"a":2,"b":1}"#));
        assert_eq!(
            show(r#"{"b":1,"a":2,"b":"x"}"#).as_deref(),
            Ok(r#"{"a":2,"b":"x"}"#)
        );
        assert_eq!(show(r#"{"a":1,"a":2}"#).as_deref(), Ok(r#"{"a":2}"#));
        assert_eq!(
            show(r#"{"a":[1],"a":"x"}"#),
            Err("string is required".to_owned())
        );
        assert_eq!(
            show(r#"{"b":0,"a":[1],"a":"x"}"#),
            Err("string is required".to_owned())
        );
        assert_eq!(
            show(r#"{"a":"e\u0301","b":"\u00e9"}"#).as_deref(),
            Ok("{\"a\":\"\u{e9}\",\"b\":\"\u{e9}\"}")
        );
    }
}
