//! YAML in and out for JSON-shaped data.
//!
//! Output follows the layout Kubernetes tooling prints (ghodss/yaml over
//! go-yaml): keys sorted, two-space indentation, sequences at their parent
//! key's indentation, multi-line strings as literal blocks.

use std::fmt::Write as _;

use serde_json::Value as Json;
use yaml_rust2::{Yaml, YamlLoader};

/// Maximum nesting accepted when reading YAML.
const MAX_DEPTH: usize = 200;

/// Parses a YAML stream into its documents as JSON values. Mapping keys must
/// be scalars (non-string scalars become their text); anchors and aliases
/// are resolved by the parser.
pub fn parse_documents(text: &str) -> Result<Vec<Json>, String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    docs.iter().map(|d| yaml_to_json(d, 0)).collect()
}

/// Parses a single-document YAML (or JSON) text. An empty text is `null`.
pub fn parse_one(text: &str) -> Result<Json, String> {
    let mut docs = parse_documents(text)?;
    match docs.len() {
        0 => Ok(Json::Null),
        1 => Ok(docs.remove(0)),
        n => Err(format!("expected one YAML document, found {n}")),
    }
}

fn yaml_to_json(y: &Yaml, depth: usize) -> Result<Json, String> {
    if depth > MAX_DEPTH {
        return Err(format!("YAML nested deeper than {MAX_DEPTH} levels"));
    }
    Ok(match y {
        Yaml::Null | Yaml::BadValue => Json::Null,
        Yaml::Boolean(b) => Json::Bool(*b),
        Yaml::Integer(i) => Json::Number((*i).into()),
        Yaml::Real(s) => {
            let f = parse_yaml_float(s).ok_or_else(|| format!("invalid number {s:?}"))?;
            serde_json::Number::from_f64(f)
                .map(Json::Number)
                .ok_or_else(|| format!("number {s:?} is not representable in JSON"))?
        }
        Yaml::String(s) => Json::String(s.clone()),
        Yaml::Array(items) => Json::Array(
            items
                .iter()
                .map(|i| yaml_to_json(i, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Yaml::Hash(h) => {
            let mut m = serde_json::Map::new();
            for (k, v) in h {
                let key = match k {
                    Yaml::String(s) | Yaml::Real(s) => s.clone(),
                    Yaml::Integer(i) => i.to_string(),
                    Yaml::Boolean(b) => b.to_string(),
                    Yaml::Null => "null".to_owned(),
                    _ => return Err("mapping keys must be scalars".to_owned()),
                };
                m.insert(key, yaml_to_json(v, depth + 1)?);
            }
            Json::Object(m)
        }
        Yaml::Alias(_) => return Err("unresolved YAML alias".to_owned()),
    })
}

fn parse_yaml_float(s: &str) -> Option<f64> {
    match s {
        ".inf" | ".Inf" | ".INF" | "+.inf" => Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Some(f64::NEG_INFINITY),
        _ => s.replace('_', "").parse().ok(),
    }
}

/// Prints a JSON value as a YAML document (no `---`), ending in a newline.
pub fn to_yaml(v: &Json) -> String {
    let mut out = String::new();
    match v {
        Json::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Json::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        _ => {
            write_scalar(&mut out, v, 0);
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

fn sorted(m: &serde_json::Map<String, Json>) -> Vec<(&String, &Json)> {
    let mut entries: Vec<_> = m.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    entries
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Json>, level: usize) {
    for (k, v) in sorted(m) {
        indent(out, level);
        write_string(out, k, level, true);
        out.push(':');
        write_value_after_key(out, v, level);
    }
}

fn write_value_after_key(out: &mut String, v: &Json, level: usize) {
    match v {
        Json::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, level + 2);
        }
        Json::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, level);
        }
        _ => {
            out.push(' ');
            write_scalar(out, v, level + 2);
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Json], level: usize) {
    for item in a {
        indent(out, level);
        out.push('-');
        match item {
            Json::Object(m) if !m.is_empty() => {
                // First key on the dash line, the rest aligned under it.
                let mut first = true;
                for (k, v) in sorted(m) {
                    if first {
                        out.push(' ');
                        first = false;
                    } else {
                        indent(out, level + 2);
                    }
                    write_string(out, k, level + 2, true);
                    out.push(':');
                    write_value_after_key(out, v, level + 2);
                }
            }
            Json::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, level + 2);
            }
            _ => {
                out.push(' ');
                write_scalar(out, item, level + 2);
                out.push('\n');
            }
        }
    }
}

fn write_scalar(out: &mut String, v: &Json, level: usize) {
    match v {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Number(n) => match n.as_f64() {
            // Protobuf numbers are float64: print integral ones as integers,
            // as Kubernetes tooling does.
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() < 1e15 => {
                let _ = write!(out, "{}", f as i64);
            }
            _ => {
                let _ = write!(out, "{n}");
            }
        },
        Json::String(s) => write_string(out, s, level, false),
        Json::Object(_) => out.push_str("{}"),
        Json::Array(_) => out.push_str("[]"),
    }
}

/// Words YAML 1.1 (go-yaml) reads as something other than a string.
fn is_special_word(s: &str) -> bool {
    matches!(
        s.to_ascii_lowercase().as_str(),
        "true"
            | "false"
            | "yes"
            | "no"
            | "on"
            | "off"
            | "y"
            | "n"
            | "null"
            | "~"
            | ".inf"
            | "-.inf"
            | "+.inf"
            | ".nan"
    )
}

fn needs_quotes(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return true;
    };
    if is_special_word(s) {
        return true;
    }
    if first.is_ascii_digit() || matches!(first, '+' | '-' | '.') && s.len() > 1 {
        // Could read as a number, a date or a time: quote to be safe.
        if s.chars()
            .nth(if first.is_ascii_digit() { 0 } else { 1 })
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
        {
            return true;
        }
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        return true;
    }
    if s.starts_with(' ') || s.ends_with(' ') || s.ends_with(':') {
        return true;
    }
    if s.contains(": ") || s.contains(" #") {
        return true;
    }
    s.chars().any(|c| c.is_control() || c == '\u{feff}')
}

