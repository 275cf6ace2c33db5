//! Data-driven schema cases: `tests/cases/NAME.yaml`, expectation in
//! `tests/cases/NAME.expected`; `FNHCL_BLESS=1` rewrites expectations.
//!
//! The first YAML document of a case says where the schemas come from:
//! - `schemas: [crds/x.yaml, ...]`: files under `tests/data/`, loaded in
//!   order into one `SchemaSet`;
//! - `schema_text: "..."`: a text loaded as `inline.yaml`;
//! - `openapi: {apiVersion, kind, schema}`: `SchemaSet::insert_openapi`;
//! - `generate: large`: a generated CRD text over the size limit;
//! - `fields: [spec.forProvider.region, ...]`: paths to describe with
//!   `Schema::field` (of the first instance's kind).
//!
//! Every later document is an instance, validated against the schema of
//! its `apiVersion` and `kind`. In instances the string `$unknown` stands
//! for an unknown value and `$sensitive:TEXT` for a marked string.
//!
//! The expectation lists the kinds loaded (or the load error), then per
//! instance its violations (`Display` form and kind), then the fields.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fnhcl_schema::{SchemaSet, ViolationKind};
use fnhcl_value::{Type, Value};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value as Json;

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let trials: Vec<Trial> = fnhcl_cases::discover(&dir, |p| fnhcl_cases::has_extension(p, "yaml"))
        .into_iter()
        .map(|p| Trial::test(fnhcl_cases::case_name(&p), move || run_case(&p)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// A CRD whose text is `bytes` long (descriptions pad it).
fn large_crd(bytes: usize) -> String {
    let mut text = String::from(
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: bigs.example.org\nspec:\n  group: example.org\n  names:\n    kind: Big\n  versions:\n  - name: v1\n    served: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        properties:\n",
    );
    let mut i = 0;
    while text.len() < bytes {
        text.push_str(&format!(
            "          field{i}:\n            type: string\n            description: {}\n",
            "x".repeat(200)
        ));
        i += 1;
    }
    text
}

fn to_value(j: &Json) -> Value {
    match j {
        Json::String(s) if s == "$unknown" => Value::dynamic_unknown(),
        Json::String(s) if s.starts_with("$sensitive:") => {
            Value::string(&s["$sensitive:".len()..]).mark()
        }
        Json::Array(items) => Value::tuple(items.iter().map(to_value).collect()),
        Json::Object(m) => Value::object(
            m.iter()
                .map(|(k, v)| (Arc::from(k.as_str()), to_value(v)))
                .collect(),
        ),
        Json::Null => Value::Null(Type::Dynamic),
        other => fnhcl_value::from_serde_json(other),
    }
}

fn kind_tag(k: &ViolationKind) -> &'static str {
    match k {
        ViolationKind::UnknownField { .. } => "unknown-field",
        ViolationKind::Type => "type",
        ViolationKind::Required => "required",
        ViolationKind::Enum => "enum",
        ViolationKind::Pattern => "pattern",
        ViolationKind::Range => "range",
        ViolationKind::Length => "length",
        ViolationKind::Items => "items",
        ViolationKind::Properties => "properties",
        ViolationKind::Format => "format",
        ViolationKind::Other => "other",
    }
}

fn run_case(path: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let docs = fnhcl_schema::parse_documents(&path.display().to_string(), &text)
        .map_err(|e| e.to_string())?;
    let (config, instances) = docs.split_first().ok_or("empty case")?;
    let mut set = SchemaSet::default();
    let mut out = String::new();
    let mut load = |origin: &str, text: &str, out: &mut String| match set.load_text(origin, text) {
        Ok(n) => out.push_str(&format!("loaded {n} from {origin}\n")),
        Err(e) => out.push_str(&format!("error: {e}\n")),
    };
    if let Some(Json::Array(files)) = config.get("schemas") {
        for f in files {
            let f = f.as_str().ok_or("schemas: file names")?;
            let text =
                std::fs::read_to_string(data_dir().join(f)).map_err(|e| format!("{f}: {e}"))?;
            load(f, &text, &mut out);
        }
    }
    if let Some(text) = config.get("schema_text").and_then(Json::as_str) {
        load("inline.yaml", text, &mut out);
    }
    if config.get("generate").and_then(Json::as_str) == Some("large") {
        let text = large_crd(10 << 20);
        load("generated-10MB.yaml", &text, &mut out);
    }
    if let Some(o) = config.get("openapi") {
        let av = o
            .get("apiVersion")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let kind = o.get("kind").and_then(Json::as_str).unwrap_or_default();
        let schema = o.get("schema").cloned().unwrap_or(Json::Null);
        match set.insert_openapi(av, kind, &schema) {
            Ok(()) => out.push_str("loaded openapi schema\n"),
            Err(e) => out.push_str(&format!("error: {e}\n")),
        }
    }
    if set.ignored() > 0 {
        out.push_str(&format!("ignored {} documents\n", set.ignored()));
    }
    for (av, k) in set.kinds() {
        out.push_str(&format!("kind {av} {k}\n"));
    }
    for inst in instances {
        let av = inst
            .get("apiVersion")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let kind = inst.get("kind").and_then(Json::as_str).unwrap_or_default();
        let name = inst
            .pointer("/metadata/name")
            .and_then(Json::as_str)
            .unwrap_or_default();
        out.push_str(&format!("\n--- {av} {kind} {name}\n"));
        let Some(schema) = set.get(av, kind) else {
            out.push_str("no schema\n");
            continue;
        };
        let violations = schema.validate(&to_value(inst));
        if violations.is_empty() {
            out.push_str("valid\n");
        }
        for v in &violations {
            out.push_str(&format!("{v} [{}]\n", kind_tag(&v.kind)));
            if let ViolationKind::UnknownField {
                suggestion: Some(s),
            } = &v.kind
                && !v.message.contains(s.as_str())
            {
                return Err(format!("suggestion {s} not in message: {v}").into());
            }
        }
        // Same input, same answer.
        if schema.validate(&to_value(inst)) != violations {
            return Err("validation is not deterministic".into());
        }
    }
    if let Some(Json::Array(fields)) = config.get("fields") {
        let first = instances.first().ok_or("fields need an instance")?;
        let av = first
            .get("apiVersion")
            .and_then(Json::as_str)
            .unwrap_or_default();
        let kind = first.get("kind").and_then(Json::as_str).unwrap_or_default();
        let schema = set.get(av, kind).ok_or("fields: no schema")?;
        out.push('\n');
        for f in fields {
            let f = f.as_str().ok_or("fields: paths")?;
            let path: Vec<&str> = if f.is_empty() {
                Vec::new()
            } else {
                f.split('.').collect()
            };
            match schema.field(&path) {
                None => out.push_str(&format!("field {f}: none\n")),
                Some(field) => {
                    let desc = field
                        .description()
                        .and_then(|d| d.lines().next())
                        .unwrap_or_default();
                    let mut props = field.property_names();
                    let more = props.len().saturating_sub(8);
                    props.truncate(8);
                    out.push_str(&format!(
                        "field {f}: {}{}{} enum=[{}] properties=[{}{}] description={desc:?}\n",
                        field.type_name(),
                        if field.required() { " required" } else { "" },
                        if field.preserves_unknown() {
                            " preserves-unknown"
                        } else {
                            ""
                        },
                        field.enum_values().join(", "),
                        props.join(", "),
                        if more > 0 {
                            format!(", +{more}")
                        } else {
                            String::new()
                        },
                    ));
                }
            }
        }
    }
    Ok(fnhcl_cases::check_or_bless(
        &path.with_extension("expected"),
        &out,
    )?)
}
