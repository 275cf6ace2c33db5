//! Compiling an OpenAPI v3 schema (as JSON) into a table of nodes.
//!
//! Every schema object becomes one [`Node`]; children are node indexes, so
//! a recursive type (`$ref` back to an enclosing definition) is a cycle of
//! indexes, compiled once. A `$ref` is an alias for its target (OpenAPI 3.0
//! ignores keywords beside `$ref`); a chain of `$ref`s that comes back to
//! itself without any schema in between is an error. Patterns are compiled
//! here, so an invalid one is a compile error, never a validation error.
//!
//! Size: about 820 lines of code; the rest are its unit tests.

use std::collections::HashMap;
use std::sync::OnceLock;

use fnhcl_value::Number;
use regex::Regex;
use serde_json::Value as Json;

use crate::SchemaError;

/// Deepest nesting of schema objects (a `$ref` counts where it is used).
pub const MAX_DEPTH: usize = 128;
/// Most schema nodes one compiled schema may have.
pub const MAX_NODES: usize = 200_000;
/// Compiled size bound of one `pattern`.
const MAX_REGEX_BYTES: usize = 1 << 20;

pub(crate) type NodeId = u32;

/// `type` as a bit set (0: any type).
pub(crate) mod ty {
    pub(crate) const OBJECT: u8 = 1;
    pub(crate) const ARRAY: u8 = 2;
    pub(crate) const STRING: u8 = 4;
    pub(crate) const INTEGER: u8 = 8;
    pub(crate) const NUMBER: u8 = 16;
    pub(crate) const BOOLEAN: u8 = 32;
    pub(crate) const NULL: u8 = 64;
    pub(crate) const NAMES: [(u8, &str); 7] = [
        (OBJECT, "object"),
        (ARRAY, "array"),
        (INTEGER, "integer"),
        (NUMBER, "number"),
        (STRING, "string"),
        (BOOLEAN, "boolean"),
        (NULL, "null"),
    ];
}

/// `additionalProperties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Extra {
    Unset,
    Deny,
    Any,
    Schema(NodeId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    None,
    DateTime,
    IntOrString,
    /// A Kubernetes quantity: a string or a number.
    Quantity,
}

/// A `pattern`. Compiled once when the schema is compiled, to reject a bad
/// one there, then dropped; built again the first time a value needs it.
/// A large CRD has many patterns and a body meets few of them, so memory
/// goes only to those in use.
#[derive(Debug)]
pub(crate) struct Pattern {
    pub(crate) source: Box<str>,
    regex: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// The compiled expression (`None` only if it no longer builds, which
    /// cannot happen: it built at compile time with the same limits).
    pub(crate) fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| build_regex(&self.source).ok())
            .as_ref()
    }
}

/// Kubernetes checks `pattern` with Go's RE2, whose `\d`, `\w`, `\s` and
/// `\b` are ASCII; the `regex` crate's are Unicode. Rewrites those
/// escapes to their ASCII meaning (a class nested in a class is a union
/// here, so `[\d.]` works too); everything else reads the same in both.
fn go_syntax(source: &str) -> std::borrow::Cow<'_, str> {
    if !source.contains('\\') {
        return std::borrow::Cow::Borrowed(source);
    }
    let mut out = String::with_capacity(source.len() + 16);
    let mut chars = source.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('d') => out.push_str("[0-9]"),
            Some('D') => out.push_str("[^0-9]"),
            Some('w') => out.push_str("[0-9A-Za-z_]"),
            Some('W') => out.push_str("[^0-9A-Za-z_]"),
            Some('s') => out.push_str("[\\t\\n\\f\\r ]"),
            Some('S') => out.push_str("[^\\t\\n\\f\\r ]"),
            Some('b') => out.push_str("(?-u:\\b)"),
            Some('B') => out.push_str("(?-u:\\B)"),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn build_regex(source: &str) -> Result<Regex, String> {
    regex::RegexBuilder::new(&go_syntax(source))
        .size_limit(MAX_REGEX_BYTES)
        .build()
        .map_err(|e| {
            let text = e.to_string();
            let last = text.lines().last().unwrap_or_default().trim();
            last.strip_prefix("error: ").unwrap_or(last).to_owned()
        })
}

