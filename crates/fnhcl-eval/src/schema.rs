//! Block schemas with HCL's `Body.Content` diagnostics (upstream §2).

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Attribute, Block, Body, Structure};

/// The attributes and nested block types a body accepts.
pub(crate) struct BodySchema {
    /// `(name, required)`.
    pub attrs: &'static [(&'static str, bool)],
    /// `(block type, label names)`.
    pub blocks: &'static [(&'static str, &'static [&'static str])],
}

/// The content of a body, checked against a schema.
pub(crate) struct Content<'a> {
    /// Attributes in source order (only known names).
    pub attrs: Vec<&'a Attribute>,
    /// Blocks in source order (only known types with the right labels).
    pub blocks: Vec<&'a Block>,
}

impl<'a> Content<'a> {
    pub(crate) fn attr(&self, name: &str) -> Option<&'a Attribute> {
        self.attrs.iter().copied().find(|a| &*a.name.name == name)
    }
    pub(crate) fn blocks_of<'s>(&'s self, ty: &'s str) -> impl Iterator<Item = &'a Block> + 's {
        self.blocks
            .iter()
            .copied()
            .filter(move |b| &*b.ident.name == ty)
    }
}

/// Checks `body` against `schema`, like HCL's `Body.Content`: unknown
/// attributes and blocks, missing required attributes, label counts.
/// `body_attr_block` allows `body { ... }` as a block even though `body` is
/// an attribute in the schema (D4); it is returned among the blocks.
pub(crate) fn content<'a>(
    body: &'a Body,
    open_brace: Option<Span>,
    schema: &BodySchema,
    body_attr_block: bool,
    diags: &mut Vec<Diagnostic>,
) -> Content<'a> {
    let mut out = Content {
        attrs: Vec::new(),
        blocks: Vec::new(),
    };
    let mut has_body_block = false;
    for item in &body.items {
        match item {
            Structure::Attribute(a) => {
                let name = &*a.name.name;
                if schema.attrs.iter().any(|(n, _)| *n == name) {
                    out.attrs.push(a);
                    continue;
                }
                let mut detail = format!("An argument named \"{name}\" is not expected here.");
                if schema.blocks.iter().any(|(n, _)| *n == name) {
                    detail.push_str(&format!(
                        " Did you mean to define a block of type \"{name}\"?"
                    ));
                } else if let Some(s) = suggest(name, schema.attrs.iter().map(|(n, _)| *n)) {
                    detail.push_str(&format!(" Did you mean \"{s}\"?"));
                }
                diags.push(
                    Diagnostic::error(format!("Unsupported argument \"{name}\""), detail)
                        .with_code(codes::SCHEMA)
                        .with_span(a.name.span),
                );
            }
            Structure::Block(b) => {
                let ty = &*b.ident.name;
                if body_attr_block && ty == "body" && schema.attrs.iter().any(|(n, _)| *n == "body")
                {
                    has_body_block = true;
                    if check_labels(b, &[], diags) {
                        out.blocks.push(b);
                    }
                    continue;
                }
                let Some((_, labels)) = schema.blocks.iter().find(|(n, _)| *n == ty) else {
                    let mut detail = format!("Blocks of type \"{ty}\" are not expected here.");
                    if schema.attrs.iter().any(|(n, _)| *n == ty) {
                        detail.push_str(&format!(
                            " Did you mean to define argument \"{ty}\"? If so, use the equals sign to assign it a value."
                        ));
                    } else if let Some(s) = suggest(ty, schema.blocks.iter().map(|(n, _)| *n)) {
                        detail.push_str(&format!(" Did you mean \"{s}\"?"));
                    }
                    diags.push(
                        Diagnostic::error(format!("Unsupported block type \"{ty}\""), detail)
                            .with_code(codes::SCHEMA)
                            .with_span(b.ident.span),
                    );
                    continue;
                };
                if check_labels(b, labels, diags) {
                    out.blocks.push(b);
                }
            }
        }
    }
    for (name, required) in schema.attrs {
        if !required || out.attr(name).is_some() {
            continue;
        }
        if *name == "body" && has_body_block {
            continue;
        }
        let at = match open_brace {
            Some(s) => Span::empty_at(s.file, s.start as usize),
            None => Span::empty_at(body.span.file, body.span.start as usize),
        };
        diags.push(
            Diagnostic::error(
                format!("Missing required argument \"{name}\""),
                format!("The argument \"{name}\" is required, but no definition was found."),
            )
            .with_code(codes::SCHEMA)
            .with_span(at),
        );
    }
    out
}

