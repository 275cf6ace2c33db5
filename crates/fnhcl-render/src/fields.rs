//! Accessors for nested fields of a manifest (a JSON object), such as
//! `metadata.name`, shared by input loading, XRD defaulting, the pipeline
//! and the output.

use serde_json::{Map, Value};

/// The string at `path` (object keys from `m` down), if there is one.
pub(crate) fn str_at<'a>(m: &'a Map<String, Value>, path: &[&str]) -> Option<&'a str> {
    match get_at(m, path)? {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// The value at `path` (object keys from `m` down; every step but the
/// last must be an object). `None` for an empty path.
pub(crate) fn get_at<'a>(m: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (last, init) = path.split_last()?;
    let mut cur = m;
    for p in init {
        cur = cur.get(*p)?.as_object()?;
    }
    cur.get(*last)
}
