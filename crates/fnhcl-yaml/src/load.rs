//! Reading YAML streams into JSON values, the way Kubernetes tooling does
//! (`sigs.k8s.io/yaml`: go-yaml v2 resolution, then JSON; docs/notes/yaml.md).
//!
//! Plain scalars resolve with YAML 1.1 rules (`yes`/`on` are booleans,
//! `0755` is octal), quoted scalars are always strings, timestamps stay
//! strings, and mapping keys become strings. The builder is iterative, so
//! deeply nested input cannot overflow the stack; nesting depth and alias
//! expansion are bounded.

use std::collections::HashMap;

use serde_json::{Map, Number, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Deepest nesting of mappings and sequences accepted.
pub const MAX_DEPTH: usize = 256;
/// Most values (nodes) one stream may expand to, aliases included.
pub const MAX_NODES: usize = 2_000_000;

/// A YAML stream that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for YamlError {}

/// Parses every document of a stream. Documents that are empty (or `null`)
/// are dropped, as Kubernetes stream readers do.
pub fn load_stream(text: &str) -> Result<Vec<Value>, YamlError> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    // Event by event: the parser's own `load` recurses once per nesting
    // level, which a deep enough document turns into a stack overflow.
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| YamlError {
            message: e.info().to_owned(),
            line: Some(e.marker().line()),
        })?;
        if ev == Event::StreamEnd {
            break;
        }
        builder.on_event(ev, mark);
        if let Some(err) = builder.error.take() {
            return Err(err);
        }
    }
    Ok(builder.docs.into_iter().filter(|d| !d.is_null()).collect())
}

/// Parses the first non-empty document of a stream (`None` if there is none).
pub fn load_first(text: &str) -> Result<Option<Value>, YamlError> {
    Ok(load_stream(text)?.into_iter().next())
}

enum Frame {
    Seq {
        items: Vec<Value>,
        anchor: usize,
    },
    Map {
        map: Map<String, Value>,
        /// Keys that came from a merge (`<<`) and may be overridden.
        merged: Vec<String>,
        /// The pending key, and whether it was a plain scalar.
        key: Option<(String, bool)>,
        anchor: usize,
    },
}

#[derive(Default)]
struct Builder {
    docs: Vec<Value>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Value, usize)>,
    nodes: usize,
    error: Option<YamlError>,
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        if self.error.is_some() {
            return;
        }
        if let Err(message) = self.event(ev) {
            self.error = Some(YamlError {
                message,
                line: Some(mark.line()),
            });
        }
    }
}

fn node_count(v: &Value) -> usize {
    // Iterative, so huge values cannot overflow the stack.
    let mut n = 0usize;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        n += 1;
        match v {
            Value::Array(a) => todo.extend(a.iter()),
            Value::Object(m) => todo.extend(m.values()),
            _ => {}
        }
    }
    n
}