/// Elements that may not repeat in a list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Unique {
    No,
    /// `x-kubernetes-list-type: set` or `uniqueItems: true`: no two equal
    /// elements.
    Values,
    /// `x-kubernetes-list-type: map`: no two elements with the same
    /// values for these keys.
    Keys(Vec<Box<str>>),
}

fn unique(list_type: &Json, map_keys: &Json, unique_items: &Json) -> Result<Unique, String> {
    let keys = match map_keys {
        Json::Null => Vec::new(),
        Json::Array(keys) => keys
            .iter()
            .map(|k| match k {
                Json::String(s) => Ok(s.as_str().into()),
                other => Err(format!(
                    "x-kubernetes-list-map-keys must list names, got {other}"
                )),
            })
            .collect::<Result<_, _>>()?,
        other => {
            return Err(format!(
                "x-kubernetes-list-map-keys must be an array, got {other}"
            ));
        }
    };
    Ok(match list_type {
        Json::String(t) if t == "set" => Unique::Values,
        Json::String(t) if t == "map" && !keys.is_empty() => Unique::Keys(keys),
        Json::String(t) if t == "map" => {
            return Err("x-kubernetes-list-type map needs x-kubernetes-list-map-keys".to_owned());
        }
        Json::Null | Json::String(_) => {
            if flag(unique_items, "uniqueItems")? {
                Unique::Values
            } else {
                Unique::No
            }
        }
        other => {
            return Err(format!(
                "x-kubernetes-list-type must be a string, got {other}"
            ));
        }
    })
}

/// A bound: the number and whether it is exclusive.
#[derive(Clone, Debug)]
pub(crate) struct Bound {
    pub(crate) value: Number,
    pub(crate) exclusive: bool,
}

/// An `enum` value, numbers already exact.
#[derive(Clone, Debug)]
pub(crate) enum Lit {
    Null,
    Bool(bool),
    Num(Number),
    Str(Box<str>),
    Other(Json),
}

#[derive(Debug)]
pub(crate) struct Node {
    pub(crate) types: u8,
    pub(crate) nullable: bool,
    pub(crate) int_or_string: bool,
    pub(crate) preserve_unknown: bool,
    pub(crate) embedded: bool,
    pub(crate) format: Format,
    pub(crate) description: Option<Box<str>>,
    /// The `enum` values and their JSON text (for messages and `Field`).
    pub(crate) enumeration: Vec<(Lit, Box<str>)>,
    /// Sorted by name length, then name (see [`Node::property`]).
    pub(crate) properties: Vec<(Box<str>, NodeId)>,
    pub(crate) has_properties: bool,
    pub(crate) required: Vec<Box<str>>,
    pub(crate) additional: Extra,
    pub(crate) items: Option<NodeId>,
    pub(crate) minimum: Option<Bound>,
    pub(crate) maximum: Option<Bound>,
    pub(crate) multiple_of: Option<Number>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<Pattern>,
    /// `x-kubernetes-list-type` (`set`, or `map` with its keys) and
    /// `uniqueItems`: which elements may not repeat.
    pub(crate) unique: Unique,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) min_properties: Option<u64>,
    pub(crate) max_properties: Option<u64>,
    /// Every `allOf` part, transitively (the parts' own parts too),
    /// without repeats: nothing walks `allOf` recursively.
    pub(crate) all_of: Vec<NodeId>,
    pub(crate) any_of: Vec<NodeId>,
    pub(crate) one_of: Vec<NodeId>,
}

impl Default for Node {
    fn default() -> Node {
        Node {
            types: 0,
            nullable: false,
            int_or_string: false,
            preserve_unknown: false,
            embedded: false,
            format: Format::None,
            description: None,
            enumeration: Vec::new(),
            properties: Vec::new(),
            has_properties: false,
            required: Vec::new(),
            additional: Extra::Unset,
            items: None,
            minimum: None,
            maximum: None,
            multiple_of: None,
            min_length: None,
            max_length: None,
            pattern: None,
            unique: Unique::No,
            min_items: None,
            max_items: None,
            min_properties: None,
            max_properties: None,
            all_of: Vec::new(),
            any_of: Vec::new(),
            one_of: Vec::new(),
        }
    }
}

