//! Type conversion and unification with cty's `convert` package semantics.
//!
//! - [`convert`]: cty `convert.Convert` (safe and unsafe conversions, e.g.
//!   `"12"` → `12`, tuple → list with element unification, object → map,
//!   map → object, null/unknown → typed null/unknown).
//! - [`unify`] / [`unify_unsafe`]: cty `Unify` / `UnifyUnsafe`.
//! - [`conversion_exists`]: whether cty would find a conversion between
//!   two types at all.
//! - [`mismatch_message`]: cty's `MismatchMessage` ("string required",
//!   "element 0: number required", ...).
//!
//! Size: conversion and unification call each other (as in cty's `convert`
//! package); the last ~75 lines are unit tests.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::value::Collection;
use crate::{Key, Number, ObjMap, Type, Value};

/// One step of the path to the element where a conversion failed.
#[derive(Debug, Clone, PartialEq)]
pub enum PathStep {
    /// An object attribute.
    Attr(Key),
    /// A list/tuple/set index or a map key.
    Index(Value),
}

/// A conversion failure: cty's message, plus where it happened.
#[derive(Debug, Clone, PartialEq)]
pub struct ConvertError {
    pub message: String,
    pub path: Vec<PathStep>,
}

impl ConvertError {
    fn new(message: impl Into<String>, path: &[PathStep]) -> ConvertError {
        ConvertError {
            message: message.into(),
            path: path.to_vec(),
        }
    }
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConvertError {}

/// Nesting limit for conversions (types are at most this deep in practice;
/// deeper inputs are refused rather than overflowing the stack).
const MAX_DEPTH: usize = 256;

/// cty `convert.Convert`: converts `v` to type `want`, using unsafe
/// conversions too (string → number/bool, list → set, map → object).
pub fn convert(v: &Value, want: &Type) -> Result<Value, ConvertError> {
    if has_type_shallow(v, want) {
        return Ok(v.clone());
    }
    if let Some(out) = primitive_seq(v, want) {
        return Ok(out);
    }
    let have = v.type_of();
    if have == *want {
        return Ok(v.clone());
    }
    if !exists(&have, want, true, 0) {
        return Err(ConvertError::new(mismatch_message(&have, want), &[]));
    }
    let mut path = Vec::new();
    conv(v, Some(&have), want, true, &mut path, 0)
}

/// True if `v` certainly has type `want` (or `want` is dynamic), decided
/// without computing the type of the whole value: the common cases of a
/// built-in's arguments (a string for a string parameter, anything for an
/// `any` parameter).
pub fn has_type_shallow(v: &Value, want: &Type) -> bool {
    let v = v.unmarked();
    match want {
        Type::Dynamic => true,
        // The scalar kinds are matched, not compared with `Type`'s `==`
        // (a call per argument of every built-in call).
        Type::String | Type::Number | Type::Bool => match v {
            Value::String(_) => matches!(want, Type::String),
            Value::Number(_) => matches!(want, Type::Number),
            Value::Bool(_) => matches!(want, Type::Bool),
            Value::Null(t) | Value::Unknown(t) => t == want,
            _ => false,
        },
        Type::List(e) => matches!(v, Value::List(c) if c.elem == **e),
        Type::Set(e) => matches!(v, Value::Set(c) if c.elem == **e),
        Type::Map(e) => matches!(v, Value::Map(m) if m.elem == **e),
        _ => false,
    }
}

/// cty `convert.GetConversion(...)` applied: only safe conversions.
pub fn convert_safe(v: &Value, want: &Type) -> Result<Value, ConvertError> {
    if let Some(out) = primitive_seq(v, want) {
        return Ok(out);
    }
    let have = v.type_of();
    if have == *want {
        return Ok(v.clone());
    }
    if !exists(&have, want, false, 0) {
        return Err(ConvertError::new(mismatch_message(&have, want), &[]));
    }
    let mut path = Vec::new();
    conv(v, Some(&have), want, false, &mut path, 0)
}

/// True if cty has a conversion from `have` to `want` (unsafe ones
/// included when `unsafe_ok`). A conversion can still fail for particular
/// values (e.g. `"abc"` to number).
pub fn conversion_exists(have: &Type, want: &Type, unsafe_ok: bool) -> bool {
    have == want || exists(have, want, unsafe_ok, 0)
}

// ---------------------------------------------------------------------
// Type level: does a conversion exist? (cty `getConversionKnown != nil`)

fn exists(have: &Type, want: &Type, unsafe_ok: bool, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let d = depth + 1;
    let elem_ok = |a: &Type, b: &Type| a == b || exists(a, b, unsafe_ok, d);
    match (have, want) {
        (_, Type::Dynamic) => true,
        (Type::Dynamic, _) => unsafe_ok,
        (h, w) if h.is_primitive() && w.is_primitive() => {
            h == w
                || matches!((h, w), (Type::Number | Type::Bool, Type::String))
                || (unsafe_ok && matches!((h, w), (Type::String, Type::Number | Type::Bool)))
        }
        (Type::Object(h), Type::Object(w)) => w
            .iter()
            .all(|(name, wt)| h.get(name).is_some_and(|ht| elem_ok(ht, wt))),
        (Type::Tuple(h), Type::Tuple(w)) => {
            h.len() == w.len() && h.iter().zip(w.iter()).all(|(a, b)| elem_ok(a, b))
        }
        (Type::List(he) | Type::Set(he), Type::List(we)) => elem_ok(he, we),
        (Type::List(he), Type::Set(we)) => unsafe_ok && elem_ok(he, we),
        (Type::Set(he), Type::Set(we)) => elem_ok(he, we),
        (Type::Map(he), Type::Map(we)) => elem_ok(he, we),
        (Type::Tuple(hs), Type::List(we) | Type::Set(we)) => {
            seq_elem_type(hs, we, unsafe_ok, d).is_some()
        }
        (Type::Object(h), Type::Map(we)) => {
            if h.is_empty() {
                return true;
            }
            let target = if **we == Type::Dynamic {
                let tys: Vec<Type> = h.values().cloned().collect();
                match unify_depth(&tys, unsafe_ok, d) {
                    Some(t) => t,
                    None => return false,
                }
            } else {
                (**we).clone()
            };
            h.values().all(|t| elem_ok(t, &target))
        }
        (Type::Map(he), Type::Object(w)) => unsafe_ok && w.values().all(|wt| elem_ok(he, wt)),
        _ => false,
    }
}

/// For tuple → list/set: the element type to convert to (unifying the
/// tuple's element types when the target element type is dynamic), or
/// `None` if there is no conversion.
fn seq_elem_type(hs: &[Type], we: &Type, unsafe_ok: bool, depth: usize) -> Option<Type> {
    if hs.is_empty() {
        return Some(we.clone());
    }
    let target = if *we == Type::Dynamic {
        let t = unify_depth(hs, unsafe_ok, depth)?;
        if t == Type::Dynamic && hs.iter().any(|h| *h != Type::Dynamic) {
            return None;
        }
        t
    } else {
        we.clone()
    };
    hs.iter()
        .all(|h| *h == target || exists(h, &target, unsafe_ok, depth))
        .then_some(target)
}

// ---------------------------------------------------------------------
// Value level

/// cty's `dynamicReplace`: the type of a converted null/unknown.
fn dynamic_replace(have: &Type, want: &Type) -> Type {
    if *have == Type::Dynamic {
        return want.clone();
    }
    match want {
        Type::Dynamic => have.clone(),
        Type::Bool | Type::Number | Type::String => want.clone(),
        Type::Map(we) => {
            let elem = match have {
                Type::Map(he) => dynamic_replace(he, we),
                Type::Object(attrs) => {
                    let tys: Vec<Type> = attrs.values().cloned().collect();
                    let u = unify_unsafe(&tys).unwrap_or(Type::Dynamic);
                    dynamic_replace(&u, we)
                }
                _ => Type::Dynamic,
            };
            Type::map(elem)
        }
        Type::Object(wattrs) => {
            let mut out = BTreeMap::new();
            for (name, wt) in wattrs.iter() {
                let t = match have {
                    Type::Map(he) => dynamic_replace(he, wt),
                    Type::Object(hattrs) => match hattrs.get(name) {
                        Some(ht) => dynamic_replace(ht, wt),
                        None => wt.clone(),
                    },
                    _ => continue,
                };
                out.insert(name.clone(), t);
            }
            Type::object(out)
        }
        Type::Set(we) | Type::List(we) => {
            let elem = match have {
                Type::Set(he) | Type::List(he) => dynamic_replace(he, we),
                Type::Tuple(hs) => {
                    let u = unify_unsafe(hs).unwrap_or(Type::Dynamic);
                    dynamic_replace(&u, we)
                }
                _ => Type::Dynamic,
            };
            if want.is_set() {
                Type::set(elem)
            } else {
                Type::list(elem)
            }
        }
        Type::Tuple(ws) => {
            let hs: &[Type] = match have {
                Type::Tuple(hs) => hs,
                _ => &[],
            };
            Type::tuple(
                ws.iter()
                    .enumerate()
                    .map(|(i, w)| dynamic_replace(hs.get(i).unwrap_or(&Type::Dynamic), w))
                    .collect(),
            )
        }
    }
}

fn index_step(i: usize) -> PathStep {
    PathStep::Index(Value::Number(Number::from_u64(i as u64)))
}

/// cty's conversion wrapper (`getConversion`'s returned function): marks,
/// dynamic targets, unknowns and nulls, then the known-value conversion.
/// `known` is `v`'s type when the caller has computed it already (it is
/// computed here otherwise, and only past the tuple shortcut: a walk of
/// the whole value).
fn conv(
    v: &Value,
    known: Option<&Type>,
    want: &Type,
    unsafe_ok: bool,
    path: &mut Vec<PathStep>,
    depth: usize,
) -> Result<Value, ConvertError> {
    if depth > MAX_DEPTH {
        return Err(ConvertError::new("value is nested too deeply", path));
    }
    if let Value::Marked(inner) = v {
        return conv(inner, None, want, unsafe_ok, path, depth).map(Value::mark);
    }
    if *want == Type::Dynamic {
        return Ok(v.clone());
    }
    if let Some(out) = primitive_seq(v, want) {
        return Ok(out);
    }
    let computed;
    let have = match known {
        Some(t) => t,
        None => {
            computed = v.type_of();
            &computed
        }
    };
    match v {
        Value::Unknown(t) => return Ok(Value::Unknown(dynamic_replace(t, want))),
        Value::Null(t) => return Ok(Value::Null(dynamic_replace(t, want))),
        _ => {}
    }
    if have == want {
        return Ok(v.clone());
    }
    conv_known(v, have, want, unsafe_ok, path, depth + 1)
}

/// `v` converted to `want` when `v` is a tuple of known, unmarked values
/// all of the primitive element type of `want`, a list or set type
/// (`join`'s and `sort`'s usual argument): every step of the general
/// conversion keeps them as they are (each already has the target type,
/// so the unification finds it again), so the list or set is made
/// directly, without computing the tuple's type (the entry points ask
/// before they compute it).
///
/// The same when the element type of `want` is dynamic and the values are
/// all of one primitive type: the unification of their types is that type.
fn primitive_seq(v: &Value, want: &Type) -> Option<Value> {
    let (Value::Tuple(items), Type::List(we) | Type::Set(we)) = (v, want) else {
        return None;
    };
    let all = |f: fn(&Value) -> bool| !items.is_empty() && items.iter().all(f);
    let elem = match (&**we, items.first()) {
        (Type::String, _) | (Type::Dynamic, Some(Value::String(_))) => {
            all(|v| matches!(v, Value::String(_))).then_some(Type::String)
        }
        (Type::Number, _) | (Type::Dynamic, Some(Value::Number(_))) => {
            all(|v| matches!(v, Value::Number(_))).then_some(Type::Number)
        }
        (Type::Bool, _) | (Type::Dynamic, Some(Value::Bool(_))) => {
            all(|v| matches!(v, Value::Bool(_))).then_some(Type::Bool)
        }
        _ => None,
    }?;
    Some(if want.is_set() {
        Value::set_from(elem, items.to_vec())
    } else {
        Value::list(elem, items.to_vec())
    })
}

/// Converts and records the path step for a child element.
fn conv_child(
    v: &Value,
    want: &Type,
    unsafe_ok: bool,
    path: &mut Vec<PathStep>,
    step: PathStep,
    depth: usize,
) -> Result<Value, ConvertError> {
    path.push(step);
    let have = v.type_of();
    let r = if have == *want {
        Ok(v.clone())
    } else {
        conv(v, Some(&have), want, unsafe_ok, path, depth)
    };
    path.pop();
    r
}

fn all_same_type(items: &[Value]) -> bool {
    let mut it = items.iter().map(Value::type_of);
    match it.next() {
        None => true,
        Some(first) => it.all(|t| t == first),
    }
}

fn conv_known(
    v: &Value,
    have: &Type,
    want: &Type,
    unsafe_ok: bool,
    path: &mut Vec<PathStep>,
    depth: usize,
) -> Result<Value, ConvertError> {
    let no_conv = |path: &[PathStep]| ConvertError::new(mismatch_message(have, want), path);
    match (v, want) {
        // Primitives.
        (Value::Number(n), Type::String) => Ok(Value::string(n.to_string())),
        (Value::Bool(b), Type::String) => Ok(Value::string(if *b { "true" } else { "false" })),
        (Value::String(s), Type::Number) if unsafe_ok => match Number::parse(s) {
            Some(n) => Ok(Value::Number(n)),
            None => Err(ConvertError::new("a number is required", path)),
        },
        (Value::String(s), Type::Bool) if unsafe_ok => match &**s {
            "true" | "1" => Ok(Value::TRUE),
            "false" | "0" => Ok(Value::FALSE),
            other => {
                let lower = other.to_lowercase();
                let msg = if lower == "true" || lower == "false" {
                    format!("a bool is required; to convert from string, use lowercase \"{lower}\"")
                } else {
                    "a bool is required".to_string()
                };
                Err(ConvertError::new(msg, path))
            }
        },
        // object -> object
        (Value::Object(attrs), Type::Object(wattrs)) => {
            if !exists(have, want, unsafe_ok, depth) {
                return Err(no_conv(path));
            }
            // In key order: `wattrs` is sorted as an `ObjMap` is.
            let mut out = Vec::with_capacity(wattrs.len());
            for (name, wt) in wattrs.iter() {
                let Some(av) = attrs.get(name) else {
                    return Err(no_conv(path));
                };
                let c = conv_child(av, wt, unsafe_ok, path, PathStep::Attr(name.clone()), depth)?;
                out.push((name.clone(), c));
            }
            Ok(Value::object(ObjMap::from_sorted(out)))
        }
        // tuple -> tuple
        (Value::Tuple(items), Type::Tuple(ws)) => {
            if items.len() != ws.len() || !exists(have, want, unsafe_ok, depth) {
                return Err(no_conv(path));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, (item, wt)) in items.iter().zip(ws.iter()).enumerate() {
                out.push(conv_child(item, wt, unsafe_ok, path, index_step(i), depth)?);
            }
            Ok(Value::tuple(out))
        }
        // list/set -> list, list/set -> set
        (Value::List(c) | Value::Set(c), Type::List(we) | Type::Set(we)) => {
            let to_set = want.is_set();
            if !exists(have, want, unsafe_ok, depth) {
                return Err(no_conv(path));
            }
            let mut out = Vec::with_capacity(c.items.len());
            for (i, item) in c.items.iter().enumerate() {
                out.push(conv_child(item, we, unsafe_ok, path, index_step(i), depth)?);
            }
            finish_seq(out, we, &c.elem, to_set, path)
        }
        // map -> map
        (Value::Map(m), Type::Map(we)) => {
            if !exists(have, want, unsafe_ok, depth) {
                return Err(no_conv(path));
            }
            let mut entries = Vec::with_capacity(m.items.len());
            for (k, item) in &m.items {
                let step = PathStep::Index(Value::String(k.clone()));
                entries.push((
                    k.clone(),
                    conv_child(item, we, unsafe_ok, path, step, depth)?,
                ));
            }
            let mut out = ObjMap::from_sorted(entries);
            if out.is_empty() {
                let elem = if **we == Type::Dynamic {
                    m.elem.clone()
                } else {
                    (**we).clone()
                };
                return Ok(Value::map(elem, out));
            }
            if we.is_collection() || we.is_object() {
                out = unify_entries(out, false, path)?;
            }
            make_map(
                out,
                path,
                "element types must all match for conversion to map",
            )
        }
        // tuple -> list / set
        (Value::Tuple(items), Type::List(we) | Type::Set(we)) => {
            let to_set = want.is_set();
            let hs: Vec<Type> = items.iter().map(Value::type_of).collect();
            let Some(target) = seq_elem_type(&hs, we, unsafe_ok, depth) else {
                return Err(no_conv(path));
            };
            if items.is_empty() {
                return Ok(empty_seq((**we).clone(), to_set));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(conv_child(
                    item,
                    &target,
                    unsafe_ok,
                    path,
                    index_step(i),
                    depth,
                )?);
            }
            if !to_set {
                out = unify_list_items(out, unsafe_ok, path)?;
            }
            finish_seq(out, &target, &target, to_set, path)
        }
        // object -> map
        (Value::Object(attrs), Type::Map(we)) => {
            if attrs.is_empty() {
                return Ok(Value::map((**we).clone(), ObjMap::new()));
            }
            let target = if **we == Type::Dynamic {
                let tys: Vec<Type> = attrs.values().map(Value::type_of).collect();
                match unify_depth(&tys, unsafe_ok, depth) {
                    Some(t) => t,
                    None => return Err(no_conv(path)),
                }
            } else {
                (**we).clone()
            };
            if !attrs
                .values()
                .all(|a| a.type_of() == target || exists(&a.type_of(), &target, unsafe_ok, depth))
            {
                return Err(no_conv(path));
            }
            let mut entries = Vec::with_capacity(attrs.len());
            for (k, item) in attrs.iter() {
                let step = PathStep::Index(Value::String(k.clone()));
                entries.push((
                    k.clone(),
                    conv_child(item, &target, unsafe_ok, path, step, depth)?,
                ));
            }
            let mut out = ObjMap::from_sorted(entries);
            if target.is_collection() || target.is_object() {
                out = unify_entries(out, unsafe_ok, path)?;
            }
            make_map(
                out,
                path,
                "attribute types must all match for conversion to map",
            )
        }
        // map -> object (unsafe)
        (Value::Map(m), Type::Object(wattrs)) if unsafe_ok => {
            if !exists(have, want, unsafe_ok, depth) {
                return Err(no_conv(path));
            }
            let mut entries = Vec::with_capacity(wattrs.len());
            for (k, item) in &m.items {
                let Some(wt) = wattrs.get(k) else { continue };
                let step = PathStep::Index(Value::String(k.clone()));
                entries.push((
                    k.clone(),
                    conv_child(item, wt, unsafe_ok, path, step, depth)?,
                ));
            }
            let out = ObjMap::from_sorted(entries);
            for name in wattrs.keys() {
                if !out.contains_key(name) {
                    return Err(ConvertError::new(
                        format!(
                            "map has no element for required attribute {}",
                            go_quote(name)
                        ),
                        path,
                    ));
                }
            }
            Ok(Value::object(out))
        }
        _ => Err(no_conv(path)),
    }
}

fn empty_seq(elem: Type, to_set: bool) -> Value {
    if to_set {
        Value::Set(Arc::new(Collection {
            elem,
            items: Vec::new(),
        }))
    } else {
        Value::list(elem, Vec::new())
    }
}

/// Builds the converted list/set: empty → typed empty collection; else all
/// element types must match.
fn finish_seq(
    items: Vec<Value>,
    want_elem: &Type,
    have_elem: &Type,
    to_set: bool,
    path: &[PathStep],
) -> Result<Value, ConvertError> {
    if items.is_empty() {
        let elem = if *want_elem == Type::Dynamic {
            have_elem.clone()
        } else {
            want_elem.clone()
        };
        return Ok(empty_seq(elem, to_set));
    }
    if !all_same_type(&items) {
        let kind = if to_set { "set" } else { "list" };
        return Err(ConvertError::new(
            format!("element types must all match for conversion to {kind}"),
            path,
        ));
    }
    let elem = items[0].type_of();
    Ok(if to_set {
        Value::set_from(elem, items)
    } else {
        Value::list(elem, items)
    })
}

fn make_map(items: ObjMap, path: &[PathStep], msg: &str) -> Result<Value, ConvertError> {
    let mut tys = items.values().map(Value::type_of);
    let first = tys.next().unwrap_or(Type::Dynamic);
    if tys.any(|t| t != first) {
        return Err(ConvertError::new(msg, path));
    }
    Ok(Value::map(first, items))
}

/// cty `conversionUnifyListElements`.
fn unify_list_items(
    items: Vec<Value>,
    unsafe_ok: bool,
    path: &mut Vec<PathStep>,
) -> Result<Vec<Value>, ConvertError> {
    let tys: Vec<Type> = items.iter().map(Value::type_of).collect();
    let Some(unified) = unify_depth(&tys, unsafe_ok, 0) else {
        return Err(ConvertError::new(
            "cannot find a common base type for all elements",
            path,
        ));
    };
    items
        .into_iter()
        .enumerate()
        .map(|(i, v)| conv_child(&v, &unified, unsafe_ok, path, index_step(i), 0))
        .collect()
}

/// cty `conversionUnifyCollectionElements`.
fn unify_entries(
    items: ObjMap,
    unsafe_ok: bool,
    path: &mut Vec<PathStep>,
) -> Result<ObjMap, ConvertError> {
    let tys: Vec<Type> = items.values().map(Value::type_of).collect();
    let Some(unified) = unify_depth(&tys, unsafe_ok, 0) else {
        return Err(ConvertError::new(
            "cannot find a common base type for all elements",
            path,
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for (k, v) in items.iter() {
        let step = PathStep::Index(Value::String(k.clone()));
        let c = conv_child(v, &unified, unsafe_ok, path, step, 0)?;
        out.push((k.clone(), c));
    }
    Ok(ObjMap::from_sorted(out))
}

// ---------------------------------------------------------------------
// Unification (cty `Unify`, `UnifyUnsafe`)

/// cty `convert.Unify`: the type all of `types` can be safely converted
/// to, or `None`.
pub fn unify(types: &[Type]) -> Option<Type> {
    unify_depth(types, false, 0)
}

/// cty `convert.UnifyUnsafe`: like [`unify`] but allowing unsafe
/// conversions (`[number, string]` → `string`, `[string, bool]` → `string`).
pub fn unify_unsafe(types: &[Type]) -> Option<Type> {
    unify_depth(types, true, 0)
}

fn unify_depth(types: &[Type], unsafe_ok: bool, depth: usize) -> Option<Type> {
    if types.is_empty() || depth > MAX_DEPTH {
        return None;
    }
    // The result depends only on which types occur (cty's preference sort
    // is quadratic, so large tuples of one type must not reach it).
    let mut seen = std::collections::BTreeSet::new();
    let distinct: Vec<Type> = types
        .iter()
        .filter(|t| seen.insert((*t).clone()))
        .cloned()
        .collect();
    let types = &distinct[..];
    let d = depth + 1;
    let count = |f: fn(&Type) -> bool| types.iter().filter(|t| f(t)).count();
    let n = types.len();
    let maps = count(Type::is_map);
    let lists = count(Type::is_list);
    let sets = count(Type::is_set);
    let objects = count(Type::is_object);
    let tuples = count(Type::is_tuple);
    let dynamics = count(|t| *t == Type::Dynamic);

    if maps > 0 && maps + dynamics == n {
        return unify_collections(types, unsafe_ok, dynamics > 0, Type::map, d);
    }
    if maps > 0 && maps + objects + dynamics == n {
        if let Some(t) = unify_objects_as_maps(types, unsafe_ok, d) {
            return Some(t);
        }
    } else if lists > 0 && lists + dynamics == n {
        return unify_collections(types, unsafe_ok, dynamics > 0, Type::list, d);
    } else if lists > 0 && lists + tuples + dynamics == n {
        if let Some(t) = unify_tuples_as_list(types, unsafe_ok, d) {
            return Some(t);
        }
    } else if sets > 0 && sets + dynamics == n {
        return unify_collections(types, unsafe_ok, dynamics > 0, Type::set, d);
    } else if objects > 0 && objects + dynamics == n {
        return unify_object_types(types, unsafe_ok, dynamics > 0, d);
    } else if tuples > 0 && tuples + dynamics == n {
        return unify_tuple_types(types, unsafe_ok, dynamics > 0, d);
    } else if objects > 0 && tuples > 0 {
        return None;
    }

    'pref: for want_idx in sort_types(types) {
        let want = &types[want_idx];
        for (i, t) in types.iter().enumerate() {
            if i == want_idx || t == want {
                continue;
            }
            if !exists(t, want, unsafe_ok, d) {
                continue 'pref;
            }
        }
        return Some(want.clone());
    }
    None
}

fn all_convert(types: &[Type], to: &Type, unsafe_ok: bool, depth: usize) -> bool {
    types
        .iter()
        .all(|t| t == to || exists(t, to, unsafe_ok, depth))
}

fn unify_collections(
    types: &[Type],
    unsafe_ok: bool,
    has_dynamic: bool,
    make: fn(Type) -> Type,
    depth: usize,
) -> Option<Type> {
    if has_dynamic {
        return Some(Type::Dynamic);
    }
    let elems: Vec<Type> = types
        .iter()
        .filter_map(|t| t.element_type().cloned())
        .collect();
    let ret = make(unify_depth(&elems, unsafe_ok, depth)?);
    all_convert(types, &ret, unsafe_ok, depth).then_some(ret)
}

fn unify_objects_as_maps(types: &[Type], unsafe_ok: bool, depth: usize) -> Option<Type> {
    let objs: Vec<Type> = types.iter().filter(|t| t.is_object()).cloned().collect();
    let as_map = unify_object_types_to_map(&objs, unsafe_ok, depth)?;
    let mapped: Vec<Type> = types
        .iter()
        .map(|t| {
            if t.is_object() {
                as_map.clone()
            } else {
                t.clone()
            }
        })
        .collect();
    let t = unify_depth(&mapped, unsafe_ok, depth)?;
    t.is_map().then_some(t)
}

fn unify_tuples_as_list(types: &[Type], unsafe_ok: bool, depth: usize) -> Option<Type> {
    let tuples: Vec<Type> = types.iter().filter(|t| t.is_tuple()).cloned().collect();
    let as_list = unify_tuple_types_to_list(&tuples, unsafe_ok, depth)?;
    let listed: Vec<Type> = types
        .iter()
        .map(|t| {
            if t.is_tuple() {
                as_list.clone()
            } else {
                t.clone()
            }
        })
        .collect();
    let t = unify_depth(&listed, unsafe_ok, depth)?;
    t.is_list().then_some(t)
}

fn unify_object_types(
    types: &[Type],
    unsafe_ok: bool,
    has_dynamic: bool,
    depth: usize,
) -> Option<Type> {
    if has_dynamic {
        return Some(Type::Dynamic);
    }
    let attrs_of = |t: &Type| match t {
        Type::Object(a) => Some(a.clone()),
        _ => None,
    };
    let first = attrs_of(&types[0])?;
    for t in &types[1..] {
        let a = attrs_of(t)?;
        if a.len() != first.len() || a.keys().any(|k| !first.contains_key(k)) {
            return unify_object_types_to_map(types, unsafe_ok, depth);
        }
    }
    let mut ret = BTreeMap::new();
    for name in first.keys() {
        let across: Vec<Type> = types
            .iter()
            .filter_map(|t| attrs_of(t).and_then(|a| a.get(name).cloned()))
            .collect();
        ret.insert(name.clone(), unify_depth(&across, unsafe_ok, depth)?);
    }
    let ret = Type::object(ret);
    if all_convert(types, &ret, unsafe_ok, depth) {
        Some(ret)
    } else {
        unify_object_types_to_map(types, unsafe_ok, depth)
    }
}

fn unify_object_types_to_map(types: &[Type], unsafe_ok: bool, depth: usize) -> Option<Type> {
    let mut atys = Vec::new();
    for t in types {
        if let Type::Object(a) = t {
            atys.extend(a.values().cloned());
        }
    }
    let ret = Type::map(unify_depth(&atys, unsafe_ok, depth)?);
    all_convert(types, &ret, unsafe_ok, depth).then_some(ret)
}

fn unify_tuple_types(
    types: &[Type],
    unsafe_ok: bool,
    has_dynamic: bool,
    depth: usize,
) -> Option<Type> {
    if has_dynamic {
        return Some(Type::Dynamic);
    }
    let elems_of = |t: &Type| match t {
        Type::Tuple(e) => e.clone(),
        _ => Arc::from(Vec::new()),
    };
    let first = elems_of(&types[0]);
    if types[1..].iter().any(|t| elems_of(t).len() != first.len()) {
        return unify_tuple_types_to_list(types, unsafe_ok, depth);
    }
    let mut ret = Vec::with_capacity(first.len());
    for i in 0..first.len() {
        let across: Vec<Type> = types.iter().map(|t| elems_of(t)[i].clone()).collect();
        ret.push(unify_depth(&across, unsafe_ok, depth)?);
    }
    let ret = Type::tuple(ret);
    if all_convert(types, &ret, unsafe_ok, depth) {
        Some(ret)
    } else {
        unify_tuple_types_to_list(types, unsafe_ok, depth)
    }
}

fn unify_tuple_types_to_list(types: &[Type], unsafe_ok: bool, depth: usize) -> Option<Type> {
    let mut etys = Vec::new();
    for t in types {
        if let Type::Tuple(e) = t {
            etys.extend(e.iter().cloned());
        }
    }
    let ret = Type::list(unify_depth(&etys, unsafe_ok, depth)?);
    all_convert(types, &ret, unsafe_ok, depth).then_some(ret)
}

/// cty `compareTypes`: negative if `a` is preferred over `b` when unifying.
fn compare_types(a: &Type, b: &Type) -> i32 {
    if *a == Type::Dynamic || *b == Type::Dynamic {
        return match (*a == Type::Dynamic, *b == Type::Dynamic) {
            (false, true) => -1,
            (true, false) => 1,
            _ => 0,
        };
    }
    if a.is_primitive() && b.is_primitive() && (*a == Type::String || *b == Type::String) {
        return match (*a == Type::String, *b == Type::String) {
            (false, true) => 1,
            (true, false) => -1,
            _ => 0,
        };
    }
    match (a, b) {
        (Type::List(x), Type::List(y))
        | (Type::Set(x), Type::Set(y))
        | (Type::Map(x), Type::Map(y)) => {
            return compare_types(x, y);
        }
        _ => {}
    }
    let (a, b, swap) = match (a, b) {
        (Type::Tuple(_), Type::List(_))
        | (Type::Object(_), Type::Map(_))
        | (Type::Set(_), Type::Tuple(_))
        | (Type::Set(_), Type::List(_)) => (b, a, -1),
        _ => (a, b, 1),
    };
    if b.is_set() && (a.is_tuple() || a.is_list()) {
        return -swap;
    }
    if a.is_list() && b.is_tuple() {
        return -swap;
    }
    if a.is_map() && b.is_object() {
        return -swap;
    }
    let fold = |pairs: Vec<(Type, Type)>| {
        let (mut a_super, mut b_super) = (false, false);
        for (x, y) in pairs {
            match compare_types(&x, &y) {
                c if c < 0 => a_super = true,
                c if c > 0 => b_super = true,
                _ => {}
            }
        }
        match (a_super, b_super) {
            (true, true) | (false, false) => 0,
            (true, false) => -swap,
            (false, true) => swap,
        }
    };
    match (a, b) {
        (Type::Object(x), Type::Object(y)) => {
            if x.len() != y.len() {
                return 0;
            }
            let mut pairs = Vec::new();
            for (k, xt) in x.iter() {
                let Some(yt) = y.get(k) else { return 0 };
                pairs.push((xt.clone(), yt.clone()));
            }
            fold(pairs)
        }
        (Type::Tuple(x), Type::Tuple(y)) => {
            if x.len() != y.len() {
                return 0;
            }
            fold(x.iter().cloned().zip(y.iter().cloned()).collect())
        }
        _ => 0,
    }
}

/// cty `sortTypes`: indexes of `types` in preference order (a topological
/// order of [`compare_types`], ties in input order).
fn sort_types(types: &[Type]) -> Vec<usize> {
    let n = types.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        for j in i + 1..n {
            let c = compare_types(&types[i], &types[j]);
            if c < 0 {
                edges[i].push(j);
            } else if c > 0 {
                edges[j].push(i);
            }
        }
    }
    let mut indeg = vec![0usize; n];
    for outs in &edges {
        for &j in outs {
            indeg[j] += 1;
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut out = Vec::with_capacity(n);
    while let Some(i) = queue.pop_front() {
        out.push(i);
        for &j in &edges[i] {
            indeg[j] -= 1;
            if indeg[j] == 0 {
                queue.push_back(j);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------
// Messages (cty `MismatchMessage`)

/// Go's `unicode.IsPrint` for non-ASCII characters, approximated without
/// Unicode tables: false for C1 controls, non-ASCII spaces, line/paragraph
/// separators, format characters and private-use characters.
fn go_is_print_non_ascii(c: char) -> bool {
    let u = c as u32;
    !matches!(u,
        0x80..=0x9F
        | 0xA0 | 0xAD | 0x1680 | 0x2000..=0x200F | 0x2028..=0x202F | 0x205F..=0x2064
        | 0x2066..=0x206F | 0x3000 | 0xFEFF | 0xFFF9..=0xFFFB | 0xFFFE | 0xFFFF
        | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x08E2 | 0x180E
        | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0001 | 0xE0020..=0xE007F | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF)
}

/// Go's `%q` (`strconv.Quote`) for attribute names in messages and cty's
/// set ordering.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if (c as u32) < 0x80 || go_is_print_non_ascii(c) => out.push(c),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

fn mismatch_depth(got: &Type, want: &Type, depth: usize) -> String {
    let required = || format!("{} required", want.friendly_name_for_constraint());
    if depth > MAX_DEPTH {
        return required();
    }
    let d = depth + 1;
    match (got, want) {
        (Type::Object(g), Type::Object(w)) => {
            let mut missing: Vec<&Key> = Vec::new();
            let mut unsafe_mismatch: Option<String> = None;
            let mut safe_mismatch: Option<String> = None;
            for (name, wt) in w.iter() {
                let Some(gt) = g.get(name) else {
                    missing.push(name);
                    continue;
                };
                if gt == wt {
                    continue;
                }
                if unsafe_mismatch.is_some() {
                    continue;
                }
                let msg = || {
                    format!(
                        "attribute {}: {}",
                        go_quote(name),
                        mismatch_depth(gt, wt, d)
                    )
                };
                if !exists(gt, wt, true, d) {
                    unsafe_mismatch = Some(msg());
                }
                if safe_mismatch.is_none() && !exists(gt, wt, false, d) {
                    safe_mismatch = Some(msg());
                }
            }
            match missing.len() {
                0 => unsafe_mismatch
                    .or(safe_mismatch)
                    .unwrap_or_else(|| "incorrect object attributes".into()),
                1 => format!("attribute {} is required", go_quote(missing[0])),
                2 => format!(
                    "attributes {} and {} are required",
                    go_quote(missing[0]),
                    go_quote(missing[1])
                ),
                _ => {
                    let (last, rest) = missing
                        .split_last()
                        .map_or((None, &[][..]), |(l, r)| (Some(l), r));
                    let mut s = String::new();
                    for m in rest {
                        s.push_str(&go_quote(m));
                        s.push_str(", ");
                    }
                    if let Some(l) = last {
                        s.push_str("and ");
                        s.push_str(&go_quote(l));
                    }
                    format!("attributes {s} are required")
                }
            }
        }
        (Type::Tuple(_), Type::List(we)) if **we == Type::Dynamic => {
            "all list elements must have the same type".into()
        }
        (Type::Tuple(_), Type::Set(we)) if **we == Type::Dynamic => {
            "all set elements must have the same type".into()
        }
        (Type::Object(_), Type::Map(we)) if **we == Type::Dynamic => {
            "all map elements must have the same type".into()
        }
        (Type::Tuple(gs), Type::List(we) | Type::Set(we)) => {
            for (i, gt) in gs.iter().enumerate() {
                if gt == &**we || exists(gt, we, true, d) {
                    continue;
                }
                return format!("element {i}: {}", mismatch_depth(gt, we, d));
            }
            format!("all elements must be {}", we.friendly_name_for_constraint())
        }
        (Type::Object(g), Type::Map(we)) => {
            for (name, gt) in g.iter() {
                if gt == &**we || exists(gt, we, true, d) {
                    continue;
                }
                return format!("element {}: {}", go_quote(name), mismatch_depth(gt, we, d));
            }
            format!("all elements must be {}", we.friendly_name_for_constraint())
        }
        (Type::Tuple(_) | Type::Object(_), w) if w.is_collection() => required(),
        (g, w) if g.is_collection() && w.is_collection() => {
            let compatible = match w {
                Type::List(_) | Type::Set(_) => g.is_list() || g.is_set(),
                _ => g.is_map(),
            };
            if !compatible {
                return required();
            }
            let (Some(ge), Some(we)) = (g.element_type(), w.element_type()) else {
                return required();
            };
            let noun = match w {
                Type::List(_) => "list element type",
                Type::Set(_) => "set element type",
                _ => "map element type",
            };
            format!("incorrect {noun}: {}", mismatch_depth(ge, we, d))
        }
        _ => required(),
    }
}

/// cty `MismatchMessage(got, want)`: why a value of type `got` does not
/// fit `want`.
pub fn mismatch_message(got: &Type, want: &Type) -> String {
    mismatch_depth(got, want, 0)
}

#[cfg(test)]
mod quote_tests {
    use super::go_quote;

    #[test]
    fn quotes_like_go() {
        // Expected strings from Go's strconv.Quote.
        let cases = [
            ("abc", r#""abc""#),
            ("a\"b\\c", r#""a\"b\\c""#),
            ("\n\t\r\u{7}\u{0}\u{7f}", r#""\n\t\r\a\x00\x7f""#),
            ("é😀", "\"é😀\""),
            (
                "\u{a0}\u{2028}\u{feff}\u{85}",
                r#""\u00a0\u2028\ufeff\u0085""#,
            ),
            ("\u{f0000}", r#""\U000f0000""#),
        ];
        for (input, want) in cases {
            assert_eq!(go_quote(input), want, "{input:?}");
        }
    }
}

#[cfg(test)]
mod primitive_seq_tests {
    use super::*;

    /// The direct list or set of a tuple of primitives is what the general
    /// conversion makes, and tuples it does not fit take the general way.
    #[test]
    fn agrees_with_the_general_conversion() {
        let s = || Value::string("7");
        let n = || Value::Number(Number::from_i64(7));
        let tuples = [
            vec![s(), Value::string("b"), s()],
            vec![n(), Value::Number(Number::from_i64(-2)), n()],
            vec![Value::TRUE, Value::FALSE, Value::TRUE],
            vec![s(), n()],
            vec![Value::string("true"), Value::TRUE],
            vec![s(), Value::Null(Type::String)],
            vec![s(), Value::Unknown(Type::String)],
            vec![s(), s().mark()],
            vec![s(), Value::string("x")],
            vec![Value::tuple(vec![s()])],
            vec![],
        ];
        let elems = [Type::String, Type::Number, Type::Bool, Type::Dynamic];
        for items in &tuples {
            let v = Value::tuple(items.clone());
            for elem in &elems {
                for want in [Type::list(elem.clone()), Type::set(elem.clone())] {
                    for unsafe_ok in [false, true] {
                        let fast = conv(&v, None, &want, unsafe_ok, &mut Vec::new(), 0);
                        let general =
                            conv_known(&v, &v.type_of(), &want, unsafe_ok, &mut Vec::new(), 1);
                        assert_eq!(fast, general, "{v:?} to {want} (unsafe: {unsafe_ok})");
                        // The entry points answer the same where it converts
                        // (their mismatch messages carry no path).
                        let entry = if unsafe_ok {
                            convert(&v, &want)
                        } else {
                            convert_safe(&v, &want)
                        };
                        if let Ok(general) = general {
                            assert_eq!(entry, Ok(general), "{v:?} to {want}");
                        } else {
                            assert!(entry.is_err(), "{v:?} to {want}");
                        }
                    }
                }
            }
        }
    }
}
