//! `crossplane alpha render op` (Crossplane 2.2), in-process (D39): an
//! `Operation`, `CronOperation` or `WatchOperation` runs its function
//! pipeline with no composite, and the output is the Operation (its
//! metadata and the status the controller writes: the applied objects and
//! each step's output), the objects it applies, `-r` results and `-c` the
//! context.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::RenderOutput;
use crate::error::RenderError;
use crate::fields::{get_at, str_at};
use crate::inputs::{Loaded, RenderInputs, RenderOptions, first, functions, many};
use crate::pipeline::{self, Function, Owner, struct_json};
use crate::version::CrossplaneVersion;

/// The API group and version of Crossplane's operations.
const OPS_API_VERSION: &str = "ops.crossplane.io/v1alpha1";

/// The requirement under which the watched object is sent.
const WATCHED_RESOURCE: &str = "ops.crossplane.io/watched-resource";

/// The Operation a document stands for: an Operation as it is; a
/// CronOperation's or WatchOperation's template, named after it.
fn operation_of(doc: Map<String, Value>, name: &str) -> Result<Map<String, Value>, RenderError> {
    let api = str_at(&doc, &["apiVersion"]).unwrap_or_default().to_owned();
    let kind = str_at(&doc, &["kind"]).unwrap_or_default().to_owned();
    if api != OPS_API_VERSION {
        return Err(RenderError::new(format!(
            "not an operation type: {kind}/{api}"
        )));
    }
    match kind.as_str() {
        "Operation" => Ok(doc),
        "CronOperation" | "WatchOperation" => {
            let template = get_at(&doc, &["spec", "operationTemplate"])
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let mut metadata = template
                .get("metadata")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            metadata.insert(
                "name".into(),
                json!(str_at(&doc, &["metadata", "name"]).unwrap_or_default()),
            );
            let mut op = Map::new();
            op.insert("apiVersion".into(), json!(api));
            op.insert("kind".into(), json!("Operation"));
            op.insert("metadata".into(), Value::Object(metadata));
            op.insert(
                "spec".into(),
                template.get("spec").cloned().unwrap_or_else(|| json!({})),
            );
            Ok(op)
        }
        _ => Err(RenderError::new(format!(
            "not an operation type: {kind}/{api} (in {name:?})"
        ))),
    }
}

/// Adds the watched object's requirement to every step, as the
/// WatchOperation controller does when it creates the Operation.
fn inject_watched(op: &mut Map<String, Value>, watched: &Map<String, Value>) {
    let mut sel = object_ref(watched);
    sel.insert("requirementName".into(), json!(WATCHED_RESOURCE));
    let Some(Value::Array(steps)) = op.get_mut("spec").and_then(|s| s.get_mut("pipeline")) else {
        return;
    };
    for step in steps.iter_mut().filter_map(Value::as_object_mut) {
        let reqs = step.entry("requirements").or_insert_with(|| json!({}));
        if !reqs.is_object() {
            *reqs = json!({});
        }
        if let Some(reqs) = reqs.as_object_mut() {
            let list = reqs.entry("requiredResources").or_insert_with(|| json!([]));
            if let Value::Array(list) = list {
                list.push(Value::Object(sel.clone()));
            } else {
                *list = json!([Value::Object(sel.clone())]);
            }
        }
    }
}

/// A reference to `obj`: its apiVersion, kind, name and (when it has one)
/// namespace.
fn object_ref(obj: &Map<String, Value>) -> Map<String, Value> {
    let mut reference = Map::new();
    for (from, to) in [
        (&["apiVersion"][..], "apiVersion"),
        (&["kind"], "kind"),
        (&["metadata", "name"], "name"),
    ] {
        reference.insert(to.into(), json!(str_at(obj, from).unwrap_or_default()));
    }
    if let Some(ns) = str_at(obj, &["metadata", "namespace"]).filter(|n| !n.is_empty()) {
        reference.insert("namespace".into(), json!(ns));
    }
    reference
}