impl Node {
    /// The schema of property `name` declared on this node itself.
    pub(crate) fn property(&self, name: &str) -> Option<NodeId> {
        self.properties
            .binary_search_by(|(k, _)| k.len().cmp(&name.len()).then_with(|| (**k).cmp(name)))
            .ok()
            .map(|i| self.properties[i].1)
    }
}

/// A compiled OpenAPI v3 schema. Immutable, `Send + Sync`; validation
/// allocates only to report violations.
#[derive(Debug)]
pub struct Schema {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: NodeId,
}

impl Schema {
    /// An estimate of the memory this schema holds: its nodes and their
    /// texts, and a compiled regular expression's typical size for each
    /// `pattern` (compiled on first use).
    pub fn estimated_bytes(&self) -> usize {
        /// What a compiled `pattern` is taken to cost.
        const PATTERN_BYTES: usize = 4 << 10;
        let node = std::mem::size_of::<Node>();
        self.nodes
            .iter()
            .map(|n| {
                node + n.description.as_ref().map_or(0, |d| d.len())
                    + n.properties
                        .iter()
                        .map(|(k, _)| k.len() + 24)
                        .sum::<usize>()
                    + n.enumeration
                        .iter()
                        .map(|(_, t)| 2 * t.len() + 48)
                        .sum::<usize>()
                    + n.required.iter().map(|r| r.len() + 16).sum::<usize>()
                    + n.pattern
                        .as_ref()
                        .map_or(0, |p| p.source.len() + PATTERN_BYTES)
                    + 8 * (n.all_of.len() + n.any_of.len() + n.one_of.len())
            })
            .sum()
    }

    /// Compiles an `openAPIV3Schema` object. Local `$ref`s
    /// (`#/definitions/...`, `#/components/schemas/...`, `#/$defs/...`)
    /// resolve against `schema` itself.
    pub fn compile(schema: &Json) -> Result<Schema, SchemaError> {
        compile_in(schema, schema).map_err(|m| SchemaError::new("", m))
    }

    /// A schema that accepts anything.
    pub(crate) fn empty() -> Schema {
        Schema {
            nodes: vec![Node::default()],
            root: 0,
        }
    }

    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }
}

/// Compiles `schema`, resolving `$ref`s against `document`. The error is a
/// message naming the place inside the schema.
pub(crate) fn compile_in(schema: &Json, document: &Json) -> Result<Schema, String> {
    let mut c = Compiler {
        document,
        nodes: Vec::new(),
        refs: HashMap::new(),
        path: Vec::new(),
    };
    let root = c.compile(schema, 0).map_err(|m| {
        if c.path.is_empty() {
            m
        } else {
            format!("{}: {m}", c.path.join("."))
        }
    })?;
    combinator_cycles(&c.nodes)?;
    flatten_all_of(&mut c.nodes)?;
    Ok(Schema {
        nodes: c.nodes,
        root,
    })
}

/// Most `allOf` parts one schema may have, transitively.
const MAX_ALL_OF: usize = 1_000;

/// Replaces each node's `allOf` by its transitive closure, so that a
/// diamond of `allOf`s is visited once per part, not once per path.
/// Runs after [`combinator_cycles`]: the `allOf` graph has no cycle.
fn flatten_all_of(nodes: &mut [Node]) -> Result<(), String> {
    for id in 0..nodes.len() {
        if nodes[id]
            .all_of
            .iter()
            .all(|&p| nodes[p as usize].all_of.is_empty())
        {
            continue;
        }
        let mut closure: Vec<NodeId> = Vec::new();
        let mut todo: Vec<NodeId> = nodes[id].all_of.iter().rev().copied().collect();
        while let Some(p) = todo.pop() {
            if closure.contains(&p) {
                continue;
            }
            closure.push(p);
            if closure.len() > MAX_ALL_OF {
                return Err(format!("more than {MAX_ALL_OF} allOf parts in one schema"));
            }
            todo.extend(nodes[p as usize].all_of.iter().rev().copied());
        }
        nodes[id].all_of = closure;
    }
    Ok(())
}