/// Checks the labels of `b`; false (with a diagnostic) if the count is wrong.
pub(crate) fn check_labels(b: &Block, names: &[&str], diags: &mut Vec<Diagnostic>) -> bool {
    let ty = &*b.ident.name;
    if b.labels.len() > names.len() {
        let detail = if names.is_empty() {
            format!("No labels are expected for {ty} blocks.")
        } else {
            format!(
                "Only {} labels ({}) are expected for {ty} blocks.",
                names.len(),
                names.join(", ")
            )
        };
        diags.push(
            Diagnostic::error(format!("Extraneous label for {ty}"), detail)
                .with_code(codes::SCHEMA)
                .with_span(b.labels[names.len()].span)
                .with_context(b.ident.span.to(b.open_brace)),
        );
        return false;
    }
    if b.labels.len() < names.len() {
        diags.push(
            Diagnostic::error(
                format!("Missing {} for {ty}", names[b.labels.len()]),
                format!(
                    "All {ty} blocks must have {} labels ({}).",
                    names.len(),
                    names.join(", ")
                ),
            )
            .with_code(codes::SCHEMA)
            .with_span(b.open_brace)
            .with_context(b.ident.span.to(b.open_brace)),
        );
        return false;
    }
    true
}

/// The closest candidate by edit distance (less than 3), as HCL suggests.
pub(crate) fn suggest<'c>(
    name: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> Option<&'c str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        // Longer names are not compared (bounded work).
        let Some(d) = fnhcl_base::edit_distance(name, c, 64) else {
            continue;
        };
        if d < 3 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

// Schemas of every block (upstream §2; `body` also as a block, D4).

const SCOPE_BLOCKS: &[(&str, &[&str])] = &[
    ("locals", &[]),
    ("group", &[]),
    ("resource", &["name"]),
    ("resources", &["baseName"]),
    ("composite", &["object"]),
    ("result", &[]),
    ("output", &[]),
    ("context", &[]),
    ("requirement", &["name"]),
    ("module", &["source", "name"]),
    ("switch", &["name"]),
];

pub(crate) const TOP: BodySchema = BodySchema {
    attrs: &[],
    blocks: &[
        ("locals", &[]),
        ("group", &[]),
        ("resource", &["name"]),
        ("resources", &["baseName"]),
        ("composite", &["object"]),
        ("result", &[]),
        ("output", &[]),
        ("context", &[]),
        ("requirement", &["name"]),
        ("function", &["name"]),
        ("module", &["source", "name"]),
        ("switch", &["name"]),
        ("import", &["path"]),
        ("param", &["name"]),
        ("export", &[]),
    ],
};

pub(crate) const GROUP: BodySchema = BodySchema {
    attrs: &[("condition", false)],
    blocks: SCOPE_BLOCKS,
};

const CASE_BLOCKS: &[(&str, &[&str])] = &[
    ("locals", &[]),
    ("group", &[]),
    ("resource", &["name"]),
    ("resources", &["baseName"]),
    ("composite", &["object"]),
    ("result", &[]),
    ("output", &[]),
    ("context", &[]),
    ("requirement", &["name"]),
    ("module", &["source", "name"]),
    ("switch", &["name"]),
    ("export", &[]),
];

