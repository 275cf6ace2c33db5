//! YAML streams to JSON values, for schema documents.
//!
//! The builder works on the parser's events with an explicit stack, so a
//! deeply nested document cannot overflow the stack: nesting deeper than
//! [`MAX_DEPTH`] and more than [`MAX_VALUES`] values (aliases expanded) are
//! errors. Plain scalars resolve with the YAML 1.2 core schema (what CRD
//! files use); quoted scalars are strings; mapping keys become strings.
//! (`fnhcl-crossplane` and `fnhcl-render` have readers of their own, but
//! both sit above this crate.)

use std::collections::HashMap;

use serde_json::{Map, Number, Value as Json};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Deepest nesting of mappings and sequences accepted.
pub(crate) const MAX_DEPTH: usize = 200;
/// Most values one stream may hold, aliases expanded.
pub(crate) const MAX_VALUES: usize = 1_000_000;

/// A stream that cannot be read: message and 1-based line.
#[derive(Debug)]
pub(crate) struct YamlError {
    pub(crate) message: String,
    pub(crate) line: usize,
}

/// Every document of the stream; empty documents are dropped.
pub(crate) fn load_stream(text: &str) -> Result<Vec<Json>, YamlError> {
    let mut b = Builder::default();
    let mut parser = Parser::new_from_str(text);
    // Event by event: the parser's own `load` recurses once per nesting
    // level, which a deep enough document turns into a stack overflow.
    loop {
        let (ev, mark) = parser.next_token().map_err(|e| YamlError {
            message: e.info().to_owned(),
            line: e.marker().line(),
        })?;
        if ev == Event::StreamEnd {
            break;
        }
        b.on_event(ev, mark);
        if let Some(e) = b.error.take() {
            return Err(e);
        }
    }
    Ok(b.docs.into_iter().filter(|d| !d.is_null()).collect())
}

enum Frame {
    Seq(Vec<Json>, usize),
    Map(Map<String, Json>, Option<String>, usize),
}

#[derive(Default)]
struct Builder {
    docs: Vec<Json>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Json, usize)>,
    values: usize,
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
                line: mark.line(),
            });
        }
    }
}

fn size_of(v: &Json) -> usize {
    let mut n = 0usize;
    let mut todo = vec![v];
    while let Some(v) = todo.pop() {
        n += 1;
        match v {
            Json::Array(a) => todo.extend(a.iter()),
            Json::Object(m) => todo.extend(m.values()),
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
                let (v, size) = self
                    .anchors
                    .get(&id)
                    .ok_or_else(|| "alias to an unknown anchor".to_owned())?;
                self.values = self.values.saturating_add(*size);
                if self.values > MAX_VALUES {
                    return Err(format!("stream expands to more than {MAX_VALUES} values"));
                }
                let v = v.clone();
                self.push(v, 0)
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count()?;
                if let Some(Frame::Map(_, key @ None, _)) = self.stack.last_mut() {
                    *key = Some(text);
                    return Ok(());
                }
                let tagged_str = tag.as_ref().is_some_and(|t| t.suffix == "str");
                let v = if matches!(style, TScalarStyle::Plain) && !tagged_str {
                    resolve_plain(text)?
                } else {
                    Json::String(text)
                };
                self.push(v, anchor)
            }
            Event::SequenceStart(anchor, _) => {
                self.open()?;
                self.stack.push(Frame::Seq(Vec::new(), anchor));
                Ok(())
            }
            Event::MappingStart(anchor, _) => {
                self.open()?;
                self.stack.push(Frame::Map(Map::new(), None, anchor));
                Ok(())
            }
            Event::SequenceEnd => match self.stack.pop() {
                Some(Frame::Seq(items, anchor)) => self.push(Json::Array(items), anchor),
                _ => Err("unbalanced sequence".to_owned()),
            },
            Event::MappingEnd => match self.stack.pop() {
                Some(Frame::Map(map, _, anchor)) => self.push(Json::Object(map), anchor),
                _ => Err("unbalanced mapping".to_owned()),
            },
        }
    }

    fn count(&mut self) -> Result<(), String> {
        self.values += 1;
        if self.values > MAX_VALUES {
            return Err(format!("stream holds more than {MAX_VALUES} values"));
        }
        Ok(())
    }

    fn open(&mut self) -> Result<(), String> {
        self.count()?;
        if let Some(Frame::Map(_, None, _)) = self.stack.last() {
            return Err("mapping keys must be scalars".to_owned());
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        Ok(())
    }

    fn push(&mut self, v: Json, anchor: usize) -> Result<(), String> {
        if anchor != 0 {
            let size = size_of(&v);
            self.anchors.insert(anchor, (v.clone(), size));
        }
        match self.stack.last_mut() {
            None => self.docs.push(v),
            Some(Frame::Seq(items, _)) => items.push(v),
            Some(Frame::Map(map, key, _)) => match key.take() {
                Some(k) => {
                    map.insert(k, v);
                }
                None => return Err("mapping keys must be scalars".to_owned()),
            },
        }
        Ok(())
    }
}

