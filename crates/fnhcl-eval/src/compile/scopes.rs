//! Scopes: locals, their dependency cycles and the reference checks of
//! every expression.

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Block, Expr, Structure};

use super::env::{Compiler, Env, undefined_detail};
use super::types::{Local, Scope};
use crate::graph;
use crate::refs;
use crate::schema::{self, BodySchema, Content};
use crate::slots::{self, Slot};

impl Compiler<'_> {
    /// Asks the interrupt, every [`super::env::CHECKS_PER_INTERRUPT`]
    /// expressions, whether to go on; when it says stop, the compile gives
    /// up (`stopped`).
    fn go_on(&mut self) -> bool {
        self.checked = self.checked.wrapping_add(1);
        if self
            .checked
            .is_multiple_of(super::env::CHECKS_PER_INTERRUPT)
            && self.interrupt.is_some_and(|i| !i.check())
        {
            self.stopped = true;
        }
        !self.stopped
    }

    pub(super) fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub(super) fn content<'a>(
        &mut self,
        b: &'a Block,
        s: &BodySchema,
        body_block: bool,
    ) -> Content<'a> {
        schema::content(&b.body, Some(b.open_brace), s, body_block, &mut self.diags)
    }

    // ---- scopes and references ----

    /// Builds the scope of the `locals` blocks in `content` (one block's
    /// body) on top of `parent`, as [`Self::scope`] does.
    pub(super) fn locals_scope(&mut self, content: &Content<'_>, parent: &Env) -> (Scope, Env) {
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        self.scope(&locals, parent)
    }

    /// Builds the scope of `blocks` (all `locals` blocks of one block) on
    /// top of `parent`: duplicate names, shadowing, references, cycles.
    pub(super) fn scope(&mut self, blocks: &[&Block], parent: &Env) -> (Scope, Env) {
        let mut scope = Scope::default();
        // The locals' expressions, compiled once the scope's names are
        // known (a local reads its siblings).
        let mut exprs: Vec<&Expr> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        let mut names: Vec<std::sync::Arc<str>> = Vec::new();
        for b in blocks {
            for item in &b.body.items {
                match item {
                    Structure::Attribute(a) => {
                        let name = a.name.name.clone();
                        if let Some(&i) = scope.index.get(&name) {
                            self.err(
                                Diagnostic::error(
                                    format!("local \"{name}\": duplicate local declaration"),
                                    "the locals blocks of one scope share their names; rename one of them",
                                )
                                .with_span(a.name.span)
                                .with_label(spans[i], "first declared here")
                                .with_code(codes::DUPLICATE),
                            );
                            continue;
                        }
                        if let Some(m) = &parent.module
                            && ((&*name == "module" && m.declares_instances)
                                || (&*name == "switch" && m.declares_switches)
                                || (&*name == "param" && m.params.is_some()))
                        {
                            self.err(
                                Diagnostic::error(
                                    format!("local \"{name}\" hides the module's {name} references"),
                                    format!("this module declares {name} blocks, so {name}.<name> refers to them; rename the local"),
                                )
                                .with_span(a.name.span)
                                .with_code(codes::MODULE_IMPORT),
                            );
                            continue;
                        }
                        if parent.has(&name) {
                            self.err(
                                Diagnostic::error(
                                    format!("attempt to shadow variable \"{name}\""),
                                    "an enclosing scope already has a variable of this name; rename this local",
                                )
                                .with_span(a.name.span)
                                .with_code(codes::SHADOWING),
                            );
                            continue;
                        }
                        scope.index.insert(name.clone(), exprs.len());
                        spans.push(a.name.span);
                        names.push(name);
                        exprs.push(&a.expr);
                    }
                    Structure::Block(inner) => self.err(
                        Diagnostic::error(
                            format!("Unexpected \"{}\" block", inner.ident.name),
                            "Blocks are not allowed here.",
                        )
                        .with_code(codes::SCHEMA)
                        .with_span(inner.ident.span),
                    ),
                }
            }
        }
        if !names.is_empty() {
            self.scope_ids += 1;
            scope.id = self.scope_ids;
        }
        let env = parent.with_names(&names, |index| {
            slots::encode(Slot::Local {
                scope: scope.id,
                index,
            })
        });
        // Each local's references: checked, then the edges among the
        // scope's locals for the cycle search.
        let mut deps: Vec<Vec<usize>> = Vec::with_capacity(exprs.len());
        for e in &exprs {
            let roots = self.check_expr(e, &env);
            let mut d: Vec<usize> = roots
                .iter()
                .filter_map(|t| scope.index.get(&t.root.name).copied())
                .collect();
            d.dedup();
            deps.push(d);
        }
        scope.locals = names
            .into_iter()
            .zip(exprs.iter())
            .map(|(name, e)| Local {
                name,
                expr: env.compile(e),
            })
            .collect();
        self.cycles(&scope, &spans, &exprs, &deps);
        (scope, env)
    }

    /// Reports every dependency cycle among the locals of one scope
    /// (`deps[i]`: the locals local `i` reads, in reference order).
    /// The locals' compiled expressions are not filled yet: their
    /// references are read from the parse tree (`exprs`).
    fn cycles(&mut self, scope: &Scope, spans: &[Span], exprs: &[&Expr], deps: &[Vec<usize>]) {
        let n = scope.locals.len();
        if deps.iter().all(Vec::is_empty) {
            return;
        }
        let mut reported = vec![false; n];
        let mut found = Vec::new();
        graph::depth_first(
            n,
            |node, i| deps[node].get(i).copied(),
            |members, _, _| {
                if members.iter().any(|m| reported[*m]) {
                    return;
                }
                for m in members {
                    reported[*m] = true;
                }
                // The edge closing the cycle leads back to its first member.
                let dep = members[0];
                let mut names: Vec<&str> =
                    members.iter().map(|m| &*scope.locals[*m].name).collect();
                names.push(&scope.locals[dep].name);
                // Blame the reference that starts the cycle: in the first
                // member's expression, its reference to the second (itself
                // for a local that reads itself).
                let next = &*scope.locals[members[1 % members.len()]].name;
                let at = refs::traversals(exprs[dep])
                    .iter()
                    .find(|t| &*t.root.name == next)
                    .map_or(exprs[dep].span, |t| t.root.span);
                let mut d = Diagnostic::error(
                    format!("cycle found: {}", names.join(" → ")),
                    "each of these locals needs the value of the next one",
                )
                .with_code(codes::CYCLE)
                .with_span(at);
                for m in members {
                    d = d.with_label(
                        spans[*m],
                        format!("\"{}\" is part of the cycle", scope.locals[*m].name),
                    );
                }
                found.push(d);
            },
        );
        self.diags.extend(found);
    }

    /// Notes what of `req`/`self` only a composition has, and
    /// `req.watched` (D39).
    fn note_request_use(&mut self, root: &str, attr: &str, span: fnhcl_base::Span) {
        let composite_only = match root {
            "req" => matches!(
                attr,
                "composite"
                    | "composite_connection"
                    | "resource"
                    | "resources"
                    | "connection"
                    | "connections"
            ),
            _ => matches!(
                attr,
                "resource" | "resources" | "connection" | "connections"
            ),
        };
        if composite_only {
            self.composite_uses.push(crate::CompositeUse {
                span,
                what: format!("{root}.{attr}"),
            });
        } else if root == "req" && attr == "watched" {
            self.operation_marks = true;
            self.reads_watched = true;
        }
    }

    /// Checks references and `invoke` calls of one expression (D23);
    /// returns its references (one walk finds both).
    pub(super) fn check_expr<'e>(&mut self, e: &'e Expr, env: &Env) -> Vec<refs::Traversal<'e>> {
        if self.stopped || !self.go_on() {
            return Vec::new();
        }
        let (traversals, calls) = refs::traversals_and_calls(e);
        for t in &traversals {
            let name = &*t.root.name;
            if self.check_module_ref(t, env) {
                continue;
            }
            if name == "req" || name == "self" {
                self.demand.add_reference(name, t.expr);
                if let Some(attr) = t.first_attr {
                    self.note_request_use(name, &attr.name, t.root.span.to(attr.span));
                }
            }
            if !env.has(name) {
                let detail = undefined_detail(name, t.first_attr.map(|a| &*a.name), env);
                self.err(
                    Diagnostic::error(
                        format!("reference to non-existent variable \"{name}\""),
                        detail,
                    )
                    .with_code(codes::UNDEFINED_VARIABLE)
                    .with_span(t.root.span),
                );
                continue;
            }
            let Some(attr) = t.first_attr else { continue };
            if name == "self"
                && let Some(keys) = env.self_keys
                && !keys.contains(&&*attr.name)
            {
                let mut detail = format!(
                    "self has no attribute \"{}\" here; it has: {}",
                    attr.name,
                    keys.join(", ")
                );
                if let Some(s) = schema::suggest(&attr.name, keys.iter().copied()) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(
                        format!("invalid self reference \"self.{}\"", attr.name),
                        detail,
                    )
                    .with_code(codes::INVALID_SELF)
                    .with_span(attr.span),
                );
            }
            if name == "each" && env.each && attr.name.as_ref() != "key" && &*attr.name != "value" {
                self.err(
                    Diagnostic::error(
                        format!("invalid each reference \"each.{}\"", attr.name),
                        match schema::suggest(&attr.name, ["key", "value"].into_iter()) {
                            _ if &*attr.name == "index" => "each has only key and value; for a list, each.key is the element's index".to_owned(),
                            Some(s) => format!("each has only key and value; did you mean \"{s}\"?"),
                            None => "each has only key and value".to_owned(),
                        },
                    )
                    .with_span(attr.span)
                    .with_code(codes::INVALID_EACH),
                );
            }
        }
        for call in calls {
            self.check_function_name(call);
            self.check_invoke(call);
        }
        traversals
    }
}
