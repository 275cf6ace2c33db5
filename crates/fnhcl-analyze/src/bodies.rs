//! Resource bodies against the schemas of their kinds (CRDs given with
//! `fn-hcl analyze --crds`, or found in `.crds/` / `.crd-sources.yaml`).
//!
//! What is written literally is checked; what is computed is not known
//! before a request and is left alone. The literal parts of a body become a
//! value in which every computed expression is an unknown value, which the
//! schema validator skips; each violation is reported at the HCL that
//! wrote the field (the key of a field that should not be there, else the
//! value).

use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap, Span};
use fnhcl_eval::FieldStep;
use fnhcl_schema::{PathSegment, SchemaSet, ViolationKind};
use fnhcl_syntax::ast::{Block, Body, Expr, ExprKind, ObjectKey, Structure};
use fnhcl_value::{Number, ObjMap, Type, Value};

use crate::codes;

/// Findings for every `resource` and `resources` template body in `files`.
pub(crate) fn check(files: &[&Body], sources: &SourceMap, schemas: &SchemaSet) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // One locator for every body: each file is re-parsed at most once,
    // however many findings it has (a 2,000-line file re-parsed for each
    // of its 80 resources took 300 ms).
    let mut locator = fnhcl_eval::Locator::new(sources);
    for body in files {
        fnhcl_syntax::visit::each_block(body, &mut |block| {
            let holder = match &*block.ident.name {
                "resource" => Some(&block.body),
                "resources" => block.body.items.iter().find_map(|s| match s {
                    Structure::Block(b) if &*b.ident.name == "template" => Some(&b.body),
                    _ => None,
                }),
                _ => None,
            };
            if let Some(holder) = holder
                && let Some(value) = body_value(holder)
            {
                check_body(block, &value, &mut locator, schemas, &mut out);
            }
        });
    }
    out
}

/// The literal value of a block's `body` attribute or block, with computed
/// parts unknown.
fn body_value(holder: &Body) -> Option<(Value, Span)> {
    holder.items.iter().find_map(|s| match s {
        Structure::Attribute(a) if &*a.name.name == "body" => Some((literal(&a.expr), a.expr.span)),
        Structure::Block(b) if &*b.ident.name == "body" => Some((block_literal(&b.body), b.span)),
        _ => None,
    })
}

fn unknown() -> Value {
    Value::Unknown(Type::Dynamic)
}

fn block_literal(body: &Body) -> Value {
    // Collected in source order, sorted once (a later name wins).
    let map: ObjMap = body
        .items
        .iter()
        .map(|s| match s {
            Structure::Attribute(a) => (a.name.name.clone(), literal(&a.expr)),
            Structure::Block(b) => (b.ident.name.clone(), block_literal(&b.body)),
        })
        .collect();
    Value::Object(map)
}

/// What an expression is, when it is written out literally.
fn literal(e: &Expr) -> Value {
    match &e.kind {
        ExprKind::Null => Value::Null(Type::Dynamic),
        ExprKind::Bool(b) => Value::Bool(*b),
        ExprKind::Number(text) => Number::parse(text).map_or_else(unknown, Value::Number),
        ExprKind::Template(t) => match fnhcl_syntax::visit::literal_text(t) {
            Some(s) => Value::String(s.into()),
            None => Value::Unknown(Type::String),
        },
        ExprKind::Parens(inner) => literal(inner),
        ExprKind::Tuple(items) => Value::Tuple(Arc::new(items.iter().map(literal).collect())),
        ExprKind::Object(items) => {
            let mut map: Vec<(Arc<str>, Value)> = Vec::with_capacity(items.len());
            for it in items {
                let key = match &it.key {
                    ObjectKey::Ident(id) => id.name.clone(),
                    ObjectKey::Expr(k) => match literal(k) {
                        Value::String(s) => s,
                        // A computed key: the object's keys are not known.
                        _ => return unknown(),
                    },
                };
                map.push((key, literal(&it.value)));
            }
            Value::Object(map.into_iter().collect())
        }
        _ => unknown(),
    }
}

fn check_body(
    block: &Block,
    (value, body_span): &(Value, Span),
    locator: &mut fnhcl_eval::Locator<'_>,
    schemas: &SchemaSet,
    out: &mut Vec<Diagnostic>,
) {
    let Value::Object(fields) = value else {
        return;
    };
    let (Some(api_version), Some(kind)) = (
        fields.get("apiVersion").and_then(Value::as_str),
        fields.get("kind").and_then(Value::as_str),
    ) else {
        return;
    };
    let header = block.header_span();
    let Some(schema) = schemas.get(api_version, kind) else {
        // Located only when reported (most unknown kinds are not).
        let at = || {
            locator
                .resource_field(header, &[FieldStep::Key("kind")])
                .filter(|l| l.exact)
                .map_or(*body_span, |l| l.value)
        };
        unknown_kind(api_version, kind, at, schemas, out);
        return;
    };
    for v in schema.validate(value) {
        let steps: Vec<FieldStep<'_>> = v
            .path
            .iter()
            .map(|p| match p {
                PathSegment::Key(k) => FieldStep::Key(k),
                PathSegment::Index(i) => FieldStep::Index(*i),
            })
            .collect();
        let at = locator
            .resource_field(header, &steps)
            .map(|l| match v.kind {
                ViolationKind::UnknownField { .. } => l.for_key(),
                _ => l.value,
            })
            .unwrap_or(*body_span);
        out.push(
            Diagnostic::warning(
                v.to_string(),
                format!(
                    "the schema of {api_version} {kind} does not allow this; Kubernetes would reject or drop it"
                ),
            )
            .with_span(at)
            .with_code(codes::BODY_SCHEMA),
        );
    }
}

/// A kind the loaded schemas do not define, when they define others of
/// its API group (else the CRDs were just not given).
fn unknown_kind(
    api_version: &str,
    kind: &str,
    at: impl FnOnce() -> Span,
    schemas: &SchemaSet,
    out: &mut Vec<Diagnostic>,
) {
    let group = |a: &str| a.rsplit_once('/').map_or("", |(g, _)| g).to_owned();
    let same_group: Vec<(&str, &str)> = schemas
        .kinds()
        .filter(|(a, _)| group(a) == group(api_version))
        .collect();
    if same_group.is_empty() {
        return;
    }
    let versions: Vec<&str> = same_group
        .iter()
        .filter(|(_, k)| *k == kind)
        .map(|(a, _)| *a)
        .collect();
    let detail = if !versions.is_empty() {
        format!("{kind} is served as {}", versions.join(", "))
    } else {
        let mut kinds: Vec<&str> = same_group.iter().map(|(_, k)| *k).collect();
        kinds.dedup();
        crate::walk::with_suggestion(
            format!("the loaded CRDs of this group define {}", kinds.join(", ")),
            kind,
            kinds.iter().copied(),
        )
    };
    out.push(
        Diagnostic::warning(
            format!("no schema for kind \"{kind}\" in apiVersion \"{api_version}\""),
            detail,
        )
        .with_span(at())
        .with_code(codes::UNKNOWN_KIND),
    );
}