/// A schema that is its own `allOf`/`anyOf`/`oneOf` part (through
/// `$ref`s) describes nothing and would make validation go round: an
/// error, like a cycle of bare `$ref`s. (Recursion through `properties`,
/// `items` or `additionalProperties` is fine: each step consumes a level
/// of the value.)
fn combinator_cycles(nodes: &[Node]) -> Result<(), String> {
    // 0: not seen, 1: on the stack, 2: done. Iterative depth-first search.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        state[start] = 1;
        while let Some((id, next)) = stack.last_mut() {
            let n = &nodes[*id];
            let parts = n.all_of.iter().chain(&n.any_of).chain(&n.one_of);
            match parts.clone().nth(*next) {
                Some(&p) => {
                    *next += 1;
                    match state[p as usize] {
                        0 => {
                            state[p as usize] = 1;
                            stack.push((p as usize, 0));
                        }
                        1 => {
                            return Err(
                                "$ref cycle: a schema is its own allOf/anyOf/oneOf part".to_owned()
                            );
                        }
                        _ => {}
                    }
                }
                None => {
                    state[*id] = 2;
                    stack.pop();
                }
            }
        }
    }
    Ok(())
}

struct Compiler<'a> {
    document: &'a Json,
    nodes: Vec<Node>,
    /// `$ref` text to the node compiled (or being compiled) for it.
    refs: HashMap<String, NodeId>,
    /// Where we are, for error messages.
    path: Vec<String>,
}

fn count(v: &Json, what: &str) -> Result<Option<u64>, String> {
    match v {
        Json::Null => Ok(None),
        Json::Number(n) => match n.as_u64() {
            Some(u) => Ok(Some(u)),
            None => Err(format!("{what} must be a non-negative integer, got {n}")),
        },
        other => Err(format!(
            "{what} must be a non-negative integer, got {other}"
        )),
    }
}

fn number(v: &Json, what: &str) -> Result<Option<Number>, String> {
    match v {
        Json::Null => Ok(None),
        Json::Number(n) => Number::parse(&n.to_string())
            .map(Some)
            .ok_or_else(|| format!("{what}: invalid number {n}")),
        other => Err(format!("{what} must be a number, got {other}")),
    }
}

fn flag(v: &Json, what: &str) -> Result<bool, String> {
    match v {
        Json::Null => Ok(false),
        Json::Bool(b) => Ok(*b),
        other => Err(format!("{what} must be a boolean, got {other}")),
    }
}

pub(crate) fn lit(v: &Json) -> Lit {
    match v {
        Json::Null => Lit::Null,
        Json::Bool(b) => Lit::Bool(*b),
        Json::Number(n) => match Number::parse(&n.to_string()) {
            Some(n) => Lit::Num(n),
            None => Lit::Other(v.clone()),
        },
        Json::String(s) => Lit::Str(s.as_str().into()),
        _ => Lit::Other(v.clone()),
    }
}

fn type_bits(v: &Json) -> Result<u8, String> {
    let one = |s: &str| -> Result<u8, String> {
        ty::NAMES
            .iter()
            .find(|(_, n)| *n == s)
            .map(|(b, _)| *b)
            .ok_or_else(|| format!("unknown type {s:?}"))
    };
    match v {
        Json::Null => Ok(0),
        Json::String(s) => one(s),
        Json::Array(items) => items.iter().try_fold(0, |acc, i| match i {
            Json::String(s) => Ok(acc | one(s)?),
            other => Err(format!("type must name types, got {other}")),
        }),
        other => Err(format!("type must be a string, got {other}")),
    }
}

