//! The walk over blocks: items, groups, conditions, discards of
//! incomplete blocks, module instances and switches.

use fnhcl_base::{Diagnostic, Span};
use fnhcl_expr::Compiled;
use fnhcl_syntax::ast::Expr;
use fnhcl_value::{Type, Value};
use std::sync::Arc;

use super::ctx::{Choice, Ctx, Status};
use super::frame::{Frame, guard_stack};
use super::output::Builder;
use super::values::unknown_paths;
use super::{MAX_UNKNOWN_REFS, Res, Stop};
use crate::api::{Discard, DiscardKind, DiscardReason};
use crate::checks::type_name;
use crate::compile::{Cond, Group, Instance, Item, Names, Switch};
use crate::refs;

pub(super) enum CondResult {
    True,
    False,
    Incomplete(Vec<Diagnostic>),
}

pub(super) struct Walk<'c> {
    pub(super) ctx: &'c Ctx<'c>,
    pub(super) out: Builder,
    /// The module instance being walked and its name prefix.
    pub(super) rt: usize,
    pub(super) prefix: Arc<str>,
    /// What the module instances around the walk add to every resource
    /// they hold: `depends_on` (D40), `on_incomplete = "keep"` (D41),
    /// `optional` (D32).
    pub(super) inherited: Inherited,
}

/// See [`Walk::inherited`].
#[derive(Clone, Default)]
pub(super) struct Inherited {
    pub(super) depends_on: Vec<crate::api::Dependency>,
    pub(super) keep: bool,
    pub(super) optional: bool,
}

pub(super) fn has_errors(d: &[Diagnostic]) -> bool {
    d.iter().any(Diagnostic::is_error)
}

pub(super) fn incomplete(v: &Value, d: &[Diagnostic]) -> bool {
    has_errors(d) || !v.is_wholly_known()
}

impl<'c> Walk<'c> {
    pub(super) fn range(&self, span: Option<Span>) -> String {
        span.map(|s| self.ctx.program.sources.range_text(s))
            .unwrap_or_else(|| "<nil>".to_owned())
    }

    /// The `unknown values:` list for the traversals of `exprs` (§4.3).
    pub(super) fn unknown_refs(&self, frame: &Frame<'_>, exprs: &[&Expr]) -> Vec<String> {
        let mut out = Vec::new();
        for e in exprs {
            for t in refs::traversals(e) {
                // Only on the error path: the traversal compiled where it is read.
                let (v, _) = frame.eval(&Compiled::new(t.expr.clone()));
                let text = self.ctx.program.sources.slice(t.expr.span).to_owned();
                unknown_paths(&v, &mut text.clone(), &mut out, 0);
                if out.len() >= MAX_UNKNOWN_REFS {
                    out.truncate(MAX_UNKNOWN_REFS);
                    out.push("...".to_owned());
                    return out;
                }
            }
        }
        out
    }

    /// Context lines for a discard or a fatal error: one per error, then the
    /// unknown references.
    fn explain(&self, frame: &Frame<'_>, diags: &[Diagnostic], exprs: &[&Expr]) -> Vec<String> {
        let sources = &self.ctx.program.sources;
        let travs: Vec<Span> = exprs
            .iter()
            .flat_map(|e| refs::traversals(e))
            .map(|t| t.expr.span)
            .collect();
        let mut lines = Vec::new();
        for d in diags.iter().filter(|d| d.is_error()) {
            // As HCL: a failing traversal is shown whole
            // (`self.resource.status.atProvider.arn`), other failing
            // expressions as themselves.
            let within = |s: &Span| {
                d.primary
                    .is_some_and(|p| p.file == s.file && s.start <= p.start && p.end <= s.end)
            };
            let text = travs
                .iter()
                .find(|s| within(s))
                .map(|s| sources.slice(*s).to_owned())
                .or_else(|| d.expr_text.clone())
                .or_else(|| d.context.map(|s| sources.slice(s).to_owned()));
            let rendered = d.to_hcl_string(sources);
            lines.push(match text {
                Some(t) if !t.is_empty() => format!("{t}, {rendered}"),
                _ => rendered,
            });
        }
        let unknown = self.unknown_refs(frame, exprs);
        if !unknown.is_empty() {
            lines.push(format!("unknown values: {}", unknown.join(", ")));
        }
        lines
    }

