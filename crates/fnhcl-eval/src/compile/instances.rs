//! Module instances and `module.` / `switch.` / `param.` references
//! (D24, D27, D29, D30), and the indexing of instances and switches.

use std::collections::HashMap;

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Attribute, Block, Expr, ExprKind, Structure};

use super::blocks::{key_span, object_key_name};
use super::env::{Compiler, Env};
use super::params::is_param_name;
use super::types::{Cond, Instance, Item, Names, Params, PathStep, items_at};
use crate::layout;
use crate::refs;
use crate::schema;

impl<'l> Compiler<'l> {
    pub(super) fn instance(&mut self, b: &Block, env: &Env) -> Option<Instance> {
        let source = b.labels[0].value.clone();
        let name = b.labels[1].value.clone();
        let header = b.header_span();
        if !is_param_name(&name) {
            self.err(
                Diagnostic::error(
                    format!("invalid module instance name \"{name}\""),
                    "an instance name must be an identifier of letters, digits and _ (it is read as module.<name>)",
                )
                .with_span(b.labels[1].span)
                .with_code(codes::MODULE_IMPORT),
            );
        }
        if let Some(first) = self.instances.get(&name) {
            self.err(
                Diagnostic::error(
                    format!("duplicate module instance \"{name}\""),
                    "instance names must be unique in a module",
                )
                .with_code(codes::DUPLICATE)
                .with_span(header)
                .with_label(*first, "first defined here"),
            );
        } else {
            self.instances.insert(name.clone(), header);
        }
        let target = self.resolve_module(&source);
        if target.is_none() {
            let src = &self.layout.modules[self.module];
            let mut detail = if layout::is_path_label(&source) {
                format!("no module directory \"{source}\"")
            } else {
                format!(
                    "no import has the alias \"{source}\"; import the directory first: import \"modules/{source}\" {{ as = \"{source}\" }}"
                )
            };
            if let Some(s) = schema::suggest(&source, src.aliases.keys().map(String::as_str)) {
                detail.push_str(&format!(" (did you mean \"{s}\"?)"));
            }
            self.err(
                Diagnostic::error(format!("unknown module \"{source}\""), detail)
                    .with_code(codes::MODULE_IMPORT)
                    .with_span(b.labels[0].span),
            );
        }
        let callee = target.and_then(|m| self.compiled.get(m).and_then(Option::as_ref));
        let mut condition = None;
        let mut optional = false;
        let (mut depends_on, mut on_incomplete) = (None, None);
        let mut object: Option<&Attribute> = None;
        let mut named: Vec<&Attribute> = Vec::new();
        for item in &b.body.items {
            match item {
                Structure::Attribute(a) => match &*a.name.name {
                    "condition" => {
                        self.check_expr(&a.expr, env);
                        condition = Some(Cond {
                            expr: env.compile(&a.expr),
                            span: a.span,
                        });
                    }
                    "params" => object = Some(a),
                    // D32; a module cannot declare a parameter of that name.
                    "optional" => optional = self.optional_attr(a),
                    // D40, D41: likewise.
                    "depends_on" => depends_on = Some(a),
                    "on_incomplete" => on_incomplete = Some(a),
                    _ => named.push(a),
                },
                Structure::Block(inner) => self.err(
                    Diagnostic::error(
                        format!("Unexpected \"{}\" block", inner.ident.name),
                        "a module block sets parameters as attributes (name = value) and may have a condition",
                    )
                    .with_span(inner.ident.span)
                    .with_code(codes::SCHEMA),
                ),
            }
        }
        if let (Some(o), Some(first)) = (object, named.first()) {
            self.err(
                Diagnostic::error(
                    format!("module instance \"{name}\" mixes params with named parameters"),
                    "set parameters either all at once with params = { ... } or one by one as attributes, not both",
                )
                .with_span(o.name.span)
                .with_label(first.name.span, "named parameter here")
                .with_code(codes::MODULE_PARAMETER),
            );
        }
        // Parameter names, where they are static.
        let given: Option<Vec<(String, Span)>> = match object {
            Some(o) => match &o.expr.kind {
                ExprKind::Object(items) => items
                    .iter()
                    .map(|it| object_key_name(it).map(|k| (k, key_span(it))))
                    .collect(),
                _ => None,
            },
            None => Some(
                named
                    .iter()
                    .map(|a| (a.name.name.to_string(), a.name.span))
                    .collect(),
            ),
        };
        if let (Some(callee), Some(given)) = (callee, &given) {
            for (k, span) in given {
                if !callee.params.iter().any(|p| *p.name == **k) {
                    let mut detail =
                        format!("module \"{}\" declares no parameter \"{k}\"", callee.dir);
                    if let Some(s) = schema::suggest(k, callee.params.iter().map(|p| &*p.name)) {
                        detail.push_str(&format!("; did you mean \"{s}\"?"));
                    } else if !callee.params.is_empty() {
                        let names: Vec<&str> = callee.params.iter().map(|p| &*p.name).collect();
                        detail.push_str(&format!("; its parameters are: {}", names.join(", ")));
                    }
                    self.err(
                        Diagnostic::error(
                            format!("module instance \"{name}\": unknown parameter \"{k}\""),
                            detail,
                        )
                        .with_code(codes::MODULE_PARAMETER)
                        .with_span(*span),
                    );
                }
            }
            for p in &callee.params {
                if p.default.is_none() && !given.iter().any(|(k, _)| **k == *p.name) {
                    self.err(
                        Diagnostic::error(
                            format!(
                                "module instance \"{name}\": missing required parameter \"{}\"",
                                p.name
                            ),
                            format!(
                                "module \"{}\" declares param \"{}\" without a default",
                                callee.dir, p.name
                            ),
                        )
                        .with_code(codes::MODULE_PARAMETER)
                        .with_span(header),
                    );
                }
            }
        }
        let self_ref = format!("module.{name}");
        let check_param = |c: &mut Self, e: &Expr| {
            c.check_expr(e, env);
            for t in refs::traversals(e) {
                // `module.<name>` or, rewritten with its export,
                // `module.<name>.<export>`.
                let root = &*t.root.name;
                if root == self_ref
                    || root
                        .strip_prefix(self_ref.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
                {
                    c.err(
                        Diagnostic::error(
                            format!(
                                "module instance \"{name}\" reads its own exports in its parameters"
                            ),
                            "an instance's parameters cannot depend on what the instance exports",
                        )
                        .with_span(name_step(t.root.span, "module.", &name))
                        .with_code(codes::MODULE_PARAMETER),
                    );
                }
            }
        };
        let params = match object {
            Some(o) => {
                check_param(self, &o.expr);
                Params::Object(env.compile(&o.expr))
            }
            None => {
                let mut list = Vec::new();
                for a in &named {
                    check_param(self, &a.expr);
                    list.push((a.name.name.clone(), env.compile(&a.expr)));
                }
                Params::Named(list)
            }
        };
        let module = target?;
        let mut names = Names::default();
        if let Some(callee) = callee {
            for (n, _) in &callee.names.resources {
                names.resources.push((format!("{name}-{n}"), header));
            }
            for (n, _) in &callee.names.collections {
                names.collections.push((format!("{name}-{n}"), header));
            }
            names.required = callee.names.required;
        }
        let policy = self.policy(&name, depends_on, on_incomplete);
        Some(Instance {
            id: 0,
            name,
            header,
            module,
            condition,
            optional,
            policy,
            params,
            names,
        })
    }

    /// `module.<instance>.<export>`, `switch.<name>.<field>` and
    /// `param.<name>` references (D27, D29, D30).
    pub(super) fn check_module_ref(&mut self, t: &refs::Traversal<'_>, env: &Env) -> bool {
        let name = &*t.root.name;
        // Every reference this checks starts so (most do not).
        if !name.starts_with("module") && !name.starts_with("switch") && name != "param" {
            return false;
        }
        let Some(menv) = env.module.clone() else {
            if name.starts_with("module.") || name.starts_with("switch.") {
                self.err(
                    Diagnostic::error(
                        format!("reference to non-existent variable \"{name}\""),
                        "module instances and switches cannot be read inside a user function; pass the value as an argument",
                    )
                    .with_span(t.root.span)
                    .with_code(codes::UNDEFINED_VARIABLE),
                );
                return true;
            }
            return false;
        };
        let steps = refs::attr_steps(t.expr);
        if let Some(rest) = name.strip_prefix("module.") {
            let (inst, export) = match rest.split_once('.') {
                Some((i, e)) => (i, Some(e)),
                None => (rest, None),
            };
            let Some((_, exports, target)) = menv.instances.iter().find(|(n, _, _)| n == inst)
            else {
                let mut detail =
                    format!("no module block declares an instance \"{inst}\" in this module");
                if let Some(s) =
                    schema::suggest(inst, menv.instances.iter().map(|(n, _, _)| n.as_str()))
                {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("unknown module instance \"{inst}\""), detail)
                        .with_code(codes::MODULE_EXPORT)
                        .with_span(name_step(t.root.span, "module.", inst)),
                );
                return true;
            };
            // The export: part of the variable (`module.a.b`), or the
            // first step after `module.a`.
            let export = match export {
                Some(e) => {
                    let end = t.root.span.end as usize;
                    Some((
                        e,
                        Span::new(t.root.span.file, end.saturating_sub(e.len()), end),
                    ))
                }
                None => steps.first().map(|s| (&*s.name, s.span)),
            };
            if let Some(m) = target {
                self.export_reads
                    .push((*m, export.map(|(e, _)| e.to_owned())));
            }
            if let (Some(exports), Some((export, span))) = (exports, export)
                && !exports.iter().any(|e| e == export)
            {
                let mut detail = format!("module instance \"{inst}\" exports no \"{export}\"");
                if let Some(s) = schema::suggest(export, exports.iter().map(String::as_str)) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                } else if !exports.is_empty() {
                    detail.push_str(&format!("; it exports: {}", exports.join(", ")));
                } else {
                    detail.push_str("; it exports nothing");
                }
                self.err(
                    Diagnostic::error(format!("unknown export \"{export}\""), detail)
                        .with_code(codes::MODULE_EXPORT)
                        .with_span(span),
                );
            }
            return true;
        }
        if let Some(sw) = name.strip_prefix("switch.") {
            let Some((_, cases, exports)) = menv.switches.iter().find(|(n, _, _)| n == sw) else {
                let mut detail = format!("no switch named \"{sw}\" in this module");
                if let Some(s) =
                    schema::suggest(sw, menv.switches.iter().map(|(n, _, _)| n.as_str()))
                {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("unknown switch \"{sw}\""), detail)
                        .with_code(codes::SWITCH)
                        .with_span(name_step(t.root.span, "switch.", sw)),
                );
                return true;
            };
            let Some(first) = steps.first() else {
                return true;
            };
            let field = &*first.name;
            if field == "case" {
                if let Some(c) = steps.get(1)
                    && !cases.iter().any(|x| *x == *c.name)
                {
                    let mut detail = format!("switch \"{sw}\" has no branch \"{}\"", c.name);
                    if let Some(s) = schema::suggest(&c.name, cases.iter().map(String::as_str)) {
                        detail.push_str(&format!("; did you mean \"{s}\"?"));
                    }
                    self.err(
                        Diagnostic::error(format!("unknown case \"{}\"", c.name), detail)
                            .with_code(codes::SWITCH)
                            .with_span(c.span),
                    );
                } else if let Some(e) = steps.get(2)
                    && &*e.name != "evaluated"
                {
                    self.err(
                        Diagnostic::error(
                            format!("unsupported attribute \"{}\" of a switch case", e.name),
                            "a case has only the attribute \"evaluated\"",
                        )
                        .with_code(codes::SWITCH)
                        .with_span(e.span),
                    );
                }
                return true;
            }
            if field != "evaluated" && field != "branches" && !exports.iter().any(|e| e == field) {
                let mut known: Vec<&str> = vec!["evaluated", "branches", "case"];
                known.extend(exports.iter().map(String::as_str));
                let mut detail = format!("switch \"{sw}\" has no attribute or export \"{field}\"");
                if let Some(s) = schema::suggest(field, known.iter().copied()) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                } else {
                    detail.push_str(&format!("; it has: {}", known.join(", ")));
                }
                self.err(
                    Diagnostic::error(format!("unknown switch attribute \"{field}\""), detail)
                        .with_code(codes::SWITCH)
                        .with_span(first.span),
                );
            }
            return true;
        }
        if name == "param"
            && let Some(params) = &menv.params
            && !env.is_bound("param")
        {
            match steps.first() {
                Some(first) => self.param_uses.push(first.name.to_string()),
                // `param` as a whole reads every parameter.
                None => self.param_uses.extend(params.iter().cloned()),
            }
            if let Some(first) = steps.first()
                && !params.iter().any(|p| *p == *first.name)
            {
                let mut detail = format!("this module declares no param \"{}\"", first.name);
                if let Some(s) = schema::suggest(&first.name, params.iter().map(String::as_str)) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                }
                self.err(
                    Diagnostic::error(format!("unknown parameter \"{}\"", first.name), detail)
                        .with_code(codes::MODULE_PARAMETER)
                        .with_span(first.span),
                );
            }
            return true;
        }
        if (name == "module" && menv.declares_instances)
            || (name == "switch" && menv.declares_switches)
        {
            self.err(
                Diagnostic::error(
                    format!("{name} must be followed by a name"),
                    format!("write {name}.<name>.<attribute>"),
                )
                .with_span(t.root.span)
                .with_code(if name == "switch" {
                    codes::SWITCH
                } else {
                    codes::PROGRAM
                }),
            );
            return true;
        }
        false
    }
}

