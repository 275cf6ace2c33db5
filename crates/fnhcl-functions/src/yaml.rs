//! `yamlencode` and `yamldecode` with go-cty-yaml 1.0.3 semantics.
//!
//! Encoding reproduces go-cty-yaml's libyaml emitter byte for byte for the
//! shapes it produces: block collections (flow `[]`/`{}` only when empty),
//! strings double-quoted (literal `|` style when they contain a newline and
//! the emitter allows a block scalar), 2-space indentation, 80-column
//! folding of long double-quoted strings, `?` complex keys for keys longer
//! than 128 bytes or spanning lines, and `...` after a plain root scalar.
//!
//! Decoding uses `yaml-rust2`'s event parser and go-cty-yaml's resolution
//! rules: YAML 1.1 booleans (`yes`/`no`/`on`/`off`/`y`/`n`), YAML 1.2 ints
//! (`0o17`, `0x1f`, `_` separators), timestamps turned into RFC 3339
//! strings, tags (`!!str`, `!!int`, ... and errors for others), anchors
//! and aliases (self-references rejected), `<<` merge keys. Mappings
//! become objects and sequences tuples.
//!
//! Size: the libyaml-exact emitter and the decoder share the mapping between
//! cty types and YAML nodes; the last ~160 lines are unit tests.

use std::collections::HashMap;

use fnhcl_value::{Key, Number, Type, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::args::str_arg;
use crate::error::CallError;
use crate::limits::check_len;
use crate::registry::{FuncDef, Param, Registry};

/// Nesting limit for decoded documents.
const MAX_DEPTH: usize = 512;
/// Limit on decoded nodes, counting alias expansions ("billion laughs").
const MAX_NODES: usize = 1_000_000;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "yamlencode",
            "Encodes a given value to a string using YAML 1.2 block syntax.",
        )
        .param(
            Param::new("value", Type::Dynamic)
                .allow_dynamic_type()
                .allow_null(),
        )
        .returns(Type::String)
        .implement(|a| {
            let v = &a[0];
            if !v.is_wholly_known() {
                return Ok(Value::Unknown(Type::String));
            }
            encode(v).map(crate::limits::cty_string)
        }),
    );
    r.add(
        FuncDef::new(
            "yamldecode",
            "Parses the given string as YAML and returns a value corresponding to what the YAML document describes.",
        )
        .param(Param::new("src", Type::String))
        // As jsondecode: a known document's type is that of the decoded
        // value, which nothing reads before the implementation decodes it
        // (and fails with the same error on a bad document).
        .returns_with("any (from the document)", |_| Ok(Type::Dynamic))
        .implement(|a| decode(str_arg(a, 0)?).map_err(CallError::new)),
    );
}

// ---------------------------------------------------------------------
// Encoder (a port of the relevant parts of libyaml's emitter behaviour)

const BEST_INDENT: i64 = 2;
const BEST_WIDTH: usize = 80;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Double,
    Literal,
}

struct Emitter {
    out: String,
    column: usize,
    indent: i64,
    indents: Vec<i64>,
    flow_level: usize,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    root_context: bool,
    mapping_context: bool,
    simple_key_context: bool,
}

/// What libyaml's scalar analysis tells us about a string.
struct Analysis {
    multiline: bool,
    block_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's `is_printable` (note: characters outside the BMP are not).
fn is_printable(c: char) -> bool {
    let u = c as u32;
    u == 0x0A
        || (0x20..=0x7E).contains(&u)
        || (0xA0..=0xD7FF).contains(&u)
        || ((0xE000..=0xFFFD).contains(&u) && u != 0xFEFF)
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            block_allowed: false,
        };
    }
    let mut line_breaks = false;
    let mut special = false;
    let mut trailing_space = false;
    let mut space_break = false;
    let mut prev_space = false;
    let n = s.chars().count();
    for (i, c) in s.chars().enumerate() {
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i + 1 == n {
                trailing_space = true;
            }
            prev_space = true;
        } else if is_break(c) {
            line_breaks = true;
            if prev_space {
                space_break = true;
            }
            prev_space = false;
        } else {
            prev_space = false;
        }
    }
    Analysis {
        multiline: line_breaks,
        block_allowed: !(trailing_space || space_break || special),
    }
}

