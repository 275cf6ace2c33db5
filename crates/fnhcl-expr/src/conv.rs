//! cty type conversion and unification, as used by the functions
//! (`convert.Convert`, `convert.UnifyUnsafe`), plus cty value equality and
//! set construction.
//!
//! TEMPORARY: a copy of fnhcl-functions' interim conversion module, used
//! until `fnhcl_value` provides conversion (then this file goes away).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use fnhcl_value::{Key, Type, Value};

/// Recursion guard for deeply nested values/types.
const MAX_DEPTH: usize = 512;

/// cty `convert.Convert` (unsafe conversions allowed). The error is cty's
/// message ("a number is required", "list of string required", ...).
pub(crate) fn convert(v: &Value, to: &Type) -> Result<Value, String> {
    if v.type_of() == *to {
        return Ok(v.clone());
    }
    let from = v.type_of();
    if !conv_exists(&from, to, 0) {
        return Err(mismatch_message(&from, to, 0));
    }
    conv_value(v, to, 0)
}

/// cty `convert.UnifyUnsafe`: the common type of `types`, or `None`.
pub(crate) fn unify(types: &[Type]) -> Option<Type> {
    unify_d(types, 0)
}

// ---------------------------------------------------------------------
// Conversion, type level.

fn conv_exists(from: &Type, to: &Type, d: usize) -> bool {
    if d > MAX_DEPTH {
        return false;
    }
    if from == to {
        return true;
    }
    let d = d + 1;
    match (from, to) {
        (_, Type::Dynamic) => true,
        (Type::Dynamic, _) => true,
        (a, b) if a.is_primitive() && b.is_primitive() => true,
        (Type::Object(fa), Type::Object(ta)) => ta.iter().all(|(k, t)| {
            fa.get(k)
                .map(|f| f == t || conv_exists(f, t, d))
                .unwrap_or(false)
        }),
        (Type::Tuple(fe), Type::Tuple(te)) => {
            fe.len() == te.len() && fe.iter().zip(te.iter()).all(|(f, t)| conv_exists(f, t, d))
        }
        (Type::List(fe) | Type::Set(fe), Type::List(te) | Type::Set(te)) => {
            fe == te || conv_exists(fe, te, d)
        }
        (Type::Map(fe), Type::Map(te)) => conv_exists(fe, te, d),
        (Type::Tuple(fe), Type::List(te) | Type::Set(te)) => tuple_target_ety(fe, te, d).is_some(),
        (Type::Object(fa), Type::Map(te)) => object_target_ety(fa, te, d).is_some(),
        (Type::Map(fe), Type::Object(ta)) => ta
            .values()
            .all(|t| fe.as_ref() == t || conv_exists(fe, t, d)),
        _ => false,
    }
}

/// Element type a tuple converts to for a list/set target with element
/// type `te` (unifying when `te` is dynamic), if convertible.
fn tuple_target_ety(fe: &[Type], te: &Type, d: usize) -> Option<Type> {
    if fe.is_empty() {
        return Some(te.clone());
    }
    let ety = if *te == Type::Dynamic {
        let u = unify_d(fe, d)?;
        if u == Type::Dynamic && fe.iter().any(|t| *t != Type::Dynamic) {
            return None;
        }
        u
    } else {
        te.clone()
    };
    if fe.iter().all(|t| *t == ety || conv_exists(t, &ety, d)) {
        Some(ety)
    } else {
        None
    }
}

fn object_target_ety(fa: &BTreeMap<Key, Type>, te: &Type, d: usize) -> Option<Type> {
    if fa.is_empty() {
        return Some(te.clone());
    }
    let ety = if *te == Type::Dynamic {
        let tys: Vec<Type> = fa.values().cloned().collect();
        unify_d(&tys, d)?
    } else {
        te.clone()
    };
    if fa.values().all(|t| *t == ety || conv_exists(t, &ety, d)) {
        Some(ety)
    } else {
        None
    }
}

// ---------------------------------------------------------------------
// Conversion, value level.

