//! The schema of `metadata` (Kubernetes' ObjectMeta), checked for every
//! resource whatever its own schema says: field names and their types,
//! not the server's rules for names and label values.

use std::sync::OnceLock;

use serde_json::json;

use crate::compile::Schema;

pub(crate) fn object_meta() -> &'static Schema {
    static META: OnceLock<Schema> = OnceLock::new();
    META.get_or_init(|| {
        let string = json!({"type": "string"});
        let string_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let time = json!({"type": "string", "format": "date-time", "nullable": true});
        let schema = json!({
            "type": "object",
            "properties": {
                "name": string,
                "generateName": string,
                "namespace": string,
                "uid": string,
                "resourceVersion": string,
                "selfLink": string,
                "generation": {"type": "integer"},
                "creationTimestamp": time,
                "deletionTimestamp": time,
                "deletionGracePeriodSeconds": {"type": "integer"},
                "labels": string_map,
                "annotations": string_map,
                "finalizers": {"type": "array", "items": string},
                "ownerReferences": {"type": "array", "items": {
                    "type": "object",
                    "required": ["apiVersion", "kind", "name", "uid"],
                    "properties": {
                        "apiVersion": string,
                        "kind": string,
                        "name": string,
                        "uid": string,
                        "controller": {"type": "boolean"},
                        "blockOwnerDeletion": {"type": "boolean"},
                    },
                }},
                "managedFields": {"type": "array", "items": {
                    "type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            },
        });
        // A fixed, valid schema: compiling it cannot fail. Should it ever,
        // an empty object schema (anything goes) is the safe fallback.
        Schema::compile(&schema)
            .or_else(|_| Schema::compile(&json!({})))
            .unwrap_or_else(|_| Schema::empty())
    })
}
