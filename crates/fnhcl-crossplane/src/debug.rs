//! Debug dumps of a request and its response (upstream §9), in the layout
//! `fn-hcl render` accepts as fixtures. The caller decides where they go
//! (the server writes them to stderr).

use std::fmt::Write as _;

use function_sdk_rust::proto::v1::{
    Condition, Resource, RunFunctionRequest, RunFunctionResponse, Severity, Status,
};
use serde_json::{Value as Json, json};

use fnhcl_eval::Output;
use pbjson_types::value::Kind;
use pbjson_types::{Struct, Value as PbValue};

use crate::convert::{SENSITIVE, struct_to_json, value_to_pb_shown, value_to_struct_shown};

/// Annotation on the observed XR that turns debug output on.
pub const DEBUG_ANNOTATION: &str = "hcl.fn.crossplane.io/debug";

/// The fixed time stamp of conditions in rendered output.
const TRANSITION_TIME: &str = "2024-01-01T00:00:00Z";

const NOISY_METADATA: [&str; 5] = [
    "managedFields",
    "creationTimestamp",
    "generation",
    "resourceVersion",
    "uid",
];

/// Removes the fields that make dumps noisy: managed fields, server-set
/// metadata and the last-applied annotation.
pub fn clean(mut v: Json) -> Json {
    if let Some(meta) = v.get_mut("metadata").and_then(Json::as_object_mut) {
        for k in NOISY_METADATA {
            meta.remove(k);
        }
        if let Some(ann) = meta.get_mut("annotations").and_then(Json::as_object_mut) {
            ann.remove("kubectl.kubernetes.io/last-applied-configuration");
        }
    }
    v
}

/// A resource's body as a dump shows it: a Secret's `data` and
/// `stringData` values are never shown (D38).
fn body_json(r: &Resource) -> Json {
    let mut body = r
        .resource
        .as_ref()
        .map(struct_to_json)
        .unwrap_or_else(|| json!({}));
    if body.get("kind").and_then(Json::as_str) == Some("Secret") {
        for field in ["data", "stringData"] {
            if let Some(m) = body.get_mut(field).and_then(Json::as_object_mut) {
                for v in m.values_mut() {
                    *v = Json::String(SENSITIVE.to_owned());
                }
            }
        }
    }
    body
}

/// `rsp` as a dump may show it (D38): the desired resources, composite
/// status and context values that the program derived from sensitive
/// values (`req.credentials`) show `(sensitive value)` in their place.
pub fn shown_response(rsp: &RunFunctionResponse, output: &Output) -> RunFunctionResponse {
    let mut shown = rsp.clone();
    let Some(desired) = shown.desired.as_mut() else {
        return shown;
    };
    for r in output.resources.iter().filter(|r| r.body.is_marked_deep()) {
        if let (Some(d), Ok(body)) = (
            desired.resources.get_mut(&r.name),
            value_to_struct_shown(&r.body),
        ) {
            d.resource = Some(body);
        }
    }
    if let Some(status) = output
        .composite_status
        .as_ref()
        .filter(|s| s.is_marked_deep())
        && let Ok(status) = value_to_struct_shown(status)
        && let Some(body) = desired.composite.as_mut().and_then(|c| c.resource.as_mut())
    {
        let mut wrapper = Struct::default();
        wrapper.fields.insert(
            "status".to_owned(),
            PbValue {
                kind: Some(Kind::StructValue(status)),
            },
        );
        crate::response::merge_struct(body, wrapper);
    }
    if let Some(ctx) = shown.context.as_mut() {
        for (k, v) in output.context.iter().filter(|(_, v)| v.is_marked_deep()) {
            if let Ok(v) = value_to_pb_shown(v) {
                ctx.fields.insert(k.clone(), v);
            }
        }
    }
    shown
}

/// A context key as a file name: runs of characters outside
/// `[A-Za-z0-9_./-]` become one `_`, and `/` becomes `--`.
pub fn context_file_name(key: &str) -> String {
    let mut out = String::new();
    for c in key.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-') {
            if c == '_' && out.ends_with('_') {
                continue;
            }
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    format!("context-{}.json", out.replace('/', "--"))
}

fn push_docs(out: &mut String, docs: impl IntoIterator<Item = (String, Json)>) {
    let mut first = true;
    for (comment, doc) in docs {
        if !first {
            out.push_str("---\n");
        }
        first = false;
        if !comment.is_empty() {
            let _ = writeln!(out, "# {comment}");
        }
        out.push_str(&to_yaml_text(&doc));
    }
}

