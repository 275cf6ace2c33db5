//! What the schema says about one field path, for static checks and
//! editor completion and hover.

use crate::compile::{Extra, NodeId, Schema, ty};
use crate::validate::{allowed_types, lookup, property_names, type_names};

/// The schema of one field. Facts that an `allOf` part states (the way
/// Kubernetes' OpenAPI documents wrap every `$ref`) count as the field's.
#[derive(Clone, Copy)]
pub struct Field<'a> {
    schema: &'a Schema,
    id: NodeId,
    required: bool,
}

impl std::fmt::Debug for Field<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Field")
            .field("type", &self.type_name())
            .field("required", &self.required)
            .finish()
    }
}

impl Schema {
    /// The schema at a field path (`["spec", "forProvider", "region"]`):
    /// `None` if the path leaves the schema (also below an object that
    /// takes any field: ask the parent's [`Field::preserves_unknown`]). A property is looked up on
    /// the object (and its `allOf` parts), else `additionalProperties`
    /// applies; on an array, a segment (an index, or anything) steps into
    /// `items`. The empty path is the whole resource.
    pub fn field(&self, path: &[&str]) -> Option<Field<'_>> {
        let mut f = Field {
            schema: self,
            id: self.root,
            required: true,
        };
        for (i, seg) in path.iter().enumerate() {
            f = if i == 0 && *seg == "metadata" {
                f.metadata()
            } else {
                f.child(seg)?
            };
        }
        Some(f)
    }
}

impl<'a> Field<'a> {
    /// The nodes that describe this field: itself and its `allOf` parts.
    fn parts(&self) -> Vec<NodeId> {
        let mut out = vec![self.id];
        out.extend_from_slice(&self.schema.node(self.id).all_of);
        out
    }

    /// A resource's `metadata`: the schema's own if it lists fields, else
    /// ObjectMeta (validation checks both).
    fn metadata(&self) -> Field<'a> {
        match self.child("metadata") {
            Some(d) if !d.property_names().is_empty() => d,
            _ => {
                let m = crate::meta::object_meta();
                Field {
                    schema: m,
                    id: m.root,
                    required: false,
                }
            }
        }
    }

    /// The field one step down: property `name`, a map value, or an array
    /// element.
    pub fn child(&self, name: &str) -> Option<Field<'a>> {
        let s = self.schema;
        if let Some(p) = lookup(s, self.id, name) {
            let required = self
                .parts()
                .iter()
                .any(|&id| s.node(id).required.iter().any(|r| **r == *name));
            return Some(Field {
                schema: s,
                id: p,
                required,
            });
        }
        for id in self.parts() {
            let n = s.node(id);
            if let Extra::Schema(extra) = n.additional {
                return Some(Field {
                    schema: s,
                    id: extra,
                    required: false,
                });
            }
            if let Some(items) = n.items {
                return Some(Field {
                    schema: s,
                    id: items,
                    required: false,
                });
            }
        }
        None
    }

    /// `string`, `integer`, `integer or string`, `object`,
    /// `map of string`, `list of object`, or `any`.
    pub fn type_name(&self) -> String {
        self.type_name_at(0)
    }

    fn type_name_at(&self, depth: usize) -> String {
        let s = self.schema;
        let parts = self.parts();
        let bits = parts
            .iter()
            .map(|&id| allowed_types(s.node(id)))
            .find(|b| *b != 0)
            .unwrap_or(0);
        let elem = |id: NodeId| {
            if depth >= 3 {
                "...".to_owned()
            } else {
                Field {
                    schema: s,
                    id,
                    required: false,
                }
                .type_name_at(depth + 1)
            }
        };
        if bits == ty::ARRAY
            && let Some(items) = parts.iter().find_map(|&id| s.node(id).items)
        {
            return format!("list of {}", elem(items));
        }
        if bits == ty::OBJECT {
            let has_props = parts.iter().any(|&id| s.node(id).has_properties);
            let extra = parts.iter().find_map(|&id| match s.node(id).additional {
                Extra::Schema(e) => Some(e),
                _ => None,
            });
            if let (false, Some(e)) = (has_props, extra) {
                return format!("map of {}", elem(e));
            }
        }
        type_names(bits)
    }

    /// The field's description (its own, else an `allOf` part's).
    pub fn description(&self) -> Option<&'a str> {
        self.parts()
            .into_iter()
            .find_map(|id| self.schema.node(id).description.as_deref())
    }

    /// The allowed values as JSON text (`"small"`, `3`), in schema order;
    /// empty if any value goes.
    pub fn enum_values(&self) -> Vec<&'a str> {
        self.parts()
            .into_iter()
            .map(|id| &self.schema.node(id).enumeration)
            .find(|e| !e.is_empty())
            .map(|e| e.iter().map(|(_, t)| &**t).collect())
            .unwrap_or_default()
    }

    /// Whether the enclosing object requires this field (the resource
    /// itself counts as required).
    pub fn required(&self) -> bool {
        self.required
    }

    /// The declared property names, sorted.
    pub fn property_names(&self) -> Vec<&'a str> {
        let mut names = Vec::new();
        property_names(self.schema, self.id, &mut names);
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Whether fields not declared are kept (`x-kubernetes-preserve-unknown-fields`).
    pub fn preserves_unknown(&self) -> bool {
        self.parts()
            .into_iter()
            .any(|id| self.schema.node(id).preserve_unknown)
    }
}
