//! Checking a value against a compiled schema.
//!
//! One walk over the value, carrying the path as borrowed segments; owned
//! paths and messages are only built for violations. Objects are walked in
//! key order (values keep their keys sorted), so the result is
//! deterministic; it is sorted by path at the end.
//!
//! Unknown fields: an object is closed when its schema (or one of its
//! `allOf` parts) has `properties` or `additionalProperties: false`, and
//! open when one of them has `x-kubernetes-preserve-unknown-fields` or an
//! `additionalProperties` schema. The `allOf` parts and the `anyOf`/`oneOf`
//! alternatives check values, not field names: the object they describe
//! is judged once, with the union of the names.
//!
//! Size: about 810 lines of code; the rest are its unit tests.

use fnhcl_value::Value;

use crate::compile::{Extra, Format, Lit, Node, NodeId, Schema, Unique, ty};
use crate::{PathSegment, Violation, ViolationKind, meta, suggest};

/// Deepest value nesting checked; deeper parts are reported once.
const MAX_VALUE_DEPTH: usize = 200;
/// Most (value, schema node) visits in one validation.
const MAX_STEPS: usize = 250_000;
/// Longest list checked for repeated elements (the check is quadratic).
const MAX_UNIQUE_CHECKED: usize = 2_000;
/// Longest `enum` list spelled out in a message.
const MAX_ENUM_SHOWN: usize = 20;

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// The current path: the first [`INLINE_PATH`] segments in place, deeper
/// ones in a vector, so that checking a valid body allocates nothing.
struct Path<'a> {
    inline: [Seg<'a>; INLINE_PATH],
    len: usize,
    spill: Vec<Seg<'a>>,
}

const INLINE_PATH: usize = 24;

impl<'a> Path<'a> {
    fn push(&mut self, seg: Seg<'a>) {
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = seg,
            None => self.spill.push(seg),
        }
        self.len += 1;
    }

    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
        if self.len >= INLINE_PATH {
            self.spill.pop();
        }
    }

    fn iter(&self) -> impl Iterator<Item = &Seg<'a>> {
        self.inline[..self.len.min(INLINE_PATH)]
            .iter()
            .chain(self.spill.iter())
    }
}

pub(crate) struct Walk<'a> {
    /// Values checked against a schema node so far, and whether the
    /// budget ran out (nested `anyOf`/`oneOf` can multiply the work).
    steps: usize,
    exhausted: bool,
    path: Path<'a>,
    out: Vec<Violation>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    String,
    Integer,
    Number,
    Boolean,
    Null,
}

fn kind_of(v: &Value) -> Option<Kind> {
    Some(match v {
        Value::Unknown(_) => return None,
        Value::Null(_) => Kind::Null,
        Value::Bool(_) => Kind::Boolean,
        Value::Number(n) if n.is_integer() => Kind::Integer,
        Value::Number(_) => Kind::Number,
        Value::String(_) => Kind::String,
        Value::List(_) | Value::Set(_) | Value::Tuple(_) => Kind::Array,
        Value::Map(_) | Value::Object(_) => Kind::Object,
        Value::Marked(inner) => return kind_of(inner),
    })
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Object => "object",
        Kind::Array => "array",
        Kind::String => "string",
        Kind::Integer => "integer",
        Kind::Number => "number",
        Kind::Boolean => "boolean",
        Kind::Null => "null",
    }
}

