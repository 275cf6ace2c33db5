//! `--xrd`: the XR gets the defaults of its XRD's schema before rendering,
//! as the API server would have given them (Kubernetes structural
//! defaulting: a property with a `default` is set when missing, or null and
//! not nullable, inside objects that exist; then defaulting recurses into
//! properties, `additionalProperties` and `items`).

use serde_json::{Map, Value};

use crate::error::RenderError;
use crate::fields::{get_at, str_at};

/// Deepest schema nesting followed.
const MAX_SCHEMA_DEPTH: usize = 128;

/// The `openAPIV3Schema` of the XRD version that serves the XR.
pub(crate) fn schema_for<'a>(
    xrd: &'a Map<String, Value>,
    xr: &Map<String, Value>,
) -> Result<&'a Map<String, Value>, RenderError> {
    let kind = str_at(xrd, &["kind"]).unwrap_or_default();
    if kind != "CompositeResourceDefinition" {
        return Err(RenderError::new(format!(
            "cannot load XRD: kind is {kind:?}, want CompositeResourceDefinition"
        )));
    }
    let api = str_at(xr, &["apiVersion"]).unwrap_or_default();
    let (group, version) = api.rsplit_once('/').unwrap_or(("", api));
    let xrd_group = str_at(xrd, &["spec", "group"]).unwrap_or_default();
    let xrd_kind = str_at(xrd, &["spec", "names", "kind"]).unwrap_or_default();
    let xr_kind = str_at(xr, &["kind"]).unwrap_or_default();
    if xrd_group != group || xrd_kind != xr_kind {
        return Err(RenderError::new(format!(
            "XRD defines {xrd_kind}.{xrd_group}, but the XR is {xr_kind}.{group}"
        )));
    }
    let versions = match get_at(xrd, &["spec", "versions"]) {
        Some(Value::Array(v)) => v.as_slice(),
        _ => &[],
    };
    let found = versions
        .iter()
        .filter_map(Value::as_object)
        .find(|v| str_at(v, &["name"]) == Some(version))
        .ok_or_else(|| RenderError::new(format!("XRD has no version {version:?} for the XR")))?;
    match get_at(found, &["schema", "openAPIV3Schema"]) {
        Some(Value::Object(s)) => Ok(s),
        _ => Err(RenderError::new(format!(
            "XRD version {version:?} has no schema.openAPIV3Schema"
        ))),
    }
}

/// Applies the schema's defaults to `value` in place.
pub(crate) fn apply_defaults(value: &mut Value, schema: &Map<String, Value>) {
    default_value(value, schema, 0);
}

fn nullable(schema: &Map<String, Value>) -> bool {
    schema.get("nullable").and_then(Value::as_bool) == Some(true)
}

fn default_value(value: &mut Value, schema: &Map<String, Value>, depth: usize) {
    if depth > MAX_SCHEMA_DEPTH {
        return;
    }
    match value {
        Value::Object(obj) => {
            let props = schema.get("properties").and_then(Value::as_object);
            if let Some(props) = props {
                for (k, prop) in props {
                    let Some(prop) = prop.as_object() else {
                        continue;
                    };
                    let Some(default) = prop.get("default") else {
                        continue;
                    };
                    let missing = match obj.get(k) {
                        None => true,
                        Some(Value::Null) => !nullable(prop),
                        Some(_) => false,
                    };
                    if missing {
                        obj.insert(k.clone(), default.clone());
                    }
                }
            }
            let additional = schema
                .get("additionalProperties")
                .and_then(Value::as_object);
            for (k, v) in obj.iter_mut() {
                match props.and_then(|p| p.get(k)).and_then(Value::as_object) {
                    Some(prop) => default_value(v, prop, depth + 1),
                    None => {
                        if let Some(a) = additional {
                            default_value(v, a, depth + 1);
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items").and_then(Value::as_object) {
                for v in items {
                    default_value(v, item_schema, depth + 1);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structural_defaulting() {
        let schema = json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "default": "eu-west-1"},
                        "size": {"type": "integer", "default": 3},
                        "maybe": {"type": "string", "nullable": true, "default": "x"},
                        "params": {"type": "object", "properties": {"deep": {"type": "string", "default": "d"}}},
                        "absent": {"type": "object", "properties": {"deep": {"type": "string", "default": "never"}}},
                        "list": {"type": "array", "items": {"type": "object", "properties": {"p": {"default": 1}}}},
                        "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {"q": {"default": true}}}},
                    }
                }
            }
        });
        let mut xr = json!({"spec": {"size": null, "maybe": null, "params": {}, "list": [{}, {"p": 2}], "map": {"a": {}}}});
        apply_defaults(&mut xr, schema.as_object().unwrap());
        assert_eq!(
            xr,
            json!({"spec": {"region": "eu-west-1", "size": 3, "maybe": null, "params": {"deep": "d"},
                             "list": [{"p": 1}, {"p": 2}], "map": {"a": {"q": true}}}})
        );
    }
}
