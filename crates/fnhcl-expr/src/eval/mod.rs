//! The tree-walking evaluator. Each node returns its value and the
//! diagnostics produced while evaluating it (HCL decides per node which
//! child diagnostics to keep, e.g. a conditional keeps only the chosen
//! branch's).
//!
//! This module holds the evaluation context ([`Evaluator`]: limits, step
//! and depth accounting, `for`/splat bindings) and the dispatch on the
//! kind of node; each kind's rules live in a child module. See
//! `docs/notes/expression-evaluator.md`.

mod calls;
mod compiled;
mod constructors;
mod for_expr;
mod intrinsics;
mod operators;
mod templates;
mod traversal;

use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap, Span};
use fnhcl_syntax::ast::{Expr, ExprKind, Template, TemplatePart};
use fnhcl_value::{Number, Type, Value};

use crate::compiled::node::{Node, TemplateNode};
use crate::conv;
use crate::{EvalContext, Evaluated};
pub(crate) use constructors::{ascii_literal, literal_key};
pub(crate) use templates::template_guess;

type Diags = Vec<Diagnostic>;
type R = (Value, Diags);

fn has_errors(d: &[Diagnostic]) -> bool {
    d.iter().any(Diagnostic::is_error)
}

fn dynamic() -> Value {
    Value::dynamic_unknown()
}

/// Splits off the top-level mark. Inlined: it runs for every traversal
/// step, and the usual value has no mark.
#[inline]
fn unmark(v: Value) -> (Value, bool) {
    match v {
        Value::Marked(inner) => {
            let mut cur: &Value = &inner;
            while let Value::Marked(i) = cur {
                cur = i;
            }
            (cur.clone(), true)
        }
        v => (v, false),
    }
}

/// [`Value::unmark_deep`] of an owned value: no copy when nothing is
/// marked (the usual case).
fn unmark_deep_owned(v: Value) -> (Value, bool) {
    if v.is_marked_deep() {
        v.unmark_deep()
    } else {
        (v, false)
    }
}

/// `conv::convert` of an owned value: no copy when it already has the
/// type (what `convert` checks first).
fn convert_owned(v: Value, to: &Type) -> Result<Value, (Value, String)> {
    if fnhcl_value::convert::has_type_shallow(&v, to) {
        return Ok(v);
    }
    conv::convert(&v, to).map_err(|m| (v, m))
}

/// A branch of a conditional: an expression, or a template (`%{if}`).
#[derive(Clone, Copy)]
enum Branch<'e> {
    /// An expression, with its compiled node when it has one.
    Expr(&'e Expr, Option<&'e Node>),
    /// A template, with its compiled node when it has one.
    Template(&'e Template, Span, Option<&'e TemplateNode>),
    /// `%{if}` without `%{else}`: the empty string.
    Empty(Span),
}

impl Branch<'_> {
    fn span(&self) -> Span {
        match self {
            Branch::Expr(e, _) => e.span,
            Branch::Template(_, s, _) | Branch::Empty(s) => *s,
        }
    }
}

pub(crate) struct Evaluator<'c, 'a> {
    ctx: &'c EvalContext<'a>,
    sources: Option<&'c SourceMap>,
    locals: Vec<(Arc<str>, Value)>,
    splat_items: Vec<Value>,
    steps: u64,
    bytes: u64,
    /// Of `bytes`, how many [`crate::Limits::memory`] has been told of.
    reported: u64,
    depth: usize,
    aborted: bool,
}

impl<'c, 'a> Evaluator<'c, 'a> {
    pub(crate) fn new(ctx: &'c EvalContext<'a>, sources: Option<&'c SourceMap>) -> Self {
        Evaluator {
            ctx,
            sources,
            locals: Vec::new(),
            splat_items: Vec::new(),
            steps: 0,
            bytes: 0,
            reported: 0,
            depth: 0,
            aborted: false,
        }
    }

    pub(crate) fn run(mut self, e: &Expr) -> Evaluated {
        let r = self.eval(e);
        self.finish(r)
    }

    pub(crate) fn run_compiled(mut self, c: &crate::Compiled) -> Evaluated {
        let r = self.eval_c(c.node(), c.ast());
        self.finish(r)
    }

