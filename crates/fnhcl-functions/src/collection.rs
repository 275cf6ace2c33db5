//! Collection functions (cty stdlib and Terraform `funcs` semantics, as
//! Terraform 1.5.7 registers them).
//!
//! Size: 51 built-ins of one family, each a short section with its own argument
//! checks, grouped as Terraform's registry groups them; the last ~70 lines are
//! unit tests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use fnhcl_value::{Key, Number, ObjMap, Type, Value};

use crate::args::{num, to_int};
use crate::convert::{convert, equals, make_set, unify};
use crate::error::CallError;
use crate::limits_coll::{MAX_NESTING, check_size};
use crate::quote::go_quote_basic;
use crate::registry::{FuncDef, Param, Registry};
use fnhcl_value::shape::{Attrs, Shape, shape};

pub(crate) fn register(r: &mut Registry) {
    let list_bool = || Type::list(Type::Bool);
    r.add(
        FuncDef::new(
            "alltrue",
            "Returns true if all elements of the list are true (or the list is empty).",
        )
        .param(Param::new("list", list_bool()))
        .returns(Type::Bool)
        .implement(|args| {
            for v in seq(&args[0]) {
                match v.unmarked() {
                    Value::Unknown(_) => return Ok(Value::Unknown(Type::Bool)),
                    Value::Null(_) | Value::Bool(false) => return Ok(Value::FALSE),
                    _ => {}
                }
            }
            Ok(Value::TRUE)
        }),
    );
    r.add(
        FuncDef::new(
            "anytrue",
            "Returns true if any element of the list is true (false for an empty list).",
        )
        .param(Param::new("list", list_bool()))
        .returns(Type::Bool)
        .implement(|args| {
            let mut unknown = false;
            for v in seq(&args[0]) {
                match v.unmarked() {
                    Value::Unknown(_) => unknown = true,
                    Value::Bool(true) => return Ok(Value::TRUE),
                    _ => {}
                }
            }
            Ok(if unknown {
                Value::Unknown(Type::Bool)
            } else {
                Value::FALSE
            })
        }),
    );
    r.add(
        FuncDef::new(
            "chunklist",
            "Splits a list into fixed-size chunks, returning a list of lists.",
        )
        .param(Param::new("list", Type::list(Type::Dynamic)).allow_marked())
        .param(Param::new("size", Type::Number).allow_marked())
        .returns_with("list(list)", |args| Ok(Type::list(args[0].type_of())))
        .implement(chunklist),
    );
    r.add(
        FuncDef::new(
            "coalesce",
            "Returns the first argument that is not null and not an empty string.",
        )
        .variadic(
            Param::new("vals", Type::Dynamic)
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null(),
        )
        .returns_with("any", |args| {
            let tys: Vec<Type> = args.iter().map(Value::type_of).collect();
            unify(&tys).ok_or_else(|| CallError::new("all arguments must have the same type"))
        })
        .implement(coalesce),
    );
    r.add(
        FuncDef::new(
            "coalescelist",
            "Returns the first of the given lists or tuples that is not empty.",
        )
        .variadic(
            Param::new("vals", Type::Dynamic)
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null(),
        )
        .returns_with("any", coalescelist_type)
        .implement(|args| {
            let ret = coalescelist_type(args)?;
            for a in args {
                if !a.is_known() {
                    return Ok(Value::Unknown(ret));
                }
                if a.is_null() {
                    continue;
                }
                if !seq(a).is_empty() {
                    return Ok(a.clone());
                }
            }
            Err(CallError::new("no non-null arguments"))
        }),
    );
    r.add(
        FuncDef::new(
            "compact",
            "Removes null and empty-string elements from a list of strings.",
        )
        .param(Param::new("list", Type::list(Type::String)))
        .returns_with("list(string)", |_| Ok(Type::list(Type::String)))
        .implement(|args| {
            if !args[0].is_wholly_known() {
                return Ok(Value::Unknown(Type::list(Type::String)));
            }
            let out: Vec<Value> = seq(&args[0])
                .iter()
                .filter(|v| !v.is_null() && v.as_str() != Some(""))
                .cloned()
                .collect();
            Ok(Value::list(Type::String, out))
        }),
    );
    r.add(
        FuncDef::new(
            "concat",
            "Combines two or more lists or tuples into a single list or tuple.",
        )
        .variadic(Param::new("seqs", Type::Dynamic).allow_marked())
        .returns_with("list or tuple", concat_type)
        .implement(concat),
    );
    r.add(
        FuncDef::new(
            "contains",
            "Returns true if the list, tuple or set contains the given value.",
        )
        .param(Param::new("list", Type::Dynamic))
        .param(Param::new("value", Type::Dynamic))
        .returns(Type::Bool)
        .implement(contains),
    );
    r.add(
        FuncDef::new(
            "distinct",
            "Removes duplicate elements from a list, keeping the first occurrence.",
        )
        .param(Param::new("list", Type::list(Type::Dynamic)))
        .returns_with("same as list", |args| Ok(args[0].type_of()))
        .implement(|args| {
            let ret = args[0].type_of();
            if !args[0].is_wholly_known() {
                return Ok(Value::Unknown(ret));
            }
            let mut seen = std::collections::HashSet::new();
            let mut out: Vec<Value> = Vec::new();
            for v in seq(&args[0]) {
                if seen.insert(eq_key(v)) {
                    out.push(v.clone());
                }
            }
            Ok(Value::list(elem_of(&ret), out))
        }),
    );
    r.add(
        FuncDef::new(
            "element",
            "Returns the element at the given index of a list, wrapping around past the end.",
        )
        .param(Param::new("list", Type::Dynamic).allow_marked())
        .param(Param::new("index", Type::Number))
        .returns_with("element type", element_type)
        .implement(element),
    );
    r.add(
        FuncDef::new("flatten", "Replaces nested lists, sets and tuples with their elements, recursively, giving a flat tuple.")
            .param(Param::new("list", Type::Dynamic).allow_marked())
            .returns_with("tuple", flatten_type)
            .implement(flatten),
    );
    r.add(
        FuncDef::new(
            "index",
            "Returns the index of the first element of a list or tuple equal to the given value.",
        )
        .param(Param::new("list", Type::Dynamic))
        .param(Param::new("value", Type::Dynamic))
        .returns(Type::Number)
        .implement(index),
    );
    r.add(
        FuncDef::new(
            "keys",
            "Returns the keys of a map, or the attribute names of an object, in lexical order.",
        )
        .param(
            Param::new("inputMap", Type::Dynamic)
                .allow_unknown()
                .allow_marked(),
        )
        .returns_with("list(string) or tuple", keys_type)
        .implement(keys),
    );
    r.add(
        FuncDef::new("length", "Returns the number of elements of a collection or structure, or of characters in a string.")
            .param(
                Param::new("value", Type::Dynamic)
                    .allow_dynamic_type()
                    .allow_unknown()
                    .allow_marked(),
            )
            .returns_with("number", |args| {
                match shape(&args[0]) {
                    Shape::Bool | Shape::Number => Err(CallError::new(
                        "argument must be a string, a collection type, or a structural type",
                    )),
                    _ => Ok(Type::Number),
                }
            })
            .implement(length),
    );
    r.add(
        FuncDef::new("lookup", "Returns the value of a map element or object attribute, or the default if it is absent.")
            .param(Param::new("inputMap", Type::Dynamic).allow_marked())
            .param(Param::new("key", Type::String).allow_marked())
            .variadic(
                Param::new("default", Type::Dynamic)
                    .allow_unknown()
                    .allow_dynamic_type()
                    .allow_null()
                    .allow_marked(),
            )
            .returns_with("element type", lookup_type)
            .implement(lookup),
    );
    r.add(
        FuncDef::new(
            "matchkeys",
            "Returns the elements of values whose corresponding keys are in searchset.",
        )
        .param(Param::new("values", Type::list(Type::Dynamic)))
        .param(Param::new("keys", Type::list(Type::Dynamic)))
        .param(Param::new("searchset", Type::list(Type::Dynamic)))
        .returns_with("same as values", |args| {
            unify(&[args[1].type_of(), args[2].type_of()])
                .ok_or_else(|| CallError::new("keys and searchset must be of the same type"))?;
            Ok(args[0].type_of())
        })
        .implement(matchkeys),
    );
    r.add(
        FuncDef::new(
            "merge",
            "Merges maps or objects; later arguments take precedence for duplicate keys.",
        )
        .variadic(
            Param::new("maps", Type::Dynamic)
                .allow_dynamic_type()
                .allow_null()
                .allow_marked(),
        )
        .returns_with("map or object", merge_type)
        .implement(merge),
    );
    r.add(
        FuncDef::new(
            "one",
            "Returns the only element of a list, set or tuple of length 1, or null if it is empty.",
        )
        .param(Param::new("list", Type::Dynamic))
        .returns_with("element type", one_type)
        .implement(one),
    );
    r.add(
        FuncDef::new("range", "Generates a list of numbers from start (default 0) up to but not including limit, by step.")
            .variadic(Param::new("params", Type::Number))
            .returns_with("list(number)", |_| Ok(Type::list(Type::Number)))
            .implement(range),
    );
    r.add(
        FuncDef::new(
            "reverse",
            "Returns a list or tuple with the elements in reverse order.",
        )
        .param(Param::new("list", Type::Dynamic).allow_marked())
        .returns_with("list or tuple", reverse_type)
        .implement(|args| {
            let ret = reverse_type(args)?;
            let (v, marked) = unmark_top(&args[0]);
            let mut items = seq(&v).to_vec();
            items.reverse();
            Ok(match ret {
                Type::Tuple(_) => Value::tuple(items),
                t => Value::list(elem_of(&t), items),
            }
            .mark_if(marked))
        }),
    );
    let set_dyn = || Type::set(Type::Dynamic);
    r.add(
        FuncDef::new(
            "setintersection",
            "Returns the elements that all of the given sets have in common.",
        )
        .param(Param::new("first_set", set_dyn()).allow_dynamic_type())
        .variadic(Param::new("other_sets", set_dyn()).allow_dynamic_type())
        .returns_with("set", set_op_type)
        .implement(|args| set_op(args, SetOp::Intersection)),
    );
    r.add(
        FuncDef::new(
            "setsubtract",
            "Returns the elements of the first set that are not in the second.",
        )
        .param(Param::new("a", set_dyn()).allow_dynamic_type())
        .param(Param::new("b", set_dyn()).allow_dynamic_type())
        .returns_with("set", set_op_type)
        .implement(|args| set_op(args, SetOp::Subtract)),
    );
    r.add(
        FuncDef::new(
            "setunion",
            "Returns the elements that are in any of the given sets.",
        )
        .param(Param::new("first_set", set_dyn()).allow_dynamic_type())
        .variadic(Param::new("other_sets", set_dyn()).allow_dynamic_type())
        .returns_with("set", set_op_type)
        .implement(|args| set_op(args, SetOp::Union)),
    );
    r.add(
        FuncDef::new(
            "setproduct",
            "Returns every combination of one element from each of the given sets or lists.",
        )
        .variadic(Param::new("sets", Type::Dynamic).allow_marked())
        .returns_with("set or list of tuples", setproduct_type)
        .implement(setproduct),
    );
    r.add(
        FuncDef::new("slice", "Returns the elements of a list or tuple from start_index (inclusive) to end_index (exclusive).")
            .param(Param::new("list", Type::Dynamic).allow_marked())
            .param(Param::new("start_index", Type::Number))
            .param(Param::new("end_index", Type::Number))
            .returns_with("list or tuple", slice_type)
            .implement(slice),
    );
    r.add(
        FuncDef::new("sort", "Sorts a list of strings lexically.")
            .param(Param::new("list", Type::list(Type::String)))
            .returns_with("list(string)", |_| Ok(Type::list(Type::String)))
            .implement(|args| {
                if !args[0].is_wholly_known() {
                    return Ok(Value::Unknown(Type::list(Type::String)));
                }
                let mut out: Vec<&str> = Vec::new();
                for (i, v) in seq(&args[0]).iter().enumerate() {
                    match v.as_str() {
                        Some(s) => out.push(s),
                        None => {
                            return Err(CallError::new(format!(
                                "given list element {i} is null; a null string cannot be sorted"
                            )));
                        }
                    }
                }
                out.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
                Ok(Value::list(
                    Type::String,
                    out.into_iter().map(Value::string).collect(),
                ))
            }),
    );
    r.add(
        FuncDef::new(
            "sum",
            "Returns the sum of the numbers in a list, set or tuple.",
        )
        .param(Param::new("list", Type::Dynamic))
        .returns(Type::Number)
        .implement(sum),
    );
    r.add(
        FuncDef::new(
            "transpose",
            "Swaps the keys and values of a map of lists of strings.",
        )
        .param(Param::new("values", Type::map(Type::list(Type::String))))
        .returns_with("map(list(string))", |_| {
            Ok(Type::map(Type::list(Type::String)))
        })
        .implement(transpose),
    );
    r.add(
        FuncDef::new(
            "values",
            "Returns the values of a map or object, ordered by key.",
        )
        .param(Param::new("mapping", Type::Dynamic).allow_marked())
        .returns_with("list or tuple", values_type)
        .implement(|args| {
            values_type(args)?;
            let (v, marked) = unmark_top(&args[0]);
            let items: Vec<Value> = v
                .as_entries()
                .map(|m| m.values().cloned().collect())
                .unwrap_or_default();
            Ok(match shape(&v) {
                Shape::Map(e) => Value::list(e.clone(), items),
                _ => Value::tuple(items),
            }
            .mark_if(marked))
        }),
    );
    r.add(
        FuncDef::new(
            "zipmap",
            "Builds a map (or object) from a list of keys and a list (or tuple) of values.",
        )
        .param(Param::new("keys", Type::list(Type::String)).allow_marked())
        .param(Param::new("values", Type::Dynamic).allow_marked())
        .returns_with("map or object", zipmap_type)
        .implement(zipmap),
    );
    for (name, description) in [
        (
            "list",
            "Removed in Terraform v0.12: always fails; write tolist([...]) instead.",
        ),
        (
            "map",
            "Removed in Terraform v0.12: always fails; write tomap({...}) instead.",
        ),
    ] {
        let def = FuncDef::new(name, description).variadic(
            Param::new("vals", Type::Dynamic)
                .allow_unknown()
                .allow_dynamic_type()
                .allow_null(),
        );
        r.add(if name == "list" {
            def.returns_with("error", |_| Err(CallError::new(msg_of("list"))))
                .implement(|_| Err(CallError::new(msg_of("list"))))
        } else {
            def.returns_with("error", |_| Err(CallError::new(msg_of("map"))))
                .implement(|_| Err(CallError::new(msg_of("map"))))
        });
    }
}

