//! Writing JSON values as YAML the way `sigs.k8s.io/yaml` (go-yaml v2) does:
//! 2-space indentation, sequence items at their key's indentation, map keys
//! in go-yaml's "natural" order, integral numbers as integers, and strings
//! quoted whenever a reader could take them for something else.
//!
//! Deterministic: the same value always gives the same bytes. Long strings
//! are not folded (go-yaml folds near column 80); the result reads back the
//! same either way.
//!
//! Size: about 520 lines of code; the rest are its unit tests.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use crate::load::{is_null, is_special_float, plain_bool, plain_float, plain_int};

/// Deepest nesting written; deeper values are an error.
pub const MAX_EMIT_DEPTH: usize = 512;

/// A value too deep to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmitError(pub String);

impl std::fmt::Display for EmitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EmitError {}

/// A stream: each document preceded by a `---` line.
pub fn to_yaml_stream(docs: &[Value]) -> Result<String, EmitError> {
    let mut out = String::new();
    for d in docs {
        out.push_str("---\n");
        out.push_str(&to_yaml(d)?);
    }
    Ok(out)
}

/// One document, without a leading `---`; ends with a newline.
pub fn to_yaml(v: &Value) -> Result<String, EmitError> {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0, 0)?,
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0, 0)?,
        _ => {
            out.push_str(&scalar(v, 2, 0));
            out.push('\n');
        }
    }
    Ok(out)
}

fn check_depth(depth: usize) -> Result<(), EmitError> {
    if depth > MAX_EMIT_DEPTH {
        return Err(EmitError(format!(
            "value nested deeper than {MAX_EMIT_DEPTH} levels cannot be written as YAML"
        )));
    }
    Ok(())
}

fn pad(out: &mut String, indent: usize) {
    for _ in 0..indent {
        out.push(' ');
    }
}