impl Compiler<'_> {
    fn reserve(&mut self) -> Result<NodeId, String> {
        if self.nodes.len() >= MAX_NODES {
            return Err(format!("schema has more than {MAX_NODES} nodes"));
        }
        self.nodes.push(Node::default());
        Ok((self.nodes.len() - 1) as NodeId)
    }

    fn compile(&mut self, j: &Json, depth: usize) -> Result<NodeId, String> {
        if depth > MAX_DEPTH {
            return Err(format!("schema nested deeper than {MAX_DEPTH} levels"));
        }
        let Json::Object(obj) = j else {
            return Err(format!("a schema must be an object, got {}", kind_name(j)));
        };
        if let Some(r) = obj.get("$ref") {
            let Json::String(r) = r else {
                return Err("$ref must be a string".to_owned());
            };
            return self.reference(r, depth);
        }
        let id = self.reserve()?;
        let node = self.node(obj, depth)?;
        self.nodes[id as usize] = node;
        Ok(id)
    }

    /// The node for a `$ref`, compiling its target the first time.
    fn reference(&mut self, r: &str, depth: usize) -> Result<NodeId, String> {
        if let Some(id) = self.refs.get(r) {
            return Ok(*id);
        }
        // Follow a chain of pure `$ref`s to a real schema.
        let mut chain: Vec<String> = vec![r.to_owned()];
        let target = loop {
            let last = chain.last().map(String::as_str).unwrap_or_default();
            let Some(pointer) = last.strip_prefix('#') else {
                return Err(format!(
                    "$ref {last:?} is not supported: only local references (#/...) are"
                ));
            };
            let Some(target) = self.document.pointer(pointer) else {
                return Err(format!("$ref {last:?} points at nothing"));
            };
            match target.get("$ref") {
                Some(Json::String(next)) => {
                    if let Some(id) = self.refs.get(next.as_str()) {
                        let id = *id;
                        for c in chain {
                            self.refs.insert(c, id);
                        }
                        return Ok(id);
                    }
                    if chain.iter().any(|c| c == next) {
                        chain.push(next.clone());
                        return Err(format!("$ref cycle: {}", chain.join(" -> ")));
                    }
                    if chain.len() > MAX_DEPTH {
                        return Err(format!("$ref chain longer than {MAX_DEPTH}"));
                    }
                    chain.push(next.clone());
                }
                Some(_) => return Err(format!("$ref in {last:?} must be a string")),
                None => break target,
            }
        };
        let Json::Object(obj) = target else {
            return Err(format!(
                "$ref {:?}: a schema must be an object, got {}",
                chain.last().map(String::as_str).unwrap_or_default(),
                kind_name(target)
            ));
        };
        let id = self.reserve()?;
        for c in &chain {
            self.refs.insert(c.clone(), id);
        }
        let saved = std::mem::take(&mut self.path);
        self.path.push(chain.last().cloned().unwrap_or_default());
        let mut node = self.node(obj, depth + 1)?;
        self.path = saved;
        // Kubernetes' OpenAPI documents declare resource.Quantity a string,
        // but the API server (and every tool) takes a number too: `cpu: 1`.
        let target_name = chain.last().map(String::as_str).unwrap_or_default();
        if target_name.ends_with("io.k8s.apimachinery.pkg.api.resource.Quantity") {
            node.format = Format::Quantity;
        }
        self.nodes[id as usize] = node;
        Ok(id)
    }

    fn child(&mut self, key: &str, j: &Json, depth: usize) -> Result<NodeId, String> {
        self.path.push(key.to_owned());
        let id = self.compile(j, depth + 1)?;
        self.path.pop();
        Ok(id)
    }

    fn node(&mut self, obj: &serde_json::Map<String, Json>, depth: usize) -> Result<Node, String> {
        // The keywords without subschemas are read in a function of their
        // own, so that its large frame is not on the stack of the recursion.
        let mut n = scalars(obj)?;
        let get = |k: &str| obj.get(k).unwrap_or(&Json::Null);
        match get("properties") {
            Json::Null => {}
            Json::Object(props) => {
                n.has_properties = true;
                self.path.push("properties".to_owned());
                let mut out = Vec::with_capacity(props.len());
                for (k, v) in props {
                    out.push((k.as_str().into(), self.child(k, v, depth)?));
                }
                self.path.pop();
                // By length, then bytes: a lookup then compares lengths,
                // and reads bytes only for names of the searched length.
                out.sort_by(|a: &(Box<str>, NodeId), b| (a.0.len(), &a.0).cmp(&(b.0.len(), &b.0)));
                n.properties = out;
            }
            other => {
                return Err(format!(
                    "properties must be an object, got {}",
                    kind_name(other)
                ));
            }
        }
        n.additional = match get("additionalProperties") {
            Json::Null => Extra::Unset,
            Json::Bool(false) => Extra::Deny,
            Json::Bool(true) => Extra::Any,
            v => Extra::Schema(self.child("additionalProperties", v, depth)?),
        };
        n.items = match get("items") {
            Json::Null => None,
            // A tuple form: OpenAPI v3 has none; take the first schema.
            Json::Array(list) => match list.first() {
                Some(first) => Some(self.child("items", first, depth)?),
                None => None,
            },
            v => Some(self.child("items", v, depth)?),
        };
        for (key, slot) in [("allOf", 0), ("anyOf", 1), ("oneOf", 2)] {
            match get(key) {
                Json::Null => {}
                Json::Array(list) => {
                    let mut ids = Vec::with_capacity(list.len());
                    for (i, s) in list.iter().enumerate() {
                        ids.push(self.child(&format!("{key}[{i}]"), s, depth)?);
                    }
                    match slot {
                        0 => n.all_of = ids,
                        1 => n.any_of = ids,
                        _ => n.one_of = ids,
                    }
                }
                other => return Err(format!("{key} must be an array, got {}", kind_name(other))),
            }
        }
        Ok(n)
    }
}