    fn finish(self, (value, mut diagnostics): R) -> Evaluated {
        // What is built is kept (by the caller) whatever the answer.
        if let Some(memory) = &self.ctx.limits.memory
            && self.bytes > self.reported
        {
            memory.built(self.bytes - self.reported);
        }
        if let Some(sm) = self.sources {
            for d in &mut diagnostics {
                if d.expr_text.is_none()
                    && let Some(c) = d.context
                    && (c.file.0 as usize) < sm.len()
                {
                    d.expr_text = Some(sm.slice(c).to_owned());
                }
            }
        }
        let (steps, bytes) = (self.steps, self.bytes);
        // The `for` and splat bindings' vectors are left empty, and in
        // most evaluations never allocated: then there is nothing to drop
        // (this runs once per expression evaluated, every local included).
        if self.locals.capacity() == 0 && self.splat_items.capacity() == 0 {
            std::mem::forget(self);
        }
        Evaluated {
            value,
            diagnostics,
            steps,
            bytes,
        }
    }

    fn error(
        &self,
        summary: &str,
        detail: impl Into<String>,
        subject: Span,
        context: Span,
    ) -> Diagnostic {
        Diagnostic::error(summary, detail)
            .with_span(subject)
            .with_context(context)
    }

    /// Counts `n` steps; false (with a diagnostic) once the limit is hit.
    /// Runs for every node: the limit's message is built out of line.
    #[inline]
    fn step(&mut self, n: u64, span: Span, diags: &mut Diags) -> bool {
        if self.aborted {
            return false;
        }
        let before = self.steps;
        self.steps = before.saturating_add(n);
        // The count crossed a multiple of the interval (it is a power of
        // two: the bits above it differ).
        if (before ^ self.steps) >= crate::INTERRUPT_INTERVAL
            && let Some(interrupt) = &self.ctx.limits.interrupt
            && !interrupt.check()
        {
            self.aborted = true;
            diags.push(self.interrupted(span));
            return false;
        }
        if self.steps > self.ctx.limits.max_steps {
            self.aborted = true;
            diags.push(self.steps_exceeded(span));
            return false;
        }
        true
    }

    /// Counts `n` bytes of values built, and the steps they cost
    /// ([`crate::BYTES_PER_STEP`]); false (with a diagnostic) once a limit
    /// is hit, before the caller keeps what it built.
    pub(super) fn charge_bytes(&mut self, n: u64, span: Span, diags: &mut Diags) -> bool {
        self.charge_bytes_only(n, span, diags) && self.step(n / crate::BYTES_PER_STEP, span, diags)
    }

    /// [`Self::charge_bytes`] for bytes whose steps are already counted.
    pub(super) fn charge_bytes_only(&mut self, n: u64, span: Span, diags: &mut Diags) -> bool {
        if self.aborted {
            return false;
        }
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.ctx.limits.max_bytes {
            self.aborted = true;
            diags.push(self.bytes_exceeded(span));
            return false;
        }
        if self.bytes - self.reported >= crate::MEMORY_INTERVAL
            && let Some(memory) = &self.ctx.limits.memory
        {
            let more = self.bytes - self.reported;
            self.reported = self.bytes;
            if !memory.built(more) {
                self.aborted = true;
                diags.push(self.memory_busy(span, memory.limit()));
                return false;
            }
        }
        true
    }

    #[cold]
    #[inline(never)]
    fn memory_busy(&self, span: Span, limit: u64) -> Diagnostic {
        self.error(
            "Evaluation limit exceeded",
            format!(
                "The evaluations this server runs at once have built {limit} bytes of values, all the memory it gives them: this request was stopped, and Crossplane will call again."
            ),
            span,
            span,
        )
    }

    #[cold]
    #[inline(never)]
    fn bytes_exceeded(&self, span: Span) -> Diagnostic {
        self.error(
            "Evaluation limit exceeded",
            format!(
                "Evaluating this expression built more than {} bytes of values (text, collections); build smaller values or share them through a local.",
                self.ctx.limits.max_bytes
            ),
            span,
            span,
        )
    }

    #[cold]
    #[inline(never)]
    fn interrupted(&self, span: Span) -> Diagnostic {
        self.error(
            "Evaluation limit exceeded",
            crate::INTERRUPTED_DETAIL,
            span,
            span,
        )
    }

