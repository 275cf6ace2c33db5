//! Kubernetes OpenAPI v3 schemas and the validation of resource bodies
//! against them (issue 16, "schema-aware compositions").
//!
//! [`SchemaSet`] loads CRDs, Crossplane XRDs, bare OpenAPI documents and
//! the schemas Crossplane sends in `RunFunctionRequest.required_schemas`;
//! [`Schema::compile`] turns one `openAPIV3Schema` into a compact node
//! table once; [`Schema::validate`] lists every violation of a body;
//! [`Schema::field`] answers "what is at this path" for static checks.
//!
//! Decisions (see `src/validate.rs` for the details):
//! - An object whose schema has `properties` (and no `additionalProperties`
//!   or `x-kubernetes-preserve-unknown-fields`) rejects other fields, as
//!   Kubernetes' structural-schema pruning would silently drop them. An
//!   object schema without `properties` accepts any field.
//! - A `null` for an optional field is accepted whatever `nullable` says:
//!   Crossplane applies with server-side apply, which drops nulls. A `null`
//!   for a required field, or as an array element, is reported unless the
//!   schema is `nullable`.
//! - Unknown values (not known until a later reconcile) are not checked.
//! - `apiVersion`, `kind` and `metadata` at the top (and in an
//!   `x-kubernetes-embedded-resource`) are the envelope: always allowed;
//!   `metadata` is checked against ObjectMeta's field names and types. An
//!   embedded resource must name its `apiVersion` and `kind`.
//!
//! - `resource.Quantity` (a string in Kubernetes' OpenAPI documents) and
//!   `format: quantity` take numbers too, as the API server does.
//! - `pattern` is read as Go's RE2 reads it (Kubernetes' dialect): `\d`,
//!   `\w`, `\s`, `\b` are ASCII; `\Q...\E` is not supported.
//! - Lists of `x-kubernetes-list-type: set` (and `uniqueItems`) must not
//!   repeat an element, those of type `map` not repeat the values of the
//!   `x-kubernetes-list-map-keys`, as the API server demands (checked for
//!   lists of up to 2,000 elements; unknown elements never count).
//! - Not checked: `x-kubernetes-validations` (CEL rules), `not`,
//!   formats other than `date-time` and `int-or-string`, non-local `$ref`s
//!   (a compile error). `anyOf`/`oneOf` report one violation at the value,
//!   not the alternatives' details.
//!
//! Limits: texts over [`MAX_TEXT_BYTES`], YAML nested deeper than 200
//! levels, schemas nested deeper than [`MAX_DEPTH`] or with more than
//! [`MAX_NODES`] nodes are errors; values nested deeper than 200 levels
//! get one violation there; one validation visits at most 250,000
//! (value, schema) pairs (nested `anyOf`/`oneOf` multiply the work), then
//! stops with a violation at the root. `allOf` parts are flattened at
//! compile time, so diamonds of `allOf` cost one visit per part. Nothing
//! recurses without a bound.
//!
//! No IO, no printing: callers hand in text.

mod compile;
mod field;
mod load;
mod meta;
mod suggest;
mod validate;

use std::fmt;

pub use compile::{MAX_DEPTH, MAX_NODES, Schema};
pub use field::Field;
pub use load::{MAX_TEXT_BYTES, SchemaSet, parse_documents};

/// A schema or schema document that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    /// The file (or other source) the schema came from.
    pub origin: String,
    /// What is wrong, with the document index or the path inside the
    /// schema where that helps.
    pub message: String,
}

impl SchemaError {
    pub(crate) fn new(origin: &str, message: impl Into<String>) -> SchemaError {
        SchemaError {
            origin: origin.to_owned(),
            message: message.into(),
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.origin.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.origin, self.message)
        }
    }
}

impl std::error::Error for SchemaError {}

/// One step of a path into a resource body.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathSegment {
    Key(String),
    Index(usize),
}

/// What kind of rule a body breaks.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    /// A field the schema does not have; `suggestion` is the closest
    /// sibling name, if one is close.
    UnknownField {
        suggestion: Option<String>,
    },
    Type,
    Required,
    Enum,
    Pattern,
    /// `minimum`, `maximum` (exclusive or not), `multipleOf`.
    Range,
    /// `minLength`, `maxLength`.
    Length,
    /// `minItems`, `maxItems`.
    Items,
    /// `minProperties`, `maxProperties`.
    Properties,
    Format,
    /// `anyOf`/`oneOf` mismatches, nesting limits.
    Other,
}

/// One rule broken by a body. `message` does not repeat the path; the
/// `Display` form is `<path>: <message>`, e.g.
/// `spec.forProvider.regoin: unknown field; did you mean "region"?`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub path: Vec<PathSegment>,
    pub kind: ViolationKind,
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "(root): {}", self.message)
        } else {
            write!(f, "{}: {}", display_path(&self.path), self.message)
        }
    }
}

/// `spec.forProvider.tags[0].key`; keys that are not plain identifiers are
/// quoted in brackets: `metadata.labels["app.kubernetes.io/name"]`.
pub fn display_path(path: &[PathSegment]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            PathSegment::Index(i) => {
                s.push('[');
                s.push_str(&i.to_string());
                s.push(']');
            }
            PathSegment::Key(k) => {
                let plain = !k.is_empty()
                    && k.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
                if plain {
                    if !s.is_empty() {
                        s.push('.');
                    }
                    s.push_str(k);
                } else {
                    s.push('[');
                    s.push_str(&serde_json::Value::String(k.clone()).to_string());
                    s.push(']');
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_display_like_field_references() {
        let p = [
            PathSegment::Key("spec".into()),
            PathSegment::Key("tags".into()),
            PathSegment::Index(0),
            PathSegment::Key("a.b/c".into()),
        ];
        assert_eq!(display_path(&p), r#"spec.tags[0]["a.b/c"]"#);
        assert_eq!(display_path(&[]), "");
    }

    #[test]
    fn types_are_send_and_sync() {
        fn check<T: Send + Sync + Clone + Default>() {}
        check::<SchemaSet>();
        fn check2<T: Send + Sync>() {}
        check2::<Schema>();
    }
}