/// The keywords of a schema object that hold no subschema.
fn scalars(obj: &serde_json::Map<String, Json>) -> Result<Node, String> {
    let get = |k: &str| obj.get(k).unwrap_or(&Json::Null);
    let mut n = Node {
        types: type_bits(get("type"))?,
        nullable: flag(get("nullable"), "nullable")?,
        int_or_string: flag(
            get("x-kubernetes-int-or-string"),
            "x-kubernetes-int-or-string",
        )?,
        preserve_unknown: flag(
            get("x-kubernetes-preserve-unknown-fields"),
            "x-kubernetes-preserve-unknown-fields",
        )?,
        embedded: flag(
            get("x-kubernetes-embedded-resource"),
            "x-kubernetes-embedded-resource",
        )?,
        description: get("description").as_str().map(Into::into),
        min_length: count(get("minLength"), "minLength")?,
        max_length: count(get("maxLength"), "maxLength")?,
        min_items: count(get("minItems"), "minItems")?,
        max_items: count(get("maxItems"), "maxItems")?,
        min_properties: count(get("minProperties"), "minProperties")?,
        max_properties: count(get("maxProperties"), "maxProperties")?,
        multiple_of: number(get("multipleOf"), "multipleOf")?,
        unique: unique(
            get("x-kubernetes-list-type"),
            get("x-kubernetes-list-map-keys"),
            get("uniqueItems"),
        )?,
        ..Node::default()
    };
    if n.types & ty::NULL != 0 {
        n.nullable = true;
        n.types &= !ty::NULL;
    }
    n.format = match get("format").as_str() {
        Some("date-time") => Format::DateTime,
        Some("int-or-string") => Format::IntOrString,
        Some("quantity") => Format::Quantity,
        _ => Format::None,
    };
    if n.multiple_of.as_ref().is_some_and(|m| m.signum() <= 0) {
        return Err("multipleOf must be greater than 0".to_owned());
    }
    // OpenAPI 3.0: exclusiveMinimum is a flag on minimum; JSON Schema
    // 2019+: it is the bound itself.
    n.minimum = bound(get("minimum"), get("exclusiveMinimum"), "minimum")?;
    n.maximum = bound(get("maximum"), get("exclusiveMaximum"), "maximum")?;
    match get("enum") {
        Json::Null => {}
        Json::Array(values) => {
            n.enumeration = values
                .iter()
                .map(|v| (lit(v), v.to_string().into_boxed_str()))
                .collect();
        }
        other => return Err(format!("enum must be an array, got {}", kind_name(other))),
    }
    match get("required") {
        Json::Null => {}
        Json::Array(names) => {
            for name in names {
                match name {
                    Json::String(s) => n.required.push(s.as_str().into()),
                    other => return Err(format!("required must list names, got {other}")),
                }
            }
        }
        other => {
            return Err(format!(
                "required must be an array, got {}",
                kind_name(other)
            ));
        }
    }
    match get("pattern") {
        Json::Null => {}
        Json::String(p) => {
            // Checked (syntax and size) now, kept for later: see Pattern.
            build_regex(p).map_err(|detail| {
                format!("pattern {p:?} is not a valid regular expression: {detail}")
            })?;
            n.pattern = Some(Pattern {
                source: p.as_str().into(),
                regex: OnceLock::new(),
            });
        }
        other => return Err(format!("pattern must be a string, got {other}")),
    }
    Ok(n)
}