fn conv_value(v: &Value, to: &Type, d: usize) -> Result<Value, String> {
    if d > MAX_DEPTH {
        return Err("value is too deeply nested".into());
    }
    if let Value::Marked(inner) = v {
        return conv_value(inner, to, d).map(Value::mark);
    }
    if *to == Type::Dynamic {
        return Ok(v.clone());
    }
    let from = v.type_of();
    if from == *to {
        return Ok(v.clone());
    }
    match v {
        Value::Unknown(t) => return Ok(Value::Unknown(dynamic_replace(t, to, d))),
        Value::Null(t) => return Ok(Value::Null(dynamic_replace(t, to, d))),
        _ => {}
    }
    let d1 = d + 1;
    match (v, to) {
        (Value::Number(n), Type::String) => Ok(Value::string(n.to_string())),
        (Value::Bool(b), Type::String) => Ok(Value::string(if *b { "true" } else { "false" })),
        (Value::String(s), Type::Number) => fnhcl_value::Number::parse(s)
            .filter(|_| valid_number_syntax(s))
            .map(Value::Number)
            .ok_or_else(|| "a number is required".to_owned()),
        (Value::String(s), Type::Bool) => match &**s {
            "true" | "1" => Ok(Value::TRUE),
            "false" | "0" => Ok(Value::FALSE),
            other => match other.to_lowercase().as_str() {
                "true" => {
                    Err("a bool is required; to convert from string, use lowercase \"true\"".into())
                }
                "false" => Err(
                    "a bool is required; to convert from string, use lowercase \"false\"".into(),
                ),
                _ => Err("a bool is required".into()),
            },
        },
        (Value::Object(attrs), Type::Object(ta)) => {
            let mut out = BTreeMap::new();
            for (k, t) in ta.iter() {
                let Some(av) = attrs.get(k) else {
                    return Err(mismatch_message(&from, to, d));
                };
                out.insert(k.clone(), conv_value(av, t, d1)?);
            }
            Ok(Value::object(out))
        }
        (Value::Tuple(items), Type::Tuple(te)) => {
            if items.len() != te.len() {
                return Err(mismatch_message(&from, to, d));
            }
            let out = items
                .iter()
                .zip(te.iter())
                .map(|(v, t)| conv_value(v, t, d1))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Value::tuple(out))
        }
        (Value::List(c) | Value::Set(c), Type::List(te) | Type::Set(te)) => {
            let items = c
                .items
                .iter()
                .map(|v| conv_value(v, te, d1))
                .collect::<Result<Vec<_>, _>>()?;
            let ety = if **te == Type::Dynamic {
                c.elem.clone()
            } else {
                (**te).clone()
            };
            finish_seq(items, ety, matches!(to, Type::Set(_)), d)
        }
        (Value::Tuple(items), Type::List(te) | Type::Set(te)) => {
            let fe: Vec<Type> = items.iter().map(Value::type_of).collect();
            let Some(ety) = tuple_target_ety(&fe, te, d) else {
                return Err(mismatch_message(&from, to, d));
            };
            let conv = items
                .iter()
                .map(|v| conv_value(v, &ety, d1))
                .collect::<Result<Vec<_>, _>>()?;
            finish_seq(conv, ety, matches!(to, Type::Set(_)), d)
        }
        (Value::Map(m), Type::Map(te)) => {
            let mut out = BTreeMap::new();
            for (k, v) in &m.items {
                out.insert(k.clone(), conv_value(v, te, d1)?);
            }
            let ety = if **te == Type::Dynamic {
                m.elem.clone()
            } else {
                (**te).clone()
            };
            finish_map(out, ety, d)
        }
        (Value::Object(attrs), Type::Map(te)) => {
            let fa: BTreeMap<Key, Type> = attrs
                .iter()
                .map(|(k, v)| (k.clone(), v.type_of()))
                .collect();
            let Some(ety) = object_target_ety(&fa, te, d) else {
                return Err(mismatch_message(&from, to, d));
            };
            let mut out = BTreeMap::new();
            for (k, v) in attrs.iter() {
                out.insert(k.clone(), conv_value(v, &ety, d1)?);
            }
            finish_map(out, ety, d)
        }
        (Value::Map(m), Type::Object(ta)) => {
            let mut out = BTreeMap::new();
            for (k, t) in ta.iter() {
                let Some(v) = m.items.get(k) else {
                    return Err(format!("map has no element for required attribute {k:?}"));
                };
                out.insert(k.clone(), conv_value(v, t, d1)?);
            }
            Ok(Value::object(out))
        }
        _ => Err(mismatch_message(&from, to, d)),
    }
}