fn msg_of(name: &str) -> String {
    if name == "list" {
        "the \"list\" function was deprecated in Terraform v0.12 and is no longer available; use tolist([ ... ]) syntax to write a literal list".into()
    } else {
        "the \"map\" function was deprecated in Terraform v0.12 and is no longer available; use tomap({ ... }) syntax to write a literal map".into()
    }
}

// ---------------------------------------------------------------------
// Helpers.

/// Elements of a list, set or tuple (empty for anything else).
pub(crate) fn seq(v: &Value) -> &[Value] {
    v.as_seq().unwrap_or(&[])
}

/// Element type of a collection type (dynamic otherwise).
fn elem_of(t: &Type) -> Type {
    t.element_type().cloned().unwrap_or(Type::Dynamic)
}

/// cty `Unmark`: removes the top-level mark only.
fn unmark_top(v: &Value) -> (Value, bool) {
    match v {
        Value::Marked(inner) => (unmark_top(inner).0, true),
        other => (other.clone(), false),
    }
}

/// A key for a wholly known value such that two values of the same type
/// have equal keys exactly when cty's `Equals` says they are equal
/// (numbers by value, `-0` = `0`; marks ignored). Lets `distinct` and the
/// set operations run in linear time. A string (the usual element) is
/// its own key, borrowed; any other value gets a canonical text.
#[derive(PartialEq, Eq, Hash)]
enum EqKey<'a> {
    Text(&'a str),
    Built(String),
}

