//! The documents `crossplane render` prints: the XR, the composed
//! resources, then Results and the Context.

use function_sdk_rust::proto::v1::Ready;
use serde_json::{Map, Value, json};

use crate::error::RenderError;
use crate::fields::{get_at, str_at};
use crate::inputs::{CRN_ANNOTATION, Loaded, RenderOptions};
use crate::pipeline::{PipelineOutcome, RecordedCondition, struct_json};

/// The time render gives every condition it writes.
pub const CONDITION_TIME: &str = "2024-01-01T00:00:00Z";
/// apiVersion of the Result and Context pseudo-documents.
pub const RENDER_API_VERSION: &str = "render.crossplane.io/v1beta1";

const LABEL_COMPOSITE: &str = "crossplane.io/composite";
const LABEL_CLAIM_NAME: &str = "crossplane.io/claim-name";
const LABEL_CLAIM_NAMESPACE: &str = "crossplane.io/claim-namespace";

/// Makes `m[key]` an object (replacing anything else) and returns it.
fn obj<'a>(m: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    if !matches!(m.get(key), Some(Value::Object(_))) {
        m.insert(key.to_owned(), Value::Object(Map::new()));
    }
    match m.get_mut(key) {
        Some(Value::Object(o)) => o,
        // Just inserted an object above.
        _ => unreachable!("object inserted above"),
    }
}

/// `a`, `a, b`, `a, b, and c`, `a, b, c, and N more` (crossplane-runtime's
/// list formatting with three names).
fn list_names(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [a] => a.clone(),
        [a, b] => format!("{a}, {b}"),
        [a, b, c] => format!("{a}, {b}, and {c}"),
        [a, b, c, rest @ ..] => format!("{a}, {b}, {c}, and {} more", rest.len()),
    }
}

fn condition_json(kind: &str, status: &str, reason: &str, message: &str) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), Value::String(kind.to_owned()));
    m.insert("status".into(), Value::String(status.to_owned()));
    m.insert("reason".into(), Value::String(reason.to_owned()));
    m.insert(
        "lastTransitionTime".into(),
        Value::String(CONDITION_TIME.to_owned()),
    );
    if !message.is_empty() {
        m.insert("message".into(), Value::String(message.to_owned()));
    }
    Value::Object(m)
}

/// A condition read back from `status.conditions`, re-encoded as the
/// Kubernetes condition type serialises (missing time becomes null).
fn reencode(c: &Value) -> Value {
    let Value::Object(src) = c else {
        return c.clone();
    };
    let mut m = Map::new();
    let s = |k: &str| {
        src.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    m.insert("type".into(), Value::String(s("type")));
    m.insert("status".into(), Value::String(s("status")));
    m.insert("reason".into(), Value::String(s("reason")));
    m.insert(
        "lastTransitionTime".into(),
        src.get("lastTransitionTime")
            .cloned()
            .unwrap_or(Value::Null),
    );
    if !s("message").is_empty() {
        m.insert("message".into(), Value::String(s("message")));
    }
    if let Some(g) = src
        .get("observedGeneration")
        .filter(|g| !g.is_null() && g.as_i64() != Some(0))
    {
        m.insert("observedGeneration".into(), g.clone());
    }
    Value::Object(m)
}

fn same_ignoring_time(a: &Value, b: &Value) -> bool {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Value::Object(m) = &mut v {
            m.remove("lastTransitionTime");
        }
        v
    };
    strip(a) == strip(b)
}

/// Set semantics: replaces the condition of the same type in place (unless
/// equal apart from the time), else appends.
fn set_condition(conds: &mut Vec<Value>, new: Value) {
    let kind = new.get("type").cloned();
    match conds.iter_mut().find(|c| c.get("type").cloned() == kind) {
        Some(existing) => {
            if !same_ignoring_time(existing, &new) {
                *existing = new;
            }
        }
        None => conds.push(new),
    }
}

