//! Schema documents: CRDs, Crossplane XRDs (and their claims), bare
//! OpenAPI documents, and the bare schemas of `required_schemas`.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value as Json, json};

use crate::SchemaError;
use crate::compile::{Schema, compile_in, kind_name};

/// Largest schema text accepted (bytes).
pub const MAX_TEXT_BYTES: usize = 8 << 20;

/// Compiled schemas by `(apiVersion, kind)`. Cheap to clone (schemas are
/// shared), `Send + Sync`.
#[derive(Clone, Default, Debug)]
pub struct SchemaSet {
    /// apiVersion -> kind -> schema (nested, so lookups borrow their keys).
    schemas: BTreeMap<String, BTreeMap<String, Arc<Schema>>>,
    /// The schema documents as loaded (apiVersion -> kind), self-contained
    /// (an OpenAPI document's schema carries the document's definitions
    /// that its `$ref`s need), for tools that hand schemas on (`render`
    /// answering `required_schemas`).
    raw: BTreeMap<String, BTreeMap<String, Arc<Json>>>,
    ignored: usize,
}

impl SchemaSet {
    pub fn new() -> SchemaSet {
        SchemaSet::default()
    }

    /// Loads every CRD, XRD and bare OpenAPI document in a YAML or JSON
    /// text (multi-document YAML, a JSON object, or a `List` with `items`).
    /// `origin` names the text in errors. A CRD contributes each served
    /// version; an XRD its composite resource per served version (with the
    /// fields Crossplane adds; a version without a schema takes any `spec`
    /// and `status`) and, with `claimNames`, the claim. Other
    /// documents are skipped and counted ([`SchemaSet::ignored`]). Either
    /// every schema of the text loads or none does. Returns the number of
    /// kinds (per version) loaded.
    pub fn load_text(&mut self, origin: &str, text: &str) -> Result<usize, SchemaError> {
        let docs = parse_documents(origin, text)?;
        let mut staged: Staged = Vec::new();
        let mut ignored = 0;
        let many = docs.len() > 1;
        for (i, doc) in docs.iter().enumerate() {
            let items: Vec<&Json> = match (doc.get("kind").and_then(Json::as_str), doc.get("items"))
            {
                (Some(k), Some(Json::Array(items))) if k.ends_with("List") => {
                    items.iter().collect()
                }
                _ => vec![doc],
            };
            for (j, item) in items.iter().enumerate() {
                let place = match (many, items.len() > 1 || !std::ptr::eq(*item, doc)) {
                    (true, true) => format!("document {}, item {}: ", i + 1, j + 1),
                    (true, false) => format!("document {}: ", i + 1),
                    (false, true) => format!("item {}: ", j + 1),
                    (false, false) => String::new(),
                };
                let before = staged.len();
                document(item, &mut staged)
                    .map_err(|m| SchemaError::new(origin, format!("{place}{m}")))?;
                if staged.len() == before {
                    ignored += 1;
                }
            }
        }
        let n = staged.len();
        for ((api_version, kind), schema, raw) in staged {
            self.insert(&api_version, &kind, Arc::new(schema));
            self.raw
                .entry(api_version)
                .or_default()
                .insert(kind, Arc::new(raw));
        }
        self.ignored += ignored;
        Ok(n)
    }

    /// A bare `openAPIV3Schema`, as Crossplane sends it in
    /// `required_schemas`. Replaces any schema of the same kind.
    pub fn insert_openapi(
        &mut self,
        api_version: &str,
        kind: &str,
        schema: &Json,
    ) -> Result<(), SchemaError> {
        let compiled = compile_in(schema, schema)
            .map_err(|m| SchemaError::new(&format!("schema of {api_version} {kind}"), m))?;
        self.insert(api_version, kind, Arc::new(compiled));
        self.raw
            .entry(api_version.to_owned())
            .or_default()
            .insert(kind.to_owned(), Arc::new(schema.clone()));
        Ok(())
    }

    /// Adds a compiled schema (replacing any of the same kind).
    pub fn insert(&mut self, api_version: &str, kind: &str, schema: Arc<Schema>) {
        if let Some(kinds) = self.raw.get_mut(api_version) {
            kinds.remove(kind);
        }
        self.schemas
            .entry(api_version.to_owned())
            .or_default()
            .insert(kind.to_owned(), schema);
    }

    /// The schema of a kind as loaded (JSON), self-contained; `None` for
    /// kinds added with [`SchemaSet::insert`].
    pub fn raw(&self, api_version: &str, kind: &str) -> Option<&Json> {
        self.raw.get(api_version)?.get(kind).map(|j| &**j)
    }