/// The context flags: JSON values (`crossplane alpha render op` does not
/// take YAML there).
fn context(inputs: &RenderInputs) -> Result<Map<String, Value>, RenderError> {
    let mut out = Map::new();
    let texts = inputs
        .context_files
        .iter()
        .map(|(k, s)| (k, s.text.as_str()))
        .chain(inputs.context_values.iter().map(|(k, v)| (k, v.as_str())));
    for (key, text) in texts {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            RenderError::new(format!(
                "cannot unmarshal JSON value for context key {key:?}: {e}"
            ))
        })?;
        out.insert(key.clone(), value);
    }
    Ok(out)
}

pub(crate) fn render(
    inputs: &RenderInputs,
    opts: &RenderOptions,
    function: &dyn Function,
) -> Result<RenderOutput, RenderError> {
    let src = inputs
        .operation
        .as_ref()
        .ok_or_else(|| RenderError::new("no operation given"))?;
    let mut op = operation_of(first(src, "operation")?, &src.name)?;
    let mut required = many(&inputs.required_resources, "required resources")?;
    if let Some(w) = &inputs.watched {
        let watched = many(std::slice::from_ref(w), "watched resource")?;
        if watched.len() != 1 {
            return Err(RenderError::new(format!(
                "--watched-resource must contain exactly one resource, got {}",
                watched.len()
            )));
        }
        inject_watched(&mut op, &watched[0]);
        required.push(watched[0].clone());
    }
    let loaded = Loaded {
        xr: Map::new(),
        composition: op.clone(),
        functions: functions(inputs)?,
        observed: BTreeMap::new(),
        extra: Vec::new(),
        required,
        secrets: many(&inputs.function_credentials, "function credentials")?,
        context: context(inputs)?,
        schemas: crate::schemas::load(&inputs.schemas)?,
    };
    // Operations exist since Crossplane 2.0; their render is 2.2's.
    let opts = RenderOptions {
        version: opts.version.max(CrossplaneVersion::new(2, 2, 0)),
        ..opts.clone()
    };
    let outcome = pipeline::run(&loaded, &opts, function, Owner::Operation)?;

    // The objects it applies, by the step's name for them.
    let mut names: Vec<&String> = outcome.desired.resources.keys().collect();
    names.sort();
    let resources: Vec<Map<String, Value>> = names
        .iter()
        .map(|n| {
            outcome.desired.resources[*n]
                .resource
                .as_ref()
                .map(struct_json)
                .unwrap_or_default()
        })
        .collect();
    let applied: Vec<Value> = resources
        .iter()
        .map(|r| Value::Object(object_ref(r)))
        .collect();
    let pipeline_status: Vec<Value> = outcome
        .outputs
        .iter()
        .map(|(step, o)| json!({"step": step, "output": struct_json(o)}))
        .collect();
    let metadata = op.get("metadata").cloned().unwrap_or_else(|| json!({}));
    let mut operation = json!({
        "apiVersion": str_at(&op, &["apiVersion"]).unwrap_or_default(),
        "kind": str_at(&op, &["kind"]).unwrap_or_default(),
        "metadata": metadata,
        "status": {"appliedResourceRefs": applied, "pipeline": pipeline_status},
    });
    if opts.include_full_operation {
        operation["spec"] = op.get("spec").cloned().unwrap_or_else(|| json!({}));
    }
    let mut documents = vec![operation];
    documents.extend(resources.into_iter().map(Value::Object));
    if opts.include_function_results {
        documents.extend(outcome.results.iter().map(crate::output::result_document));
    }
    if opts.include_context
        && let Some(ctx) = outcome.context.as_ref().filter(|c| !c.fields.is_empty())
    {
        documents.push(crate::output::context_document(Value::Object(struct_json(
            ctx,
        ))));
    }
    Ok(RenderOutput {
        documents,
        warnings: outcome.warnings,
        requests: outcome.requests,
    })
}