/// "integer or string".
pub(crate) fn type_names(bits: u8) -> String {
    let names: Vec<&str> = ty::NAMES
        .iter()
        .filter(|(b, _)| bits & b != 0)
        .map(|(_, n)| *n)
        .collect();
    match names.as_slice() {
        [] => "any".to_owned(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The types a node accepts, int-or-string applied.
pub(crate) fn allowed_types(n: &Node) -> u8 {
    if n.int_or_string || n.format == Format::IntOrString {
        ty::INTEGER | ty::STRING
    } else if n.format == Format::Quantity {
        ty::NUMBER | ty::STRING
    } else {
        n.types
    }
}

/// A short rendering of a scalar for messages.
fn show(v: &Value) -> String {
    match v.unmarked() {
        Value::String(s) => serde_json::Value::String(s.to_string()).to_string(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => kind_of(other)
            .map_or("an unknown value", kind_name)
            .to_owned(),
    }
}

fn lit_matches(l: &Lit, v: &Value, depth: usize) -> bool {
    match l {
        Lit::Null => v.is_null(),
        Lit::Bool(b) => v.as_bool() == Some(*b),
        Lit::Num(n) => v.as_number() == Some(n),
        Lit::Str(s) => v.as_str() == Some(&**s),
        Lit::Other(j) => json_matches(j, v, depth),
    }
}

fn json_matches(j: &serde_json::Value, v: &Value, depth: usize) -> bool {
    use serde_json::Value as J;
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    match j {
        J::Array(items) => v.as_seq().is_some_and(|vs| {
            vs.len() == items.len()
                && items
                    .iter()
                    .zip(vs)
                    .all(|(j, v)| json_matches(j, v, depth + 1))
        }),
        J::Object(map) => v.as_entries().is_some_and(|vs| {
            vs.len() == map.len()
                && map.iter().all(|(k, j)| {
                    vs.get(k.as_str())
                        .is_some_and(|v| json_matches(j, v, depth + 1))
                })
        }),
        scalar => lit_matches(&crate::compile::lit(scalar), v, depth),
    }
}

/// Whether two values are equal (unknown values are never equal to
/// anything: they might differ).
fn same(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_VALUE_DEPTH {
        return false;
    }
    let (a, b) = (a.unmarked(), b.unmarked());
    if let (Some(x), Some(y)) = (a.as_seq(), b.as_seq()) {
        return x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y, depth + 1));
    }
    if let (Some(x), Some(y)) = (a.as_entries(), b.as_entries()) {
        return x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|((kx, x), (ky, y))| kx == ky && same(x, y, depth + 1));
    }
    match (a, b) {
        (Value::Null(_), Value::Null(_)) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        _ => false,
    }
}

/// RFC 3339 `date-time` (as Kubernetes' `metav1.Time` writes it).
fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
            .then(|| {
                b[r].iter()
                    .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'))
            })
    };
    let (Some(_), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) = (
        digits(0..4),
        digits(5..7),
        digits(8..10),
        digits(11..13),
        digits(14..16),
        digits(17..19),
    ) else {
        return false;
    };
    if b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return false;
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match b.get(i) {
        Some(b'Z' | b'z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            i + 6 == b.len()
                && b[i + 3] == b':'
                && digits(i + 1..i + 3).is_some_and(|h| h < 24)
                && digits(i + 4..i + 6).is_some_and(|m| m < 60)
        }
        _ => false,
    }
}