/// The span of `name` in a variable `<prefix><name>...` spanning `root`
/// (`module.logs.arn`, `switch.tier`), so a diagnostic points at the step
/// that is wrong; the whole span when the text does not fit (spaces
/// around the dot).
fn name_step(root: Span, prefix: &str, name: &str) -> Span {
    let start = root.start as usize + prefix.len();
    let end = start + name.len();
    if end > root.end as usize {
        return root;
    }
    Span::new(root.file, start, end)
}

/// Assigns ids to instances and switches and records where they are.
pub(super) fn index_items(
    items: &mut [Item],
    path: &mut Vec<PathStep>,
    instances: &mut Vec<(Vec<PathStep>, usize)>,
    switches: &mut Vec<(Vec<PathStep>, usize)>,
    depth: usize,
) {
    if depth > 256 {
        return;
    }
    for (i, it) in items.iter_mut().enumerate() {
        match it {
            Item::Group(g) => {
                path.push(PathStep::Group(i));
                index_items(&mut g.items, path, instances, switches, depth + 1);
                path.pop();
            }
            Item::Module(inst) => {
                inst.id = instances.len();
                instances.push((path.clone(), i));
            }
            Item::Switch(sw) => {
                sw.id = switches.len();
                switches.push((path.clone(), i));
                for (ci, c) in sw.cases.iter_mut().enumerate() {
                    path.push(PathStep::Case(i, ci));
                    index_items(&mut c.items, path, instances, switches, depth + 1);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

pub(super) fn instance_names(
    items: &[Item],
    list: &[(Vec<PathStep>, usize)],
) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for (id, (path, idx)) in list.iter().enumerate() {
        if let Some(Item::Module(inst)) = items_at(items, path).and_then(|i| i.get(*idx)) {
            out.entry(inst.name.clone()).or_insert(id);
        }
    }
    out
}

pub(super) fn switch_names(
    items: &[Item],
    list: &[(Vec<PathStep>, usize)],
) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for (id, (path, idx)) in list.iter().enumerate() {
        if let Some(Item::Switch(sw)) = items_at(items, path).and_then(|i| i.get(*idx)) {
            out.entry(sw.name.clone()).or_insert(id);
        }
    }
    out
}
