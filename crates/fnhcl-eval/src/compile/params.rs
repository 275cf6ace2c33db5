//! Module parameters and exports (D25-D27).

use std::collections::HashMap;

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Block, Structure};

use super::env::{Compiler, Env, label};
use super::types::{Export, ExportValue, Names, Param};
use crate::refs::literal_string;
use crate::schema;

impl<'l> Compiler<'l> {
    pub(super) fn params(&mut self, blocks: &[&Block]) -> Vec<Param> {
        let mut out: Vec<Param> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for b in blocks {
            let (name, span) = label(b);
            if self.is_root() {
                self.err(
                    Diagnostic::error(
                        format!("param \"{name}\" outside a module"),
                        "param blocks belong in a module directory that another program imports",
                    )
                    .with_code(codes::MODULE_IMPORT)
                    .with_span(b.ident.span),
                );
                continue;
            }
            if !is_param_name(&name) {
                self.err(
                    Diagnostic::error(
                        format!("invalid parameter name \"{name}\""),
                        "a parameter name must be an identifier of letters, digits and _",
                    )
                    .with_code(codes::MODULE_PARAMETER)
                    .with_span(span),
                );
            } else if name == "condition" || name == "params" {
                self.err(
                    Diagnostic::error(
                        format!("parameter name \"{name}\" is reserved"),
                        "condition and params are attributes of every module block",
                    )
                    .with_code(codes::MODULE_PARAMETER)
                    .with_span(span),
                );
            }
            let content = self.content(b, &schema::PARAM, false);
            if let Some(d) = content.attr("description") {
                self.constant_string(&d.expr, codes::FUNCTION_DEFINITION, || {
                    format!("param \"{name}\": description is not a constant string")
                });
            }
            let default = content.attr("default").and_then(|d| {
                self.constant_default(
                    &d.expr,
                    format!("param \"{name}\": default is not a constant"),
                    "a default may not refer to variables or call functions",
                )
            });
            if let Some(i) = out.iter().position(|p| *p.name == *name) {
                self.err(
                    Diagnostic::error(format!("duplicate parameter \"{name}\""), "")
                        .with_code(codes::DUPLICATE)
                        .with_span(b.header_span())
                        .with_label(spans[i], "first declared here"),
                );
                continue;
            }
            spans.push(b.header_span());
            out.push(Param {
                name: name.into(),
                default,
                span: b.header_span(),
            });
        }
        out
    }

    /// `export` blocks (module top level or a switch case).
    pub(super) fn exports(
        &mut self,
        blocks: &[&Block],
        env: &Env,
        seen: &mut HashMap<String, Span>,
    ) -> Vec<Export> {
        let mut out = Vec::new();
        for b in blocks {
            schema::check_labels(b, &[], &mut self.diags);
            for item in &b.body.items {
                let (name, span, value) = match item {
                    Structure::Attribute(a) => {
                        self.check_expr(&a.expr, env);
                        (
                            a.name.name.to_string(),
                            a.span,
                            ExportValue::Expr(env.compile(&a.expr)),
                        )
                    }
                    Structure::Block(r) => {
                        if &*r.ident.name != "resource" {
                            self.err(
                                Diagnostic::error(
                                    format!("Unsupported block type \"{}\" in export", r.ident.name),
                                    "an export block holds name = value attributes and resource \"name\" { as = \"alias\" } blocks",
                                )
                                .with_span(r.ident.span)
                                .with_code(codes::MODULE_EXPORT),
                            );
                            continue;
                        }
                        if !schema::check_labels(r, &["name"], &mut self.diags) {
                            continue;
                        }
                        let content = self.content(r, &schema::EXPORT_RESOURCE, false);
                        if let Some(a) = content.attr("as")
                            && literal_string(&a.expr).is_none()
                        {
                            self.err(
                                Diagnostic::error(
                                    "export alias is not a constant string",
                                    "write as = \"name\"",
                                )
                                .with_code(codes::MODULE_EXPORT)
                                .with_span(a.expr.span),
                            );
                            continue;
                        }
                        let local = r.labels[0].value.clone();
                        self.exported_resources
                            .push((local.clone(), r.labels[0].span));
                        (
                            export_resource_name(r),
                            r.header_span(),
                            ExportValue::Resource(local),
                        )
                    }
                };
                if !is_param_name(&name) {
                    self.err(
                        Diagnostic::error(
                            format!("invalid export name \"{name}\""),
                            "an export name must be an identifier of letters, digits and _",
                        )
                        .with_code(codes::MODULE_EXPORT)
                        .with_span(span),
                    );
                    continue;
                }
                if let Some(first) = seen.get(&name) {
                    self.err(
                        Diagnostic::error(
                            format!("export \"{name}\" defined twice"),
                            "every exported name must be unique in its module (or switch branch)",
                        )
                        .with_code(codes::DUPLICATE)
                        .with_span(span)
                        .with_label(*first, "first exported here"),
                    );
                    continue;
                }
                seen.insert(name.clone(), span);
                out.push(Export {
                    name: name.into(),
                    span,
                    value,
                });
            }
        }
        out
    }

    pub(super) fn check_exported_resources(&mut self) {
        for (name, span) in std::mem::take(&mut self.exported_resources) {
            if self.resources.contains_key(&name) {
                continue;
            }
            let mut detail = format!("this module declares no resource \"{name}\"");
            if let Some(s) = schema::suggest(&name, self.resources.keys().map(String::as_str)) {
                detail.push_str(&format!("; did you mean \"{s}\"?"));
            }
            self.err(
                Diagnostic::error(format!("export of unknown resource \"{name}\""), detail)
                    .with_code(codes::MODULE_EXPORT)
                    .with_span(span),
            );
        }
    }

    /// Two blocks whose Crossplane names collide once instance prefixes are
    /// added (`resource "logs-bucket"` next to instance `logs` with
    /// resource `bucket`), D15.
    pub(super) fn check_prefixed_duplicates(&mut self, names: &Names) {
        let mut found = Vec::new();
        let from_instance = |s: &Span| self.instances.values().any(|h| h == s);
        for list in [&names.resources, &names.collections] {
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for (n, span) in list {
                match seen.get(n.as_str()) {
                    // Two blocks of this module (`unique` reported it), or
                    // two instances of one name (reported as such).
                    Some(first) if from_instance(first) == from_instance(span) => {}
                    Some(first) if first != span => {
                        let d = Diagnostic::error(
                            format!("duplicate resource \"{n}\""),
                            "two blocks produce a resource with this crossplane name (module instances prefix their resources with <instance>-)",
                        )
                        .with_span(*span)
                        .with_label(*first, "first defined here")
                        .with_code(codes::DUPLICATE);
                        found.push(d);
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(n, *span);
                    }
                }
            }
        }
        self.diags.extend(found);
    }
}

/// The exported name of `export { resource "x" { as = "y" } }`.
pub(super) fn export_resource_name(r: &Block) -> String {
    for it in &r.body.items {
        if let Structure::Attribute(a) = it
            && &*a.name.name == "as"
            && let Some(s) = literal_string(&a.expr)
        {
            return s;
        }
    }
    r.labels
        .first()
        .map(|l| l.value.clone())
        .unwrap_or_default()
}

/// Identifiers usable after a dot: letters, digits and `_` (no `-`, which
/// would read as a subtraction).
pub(super) fn is_param_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
