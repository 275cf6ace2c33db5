//! Switch blocks (D29-D31).

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::Block;

use super::blocks::names_of;
use super::env::{Compiler, Env, label};
use super::params::is_param_name;
use super::types::{Case, Names, Switch};
use crate::schema;

impl<'l> Compiler<'l> {
    pub(super) fn switch(&mut self, b: &Block, env: &Env) -> Option<Switch> {
        let (name, span) = label(b);
        let header = b.header_span();
        if !is_param_name(&name) {
            self.err(
                Diagnostic::error(
                    format!("invalid switch name \"{name}\""),
                    "a switch name must be an identifier of letters, digits and _ (it is read as switch.<name>)",
                )
                .with_span(span)
                .with_code(codes::SWITCH),
            );
        }
        if let Some(first) = self.switches.get(&name) {
            self.err(
                Diagnostic::error(
                    format!("duplicate switch \"{name}\""),
                    "switch names must be unique in a module",
                )
                .with_code(codes::DUPLICATE)
                .with_span(header)
                .with_label(*first, "first defined here"),
            );
        } else {
            self.switches.insert(name.clone(), header);
        }
        let content = self.content(b, &schema::SWITCH, false);
        let mut cases: Vec<Case> = Vec::new();
        let mut case_spans: Vec<Span> = Vec::new();
        let mut default_at: Option<Span> = None;
        let mut failed = false;
        for cb in &content.blocks {
            let is_default = &*cb.ident.name == "default";
            let (cname, cspan) = if is_default {
                ("default".to_owned(), cb.ident.span)
            } else {
                label(cb)
            };
            if let Some(d) = default_at {
                self.err(
                    Diagnostic::error(
                        format!("default must be the last branch of switch \"{name}\""),
                        "cases after default could never be chosen",
                    )
                    .with_code(codes::SWITCH)
                    .with_span(cb.header_span())
                    .with_label(d, "default here"),
                );
                failed = true;
            }
            if is_default {
                default_at = Some(cb.header_span());
            } else if cname == "default" {
                self.err(
                    Diagnostic::error(
                        "a case cannot be named \"default\"",
                        "write the default branch as default { ... }",
                    )
                    .with_code(codes::SWITCH)
                    .with_span(cspan),
                );
                failed = true;
            } else if !is_param_name(&cname) {
                self.err(
                    Diagnostic::error(
                        format!("invalid case name \"{cname}\""),
                        "a case name must be an identifier of letters, digits and _ (it is read as switch.<name>.case.<case>)",
                    )
                    .with_span(cspan)
                    .with_code(codes::SWITCH),
                );
                failed = true;
            }
            if let Some(i) = cases.iter().position(|c| c.name == cname) {
                self.err(
                    Diagnostic::error(
                        format!("switch \"{name}\" has two branches named \"{cname}\""),
                        "case names must be unique in a switch",
                    )
                    .with_code(codes::SWITCH)
                    .with_span(cb.header_span())
                    .with_label(case_spans[i], "first defined here"),
                );
                failed = true;
                continue;
            }
            let schema = if is_default {
                &schema::DEFAULT
            } else {
                &schema::CASE
            };
            let cc = self.content(cb, schema, false);
            let (scope, cenv) = self.locals_scope(&cc, env);
            let condition = self.condition(&cc, env);
            let items = self.items(&cc, &cenv);
            let export_blocks: Vec<&Block> = cc.blocks_of("export").collect();
            let mut seen = HashMap::new();
            let exports = self.exports(&export_blocks, &cenv, &mut seen);
            case_spans.push(cb.header_span());
            cases.push(Case {
                name: cname,
                condition,
                scope,
                items,
                exports,
            });
        }
        // Exports: every branch the same names, and a default (D30).
        let mut export_names: Vec<Arc<str>> = Vec::new();
        if let Some(first) = cases.iter().position(|c| !c.exports.is_empty()) {
            let mut want: Vec<Arc<str>> = cases[first]
                .exports
                .iter()
                .map(|e| e.name.clone())
                .collect();
            want.sort();
            if default_at.is_none() {
                self.err(
                    Diagnostic::error(
                        format!("switch \"{name}\" exports values but has no default branch"),
                        "when a switch exports, a default branch must export the same names so the values are always defined",
                    )
                    .with_span(header)
                    .with_code(codes::SWITCH),
                );
                failed = true;
            }
            for (i, c) in cases.iter().enumerate() {
                let mut have: Vec<Arc<str>> = c.exports.iter().map(|e| e.name.clone()).collect();
                have.sort();
                if have == want {
                    continue;
                }
                let missing: Vec<&str> = want
                    .iter()
                    .filter(|w| !have.contains(w))
                    .map(|w| &**w)
                    .collect();
                let extra: Vec<&str> = have
                    .iter()
                    .filter(|h| !want.contains(h))
                    .map(|h| &**h)
                    .collect();
                let mut parts = Vec::new();
                if !missing.is_empty() {
                    parts.push(format!("missing {}", missing.join(", ")));
                }
                if !extra.is_empty() {
                    parts.push(format!("extra {}", extra.join(", ")));
                }
                self.diags.push(
                    Diagnostic::error(
                        format!(
                            "branch \"{}\" of switch \"{name}\" exports different names than branch \"{}\" ({})",
                            c.name,
                            cases[first].name,
                            parts.join("; ")
                        ),
                        "every branch of a switch that exports must export the same names",
                    )
                    .with_span(case_spans[i])
                    .with_label(case_spans[first], "compared with this branch")
                    .with_code(codes::SWITCH),
                );
                failed = true;
            }
            export_names = want;
        }
        let mut names = Names::default();
        for c in &cases {
            names.extend(&names_of(&c.items));
        }
        if failed {
            return None;
        }
        Some(Switch {
            id: 0,
            name,
            header,
            cases,
            export_names,
            names,
        })
    }
}