/// cty's `ParseNumberVal` accepts decimal syntax only (no `inf`, `nan`,
/// hex); Rust's float parser is more permissive.
fn valid_number_syntax(s: &str) -> bool {
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
        && s.starts_with(|c: char| c.is_ascii_digit() || c == '.')
}

/// Builds a list/set from converted items: unifies their types (items
/// converted from dynamic may still differ) and checks they agree.
fn finish_seq(items: Vec<Value>, ety: Type, set: bool, d: usize) -> Result<Value, String> {
    if items.is_empty() {
        return Ok(if set {
            make_set(ety, Vec::new())
        } else {
            Value::list(ety, Vec::new())
        });
    }
    let tys: Vec<Type> = items.iter().map(Value::type_of).collect();
    let Some(u) = unify_d(&tys, d) else {
        return Err("cannot find a common base type for all elements".into());
    };
    let items = items
        .iter()
        .map(|v| conv_value(v, &u, d + 1))
        .collect::<Result<Vec<_>, _>>()?;
    if items.iter().any(|v| v.type_of() != u) {
        let what = if set { "set" } else { "list" };
        return Err(format!(
            "element types must all match for conversion to {what}"
        ));
    }
    Ok(if set {
        make_set(u, items)
    } else {
        Value::list(u, items)
    })
}

fn finish_map(items: BTreeMap<Key, Value>, ety: Type, d: usize) -> Result<Value, String> {
    if items.is_empty() {
        return Ok(Value::map(ety, BTreeMap::new()));
    }
    let tys: Vec<Type> = items.values().map(Value::type_of).collect();
    let Some(u) = unify_d(&tys, d) else {
        return Err("cannot find a common base type for all elements".into());
    };
    let mut out = BTreeMap::new();
    for (k, v) in items {
        let v = conv_value(&v, &u, d + 1)?;
        if v.type_of() != u {
            return Err("element types must all match for conversion to map".into());
        }
        out.insert(k, v);
    }
    Ok(Value::map(u, out))
}

/// cty `dynamicReplace`: the type of a converted null/unknown.
fn dynamic_replace(from: &Type, to: &Type, d: usize) -> Type {
    if *from == Type::Dynamic || d > MAX_DEPTH {
        return to.clone();
    }
    let d = d + 1;
    match to {
        Type::Dynamic => from.clone(),
        Type::Bool | Type::Number | Type::String => to.clone(),
        Type::Map(te) => {
            let ety = match from {
                Type::Map(fe) => dynamic_replace(fe, te, d),
                Type::Object(fa) => {
                    let tys: Vec<Type> = fa.values().cloned().collect();
                    let u = unify_d(&tys, d).unwrap_or(Type::Dynamic);
                    dynamic_replace(&u, te, d)
                }
                _ => Type::Dynamic,
            };
            Type::map(ety)
        }
        Type::Object(ta) => {
            let mut out = BTreeMap::new();
            for (k, t) in ta.iter() {
                let nt = match from {
                    Type::Map(fe) => dynamic_replace(fe, t, d),
                    Type::Object(fa) => match fa.get(k) {
                        Some(ft) => dynamic_replace(ft, t, d),
                        None => t.clone(),
                    },
                    _ => t.clone(),
                };
                out.insert(k.clone(), nt);
            }
            Type::object(out)
        }
        Type::List(te) | Type::Set(te) => {
            let ety = match from {
                Type::List(fe) | Type::Set(fe) => dynamic_replace(fe, te, d),
                Type::Tuple(fe) => {
                    let u = unify_d(fe, d).unwrap_or(Type::Dynamic);
                    dynamic_replace(&u, te, d)
                }
                _ => Type::Dynamic,
            };
            if matches!(to, Type::Set(_)) {
                Type::set(ety)
            } else {
                Type::list(ety)
            }
        }
        Type::Tuple(te) => {
            let fe: &[Type] = match from {
                Type::Tuple(fe) => fe,
                _ => &[],
            };
            Type::tuple(
                te.iter()
                    .enumerate()
                    .map(|(i, t)| dynamic_replace(fe.get(i).unwrap_or(&Type::Dynamic), t, d))
                    .collect(),
            )
        }
    }
}