/// The request block: observed XR, observed resources, context and extra
/// resources as txtar-like sections. Sections and documents are sorted by
/// name, so the dump is deterministic.
pub fn request_dump(req: &RunFunctionRequest) -> String {
    let mut out = String::from("## start request ##\n\n");
    let observed = req.observed.as_ref();
    let xr = observed
        .and_then(|o| o.composite.as_ref())
        .map(body_json)
        .unwrap_or_else(|| json!({}));
    out.push_str("-- xr.yaml --\n");
    out.push_str(&to_yaml_text(&clean(xr)));
    out.push('\n');

    if let Some(o) = observed
        && !o.resources.is_empty()
    {
        let mut names: Vec<&String> = o.resources.keys().collect();
        names.sort();
        out.push_str("-- observed.yaml --\n");
        push_docs(
            &mut out,
            names.into_iter().map(|n| {
                (
                    format!("crossplane name: {n}"),
                    clean(body_json(&o.resources[n])),
                )
            }),
        );
        out.push('\n');
    }

    if let Some(ctx) = &req.context {
        let mut keys: Vec<&String> = ctx.fields.keys().collect();
        keys.sort();
        for k in keys {
            let v = crate::convert::pb_to_json(&ctx.fields[k]);
            let _ = writeln!(out, "-- {} --", context_file_name(k));
            out.push_str(&serde_json::to_string_pretty(&v).unwrap_or_default());
            out.push_str("\n\n");
        }
    }

    let mut extra: Vec<(&String, &function_sdk_rust::proto::v1::Resources)> = req
        .extra_resources
        .iter()
        .chain(req.required_resources.iter())
        .collect();
    extra.sort_by(|a, b| a.0.cmp(b.0));
    extra.dedup_by(|a, b| a.0 == b.0);
    if !extra.is_empty() {
        out.push_str("-- extra-resources.yaml --\n");
        let mut first = true;
        for (name, rs) in extra {
            if !first {
                out.push_str("---\n");
            }
            first = false;
            let _ = writeln!(out, "# key: {name}");
            let mut first_item = true;
            for item in &rs.items {
                if !first_item {
                    out.push_str("---\n");
                }
                first_item = false;
                out.push_str(&to_yaml_text(&clean(body_json(item))));
            }
        }
        out.push('\n');
    }
    out.push_str("## end request ##\n");
    out
}

fn status_name(s: i32) -> &'static str {
    match Status::try_from(s) {
        Ok(Status::ConditionTrue) => "True",
        Ok(Status::ConditionFalse) => "False",
        Ok(Status::ConditionUnknown) => "Unknown",
        _ => "Unspecified",
    }
}