impl Builder {
    fn event(&mut self, ev: Event) -> Result<(), String> {
        match ev {
            Event::Nothing
            | Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart
            | Event::DocumentEnd => Ok(()),
            Event::Alias(id) => {
                let Some((v, size)) = self.anchors.get(&id) else {
                    return Err("unknown anchor".to_owned());
                };
                self.nodes = self.nodes.saturating_add(*size);
                if self.nodes > MAX_NODES {
                    return Err(format!("document expands to more than {MAX_NODES} values"));
                }
                let v = v.clone();
                self.push_value(v, 0, true)
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count()?;
                if let Some(Frame::Map { key: None, .. }) = self.stack.last() {
                    // A mapping key: always a string.
                    let plain = matches!(style, TScalarStyle::Plain);
                    let is_str_tag = tag.as_ref().is_some_and(|t| {
                        (t.handle == "!!" || t.handle == "tag:yaml.org,2002:") && t.suffix == "str"
                    });
                    let key_text = if plain && !is_str_tag && text != "<<" {
                        plain_key(text)
                    } else {
                        text
                    };
                    if anchor != 0 {
                        self.anchors
                            .insert(anchor, (Value::String(key_text.clone()), 1));
                    }
                    if let Some(Frame::Map { key, .. }) = self.stack.last_mut() {
                        *key = Some((key_text, plain));
                    }
                    return Ok(());
                }
                let v = resolve_scalar(text, style, tag.as_ref())?;
                self.push_value(v, anchor, false)
            }
            Event::SequenceStart(anchor, _) => {
                self.open()?;
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    anchor,
                });
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.open()?;
                self.stack.push(Frame::Map {
                    map: Map::new(),
                    merged: Vec::new(),
                    key: None,
                    anchor,
                });
                Ok(())
            }
            Event::SequenceEnd => match self.stack.pop() {
                Some(Frame::Seq { items, anchor }) => {
                    self.push_value(Value::Array(items), anchor, false)
                }
                _ => Err("unbalanced sequence".to_owned()),
            },
            Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Map { map, anchor, .. }) => {
                    self.push_value(Value::Object(map), anchor, false)
                }
                _ => Err("unbalanced mapping".to_owned()),
            },
        }
    }

    fn count(&mut self) -> Result<(), String> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!("document expands to more than {MAX_NODES} values"));
        }
        Ok(())
    }

    fn open(&mut self) -> Result<(), String> {
        self.count()?;
        if let Some(Frame::Map { key: None, .. }) = self.stack.last() {
            return Err("mappings and sequences cannot be used as mapping keys".to_owned());
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn push_value(&mut self, v: Value, anchor: usize, alias: bool) -> Result<(), String> {
        if anchor != 0 {
            let size = node_count(&v);
            self.anchors.insert(anchor, (v.clone(), size));
        }
        match self.stack.last_mut() {
            None => self.docs.push(v),
            Some(Frame::Seq { items, .. }) => items.push(v),
            Some(Frame::Map {
                map, key, merged, ..
            }) => match key.take() {
                None => {
                    // An alias used as a key.
                    if !alias {
                        return Err("invalid mapping key".to_owned());
                    }
                    match v {
                        Value::String(s) => *key = Some((s, false)),
                        Value::Number(n) => *key = Some((n.to_string(), false)),
                        Value::Bool(b) => *key = Some((b.to_string(), false)),
                        Value::Null => *key = Some(("null".to_owned(), false)),
                        _ => return Err("invalid mapping key".to_owned()),
                    }
                }
                Some((k, true)) if k == "<<" => merge_into(map, merged, v)?,
                Some((k, _)) => {
                    merged.retain(|m| m != &k);
                    map.insert(k, v);
                }
            },
        }
        Ok(())
    }
}

/// YAML merge key: entries of the merged mapping(s) that the mapping does not
/// set itself.
fn merge_into(
    map: &mut Map<String, Value>,
    merged: &mut Vec<String>,
    v: Value,
) -> Result<(), String> {
    let sources = match v {
        Value::Object(m) => vec![m],
        Value::Array(items) => {
            let mut out = Vec::new();
            for it in items {
                match it {
                    Value::Object(m) => out.push(m),
                    _ => {
                        return Err(
                            "merge key value must be a mapping or a list of mappings".to_owned()
                        );
                    }
                }
            }
            out
        }
        _ => return Err("merge key value must be a mapping or a list of mappings".to_owned()),
    };
    for src in sources {
        for (k, val) in src {
            if !map.contains_key(&k) {
                merged.push(k.clone());
                map.insert(k, val);
            }
        }
    }
    Ok(())
}

fn resolve_scalar(text: String, style: TScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if let Some(tag) = tag
        && (tag.handle == "tag:yaml.org,2002:" || tag.handle == "!!")
    {
        return match tag.suffix.as_str() {
            "str" | "binary" | "timestamp" => Ok(Value::String(text)),
            "null" => Ok(Value::Null),
            "bool" => match plain_bool(&text) {
                Some(b) => Ok(Value::Bool(b)),
                None => Err(format!("cannot decode {text:?} as a !!bool")),
            },
            "int" => match plain_int(&text) {
                Some(v) => Ok(v),
                None => Err(format!("cannot decode {text:?} as an !!int")),
            },
            "float" => match plain_int(&text).or_else(|| plain_float(&text)) {
                Some(v) => Ok(v),
                None => Err(format!("cannot decode {text:?} as a !!float")),
            },
            _ => Ok(resolve_plain(text)?),
        };
    }
    // Local tags (`!foo`) carry no type information for JSON.
    match style {
        TScalarStyle::Plain => resolve_plain(text),
        _ => Ok(Value::String(text)),
    }
}

fn resolve_plain(text: String) -> Result<Value, String> {
    if is_null(&text) {
        return Ok(Value::Null);
    }
    if let Some(b) = plain_bool(&text) {
        return Ok(Value::Bool(b));
    }
    if let Some(v) = plain_int(&text) {
        return Ok(v);
    }
    if let Some(v) = plain_float(&text) {
        return Ok(v);
    }
    if is_special_float(&text) {
        return Err(format!(
            "unsupported value {text}: JSON has no infinity or NaN"
        ));
    }
    Ok(Value::String(text))
}

pub(crate) fn is_null(s: &str) -> bool {
    matches!(s, "" | "~" | "null" | "Null" | "NULL")
}

/// YAML 1.1 booleans as go-yaml v2 reads them.
pub(crate) fn plain_bool(s: &str) -> Option<bool> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Some(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Some(false)
        }
        _ => None,
    }
}