// ---------------------------------------------------------------------
// Mismatch messages (cty `MismatchMessage`).

pub(crate) fn friendly_for_constraint(t: &Type) -> String {
    match t {
        Type::Dynamic => "any type".into(),
        Type::List(e) => format!("list of {}", constraint_elem(e)),
        Type::Set(e) => format!("set of {}", constraint_elem(e)),
        Type::Map(e) => format!("map of {}", constraint_elem(e)),
        other => other.friendly_name(),
    }
}

fn constraint_elem(e: &Type) -> String {
    if *e == Type::Dynamic {
        "any single type".into()
    } else {
        friendly_for_constraint(e)
    }
}

fn mismatch_message(got: &Type, want: &Type, d: usize) -> String {
    if d > MAX_DEPTH {
        return "value is too deeply nested".into();
    }
    let d = d + 1;
    match (got, want) {
        (Type::Object(ga), Type::Object(wa)) => {
            let missing: Vec<&Key> = wa.keys().filter(|k| !ga.contains_key(*k)).collect();
            match missing.len() {
                0 => {}
                1 => return format!("attribute {:?} is required", missing[0]),
                2 => {
                    return format!(
                        "attributes {:?} and {:?} are required",
                        missing[0], missing[1]
                    );
                }
                n => {
                    let mut s = String::new();
                    for k in &missing[..n - 1] {
                        s.push_str(&format!("{k:?}, "));
                    }
                    s.push_str(&format!("and {:?}", missing[n - 1]));
                    return format!("attributes {s} are required");
                }
            }
            for (k, wt) in wa.iter() {
                if let Some(gt) = ga.get(k)
                    && gt != wt
                    && !conv_exists(gt, wt, d)
                {
                    return format!("attribute {k:?}: {}", mismatch_message(gt, wt, d));
                }
            }
            "incorrect object attributes".into()
        }
        (Type::Tuple(_), Type::List(e)) if **e == Type::Dynamic => {
            "all list elements must have the same type".into()
        }
        (Type::Tuple(_), Type::Set(e)) if **e == Type::Dynamic => {
            "all set elements must have the same type".into()
        }
        (Type::Object(_), Type::Map(e)) if **e == Type::Dynamic => {
            "all map elements must have the same type".into()
        }
        (Type::Tuple(ge), Type::List(we) | Type::Set(we)) => {
            for (i, g) in ge.iter().enumerate() {
                if g != &**we && !conv_exists(g, we, d) {
                    return format!("element {i}: {}", mismatch_message(g, we, d));
                }
            }
            format!("all elements must be {}", friendly_for_constraint(we))
        }
        (Type::Object(ga), Type::Map(we)) => {
            for (k, g) in ga.iter() {
                if g != &**we && !conv_exists(g, we, d) {
                    return format!("element {k:?}: {}", mismatch_message(g, we, d));
                }
            }
            format!("all elements must be {}", friendly_for_constraint(we))
        }
        (Type::List(ge) | Type::Set(ge), Type::List(we) | Type::Set(we))
        | (Type::Map(ge), Type::Map(we)) => {
            let noun = match want {
                Type::List(_) => "list element type",
                Type::Set(_) => "set element type",
                _ => "map element type",
            };
            format!("incorrect {noun}: {}", mismatch_message(ge, we, d))
        }
        (_, Type::Number) => "a number is required".into(),
        (_, Type::Bool) => "a bool is required".into(),
        _ => format!("{} required", friendly_for_constraint(want)),
    }
}