    /// D32: a block that is missing from this run and not optional makes
    /// the composite not ready.
    pub(super) fn gate(&mut self, what: &str) {
        self.out.gating.push(what.to_owned());
    }

    /// Evaluates a block's value: an incomplete one discards the block
    /// as `kind` (named `name`) and gives `None`; a complete one's
    /// warnings are reported.
    pub(super) fn complete(
        &mut self,
        frame: &Frame<'_>,
        kind: DiscardKind,
        name: &str,
        e: &Compiled,
    ) -> Option<Value> {
        let (v, diags) = frame.eval(e);
        if incomplete(&v, &diags) {
            self.discard(
                frame,
                kind,
                DiscardReason::Incomplete,
                name,
                Some(e.span),
                diags,
                &[e],
            );
            return None;
        }
        self.ctx.warn(diags);
        Some(v)
    }

    pub(super) fn discard(
        &mut self,
        frame: &Frame<'_>,
        kind: DiscardKind,
        reason: DiscardReason,
        name: &str,
        span: Option<Span>,
        diags: Vec<Diagnostic>,
        exprs: &[&Expr],
    ) {
        let context = if matches!(reason, DiscardReason::Incomplete | DiscardReason::Kept) {
            self.explain(frame, &diags, exprs)
        } else {
            Vec::new()
        };
        // An error on values that are all known is the program's, not a
        // wait for data: it is told apart everywhere.
        let waits = context
            .last()
            .is_some_and(|l| l.starts_with("unknown values:"));
        let reason = if reason == DiscardReason::Incomplete && has_errors(&diags) && !waits {
            DiscardReason::EvaluationError
        } else {
            reason
        };
        self.ctx.warn(diags);
        if reason != DiscardReason::UserCondition && !self.prefix.is_empty() {
            self.out.unfinished.insert(self.prefix.to_string());
        }
        self.out.discards.push(Discard {
            kind,
            reason,
            name: name.to_owned(),
            span,
            range: self.range(span),
            context,
        });
    }

    pub(super) fn condition(
        &mut self,
        frame: &Frame<'_>,
        cond: &Cond,
        what: impl FnOnce() -> String,
    ) -> Res<CondResult> {
        eval_condition(frame, cond, what)
    }

    pub(super) fn items(&mut self, frame: &Frame<'_>, items: &[Item]) -> Res<()> {
        for it in items {
            match it {
                Item::Group(g) => guard_stack(|| self.group(frame, g))?,
                Item::Resource(r) => self.resource(frame, r)?,
                Item::Collection(c) => self.collection(frame, c)?,
                Item::Composite(c) => self.composite(frame, c)?,
                Item::Context(c) => self.context(frame, c)?,
                Item::Requirement(r) => self.requirement(frame, r)?,
                Item::Module(i) => guard_stack(|| self.instance(frame, i))?,
                Item::Switch(sw) => guard_stack(|| self.switch(frame, sw))?,
            }
        }
        Ok(())
    }