fn xr_document(
    loaded: &Loaded,
    opts: &RenderOptions,
    p: &PipelineOutcome,
) -> Result<Value, RenderError> {
    let v = opts.version;
    let input = &loaded.xr;
    let desired_xr = p.desired.composite.as_ref();
    let mut xr = desired_xr
        .and_then(|c| c.resource.as_ref())
        .map(struct_json)
        .unwrap_or_default();
    for key in ["apiVersion", "kind"] {
        xr.insert(key.into(), input.get(key).cloned().unwrap_or(Value::Null));
    }
    {
        let meta = obj(&mut xr, "metadata");
        meta.insert(
            "name".into(),
            Value::String(
                str_at(input, &["metadata", "name"])
                    .unwrap_or_default()
                    .to_owned(),
            ),
        );
        if v.namespaces() {
            match str_at(input, &["metadata", "namespace"]) {
                Some(ns) if !ns.is_empty() => {
                    meta.insert("namespace".into(), Value::String(ns.to_owned()));
                }
                _ => {
                    meta.remove("namespace");
                }
            }
        }
    }
    // Ready, from the desired resources (and, in v2, the composite's own readiness).
    let mut unready: Vec<String> = p
        .desired
        .resources
        .iter()
        .filter(|(_, r)| r.ready != Ready::True as i32)
        .map(|(k, _)| k.clone())
        .collect();
    unready.sort();
    let composite_ready = desired_xr.map_or(Ready::Unspecified as i32, |c| c.ready);
    let ready = if v.v2() && composite_ready == Ready::False as i32 {
        condition_json("Ready", "False", "Creating", "")
    } else if (v.v2() && composite_ready == Ready::True as i32) || unready.is_empty() {
        condition_json("Ready", "True", "Available", "")
    } else {
        condition_json(
            "Ready",
            "False",
            "Creating",
            &format!("Unready resources: {}", list_names(&unready)),
        )
    };
    let status = obj(&mut xr, "status");
    let mut conds: Vec<Value> = match status.get("conditions") {
        Some(Value::Array(a)) => a.iter().map(reencode).collect(),
        _ => Vec::new(),
    };
    set_condition(&mut conds, ready);
    for RecordedCondition {
        kind,
        status,
        reason,
        message,
    } in &p.conditions
    {
        if matches!(kind.as_str(), "Ready" | "Synced" | "Healthy") {
            continue;
        }
        set_condition(&mut conds, condition_json(kind, status, reason, message));
    }
    status.insert("conditions".into(), Value::Array(conds));
    if opts.include_full_xr {
        let Some(spec) = input.get("spec") else {
            return Err(RenderError::new("cannot get composite resource spec"));
        };
        xr.insert("spec".into(), spec.clone());
        xr.insert(
            "metadata".into(),
            input
                .get("metadata")
                .cloned()
                .unwrap_or(Value::Object(Map::new())),
        );
    }
    Ok(Value::Object(xr))
}

/// A string-valued map (labels, annotations); a non-string value discards
/// the existing entries, as Kubernetes' unstructured accessors do.
fn string_map<'a>(meta: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    let valid = match meta.get(key) {
        Some(Value::Object(m)) => m.values().all(Value::is_string),
        _ => false,
    };
    if !valid {
        meta.insert(key.to_owned(), Value::Object(Map::new()));
    }
    obj(meta, key)
}