// ---------------------------------------------------------------------
// Unification (cty `unify`, unsafe mode).

fn unify_d(types: &[Type], d: usize) -> Option<Type> {
    if types.is_empty() || d > MAX_DEPTH {
        return None;
    }
    let d = d + 1;
    let n = types.len();
    let count = |f: fn(&Type) -> bool| types.iter().filter(|t| f(t)).count();
    let map_ct = count(|t| matches!(t, Type::Map(_)));
    let list_ct = count(|t| matches!(t, Type::List(_)));
    let set_ct = count(|t| matches!(t, Type::Set(_)));
    let obj_ct = count(|t| matches!(t, Type::Object(_)));
    let tup_ct = count(|t| matches!(t, Type::Tuple(_)));
    let dyn_ct = count(|t| matches!(t, Type::Dynamic));
    if map_ct > 0 && map_ct + dyn_ct == n {
        return unify_collections(types, d, dyn_ct > 0, Type::map);
    } else if map_ct > 0 && map_ct + obj_ct + dyn_ct == n {
        if let Some(t) = unify_objects_as_maps(types, d) {
            return Some(t);
        }
    } else if list_ct > 0 && list_ct + dyn_ct == n {
        return unify_collections(types, d, dyn_ct > 0, Type::list);
    } else if list_ct > 0 && list_ct + tup_ct + dyn_ct == n {
        if let Some(t) = unify_tuples_as_list(types, d) {
            return Some(t);
        }
    } else if set_ct > 0 && set_ct + dyn_ct == n {
        return unify_collections(types, d, dyn_ct > 0, Type::set);
    } else if obj_ct > 0 && obj_ct + dyn_ct == n {
        return unify_objects(types, d, dyn_ct > 0);
    } else if tup_ct > 0 && tup_ct + dyn_ct == n {
        return unify_tuples(types, d, dyn_ct > 0);
    } else if obj_ct > 0 && tup_ct > 0 {
        return None;
    }
    for want in sort_types(types) {
        let want = &types[want];
        if types.iter().all(|t| t == want || conv_exists(t, want, d)) {
            return Some(want.clone());
        }
    }
    None
}

fn unify_collections(
    types: &[Type],
    d: usize,
    has_dynamic: bool,
    make: fn(Type) -> Type,
) -> Option<Type> {
    if has_dynamic {
        return Some(Type::Dynamic);
    }
    let etys: Vec<Type> = types
        .iter()
        .filter_map(|t| t.element_type().cloned())
        .collect();
    let ret = make(unify_d(&etys, d)?);
    types
        .iter()
        .all(|t| *t == ret || conv_exists(t, &ret, d))
        .then_some(ret)
}

fn unify_objects_as_maps(types: &[Type], d: usize) -> Option<Type> {
    let objs: Vec<Type> = types
        .iter()
        .filter(|t| matches!(t, Type::Object(_)))
        .cloned()
        .collect();
    let m = unify_objects_to_map(&objs, d)?;
    let mapped: Vec<Type> = types
        .iter()
        .map(|t| {
            if matches!(t, Type::Object(_)) {
                m.clone()
            } else {
                t.clone()
            }
        })
        .collect();
    unify_d(&mapped, d).filter(|t| matches!(t, Type::Map(_)))
}

fn unify_tuples_as_list(types: &[Type], d: usize) -> Option<Type> {
    let tups: Vec<Type> = types
        .iter()
        .filter(|t| matches!(t, Type::Tuple(_)))
        .cloned()
        .collect();
    let l = unify_tuples_to_list(&tups, d)?;
    let listed: Vec<Type> = types
        .iter()
        .map(|t| {
            if matches!(t, Type::Tuple(_)) {
                l.clone()
            } else {
                t.clone()
            }
        })
        .collect();
    unify_d(&listed, d).filter(|t| matches!(t, Type::List(_)))
}