    fn group(&mut self, parent: &Frame<'_>, g: &Group) -> Res<()> {
        let lf = Frame::locals(parent, &g.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        if let Some(c) = &g.condition {
            match self.condition(frame, c, || {
                "unable to evaluate condition for group".to_owned()
            })? {
                CondResult::True => {}
                CondResult::False => {
                    self.discard(
                        frame,
                        DiscardKind::Group,
                        DiscardReason::UserCondition,
                        "",
                        Some(c.span),
                        Vec::new(),
                        &[],
                    );
                    return Ok(());
                }
                CondResult::Incomplete(diags) => {
                    // D12: never drop observed resources silently.
                    let observed = self.observed_in(&g.names);
                    if let Some(first) = observed.first() {
                        return Err(self.condition_fatal(frame, first, "group", c, diags));
                    }
                    if g.names.required {
                        self.gate("group");
                    }
                    self.discard(
                        frame,
                        DiscardKind::Group,
                        DiscardReason::Incomplete,
                        "",
                        Some(c.span),
                        diags,
                        &[&c.expr],
                    );
                    return Ok(());
                }
            }
        }
        self.items(frame, &g.items)
    }

    /// D12: the condition of a block holding an observed resource is
    /// incomplete.
    pub(super) fn condition_fatal(
        &self,
        frame: &Frame<'_>,
        resource: &str,
        block: &str,
        c: &Cond,
        diags: Vec<Diagnostic>,
    ) -> Stop {
        let unknown = self.unknown_refs(frame, &[&c.expr]);
        let mut out = vec![
            Diagnostic::error(
                format!(
                    "existing resource {resource} could not be evaluated, abort (unknown values: {})",
                    unknown.join(", ")
                ),
                format!(
                    "the condition of its {block} block is incomplete; dropping the resource would make Crossplane delete it"
                ),
            )
            .with_span(c.expr.span),
        ];
        out.extend(diags.into_iter().filter(Diagnostic::is_error));
        out
    }

    /// D12 / upstream §4.5: the body of an observed resource is incomplete.
    pub(super) fn body_fatal(
        &self,
        frame: &Frame<'_>,
        resource: &str,
        body: &Expr,
        diags: Vec<Diagnostic>,
    ) -> Stop {
        let unknown = self.unknown_refs(frame, &[body]);
        let mut out = vec![
            Diagnostic::error(
                format!(
                    "existing resource {resource} could not be evaluated, abort (unknown values: {})",
                    unknown.join(", ")
                ),
                "the resource exists in the observed state; dropping it would make Crossplane delete it",
            )
            .with_span(body.span),
        ];
        out.extend(diags.into_iter().filter(Diagnostic::is_error));
        out
    }
}

/// Evaluates a `condition` attribute.
pub(super) fn eval_condition(
    frame: &Frame<'_>,
    cond: &Cond,
    what: impl FnOnce() -> String,
) -> Res<CondResult> {
    let (v, diags) = frame.eval(&cond.expr);
    if incomplete(&v, &diags) {
        return Ok(CondResult::Incomplete(diags));
    }
    frame.ctx.warn(diags);
    match v.unmarked() {
        Value::Bool(true) => Ok(CondResult::True),
        Value::Bool(false) => Ok(CondResult::False),
        Value::Null(Type::Bool) => Ok(CondResult::False),
        other => Err(vec![
            Diagnostic::error(
                what(),
                format!("the condition must be a bool, got {}", type_name(other)),
            )
            .with_span(cond.expr.span),
        ]),
    }
}

impl Walk<'_> {
    /// The Crossplane name of a module-local name (D28).
    pub(super) fn cname(&self, local: &str) -> String {
        if self.prefix.is_empty() {
            local.to_owned()
        } else {
            format!("{}{local}", self.prefix)
        }
    }

    /// The observed resources among `names` (for the fail-safe, D12).
    fn observed_in(&self, names: &Names) -> Vec<String> {
        let mut out: Vec<String> = names
            .resources
            .iter()
            .map(|(n, _)| self.cname(n))
            .filter(|n| self.ctx.request.observed.contains_key(n))
            .collect();
        for (b, _) in &names.collections {
            if let Some(list) = self.ctx.members.get(&self.cname(b)) {
                out.extend(list.iter().map(|(_, n)| n.clone()));
            }
        }
        out
    }

    /// A module instance or switch that cannot be evaluated: `cond` (the
    /// instance's condition, the switch case's) is incomplete, or, without
    /// one, a dependency cycle. Fatal if it would drop an observed resource
    /// (D12), otherwise discarded with a warning.
    fn incomplete_block(
        &mut self,
        frame: &Frame<'_>,
        kind: DiscardKind,
        name: &str,
        names: &Names,
        cond: Option<&Cond>,
        header: Span,
        diags: Vec<Diagnostic>,
        gates: bool,
    ) -> Res<()> {
        if gates {
            self.gate(name);
        }
        // The block's name in the two fatal messages.
        let (what, blocked) = match kind {
            DiscardKind::Switch => ("switch", "switch"),
            _ => ("module", "module instance"),
        };
        if let Some(first) = self.observed_in(names).first() {
            return Err(match cond {
                Some(c) => self.condition_fatal(frame, first, what, c, diags),
                None => {
                    let mut out = vec![
                        Diagnostic::error(
                            format!("existing resource {first} could not be evaluated, abort"),
                            format!("the {blocked} that declares it could not be evaluated; dropping the resource would make Crossplane delete it"),
                        )
                        .with_span(header),
                    ];
                    out.extend(diags.into_iter().filter(Diagnostic::is_error));
                    out
                }
            });
        }
        let (span, exprs): (Span, Vec<&Expr>) = match cond {
            Some(c) => (c.span, vec![&c.expr]),
            None => (header, Vec::new()),
        };
        self.discard(
            frame,
            kind,
            DiscardReason::Incomplete,
            name,
            Some(span),
            diags,
            &exprs,
        );
        Ok(())
    }