    pub fn get(&self, api_version: &str, kind: &str) -> Option<&Arc<Schema>> {
        self.schemas.get(api_version)?.get(kind)
    }

    /// Validates a resource body against the schema of its own
    /// `apiVersion` and `kind`: `None` if the body names no kind (or an
    /// unknown value) or the set has no schema for it.
    pub fn validate(&self, body: &fnhcl_value::Value) -> Option<Vec<crate::Violation>> {
        let entries = body.as_entries()?;
        let api_version = entries.get("apiVersion")?.as_str()?;
        let kind = entries.get("kind")?.as_str()?;
        Some(self.get(api_version, kind)?.validate(body))
    }

    /// `(apiVersion, kind)` of every schema, sorted.
    pub fn kinds(&self) -> impl Iterator<Item = (&str, &str)> {
        self.schemas
            .iter()
            .flat_map(|(a, kinds)| kinds.keys().map(move |k| (a.as_str(), k.as_str())))
    }

    /// The number of `(apiVersion, kind)` schemas.
    pub fn len(&self) -> usize {
        self.schemas.values().map(BTreeMap::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// Documents skipped by [`SchemaSet::load_text`] because they define no
    /// schema (not a CRD, XRD or OpenAPI document).
    pub fn ignored(&self) -> usize {
        self.ignored
    }
}

/// The documents of a YAML stream or a JSON text (one object), as JSON
/// values; empty documents are dropped. The text is bounded by
/// [`MAX_TEXT_BYTES`], nesting and size by the reader's limits. `origin`
/// names the text in errors, which give the line.
pub fn parse_documents(origin: &str, text: &str) -> Result<Vec<Json>, SchemaError> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(SchemaError::new(
            origin,
            format!(
                "text is {} bytes, more than the limit of {} MiB",
                text.len(),
                MAX_TEXT_BYTES >> 20
            ),
        ));
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        return match serde_json::from_str::<Json>(trimmed) {
            Ok(doc) => Ok(vec![doc]),
            Err(e) => Err(SchemaError::new(
                origin,
                format!("line {}: invalid JSON: {e}", e.line()),
            )),
        };
    }
    fnhcl_yaml::load_stream(text).map_err(|e| {
        let message = match e.line {
            Some(line) => format!("line {line}: invalid YAML: {}", e.message),
            None => format!("invalid YAML: {}", e.message),
        };
        SchemaError::new(origin, message)
    })
}

fn str_at<'a>(doc: &'a Json, pointer: &str) -> Option<&'a str> {
    doc.pointer(pointer).and_then(Json::as_str)
}

fn required_str<'a>(doc: &'a Json, pointer: &str, what: &str) -> Result<&'a str, String> {
    str_at(doc, pointer)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            format!(
                "{what} has no {}",
                pointer.trim_start_matches('/').replace('/', ".")
            )
        })
}

type Staged = Vec<((String, String), Schema, Json)>;

/// Compiles the schemas one document defines into `out`.
fn document(doc: &Json, out: &mut Staged) -> Result<(), String> {
    let api_version = str_at(doc, "/apiVersion").unwrap_or_default();
    let kind = str_at(doc, "/kind").unwrap_or_default();
    match kind {
        "CustomResourceDefinition" if api_version.starts_with("apiextensions.k8s.io/") => {
            crd(doc, out)
        }
        "CompositeResourceDefinition"
            if api_version.starts_with("apiextensions.crossplane.io/") =>
        {
            xrd(doc, api_version.ends_with("/v2"), out)
        }
        "" => openapi_document(doc, out),
        _ => Ok(()),
    }
}

/// Served versions of a CRD or XRD: `(name, schema)`.
fn versions<'a>(doc: &'a Json, what: &str) -> Result<Vec<(&'a str, Option<&'a Json>)>, String> {
    let legacy = doc.pointer("/spec/validation/openAPIV3Schema");
    let mut out = Vec::new();
    match doc.pointer("/spec/versions") {
        Some(Json::Array(versions)) => {
            for v in versions {
                let name = required_str(v, "/name", &format!("{what}: a version"))?;
                if v.get("served").and_then(Json::as_bool) == Some(false) {
                    continue;
                }
                out.push((name, v.pointer("/schema/openAPIV3Schema").or(legacy)));
            }
        }
        Some(other) => {
            return Err(format!(
                "{what}: spec.versions must be a list, got {}",
                kind_name(other)
            ));
        }
        None => {
            // apiextensions.k8s.io/v1beta1: one `spec.version`.
            let name = required_str(doc, "/spec/version", what)?;
            out.push((name, legacy));
        }
    }
    Ok(out)
}