impl Emitter {
    fn new() -> Emitter {
        Emitter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            whitespace: true,
            indention: true,
            open_ended: false,
            root_context: false,
            mapping_context: false,
            simple_key_context: false,
        }
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(&mut self, ind: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in ind.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn node(
        &mut self,
        v: &Value,
        root: bool,
        mapping: bool,
        simple_key: bool,
    ) -> Result<(), CallError> {
        self.root_context = root;
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        check_len(self.out.len())?;
        match v {
            Value::Marked(inner) => self.node(inner, root, mapping, simple_key),
            Value::Null(_) => {
                self.scalar("null", Style::Plain);
                Ok(())
            }
            Value::Unknown(_) => Err(CallError::new("cannot serialize unknown value as YAML")),
            Value::Bool(b) => {
                self.scalar(if *b { "true" } else { "false" }, Style::Plain);
                Ok(())
            }
            Value::Number(n) => {
                self.scalar(&n.to_string(), Style::Plain);
                Ok(())
            }
            Value::String(s) => {
                let style = if s.contains('\n') {
                    Style::Literal
                } else {
                    Style::Double
                };
                self.scalar(s, style);
                Ok(())
            }
            Value::List(c) | Value::Set(c) => self.sequence(&c.items),
            Value::Tuple(items) => self.sequence(items),
            Value::Map(m) => self.mapping(&m.items),
            Value::Object(attrs) => self.mapping(attrs),
        }
    }

    fn scalar(&mut self, s: &str, requested: Style) {
        let mut style = requested;
        if style == Style::Literal {
            let a = analyze(s);
            if !a.block_allowed || self.flow_level > 0 || self.simple_key_context {
                style = Style::Double;
            }
        }
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            Style::Plain => self.write_plain(s),
            Style::Double => self.write_double(s, allow_breaks),
            Style::Literal => self.write_literal(s),
        }
        self.pop_indent();
    }

    fn write_plain(&mut self, s: &str) {
        if !self.whitespace {
            self.put(' ');
        }
        for c in s.chars() {
            self.put(c);
        }
        self.whitespace = false;
        self.indention = false;
        if self.root_context {
            self.open_ended = true;
        }
    }

