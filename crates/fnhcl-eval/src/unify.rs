//! Deep merge of status and context contributions (upstream §5.2, D18):
//! objects merge key by key (in sorted key order, so the first conflict
//! reported is deterministic); other values must be equal. The objects
//! being merged are held open ([`Merged`]) until every contribution is in.

use fnhcl_value::{Key, Value};

/// Why two contributions cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Conflict {
    /// Different kinds of value at `path` (`new` vs `old`).
    TypeMismatch {
        path: Vec<String>,
        new: &'static str,
        old: &'static str,
    },
    /// Same kind but different values at `path`.
    NotEqual { path: Vec<String> },
}

impl Conflict {
    pub(crate) fn path(&self) -> &[String] {
        match self {
            Conflict::TypeMismatch { path, .. } | Conflict::NotEqual { path } => path,
        }
    }
    pub(crate) fn message(&self) -> String {
        match self {
            Conflict::TypeMismatch { path, new, old } => {
                format!("type mismatch for key {}: {new} v/s {old}", path.join("."))
            }
            Conflict::NotEqual { path } => {
                format!("values for key {} not equal", path.join("."))
            }
        }
    }
}

/// JSON-level kind of a value.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v.unmarked() {
        Value::Null(_) => "null",
        Value::Unknown(_) => "unknown",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::List(_) | Value::Set(_) | Value::Tuple(_) => "array",
        Value::Map(_) | Value::Object(_) => "object",
        Value::Marked(_) => "unknown",
    }
}

/// Merges `new` into `old`.
#[cfg(test)]
pub(crate) fn merge(old: &Value, new: &Value) -> Result<Value, Conflict> {
    let mut acc = Merged::new(old);
    acc.merge(new)?;
    Ok(acc.finish())
}

/// Contributions merged so far. Objects that took part in a merge are
/// held open, their entries in a vector in key order, and become values
/// once, in [`Merged::finish`]: a key added by a later contribution is
/// inserted into the vector, where merging into a finished object would
/// copy all its entries into a new one (quadratic in the number of
/// contributions adding keys to one object, as resources adding their
/// status under one key do). What no merge reaches stays the value it was.
pub(crate) struct Merged(Acc);

enum Acc {
    Value(Value),
    /// A plain object (a merged map or marked object becomes one),
    /// entries in `ObjMap`'s key order.
    Object(Vec<(Key, Acc)>),
}

impl Merged {
    pub(crate) fn new(first: &Value) -> Merged {
        Merged(Acc::Value(first.clone()))
    }

    /// Merges `new` into what is merged so far. On a conflict, what is
    /// merged so far is left part way (the caller gives up).
    pub(crate) fn merge(&mut self, new: &Value) -> Result<(), Conflict> {
        let mut path = Vec::new();
        self.0.merge(new, &mut path, 0)
    }

    pub(crate) fn finish(self) -> Value {
        self.0.finish()
    }
}

/// The path of a conflict as text (the keys walked are kept as shared
/// keys and copied only when a conflict is reported).
fn owned(path: &[Key]) -> Vec<String> {
    path.iter().map(|k| k.to_string()).collect()
}

const MAX_DEPTH: usize = 256;

impl Acc {
    fn merge(&mut self, new: &Value, path: &mut Vec<Key>, depth: usize) -> Result<(), Conflict> {
        let old = match self {
            Acc::Object(entries) => {
                let Some(n) = new.as_entries() else {
                    return Err(Conflict::TypeMismatch {
                        path: owned(path),
                        new: kind(new),
                        old: "object",
                    });
                };
                if depth > MAX_DEPTH {
                    return Err(Conflict::NotEqual { path: owned(path) });
                }
                return merge_entries(entries, n, path, depth);
            }
            Acc::Value(old) => old,
        };
        if let (Some(o), Some(n)) = (old.as_entries(), new.as_entries()) {
            if depth > MAX_DEPTH {
                return Err(Conflict::NotEqual { path: owned(path) });
            }
            let mut entries: Vec<(Key, Acc)> = Vec::with_capacity(o.len() + n.len());
            entries.extend(o.iter().map(|(k, v)| (k.clone(), Acc::Value(v.clone()))));
            let r = merge_entries(&mut entries, n, path, depth);
            *self = Acc::Object(entries);
            return r;
        }
        let (ko, kn) = (kind(old), kind(new));
        if ko != kn {
            return Err(Conflict::TypeMismatch {
                path: owned(path),
                new: kn,
                old: ko,
            });
        }
        if json_equal(old, new, 0) {
            Ok(())
        } else {
            Err(Conflict::NotEqual { path: owned(path) })
        }
    }

    fn finish(self) -> Value {
        match self {
            Acc::Value(v) => v,
            Acc::Object(entries) => Value::object(fnhcl_value::ObjMap::from_sorted_iter(
                entries.into_iter().map(|(k, a)| (k, a.finish())),
            )),
        }
    }
}