/// `switch "name" { case "a" {...} default {...} }` (D30).
pub(crate) const SWITCH: BodySchema = BodySchema {
    attrs: &[],
    blocks: &[("case", &["name"]), ("default", &[])],
};

pub(crate) const CASE: BodySchema = BodySchema {
    attrs: &[("condition", true)],
    blocks: CASE_BLOCKS,
};

pub(crate) const DEFAULT: BodySchema = BodySchema {
    attrs: &[],
    blocks: CASE_BLOCKS,
};

/// `param "name" { default = ..., description = "..." }` (D27).
pub(crate) const PARAM: BodySchema = BodySchema {
    attrs: &[("default", false), ("description", false)],
    blocks: &[],
};

/// `resource "name" { as = "alias" }` inside an `export` block (D29).
pub(crate) const EXPORT_RESOURCE: BodySchema = BodySchema {
    attrs: &[("as", false)],
    blocks: &[],
};

pub(crate) const RESOURCE: BodySchema = BodySchema {
    attrs: &[
        ("body", true),
        ("condition", false),
        ("optional", false),
        ("depends_on", false),
        ("on_incomplete", false),
    ],
    blocks: &[
        ("locals", &[]),
        ("ready", &[]),
        ("composite", &["object"]),
        ("result", &[]),
        ("context", &[]),
    ],
};

pub(crate) const RESOURCES: BodySchema = BodySchema {
    attrs: &[
        ("for_each", true),
        ("condition", false),
        ("name", false),
        ("body", false),
        ("optional", false),
        ("depends_on", false),
        ("on_incomplete", false),
    ],
    blocks: &[
        ("locals", &[]),
        ("composite", &["object"]),
        ("result", &[]),
        ("context", &[]),
        ("template", &[]),
    ],
};

pub(crate) const TEMPLATE: BodySchema = BodySchema {
    attrs: &[("body", true)],
    blocks: &[
        ("locals", &[]),
        ("ready", &[]),
        ("composite", &["object"]),
        ("result", &[]),
        ("context", &[]),
    ],
};

pub(crate) const COMPOSITE: BodySchema = BodySchema {
    attrs: &[("body", true)],
    blocks: &[("locals", &[])],
};

/// `composite condition { type = ..., status = ..., reason = ... }` (D35).
pub(crate) const COMPOSITE_CONDITION: BodySchema = BodySchema {
    attrs: &[
        ("type", true),
        ("status", true),
        ("reason", true),
        ("message", false),
        ("target", false),
        ("condition", false),
    ],
    blocks: &[("locals", &[])],
};

/// `result { severity = ..., message = ... }` (D35).
pub(crate) const RESULT: BodySchema = BodySchema {
    attrs: &[
        ("severity", true),
        ("message", true),
        ("reason", false),
        ("target", false),
        ("condition", false),
    ],
    blocks: &[("locals", &[])],
};

/// `composite ready { value = "READY_TRUE" }` (D33).
pub(crate) const COMPOSITE_READY: BodySchema = BodySchema {
    attrs: &[("value", true)],
    blocks: &[("locals", &[])],
};

pub(crate) const CONTEXT: BodySchema = BodySchema {
    attrs: &[("key", true), ("value", true)],
    blocks: &[("locals", &[])],
};

pub(crate) const READY: BodySchema = BodySchema {
    attrs: &[("value", true)],
    blocks: &[("locals", &[])],
};

pub(crate) const REQUIREMENT: BodySchema = BodySchema {
    attrs: &[("condition", false)],
    blocks: &[("locals", &[]), ("select", &[])],
};

pub(crate) const SELECT: BodySchema = BodySchema {
    attrs: &[
        ("apiVersion", true),
        ("kind", true),
        ("matchName", false),
        ("matchLabels", false),
        ("namespace", false),
    ],
    blocks: &[],
};

pub(crate) const FUNCTION: BodySchema = BodySchema {
    attrs: &[("body", true), ("description", false)],
    blocks: &[("arg", &["name"]), ("locals", &[])],
};