fn unify_objects(types: &[Type], d: usize, has_dynamic: bool) -> Option<Type> {
    if has_dynamic {
        return Some(Type::Dynamic);
    }
    let attrs = |t: &Type| match t {
        Type::Object(a) => a.clone(),
        _ => Arc::new(BTreeMap::new()),
    };
    let first = attrs(&types[0]);
    for t in &types[1..] {
        let a = attrs(t);
        if a.len() != first.len() || a.keys().any(|k| !first.contains_key(k)) {
            return unify_objects_to_map(types, d);
        }
    }
    let mut ret = BTreeMap::new();
    for k in first.keys() {
        let across: Vec<Type> = types
            .iter()
            .map(|t| attrs(t).get(k).cloned().unwrap_or(Type::Dynamic))
            .collect();
        ret.insert(k.clone(), unify_d(&across, d)?);
    }
    let ret = Type::object(ret);
    if types.iter().all(|t| *t == ret || conv_exists(t, &ret, d)) {
        Some(ret)
    } else {
        unify_objects_to_map(types, d)
    }
}

fn unify_objects_to_map(types: &[Type], d: usize) -> Option<Type> {
    let mut atys = Vec::new();
    for t in types {
        if let Type::Object(a) = t {
            atys.extend(a.values().cloned());
        }
    }
    let ret = Type::map(unify_d(&atys, d)?);
    types
        .iter()
        .all(|t| *t == ret || conv_exists(t, &ret, d))
        .then_some(ret)
}

fn unify_tuples(types: &[Type], d: usize, has_dynamic: bool) -> Option<Type> {
    if has_dynamic {
        return Some(Type::Dynamic);
    }
    let elems = |t: &Type| match t {
        Type::Tuple(e) => e.to_vec(),
        _ => Vec::new(),
    };
    let first = elems(&types[0]);
    if types[1..].iter().any(|t| elems(t).len() != first.len()) {
        return unify_tuples_to_list(types, d);
    }
    let mut ret = Vec::with_capacity(first.len());
    for i in 0..first.len() {
        let across: Vec<Type> = types.iter().map(|t| elems(t)[i].clone()).collect();
        ret.push(unify_d(&across, d)?);
    }
    let ret = Type::tuple(ret);
    if types.iter().all(|t| *t == ret || conv_exists(t, &ret, d)) {
        Some(ret)
    } else {
        unify_tuples_to_list(types, d)
    }
}

fn unify_tuples_to_list(types: &[Type], d: usize) -> Option<Type> {
    let mut etys = Vec::new();
    for t in types {
        if let Type::Tuple(e) = t {
            etys.extend(e.iter().cloned());
        }
    }
    let ret = Type::list(unify_d(&etys, d)?);
    types
        .iter()
        .all(|t| *t == ret || conv_exists(t, &ret, d))
        .then_some(ret)
}

/// cty `sortTypes`: a topological order of preference (most general
/// first).
fn sort_types(tys: &[Type]) -> Vec<usize> {
    let l = tys.len();
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); l];
    for i in 0..l.saturating_sub(1) {
        for j in i + 1..l {
            match compare_types(&tys[i], &tys[j], 0) {
                Ordering::Less => edges[i].push(j),
                Ordering::Greater => edges[j].push(i),
                Ordering::Equal => {}
            }
        }
    }
    let mut indeg = vec![0usize; l];
    for outs in &edges {
        for &j in outs {
            indeg[j] += 1;
        }
    }
    let mut result: Vec<usize> = (0..l).filter(|&i| indeg[i] == 0).collect();
    let mut q = 0;
    while q < result.len() {
        let i = result[q];
        q += 1;
        for &j in &edges[i] {
            indeg[j] -= 1;
            if indeg[j] == 0 {
                result.push(j);
            }
        }
    }
    result
}

