//! Small value helpers: shared keys, objects, annotations, resource
//! bodies, collection annotations, base64 and unknown paths.

use base64::Engine as _;
use fnhcl_base::{Diagnostic, Span};
use fnhcl_value::{Key, ObjMap, Value};

use super::{MAX_UNKNOWN_REFS, Res};
use crate::checks::type_name;
use crate::render::{COLLECTION_BASE_NAME_ANNOTATION, COLLECTION_INDEX_ANNOTATION};

/// Keys of the objects built for every resource (`self`, `each`): shared,
/// so building those objects allocates no key.
static COMMON_KEYS: std::sync::LazyLock<[Key; 8]> = std::sync::LazyLock::new(|| {
    [
        "name",
        "resource",
        "connection",
        "key",
        "value",
        "basename",
        "resources",
        "connections",
    ]
    .map(Key::from)
});

pub(super) fn key(s: &str) -> Key {
    // Lengths and first bytes first: most names are none of these.
    match COMMON_KEYS
        .iter()
        .find(|k| k.len() == s.len() && k.as_bytes().first() == s.as_bytes().first() && &***k == s)
    {
        Some(k) => k.clone(),
        None => Key::from(s),
    }
}

/// A resource's `self`: its name, observed body and connection details,
/// with the shared keys put in key order here (no search, no sort).
pub(super) fn self_object(name: Value, resource: Value, connection: Value) -> Value {
    let k = &*COMMON_KEYS;
    Value::object(ObjMap::from_sorted_iter([
        (k[2].clone(), connection),
        (k[0].clone(), name),
        (k[1].clone(), resource),
    ]))
}

/// A collection member's `each`: its key and value.
pub(super) fn each_object(key: Value, value: Value) -> Value {
    let k = &*COMMON_KEYS;
    Value::object(ObjMap::from_sorted_iter([
        (k[3].clone(), key),
        (k[4].clone(), value),
    ]))
}

/// A resource collection's `self`: its base name and its members'
/// observed bodies and connection details (keys in key order).
pub(super) fn collection_self(basename: Value, resources: Value, connections: Value) -> Value {
    let k = &*COMMON_KEYS;
    Value::object(ObjMap::from_sorted_iter([
        (k[5].clone(), basename),
        (k[7].clone(), connections),
        (k[6].clone(), resources),
    ]))
}

/// A collection member's `self`: the collection's `self` and the
/// member's name, observed body and connection details (keys in key
/// order).
pub(super) fn member_self(
    collection: [&Value; 3],
    name: Value,
    resource: Value,
    connection: Value,
) -> Value {
    let k = &*COMMON_KEYS;
    let [basename, resources, connections] = collection;
    Value::object(ObjMap::from_sorted_iter([
        (k[5].clone(), basename.clone()),
        (k[2].clone(), connection),
        (k[7].clone(), connections.clone()),
        (k[0].clone(), name),
        (k[1].clone(), resource),
        (k[6].clone(), resources.clone()),
    ]))
}

pub(super) fn obj<'k>(items: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    Value::object(items.into_iter().map(|(k, v)| (key(k), v)).collect())
}

/// A string annotation of an object body.
pub(super) fn annotation(body: &Value, name: &str) -> Option<String> {
    body.as_entries()?
        .get("metadata")?
        .as_entries()?
        .get("annotations")?
        .as_entries()?
        .get(name)?
        .as_str()
        .map(str::to_owned)
}

/// The body without `metadata.managedFields`.
pub(super) fn clean(body: &Value) -> Value {
    let Some(top) = body.as_entries() else {
        return body.clone();
    };
    let Some(meta) = top.get("metadata").and_then(Value::as_entries) else {
        return body.clone();
    };
    if !meta.contains_key("managedFields") {
        return body.clone();
    }
    let mut meta = meta.clone();
    meta.remove("managedFields");
    let mut top = top.clone();
    top.insert(key("metadata"), Value::object(meta));
    Value::object(top)
}

/// A resource body must be a (known) object.
pub(super) fn check_body(v: &Value, name: &str, span: Span) -> Res<Value> {
    if v.as_entries().is_some() {
        return Ok(v.clone());
    }
    Err(vec![
        Diagnostic::error(
            format!("unable to convert resource body to struct: {name}"),
            format!("the body must be an object, got {}", type_name(v)),
        )
        .with_span(span),
    ])
}

/// Adds the collection annotations to a member's body (upstream §5.1).
pub(super) fn add_collection_annotations(
    body: &Value,
    base: &str,
    index: usize,
) -> Result<Value, String> {
    let top = body.as_entries().cloned().unwrap_or_default();
    let mut meta = match top.get("metadata") {
        None => ObjMap::new(),
        Some(m) if m.is_null() => ObjMap::new(),
        Some(m) => match m.as_entries() {
            Some(e) => e.clone(),
            None => {
                return Err(format!(
                    "expected metadata to be an object, got {}",
                    type_name(m)
                ));
            }
        },
    };
    let mut ann = match meta.get("annotations") {
        None => ObjMap::new(),
        Some(a) if a.is_null() => ObjMap::new(),
        Some(a) => match a.as_entries() {
            Some(e) => e.clone(),
            None => {
                return Err(format!(
                    "expected metadata.annotations to be an object, got {}",
                    type_name(a)
                ));
            }
        },
    };
    ann.insert(key(COLLECTION_BASE_NAME_ANNOTATION), Value::string(base));
    ann.insert(
        key(COLLECTION_INDEX_ANNOTATION),
        Value::string(format!("s{index:06}")),
    );
    meta.insert(key("annotations"), Value::object(ann));
    let mut top = top;
    top.insert(key("metadata"), Value::object(meta));
    Ok(Value::object(top))
}

/// `each.key` in a template string (`tostring` semantics).
pub(super) fn key_string(k: &Value) -> Option<String> {
    match k.unmarked() {
        Value::String(s) => Some(s.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Standard padded base64; `\r` and `\n` are ignored (as Go's decoder).
/// A connection detail's bytes from its base64 text, as the function
/// decodes them (line breaks ignored); `None` when it is not base64.
pub fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let cleaned: String = s.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    base64::engine::general_purpose::STANDARD
        .decode(cleaned.as_bytes())
        .ok()
}

/// Collects `<prefix><path>` for every unknown inside `v` (§4.3).
pub(super) fn unknown_paths(v: &Value, prefix: &mut String, out: &mut Vec<String>, depth: usize) {
    if out.len() >= MAX_UNKNOWN_REFS || depth > 64 {
        return;
    }
    let v = v.unmarked();
    if !v.is_known() {
        out.push(prefix.clone());
        return;
    }
    let len = prefix.len();
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter() {
                prefix.push('.');
                prefix.push_str(k);
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        Value::Map(m) => {
            for (k, x) in &m.items {
                prefix.push_str(&format!("[{k}]"));
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        Value::List(_) | Value::Tuple(_) => {
            for (i, x) in v.as_seq().unwrap_or_default().iter().enumerate() {
                prefix.push_str(&format!("[{i}]"));
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        Value::Set(c) => {
            for x in &c.items {
                prefix.push_str("<?>");
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        _ => {}
    }
}
