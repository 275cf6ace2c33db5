//! Deep merge of status and context contributions (upstream §5.2, D18):
//! objects merge key by key (in sorted key order, so the first conflict
//! reported is deterministic); other values must be equal.

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
    let mut acc = old.clone();
    merge_into(&mut acc, new)?;
    Ok(acc)
}

/// Merges `new` into `acc` in place. Containers shared with earlier
/// contributions are copied on first write only, so merging many
/// contributions stays linear.
pub(crate) fn merge_into(acc: &mut Value, new: &Value) -> Result<(), Conflict> {
    let mut path = Vec::new();
    merge_at(acc, new, &mut path, 0)
}

/// The path of a conflict as text (the keys walked are kept as shared
/// keys and copied only when a conflict is reported).
fn owned(path: &[Key]) -> Vec<String> {
    path.iter().map(|k| k.to_string()).collect()
}

const MAX_DEPTH: usize = 256;

fn merge_at(
    old: &mut Value,
    new: &Value,
    path: &mut Vec<Key>,
    depth: usize,
) -> Result<(), Conflict> {
    if let (Some(o), Some(n)) = (old.as_entries(), new.as_entries()) {
        if depth > MAX_DEPTH {
            return Err(Conflict::NotEqual { path: owned(path) });
        }
        if !matches!(old, Value::Object(_)) {
            // A map (or a marked object) becomes a plain object.
            *old = Value::object(o.clone());
        }
        let Value::Object(m) = old else {
            return Err(Conflict::NotEqual { path: owned(path) });
        };
        // One walk of both sorted key lists (inserting new keys one by one
        // into the sorted map could move its tail each time).
        return m.merge_with(n, |k, ov, nv| {
            path.push(k.clone());
            let r = merge_at(ov, nv, path, depth + 1);
            path.pop();
            r
        });
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
}