/// cty `compareTypes`: Less means `a` is preferred (more general).
fn compare_types(a: &Type, b: &Type, d: usize) -> Ordering {
    if d > MAX_DEPTH {
        return Ordering::Equal;
    }
    let d = d + 1;
    match (a, b) {
        (Type::Dynamic, Type::Dynamic) => return Ordering::Equal,
        (_, Type::Dynamic) => return Ordering::Less,
        (Type::Dynamic, _) => return Ordering::Greater,
        _ => {}
    }
    if a.is_primitive() && b.is_primitive() {
        return match (a == &Type::String, b == &Type::String) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => Ordering::Equal,
        };
    }
    match (a, b) {
        (Type::List(x), Type::List(y))
        | (Type::Set(x), Type::Set(y))
        | (Type::Map(x), Type::Map(y)) => {
            return compare_types(x, y, d);
        }
        _ => {}
    }
    let (a, b, swap) = match (a, b) {
        (Type::Tuple(_), Type::List(_))
        | (Type::Object(_), Type::Map(_))
        | (Type::Set(_), Type::Tuple(_))
        | (Type::Set(_), Type::List(_)) => (b, a, true),
        _ => (a, b, false),
    };
    let flip = |o: Ordering| if swap { o.reverse() } else { o };
    match (a, b) {
        (Type::Tuple(_) | Type::List(_), Type::Set(_)) => return flip(Ordering::Less),
        (Type::List(_), Type::Tuple(_)) => return flip(Ordering::Less),
        (Type::Map(_), Type::Object(_)) => return flip(Ordering::Less),
        (Type::Object(x), Type::Object(y)) => {
            if x.len() != y.len() {
                return Ordering::Equal;
            }
            let mut a_super = false;
            let mut b_super = false;
            for (k, xt) in x.iter() {
                let Some(yt) = y.get(k) else {
                    return Ordering::Equal;
                };
                match compare_types(xt, yt, d) {
                    Ordering::Less => a_super = true,
                    Ordering::Greater => b_super = true,
                    Ordering::Equal => {}
                }
            }
            return flip(super_order(a_super, b_super));
        }
        (Type::Tuple(x), Type::Tuple(y)) => {
            if x.len() != y.len() {
                return Ordering::Equal;
            }
            let mut a_super = false;
            let mut b_super = false;
            for (xt, yt) in x.iter().zip(y.iter()) {
                match compare_types(xt, yt, d) {
                    Ordering::Less => a_super = true,
                    Ordering::Greater => b_super = true,
                    Ordering::Equal => {}
                }
            }
            return flip(super_order(a_super, b_super));
        }
        _ => {}
    }
    Ordering::Equal
}

fn super_order(a_super: bool, b_super: bool) -> Ordering {
    match (a_super, b_super) {
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

// ---------------------------------------------------------------------
// Equality and sets.

/// A set value: duplicates removed, elements in cty's set order (strings
/// by bytes, numbers numerically, false before true; unknowns last; other
/// element types in a stable structural order).
pub(crate) fn make_set(elem: Type, items: Vec<Value>) -> Value {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for v in items {
        // Unknown elements never compare equal, so they are all kept.
        if v.is_wholly_known() && out.iter().any(|o| o.is_wholly_known() && *o == v) {
            continue;
        }
        out.push(v);
    }
    out.sort_by(set_order);
    // `Value::list` builds the shared collection; re-tag it as a set.
    match Value::list(elem, out) {
        Value::List(c) => Value::Set(c),
        other => other,
    }
}

fn set_order(a: &Value, b: &Value) -> Ordering {
    let (ak, bk) = (a.is_known(), b.is_known());
    if ak != bk {
        return if ak {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    match (a.unmarked(), b.unmarked()) {
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Number(x), Value::Number(y)) => x.cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        (x, y) => format!("{x:?}").cmp(&format!("{y:?}")),
    }
}
