//! cty sets: construction with deduplication and cty's element order.
//!
//! cty orders set elements as follows (and so do we, exactly): known values
//! before unknown values before nulls; strings by bytes; numbers
//! numerically; `false` before `true`; elements of complex types (lists,
//! maps, objects, tuples, sets) by comparing cty's "hash bytes"
//! serialisation of each element (`[1;2;]`, `<"a";1;>`, `{"k":"v";}`, numbers
//! as Go `%.10g`, strings Go-quoted). Elements that compare equal keep their
//! insertion order (cty's bucket order for equal hash bytes).

use std::sync::Arc;

use crate::convert::go_quote;
use crate::ops::equals;
use crate::value::Collection;
use crate::{Number, Type, Value};

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Prim {
    Bool(bool),
    Num(Number),
    Str(Arc<str>),
    Bytes(Vec<u8>),
}

/// Sort key: known < unknown < null.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum SortKey {
    Known(Prim),
    Unknown,
    Null,
}

fn sort_key(v: &Value) -> SortKey {
    match v.unmarked() {
        Value::Null(_) => SortKey::Null,
        Value::Unknown(_) => SortKey::Unknown,
        Value::Bool(b) => SortKey::Known(Prim::Bool(*b)),
        Value::Number(n) => SortKey::Known(Prim::Num(n.clone())),
        Value::String(s) => SortKey::Known(Prim::Str(s.clone())),
        other => {
            let mut buf = String::new();
            hash_bytes(other, &mut buf, 0);
            SortKey::Known(Prim::Bytes(buf.into_bytes()))
        }
    }
}

/// cty's set hash serialisation (`appendSetHashBytes`).
fn hash_bytes(v: &Value, buf: &mut String, depth: usize) {
    if depth > 512 {
        buf.push('…');
        return;
    }
    let d = depth + 1;
    match v.unmarked() {
        Value::Unknown(_) => buf.push('?'),
        Value::Null(_) => buf.push('~'),
        Value::Number(n) => buf.push_str(&n.go_string_g10()),
        Value::Bool(b) => buf.push(if *b { 'T' } else { 'F' }),
        Value::String(s) => buf.push_str(&go_quote(s)),
        Value::Map(m) => {
            buf.push('{');
            for (k, e) in &m.items {
                buf.push_str(&go_quote(k));
                buf.push(':');
                hash_bytes(e, buf, d);
                buf.push(';');
            }
            buf.push('}');
        }
        Value::List(c) | Value::Set(c) => {
            buf.push('[');
            for e in &c.items {
                hash_bytes(e, buf, d);
                buf.push(';');
            }
            buf.push(']');
        }
        Value::Object(attrs) => {
            buf.push('<');
            for e in attrs.values() {
                hash_bytes(e, buf, d);
                buf.push(';');
            }
            buf.push('>');
        }
        Value::Tuple(items) => {
            buf.push('<');
            for e in items.iter() {
                hash_bytes(e, buf, d);
                buf.push(';');
            }
            buf.push('>');
        }
        Value::Marked(inner) => hash_bytes(inner, buf, d),
    }
}

impl Value {
    /// A set with element type `elem`: duplicates (by cty equality) are
    /// removed, keeping the first, and elements are put in cty's set order
    /// (see the module docs). Marks on elements move to the set itself, as
    /// in cty. The caller guarantees every item conforms to `elem`.
    pub fn set_from(elem: Type, items: Vec<Value>) -> Value {
        let mut marked = false;
        let items: Vec<Value> = items
            .into_iter()
            .map(|v| {
                let (u, m) = v.unmark_deep();
                marked |= m;
                u
            })
            .collect();
        let mut keyed: Vec<(SortKey, Value)> =
            items.into_iter().map(|v| (sort_key(&v), v)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<Value> = Vec::with_capacity(keyed.len());
        let mut run_start = 0;
        let mut prev_key: Option<SortKey> = None;
        for (k, v) in keyed {
            if prev_key.as_ref() != Some(&k) {
                run_start = out.len();
            }
            // Unknowns are never equal to anything (cty keeps them all).
            let dup = out[run_start..]
                .iter()
                .any(|w| equals(w, &v).as_bool() == Some(true));
            if !dup {
                out.push(v);
            }
            prev_key = Some(k);
        }
        Value::Set(Arc::new(Collection { elem, items: out })).mark_if(marked)
    }
}