/// go-yaml v2's key order: digit runs compare numerically, and at the
/// first difference a non-letter sorts before a letter.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    let n = ar.len().min(br.len());
    for i in 0..n {
        if ar[i] == br[i] {
            continue;
        }
        let al = ar[i].is_alphabetic();
        let bl = br[i].is_alphabetic();
        if al && bl {
            return ar[i].cmp(&br[i]);
        }
        if al || bl {
            // The non-letter comes first.
            return if bl {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        }
        // Both non-letters: compare the digit runs starting here.
        let mut an: u128 = 0;
        let mut bn: u128 = 0;
        if ar[i] == '0' || br[i] == '0' {
            let mut j = i;
            while j > 0 {
                j -= 1;
                if !ar[j].is_ascii_digit() {
                    break;
                }
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let (an, ai) = digit_run(&ar, i, an);
        let (bn, bi) = digit_run(&br, i, bn);
        if an != bn {
            return an.cmp(&bn);
        }
        if ai != bi {
            return ai.cmp(&bi);
        }
        return ar[i].cmp(&br[i]);
    }
    ar.len().cmp(&br.len())
}

/// Reads the ASCII digits of `r` from `start` onto `n` (saturating): the
/// number and the index just past the run.
fn digit_run(r: &[char], start: usize, mut n: u128) -> (u128, usize) {
    let mut i = start;
    while i < r.len() && r[i].is_ascii_digit() {
        n = n
            .saturating_mul(10)
            .saturating_add(u128::from(r[i] as u32 - '0' as u32));
        i += 1;
    }
    (n, i)
}

fn sorted_entries(m: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
    entries.sort_by(|a, b| natural_cmp(a.0, b.0).then_with(|| a.0.cmp(b.0)));
    entries
}

fn write_map(
    out: &mut String,
    m: &Map<String, Value>,
    indent: usize,
    depth: usize,
) -> Result<(), EmitError> {
    check_depth(depth)?;
    let mut first = true;
    for (k, v) in sorted_entries(m) {
        // The first entry of a map inside a sequence item shares the `- ` line.
        if !first || indent == 0 || !out.ends_with("- ") {
            pad(out, indent);
        }
        first = false;
        if k.len() > MAX_SIMPLE_KEY || k.contains('\n') {
            // go-yaml writes long and multi-line keys as `? key` / `: value`.
            out.push_str("? ");
            let col = column(out);
            out.push_str(&string_scalar(
                k,
                Some(Fold {
                    column: col,
                    indent: indent + 2,
                }),
            ));
            out.push('\n');
            pad(out, indent);
        } else {
            out.push_str(&key_text(k));
        }
        out.push(':');
        write_child(out, v, indent, depth)?;
    }
    Ok(())
}

/// Writes what follows `key:`.
fn write_child(out: &mut String, v: &Value, indent: usize, depth: usize) -> Result<(), EmitError> {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, indent + 2, depth + 1)
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            // Sequence items at the key's own indentation.
            write_seq(out, a, indent, depth + 1)
        }
        _ => {
            out.push(' ');
            let col = column(out);
            out.push_str(&scalar(v, indent + 2, col));
            out.push('\n');
            Ok(())
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], indent: usize, depth: usize) -> Result<(), EmitError> {
    check_depth(depth)?;
    for v in a {
        if !out.ends_with("- ") {
            pad(out, indent);
        }
        out.push_str("- ");
        match v {
            Value::Object(m) if !m.is_empty() => write_map(out, m, indent + 2, depth + 1)?,
            Value::Array(inner) if !inner.is_empty() => {
                write_seq(out, inner, indent + 2, depth + 1)?
            }
            _ => {
                let col = column(out);
                out.push_str(&scalar(v, indent + 2, col));
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// Keys longer than this (in bytes) are not simple keys.
const MAX_SIMPLE_KEY: usize = 128;

fn key_text(k: &str) -> String {
    if k == "<<" {
        // Plain `<<` is a merge key; go-yaml writes it plain, we quote it
        // so the output reads back as written.
        return double_quoted(k, None);
    }
    string_scalar(k, None)
}

/// Characters written on the current line so far.
fn column(out: &str) -> usize {
    let line = match out.rfind('\n') {
        Some(i) => &out[i + 1..],
        None => out,
    };
    line.chars().count()
}

/// Where a scalar starts and how continuation lines are indented; go-yaml
/// folds long scalars at a single space once the line passes this width.
#[derive(Clone, Copy)]
struct Fold {
    column: usize,
    indent: usize,
}

const BEST_WIDTH: usize = 80;

/// A scalar (or empty collection) in flow form.
fn scalar(v: &Value, indent: usize, column: usize) -> String {
    match v {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) => string_scalar(s, Some(Fold { column, indent })),
        Value::Array(_) => "[]".to_owned(),
        Value::Object(_) => "{}".to_owned(),
    }
}

/// Numbers as `sigs.k8s.io/yaml` prints them: Go's JSON encoding, read
/// back by go-yaml (integers that fit 64 bits stay integers), floats in
/// Go's shortest `%g` form (`0.5`, `1.23456785e+07`, `1e+21`).
pub fn number_text(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    if f.fract() == 0.0 {
        if (-TWO_63..TWO_63).contains(&f) {
            return (f as i64).to_string();
        }
        if (0.0..TWO_64).contains(&f) {
            return (f as u64).to_string();
        }
    }
    go_format_g(f)
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`.
fn go_format_g(f: f64) -> String {
    if f.is_nan() {
        return ".nan".to_owned();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.to_owned();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `1.23456785e7`.
    crate::load::go_format_g_finite(f)
}

/// Would a YAML reader (1.1 or 1.2) take this plain text for a non-string?
fn looks_like_other_type(s: &str) -> bool {
    is_null(s)
        || plain_bool(s).is_some()
        || plain_int(s).is_some()
        || plain_float(s).is_some()
        || is_special_float(s)
        || is_timestamp(s)
        || is_base60(s)
}

fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5].is_ascii_digit()
        && (b[6] == b'-' || (b[6].is_ascii_digit() && b.get(7) == Some(&b'-')))
}

/// go-yaml v2 quotes sexagesimal-looking strings (`1:20`, `-3:25:45.5`).
fn is_base60(s: &str) -> bool {
    let body = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (main, frac) = match body.find('.') {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    if frac.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return false;
    }
    let mut parts = main.split(':');
    let Some(head) = parts.next() else {
        return false;
    };
    if !head.starts_with(|c: char| c.is_ascii_digit())
        || !head.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return false;
    }
    let mut n = 0;
    for p in parts {
        n += 1;
        let ok = match p.as_bytes() {
            [d] => d.is_ascii_digit(),
            [a, b] => (b'0'..=b'5').contains(a) && b.is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    n > 0
}

/// libyaml's printable set (as go-yaml v2 has it): no C0/C1 controls but
/// the line feed, nothing beyond the Basic Multilingual Plane.
fn printable(c: char) -> bool {
    c == '\n'
        || (' '..='~').contains(&c)
        || ('\u{a0}'..='\u{d7ff}').contains(&c)
        || (('\u{e000}'..='\u{fffd}').contains(&c) && c != '\u{feff}')
}

/// Can the string be written as a plain scalar in block context?
fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.starts_with(' ') || s.ends_with(' ') || s.starts_with('\t') || s.ends_with('\t') {
        return false;
    }
    if s.starts_with("---") || s.starts_with("...") {
        return false;
    }
    let second = s.chars().nth(1);
    match first {
        '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"' | '%'
        | '@' | '`' => {
            return false;
        }
        '?' | ':' | '-' if second.is_none_or(|c| c == ' ' || c == '\t') => return false,
        _ => {}
    }
    if s.ends_with(':') {
        return false;
    }
    if s.contains(": ") || s.contains(":\t") || s.contains(" #") || s.contains("\t#") {
        return false;
    }
    s.chars()
        .all(|c| printable(c) && c != '\n' && c != '\u{85}')
}

fn string_scalar(s: &str, fold: Option<Fold>) -> String {
    if s.contains('\n') {
        if let Some(block) = literal_block(s, fold.map_or(2, |f| f.indent)) {
            return block;
        }
        return double_quoted(s, fold);
    }
    if looks_like_other_type(s) {
        return double_quoted(s, fold);
    }
    if plain_ok(s) {
        return folded(s, fold, 0, false);
    }
    if s.chars().all(printable) {
        return folded(&format!("'{}'", s.replace('\'', "''")), fold, 1, false);
    }
    double_quoted(s, fold)
}

/// go-yaml's folding of plain and quoted scalars: at a single space (not
/// the first or last character of the value), once the line is longer
/// than the best width, the space becomes a line break plus indentation.
/// `quote` is the width of the opening quote; `escape_next_space` writes
/// `\` before a following space (double-quoted style).
fn folded(text: &str, fold: Option<Fold>, quote: usize, escape_next_space: bool) -> String {
    let Some(Fold { column, indent }) = fold else {
        return text.to_owned();
    };
    let chars: Vec<char> = text.chars().collect();
    let (first, last) = (quote, chars.len().saturating_sub(quote + 1));
    let mut out = String::with_capacity(text.len() + 8);
    let mut col = column;
    let mut prev_space = false;
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let next_space = chars.get(i + 1) == Some(&' ');
            if !prev_space
                && col > BEST_WIDTH
                && i > first
                && i < last
                && (escape_next_space || !next_space)
            {
                out.push('\n');
                out.extend(std::iter::repeat_n(' ', indent));
                col = indent;
                if next_space {
                    out.push('\\');
                    col += 1;
                }
            } else {
                out.push(c);
                col += 1;
            }
            prev_space = true;
        } else {
            out.push(c);
            col += 1;
            prev_space = false;
        }
    }
    out
}