    fn write_double(&mut self, s: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let chars: Vec<char> = s.chars().collect();
        let mut spaces = false;
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !is_printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match c {
                    '\0' => self.put('0'),
                    '\x07' => self.put('a'),
                    '\x08' => self.put('b'),
                    '\t' => self.put('t'),
                    '\n' => self.put('n'),
                    '\x0B' => self.put('v'),
                    '\x0C' => self.put('f'),
                    '\r' => self.put('r'),
                    '\x1B' => self.put('e'),
                    '"' => self.put('"'),
                    '\\' => self.put('\\'),
                    '\u{85}' => self.put('N'),
                    '\u{A0}' => self.put('_'),
                    '\u{2028}' => self.put('L'),
                    '\u{2029}' => self.put('P'),
                    c => {
                        let v = c as u32;
                        let (letter, w) = if v <= 0xFF {
                            ('x', 2)
                        } else if v <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(letter);
                        for k in (0..w).rev() {
                            let d = (v >> (k * 4)) & 0xF;
                            self.put(char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase());
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < chars.len() - 1
                {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
            i += 1;
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_literal(&mut self, s: &str) {
        self.write_indicator("|", true, false, false);
        // Block scalar hints.
        let first = s.chars().next();
        if first.is_some_and(|c| c == ' ' || is_break(c)) {
            self.write_indicator("2", false, false, false);
        }
        let mut rev = s.chars().rev();
        let last = rev.next();
        let chomp = match last {
            None => Some("-"),
            Some(c) if !is_break(c) => Some("-"),
            Some(_) => match rev.next() {
                None => Some("+"),
                Some(p) if is_break(p) => Some("+"),
                Some(_) => None,
            },
        };
        if let Some(h) = chomp {
            self.write_indicator(h, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in s.chars() {
            if is_break(c) {
                if c == '\n' {
                    self.put_break();
                } else {
                    self.out.push(c);
                    self.column = 0;
                }
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn sequence(&mut self, items: &[Value]) -> Result<(), CallError> {
        if items.is_empty() || self.flow_level > 0 {
            // Flow style (only ever empty here).
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
            self.flow_level -= 1;
            self.pop_indent();
            self.write_indicator("]", false, false, false);
            return Ok(());
        }
        let indentless = self.mapping_context && !self.indention;
        self.increase_indent(false, indentless);
        for item in items {
            self.write_indent();
            self.write_indicator("-", true, false, true);
            self.node(item, false, false, false)?;
        }
        self.pop_indent();
        Ok(())
    }

    fn mapping(&mut self, entries: &fnhcl_value::ObjMap) -> Result<(), CallError> {
        if entries.is_empty() || self.flow_level > 0 {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.pop_indent();
            self.write_indicator("}", false, false, false);
            return Ok(());
        }
        self.increase_indent(false, false);
        for (k, v) in entries {
            self.write_indent();
            let simple = k.len() <= 128 && !analyze(k).multiline;
            let key = Value::String(k.clone());
            if simple {
                self.node(&key, false, true, true)?;
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.node(&key, false, true, false)?;
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(v, false, true, false)?;
        }
        self.pop_indent();
        Ok(())
    }
}

/// go-cty-yaml's `Marshal`.
pub(crate) fn encode(v: &Value) -> Result<String, CallError> {
    let mut e = Emitter::new();
    e.node(v, true, false, false)?;
    // Document end (implicit) and stream end.
    e.write_indent();
    if e.open_ended {
        e.write_indicator("...", true, false, false);
        e.write_indent();
    }
    check_len(e.out.len())?;
    Ok(e.out)
}

// ---------------------------------------------------------------------
// Decoder

const TAG_PREFIX: &str = "tag:yaml.org,2002:";

struct Decoder<'a> {
    src: &'a str,
    /// The parsed events, ending with the parse error if there is one.
    events: std::collections::VecDeque<Result<(Event, Marker), String>>,
    /// Anchor id -> (name, value); `None` while the anchor is being defined.
    anchors: HashMap<usize, Option<(Value, usize)>>,
    nodes: usize,
}

/// A decoding error with go-cty-yaml's position prefix (0-based line, as
/// go-cty-yaml reports libyaml marks; nothing on the first line).
fn at(mark: &Marker, msg: impl Into<String>) -> String {
    let msg = msg.into();
    let line = mark.line().saturating_sub(1);
    if line == 0 {
        msg
    } else {
        format!("on line {line}, column {}: {msg}", mark.col() + 1)
    }
}

fn full_tag(t: &Tag) -> String {
    format!("{}{}", t.handle, t.suffix)
}

/// Result of resolving one scalar.
enum Scalar {
    Val(Value),
    Merge,
}

impl<'a> Decoder<'a> {
    fn next(&mut self) -> Result<(Event, Marker), String> {
        self.events
            .pop_front()
            .unwrap_or_else(|| Err("unexpected end of the event stream".into()))
    }

    fn count(&mut self, n: usize, mark: &Marker) -> Result<(), String> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            return Err(at(
                mark,
                format!("the document has more than {MAX_NODES} nodes (counting alias expansions)"),
            ));
        }
        Ok(())
    }

    /// The anchor name written at an alias event's position (`*name`).
    fn alias_name(&self, mark: &Marker) -> String {
        let rest: String = self.src.chars().skip(mark.index()).collect();
        let rest = rest.strip_prefix('*').unwrap_or(&rest);
        rest.chars()
            .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}'))
            .collect()
    }

    fn value(&mut self, ev: Event, mark: Marker, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(at(
                &mark,
                format!("the document nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1, &mark)?;
                let v = match resolve(&text, style, tag.as_ref()).map_err(|e| at(&mark, e))? {
                    Scalar::Val(v) => v,
                    Scalar::Merge => crate::limits::cty_string(text),
                };
                if anchor > 0 {
                    self.anchors.insert(anchor, Some((v.clone(), 1)));
                }
                Ok(v)
            }
            Event::Alias(id) => match self.anchors.get(&id) {
                Some(Some((v, size))) => {
                    let (v, size) = (v.clone(), *size);
                    self.count(size, &mark)?;
                    Ok(v)
                }
                Some(None) => Err(at(
                    &mark,
                    format!(
                        "cannot refer to anchor {} from inside its own definition",
                        crate::quote::go_quote(&self.alias_name(&mark))
                    ),
                )),
                None => Err(at(
                    &mark,
                    format!(
                        "reference to undefined anchor {}",
                        crate::quote::go_quote(&self.alias_name(&mark))
                    ),
                )),
            },
            Event::SequenceStart(anchor, tag) => {
                if let Some(t) = &tag {
                    let t = full_tag(t);
                    if t != format!("{TAG_PREFIX}seq") {
                        return Err(at(&mark, format!("can't interpret sequence as {t}")));
                    }
                }
                if anchor > 0 {
                    self.anchors.insert(anchor, None);
                }
                let start = self.nodes;
                self.count(1, &mark)?;
                let mut items = Vec::new();
                loop {
                    let (ev, m) = self.next()?;
                    if matches!(ev, Event::SequenceEnd) {
                        break;
                    }
                    items.push(self.value(ev, m, depth + 1)?);
                }
                let v = Value::tuple(items);
                if anchor > 0 {
                    self.anchors
                        .insert(anchor, Some((v.clone(), self.nodes - start)));
                }
                Ok(v)
            }
            Event::MappingStart(anchor, tag) => {
                if let Some(t) = &tag {
                    let t = full_tag(t);
                    if t != format!("{TAG_PREFIX}map") {
                        return Err(at(&mark, format!("can't interpret mapping as {t}")));
                    }
                }
                if anchor > 0 {
                    self.anchors.insert(anchor, None);
                }
                let start = self.nodes;
                self.count(1, &mark)?;
                // Collected in document order, then sorted once (later
                // keys, merged ones included, win as with `insert`).
                let mut attrs: Vec<(Key, Value)> = Vec::new();
                loop {
                    let (ev, km) = self.next()?;
                    let (text, style, kanchor, ktag) = match ev {
                        Event::MappingEnd => break,
                        Event::Scalar(t, s, a, tg) => (t, s, a, tg),
                        _ => return Err(at(&km, "only strings are allowed as mapping keys")),
                    };
                    let key = resolve(&text, style, ktag.as_ref()).map_err(|e| at(&km, e))?;
                    if kanchor > 0 {
                        let kv = match &key {
                            Scalar::Val(v) => v.clone(),
                            Scalar::Merge => crate::limits::cty_string(text.clone()),
                        };
                        self.anchors.insert(kanchor, Some((kv, 1)));
                    }
                    let key = match key {
                        Scalar::Merge => {
                            let (ev, vm) = self.next()?;
                            let merged = self.value(ev, vm, depth + 1)?;
                            match merged.as_entries() {
                                Some(entries) if matches!(merged, Value::Object(_)) => {
                                    attrs.extend(
                                        entries.iter().map(|(k, v)| (k.clone(), v.clone())),
                                    );
                                }
                                _ => {
                                    return Err(at(
                                        &km,
                                        format!(
                                            "cannot merge {} into mapping",
                                            merged.type_of().friendly_name()
                                        ),
                                    ));
                                }
                            }
                            continue;
                        }
                        Scalar::Val(v) => v,
                    };
                    let key = match key {
                        Value::String(s) => s,
                        Value::Bool(b) => Key::from(if b { "true" } else { "false" }),
                        Value::Number(n) => Key::from(n.to_string()),
                        Value::Null(_) => return Err(at(&km, "mapping key cannot be null")),
                        _ => return Err(at(&km, "only strings are allowed as mapping keys")),
                    };
                    let (ev, vm) = self.next()?;
                    let v = self.value(ev, vm, depth + 1)?;
                    attrs.push((key, v));
                }
                let v = Value::object(attrs.into_iter().collect());
                if anchor > 0 {
                    self.anchors
                        .insert(anchor, Some((v.clone(), self.nodes - start)));
                }
                Ok(v)
            }
            Event::DocumentStart => Err(at(&mark, "only a single document is allowed")),
            Event::StreamEnd => Err(at(&mark, "expecting value but found end of stream")),
            _ => Err(at(&mark, "unexpected parser event")),
        }
    }
}

/// go-cty-yaml's `resolveScalar` (with the implicit-string shortcut for
/// untagged non-plain scalars).
fn resolve(src: &str, style: TScalarStyle, tag: Option<&Tag>) -> Result<Scalar, String> {
    let tag = tag.map(full_tag).unwrap_or_default();
    let plain = matches!(style, TScalarStyle::Plain);
    if tag.is_empty() && !plain {
        return Ok(Scalar::Val(crate::limits::cty_string(src)));
    }
    let short = tag.strip_prefix(TAG_PREFIX);
    let known = match short {
        None => tag.is_empty(),
        Some(s) => matches!(
            s,
            "str" | "bool" | "int" | "float" | "null" | "timestamp" | "binary"
        ),
    };
    if !known {
        return Err(format!("unsupported tag {}", crate::quote::go_quote(&tag)));
    }
    let mut tag_kind = short.unwrap_or("");
    let quoted = matches!(
        style,
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
    );
    let hint = match src.as_bytes().first() {
        None => 'N',
        Some(b'+' | b'-') => 'S',
        Some(b'0'..=b'9') => 'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => 'M',
        Some(b'.') => '.',
        Some(_) => '\0',
    };
    if hint != '\0' && tag_kind != "str" && tag_kind != "binary" {
        if quoted {
            return Ok(Scalar::Val(crate::limits::cty_string(src)));
        }
        if let Some(v) = resolve_map(src) {
            return Ok(Scalar::Val(v));
        }
        if tag_kind.is_empty() && matches!(src, ".nan" | ".NaN" | ".NAN") {
            return Err("floating point NaN is not supported".into());
        }
        match hint {
            '.' => {
                if let Some(n) = parse_number(src) {
                    return Ok(Scalar::Val(Value::Number(n)));
                }
            }
            'D' | 'S' => {
                if (tag_kind.is_empty() || tag_kind == "timestamp")
                    && let Some(ts) = parse_yaml_timestamp(src)
                {
                    return Ok(Scalar::Val(crate::limits::cty_string(ts)));
                }
                if is_int_literal(src) {
                    tag_kind = "int";
                } else if is_float_literal(src) {
                    tag_kind = "float";
                }
            }
            _ => {}
        }
    }
    if tag.is_empty() && src == "<<" {
        return Ok(Scalar::Merge);
    }
    let full = format!("{TAG_PREFIX}{tag_kind}");
    let cannot = || format!("cannot parse {} as {full}", crate::quote::go_quote(src));
    match tag_kind {
        "str" => Ok(Scalar::Val(crate::limits::cty_string(src))),
        "binary" => {
            if crate::base64::base64_decode(src).is_err() {
                return Err(format!("{}: not valid base64", cannot()));
            }
            Ok(Scalar::Val(crate::limits::cty_string(src)))
        }
        "bool" => match resolve_map(src) {
            Some(v @ Value::Bool(_)) => Ok(Scalar::Val(v)),
            _ => Err(cannot()),
        },
        "int" | "float" => {
            let plain = src.replace('_', "");
            if let Some(n) = parse_number(&plain) {
                return Ok(Scalar::Val(Value::Number(n)));
            }
            if let Some(i) = go_parse_int(&plain) {
                return Ok(Scalar::Val(Value::Number(i)));
            }
            Err(cannot())
        }
        "timestamp" => parse_yaml_timestamp(src)
            .map(|t| Scalar::Val(crate::limits::cty_string(t)))
            .ok_or_else(cannot),
        "null" => Ok(Scalar::Val(Value::null())),
        "" => Ok(Scalar::Val(crate::limits::cty_string(src))),
        _ => Err(format!("unsupported tag {}", crate::quote::go_quote(&tag))),
    }
}

fn resolve_map(s: &str) -> Option<Value> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Value::TRUE
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Value::FALSE
        }
        "" | "~" | "null" | "Null" | "NULL" => Value::null(),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            Value::Number(Number::infinity(false))
        }
        "-.inf" | "-.Inf" | "-.INF" => Value::Number(Number::infinity(true)),
        _ => return None,
    })
}

/// cty's `ParseNumberVal`: a decimal number (no hex, no `_`).
fn parse_number(s: &str) -> Option<Number> {
    let b = s.as_bytes();
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() || !body.bytes().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let ok = b.iter().enumerate().all(|(i, &c)| {
        c.is_ascii_digit()
            || c == b'.'
            || c == b'e'
            || c == b'E'
            || ((c == b'+' || c == b'-') && (i == 0 || matches!(b[i - 1], b'e' | b'E')))
    });
    if !ok {
        return None;
    }
    Number::parse(s)
}

/// Go's `strconv.ParseInt(s, 0, 64)` then `ParseUint(s, 0, 64)`.
fn go_parse_int(s: &str) -> Option<Number> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() {
        return None;
    }
    let v = u64::from_str_radix(digits, radix).ok()?;
    if neg {
        if v > i64::MAX as u64 + 1 {
            return None;
        }
        Some(Number::from_i64((v as i128).wrapping_neg() as i64))
    } else {
        Some(Number::from_u64(v))
    }
}

fn is_int_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    if body.is_empty() {
        return true;
    }
    if let Some(d) = body.strip_prefix("0o") {
        return !d.is_empty() && d.bytes().all(|c| matches!(c, b'0'..=b'7' | b'_'));
    }
    if let Some(d) = body.strip_prefix("0x") {
        return !d.is_empty() && d.bytes().all(|c| c.is_ascii_hexdigit() || c == b'_');
    }
    body.bytes().all(|c| c.is_ascii_digit() || c == b'_')
}

fn is_float_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mant, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mant_ok = if let Some(frac) = mant.strip_prefix('.') {
        !frac.is_empty() && frac.bytes().all(|c| c.is_ascii_digit())
    } else {
        let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
        !int.is_empty()
            && int.bytes().all(|c| c.is_ascii_digit())
            && frac.bytes().all(|c| c.is_ascii_digit())
    };
    let exp_ok = exp.is_none_or(|e| {
        let d = e.strip_prefix(['+', '-']).unwrap_or(e);
        !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit())
    });
    mant_ok && exp_ok
}

