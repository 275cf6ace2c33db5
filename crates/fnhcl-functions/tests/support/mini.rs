//! A tiny expression language for Value-level function tests: literals
//! (numbers, strings, bools, `null`, tuples `[..]`, objects `{a = ..}`),
//! calls of built-ins by name, and test-only helpers:
//!
//! - `_unknown("type")` / `_unknown()`: an unknown of a type (dynamic);
//! - `_null("type")`: a typed null;
//! - `_as("type", value)`: `value` converted to `type` (e.g. a list);
//! - `_mark(value)`: `value` with the sensitive mark (no function call);
//! - `_inf(-1)` / `_inf(1)`: negative / positive infinity.
//!
//! Values are rendered back in the same language, so expectations can be
//! blessed.

// Shared by several test binaries; each uses a different part.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use fnhcl_value::{Number, Type, Value};

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Num(String),
    Str(String),
    Punct(char),
    Arrow,
    Ellipsis,
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let cs: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '=' && cs.get(i + 1) == Some(&'>') {
            out.push(Tok::Arrow);
            i += 2;
        } else if c == '.' && cs.get(i + 1) == Some(&'.') && cs.get(i + 2) == Some(&'.') {
            out.push(Tok::Ellipsis);
            i += 3;
        } else if c.is_ascii_digit()
            || (c == '-' && cs.get(i + 1).is_some_and(char::is_ascii_digit))
        {
            let s = i;
            i += 1;
            while i < cs.len()
                && (cs[i].is_ascii_digit()
                    || cs[i] == '.'
                    || cs[i] == 'e'
                    || cs[i] == 'E'
                    || ((cs[i] == '-' || cs[i] == '+') && matches!(cs[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            out.push(Tok::Num(cs[s..i].iter().collect()));
        } else if c.is_alphabetic() || c == '_' {
            let s = i;
            while i < cs.len() && (cs[i].is_alphanumeric() || cs[i] == '_' || cs[i] == '-') {
                i += 1;
            }
            out.push(Tok::Ident(cs[s..i].iter().collect()));
        } else if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                let Some(&c) = cs.get(i) else {
                    return Err("unterminated string".into());
                };
                i += 1;
                match c {
                    '"' => break,
                    '\\' => {
                        let e = *cs.get(i).ok_or("bad escape")?;
                        i += 1;
                        match e {
                            'n' => s.push('\n'),
                            't' => s.push('\t'),
                            'r' => s.push('\r'),
                            '"' => s.push('"'),
                            '\\' => s.push('\\'),
                            'u' => {
                                let h: String = cs.get(i..i + 4).ok_or("bad \\u")?.iter().collect();
                                i += 4;
                                let n = u32::from_str_radix(&h, 16).map_err(|e| e.to_string())?;
                                s.push(char::from_u32(n).ok_or("bad \\u")?);
                            }
                            other => return Err(format!("bad escape \\{other}")),
                        }
                    }
                    c => s.push(c),
                }
            }
            out.push(Tok::Str(s));
        } else if "[]{}(),=:".contains(c) {
            out.push(Tok::Punct(c));
            i += 1;
        } else {
            return Err(format!("unexpected character {c:?}"));
        }
    }
    Ok(out)
}

/// What evaluating an expression gave.
pub(crate) type Eval = Result<Value, String>;

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }
    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected {c:?}, found {:?}", self.peek()))
        }
    }

    /// Parses and evaluates. Errors in function calls are returned as
    /// `Ok(Err(..))` so the harness can compare them.
    fn expr(&mut self) -> Result<Eval, String> {
        match self.next() {
            Some(Tok::Num(n)) => Ok(Ok(Value::Number(
                Number::parse(&n).ok_or_else(|| format!("bad number {n}"))?,
            ))),
            Some(Tok::Str(s)) => Ok(Ok(Value::string(s))),
            Some(Tok::Punct('[')) => {
                let mut items = Vec::new();
                while !self.eat(']') {
                    match self.expr()? {
                        Ok(v) => items.push(v),
                        Err(e) => return Ok(Err(e)),
                    }
                    if !self.eat(',') {
                        self.expect(']')?;
                        break;
                    }
                }
                Ok(Ok(Value::tuple(items)))
            }
            Some(Tok::Punct('{')) => {
                let mut attrs = fnhcl_value::ObjMap::new();
                while !self.eat('}') {
                    let k = match self.next() {
                        Some(Tok::Ident(k)) | Some(Tok::Str(k)) => k,
                        t => return Err(format!("bad object key {t:?}")),
                    };
                    if !self.eat('=') {
                        self.expect(':')?;
                    }
                    match self.expr()? {
                        Ok(v) => {
                            attrs.insert(Arc::from(k.as_str()), v);
                        }
                        Err(e) => return Ok(Err(e)),
                    }
                    if !self.eat(',') {
                        self.expect('}')?;
                        break;
                    }
                }
                Ok(Ok(Value::object(attrs)))
            }
            Some(Tok::Ident(id)) => match id.as_str() {
                "true" => Ok(Ok(Value::TRUE)),
                "false" => Ok(Ok(Value::FALSE)),
                "null" => Ok(Ok(Value::null())),
                _ => {
                    self.expect('(')?;
                    let mut args = Vec::new();
                    let mut expand = false;
                    let mut err = None;
                    while !self.eat(')') {
                        match self.expr()? {
                            Ok(v) => args.push(v),
                            Err(e) => {
                                err.get_or_insert(e);
                            }
                        }
                        if self.peek() == Some(&Tok::Ellipsis) {
                            self.pos += 1;
                            expand = true;
                        }
                        if !self.eat(',') {
                            self.expect(')')?;
                            break;
                        }
                    }
                    if let Some(e) = err {
                        return Ok(Err(e));
                    }
                    if expand && let Some(last) = args.pop() {
                        match last.as_seq() {
                            Some(items) => args.extend(items.iter().cloned()),
                            None => return Ok(Err("expanding argument must be a sequence".into())),
                        }
                    }
                    Ok(call(&id, &args))
                }
            },
            t => Err(format!("unexpected token {t:?}")),
        }
    }
}