/// `|` / `|-` block for multi-line strings, when the text allows it.
fn literal_block(s: &str, indent: usize) -> Option<String> {
    if !s.chars().all(printable) {
        return None;
    }
    // A space before a line break, or at the very end, needs quoting.
    if s.contains(" \n") || s.ends_with(' ') {
        return None;
    }
    let mut header = String::from("|");
    if s.starts_with([' ', '\n']) {
        // Indentation indicator: the content's first line starts with
        // (or is) whitespace.
        header.push('2');
    }
    let body = match s.strip_suffix('\n') {
        None => {
            header.push('-');
            s
        }
        Some(b) => {
            if b.is_empty() || b.ends_with('\n') {
                header.push('+');
            }
            b
        }
    };
    let mut out = header;
    for l in body.split('\n') {
        out.push('\n');
        if !l.is_empty() {
            out.extend(std::iter::repeat_n(' ', indent));
            out.push_str(l);
        }
    }
    Some(out)
}

fn double_quoted(s: &str, fold: Option<Fold>) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c if printable(c) => out.push(c),
            c if (c as u32) <= 0xff => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c if (c as u32) <= 0xffff => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08X}", c as u32);
            }
        }
    }
    out.push('"');
    folded(&out, fold, 1, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_stream;
    use serde_json::json;

    #[test]
    fn layout_matches_go_yaml() {
        let v = json!({
            "kind": "Bucket",
            "apiVersion": "v1",
            "metadata": {"name": "a", "labels": {}},
            "status": {"conditions": [
                {"type": "Ready", "status": "True", "reason": "Available",
                 "lastTransitionTime": "2024-01-01T00:00:00Z"}
            ]},
            "list": [[1, 2], [], "x"],
            "n": 7.0,
            "f": 0.5,
            "empty": "",
            "msg": "Unready resources: a",
        });
        let got = to_yaml(&v).unwrap();
        let want = "\
apiVersion: v1
empty: \"\"
f: 0.5
kind: Bucket
list:
- - 1
  - 2
- []
- x
metadata:
  labels: {}
  name: a
msg: 'Unready resources: a'
\"n\": 7
status:
  conditions:
  - lastTransitionTime: \"2024-01-01T00:00:00Z\"
    reason: Available
    status: \"True\"
    type: Ready
";
        assert_eq!(got, want);
    }

    #[test]
    fn natural_key_order() {
        let mut keys = vec!["r-10", "r-2", "r-1", "a", "B", "_x", "a1", "a01"];
        keys.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            keys,
            vec!["_x", "B", "a", "a1", "a01", "r-1", "r-2", "r-10"]
        );
    }

    #[test]
    fn numbers() {
        let t = |v: Value| match v {
            Value::Number(n) => number_text(&n),
            _ => unreachable!(),
        };
        assert_eq!(t(json!(3)), "3");
        assert_eq!(t(json!(3.0)), "3");
        assert_eq!(t(json!(1e21)), "1e+21");
        assert_eq!(t(json!(1.5e-7)), "1.5e-07");
        assert_eq!(t(json!(-2.25)), "-2.25");
    }

    #[test]
    fn strings_round_trip() {
        let samples = [
            "",
            "true",
            "yes",
            "on",
            "null",
            "~",
            "12",
            "0x1f",
            "1.5",
            "1e3",
            ".inf",
            "2024-01-01",
            "a: b",
            "a #b",
            "- x",
            "-x",
            "#c",
            "'q'",
            "\"d\"",
            "trailing ",
            " leading",
            "multi\nline",
            "multi\nline\n",
            "x\n\n",
            "tab\there",
            "ctrl\u{1}",
            "ünïcode",
            "key:",
            "@at",
            "1:20",
            "* star",
            "{a}",
            "[b]",
            "a,b",
            "---",
            "line\n  indented\n",
            "<<",
            "=",
            "0o17",
            "y",
            "N",
        ];
        for s in samples {
            let doc = json!({ s: s, "list": [s] });
            let text = to_yaml(&doc).unwrap();
            let back = load_stream(&text).unwrap();
            assert_eq!(back, vec![doc], "{s:?} written as:\n{text}");
        }
    }

    #[test]
    fn long_strings_fold_like_go_yaml() {
        let long = "word ".repeat(30).trim_end().to_owned();
        let doc = json!({"message": long, "msg2": format!("a: {long}"), "m3": format!("{long}  x \u{1}"), "list": [long.clone()]});
        let text = to_yaml(&doc).unwrap();
        assert!(text.lines().all(|l| l.chars().count() <= 90), "{text}");
        assert!(text.contains("message: word word"), "{text}");
        assert!(
            text.contains("\n  word"),
            "continuation lines indented under the key: {text}"
        );
        let back = load_stream(&text).unwrap();
        assert_eq!(back, vec![doc], "{text}");
        // Keys never fold.
        let key = "k ".repeat(60);
        let doc = json!({ key.clone(): 1 });
        assert_eq!(load_stream(&to_yaml(&doc).unwrap()).unwrap(), vec![doc]);
    }

    #[test]
    fn stream_separators() {
        let s = to_yaml_stream(&[json!({"a": 1}), json!({"fields": null})]).unwrap();
        assert_eq!(s, "---\na: 1\n---\nfields: null\n");
    }

    #[test]
    fn depth_limit() {
        let mut v = json!(1);
        for _ in 0..(MAX_EMIT_DEPTH + 3) {
            v = json!([v]);
        }
        assert!(to_yaml(&v).is_err());
    }
}