/// go-cty-yaml's timestamp recognition, returning the RFC 3339 text.
fn parse_yaml_timestamp(s: &str) -> Option<String> {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return None;
    }
    let mut rest = &s[5..];
    let year: i64 = s[..4].parse().ok()?;
    let num = |rest: &mut &str, max_digits: usize| -> Option<u32> {
        let n = rest
            .bytes()
            .take(max_digits)
            .take_while(u8::is_ascii_digit)
            .count();
        if n == 0 {
            return None;
        }
        let v = rest[..n].parse().ok()?;
        *rest = &rest[n..];
        Some(v)
    };
    let month = num(&mut rest, 2)?;
    rest = rest.strip_prefix('-')?;
    let day = num(&mut rest, 2)?;
    let (mut hour, mut minute, mut second, mut offset) = (0u32, 0u32, 0u32, 0i32);
    if !rest.is_empty() {
        let with_zone = rest.starts_with(['T', 't']);
        if !with_zone && !rest.starts_with(' ') {
            return None;
        }
        rest = &rest[1..];
        hour = num(&mut rest, 2)?;
        rest = rest.strip_prefix(':')?;
        minute = num(&mut rest, 2)?;
        rest = rest.strip_prefix(':')?;
        second = num(&mut rest, 2)?;
        if rest.starts_with(['.', ',']) && rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit) {
            let n = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
            rest = &rest[1 + n..];
        }
        if with_zone {
            if let Some(r) = rest.strip_prefix('Z') {
                rest = r;
            } else {
                let z = rest.as_bytes();
                if z.len() < 6 || !matches!(z[0], b'+' | b'-') || z[3] != b':' {
                    return None;
                }
                let h: i32 = rest[1..3].parse().ok()?;
                let m: i32 = rest[4..6].parse().ok()?;
                offset = if z[0] == b'-' { -1 } else { 1 } * (h * 3600 + m * 60);
                rest = &rest[6..];
            }
        }
        if !rest.is_empty() {
            return None;
        }
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let dim = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if day < 1 || day > dim || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let zone = if offset == 0 {
        "Z".to_owned()
    } else {
        let sign = if offset < 0 { '-' } else { '+' };
        let a = offset.unsigned_abs() / 60;
        format!("{sign}{:02}:{:02}", a / 60, a % 60)
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{zone}"
    ))
}