fn composed_document(
    name: &str,
    body: Map<String, Value>,
    loaded: &Loaded,
    opts: &RenderOptions,
) -> Result<Value, RenderError> {
    let v = opts.version;
    let xr = &loaded.xr;
    let xr_name = str_at(xr, &["metadata", "name"]).unwrap_or_default();
    let xr_ns = str_at(xr, &["metadata", "namespace"]).filter(|n| !n.is_empty());
    let xr_labels = get_at(xr, &["metadata", "labels"]).and_then(Value::as_object);
    let xr_label = |k: &str| xr_labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    let prefix = if v.root_composite_labels() {
        xr_label(LABEL_COMPOSITE).unwrap_or(xr_name)
    } else {
        xr_name
    };
    let mut body = body;
    let described = body_kind(&body);
    let meta = obj(&mut body, "metadata");
    // Names of the observed resource win.
    if let Some(o) = loaded.observed.get(name) {
        let mut keys = vec!["namespace", "name"];
        if v.v2() {
            keys.push("generateName");
        }
        for key in keys {
            match get_at(o, &["metadata", key]) {
                Some(val) if !val.is_null() => {
                    meta.insert(key.to_owned(), val.clone());
                }
                _ => {
                    meta.remove(key);
                }
            }
        }
    }
    let has = |m: &Map<String, Value>, k: &str| {
        m.get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !v.v2() || (!has(meta, "name") && !has(meta, "generateName")) {
        meta.insert("generateName".into(), Value::String(format!("{prefix}-")));
    }
    if v.namespaces()
        && let Some(ns) = xr_ns
    {
        meta.insert("namespace".into(), Value::String(ns.to_owned()));
    }
    string_map(meta, "annotations").insert(CRN_ANNOTATION.into(), Value::String(name.to_owned()));
    let labels = string_map(meta, "labels");
    labels.insert(LABEL_COMPOSITE.into(), Value::String(prefix.to_owned()));
    if !v.v2() {
        if let Some(Value::Object(claim)) = get_at(xr, &["spec", "claimRef"]) {
            let s = |k: &str| {
                claim
                    .get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            };
            labels.insert(LABEL_CLAIM_NAME.into(), Value::String(s("name")));
            labels.insert(LABEL_CLAIM_NAMESPACE.into(), Value::String(s("namespace")));
        }
    } else if v.root_composite_labels()
        && let (Some(cn), Some(cns)) = (xr_label(LABEL_CLAIM_NAME), xr_label(LABEL_CLAIM_NAMESPACE))
    {
        labels.insert(LABEL_CLAIM_NAME.into(), Value::String(cn.to_owned()));
        labels.insert(LABEL_CLAIM_NAMESPACE.into(), Value::String(cns.to_owned()));
    }
    // The controller reference to the XR.
    let uid = str_at(xr, &["metadata", "uid"]).unwrap_or_default();
    let owner = json!({
        "apiVersion": xr.get("apiVersion").cloned().unwrap_or(Value::Null),
        "kind": xr.get("kind").cloned().unwrap_or(Value::Null),
        "name": xr_name,
        "uid": uid,
        "controller": true,
        "blockOwnerDeletion": true,
    });
    let mut refs: Vec<Value> = match meta.get("ownerReferences") {
        Some(Value::Array(a)) => a.clone(),
        _ => Vec::new(),
    };
    for r in &refs {
        let controller = r.get("controller").and_then(Value::as_bool) == Some(true);
        let ruid = r.get("uid").and_then(Value::as_str).unwrap_or_default();
        if controller && ruid != uid {
            return Err(RenderError::new(format!(
                "cannot render composed resource {name:?} metadata: cannot set controller reference: {} {:?} is already controlled by {} {} (UID {ruid})",
                str_at(&described, &["kind"]).unwrap_or_default(),
                str_at(&described, &["name"]).unwrap_or_default(),
                r.get("kind").and_then(Value::as_str).unwrap_or_default(),
                r.get("name").and_then(Value::as_str).unwrap_or_default(),
            )));
        }
    }
    match refs
        .iter_mut()
        .find(|r| r.get("uid").and_then(Value::as_str).unwrap_or_default() == uid)
    {
        Some(r) => *r = owner,
        None => refs.push(owner),
    }
    meta.insert("ownerReferences".into(), Value::Array(refs));
    Ok(Value::Object(body))
}

/// `kind` and `metadata.name` of a body, for messages.
fn body_kind(body: &Map<String, Value>) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "kind".into(),
        body.get("kind").cloned().unwrap_or(Value::Null),
    );
    m.insert(
        "name".into(),
        get_at(body, &["metadata", "name"])
            .cloned()
            .unwrap_or(Value::Null),
    );
    m
}

/// A non-fatal result as `-r` prints it.
pub(crate) fn result_document(r: &crate::pipeline::RecordedResult) -> Value {
    json!({
        "apiVersion": RENDER_API_VERSION,
        "kind": "Result",
        "step": r.step,
        "severity": r.severity,
        "message": r.message,
    })
}

/// The pipeline's context as `-c` prints it.
pub(crate) fn context_document(fields: Value) -> Value {
    json!({
        "apiVersion": RENDER_API_VERSION,
        "kind": "Context",
        "fields": fields,
    })
}

pub(crate) fn documents(
    loaded: &Loaded,
    opts: &RenderOptions,
    p: &PipelineOutcome,
) -> Result<Vec<Value>, RenderError> {
    let mut docs = vec![xr_document(loaded, opts, p)?];
    let mut names: Vec<&String> = p.desired.resources.keys().collect();
    names.sort();
    for name in names {
        let body = p.desired.resources[name]
            .resource
            .as_ref()
            .map(struct_json)
            .unwrap_or_default();
        docs.push(composed_document(name, body, loaded, opts)?);
    }
    if opts.include_function_results {
        docs.extend(p.results.iter().map(result_document));
    }
    if opts.include_context {
        let fields = if p.steps_run == 0 {
            Value::Object(loaded.context.clone())
        } else {
            match &p.context {
                Some(s) if !s.fields.is_empty() => Value::Object(struct_json(s)),
                _ => Value::Null,
            }
        };
        docs.push(context_document(fields));
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_list() {
        let n = |v: &[&str]| list_names(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(n(&["a"]), "a");
        assert_eq!(n(&["a", "b"]), "a, b");
        assert_eq!(n(&["a", "b", "c"]), "a, b, and c");
        assert_eq!(n(&["a", "b", "c", "d", "e"]), "a, b, c, and 2 more");
    }

    #[test]
    fn conditions_replace_in_place() {
        let mut c = vec![
            condition_json("A", "True", "x", ""),
            condition_json("B", "True", "y", ""),
        ];
        set_condition(&mut c, condition_json("A", "False", "z", "m"));
        set_condition(&mut c, condition_json("C", "True", "w", ""));
        let types: Vec<_> = c
            .iter()
            .map(|c| c["type"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(types, ["A", "B", "C"]);
        assert_eq!(c[0]["message"], "m");
    }
}
