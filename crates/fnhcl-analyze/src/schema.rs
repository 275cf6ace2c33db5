//! The composite resource's shape, from its CompositeResourceDefinition,
//! so that `req.composite.spec.paramters` can be reported as a typo.

use std::collections::BTreeMap;

use serde_json::Value;

/// A structural schema (the subset of OpenAPI v3 that matters for field
/// names).
#[derive(Clone, Debug, PartialEq)]
pub enum Schema {
    /// An object with known properties. `extra`: the schema of other keys
    /// (`additionalProperties`), if they are allowed.
    Object {
        properties: BTreeMap<String, Schema>,
        extra: Option<Box<Schema>>,
    },
    Array(Box<Schema>),
    /// A scalar, or anything whose fields are not known
    /// (`x-kubernetes-preserve-unknown-fields`, no type).
    Any,
}

const MAX_DEPTH: usize = 64;

impl Schema {
    /// Converts an OpenAPI v3 schema object.
    pub fn from_openapi(v: &Value) -> Schema {
        from_openapi(v, 0)
    }

    /// The schema of the composite resource defined by a
    /// CompositeResourceDefinition document: the version named by
    /// `api_version` (`group/version`) if given and present, else the
    /// referenceable version, else the first. `None` if the document is not
    /// an XRD or has no schema.
    pub fn from_xrd(xrd: &Value, api_version: Option<&str>) -> Option<Schema> {
        if xrd.get("kind").and_then(Value::as_str) != Some("CompositeResourceDefinition") {
            return None;
        }
        let versions = xrd.pointer("/spec/versions")?.as_array()?;
        let group = xrd.pointer("/spec/group").and_then(Value::as_str);
        let wanted = api_version
            .and_then(|a| a.rsplit_once('/'))
            .and_then(|(g, v)| (Some(g) == group).then_some(v));
        let version = wanted
            .and_then(|w| {
                versions
                    .iter()
                    .find(|v| v.get("name").and_then(Value::as_str) == Some(w))
            })
            .or_else(|| {
                versions
                    .iter()
                    .find(|v| v.get("referenceable").and_then(Value::as_bool) == Some(true))
            })
            .or_else(|| versions.first())?;
        let schema = version.pointer("/schema/openAPIV3Schema")?;
        Some(Schema::from_openapi(schema))
    }
}

fn from_openapi(v: &Value, depth: usize) -> Schema {
    if depth > MAX_DEPTH {
        return Schema::Any;
    }
    if v.get("x-kubernetes-preserve-unknown-fields")
        .and_then(Value::as_bool)
        == Some(true)
    {
        return Schema::Any;
    }
    let ty = v.get("type").and_then(Value::as_str);
    if let Some(items) = v.get("items")
        && (ty == Some("array") || ty.is_none())
    {
        return Schema::Array(Box::new(from_openapi(items, depth + 1)));
    }
    let props = v.get("properties").and_then(Value::as_object);
    let additional = v.get("additionalProperties");
    if ty == Some("object") || props.is_some() {
        let properties = props
            .map(|p| {
                p.iter()
                    .map(|(k, s)| (k.clone(), from_openapi(s, depth + 1)))
                    .collect()
            })
            .unwrap_or_default();
        let extra = match additional {
            Some(Value::Bool(false)) => None,
            Some(Value::Object(_)) => additional.map(|a| Box::new(from_openapi(a, depth + 1))),
            Some(_) => Some(Box::new(Schema::Any)),
            // An object with no properties and no additionalProperties
            // accepts nothing structurally, but is usually a free-form map
            // in practice: treat it as open.
            None if props.is_none() => Some(Box::new(Schema::Any)),
            None => None,
        };
        return Schema::Object { properties, extra };
    }
    Schema::Any
}
