//! The `fn-hcl eval --jsonl` protocol, shared with `hcl-oracle`:
//! one JSON object per input line, `{"id", "expr", "vars"}`, answered by
//! `{"id", "type", "value"}`, `{"id", "type", "unknown": true}` or
//! `{"id", "error", "phase": "parse"|"eval"}`.
//!
//! Variables are converted as cty's implied JSON types do (objects become
//! objects, arrays tuples, numbers exact). Two test conventions: the exact
//! object `{"$unknown": "<type>"}` is an unknown value of that type, and
//! `{"$sensitive": <json>}` is the value carrying the sensitive mark.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use fnhcl_base::SourceMap;
use fnhcl_value::{Key, Number, Type, Value};

use crate::{EvalContext, Limits};

/// Answers one protocol line.
pub fn process_line(line: &str) -> String {
    let parsed = match parse_json(line) {
        Ok(Json::Object(m)) => m,
        Ok(_) => return error_line(None, "bad input line: not a JSON object", None),
        Err(e) => return error_line(None, &format!("bad input line: {e}"), None),
    };
    let id = match parsed.iter().find(|(k, _)| k == "id") {
        Some((_, Json::String(s))) => Some(s.clone()),
        _ => None,
    };
    let expr = match parsed.iter().find(|(k, _)| k == "expr") {
        Some((_, Json::String(s))) => s.clone(),
        _ => return error_line(id.as_deref(), "bad input line: missing \"expr\"", None),
    };
    let mut vars: BTreeMap<String, Value> = BTreeMap::new();
    if let Some((_, v)) = parsed.iter().find(|(k, _)| k == "vars") {
        match v {
            Json::Object(m) => {
                for (k, v) in m {
                    match json_to_value(v, 0) {
                        Ok(val) => {
                            vars.insert(k.clone(), val);
                        }
                        Err(e) => {
                            return error_line(id.as_deref(), &format!("bad vars: {e}"), None);
                        }
                    }
                }
            }
            Json::Null => {}
            _ => return error_line(id.as_deref(), "bad vars: not an object", None),
        }
    }
    evaluate_line(id.as_deref(), &expr, &vars)
}

/// Evaluates `expr` (file name `expr.hcl`, as the oracle) and formats the
/// answer line.
pub fn evaluate_line(id: Option<&str>, expr: &str, vars: &BTreeMap<String, Value>) -> String {
    let limits = Limits::default();
    let ctx = EvalContext {
        vars,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    let mut sources = SourceMap::new();
    let (ev, parse_failed) = crate::eval_source(&mut sources, "expr.hcl", expr, &ctx);
    if ev.has_errors() {
        let text = diagnostics_error(&ev.diagnostics, &sources);
        let phase = if parse_failed { "parse" } else { "eval" };
        return error_line(id, &text, Some(phase));
    }
    result_line(id, &ev.value)
}

/// HCL's `Diagnostics.Error()`: the first error's `range: summary; detail`,
/// then `, and N other diagnostic(s)`.
pub fn diagnostics_error(diags: &[fnhcl_base::Diagnostic], sources: &SourceMap) -> String {
    let mut sorted: Vec<&fnhcl_base::Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| !d.is_error());
    match sorted.as_slice() {
        [] => "no diagnostics".to_owned(),
        [one] => one.to_hcl_string(sources),
        [first, rest @ ..] => format!(
            "{}, and {} other diagnostic(s)",
            first.to_hcl_string(sources),
            rest.len()
        ),
    }
}

fn result_line(id: Option<&str>, v: &Value) -> String {
    let mut out = String::from("{");
    push_id(&mut out, id);
    let _ = write!(out, "\"type\":{}", json_string(&v.type_of().to_string()));
    if v.is_marked_deep() {
        out.push_str(",\"sensitive\":true");
    }
    if !v.is_wholly_known() {
        out.push_str(",\"unknown\":true}");
        return out;
    }
    let body = match fnhcl_value::json::to_json_text_plain(v) {
        Ok(body) => body,
        Err(e) => {
            let mut out = error_line(id, &format!("marshal: {e}"), None);
            out.pop();
            let _ = write!(out, ",\"type\":{}}}", json_string(&v.type_of().to_string()));
            return out;
        }
    };
    let _ = write!(out, ",\"value\":{body}}}");
    out
}