/// YAML 1.2 core schema resolution of a plain scalar.
fn resolve_plain(text: String) -> Result<Json, String> {
    match text.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => return Ok(Json::Null),
        "true" | "True" | "TRUE" => return Ok(Json::Bool(true)),
        "false" | "False" | "FALSE" => return Ok(Json::Bool(false)),
        _ => {}
    }
    let t = text.as_str();
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let radix = if let Some(h) = digits.strip_prefix("0x") {
        Some((h, 16))
    } else {
        digits.strip_prefix("0o").map(|o| (o, 8))
    };
    if let Some((d, r)) = radix {
        if !neg
            && !d.is_empty()
            && let Ok(n) = u64::from_str_radix(d, r)
        {
            return Ok(Json::Number(n.into()));
        }
        return Ok(Json::String(text));
    }
    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(n) = t.parse::<i64>() {
            return Ok(Json::Number(n.into()));
        }
        if let Ok(n) = t.parse::<u64>() {
            return Ok(Json::Number(n.into()));
        }
    }
    let looks_float = !digits.is_empty()
        && digits
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b'.')
        && digits
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'-' | b'+'))
        && digits.bytes().any(|b| b.is_ascii_digit());
    if looks_float && let Ok(f) = t.parse::<f64>() {
        return Number::from_f64(f)
            .map(Json::Number)
            .ok_or_else(|| format!("number {t} is out of range"));
    }
    Ok(Json::String(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_resolve_like_yaml_1_2() {
        let docs =
            load_stream("a: 1\nb: 1.5\nc: 'x'\nd: yes\ne: ~\nf: true\ng: 0x10\nh: 1e3\n").unwrap();
        assert_eq!(
            docs[0],
            serde_json::json!({"a":1,"b":1.5,"c":"x","d":"yes","e":null,"f":true,"g":16,"h":1000.0})
        );
    }

    #[test]
    fn depth_is_bounded() {
        let text = "[".repeat(MAX_DEPTH + 5) + &"]".repeat(MAX_DEPTH + 5);
        let e = load_stream(&text).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{}", e.message);
    }

    #[test]
    fn errors_have_lines() {
        let e = load_stream("a: 1\nb: [\n").unwrap_err();
        assert!(e.line >= 2, "{e:?}");
    }

    #[test]
    fn aliases_are_bounded() {
        let mut text = String::from("a: &a [1,1,1,1,1,1,1,1,1,1]\n");
        for i in 0..12 {
            let prev = if i == 0 {
                "a".to_owned()
            } else {
                format!("l{}", i - 1)
            };
            text += &format!(
                "l{i}: &l{i} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            );
        }
        let e = load_stream(&text).unwrap_err();
        assert!(e.message.contains("more than"), "{}", e.message);
    }
}