#[cfg(test)]
mod round_trip {
    use super::to_yaml;
    use crate::load::load_stream;
    use serde_json::{Map, Value, json};

    const PIECES: &[&str] = &[
        "a",
        "Z",
        "0",
        "1",
        "9",
        ".",
        "-",
        "+",
        "_",
        ":",
        " ",
        "  ",
        "#",
        "'",
        "\"",
        "\\",
        "\n",
        "\t",
        "[",
        "]",
        "{",
        "}",
        ",",
        "&",
        "*",
        "!",
        "|",
        ">",
        "?",
        "%",
        "@",
        "`",
        "~",
        "e",
        "x",
        "yes",
        "no",
        "null",
        "true",
        "0x",
        "0o",
        "0b",
        "1e5",
        ".inf",
        "é",
        "\u{1}",
        "\u{85}",
        "\u{feff}",
        "😀",
        "---",
        "...",
        "<<",
        "=",
        "2024-01-01",
        "1:2",
    ];

    // Values come from a `fastrand` generator with a fixed seed: deterministic.
    fn string(r: &mut fastrand::Rng) -> String {
        let n = r.usize(..12);
        (0..n).map(|_| PIECES[r.usize(..PIECES.len())]).collect()
    }

    fn value(r: &mut fastrand::Rng, depth: usize) -> Value {
        match r.usize(..if depth > 3 { 5 } else { 7 }) {
            0 => Value::Null,
            1 => Value::Bool(r.bool()),
            2 => json!(r.i64(-1000..1000)),
            3 => json!(f64::from(r.u32(..100_000)) / 64.0),
            4 => Value::String(string(r)),
            5 => Value::Array((0..r.usize(..4)).map(|_| value(r, depth + 1)).collect()),
            _ => {
                let mut m = Map::new();
                for _ in 0..r.usize(..4) {
                    m.insert(string(r), value(r, depth + 1));
                }
                Value::Object(m)
            }
        }
    }

    /// Whatever we write reads back as the same value (numbers compared as
    /// doubles: `7.0` is written `7`).
    #[test]
    fn random_values_round_trip() {
        fn norm(v: Value) -> Value {
            match v {
                Value::Number(n) => json!(n.as_f64().unwrap_or(0.0)),
                Value::Array(a) => Value::Array(a.into_iter().map(norm).collect()),
                Value::Object(m) => {
                    Value::Object(m.into_iter().map(|(k, v)| (k, norm(v))).collect())
                }
                other => other,
            }
        }
        let mut r = fastrand::Rng::with_seed(0x2545_f491_4f6c_dd1d);
        for _ in 0..3000 {
            let mut m = Map::new();
            for _ in 0..r.usize(1..=4) {
                m.insert(string(&mut r), value(&mut r, 0));
            }
            let v = Value::Object(m);
            let text = to_yaml(&v).unwrap();
            let back = load_stream(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(
                back.into_iter().map(norm).collect::<Vec<_>>(),
                vec![norm(v)],
                "{text}"
            );
        }
    }
}