fn condition_json(c: &Condition) -> Json {
    let mut m = serde_json::Map::new();
    m.insert("type".into(), Json::String(c.r#type.clone()));
    m.insert("status".into(), Json::String(status_name(c.status).into()));
    m.insert("reason".into(), Json::String(c.reason.clone()));
    if let Some(msg) = &c.message {
        m.insert("message".into(), Json::String(msg.clone()));
    }
    m.insert(
        "lastTransitionTime".into(),
        Json::String(TRANSITION_TIME.into()),
    );
    Json::Object(m)
}

/// The response block: the composite status as it would be rendered, each
/// desired resource as Crossplane would create it, the context, results and
/// requirements.
pub fn response_dump(req: &RunFunctionRequest, rsp: &RunFunctionResponse) -> String {
    let xr = req
        .observed
        .as_ref()
        .and_then(|o| o.composite.as_ref())
        .map(body_json)
        .unwrap_or_else(|| json!({}));
    let xr_api_version = xr.get("apiVersion").cloned().unwrap_or(Json::Null);
    let xr_kind = xr.get("kind").cloned().unwrap_or(Json::Null);
    let xr_name = xr
        .pointer("/metadata/name")
        .and_then(Json::as_str)
        .unwrap_or("")
        .to_owned();
    let xr_namespace = xr.pointer("/metadata/namespace").cloned();

    let mut docs: Vec<(String, Json)> = Vec::new();

    let desired = rsp.desired.as_ref();
    let mut composite = desired
        .and_then(|d| d.composite.as_ref())
        .map(body_json)
        .unwrap_or_else(|| json!({}));
    if let Some(obj) = composite.as_object_mut() {
        obj.insert("apiVersion".into(), xr_api_version.clone());
        obj.insert("kind".into(), xr_kind.clone());
        let mut meta = serde_json::Map::new();
        meta.insert("name".into(), Json::String(xr_name.clone()));
        if let Some(ns) = &xr_namespace {
            meta.insert("namespace".into(), ns.clone());
        }
        obj.insert("metadata".into(), Json::Object(meta));
        let status = obj.entry("status").or_insert_with(|| json!({}));
        if let Some(status) = status.as_object_mut() {
            let mut conditions = vec![json!({
                "type": "Ready", "status": "True", "reason": "Available",
                "lastTransitionTime": TRANSITION_TIME,
            })];
            conditions.extend(rsp.conditions.iter().map(condition_json));
            status.insert("conditions".into(), Json::Array(conditions));
        }
    }
    docs.push(("returned composite status".into(), composite));

    if let Some(d) = desired {
        let mut names: Vec<&String> = d.resources.keys().collect();
        names.sort();
        for name in names {
            let mut body = body_json(&d.resources[name]);
            if let Some(obj) = body.as_object_mut() {
                let meta = obj.entry("metadata").or_insert_with(|| json!({}));
                if let Some(meta) = meta.as_object_mut() {
                    meta.insert("generateName".into(), Json::String(format!("{xr_name}-")));
                    let mut owner = json!({
                        "apiVersion": xr_api_version, "kind": xr_kind, "name": xr_name,
                        "uid": "", "blockOwnerDeletion": true, "controller": true,
                    });
                    if let (Some(ns), Some(o)) = (&xr_namespace, owner.as_object_mut()) {
                        o.insert("namespace".into(), ns.clone());
                    }
                    meta.insert("ownerReferences".into(), json!([owner]));
                    let ann = meta.entry("annotations").or_insert_with(|| json!({}));
                    if let Some(ann) = ann.as_object_mut() {
                        ann.insert(
                            "crossplane.io/composition-resource-name".into(),
                            Json::String(name.clone()),
                        );
                    }
                    let labels = meta.entry("labels").or_insert_with(|| json!({}));
                    if let Some(labels) = labels.as_object_mut() {
                        labels.insert(
                            "crossplane.io/composite".into(),
                            Json::String(xr_name.clone()),
                        );
                    }
                }
            }
            docs.push((format!("desired object: {name}"), body));
        }
    }

    let fields = rsp
        .context
        .as_ref()
        .map(struct_to_json)
        .unwrap_or(Json::Null);
    docs.push((
        "context".into(),
        json!({
            "apiVersion": "render.crossplane.io/v1beta1", "kind": "Context",
            "metadata": {"name": "context"}, "fields": fields,
        }),
    ));
    for (i, r) in rsp.results.iter().enumerate() {
        let severity = Severity::try_from(r.severity)
            .map(|s| s.as_str_name())
            .unwrap_or("SEVERITY_UNSPECIFIED");
        docs.push((
            "result".into(),
            json!({
                "apiVersion": "render.crossplane.io/v1beta1", "kind": "Result",
                "metadata": {"name": format!("result-{i}")}, "message": r.message,
                "severity": severity, "step": "run hcl composition",
            }),
        ));
    }

    let mut out = String::from("-- rendered.yaml --\n");
    push_docs(&mut out, docs);
    if let Some(reqs) = &rsp.requirements
        && (!reqs.extra_resources.is_empty() || !reqs.resources.is_empty())
    {
        out.push_str("\n-- requirements.yaml --\n");
        let v = serde_json::to_value(reqs).unwrap_or(Json::Null);
        out.push_str(&to_yaml_text(&v));
    }
    out.push_str("## end response ##\n");
    out
}

/// A dump's YAML: Kubernetes layout (`fnhcl_yaml`); a value too deep to
/// print says so instead.
fn to_yaml_text(v: &Json) -> String {
    fnhcl_yaml::to_yaml(v).unwrap_or_else(|e| format!("# {e}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_file_names() {
        assert_eq!(
            context_file_name("apiextensions.crossplane.io/environment"),
            "context-apiextensions.crossplane.io--environment.json"
        );
        assert_eq!(context_file_name("a b!!c__d"), "context-a_b_c_d.json");
    }

    #[test]
    fn cleaning_removes_server_fields() {
        let v = clean(
            json!({"metadata": {"name": "a", "uid": "u", "generation": 3,
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}", "k": "v"}}}),
        );
        assert_eq!(
            v,
            json!({"metadata": {"name": "a", "annotations": {"k": "v"}}})
        );
    }
}