fn crd(doc: &Json, out: &mut Staged) -> Result<(), String> {
    let name = str_at(doc, "/metadata/name").unwrap_or("(unnamed)");
    let what = format!("CustomResourceDefinition {name}");
    let group = required_str(doc, "/spec/group", &what)?;
    let kind = required_str(doc, "/spec/names/kind", &what)?;
    for (version, schema) in versions(doc, &what)? {
        let Some(schema) = schema else {
            return Err(format!(
                "{what} version {version} has no schema (schema.openAPIV3Schema)"
            ));
        };
        let compiled =
            compile_in(schema, schema).map_err(|m| format!("{what} version {version}: {m}"))?;
        out.push((
            (format!("{group}/{version}"), kind.to_owned()),
            compiled,
            schema.clone(),
        ));
    }
    Ok(())
}

fn xrd(doc: &Json, v2: bool, out: &mut Staged) -> Result<(), String> {
    let name = str_at(doc, "/metadata/name").unwrap_or("(unnamed)");
    let what = format!("CompositeResourceDefinition {name}");
    let group = required_str(doc, "/spec/group", &what)?;
    let kind = required_str(doc, "/spec/names/kind", &what)?;
    let claim = str_at(doc, "/spec/claimNames/kind").filter(|k| !k.is_empty());
    let legacy_fields = !v2 || str_at(doc, "/spec/scope") == Some("LegacyCluster");
    for (version, schema) in versions(doc, &what)? {
        // An XRD may leave the schema out: then spec and status take anything.
        let permissive = json!({"type": "object", "properties": {
            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
        let schema = schema.unwrap_or(&permissive);
        let api_version = format!("{group}/{version}");
        let xr = with_crossplane_fields(schema, Role::Composite { v2, legacy_fields })
            .map_err(|m| format!("{what} version {version}: {m}"))?;
        let compiled =
            compile_in(&xr, &xr).map_err(|m| format!("{what} version {version}: {m}"))?;
        out.push(((api_version.clone(), kind.to_owned()), compiled, xr));
        if let Some(claim) = claim {
            let c = with_crossplane_fields(schema, Role::Claim)
                .map_err(|m| format!("{what} version {version}: {m}"))?;
            let compiled =
                compile_in(&c, &c).map_err(|m| format!("{what} version {version}: {m}"))?;
            out.push(((api_version, claim.to_owned()), compiled, c));
        }
    }
    Ok(())
}

/// A bare OpenAPI document (`components.schemas`, or Swagger's
/// `definitions`): every schema with `x-kubernetes-group-version-kind`.
fn openapi_document(doc: &Json, out: &mut Staged) -> Result<(), String> {
    let Some(Json::Object(defs)) = doc
        .pointer("/components/schemas")
        .or_else(|| doc.get("definitions"))
    else {
        return Ok(());
    };
    for (name, schema) in defs {
        let Some(Json::Array(gvks)) = schema.get("x-kubernetes-group-version-kind") else {
            continue;
        };
        for gvk in gvks {
            let (Some(version), Some(kind)) = (str_at(gvk, "/version"), str_at(gvk, "/kind"))
            else {
                continue;
            };
            let group = str_at(gvk, "/group").unwrap_or_default();
            let api_version = if group.is_empty() {
                version.to_owned()
            } else {
                format!("{group}/{version}")
            };
            let compiled = compile_in(schema, doc).map_err(|m| format!("schema {name}: {m}"))?;
            out.push((
                (api_version, kind.to_owned()),
                compiled,
                self_contained(schema, doc),
            ));
        }
    }
    Ok(())
}

/// `schema` with the definitions of `doc` its `$ref`s point into, so that
/// it compiles on its own (refs resolve against the schema's own root).
fn self_contained(schema: &Json, doc: &Json) -> Json {
    let mut out = schema.clone();
    if let (Json::Object(o), Json::Object(d)) = (&mut out, doc)
        && schema.to_string().contains("\"$ref\"")
    {
        for key in ["components", "definitions", "$defs"] {
            if let Some(v) = d.get(key) {
                o.entry(key).or_insert_with(|| v.clone());
            }
        }
    }
    out
}

enum Role {
    Composite { v2: bool, legacy_fields: bool },
    Claim,
}

/// The XRD's schema with the fields Crossplane adds to composite resources
/// (or claims), so that a real XR or claim validates. Only objects that
/// list `properties` get fields added (others take any field already).
fn with_crossplane_fields(schema: &Json, role: Role) -> Result<Json, String> {
    let Json::Object(root) = schema else {
        return Err(format!(
            "a schema must be an object, got {}",
            kind_name(schema)
        ));
    };
    let mut root = root.clone();
    root.entry("type").or_insert_with(|| json!("object"));
    let props = root
        .entry("properties")
        .or_insert_with(|| Json::Object(Map::new()));
    let Json::Object(props) = props else {
        return Err("properties must be an object".to_owned());
    };
    // Types and required fields as Crossplane's generated CRDs have them.
    let string = json!({"type": "string"});
    let object_ref = |required: &[&str], with_namespace: bool| {
        let mut props = json!({"apiVersion": string, "kind": string, "name": string});
        if with_namespace {
            props["namespace"] = string.clone();
        }
        json!({"type": "object", "required": required, "properties": props})
    };
    let name_ref = json!({"type": "object", "required": ["name"], "properties": {"name": string}});
    let selector = json!({"type": "object", "required": ["matchLabels"], "properties": {
        "matchLabels": {"type": "object", "additionalProperties": string}}});
    let update_policy = json!({"type": "string", "enum": ["Automatic", "Manual"]});
    let open = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true});
    let resource_refs =
        json!({"type": "array", "items": object_ref(&["apiVersion", "kind"], false)});
    let composition_fields = [
        ("compositionRef", name_ref.clone()),
        ("compositionSelector", selector.clone()),
        ("compositionRevisionRef", name_ref.clone()),
        ("compositionRevisionSelector", selector),
        ("compositionUpdatePolicy", update_policy),
    ];
    let mut spec_fields: Vec<(&str, Json)> = Vec::new();
    match role {
        Role::Composite { v2, legacy_fields } => {
            if legacy_fields {
                spec_fields.extend(composition_fields.iter().cloned());
                spec_fields.extend([
                    (
                        "claimRef",
                        object_ref(&["apiVersion", "kind", "namespace", "name"], true),
                    ),
                    (
                        "environmentConfigRefs",
                        json!({"type": "array", "items": object_ref(&[], false)}),
                    ),
                    ("resourceRefs", resource_refs.clone()),
                    ("publishConnectionDetailsTo", open.clone()),
                    (
                        "writeConnectionSecretToRef",
                        json!({"type": "object", "required": ["name", "namespace"],
                            "properties": {"name": string, "namespace": string}}),
                    ),
                ]);
            }
            if v2 {
                let mut cp: Map<String, Json> = composition_fields
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), v.clone()))
                    .collect();
                cp.insert("resourceRefs".to_owned(), resource_refs);
                spec_fields.push((
                    "crossplane",
                    json!({"type": "object", "properties": Json::Object(cp)}),
                ));
            }
        }
        Role::Claim => {
            spec_fields.extend(composition_fields.iter().cloned());
            spec_fields.extend([
                (
                    "compositeDeletePolicy",
                    json!({"type": "string", "enum": ["Background", "Foreground"]}),
                ),
                (
                    "resourceRef",
                    object_ref(&["apiVersion", "kind", "name"], false),
                ),
                ("publishConnectionDetailsTo", open.clone()),
                ("writeConnectionSecretToRef", name_ref),
            ]);
        }
    }
    let time = json!({"type": "string", "format": "date-time"});
    let status_fields = [
        (
            "conditions",
            json!({"type": "array", "items": {"type": "object",
                "required": ["lastTransitionTime", "reason", "status", "type"],
                "properties": {"lastTransitionTime": time, "message": string, "reason": string,
                    "status": string, "type": string, "observedGeneration": {"type": "integer"}}}}),
        ),
        (
            "connectionDetails",
            json!({"type": "object", "properties": {"lastPublishedTime": time}}),
        ),
        (
            "claimConditionTypes",
            json!({"type": "array", "items": string}),
        ),
        ("crossplane", open),
    ];
    for (section, fields) in [("spec", spec_fields), ("status", status_fields.to_vec())] {
        let entry = props
            .entry(section)
            .or_insert_with(|| json!({"type": "object", "properties": {}}));
        let Json::Object(sec) = entry else {
            return Err(format!("properties.{section} must be an object"));
        };
        if let Some(Json::Object(sec_props)) = sec.get_mut("properties") {
            for (k, v) in fields {
                sec_props.entry(k).or_insert(v);
            }
        }
    }
    Ok(Json::Object(root))
}