/// Merges the entries of `new` into the open object `entries`, key by key
/// in key order (so the first conflict reported is deterministic): a key
/// in both is merged, a new key inserted in its place.
fn merge_entries(
    entries: &mut Vec<(Key, Acc)>,
    new: &fnhcl_value::ObjMap,
    path: &mut Vec<Key>,
    depth: usize,
) -> Result<(), Conflict> {
    // Both are in key order: each key is looked for after the last one.
    let mut from = 0;
    for (k, nv) in new.iter() {
        match entries[from..].binary_search_by(|(ek, _)| ek.as_bytes().cmp(k.as_bytes())) {
            Ok(i) => {
                from += i;
                path.push(k.clone());
                let r = entries[from].1.merge(nv, path, depth + 1);
                path.pop();
                r?;
            }
            Err(i) => {
                from += i;
                entries.insert(from, (k.clone(), Acc::Value(nv.clone())));
            }
        }
        from += 1;
    }
    Ok(())
}

/// Equality of the JSON forms (numbers by value, arrays element-wise).
pub(crate) fn json_equal(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match (a.unmarked(), b.unmarked()) {
        (Value::Null(_), Value::Null(_)) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (x, y) => {
            if let (Some(xs), Some(ys)) = (x.as_seq(), y.as_seq()) {
                return xs.len() == ys.len()
                    && xs.iter().zip(ys).all(|(p, q)| json_equal(p, q, depth + 1));
            }
            if let (Some(xs), Some(ys)) = (x.as_entries(), y.as_entries()) {
                return xs.len() == ys.len()
                    && xs
                        .iter()
                        .zip(ys)
                        .all(|((kp, p), (kq, q))| kp == kq && json_equal(p, q, depth + 1));
            }
            false
        }
    }
}

/// True if `v` has a value at `path` (object keys).
pub(crate) fn has_path(v: &Value, path: &[String]) -> bool {
    let mut cur = v;
    for p in path {
        match cur.as_entries().and_then(|m| m.get(p.as_str())) {
            Some(next) => cur = next,
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use fnhcl_value::Key;

    use super::*;

    fn obj(items: &[(&str, Value)]) -> Value {
        Value::object(
            items
                .iter()
                .map(|(k, v)| (Key::from(*k), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn merges_objects_and_detects_conflicts() {
        let a = obj(&[("foo", obj(&[("x", Value::int(10))]))]);
        let b = obj(&[("foo", obj(&[("y", Value::int(12))]))]);
        let m = merge(&a, &b).expect("merge");
        assert!(has_path(&m, &["foo".into(), "x".into()]));
        assert!(has_path(&m, &["foo".into(), "y".into()]));

        let c = obj(&[("foo", obj(&[("x", Value::int(11))]))]);
        let e = merge(&m, &c).expect_err("conflict");
        assert_eq!(e.message(), "values for key foo.x not equal");

        let d = obj(&[("foo", obj(&[("x", Value::string("a"))]))]);
        let e = merge(&m, &d).expect_err("conflict");
        assert_eq!(
            e.message(),
            "type mismatch for key foo.x: string v/s number"
        );

        // Equal leaves are fine; arrays compare whole.
        let same = obj(&[("foo", obj(&[("x", Value::int(10))]))]);
        assert!(merge(&m, &same).is_ok());
    }

    #[test]
    fn many_contributions_merge_into_open_objects() {
        // Contributions adding keys to one object, out of key order, as
        // resources adding their status under one key do.
        let part = |k: &str, v: i64| obj(&[("buckets", obj(&[(k, Value::int(v))]))]);
        let mut acc = Merged::new(&part("b-3", 3));
        for (k, v) in [("b-1", 1), ("b-5", 5), ("b-2", 2), ("b-4", 4), ("b-1", 1)] {
            acc.merge(&part(k, v)).expect("merge");
        }
        let want = obj(&[(
            "buckets",
            obj(&[
                ("b-1", Value::int(1)),
                ("b-2", Value::int(2)),
                ("b-3", Value::int(3)),
                ("b-4", Value::int(4)),
                ("b-5", Value::int(5)),
            ]),
        )]);
        assert_eq!(acc.finish(), want);

        // A conflict inside an object held open, and a value of another
        // kind where an object was merged.
        let mut acc = Merged::new(&part("b-1", 1));
        acc.merge(&part("b-2", 2)).expect("merge");
        let e = acc.merge(&part("b-2", 3)).expect_err("conflict");
        assert_eq!(e.message(), "values for key buckets.b-2 not equal");
        let mut acc = Merged::new(&part("b-1", 1));
        acc.merge(&part("b-2", 2)).expect("merge");
        let e = acc
            .merge(&obj(&[("buckets", Value::string("x"))]))
            .expect_err("conflict");
        assert_eq!(
            e.message(),
            "type mismatch for key buckets: string v/s object"
        );

        // What no merge reaches keeps its mark; a marked object that is
        // merged becomes a plain one.
        let marked = obj(&[("s", Value::string("x").mark()), ("o", part("a", 1).mark())]);
        let mut acc = Merged::new(&marked);
        acc.merge(&obj(&[("o", part("b", 2))])).expect("merge");
        let got = acc.finish();
        let o = got.as_entries().and_then(|m| m.get("o")).expect("o");
        assert!(!o.is_marked_deep());
        assert!(has_path(o, &["buckets".into(), "b".into()]));
        assert_eq!(
            got.as_entries().and_then(|m| m.get("s")),
            Some(&Value::string("x").mark())
        );
    }
}