fn literal_ok(s: &str) -> bool {
    s.contains('\n')
        && !s.starts_with(' ')
        && !s.starts_with('\n')
        && !s.contains("\n\n\n")
        && s.chars().all(|c| c == '\n' || c == '\t' || !c.is_control())
        && !s.contains('\u{feff}')
        && s.lines().all(|l| !l.ends_with(' ') && !l.ends_with('\t'))
        && !s.ends_with("\n\n")
}

fn write_string(out: &mut String, s: &str, level: usize, is_key: bool) {
    if !needs_quotes(s) {
        out.push_str(s);
        return;
    }
    if !is_key && literal_ok(s) {
        out.push('|');
        if !s.ends_with('\n') {
            out.push('-');
        }
        out.push('\n');
        for line in s.strip_suffix('\n').unwrap_or(s).split('\n') {
            if !line.is_empty() {
                indent(out, level);
                out.push_str(line);
            }
            out.push('\n');
        }
        // The caller adds the final newline; drop ours.
        out.pop();
        return;
    }
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || c == '\u{feff}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prints_kubernetes_layout() {
        let v = json!({
            "kind": "X",
            "metadata": {"name": "a", "labels": {"b": "true"}},
            "list": [{"n": 1, "m": [1, 2]}, "s", []],
            "empty": {},
            "text": "line1\nline2\n",
            "float": 2.0,
            "frac": 2.5,
        });
        let expected = "\
empty: {}
float: 2
frac: 2.5
kind: X
list:
- m:
  - 1
  - 2
  \"n\": 1
- s
- []
metadata:
  labels:
    b: \"true\"
  name: a
text: |
  line1
  line2
";
        assert_eq!(to_yaml(&v), expected);
    }

    #[test]
    fn round_trips_awkward_strings() {
        let strings = [
            "",
            "true",
            "no",
            "123",
            "1.5",
            "-1",
            "- a",
            "a: b",
            "a #b",
            " x",
            "x ",
            "@x",
            "line\n",
            "a\nb",
            "\n",
            "tab\there",
            "quote\"d",
            "back\\slash",
            "10.0.0.0/16",
            "~",
            "null",
            "a\n\n\nb",
            "trailing \nspace",
            ".5",
            "2024-01-01",
            "a\n\tb",
            "a\n b",
            "#x\ny",
            "é\nü",
            "- x\n- y",
            "x\r\ny",
            "key: v\nk2: v2\n",
        ];
        for s in strings {
            let v = json!({"k": s, "l": [s]});
            let text = to_yaml(&v);
            let back = parse_one(&text).unwrap_or_else(|e| panic!("{s:?}: {e}\n{text}"));
            assert_eq!(back, v, "{s:?}\n{text}");
        }
    }

    #[test]
    fn parses_multiple_documents() {
        let docs = parse_documents("a: 1\n---\nb: [x, 2.5]\n").expect("valid");
        assert_eq!(docs, vec![json!({"a": 1}), json!({"b": ["x", 2.5]})]);
        assert!(parse_one("a: 1\n---\nb: 2\n").is_err());
        assert_eq!(parse_one("").expect("empty"), Json::Null);
    }
}