fn call(name: &str, args: &[Value]) -> Eval {
    let ty_arg = |i: usize| -> Result<Type, String> {
        match args.get(i).and_then(Value::as_str) {
            Some(s) => parse_type(s),
            None => Ok(Type::Dynamic),
        }
    };
    match name {
        "_unknown" => Ok(Value::Unknown(ty_arg(0)?)),
        "_null" => Ok(Value::Null(ty_arg(0)?)),
        "_inf" => Ok(Value::Number(Number::infinity(
            args.first()
                .and_then(Value::as_number)
                .is_some_and(Number::is_negative),
        ))),
        "_mark" => Ok(args.first().cloned().ok_or("_mark needs a value")?.mark()),
        "_as" => {
            let t = ty_arg(0)?;
            let v = args.get(1).ok_or("_as needs a value")?;
            let empty = v.as_seq().is_some_and(<[Value]>::is_empty)
                || v.as_entries().is_some_and(fnhcl_value::ObjMap::is_empty);
            let e = t.element_type().cloned().unwrap_or(Type::Dynamic);
            if empty {
                // Empty collections: the element type cannot be inferred.
                return Ok(match t {
                    Type::List(_) => Value::list(e, Vec::new()),
                    Type::Map(_) => Value::map(e, fnhcl_value::ObjMap::new()),
                    Type::Set(_) => match Value::list(e, Vec::new()) {
                        Value::List(c) => Value::Set(c),
                        v => v,
                    },
                    _ => return Err(format!("_as: unsupported type {t}")),
                });
            }
            let conv = match &t {
                Type::List(_) => "tolist",
                Type::Set(_) => "toset",
                Type::Map(_) => "tomap",
                _ => return Err(format!("_as: unsupported type {t}")),
            };
            let out = fnhcl_functions::call(conv, std::slice::from_ref(v))
                .ok_or("no conversion function")?
                .map_err(|e| e.message)?;
            if out.type_of() != t {
                return Err(format!("_as: got {} instead of {t}", out.type_of()));
            }
            Ok(out)
        }
        _ => match fnhcl_functions::call(name, args) {
            None => Err(format!("no function {name:?}")),
            Some(r) => r.map_err(|e| match e.arg {
                Some(i) => format!("arg {i}: {}", e.message),
                None => e.message,
            }),
        },
    }
}

/// Parses a type in console form: `list(string)`, `tuple([number])`,
/// `object({a: number})`, `dynamic`.
pub(crate) fn parse_type(s: &str) -> Result<Type, String> {
    let toks = lex(s)?;
    let mut p = Parser { toks, pos: 0 };
    let t = type_expr(&mut p)?;
    if p.pos != p.toks.len() {
        return Err(format!("trailing input in type {s:?}"));
    }
    Ok(t)
}

fn type_expr(p: &mut Parser) -> Result<Type, String> {
    let Some(Tok::Ident(id)) = p.next() else {
        return Err("expected a type".into());
    };
    Ok(match id.as_str() {
        "dynamic" | "any" => Type::Dynamic,
        "bool" => Type::Bool,
        "number" => Type::Number,
        "string" => Type::String,
        "list" | "set" | "map" => {
            p.expect('(')?;
            let e = type_expr(p)?;
            p.expect(')')?;
            match id.as_str() {
                "list" => Type::list(e),
                "set" => Type::set(e),
                _ => Type::map(e),
            }
        }
        "tuple" => {
            p.expect('(')?;
            p.expect('[')?;
            let mut es = Vec::new();
            while !p.eat(']') {
                es.push(type_expr(p)?);
                if !p.eat(',') {
                    p.expect(']')?;
                    break;
                }
            }
            p.expect(')')?;
            Type::tuple(es)
        }
        "object" => {
            p.expect('(')?;
            p.expect('{')?;
            let mut attrs = BTreeMap::new();
            while !p.eat('}') {
                // Console form prints attribute names unquoted, so a name
                // may lex as a number.
                let k = match p.next() {
                    Some(Tok::Ident(k)) | Some(Tok::Str(k)) | Some(Tok::Num(k)) => k,
                    t => return Err(format!("bad attribute {t:?}")),
                };
                p.expect(':')?;
                attrs.insert(Arc::from(k.as_str()), type_expr(p)?);
                if !p.eat(',') {
                    p.expect('}')?;
                    break;
                }
            }
            p.expect(')')?;
            Type::object(attrs)
        }
        other => return Err(format!("unknown type {other}")),
    })
}