    pub(super) fn instance(&mut self, frame: &Frame<'_>, inst: &Instance) -> Res<()> {
        let name = self.cname(&inst.name);
        let Some(rt) = self.ctx.child(self.rt, inst.id) else {
            return Err(vec![
                Diagnostic::error(
                    format!("internal error: unknown module instance \"{name}\""),
                    "",
                )
                .with_span(inst.header),
            ]);
        };
        match self.ctx.status_at(rt, inst, frame) {
            Status::Active(params) => {
                let module = &self.ctx.program.modules[inst.module];
                let base = Frame::instance(self.ctx, module, rt, params);
                let top = Frame::locals(&base, &module.top);
                let mut inherited = self.inherited.clone();
                inherited
                    .depends_on
                    .extend(self.dependencies(frame, &inst.policy.depends_on));
                inherited.keep |= inst.policy.keep;
                inherited.optional |= inst.optional;
                let saved = (self.rt, self.prefix.clone(), self.inherited.clone());
                self.rt = rt;
                self.prefix = self.ctx.prefix_of(rt);
                self.inherited = inherited;
                let r = self.items(top.as_ref().unwrap_or(&base), &module.items);
                (self.rt, self.prefix, self.inherited) = saved;
                r
            }
            Status::Off => {
                let span = inst.condition.as_ref().map(|c| c.span);
                self.discard(
                    frame,
                    DiscardKind::Module,
                    DiscardReason::UserCondition,
                    &name,
                    span,
                    Vec::new(),
                    &[],
                );
                Ok(())
            }
            Status::Incomplete(diags)
                if (inst.policy.keep || self.inherited.keep)
                    && !self.observed_in(&inst.names).is_empty() =>
            {
                // D41: the instance's observed resources stay as they are.
                let observed = self.observed_in(&inst.names);
                let (span, exprs): (Span, Vec<&Expr>) = match &inst.condition {
                    Some(c) => (c.span, vec![&c.expr]),
                    None => (inst.header, Vec::new()),
                };
                for (i, r) in observed.iter().enumerate() {
                    let d = if i == 0 { diags.clone() } else { Vec::new() };
                    let meta = super::resources::Meta {
                        depends_on: Vec::new(),
                        collection: None,
                        optional: inst.optional || self.inherited.optional,
                    };
                    self.keep_observed(frame, r, span, d, &exprs, meta)?;
                }
                Ok(())
            }
            Status::Incomplete(diags) => self.incomplete_block(
                frame,
                DiscardKind::Module,
                &name,
                &inst.names,
                inst.condition.as_ref(),
                inst.header,
                diags,
                inst.names.required && !inst.optional,
            ),
            Status::Failed(d) => Err(d),
        }
    }

    fn switch(&mut self, frame: &Frame<'_>, sw: &Switch) -> Res<()> {
        let name = self.cname(&sw.name);
        match self.ctx.choice_at(self.rt, sw, frame) {
            Choice::Case(ci) => {
                let case = &sw.cases[ci];
                let lf = Frame::locals(frame, &case.scope);
                self.items(lf.as_ref().unwrap_or(frame), &case.items)
            }
            Choice::NoCase => Ok(()),
            Choice::Incomplete(ci, diags) => self.incomplete_block(
                frame,
                DiscardKind::Switch,
                &name,
                &sw.names,
                sw.cases.get(ci).and_then(|c| c.condition.as_ref()),
                sw.header,
                diags,
                sw.names.required,
            ),
            Choice::Failed(d) => Err(d),
        }
    }
}