    #[cold]
    #[inline(never)]
    fn steps_exceeded(&self, span: Span) -> Diagnostic {
        self.error(
            "Evaluation limit exceeded",
            format!(
                "Evaluating this expression took more than {} steps; simplify it or reduce the size of the data it works on.",
                self.ctx.limits.max_steps
            ),
            span,
            span,
        )
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self, span: Span) -> Diagnostic {
        self.error(
            "Expression too deeply nested",
            format!(
                "Evaluation exceeded the nesting limit of {} levels.",
                self.ctx.limits.max_depth
            ),
            span,
            span,
        )
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> R {
        self.node_charged(e.span, |ev| ev.eval_inner(e))
    }

    /// What every node costs, in the tree walk and the compiled walk
    /// alike: one step and one level of nesting around `inner`.
    #[inline]
    pub(super) fn node_charged(&mut self, span: Span, inner: impl FnOnce(&mut Self) -> R) -> R {
        let mut diags = Vec::new();
        if !self.step(1, span, &mut diags) {
            return (dynamic(), diags);
        }
        if self.depth >= self.ctx.limits.max_depth {
            diags.push(self.too_deep(span));
            return (dynamic(), diags);
        }
        self.depth += 1;
        let r = inner(self);
        self.depth -= 1;
        r
    }

    /// Evaluates `e` through its compiled node when it has one.
    #[inline]
    pub(super) fn eval_sub(&mut self, e: &Expr, n: Option<&Node>) -> R {
        match n {
            Some(n) => self.eval_c(n, e),
            None => self.eval(e),
        }
    }

    /// Evaluates `exprs` in order (through their compiled nodes when
    /// given): their values, and all their diagnostics.
    fn eval_each(&mut self, exprs: &[Expr], nodes: Option<&[Node]>) -> (Vec<Value>, Diags) {
        let mut diags = Vec::new();
        let mut vals = Vec::with_capacity(exprs.len());
        for (i, e) in exprs.iter().enumerate() {
            let (v, d) = self.eval_sub(e, nodes.and_then(|n| n.get(i)));
            diags.extend(d);
            vals.push(v);
        }
        (vals, diags)
    }

    fn eval_inner(&mut self, e: &Expr) -> R {
        match &e.kind {
            ExprKind::Null => (Value::null(), Vec::new()),
            ExprKind::Bool(b) => (Value::Bool(*b), Vec::new()),
            ExprKind::Number(text) => match Number::parse(text) {
                Some(n) => (Value::Number(n), Vec::new()),
                None => (
                    Value::Unknown(Type::Number),
                    vec![self.error(
                        "Invalid number literal",
                        "Failed to recognize the value of this number literal.",
                        e.span,
                        e.span,
                    )],
                ),
            },
            ExprKind::Template(t) => {
                match t.parts.as_slice() {
                    [TemplatePart::Interpolation(inner)] => return self.eval(inner),
                    // A plain string literal (already NFC when ASCII).
                    [TemplatePart::Literal(s)] if s.is_ascii() => {
                        return (Value::String(s.clone()), Vec::new());
                    }
                    _ => {}
                }
                self.template(t, e.span, None)
            }
            ExprKind::Tuple(items) => {
                let (vals, diags) = self.eval_each(items, None);
                (Value::tuple(vals), diags)
            }
            ExprKind::Object(items) => self.object(items, None, e.span),
            ExprKind::Variable(id) => self.variable(id),
            ExprKind::GetAttr(src, name) => self.get_attr_node(e, src, name, None),
            ExprKind::Index(src, key) => self.index_node(e, src, key, None),
            ExprKind::Splat { source, each, .. } => self.splat(source, each, None, e.span),
            ExprKind::SplatItem => (
                self.splat_items.last().cloned().unwrap_or_else(dynamic),
                Vec::new(),
            ),
            ExprKind::FuncCall {
                name,
                args,
                expand_final,
            } => self.call(name, args, *expand_final, None, e.span),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self.conditional(
                cond,
                None,
                Branch::Expr(then, None),
                Branch::Expr(otherwise, None),
                e.span,
            ),
            ExprKind::Unary(op, x) => self.unary(*op, x, None, e.span),
            ExprKind::Binary(op, a, b) => self.binary(*op, [a, b], None, e.span),
            ExprKind::For(f) => self.for_expr(f, None, e.span),
            ExprKind::Parens(x) => self.eval(x),
        }
    }

    fn eval_branch(&mut self, b: Branch<'_>) -> R {
        match b {
            Branch::Expr(e, n) => self.eval_sub(e, n),
            Branch::Template(t, s, n) => self.template(t, s, n),
            Branch::Empty(_) => (Value::string(""), Vec::new()),
        }
    }
}

/// cty normalises every string to NFC.
pub(crate) fn nfc(s: String) -> String {
    match fnhcl_value::nfc(&s) {
        std::borrow::Cow::Borrowed(_) => s,
        std::borrow::Cow::Owned(normalized) => normalized,
    }
}