impl<'a> Walk<'a> {
    pub(crate) fn run(schema: &'a Schema, value: &'a Value) -> Vec<Violation> {
        let mut w = Walk {
            steps: 0,
            exhausted: false,
            path: Path {
                inline: [Seg::Index(0); INLINE_PATH],
                len: 0,
                spill: Vec::new(),
            },
            out: Vec::new(),
        };
        w.value(schema, schema.root, value, 0, false, true, false);
        let mut out = w.out;
        if w.exhausted {
            out.push(Violation {
                path: Vec::new(),
                kind: ViolationKind::Other,
                message: format!(
                    "the schema is too complex: checking stopped after {MAX_STEPS} steps"
                ),
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out.dedup_by(|a, b| a.path == b.path && a.message == b.message);
        out
    }

    fn report(&mut self, kind: ViolationKind, message: String) {
        let path = self
            .path
            .iter()
            .map(|s| match s {
                Seg::Key(k) => PathSegment::Key((*k).to_owned()),
                Seg::Index(i) => PathSegment::Index(*i),
            })
            .collect();
        self.out.push(Violation {
            path,
            kind,
            message,
        });
    }

    fn at<R>(&mut self, seg: Seg<'a>, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(seg);
        let r = f(self);
        self.path.pop();
        r
    }

    /// Checks `v` against node `id`. `part`: `id` is an `allOf` part or an
    /// alternative, whose enclosing schema judges field names. `envelope`:
    /// `apiVersion`, `kind` and `metadata` are allowed here.
    fn value(
        &mut self,
        s: &'a Schema,
        id: NodeId,
        v: &'a Value,
        depth: usize,
        part: bool,
        envelope: bool,
        flat: bool,
    ) {
        let n = s.node(id);
        let v = v.unmarked();
        self.steps += 1;
        if self.steps > MAX_STEPS {
            self.exhausted = true;
            return;
        }
        let Some(kind) = kind_of(v) else {
            return;
        };
        if depth > MAX_VALUE_DEPTH {
            self.report(
                ViolationKind::Other,
                format!("nested deeper than {MAX_VALUE_DEPTH} levels; not checked"),
            );
            return;
        }
        if kind == Kind::Null {
            let allowed = allowed_types(n);
            if !n.nullable && allowed != 0 {
                self.report(
                    ViolationKind::Type,
                    format!("expected {}, got null", type_names(allowed)),
                );
            }
            return;
        }
        let allowed = allowed_types(n);
        if allowed != 0 {
            let ok = match kind {
                Kind::Object => allowed & ty::OBJECT != 0,
                Kind::Array => allowed & ty::ARRAY != 0,
                Kind::String => allowed & ty::STRING != 0,
                Kind::Integer => allowed & (ty::INTEGER | ty::NUMBER) != 0,
                Kind::Number => allowed & ty::NUMBER != 0,
                Kind::Boolean => allowed & ty::BOOLEAN != 0,
                Kind::Null => true,
            };
            if !ok {
                self.report(
                    ViolationKind::Type,
                    format!("expected {}, got {}", type_names(allowed), kind_name(kind)),
                );
                return;
            }
        }
        if !n.enumeration.is_empty() && !n.enumeration.iter().any(|(l, _)| lit_matches(l, v, 0)) {
            let mut shown: Vec<&str> = n
                .enumeration
                .iter()
                .take(MAX_ENUM_SHOWN)
                .map(|(_, t)| &**t)
                .collect();
            if n.enumeration.len() > MAX_ENUM_SHOWN {
                shown.push("...");
            }
            self.report(
                ViolationKind::Enum,
                format!("must be one of {}, got {}", shown.join(", "), show(v)),
            );
        }
        match v {
            Value::String(text) => self.string(n, text),
            Value::Number(num) => self.number(n, num),
            _ => {}
        }
        if let Some(items) = v.as_seq() {
            self.array(s, n, items, depth);
        } else if let Some(entries) = v.as_entries() {
            self.object(s, id, entries, depth, part, envelope || n.embedded);
        }
        if !flat {
            // The closure of the parts: each is checked flat.
            for &p in &n.all_of {
                self.value(s, p, v, depth + 1, true, false, true);
            }
        }
        if !n.any_of.is_empty() {
            let matched = self.alternatives(s, &n.any_of, v, depth, true);
            if matched == 0 {
                self.report(
                    ViolationKind::Other,
                    "must match at least one of the anyOf alternatives".to_owned(),
                );
            }
        }
        if !n.one_of.is_empty() {
            let matched = self.alternatives(s, &n.one_of, v, depth, false);
            if matched != 1 {
                let got = if matched == 0 {
                    "none".to_owned()
                } else {
                    matched.to_string()
                };
                self.report(
                    ViolationKind::Other,
                    format!("must match exactly one of the oneOf alternatives, matched {got}"),
                );
            }
        }
    }

    /// How many of `alts` accept `v` (stopping at the first for `anyOf`).
    fn alternatives(
        &mut self,
        s: &'a Schema,
        alts: &[NodeId],
        v: &'a Value,
        depth: usize,
        first_is_enough: bool,
    ) -> usize {
        let saved = std::mem::take(&mut self.out);
        let mut matched = 0;
        for &a in alts {
            self.value(s, a, v, depth + 1, true, false, false);
            if self.out.is_empty() {
                matched += 1;
                if first_is_enough {
                    break;
                }
            }
            self.out.clear();
        }
        self.out = saved;
        matched
    }

    fn string(&mut self, n: &Node, text: &str) {
        if n.min_length.is_some() || n.max_length.is_some() {
            let len = text.chars().count() as u64;
            if let Some(min) = n.min_length.filter(|m| len < *m) {
                let unit = if min == 1 { "character" } else { "characters" };
                self.report(
                    ViolationKind::Length,
                    format!("must be at least {min} {unit} long, got {len}"),
                );
            }
            if let Some(max) = n.max_length.filter(|m| len > *m) {
                let unit = if max == 1 { "character" } else { "characters" };
                self.report(
                    ViolationKind::Length,
                    format!("must be at most {max} {unit} long, got {len}"),
                );
            }
        }
        if let Some(p) = &n.pattern
            && p.regex().is_some_and(|re| !re.is_match(text))
        {
            self.report(
                ViolationKind::Pattern,
                format!(
                    "must match the pattern {}, got {}",
                    serde_json::Value::String(p.source.to_string()),
                    serde_json::Value::String(text.to_owned())
                ),
            );
        }
        if n.format == Format::DateTime && !is_date_time(text) {
            self.report(
                ViolationKind::Format,
                format!(
                    "must be a date-time (RFC 3339, like \"2006-01-02T15:04:05Z\"), got {}",
                    serde_json::Value::String(text.to_owned())
                ),
            );
        }
    }

    fn number(&mut self, n: &Node, num: &fnhcl_value::Number) {
        if let Some(b) = &n.minimum {
            if b.exclusive && *num <= b.value {
                self.report(
                    ViolationKind::Range,
                    format!("must be greater than {}, got {num}", b.value),
                );
            } else if !b.exclusive && *num < b.value {
                self.report(
                    ViolationKind::Range,
                    format!("must be at least {}, got {num}", b.value),
                );
            }
        }
        if let Some(b) = &n.maximum {
            if b.exclusive && *num >= b.value {
                self.report(
                    ViolationKind::Range,
                    format!("must be less than {}, got {num}", b.value),
                );
            } else if !b.exclusive && *num > b.value {
                self.report(
                    ViolationKind::Range,
                    format!("must be at most {}, got {num}", b.value),
                );
            }
        }
        if let Some(m) = &n.multiple_of
            && num.div(m).is_ok_and(|q| !q.is_integer())
        {
            self.report(
                ViolationKind::Range,
                format!("must be a multiple of {m}, got {num}"),
            );
        }
    }

    fn array(&mut self, s: &'a Schema, n: &'a Node, items: &'a [Value], depth: usize) {
        let len = items.len() as u64;
        if let Some(min) = n.min_items.filter(|m| len < *m) {
            let unit = if min == 1 { "item" } else { "items" };
            self.report(
                ViolationKind::Items,
                format!("must have at least {min} {unit}, got {len}"),
            );
        }
        if let Some(max) = n.max_items.filter(|m| len > *m) {
            let unit = if max == 1 { "item" } else { "items" };
            self.report(
                ViolationKind::Items,
                format!("must have at most {max} {unit}, got {len}"),
            );
        }
        self.duplicates(&n.unique, items);
        if let Some(item) = n.items {
            for (i, v) in items.iter().enumerate() {
                self.at(Seg::Index(i), |w| {
                    w.value(s, item, v, depth + 1, false, false, false)
                });
            }
        }
    }

    /// Elements of a set that repeat an earlier one, and elements of a
    /// map-type list whose keys repeat an earlier one's. Quadratic, so only
    /// for lists of up to [`MAX_UNIQUE_CHECKED`] elements.
    fn duplicates(&mut self, unique: &Unique, items: &'a [Value]) {
        if items.len() > MAX_UNIQUE_CHECKED {
            return;
        }
        match unique {
            Unique::No => {}
            Unique::Values => {
                for (i, v) in items.iter().enumerate() {
                    if let Some(j) = items[..i].iter().position(|e| same(e, v, 0)) {
                        self.at(Seg::Index(i), |w| {
                            w.report(
                                ViolationKind::Items,
                                format!("duplicate element of a set (the same as [{j}])"),
                            )
                        });
                    }
                }
            }
            Unique::Keys(keys) => {
                let key_of = |v: &'a Value, k: &str| v.as_entries().and_then(|e| e.get(k));
                for (i, v) in items.iter().enumerate() {
                    if v.as_entries().is_none() {
                        continue;
                    }
                    let repeat = items[..i].iter().position(|e| {
                        e.as_entries().is_some()
                            && keys.iter().all(|k| match (key_of(e, k), key_of(v, k)) {
                                (None, None) => true,
                                (Some(a), Some(b)) => same(a, b, 0),
                                _ => false,
                            })
                    });
                    if let Some(j) = repeat {
                        let shown: Vec<String> = keys
                            .iter()
                            .map(|k| {
                                let val = key_of(v, k).map_or_else(|| "null".to_owned(), show);
                                format!("{k}={val}")
                            })
                            .collect();
                        self.at(Seg::Index(i), |w| {
                            w.report(
                                ViolationKind::Items,
                                format!(
                                    "duplicate entry for {} (the same as [{j}])",
                                    shown.join(", ")
                                ),
                            )
                        });
                    }
                }
            }
        }
    }

    fn object(
        &mut self,
        s: &'a Schema,
        id: NodeId,
        entries: &'a fnhcl_value::ObjMap,
        depth: usize,
        part: bool,
        envelope: bool,
    ) {
        let n = s.node(id);
        let len = entries.len() as u64;
        if let Some(min) = n.min_properties.filter(|m| len < *m) {
            let unit = if min == 1 { "field" } else { "fields" };
            self.report(
                ViolationKind::Properties,
                format!("must have at least {min} {unit}, got {len}"),
            );
        }
        if let Some(max) = n.max_properties.filter(|m| len > *m) {
            let unit = if max == 1 { "field" } else { "fields" };
            self.report(
                ViolationKind::Properties,
                format!("must have at most {max} {unit}, got {len}"),
            );
        }
        if n.embedded && !part {
            // The API server requires the type of an embedded resource.
            for r in ["apiVersion", "kind"] {
                if entries.get(r).is_none_or(Value::is_null) {
                    self.at(Seg::Key(r), |w| {
                        w.report(
                            ViolationKind::Required,
                            "required field is missing (an embedded resource names its type)"
                                .to_owned(),
                        )
                    });
                }
            }
        }
        for r in &n.required {
            let nullable = n.property(r).is_some_and(|p| s.node(p).nullable);
            let present = match entries.get(&**r) {
                None => false,
                Some(v) => !v.is_null() || nullable,
            };
            if !present {
                let what = if entries.contains_key(&**r) {
                    "required field is null"
                } else {
                    "required field is missing"
                };
                self.at(Seg::Key(r), |w| {
                    w.report(ViolationKind::Required, what.to_owned())
                });
            }
        }
        // Whether names are judged here: only needed for a field the schema
        // does not declare, so worked out on the first such field.
        let mut shape_here: Option<Shape> = None;
        let envelope = envelope && !part;
        for (k, child) in entries {
            let k: &'a str = k;
            if child.is_null() {
                // Server-side apply drops nulls of optional fields; the
                // required ones were reported above.
                continue;
            }
            self.at(Seg::Key(k), |w| {
                if envelope && matches!(k, "apiVersion" | "kind" | "metadata") {
                    w.envelope(s, id, k, child, depth);
                } else if let Some(p) = n.property(k) {
                    w.value(s, p, child, depth + 1, false, false, false);
                } else if let Extra::Schema(extra) = n.additional {
                    w.value(s, extra, child, depth + 1, false, false, false);
                } else if !part {
                    let shape = *shape_here.get_or_insert_with(|| shape(s, id));
                    if shape.closed && !shape.open && lookup(s, id, k).is_none() {
                        w.unknown(s, id, k, envelope);
                    }
                }
            });
        }
    }

    fn envelope(&mut self, s: &'a Schema, id: NodeId, k: &'a str, v: &'a Value, depth: usize) {
        let declared = lookup(s, id, k);
        if k == "metadata" {
            let m = meta::object_meta();
            self.value(m, m.root, v, depth + 1, false, false, false);
            if let Some(p) = declared.filter(|&p| constrains_object(s.node(p))) {
                // Constraints the schema adds (a name pattern, say); the
                // field names were judged as ObjectMeta's.
                self.value(s, p, v, depth + 1, true, false, false);
            }
        } else if let Some(p) = declared {
            self.value(s, p, v, depth + 1, false, false, false);
        } else if let Some(kind) = kind_of(v).filter(|k| *k != Kind::String) {
            self.report(
                ViolationKind::Type,
                format!("expected string, got {}", kind_name(kind)),
            );
        }
    }

    fn unknown(&mut self, s: &Schema, id: NodeId, k: &str, envelope: bool) {
        let mut names: Vec<&str> = Vec::new();
        property_names(s, id, &mut names);
        if envelope {
            names.extend(["apiVersion", "kind", "metadata"]);
        }
        names.sort_unstable();
        names.dedup();
        let suggestion = suggest::closest(k, names.iter().copied()).map(str::to_owned);
        let message = match &suggestion {
            Some(sug) => format!(
                "unknown field; did you mean {}?",
                serde_json::Value::String(sug.clone())
            ),
            None => "unknown field".to_owned(),
        };
        self.report(ViolationKind::UnknownField { suggestion }, message);
    }
}

/// Whether an object's field names are judged (`closed`) and whether any
/// name goes (`open`), over a node and its `allOf` parts.
#[derive(Default, Clone, Copy)]
struct Shape {
    closed: bool,
    open: bool,
}

fn shape(s: &Schema, id: NodeId) -> Shape {
    let mut sh = Shape::default();
    for n in parts(s, id) {
        sh.closed |= n.has_properties || n.additional == Extra::Deny;
        sh.open |= n.preserve_unknown || matches!(n.additional, Extra::Any | Extra::Schema(_));
    }
    sh
}

/// Whether an object schema says more than "an object" (most CRDs declare
/// `metadata` as just that): otherwise checking a value against it as a
/// part (names not judged) finds nothing.
fn constrains_object(n: &Node) -> bool {
    !(n.properties.is_empty()
        && n.required.is_empty()
        && n.enumeration.is_empty()
        && !matches!(n.additional, Extra::Schema(_))
        && n.min_properties.is_none()
        && n.max_properties.is_none()
        && n.all_of.is_empty()
        && n.any_of.is_empty()
        && n.one_of.is_empty()
        && !n.nullable
        && (n.types == 0 || n.types == ty::OBJECT))
}

/// The node and its `allOf` parts (already the transitive closure).
fn parts(s: &Schema, id: NodeId) -> impl Iterator<Item = &Node> {
    let n = s.node(id);
    std::iter::once(n).chain(n.all_of.iter().map(|&p| s.node(p)))
}

/// The schema of property `k`, on the node or its `allOf` parts.
pub(crate) fn lookup(s: &Schema, id: NodeId, k: &str) -> Option<NodeId> {
    parts(s, id).find_map(|n| n.property(k))
}

/// Every property name of the node and its `allOf` parts (unsorted).
pub(crate) fn property_names<'s>(s: &'s Schema, id: NodeId, out: &mut Vec<&'s str>) {
    for n in parts(s, id) {
        out.extend(n.properties.iter().map(|(k, _)| &**k));
    }
}

impl Schema {
    /// Every violation in `value`, sorted by path (fields in key order,
    /// elements in index order), deterministic. `apiVersion`, `kind` and
    /// `metadata` at the top are the resource envelope (see the crate
    /// documentation). Unknown values are not checked.
    pub fn validate(&self, value: &Value) -> Vec<Violation> {
        Walk::run(self, value)
    }

    /// [`Schema::validate`] for a JSON body (numbers are taken exactly).
    pub fn validate_json(&self, value: &serde_json::Value) -> Vec<Violation> {
        Walk::run(self, &fnhcl_value::from_serde_json(value))
    }
}

#[cfg(test)]
mod tests {
    use super::is_date_time;

    #[test]
    fn date_times() {
        assert!(is_date_time("2024-01-02T03:04:05Z"));
        assert!(is_date_time("2024-01-02T03:04:05.123+02:00"));
        assert!(!is_date_time("2024-13-02T03:04:05Z"));
        assert!(!is_date_time("2024-01-02"));
        assert!(!is_date_time("2024-01-02T03:04:05"));
        assert!(!is_date_time("yesterday"));
    }
}