fn eq_key(v: &Value) -> EqKey<'_> {
    match v.unmarked() {
        Value::String(s) => EqKey::Text(s),
        other => EqKey::Built(eq_text(other)),
    }
}

/// [`eq_key`]'s canonical text of a value.
fn eq_text(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v.unmarked() {
            Value::Null(_) => out.push('N'),
            Value::Unknown(_) => out.push('?'),
            Value::Bool(b) => out.push(if *b { 'T' } else { 'F' }),
            Value::Number(n) if n.is_zero() => out.push_str("n0;"),
            Value::Number(n) => {
                let _ = write!(out, "n{n};");
            }
            Value::String(s) => {
                let _ = write!(out, "s{}:{s}", s.len());
            }
            Value::List(c) | Value::Set(c) => {
                out.push('[');
                c.items.iter().for_each(|e| walk(e, out));
                out.push(']');
            }
            Value::Tuple(items) => {
                out.push('(');
                items.iter().for_each(|e| walk(e, out));
                out.push(')');
            }
            Value::Map(m) => {
                out.push('{');
                for (k, e) in &m.items {
                    let _ = write!(out, "{}:{k}", k.len());
                    walk(e, out);
                }
                out.push('}');
            }
            Value::Object(attrs) => {
                out.push('<');
                for (k, e) in attrs.iter() {
                    let _ = write!(out, "{}:{k}", k.len());
                    walk(e, out);
                }
                out.push('>');
            }
            Value::Marked(inner) => walk(inner, out),
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

/// cty's `NumberIntVal` for counts and indexes (64-bit precision).
fn count(n: usize) -> Value {
    Value::Number(Number::cty_int_val(i64::try_from(n).unwrap_or(i64::MAX)))
}

fn int_arg(args: &[Value], i: usize) -> Result<i64, String> {
    to_int(num(args, i).map_err(|e| e.message)?)
}

// ---------------------------------------------------------------------
// Implementations.

fn chunklist(args: &[Value]) -> Result<Value, CallError> {
    let (list, m1) = unmark_top(&args[0]);
    let (size, m2) = unmark_top(&args[1]);
    let marked = m1 || m2;
    let list_ty = list.type_of();
    let size = int_arg(&[size], 0).map_err(|e| CallError::new(format!("invalid size: {e}")))?;
    if size < 0 {
        return Err(CallError::new("the size argument must be positive"));
    }
    let items = seq(&list);
    if items.is_empty() {
        return Ok(Value::list(list_ty, Vec::new()).mark_if(marked));
    }
    let ety = elem_of(&list_ty);
    if size == 0 {
        return Ok(Value::list(list_ty, vec![list.clone()]).mark_if(marked));
    }
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    let out: Vec<Value> = items
        .chunks(size)
        .map(|c| Value::list(ety.clone(), c.to_vec()))
        .collect();
    Ok(Value::list(list_ty, out).mark_if(marked))
}

fn coalesce(args: &[Value]) -> Result<Value, CallError> {
    let tys: Vec<Type> = args.iter().map(Value::type_of).collect();
    let ret = unify(&tys).ok_or_else(|| CallError::new("all arguments must have the same type"))?;
    for a in args {
        let v = convert(a, &ret).map_err(CallError::new)?;
        if !v.is_known() {
            return Ok(Value::Unknown(ret));
        }
        if v.is_null() {
            continue;
        }
        if ret == Type::String && v.as_str() == Some("") {
            continue;
        }
        return Ok(v);
    }
    Err(CallError::new("no non-null, non-empty-string arguments"))
}

fn coalescelist_type(args: &[Value]) -> Result<Type, CallError> {
    if args.is_empty() {
        return Err(CallError::new("at least one argument is required"));
    }
    let mut tys = Vec::with_capacity(args.len());
    for a in args {
        if !a.is_known() {
            return Ok(Type::Dynamic);
        }
        let t = a.type_of();
        if !matches!(t, Type::List(_) | Type::Tuple(_)) {
            return Err(CallError::new(
                "coalescelist arguments must be lists or tuples",
            ));
        }
        tys.push(t);
    }
    if tys.iter().all(|t| *t == tys[0]) {
        Ok(tys[0].clone())
    } else {
        Ok(Type::Dynamic)
    }
}

fn concat_type(args: &[Value]) -> Result<Type, CallError> {
    if args.is_empty() {
        return Err(CallError::new("at least one argument is required"));
    }
    let tys: Vec<Type> = args.iter().map(Value::type_of).collect();
    if tys.iter().all(|t| matches!(t, Type::List(_)))
        && let Some(u) = unify(&tys)
    {
        return Ok(u);
    }
    let mut etys = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match a.type_of() {
            Type::Tuple(es) => etys.extend(es.iter().cloned()),
            Type::List(e) => {
                if !a.is_known() {
                    return Ok(Type::Dynamic);
                }
                let n = seq(a).len();
                check_size(etys.len().saturating_add(n))?;
                etys.extend(std::iter::repeat_n((*e).clone(), n));
            }
            t => {
                return Err(CallError::arg(
                    i,
                    format!(
                        "all arguments must be lists or tuples; got {}",
                        t.friendly_name()
                    ),
                ));
            }
        }
        check_size(etys.len())?;
    }
    Ok(Type::tuple(etys))
}

fn concat(args: &[Value]) -> Result<Value, CallError> {
    let ret = concat_type(args)?;
    let mut marked = false;
    let mut vals = Vec::new();
    match &ret {
        Type::List(e) => {
            for (i, a) in args.iter().enumerate() {
                let c = convert(a, &ret).map_err(|m| CallError::arg(i, m))?;
                let (c, m) = unmark_top(&c);
                marked |= m;
                vals.extend(seq(&c).iter().cloned());
                check_size(vals.len())?;
            }
            Ok(Value::list((**e).clone(), vals).mark_if(marked))
        }
        _ => {
            for a in args {
                let (c, m) = unmark_top(a);
                marked |= m;
                vals.extend(seq(&c).iter().cloned());
                check_size(vals.len())?;
            }
            Ok(Value::tuple(vals).mark_if(marked))
        }
    }
}

fn contains(args: &[Value]) -> Result<Value, CallError> {
    let list = &args[0];
    if !matches!(
        shape(list),
        Shape::List(_) | Shape::Tuple(_) | Shape::Set(_)
    ) {
        return Err(CallError::new("argument must be list, tuple, or set"));
    }
    if list.is_null() {
        return Err(CallError::new("cannot search a nil list or set"));
    }
    let items = seq(list);
    if items.is_empty() {
        return Ok(Value::FALSE);
    }
    if !list.is_known() || !args[1].is_known() {
        return Ok(Value::Unknown(Type::Bool));
    }
    let mut unknown = false;
    for v in items {
        match equals(&args[1], v) {
            Some(true) => return Ok(Value::TRUE),
            None => unknown = true,
            Some(false) => {}
        }
    }
    Ok(if unknown {
        Value::Unknown(Type::Bool)
    } else {
        Value::FALSE
    })
}

fn element_type(args: &[Value]) -> Result<Type, CallError> {
    let (list, index) = (&args[0], &args[1]);
    if let Some(n) = index.as_number()
        && n.is_negative()
    {
        return Err(CallError::new(
            "cannot use element function with a negative index",
        ));
    }
    match list.type_of() {
        Type::List(e) => Ok((*e).clone()),
        Type::Tuple(es) => {
            if !index.is_known() {
                return Ok(Type::Dynamic);
            }
            let i = int_arg(args, 1).map_err(|e| CallError::new(format!("invalid index: {e}")))?;
            if es.is_empty() {
                return Err(CallError::new(
                    "cannot use element function with an empty list",
                ));
            }
            let i = usize::try_from(i).unwrap_or(0) % es.len();
            Ok(es[i].clone())
        }
        t => Err(CallError::new(format!(
            "cannot read elements from {}",
            t.friendly_name()
        ))),
    }
}

fn element(args: &[Value]) -> Result<Value, CallError> {
    let ret = element_type(args)?;
    let i = int_arg(args, 1).map_err(|e| CallError::new(format!("invalid index: {e}")))?;
    if i < 0 {
        return Err(CallError::new(
            "cannot use element function with a negative index",
        ));
    }
    let (input, marked) = unmark_top(&args[0]);
    if !input.is_known() {
        return Ok(Value::Unknown(ret));
    }
    let items = seq(&input);
    if items.is_empty() {
        return Err(CallError::new(
            "cannot use element function with an empty list",
        ));
    }
    let i = usize::try_from(i).unwrap_or(0) % items.len();
    Ok(items[i].clone().mark_if(marked))
}

/// Result of flattening: elements, whether a mark was removed, whether
/// everything was known.
fn flattener(v: &Value, depth: usize, out: &mut Vec<Value>) -> Result<(bool, bool), CallError> {
    if depth > MAX_NESTING {
        return Err(CallError::new(format!(
            "the list is nested more than {MAX_NESTING} levels deep"
        )));
    }
    let (v, mut marked) = unmark_top(v);
    if !v.is_known() {
        return Ok((marked, false));
    }
    let mut known = true;
    for e in seq(&v) {
        if matches!(e, Value::Unknown(Type::Dynamic)) {
            known = false;
        }
        let is_seq =
            !e.is_null() && matches!(e.type_of(), Type::List(_) | Type::Set(_) | Type::Tuple(_));
        if is_seq {
            if !e.is_known() {
                known = false;
                marked |= matches!(e, Value::Marked(_));
                continue;
            }
            let (m, k) = flattener(e, depth + 1, out)?;
            marked |= m;
            known &= k;
        } else {
            out.push(e.clone());
            check_size(out.len())?;
        }
    }
    Ok((marked, known))
}

fn flatten_type(args: &[Value]) -> Result<Type, CallError> {
    // The result of a wholly known sequence is the tuple of its flattened
    // elements, whose type nothing reads before the implementation builds
    // it (an unknown argument short-circuits with the dynamic type; the
    // implementation fails with the same errors the flattening would
    // give here), so the sequence is flattened once, not twice and typed.
    if matches!(
        shape(&args[0]),
        Shape::List(_) | Shape::Set(_) | Shape::Tuple(_)
    ) || !args[0].is_wholly_known()
    {
        return Ok(Type::Dynamic);
    }
    Err(CallError::new("can only flatten lists, sets and tuples"))
}

fn flatten(args: &[Value]) -> Result<Value, CallError> {
    let ret = flatten_type(args)?;
    let (top, top_marked) = unmark_top(&args[0]);
    if seq(&top).is_empty() {
        return Ok(Value::tuple(Vec::new()).mark_if(top_marked));
    }
    let mut out = Vec::new();
    let (marked, known) = flattener(&args[0], 0, &mut out)?;
    if !known {
        return Ok(Value::Unknown(ret).mark_if(marked));
    }
    Ok(Value::tuple(out).mark_if(marked))
}

fn index(args: &[Value]) -> Result<Value, CallError> {
    if !matches!(shape(&args[0]), Shape::List(_) | Shape::Tuple(_)) {
        return Err(CallError::new("argument must be a list or tuple"));
    }
    if !args[0].is_known() {
        return Ok(Value::Unknown(Type::Number));
    }
    let items = seq(&args[0]);
    if items.is_empty() {
        return Err(CallError::new("cannot search an empty list"));
    }
    for (i, v) in items.iter().enumerate() {
        match equals(v, &args[1]) {
            None => return Ok(Value::Unknown(Type::Number)),
            Some(true) => return Ok(count(i)),
            Some(false) => {}
        }
    }
    Err(CallError::new("item not found"))
}

fn keys_type(args: &[Value]) -> Result<Type, CallError> {
    match shape(&args[0]) {
        Shape::Map(_) => Ok(Type::list(Type::String)),
        Shape::Object(attrs) => Ok(Type::tuple(vec![Type::String; attrs.len()])),
        _ => Err(CallError::arg(0, "must have map or object type")),
    }
}

fn keys(args: &[Value]) -> Result<Value, CallError> {
    let ret = keys_type(args).unwrap_or(Type::Dynamic);
    let (m, marked) = unmark_top(&args[0]);
    if let Shape::Object(attrs) = shape(&m) {
        return Ok(Value::tuple(attrs.names()).mark_if(marked));
    }
    if !m.is_known() {
        return Ok(Value::Unknown(ret).mark_if(marked));
    }
    let names: Vec<Value> = m
        .as_entries()
        .map(|e| e.keys().map(|k| Value::String(k.clone())).collect())
        .unwrap_or_default();
    Ok(Value::list(Type::String, names).mark_if(marked))
}

fn length(args: &[Value]) -> Result<Value, CallError> {
    let coll = &args[0];
    let (v, marked) = unmark_top(coll);
    let n = match shape(&v) {
        Shape::Dynamic => return Ok(Value::Unknown(Type::Number).mark_if(marked)),
        Shape::Tuple(n) => n,
        Shape::Object(attrs) => attrs.len(),
        Shape::String => {
            // Terraform calls cty's strlen, whose dispatcher unmarks the
            // argument and re-marks a known result.
            return Ok(match v.as_str() {
                Some(s) => count(crate::strings::grapheme_count(s)).mark_if(coll.is_marked_deep()),
                None => Value::Unknown(Type::Number),
            });
        }
        Shape::List(_) | Shape::Map(_) => {
            if !v.is_known() {
                return Ok(Value::Unknown(Type::Number).mark_if(marked));
            }
            v.as_seq()
                .map(<[Value]>::len)
                .or_else(|| v.as_entries().map(ObjMap::len))
                .unwrap_or(0)
        }
        Shape::Set(_) => {
            if !v.is_known() {
                return Ok(Value::Unknown(Type::Number).mark_if(marked));
            }
            let items = seq(&v);
            if items.len() != 1 && !v.is_wholly_known() {
                return Ok(Value::Unknown(Type::Number).mark_if(marked));
            }
            items.len()
        }
        Shape::Bool | Shape::Number => {
            return Err(CallError::new("impossible value type for length(...)"));
        }
    };
    Ok(count(n).mark_if(marked))
}

fn lookup_type(args: &[Value]) -> Result<Type, CallError> {
    if args.len() > 3 {
        return Err(CallError::new(format!(
            "lookup() takes two or three arguments, got {}",
            args.len()
        )));
    }
    // Only the looked-up attribute's type is needed, not the whole map's.
    match shape(&args[0]) {
        Shape::Object(attrs) => {
            if !args[1].is_known() {
                return Ok(Type::Dynamic);
            }
            let key = args[1].as_str().unwrap_or_default();
            if let Some(t) = attrs.type_of(key) {
                Ok(t)
            } else if args.len() == 3 {
                Ok(args[2].type_of())
            } else {
                Err(CallError::arg(
                    0,
                    format!("the given object has no attribute {}", go_quote_basic(key)),
                ))
            }
        }
        Shape::Map(e) => {
            if args.len() == 3 && convert(&args[2], e).is_err() {
                return Err(CallError::arg(
                    2,
                    "the default value must have the same type as the map elements",
                ));
            }
            Ok(e.clone())
        }
        _ => Err(CallError::arg(
            0,
            "lookup() requires a map as the first argument",
        )),
    }
}

fn lookup(args: &[Value]) -> Result<Value, CallError> {
    let ret = lookup_type(args)?;
    let (map, m1) = unmark_top(&args[0]);
    let (key, m2) = unmark_top(&args[1]);
    let marked = m1 || m2;
    let key = key.as_str().unwrap_or_default();
    if !map.is_known() {
        return Ok(Value::Unknown(ret).mark_if(marked));
    }
    if let Some(v) = map.as_entries().and_then(|e| e.get(key)) {
        return Ok(v.clone().mark_if(marked));
    }
    if let Some(d) = args.get(2) {
        let d = convert(d, &ret).map_err(CallError::new)?;
        return Ok(d.mark_if(marked));
    }
    let shown = if m2 {
        "(sensitive value)".to_owned()
    } else {
        go_quote_basic(key)
    };
    Err(CallError::new(format!("lookup failed to find key {shown}")))
}

fn matchkeys(args: &[Value]) -> Result<Value, CallError> {
    let ret = args[0].type_of();
    let ety = elem_of(&ret);
    if !args[0].is_known() {
        return Ok(Value::Unknown(Type::list(ety)));
    }
    if seq(&args[0]).len() != seq(&args[1]).len() {
        return Err(CallError::new("length of keys and values should be equal"));
    }
    let ty = unify(&[args[1].type_of(), args[2].type_of()])
        .ok_or_else(|| CallError::new("keys and searchset must be of the same type"))?;
    let keys = convert(&args[1], &ty).map_err(CallError::new)?;
    let search = convert(&args[2], &ty).map_err(CallError::new)?;
    if seq(&search).is_empty() {
        return Ok(Value::list(ety, Vec::new()));
    }
    if !args[0].is_wholly_known() || !keys.is_wholly_known() {
        return Ok(Value::Unknown(ret));
    }
    let values = seq(&args[0]);
    let mut out = Vec::new();
    for (i, k) in seq(&keys).iter().enumerate() {
        for s in seq(&search) {
            match equals(k, s) {
                None => return Ok(Value::list(ety, Vec::new())),
                Some(true) => {
                    if let Some(v) = values.get(i) {
                        out.push(v.clone());
                    }
                    break;
                }
                Some(false) => {}
            }
        }
    }
    Ok(Value::list(ety, out))
}

fn merge_type(args: &[Value]) -> Result<Type, CallError> {
    if args.is_empty() {
        return Ok(Type::empty_object());
    }
    // Known, non-null objects (the usual case) merge into an object whose
    // type is simply that of the merged value. The return type only serves
    // the unknown short-circuit (not taken: every argument is known) and
    // debug builds' result check, so it is not computed (walking every
    // argument's type was most of merge's cost).
    if args
        .iter()
        .all(|a| matches!(a.unmarked(), Value::Object(_)))
    {
        return Ok(Type::Dynamic);
    }
    let mut attrs: BTreeMap<Key, Type> = BTreeMap::new();
    let mut first: Option<Type> = None;
    let mut matching = true;
    let mut attrs_known = true;
    for a in args {
        let ty = a.type_of();
        if ty == Type::Dynamic {
            return Ok(Type::Dynamic);
        }
        let (a, _) = unmark_top(a);
        match &ty {
            Type::Object(at) => {
                if !a.is_null() {
                    for (k, t) in at.iter() {
                        attrs.insert(k.clone(), t.clone());
                    }
                }
            }
            Type::Map(e) => {
                if a.is_null() {
                } else if a.is_known() {
                    if let Some(entries) = a.as_entries() {
                        for k in entries.keys() {
                            attrs.insert(k.clone(), (**e).clone());
                        }
                    }
                } else {
                    attrs_known = false;
                }
            }
            t => {
                return Err(CallError::new(format!(
                    "arguments must be maps or objects, got {}",
                    go_quote_basic(&t.friendly_name())
                )));
            }
        }
        match &first {
            None => first = Some(ty),
            Some(f) => {
                if *f != ty {
                    matching = false;
                }
            }
        }
    }
    if matching && let Some(f) = first {
        return Ok(f);
    }
    if !attrs_known {
        return Ok(Type::Dynamic);
    }
    Ok(Type::object(attrs))
}

fn merge(args: &[Value]) -> Result<Value, CallError> {
    let ret = merge_type(args)?;
    // Two known objects (the usual `merge(defaults, extra)`): one pass
    // over both sorted maps.
    if let [a, b] = args
        && let (Value::Object(a), Value::Object(b)) = (a, b)
    {
        return Ok(Value::object(a.merged_with(b)));
    }
    // Every argument's entries in order, later arguments after earlier
    // ones: `collect` sorts once (a stable merge of sorted runs) and keeps
    // the last duplicate, so later arguments win without inserting one by
    // one into the sorted map (quadratic on large inputs).
    let mut out: Vec<(Key, Value)> = Vec::new();
    let mut marked = false;
    for a in args {
        if a.is_null() {
            continue;
        }
        let (a, m) = unmark_top(a);
        marked |= m;
        let Some(entries) = a.as_entries() else {
            // Only reachable when an earlier argument was an untyped null,
            // which makes cty skip the type checks; cty then panics here.
            return Err(CallError::new(
                "panic in function implementation: attempt to iterate on non-collection, non-tuple type",
            ));
        };
        out.extend(entries.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let out: ObjMap = out.into_iter().collect();
    Ok(match ret {
        Type::Map(e) => Value::map((*e).clone(), out),
        _ => Value::object(out),
    }
    .mark_if(marked))
}

fn one_type(args: &[Value]) -> Result<Type, CallError> {
    match shape(&args[0]) {
        Shape::List(e) | Shape::Set(e) => return Ok(e.clone()),
        Shape::Tuple(0) => return Ok(Type::Dynamic),
        // One element: its type is cheap to work out.
        Shape::Tuple(1) => {
            if let Type::Tuple(es) = args[0].type_of() {
                return Ok(es[0].clone());
            }
        }
        _ => {}
    }
    Err(CallError::arg(
        0,
        "must be a list, set, or tuple value with either zero or one elements",
    ))
}

fn one(args: &[Value]) -> Result<Value, CallError> {
    let ret = one_type(args)?;
    let v = &args[0];
    if matches!(shape(v), Shape::List(_) | Shape::Set(_)) {
        if !v.is_known() {
            return Ok(Value::Unknown(ret));
        }
        let items = seq(v);
        // A set's length is unknown if it holds unknowns that may coalesce.
        if matches!(shape(v), Shape::Set(_)) && items.len() > 1 && !v.is_wholly_known() {
            return Ok(Value::Unknown(ret));
        }
        return match items.len() {
            0 => Ok(Value::Null(ret)),
            1 => Ok(items[0].clone()),
            _ => Err(CallError::arg(
                0,
                "must be a list, set, or tuple value with either zero or one elements",
            )),
        };
    }
    match seq(v).first() {
        Some(e) => Ok(e.clone()),
        None => Ok(Value::Null(ret)),
    }
}

fn range(args: &[Value]) -> Result<Value, CallError> {
    // cty's Zero and step values are NumberIntVal (64-bit precision).
    let zero = Number::cty_int_val(0);
    let (start, end, step) = match args.len() {
        1 => {
            let e = num(args, 0)?.clone();
            let step = if e < zero { -1 } else { 1 };
            (zero.clone(), e, Number::cty_int_val(step))
        }
        2 => {
            let (s, e) = (num(args, 0)?.clone(), num(args, 1)?.clone());
            let step = if e < s { -1 } else { 1 };
            (s, e, Number::cty_int_val(step))
        }
        3 => (
            num(args, 0)?.clone(),
            num(args, 1)?.clone(),
            num(args, 2)?.clone(),
        ),
        _ => return Err(CallError::new("must have one, two, or three arguments")),
    };
    // cty compares the step with its `Zero` value by identity, so a zero
    // step is never caught by that check: it runs into the value limit
    // below instead (as Terraform 1.5.7 does).
    let down = step < zero;
    if down {
        if end > start {
            return Err(CallError::arg(
                1,
                "end must be less than start when step is negative",
            ));
        }
    } else if end < start {
        return Err(CallError::arg(
            1,
            "end must be greater than start when step is positive",
        ));
    }
    let mut vals = Vec::new();
    let mut n = start;
    loop {
        if (down && n <= end) || (!down && n >= end) {
            break;
        }
        if vals.len() >= 1024 {
            return Err(CallError::new(
                "more than 1024 values were generated; either decrease the difference between start and end or use a smaller step",
            ));
        }
        let next = n.add(&step).map_err(|e| CallError::new(e.to_string()))?;
        vals.push(Value::Number(n));
        n = next;
    }
    Ok(Value::list(Type::Number, vals))
}

fn reverse_type(args: &[Value]) -> Result<Type, CallError> {
    match args[0].type_of() {
        Type::Tuple(es) => Ok(Type::tuple(es.iter().rev().cloned().collect())),
        Type::List(e) | Type::Set(e) => Ok(Type::list((*e).clone())),
        t => Err(CallError::arg(
            0,
            format!(
                "can only reverse list or tuple values, not {}",
                t.friendly_name()
            ),
        )),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SetOp {
    Union,
    Intersection,
    Subtract,
}

fn set_op_type(args: &[Value]) -> Result<Type, CallError> {
    let mut etys = Vec::new();
    for a in args {
        let t = elem_of(&a.type_of());
        if a.is_known() && seq(a).is_empty() && t == Type::Dynamic {
            continue;
        }
        etys.push(t);
    }
    if etys.is_empty() {
        return Ok(Type::set(Type::Dynamic));
    }
    unify(&etys)
        .map(Type::set)
        .ok_or_else(|| CallError::new("given sets must all have compatible element types"))
}

fn set_op(args: &[Value], op: SetOp) -> Result<Value, CallError> {
    let ret = set_op_type(args)?;
    let ety = elem_of(&ret);
    let mut acc: Option<Vec<Value>> = None;
    for (i, a) in args.iter().enumerate() {
        let c = convert(a, &ret).map_err(|m| CallError::arg(i, m))?;
        if op != SetOp::Union && !c.is_wholly_known() {
            return Ok(Value::Unknown(ret));
        }
        let items = seq(&c).to_vec();
        acc = Some(match acc {
            None => items,
            Some(prev) => match op {
                SetOp::Union => {
                    let mut all = prev;
                    all.extend(items);
                    check_size(all.len())?;
                    all
                }
                SetOp::Intersection => {
                    let keys: std::collections::HashSet<EqKey<'_>> =
                        items.iter().map(eq_key).collect();
                    prev.into_iter()
                        .filter(|p| keys.contains(&eq_key(p)))
                        .collect()
                }
                SetOp::Subtract => {
                    let keys: std::collections::HashSet<EqKey<'_>> =
                        items.iter().map(eq_key).collect();
                    prev.into_iter()
                        .filter(|p| !keys.contains(&eq_key(p)))
                        .collect()
                }
            },
        });
    }
    Ok(make_set(ety, acc.unwrap_or_default()))
}

fn setproduct_type(args: &[Value]) -> Result<Type, CallError> {
    if args.len() < 2 {
        return Err(CallError::new("at least two arguments are required"));
    }
    let mut list_count = 0;
    let mut etys = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        match a.type_of() {
            Type::Set(e) => etys.push((*e).clone()),
            Type::List(e) => {
                etys.push((*e).clone());
                list_count += 1;
            }
            Type::Tuple(es) => {
                if es.is_empty() {
                    etys.push(Type::Dynamic);
                } else {
                    etys.push(unify(&es).ok_or_else(|| {
                        CallError::arg(i, "all elements must be of the same type")
                    })?);
                }
                list_count += 1;
            }
            _ => return Err(CallError::arg(i, "a set or a list is required")),
        }
    }
    let t = Type::tuple(etys);
    Ok(if list_count == args.len() {
        Type::list(t)
    } else {
        Type::set(t)
    })
}

fn setproduct(args: &[Value]) -> Result<Value, CallError> {
    let ret = setproduct_type(args)?;
    let ety = elem_of(&ret);
    let sub: Vec<Type> = match &ety {
        Type::Tuple(es) => es.to_vec(),
        _ => Vec::new(),
    };
    let mut marked = false;
    let mut lists: Vec<Vec<Value>> = Vec::with_capacity(args.len());
    let mut total: usize = 1;
    let mut unknown_len = false;
    for a in args {
        let (a, m) = unmark_top(a);
        marked |= m;
        if !a.is_known()
            || (matches!(a.type_of(), Type::Set(_)) && seq(&a).len() > 1 && !a.is_wholly_known())
        {
            unknown_len = true;
            lists.push(Vec::new());
            continue;
        }
        let items = seq(&a).to_vec();
        total = total.saturating_mul(items.len());
        lists.push(items);
    }
    if unknown_len {
        return Ok(Value::Unknown(ret).mark_if(marked));
    }
    check_size(total)?;
    let set = matches!(ret, Type::Set(_));
    if total == 0 {
        return Ok(if set {
            make_set(ety, Vec::new())
        } else {
            Value::list(ety, Vec::new())
        }
        .mark_if(marked));
    }
    let mut out = Vec::with_capacity(total);
    let mut idx = vec![0usize; lists.len()];
    for _ in 0..total {
        let mut tuple = Vec::with_capacity(lists.len());
        for (j, &n) in idx.iter().enumerate() {
            let v = &lists[j][n];
            let t = &sub[j];
            tuple.push(if v.type_of() == *t {
                v.clone()
            } else {
                convert(v, t).map_err(CallError::new)?
            });
        }
        out.push(Value::tuple(tuple));
        for j in (0..idx.len()).rev() {
            idx[j] += 1;
            if idx[j] < lists[j].len() {
                break;
            }
            idx[j] = 0;
        }
    }
    Ok(if set {
        make_set(ety, out)
    } else {
        Value::list(ety, out)
    }
    .mark_if(marked))
}

/// cty `sliceIndexes`: (start, end, both known).
fn slice_indexes(args: &[Value]) -> Result<(usize, usize, bool), CallError> {
    let (list, _) = unmark_top(&args[0]);
    let len = match shape(&list) {
        Shape::Tuple(n) => Some(n),
        _ if list.is_known() => Some(seq(&list).len()),
        _ => None,
    };
    let idx = |i: usize, what: &str| -> Result<Option<usize>, CallError> {
        if !args[i].is_known() {
            return Ok(None);
        }
        let n = int_arg(args, i)
            .map_err(|e| CallError::arg(i, format!("invalid {what} index: {e}")))?;
        if n < 0 {
            return Err(CallError::arg(
                i,
                format!("{what} index must not be less than zero"),
            ));
        }
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(l) = len
            && n > l
        {
            return Err(CallError::arg(
                i,
                format!("{what} index must not be greater than the length of the list"),
            ));
        }
        Ok(Some(n))
    };
    let start = idx(1, "start")?;
    let end = idx(2, "end")?;
    if let (Some(s), Some(e)) = (start, end) {
        if s > e {
            return Err(CallError::arg(
                1,
                "start index must not be greater than end index",
            ));
        }
        return Ok((s, e, true));
    }
    Ok((start.unwrap_or(0), end.unwrap_or(0), false))
}

fn slice_type(args: &[Value]) -> Result<Type, CallError> {
    let t = args[0].type_of();
    if matches!(t, Type::Set(_)) {
        return Err(CallError::arg(
            0,
            "cannot slice a set, because its elements do not have indices; explicitly convert to a list if the ordering of the result is not important",
        ));
    }
    if !matches!(t, Type::List(_) | Type::Tuple(_)) {
        return Err(CallError::arg(0, "must be a list or tuple value"));
    }
    let (s, e, known) = slice_indexes(args)?;
    match t {
        Type::List(_) => Ok(t),
        Type::Tuple(es) => {
            if !known {
                return Ok(Type::Dynamic);
            }
            Ok(Type::tuple(
                es.get(s..e).map(<[Type]>::to_vec).unwrap_or_default(),
            ))
        }
        _ => Ok(Type::Dynamic),
    }
}

fn slice(args: &[Value]) -> Result<Value, CallError> {
    let ret = slice_type(args)?;
    let (list, marked) = unmark_top(&args[0]);
    if ret == Type::Dynamic {
        return Ok(Value::Unknown(Type::Dynamic).mark_if(marked));
    }
    let (s, e, _) = slice_indexes(args)?;
    let items = seq(&list)
        .get(s..e)
        .map(<[Value]>::to_vec)
        .unwrap_or_default();
    Ok(match ret {
        Type::Tuple(_) => Value::tuple(items),
        t => Value::list(elem_of(&t), items),
    }
    .mark_if(marked))
}

fn sum(args: &[Value]) -> Result<Value, CallError> {
    let v = &args[0];
    let ty = v.type_of();
    let len = match (v.as_seq(), v.as_entries()) {
        (Some(s), _) => s.len(),
        (None, Some(m)) => m.len(),
        _ => return Err(CallError::arg(0, "cannot sum noniterable")),
    };
    if len == 0 {
        return Err(CallError::arg(0, "cannot sum an empty list"));
    }
    if !matches!(ty, Type::List(_) | Type::Set(_) | Type::Tuple(_)) {
        return Err(CallError::arg(
            0,
            format!(
                "argument must be list, set, or tuple. Received {}",
                ty.friendly_name()
            ),
        ));
    }
    if !v.is_wholly_known() {
        return Ok(Value::Unknown(Type::Number));
    }
    let bad = || CallError::arg(0, "argument must be list, set, or tuple of number values");
    let mut total: Option<Number> = None;
    for e in seq(v) {
        if e.is_null() {
            return Err(bad());
        }
        let n = convert(e, &Type::Number).map_err(|_| bad())?;
        let n = n.as_number().ok_or_else(bad)?.clone();
        total = Some(match total {
            None => n,
            Some(t) => t
                .add(&n)
                .map_err(|_| CallError::new("can't compute sum of opposing infinities"))?,
        });
    }
    total.map(Value::Number).ok_or_else(bad)
}

fn transpose(args: &[Value]) -> Result<Value, CallError> {
    let ret_elem = Type::list(Type::String);
    if !args[0].is_wholly_known() {
        return Ok(Value::Unknown(Type::map(ret_elem)));
    }
    let mut tmp: BTreeMap<Key, Vec<Key>> = BTreeMap::new();
    let mut count = 0usize;
    if let Some(entries) = args[0].as_entries() {
        for (k, list) in entries {
            for v in seq(list) {
                let Some(s) = v.as_str() else {
                    return Err(CallError::new("input must be a map of lists of strings"));
                };
                tmp.entry(Key::from(s)).or_default().push(k.clone());
                count += 1;
                check_size(count)?;
            }
        }
    }
    let out = tmp
        .into_iter()
        .map(|(k, mut ks)| {
            ks.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
            let items = ks.into_iter().map(Value::String).collect();
            (k, Value::list(Type::String, items))
        })
        .collect();
    Ok(Value::map(ret_elem, out))
}

fn values_type(args: &[Value]) -> Result<Type, CallError> {
    match shape(&args[0]) {
        Shape::Map(e) => Ok(Type::list(e.clone())),
        Shape::Object(Attrs::Type(attrs)) => Ok(Type::tuple(attrs.values().cloned().collect())),
        // A known object gives the tuple of its values, whose type nothing
        // reads before the implementation builds it (an unknown argument
        // has its type: the case above).
        Shape::Object(Attrs::Value(_)) => Ok(Type::Dynamic),
        _ => Err(CallError::new(
            "values() requires a map as the first argument",
        )),
    }
}

fn zipmap_type(args: &[Value]) -> Result<Type, CallError> {
    let (keys, values) = (&args[0], &args[1]);
    match values.type_of() {
        Type::List(e) => Ok(Type::map((*e).clone())),
        Type::Tuple(vts) => {
            if !keys.is_wholly_known() {
                return Ok(Type::Dynamic);
            }
            let (keys, _) = keys.unmark_deep();
            let ks = seq(&keys);
            if ks.len() != vts.len() {
                return Err(CallError::new(format!(
                    "number of keys ({}) does not match number of values ({})",
                    ks.len(),
                    vts.len()
                )));
            }
            let mut atys = BTreeMap::new();
            for (i, k) in ks.iter().enumerate() {
                let Some(k) = k.as_str() else {
                    return Err(CallError::new(format!(
                        "keys list has null value at index {i}"
                    )));
                };
                atys.insert(Key::from(k), vts[i].clone());
            }
            Ok(Type::object(atys))
        }
        _ => Err(CallError::new(
            "values argument must be a list or tuple value",
        )),
    }
}

fn zipmap(args: &[Value]) -> Result<Value, CallError> {
    let ret = zipmap_type(args)?;
    let (keys, m1) = unmark_top(&args[0]);
    let (values, m2) = unmark_top(&args[1]);
    let mut marked = m1 || m2;
    if !keys.is_wholly_known() {
        return Ok(Value::Unknown(ret).mark_if(marked));
    }
    let (ks, vs) = (seq(&keys), seq(&values));
    if ks.len() != vs.len() {
        return Err(CallError::new(format!(
            "number of keys ({}) does not match number of values ({})",
            ks.len(),
            vs.len()
        )));
    }
    // Collected, then sorted once; the last duplicate key wins.
    let mut out = Vec::with_capacity(ks.len());
    for (k, v) in ks.iter().zip(vs.iter()) {
        let (k, km) = unmark_top(k);
        marked |= km;
        let Some(k) = k.as_str() else {
            return Err(CallError::new("keys list has a null value"));
        };
        out.push((Key::from(k), v.clone()));
    }
    let out: ObjMap = out.into_iter().collect();
    Ok(match ret {
        Type::Map(e) => Value::map((*e).clone(), out),
        _ => Value::object(out),
    }
    .mark_if(marked))
}

#[cfg(test)]
mod tests {
    use fnhcl_value::{Type, Value};

    use crate::call;

    fn err_of(name: &str, args: &[Value]) -> String {
        match call(name, args) {
            Some(Err(e)) => e.message,
            other => panic!("{name}: expected an error, got {other:?}"),
        }
    }

    #[test]
    fn deep_flatten_is_an_error_not_a_stack_overflow() {
        // Deeper than flatten's limit (the evaluator bounds nesting depth
        // of values long before they could overflow the value model).
        let mut v = Value::tuple(vec![Value::int(1)]);
        for _ in 0..1000 {
            v = Value::tuple(vec![v]);
        }
        let msg = err_of("flatten", &[v]);
        assert!(msg.contains("nested more than"), "{msg}");
    }

    #[test]
    fn moderately_nested_flatten_works() {
        let mut v = Value::tuple(vec![Value::int(7)]);
        for _ in 0..200 {
            v = Value::tuple(vec![v, Value::tuple(Vec::new())]);
        }
        let out = call("flatten", &[v]).and_then(Result::ok);
        assert_eq!(out, Some(Value::tuple(vec![Value::int(7)])));
    }

    #[test]
    fn distinct_and_set_operations_are_not_quadratic() {
        let n = 200_000;
        let big = Value::list(Type::Number, (0..n).map(Value::int).collect());
        let d = call("distinct", std::slice::from_ref(&big)).and_then(Result::ok);
        assert_eq!(
            d.as_ref().and_then(Value::as_seq).map(<[Value]>::len),
            Some(n as usize)
        );
        let i = call("setintersection", &[big.clone(), big.clone()]).and_then(Result::ok);
        assert_eq!(
            i.as_ref().and_then(Value::as_seq).map(<[Value]>::len),
            Some(n as usize)
        );
        let s = call("setsubtract", &[big.clone(), big]).and_then(Result::ok);
        assert_eq!(
            s.as_ref().and_then(Value::as_seq).map(<[Value]>::len),
            Some(0)
        );
    }

    #[test]
    fn huge_products_and_concats_hit_the_size_limit() {
        let big = Value::list(Type::Number, (0..1000).map(Value::int).collect());
        let msg = err_of("setproduct", &[big.clone(), big.clone(), big.clone()]);
        assert!(msg.contains("more than 1000000 elements"), "{msg}");
        let many: Vec<Value> = (0..1001).map(|_| big.clone()).collect();
        let msg = err_of("concat", &many);
        assert!(msg.contains("more than 1000000 elements"), "{msg}");
        let msg = err_of("range", &[Value::int(1_000_000_000)]);
        assert!(msg.contains("more than 1024 values"), "{msg}");
    }
}
