//! The `fn-hcl eval --jsonl` protocol, shared with `hcl-oracle`:
//! one JSON object per input line, `{"id", "expr", "vars"}`, answered by
//! `{"id", "type", "value"}`, `{"id", "type", "unknown": true}` or
//! `{"id", "error", "phase": "parse"|"eval"}`.
//!
//! Lines are read by `fnhcl_value::json::from_json_text`; variables are
//! converted as cty's implied JSON types do (objects become objects, arrays
//! tuples, numbers exact). Two test conventions: the exact
//! object `{"$unknown": "<type>"}` is an unknown value of that type, and
//! `{"$sensitive": <json>}` is the value carrying the sensitive mark.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use fnhcl_base::SourceMap;
use fnhcl_value::json::from_json_text;
use fnhcl_value::{Type, Value};

use crate::{EvalContext, Limits};

/// Answers one protocol line.
pub fn process_line(line: &str) -> String {
    let parsed = match from_json_text(line) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return error_line(None, "bad input line: not a JSON object", None),
        Err(e) => return error_line(None, &format!("bad input line: {e}"), None),
    };
    let id = match parsed.get("id") {
        Some(Value::String(s)) => Some(s.to_string()),
        _ => None,
    };
    let expr = match parsed.get("expr") {
        Some(Value::String(s)) => s.to_string(),
        _ => return error_line(id.as_deref(), "bad input line: missing \"expr\"", None),
    };
    let vars = match parsed.get("vars") {
        None | Some(Value::Null(_)) => BTreeMap::new(),
        // Nothing for `var_value` to change: the values as read.
        Some(Value::Object(m)) if vars_as_read(line) => {
            m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
        }
        Some(Value::Object(m)) => match vars_of(m) {
            Ok(vars) => vars,
            Err(e) => return error_line(id.as_deref(), &format!("bad vars: {e}"), None),
        },
        Some(_) => return error_line(id.as_deref(), "bad vars: not an object", None),
    };
    evaluate_line(id.as_deref(), &expr, &vars)
}

/// Whether the values read from `line` are their own variable values
/// ([`var_value`] would return each unchanged), known from the text alone
/// in a few fast passes instead of a walk over every value (tens of KB per
/// line): an ASCII text without `\u` escapes reads as ASCII strings only
/// (NFC changes none), and without those escapes an object key
/// `$unknown` or `$sensitive` can only be written as itself. (Nesting is
/// not a concern: the reader stops at `MAX_JSON_DEPTH`, below
/// [`var_value`]'s limit.)
fn vars_as_read(line: &str) -> bool {
    const _: () = assert!(fnhcl_value::json::MAX_JSON_DEPTH < MAX_VAR_DEPTH);
    line.is_ascii()
        && !line.contains("\\u")
        && !line.contains("\"$unknown\"")
        && !line.contains("\"$sensitive\"")
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
    out.push_str("\"type\":");
    fnhcl_value::json::write_json_string_plain(&mut out, &v.type_of().to_string());
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

/// The variables of a JSON object text (`{"name": value, ...}`), each
/// converted by [`var_value`].
pub fn parse_vars(text: &str) -> Result<BTreeMap<String, Value>, String> {
    match from_json_text(text)? {
        Value::Object(m) => vars_of(&m),
        _ => Err("not an object".into()),
    }
}

fn vars_of(m: &fnhcl_value::ObjMap) -> Result<BTreeMap<String, Value>, String> {
    m.iter()
        .map(|(k, v)| Ok((k.to_string(), var_value(v, 0)?)))
        .collect()
}

/// A value read by [`from_json_text`] (cty's implied types, exact
/// numbers) made a variable: strings NFC-normalized, plus the `$unknown`
/// and `$sensitive` test conventions.
pub fn var_value(v: &Value, depth: usize) -> Result<Value, String> {
    Ok(converted(v, depth)?.unwrap_or_else(|| v.clone()))
}

/// [`var_value`], or `None` when `v` is its own variable value already (no
/// string to normalize, no test convention inside): the caller keeps `v`,
/// sharing its strings and collections instead of copying every one of
/// them (variables of tens of KB per line, mostly ASCII).
fn converted(v: &Value, depth: usize) -> Result<Option<Value>, String> {
    if depth > MAX_VAR_DEPTH {
        return Err("value too deeply nested".into());
    }
    Ok(match v {
        Value::String(s) => match fnhcl_value::nfc(s) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(normalized) => Some(Value::string(normalized)),
        },
        Value::Tuple(items) => {
            let mut out: Option<Vec<Value>> = None;
            for (i, x) in items.iter().enumerate() {
                match (converted(x, depth + 1)?, &mut out) {
                    (Some(c), Some(out)) => out.push(c),
                    (Some(c), None) => {
                        let mut o = Vec::with_capacity(items.len());
                        o.extend_from_slice(&items[..i]);
                        o.push(c);
                        out = Some(o);
                    }
                    (None, Some(out)) => out.push(x.clone()),
                    (None, None) => {}
                }
            }
            out.map(Value::tuple)
        }
        Value::Object(m) => {
            if m.len() == 1
                && let Some(Value::String(t)) = m.get("$unknown")
            {
                return Ok(Some(Value::Unknown(parse_type(t)?)));
            }
            if m.len() == 1
                && let Some(inner) = m.get("$sensitive")
            {
                return Ok(Some(var_value(inner, depth + 1)?.mark()));
            }
            // In key order: each entry is a push.
            let mut out: Option<Vec<(fnhcl_value::Key, Value)>> = None;
            for (i, (k, x)) in m.iter().enumerate() {
                match (converted(x, depth + 1)?, &mut out) {
                    (Some(c), Some(out)) => {
                        out.push((k.clone(), c));
                    }
                    (Some(c), None) => {
                        let mut o = Vec::with_capacity(m.len());
                        for (k, x) in m.iter().take(i) {
                            o.push((k.clone(), x.clone()));
                        }
                        o.push((k.clone(), c));
                        out = Some(o);
                    }
                    (None, Some(out)) => {
                        out.push((k.clone(), x.clone()));
                    }
                    (None, None) => {}
                }
            }
            out.map(|o| Value::object(fnhcl_value::ObjMap::from_sorted(o)))
        }
        _ => None,
    })
}