/// Reads all events (stopping at the first error, which becomes the last
/// entry), with two adjustments towards libyaml: a block scalar that runs
/// to the end of input without a final line break does not get one, and
/// errors carry libyaml's wording and go-cty-yaml's positions.
fn collect_events(src: &str) -> std::collections::VecDeque<Result<(Event, Marker), String>> {
    let mut parser = Parser::new_from_str(src);
    let mut out = std::collections::VecDeque::new();
    let mut last_block: Option<usize> = None;
    loop {
        match parser.next_token() {
            Ok((ev, m)) => {
                let end = matches!(ev, Event::StreamEnd);
                match &ev {
                    Event::Scalar(_, TScalarStyle::Literal | TScalarStyle::Folded, ..) => {
                        last_block = Some(out.len());
                    }
                    Event::Scalar(..)
                    | Event::Alias(_)
                    | Event::SequenceStart(..)
                    | Event::MappingStart(..) => last_block = None,
                    _ => {}
                }
                out.push_back(Ok((ev, m)));
                if end {
                    break;
                }
            }
            Err(e) => {
                let m = *e.marker();
                let info = e.info();
                let msg = if info.contains("unknown anchor") {
                    let name: String = src
                        .chars()
                        .skip(m.index())
                        .skip_while(|&c| c == '*')
                        .take_while(|c| {
                            !c.is_whitespace() && !matches!(c, ',' | '[' | ']' | '{' | '}')
                        })
                        .collect();
                    format!(
                        "reference to undefined anchor {}",
                        crate::quote::go_quote(&name)
                    )
                } else if let Some(rest) = info.strip_prefix("while parsing ") {
                    let m = rest.split_once(", ").map_or(rest, |(_, m)| m);
                    match m.strip_prefix("expected ") {
                        Some(e) => format!("did not find expected {e}"),
                        None => m.to_owned(),
                    }
                } else {
                    // A scanner error: go-cty-yaml reports the line after
                    // libyaml's (0-based) mark, at column 1.
                    let msg = info
                        .strip_prefix("while scanning ")
                        .map_or(info, |rest| rest.split_once(", ").map_or(rest, |(_, m)| m));
                    // libyaml's wording for the same problems.
                    let msg = if msg.starts_with("tabs disallowed")
                        || msg.starts_with("unexpected character")
                    {
                        "found character that cannot start any token"
                    } else if msg.starts_with("simple key expect") {
                        "could not find expected ':'"
                    } else {
                        msg
                    };
                    // 0-based line of the problem; at the end of the input
                    // libyaml's mark is past the last line break.
                    let line0 = if msg.contains("end of stream") {
                        src.matches('\n').count()
                    } else {
                        m.line().saturating_sub(1)
                    };
                    let text = if line0 == 0 {
                        msg.to_owned()
                    } else {
                        format!("on line {}, column 1: {msg}", line0 + 1)
                    };
                    out.push_back(Err(text));
                    return out;
                };
                out.push_back(Err(at(&m, msg)));
                return out;
            }
        }
    }
    let last_line = src.rsplit('\n').next().unwrap_or("");
    if !src.ends_with(['\n', '\r'])
        && !last_line.trim_start().starts_with('#')
        && let Some(i) = last_block
        && let Some(Ok((Event::Scalar(text, ..), _))) = out.get_mut(i)
        && text.ends_with('\n')
    {
        text.pop();
    }
    out
}

