//! The composite resource's schema, from its CompositeResourceDefinition,
//! so that `req.composite.spec.paramters` can be reported as a typo. The
//! schema model is `fnhcl-schema`'s (the same that validates bodies): an
//! XR's schema includes the fields Crossplane adds to every XR.

use std::sync::Arc;

use fnhcl_schema::{Schema, SchemaSet};
use serde_json::Value;

/// The connection secret keys an XRD document declares
/// (`spec.connectionSecretKeys`), in order.
pub fn connection_keys(xrd: &Value) -> Vec<String> {
    xrd.pointer("/spec/connectionSecretKeys")
        .and_then(Value::as_array)
        .map(|keys| {
            keys.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether an XRD document defines a namespaced composite: a Crossplane 2
/// XRD (`apiextensions.crossplane.io/v2`) whose `spec.scope` is
/// `Namespaced` or absent (its default). Crossplane 1 XRDs
/// (`apiextensions.crossplane.io/v1`) define cluster-scoped composites.
pub fn namespaced_composite(xrd: &Value) -> bool {
    xrd.get("apiVersion").and_then(Value::as_str) == Some("apiextensions.crossplane.io/v2")
        && xrd
            .pointer("/spec/scope")
            .and_then(Value::as_str)
            .is_none_or(|s| s == "Namespaced")
}

/// The names of the requirements a Composition pipeline step declares
/// itself (`requirements.requiredResources[].requirementName`): Crossplane
/// sends them before the first call, without a `requirement` block.
pub fn step_requirement_names(step: &Value) -> Vec<String> {
    step.pointer("/requirements/requiredResources")
        .and_then(Value::as_array)
        .map(|reqs| {
            reqs.iter()
                .filter_map(|r| r.get("requirementName").and_then(Value::as_str))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The schema of the composite resource defined by a
/// CompositeResourceDefinition document: the version named by
/// `api_version` (`group/version`) if given and present, else the
/// referenceable version, else the first. `None` if the document is not an
/// XRD or its schema cannot be compiled.
pub fn composite_schema(xrd: &Value, api_version: Option<&str>) -> Option<Arc<Schema>> {
    if xrd.get("kind").and_then(Value::as_str) != Some("CompositeResourceDefinition") {
        return None;
    }
    let versions = xrd.pointer("/spec/versions")?.as_array()?;
    let group = xrd.pointer("/spec/group").and_then(Value::as_str)?;
    let kind = xrd.pointer("/spec/names/kind").and_then(Value::as_str)?;
    let wanted = api_version
        .and_then(|a| a.rsplit_once('/'))
        .and_then(|(g, v)| (g == group).then_some(v));
    let name = |v: &Value| v.get("name").and_then(Value::as_str).map(str::to_owned);
    let version = wanted
        .and_then(|w| versions.iter().find(|v| name(v).as_deref() == Some(w)))
        .or_else(|| {
            versions
                .iter()
                .find(|v| v.get("referenceable").and_then(Value::as_bool) == Some(true))
        })
        .or_else(|| versions.first())
        .and_then(name)?;
    let mut set = SchemaSet::new();
    set.load_text("XRD", &xrd.to_string()).ok()?;
    set.get(&format!("{group}/{version}"), kind).cloned()
}