pub(crate) const ARG: BodySchema = BodySchema {
    attrs: &[("description", false), ("default", false)],
    blocks: &[],
};

/// What a block body accepts, for editors: `(attribute, required)` and
/// `(block type, label names)`. `None` for bodies that take attributes of
/// any name (`locals`, `export`, `module`, `import`).
pub type BlockShape = (
    &'static [(&'static str, bool)],
    &'static [(&'static str, &'static [&'static str])],
);

/// The schema of the body reached by the chain of nested block types
/// `chain` from the top of a file (`[]` is the file itself,
/// `["resources", "template"]` a template). `None` when a type is not
/// allowed where the chain puts it, or the body is free-form.
pub fn block_shape(chain: &[&str]) -> Option<BlockShape> {
    let mut cur = &TOP;
    let mut parent = "";
    for ty in chain {
        let allowed =
            cur.blocks.iter().any(|(n, _)| n == ty) || (*ty == "resource" && parent == "export");
        if !allowed {
            return None;
        }
        cur = match (parent, *ty) {
            ("export", "resource") => &EXPORT_RESOURCE,
            (_, "group") => &GROUP,
            (_, "resource") => &RESOURCE,
            (_, "resources") => &RESOURCES,
            (_, "template") => &TEMPLATE,
            (_, "composite") | (_, "output") => &COMPOSITE,
            (_, "context") => &CONTEXT,
            (_, "ready") => &READY,
            (_, "result") => &RESULT,
            (_, "requirement") => &REQUIREMENT,
            (_, "select") => &SELECT,
            (_, "function") => &FUNCTION,
            (_, "arg") => &ARG,
            (_, "switch") => &SWITCH,
            (_, "case") => &CASE,
            (_, "default") => &DEFAULT,
            (_, "param") => &PARAM,
            ("", "export") | ("case", "export") | ("default", "export") => &EXPORT_OPEN,
            _ => return None,
        };
        parent = ty;
    }
    if std::ptr::eq(cur, &EXPORT_OPEN) {
        return None;
    }
    Some((cur.attrs, cur.blocks))
}

/// The schema of a `composite LABEL` block's body, by its label (D33,
/// D35): `None` for an unknown label.
pub fn composite_shape(label: &str) -> Option<BlockShape> {
    let s = match label {
        "status" | "connection" => &COMPOSITE,
        "ready" => &COMPOSITE_READY,
        "condition" => &COMPOSITE_CONDITION,
        _ => return None,
    };
    Some((s.attrs, s.blocks))
}

/// Only for [`block_shape`]: `export` takes attributes of any name and
/// `resource` blocks.
const EXPORT_OPEN: BodySchema = BodySchema {
    attrs: &[],
    blocks: &[("resource", &["name"])],
};

#[cfg(test)]
mod shape_tests {
    use super::block_shape;

    fn attrs(chain: &[&str]) -> Option<Vec<&'static str>> {
        block_shape(chain).map(|(a, _)| a.iter().map(|(n, _)| *n).collect())
    }

    #[test]
    fn shapes_follow_the_nesting_rules() {
        assert_eq!(
            attrs(&["resource"]),
            Some(vec![
                "body",
                "condition",
                "optional",
                "depends_on",
                "on_incomplete"
            ])
        );
        assert_eq!(attrs(&["resources", "template"]), Some(vec!["body"]));
        assert_eq!(attrs(&["export", "resource"]), Some(vec!["as"]));
        assert_eq!(attrs(&["switch", "case"]), Some(vec!["condition"]));
        let top: Vec<&str> = block_shape(&[])
            .expect("top")
            .1
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert!(top.contains(&"function") && top.contains(&"resource"));
        // Free-form bodies and misplaced blocks have no shape.
        assert_eq!(attrs(&["locals"]), None);
        assert_eq!(attrs(&["export"]), None);
        assert_eq!(attrs(&["group", "function"]), None);
        assert_eq!(attrs(&["resource", "template"]), None);
    }
}