/// go-yaml v2 only tries numbers for plain scalars starting with a digit,
/// a sign or a dot, after removing every `_`.
fn numeric_candidate(s: &str) -> Option<String> {
    let first = s.chars().next()?;
    if !(first.is_ascii_digit() || matches!(first, '+' | '-' | '.')) {
        return None;
    }
    Some(s.chars().filter(|c| *c != '_').collect())
}

/// Go's `strconv.ParseUint(s, 0, 64)` magnitude: base prefixes `0x`, `0o`,
/// `0b`, or a leading `0` for octal.
fn go_parse_magnitude(s: &str) -> Option<u64> {
    let lower = s.to_ascii_lowercase();
    let (radix, digits) = if let Some(r) = lower.strip_prefix("0x") {
        (16, r)
    } else if let Some(r) = lower.strip_prefix("0o") {
        (8, r)
    } else if let Some(r) = lower.strip_prefix("0b") {
        (2, r)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Integers as go-yaml v2 resolves them (`strconv.ParseInt`, then
/// `ParseUint`, base from the prefix).
pub(crate) fn plain_int(s: &str) -> Option<Value> {
    let plain = numeric_candidate(s)?;
    let (neg, body) = match plain.as_bytes().first()? {
        b'-' => (true, &plain[1..]),
        b'+' => (false, &plain[1..]),
        _ => (false, plain.as_str()),
    };
    let mag = go_parse_magnitude(body)?;
    if neg {
        if mag <= i64::MAX as u64 + 1 {
            let v = (i128::from(mag)).wrapping_neg() as i64;
            return Some(Value::Number(Number::from(v)));
        }
        return None;
    }
    if plain.starts_with('+') && mag > i64::MAX as u64 {
        // ParseUint takes no sign.
        return None;
    }
    Some(Value::Number(Number::from(mag)))
}

/// Floats as go-yaml v2 resolves them:
/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`, finite.
pub(crate) fn plain_float(s: &str) -> Option<Value> {
    let plain = numeric_candidate(s)?;
    let body = plain.strip_prefix(['-', '+']).unwrap_or(&plain);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let all_digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    let mantissa_ok = match mantissa.find('.') {
        Some(0) => mantissa.len() > 1 && all_digits(&mantissa[1..]),
        Some(i) => all_digits(&mantissa[..i]) && all_digits(&mantissa[i + 1..]),
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    if !mantissa_ok {
        return None;
    }
    if let Some(e) = exponent {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        if e.is_empty() || !all_digits(e) {
            return None;
        }
    }
    let f: f64 = plain.parse().ok()?;
    if !f.is_finite() {
        return None;
    }
    Number::from_f64(f).map(Value::Number)
}

/// A plain mapping key as `sigs.k8s.io/yaml` turns it into a JSON key: it
/// is resolved first, so `yes:` becomes `"true"`, `0x10:` becomes `"16"`
/// and `1.0:` becomes `"1"` (floats printed as Go prints float32).
fn plain_key(text: String) -> String {
    match resolve_plain(text.clone()) {
        Ok(Value::Null) => "null".to_owned(),
        Ok(Value::Bool(b)) => b.to_string(),
        Ok(Value::Number(n)) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => go_format_g32(f as f32),
            _ => text,
        },
        Ok(_) => text,
        Err(_) => match text.as_str() {
            ".nan" | ".NaN" | ".NAN" => ".nan".to_owned(),
            t if t.starts_with('-') => "-.inf".to_owned(),
            _ => ".inf".to_owned(),
        },
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`.
fn go_format_g32(f: f32) -> String {
    go_format_g_finite(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, bits)` for a finite `f32` or
/// `f64` (the type gives `bits`): the shortest digits that read back as
/// `f`, in exponent form (`1e+06`, `1e-05`) when the decimal exponent is
/// below -4 or at least 6.
pub(crate) fn go_format_g_finite<F: std::fmt::LowerExp + std::fmt::Display>(f: F) -> String {
    let e = format!("{f:e}");
    let Some((mantissa, exp)) = e.split_once('e') else {
        return e;
    };
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        return format!("{f}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

pub(crate) fn is_special_float(s: &str) -> bool {
    matches!(
        s,
        ".inf"
            | ".Inf"
            | ".INF"
            | "+.inf"
            | "+.Inf"
            | "+.INF"
            | "-.inf"
            | "-.Inf"
            | "-.INF"
            | ".nan"
            | ".NaN"
            | ".NAN"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(s: &str) -> Value {
        load_first(s).unwrap().unwrap()
    }

    #[test]
    fn scalars_resolve_like_go_yaml_v2() {
        let v = one(
            "a: yes\nb: 'yes'\nc: 0755\nd: 12\ne: 1.5\nf: ~\ng: 2024-01-01T00:00:00Z\nh: -7\ni: 0x1F\nj: 1e3\nk: \"12\"\nl: 99999999999999999999\n",
        );
        assert_eq!(
            v,
            json!({"a": true, "b": "yes", "c": 493, "d": 12, "e": 1.5, "f": null,
                   "g": "2024-01-01T00:00:00Z", "h": -7, "i": 31, "j": 1000.0, "k": "12",
                   "l": 1e20})
        );
    }

    /// The scalars where YAML 1.1 (go-yaml v2, what we keep) and the YAML
    /// 1.2 core schema disagree, as docs/notes/yaml.md lists them.
    #[test]
    fn yaml_1_1_scalars() {
        let v = one(
            "yes: yes\nno: no\na: on\nb: off\nc: y\nd: N\nhex: 0x1F\noct: 0o17\nold_oct: 017\n\
             under: 1_000\nnull: ~\nts: 2001-12-14t21:59:43.10-05:00\ndate: 2002-12-14\n\
             sexa: 190:20:30\nbin: 0b101\nfloat: 1_0.5\n",
        );
        assert_eq!(
            v,
            json!({"true": true, "false": false, "a": true, "b": false, "c": true, "d": false,
                   "hex": 31, "oct": 15, "old_oct": 15, "under": 1000, "null": null,
                   "ts": "2001-12-14t21:59:43.10-05:00", "date": "2002-12-14",
                   "sexa": "190:20:30", "bin": 5, "float": 10.5})
        );
        // JSON has no infinity or NaN.
        for s in ["a: .inf\n", "a: -.Inf\n", "a: .nan\n"] {
            assert!(load_stream(s).is_err(), "{s}");
        }
    }

    #[test]
    fn keys_are_strings_and_empty_docs_dropped() {
        let docs =
            load_stream("---\n---\n1: a\ntrue: b\n---\n# only a comment\n---\nx: 1\n").unwrap();
        assert_eq!(docs, vec![json!({"1": "a", "true": "b"}), json!({"x": 1})]);
    }

    #[test]
    fn anchors_aliases_and_merge() {
        let v = one("base: &b {a: 1, b: 2}\nc:\n  <<: *b\n  b: 3\nl: [*b]\n'<<': x\n");
        assert_eq!(
            v,
            json!({"base": {"a": 1, "b": 2}, "c": {"a": 1, "b": 3}, "l": [{"a": 1, "b": 2}], "<<": "x"})
        );
    }

    #[test]
    fn block_scalars() {
        let v = one("a: |\n  line1\n  line2\nb: >-\n  folded\n  text\n");
        assert_eq!(v, json!({"a": "line1\nline2\n", "b": "folded text"}));
    }

    #[test]
    fn errors_have_lines() {
        let e = load_stream("a: [1, 2\n").unwrap_err();
        assert!(e.line.is_some());
        assert!(load_stream("a: .inf\n").is_err());
    }

    #[test]
    fn depth_is_bounded() {
        let deep = "[".repeat(MAX_DEPTH + 5) + &"]".repeat(MAX_DEPTH + 5);
        let e = load_stream(&deep).unwrap_err();
        assert!(
            e.message.contains("nesting") || e.message.contains("recursion"),
            "{e}"
        );
    }

    #[test]
    fn alias_bombs_are_bounded() {
        let mut s = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            s.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n",
                p = i - 1
            ));
        }
        assert!(load_stream(&s).is_err());
    }
}

#[cfg(test)]
mod robustness {
    use super::load_stream;

    /// Random YAML-ish text (fixed seed): the loader returns, never panics.
    #[test]
    fn random_input_never_panics() {
        const ALPHABET: &[&str] = &[
            "a",
            "b",
            ":",
            " ",
            "\n",
            "-",
            "[",
            "]",
            "{",
            "}",
            ",",
            "'",
            "\"",
            "&x",
            "*x",
            "!!str",
            "<<",
            "#",
            "|",
            ">",
            "?",
            "\t",
            "0x",
            "1",
            ".5",
            "~",
            "---\n",
            "...\n",
            "\\",
            "é",
            "%YAML 1.2\n",
            "!",
            "@",
            "`",
            "  ",
            "\n  ",
            "- ",
            ": ",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            let mut s = String::new();
            for _ in 0..len {
                s.push_str(ALPHABET[(next() % ALPHABET.len() as u64) as usize]);
            }
            let _ = load_stream(&s);
        }
    }
}