/// go-cty-yaml's `Unmarshal` of a single-document stream.
pub(crate) fn decode(src: &str) -> Result<Value, String> {
    let text = if src.is_empty() { "\n" } else { src };
    // libyaml (and so go-cty-yaml) accepts only `%YAML 1.1` directives.
    for (line0, line) in text.lines().enumerate() {
        if line.starts_with("---")
            || !(line.starts_with('%') || line.trim().is_empty() || line.starts_with('#'))
        {
            break;
        }
        if let Some(version) = line.strip_prefix("%YAML") {
            let version = version.split('#').next().unwrap_or("").trim();
            if version != "1.1" {
                let msg = "found incompatible YAML document";
                return Err(if line0 == 0 {
                    msg.to_owned()
                } else {
                    format!("on line {line0}, column 1: {msg}")
                });
            }
        }
    }
    let mut d = Decoder {
        src: text,
        events: collect_events(text),
        anchors: HashMap::new(),
        nodes: 0,
    };
    let (ev, m) = d.next()?;
    if !matches!(ev, Event::StreamStart) {
        return Err(at(&m, "missing stream start token"));
    }
    let (ev, m) = d.next()?;
    if !matches!(ev, Event::DocumentStart) {
        return Err(at(&m, "missing start of document"));
    }
    let (ev, m) = d.next()?;
    let v = d.value(ev, m, 0)?;
    let (ev, m) = d.next()?;
    match ev {
        Event::DocumentEnd => {}
        Event::DocumentStart => return Err(at(&m, "only a single document is allowed")),
        _ => return Err(at(&m, "unexpected extra content after value")),
    }
    let (ev, m) = d.next()?;
    if !matches!(ev, Event::StreamEnd) {
        return Err(at(&m, "unexpected extra content after value"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(pairs: &[(&str, Value)]) -> Value {
        Value::object(
            pairs
                .iter()
                .map(|(k, v)| (Key::from(*k), v.clone()))
                .collect(),
        )
    }
    fn enc(v: &Value) -> String {
        encode(v).unwrap_or_else(|e| format!("ERR {}", e.message))
    }
    fn s(x: &str) -> Value {
        crate::limits::cty_string(x)
    }

    #[test]
    fn encode_like_go_cty_yaml() {
        assert_eq!(
            enc(&obj(&[("a", s("b")), ("c", s("d"))])),
            "\"a\": \"b\"\n\"c\": \"d\"\n"
        );
        assert_eq!(
            enc(&obj(&[
                ("foo", Value::tuple(vec![Value::int(1), Value::int(2)])),
                ("bar", s("baz"))
            ])),
            "\"bar\": \"baz\"\n\"foo\":\n- 1\n- 2\n"
        );
        assert_eq!(
            enc(&Value::tuple(vec![s("foo"), Value::TRUE])),
            "- \"foo\"\n- true\n"
        );
        assert_eq!(enc(&s("hello")), "\"hello\"\n");
        assert_eq!(enc(&s("")), "\"\"\n");
        assert_eq!(enc(&Value::int(0)), "0\n...\n");
        assert_eq!(enc(&Value::null()), "null\n...\n");
        assert_eq!(enc(&Value::empty_object()), "{}\n");
        assert_eq!(enc(&Value::tuple(vec![])), "[]\n");
        assert_eq!(enc(&s("hello\nworld")), "|-\n  hello\n  world\n");
        assert_eq!(
            enc(&obj(&[
                ("a", obj(&[("b", s("c"))])),
                ("d", Value::tuple(vec![]))
            ])),
            "\"a\":\n  \"b\": \"c\"\n\"d\": []\n"
        );
        assert_eq!(
            enc(&obj(&[("s", s("multi\nline\n"))])),
            "\"s\": |\n  multi\n  line\n"
        );
        assert_eq!(
            enc(&Value::tuple(vec![
                Value::tuple(vec![Value::int(1), Value::int(2)]),
                obj(&[("a", Value::int(1)), ("b", Value::int(2))])
            ])),
            "- - 1\n  - 2\n- \"a\": 1\n  \"b\": 2\n"
        );
        assert_eq!(enc(&s("tab\there\n")), "\"tab\\there\\n\"\n");
        assert_eq!(enc(&s("😀")), "\"\\U0001F600\"\n");
        assert_eq!(enc(&s("a\n\nb\n\n")), "|+\n  a\n\n  b\n\n");
        assert_eq!(enc(&s("\nx")), "|2-\n\n  x\n");
    }

    #[test]
    fn encode_folds_long_strings() {
        let long = "word ".repeat(30);
        let long = long.trim_end();
        let out = enc(&obj(&[("k", s(long))]));
        assert!(out.lines().count() > 1, "{out}");
        assert!(
            out.lines().nth(1).is_some_and(|l| l.starts_with("  word")),
            "{out}"
        );
        let key = "k".repeat(130);
        let out = enc(&obj(&[(key.as_str(), Value::int(1))]));
        assert!(out.starts_with("? \""), "{out}");
        assert!(out.ends_with("\"\n: 1\n"), "{out}");
    }

    fn dec(src: &str) -> String {
        match decode(src) {
            Ok(v) => format!("{v:?} : {}", v.type_of()),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn decode_like_go_cty_yaml() {
        assert_eq!(
            dec("hello: world"),
            "{\"hello\": \"world\"} : object({hello: string})"
        );
        assert_eq!(dec("true"), "true : bool");
        assert_eq!(dec("~"), "null(dynamic) : dynamic");
        assert_eq!(dec("---"), "null(dynamic) : dynamic");
        assert_eq!(dec("v: yes"), "{\"v\": true} : object({v: bool})");
        assert_eq!(dec("yes: 1"), "{\"true\": 1} : object({true: number})");
        assert_eq!(dec("v: '1'"), "{\"v\": \"1\"} : object({v: string})");
        assert_eq!(dec("0x1f"), "31 : number");
        assert_eq!(dec("0o77"), "63 : number");
        assert_eq!(dec("077"), "77 : number");
        assert_eq!(dec("1_000"), "1000 : number");
        assert_eq!(dec("0ba"), "\"0ba\" : string");
        assert_eq!(dec("2006-1-2"), "\"2006-01-02T00:00:00Z\" : string");
        assert_eq!(dec("!!str true"), "\"true\" : string");
        assert_eq!(dec("!!binary 'aGVsbG8='"), "\"aGVsbG8=\" : string");
        assert_eq!(dec(".NaN"), "ERR floating point NaN is not supported");
        assert_eq!(dec("<<"), "\"<<\" : string");
        assert!(
            dec("!!bool bananas").contains("cannot parse \"bananas\" as tag:yaml.org,2002:bool")
        );
        assert!(dec("{a: !not-supported foo}").contains("unsupported tag \"!not-supported\""));
        assert!(
            dec("{a: &foo [1, *foo, 3]}")
                .contains("cannot refer to anchor \"foo\" from inside its own definition")
        );
        assert_eq!(
            dec("- &a x\n- *a"),
            "[\"x\", \"x\"] : tuple([string, string])"
        );
        assert_eq!(
            dec("base: &b\n  a: 1\nother:\n  <<: *b\n  c: 2"),
            "{\"base\": {\"a\": 1}, \"other\": {\"a\": 1, \"c\": 2}} : object({base: object({a: number}), other: object({a: number, c: number})})"
        );
        assert_eq!(
            dec("s: |\n  line1\n  line2\n"),
            "{\"s\": \"line1\\nline2\\n\"} : object({s: string})"
        );
        assert_eq!(
            dec("s: >-\n  folded\n  text\n"),
            "{\"s\": \"folded text\"} : object({s: string})"
        );
        assert!(
            dec("---\ntrue\n---\nfalse")
                .contains("on line 2, column 1: unexpected extra content after value")
        );
        assert!(dec("null: 1").contains("mapping key cannot be null"));
        assert!(dec("a: [").starts_with("ERR"));
    }

    #[test]
    fn decode_limits() {
        let mut doc = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            doc.push_str(&format!(
                "a{i}: &a{i} [{}]\n",
                [prev.as_str(); 10].join(", ")
            ));
        }
        assert!(dec(&doc).contains("more than"));
        let deep = "[".repeat(2000) + &"]".repeat(2000);
        assert!(dec(&deep).starts_with("ERR"));
    }
}