fn bound(value: &Json, exclusive: &Json, what: &str) -> Result<Option<Bound>, String> {
    let ex_what = if what == "minimum" {
        "exclusiveMinimum"
    } else {
        "exclusiveMaximum"
    };
    match (number(value, what)?, exclusive) {
        (v, Json::Null) => Ok(v.map(|value| Bound {
            value,
            exclusive: false,
        })),
        (v, Json::Bool(b)) => Ok(v.map(|value| Bound {
            value,
            exclusive: *b,
        })),
        (None, Json::Number(_)) => Ok(number(exclusive, ex_what)?.map(|value| Bound {
            value,
            exclusive: true,
        })),
        (Some(value), Json::Number(_)) => {
            // Both: keep the tighter one.
            let ex = number(exclusive, ex_what)?.unwrap_or_else(|| value.clone());
            let ex_tighter = if what == "minimum" {
                ex >= value
            } else {
                ex <= value
            };
            Ok(Some(if ex_tighter {
                Bound {
                    value: ex,
                    exclusive: true,
                }
            } else {
                Bound {
                    value,
                    exclusive: false,
                }
            }))
        }
        (_, other) => Err(format!(
            "{ex_what} must be a boolean or a number, got {other}"
        )),
    }
}

pub(crate) fn kind_name(j: &Json) -> &'static str {
    match j {
        Json::Null => "null",
        Json::Bool(_) => "boolean",
        Json::Number(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recursive_structures_compile_once() {
        let s = json!({
            "$ref": "#/definitions/Tree",
            "definitions": {"Tree": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/definitions/Tree"}}}}}
        });
        let c = Schema::compile(&s).unwrap();
        assert_eq!(c.nodes.len(), 2);
    }

    #[test]
    fn pure_ref_cycles_are_errors() {
        let s = json!({"$ref": "#/definitions/A", "definitions": {
            "A": {"$ref": "#/definitions/B"}, "B": {"$ref": "#/definitions/A"}}});
        let e = Schema::compile(&s).unwrap_err();
        assert!(e.message.contains("$ref cycle"), "{e}");
    }

    #[test]
    fn combinator_cycles_are_errors() {
        let s = json!({"$ref": "#/$defs/A", "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}});
        let e = Schema::compile(&s).unwrap_err();
        assert!(e.message.contains("$ref cycle"), "{e}");
    }

    #[test]
    fn patterns_read_like_go_re2() {
        let re = |p: &str| build_regex(p).unwrap();
        assert!(re(r"^\d+$").is_match("123"));
        assert!(!re(r"^\d+$").is_match("\u{661}\u{662}"));
        assert!(re(r"^[\w.-]+$").is_match("a_b.c-d"));
        assert!(!re(r"^[\w.-]+$").is_match("\u{e9}"));
        assert!(re(r"^\\d$").is_match("\\d"));
        assert!(re(r"^\S+\s\D$").is_match("ab x"));
        assert!(re(r"\bword\b").is_match("a word here"));
        assert!(re(r"^\pL+$").is_match("\u{e9}t\u{e9}"));
        assert_eq!(go_syntax("plain"), "plain");
    }

    #[test]
    fn bad_patterns_fail_at_compile_time() {
        let s = json!({"type": "object", "properties": {"a": {"type": "string", "pattern": "(["}}});
        let e = Schema::compile(&s).unwrap_err();
        assert!(e.message.starts_with("properties.a: pattern"), "{e}");
        // Too large to compile is invalid too (bounded memory).
        let s = json!({"type": "string", "pattern": "(a{1000}){1000}"});
        let e = Schema::compile(&s).unwrap_err();
        assert!(e.message.contains("size limit"), "{e}");
    }

    #[test]
    fn non_objects_are_errors() {
        assert!(Schema::compile(&json!("string")).is_err());
        assert!(Schema::compile(&json!({"type": "strin"})).is_err());
        assert!(Schema::compile(&json!({"properties": []})).is_err());
    }

    #[test]
    fn deep_schemas_are_errors() {
        let mut s = json!({"type": "string"});
        for _ in 0..MAX_DEPTH + 2 {
            s = json!({"type": "array", "items": s});
        }
        // Within the bound, on a small stack; one level more is an error.
        let inner = s["items"]["items"].clone();
        std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(1 << 20)
                .spawn_scoped(scope, || assert!(Schema::compile(&inner).is_ok()))
                .unwrap()
                .join()
                .unwrap();
        });
        let e = Schema::compile(&s).unwrap_err();
        assert!(e.message.contains("nested deeper"), "{e}");
    }
}