fn push_id(out: &mut String, id: Option<&str>) {
    if let Some(id) = id {
        let _ = write!(out, "\"id\":{},", json_string(id));
    }
}

fn error_line(id: Option<&str>, msg: &str, phase: Option<&str>) -> String {
    let mut out = String::from("{");
    push_id(&mut out, id);
    let _ = write!(out, "\"error\":{}", json_string(msg));
    if let Some(p) = phase {
        let _ = write!(out, ",\"phase\":{}", json_string(p));
    }
    out.push('}');
    out
}

/// A JSON string literal (no HTML-safe escapes).
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    fnhcl_value::json::write_json_string_plain(&mut out, s);
    out
}

/// Parsed JSON with numbers kept as text (exact).
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in input order.
    Object(Vec<(String, Json)>),
}

/// JSON → value with cty's implied types, plus the `$unknown` and
/// `$sensitive` test conventions.
pub fn json_to_value(j: &Json, depth: usize) -> Result<Value, String> {
    if depth > 1000 {
        return Err("value too deeply nested".into());
    }
    Ok(match j {
        Json::Null => Value::null(),
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(t) => {
            Value::Number(Number::parse(t).ok_or_else(|| format!("bad number {t}"))?)
        }
        Json::String(s) => Value::string(crate::eval::nfc(s.clone())),
        Json::Array(items) => Value::tuple(
            items
                .iter()
                .map(|x| json_to_value(x, depth + 1))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        Json::Object(m) => {
            if let [(k, Json::String(t))] = m.as_slice()
                && k == "$unknown"
            {
                return Ok(Value::Unknown(parse_type(t)?));
            }
            if let [(k, inner)] = m.as_slice()
                && k == "$sensitive"
            {
                return Ok(json_to_value(inner, depth + 1)?.mark());
            }
            let mut attrs: BTreeMap<Key, Value> = BTreeMap::new();
            for (k, v) in m {
                attrs.insert(Arc::from(k.as_str()), json_to_value(v, depth + 1)?);
            }
            Value::object(attrs)
        }
    })
}

/// Parses a type in `type()` syntax: `string`, `list(number)`,
/// `tuple([string, bool])`, `object({a: number})`, `dynamic`.
pub fn parse_type(s: &str) -> Result<Type, String> {
    let mut p = TypeParser {
        s: s.as_bytes(),
        i: 0,
        depth: 0,
    };
    let t = p.ty()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("bad type {s:?}"));
    }
    Ok(t)
}

struct TypeParser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl TypeParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("bad type: expected {:?} at {}", c as char, self.i))
        }
    }
    fn word(&mut self) -> String {
        self.ws();
        let st = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || self.s[self.i] == b'_'
                || self.s[self.i] == b'-')
        {
            self.i += 1;
        }
        String::from_utf8_lossy(&self.s[st..self.i]).into_owned()
    }
    fn ty(&mut self) -> Result<Type, String> {
        self.depth += 1;
        if self.depth > 100 {
            return Err("type too deeply nested".into());
        }
        let w = self.word();
        let t = match w.as_str() {
            "string" => Type::String,
            "number" => Type::Number,
            "bool" => Type::Bool,
            "dynamic" | "any" => Type::Dynamic,
            "list" | "set" | "map" => {
                self.eat(b'(')?;
                let e = self.ty()?;
                self.eat(b')')?;
                match w.as_str() {
                    "list" => Type::list(e),
                    "set" => Type::set(e),
                    _ => Type::map(e),
                }
            }
            "tuple" => {
                self.eat(b'(')?;
                self.eat(b'[')?;
                let mut es = Vec::new();
                self.ws();
                if self.s.get(self.i) != Some(&b']') {
                    loop {
                        es.push(self.ty()?);
                        self.ws();
                        if self.s.get(self.i) == Some(&b',') {
                            self.i += 1;
                            continue;
                        }
                        break;
                    }
                }
                self.eat(b']')?;
                self.eat(b')')?;
                Type::tuple(es)
            }
            "object" => {
                self.eat(b'(')?;
                self.eat(b'{')?;
                let mut attrs = BTreeMap::new();
                self.ws();
                if self.s.get(self.i) != Some(&b'}') {
                    loop {
                        let name = self.word();
                        self.eat(b':')?;
                        let t = self.ty()?;
                        attrs.insert(Arc::from(name.as_str()), t);
                        self.ws();
                        if self.s.get(self.i) == Some(&b',') {
                            self.i += 1;
                            continue;
                        }
                        break;
                    }
                }
                self.eat(b'}')?;
                self.eat(b')')?;
                Type::object(attrs)
            }
            other => return Err(format!("unknown type {other:?}")),
        };
        self.depth -= 1;
        Ok(t)
    }
}

