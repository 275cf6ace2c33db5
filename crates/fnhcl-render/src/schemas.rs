//! Answers to schema requirements: `--required-schemas DIR` (as
//! `crossplane render` 2.2 reads it: Kubernetes OpenAPI v3 documents) and
//! `--crds PATH` (CRDs and XRDs). Both are loaded into one
//! [`fnhcl_schema::SchemaSet`]; a requested kind it does not hold is
//! answered with an empty schema, as Crossplane answers a kind it cannot
//! find.

use std::collections::HashMap;

use fnhcl_schema::SchemaSet;
use function_sdk_rust::proto::v1::{Schema, SchemaSelector};
use function_sdk_rust::resource::json_to_struct;

use crate::error::RenderError;
use crate::inputs::Source;

/// Loads every schema document of `sources`.
pub(crate) fn load(sources: &[Source]) -> Result<SchemaSet, RenderError> {
    let mut set = SchemaSet::new();
    for src in sources {
        set.load_text(&src.name, &src.text)
            .map_err(|e| RenderError::new(format!("cannot load schemas: {e}")))?;
    }
    Ok(set)
}

/// The `required_schemas` that answer `selectors`.
pub(crate) fn answer(
    set: &SchemaSet,
    selectors: &HashMap<String, SchemaSelector>,
) -> HashMap<String, Schema> {
    selectors
        .iter()
        .map(|(key, sel)| {
            let openapi_v3 = set
                .raw(&sel.api_version, &sel.kind)
                .and_then(|raw| raw.as_object())
                .map(json_to_struct);
            (key.clone(), Schema { openapi_v3 })
        })
        .collect()
}