/// How deep [`var_value`] goes.
const MAX_VAR_DEPTH: usize = 1000;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn var(json: &str) -> Value {
        var_value(&from_json_text(json).expect("json"), 0).expect("var")
    }

    /// The fast path of [`process_line`] answers as [`var_value`] would:
    /// lines that need a change take the walk, whatever the spelling.
    #[test]
    fn lines_read_as_they_are_only_when_nothing_changes() {
        let cases = [
            (
                r#"{"id":"a","expr":"x","vars":{"x":{"$unknown":"string"}}}"#,
                false,
            ),
            (
                r#"{"id":"b","expr":"x","vars":{"x":{"\u0024unknown":"string"}}}"#,
                false,
            ),
            (
                r#"{"id":"c","expr":"x","vars":{"x":{"$sensitive":"v"}}}"#,
                false,
            ),
            (r#"{"id":"d","expr":"x","vars":{"x":"e\u0301"}}"#, false),
            (
                "{\"id\":\"e\",\"expr\":\"x\",\"vars\":{\"x\":\"e\u{301}\"}}",
                false,
            ),
            (
                r#"{"id":"f","expr":"\"${x}$\"","vars":{"x":{"a":["b",1,{"$c":"d"}]}}}"#,
                true,
            ),
        ];
        for (line, plain) in cases {
            assert_eq!(vars_as_read(line), plain, "{line}");
            let Ok(Value::Object(m)) = from_json_text(line) else {
                panic!("{line}");
            };
            let Some(Value::Object(vars)) = m.get("vars") else {
                panic!("{line}");
            };
            let expr = match m.get("expr") {
                Some(Value::String(s)) => s.to_string(),
                _ => panic!("{line}"),
            };
            let walked = evaluate_line(None, &expr, &vars_of(vars).expect("vars"));
            let answer = process_line(line);
            assert!(
                answer.ends_with(&walked[1..]),
                "{line}: {answer} vs {walked}"
            );
        }
        // What the walk changes shows in the answers.
        assert!(process_line(cases[1].0).contains(r#""unknown":true"#));
        assert!(process_line(cases[4].0).contains("\u{e9}"));
    }

    #[test]
    fn unchanged_variables_are_shared_not_copied() {
        let v = from_json_text(r#"{"a": ["x", 1, {"b": "y"}], "c": "z"}"#).expect("json");
        let out = var_value(&v, 0).expect("var");
        let (Value::Object(a), Value::Object(b)) = (&v, &out) else {
            panic!("objects");
        };
        assert!(a.ptr_eq(b));
    }

    #[test]
    fn conventions_and_normalization_deep_inside() {
        // After unchanged siblings: the copy keeps them, in order.
        let v = var(r#"{"a": [1, "x", {"$sensitive": "s"}, 2], "b": "e\u0301", "c": 3}"#);
        let Value::Object(m) = &v else {
            panic!("object")
        };
        let Some(Value::Tuple(items)) = m.get("a") else {
            panic!("tuple")
        };
        assert_eq!(items.len(), 4);
        assert!(matches!(&items[2], Value::Marked(_)));
        assert!(matches!(&items[3], Value::Number(_)));
        assert!(matches!(m.get("b"), Some(Value::String(s)) if &**s == "\u{e9}"));
        assert_eq!(m.len(), 3);
        let u = var(r#"{"z": 1, "u": {"$unknown": "list(string)"}}"#);
        let Value::Object(m) = &u else {
            panic!("object")
        };
        assert!(matches!(m.get("u"), Some(Value::Unknown(_))));
        assert!(matches!(m.get("z"), Some(Value::Number(_))));
    }
}