/// A small exact JSON parser (numbers kept as text).
pub fn parse_json(s: &str) -> Result<Json, String> {
    let mut p = JsonParser {
        s: s.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing data at offset {}", p.i));
    }
    Ok(v)
}

struct JsonParser<'a> {
    s: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at offset {}", self.i))
    }
    fn lit(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.s[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Ok(v)
        } else {
            self.err("invalid literal")
        }
    }
    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > 1000 {
            return self.err("nesting too deep");
        }
        self.ws();
        match self.s.get(self.i) {
            None => self.err("unexpected end of input"),
            Some(b'n') => self.lit("null", Json::Null),
            Some(b't') => self.lit("true", Json::Bool(true)),
            Some(b'f') => self.lit("false", Json::Bool(false)),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return self.err("expected , or ]"),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Object(items));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return self.err("expected string key");
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.i) != Some(&b':') {
                        return self.err("expected :");
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    items.retain(|(ek, _): &(String, Json)| *ek != k);
                    items.push((k, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Object(items));
                        }
                        _ => return self.err("expected , or }"),
                    }
                }
            }
            Some(c) if *c == b'-' || c.is_ascii_digit() => {
                let st = self.i;
                if self.s[self.i] == b'-' {
                    self.i += 1;
                }
                let digits = |p: &mut Self| {
                    let s = p.i;
                    while p.i < p.s.len() && p.s[p.i].is_ascii_digit() {
                        p.i += 1;
                    }
                    p.i > s
                };
                if !digits(self) {
                    return self.err("invalid number");
                }
                if self.s.get(self.i) == Some(&b'.') {
                    self.i += 1;
                    if !digits(self) {
                        return self.err("invalid number");
                    }
                }
                if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
                    self.i += 1;
                    if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                        self.i += 1;
                    }
                    if !digits(self) {
                        return self.err("invalid number");
                    }
                }
                Ok(Json::Number(
                    String::from_utf8_lossy(&self.s[st..self.i]).into_owned(),
                ))
            }
            Some(_) => self.err("unexpected character"),
        }
    }
    fn hex4(&mut self) -> Result<u32, String> {
        let Some(h) = self.s.get(self.i..self.i + 4) else {
            return self.err("bad escape");
        };
        let h = std::str::from_utf8(h).map_err(|_| "bad escape".to_owned())?;
        let v = u32::from_str_radix(h, 16).map_err(|_| "bad escape".to_owned())?;
        self.i += 4;
        Ok(v)
    }
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return self.err("unterminated string");
                    };
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let cp = if (0xD800..0xDC00).contains(&hi)
                                && self.s.get(self.i..self.i + 2) == Some(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xDC00..0xE000).contains(&lo) {
                                    0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                                } else {
                                    0xFFFD
                                }
                            } else {
                                hi
                            };
                            char::from_u32(cp).unwrap_or('\u{FFFD}')
                        }
                        _ => return self.err("bad escape"),
                    };
                    let mut b = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| "invalid UTF-8 in string".to_owned())
    }
}