/// One test line: `expr => expected`.
pub(crate) struct Case {
    pub(crate) got: Eval,
    pub(crate) want: Option<Expect>,
}

pub(crate) enum Expect {
    Value(Value),
    Error(String),
}

/// Parses and evaluates one line.
pub(crate) fn run_line(line: &str) -> Result<Case, String> {
    let (expr_src, want_src) = split_arrow(line)?;
    let mut p = Parser {
        toks: lex(expr_src)?,
        pos: 0,
    };
    let got = p.expr()?;
    if p.pos != p.toks.len() {
        return Err("trailing input after expression".into());
    }
    let want = match want_src.map(str::trim) {
        None | Some("") => None,
        Some(w) => Some(if let Some(e) = w.strip_prefix("error:") {
            Expect::Error(e.trim().to_owned())
        } else {
            let mut p = Parser {
                toks: lex(w)?,
                pos: 0,
            };
            let v = p
                .expr()?
                .map_err(|e| format!("expectation failed to evaluate: {e}"))?;
            Expect::Value(v)
        }),
    };
    Ok(Case { got, want })
}

/// Splits at the first `=>` outside a string.
pub(crate) fn split_arrow(line: &str) -> Result<(&str, Option<&str>), String> {
    let b = line.as_bytes();
    let mut in_str = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' if in_str => i += 1,
            b'"' => in_str = !in_str,
            b'=' if !in_str && b.get(i + 1) == Some(&b'>') => {
                return Ok((&line[..i], Some(&line[i + 2..])));
            }
            _ => {}
        }
        i += 1;
    }
    Ok((line, None))
}

/// Renders a value in the mini language (exact: evaluating the rendering
/// gives the same value and type).
pub(crate) fn render(v: &Value) -> String {
    match v {
        Value::Null(Type::Dynamic) => "null".into(),
        Value::Null(t) => format!("_null(\"{t}\")"),
        Value::Unknown(Type::Dynamic) => "_unknown()".into(),
        Value::Unknown(t) => format!("_unknown(\"{t}\")"),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if n.is_infinite() => {
            format!("_inf({})", if n.is_negative() { -1 } else { 1 })
        }
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Tuple(items) => format!(
            "[{}]",
            items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(attrs) => render_obj(attrs.iter()),
        Value::List(c) | Value::Set(c) => format!(
            "_as(\"{}\", [{}])",
            v.type_of(),
            c.items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        Value::Map(m) => format!("_as(\"{}\", {})", v.type_of(), render_obj(m.items.iter())),
        Value::Marked(inner) => format!("_mark({})", render(inner)),
    }
}

fn render_obj<'a>(it: impl Iterator<Item = (&'a Arc<str>, &'a Value)>) -> String {
    let parts: Vec<String> = it
        .map(|(k, v)| format!("{} = {}", quote(k), render(v)))
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One JSON line `{"expr", "type", "value"|"unknown"|"error"}` in the
/// oracle's output form (for differential checks; `FNHCL_DUMP=path`).
pub(crate) fn dump_json(expr: &str, got: &Eval) -> String {
    let e = quote(expr);
    match got {
        Err(err) => format!("{{\"expr\":{e},\"error\":{}}}", quote(err)),
        Ok(v) => {
            let (v, marked) = v.unmark_deep();
            let t = quote(&v.type_of().to_string());
            if !v.is_wholly_known() {
                return format!(
                    "{{\"expr\":{e},\"type\":{t},\"unknown\":true,\"marked\":{marked}}}"
                );
            }
            format!(
                "{{\"expr\":{e},\"type\":{t},\"value\":{},\"marked\":{marked}}}",
                json(&v)
            )
        }
    }
}

fn json(v: &Value) -> String {
    match v {
        Value::Null(_) | Value::Unknown(_) => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => quote(s),
        Value::Tuple(items) => {
            format!("[{}]", items.iter().map(json).collect::<Vec<_>>().join(","))
        }
        Value::List(c) | Value::Set(c) => {
            format!(
                "[{}]",
                c.items.iter().map(json).collect::<Vec<_>>().join(",")
            )
        }
        Value::Object(a) => format!(
            "{{{}}}",
            a.iter()
                .map(|(k, v)| format!("{}:{}", quote(k), json(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Value::Map(m) => format!(
            "{{{}}}",
            m.items
                .iter()
                .map(|(k, v)| format!("{}:{}", quote(k), json(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Value::Marked(inner) => json(inner),
    }
}
