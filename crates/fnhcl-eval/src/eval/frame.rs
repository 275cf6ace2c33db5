//! Variable frames: lazily computed locals, `each`, function arguments
//! and `self`, and the [`Vars`] / [`Invoke`] views the expression
//! evaluator reads them through.

use fnhcl_base::Diagnostic;
use fnhcl_expr::Compiled;
use fnhcl_value::{Key, Value};
use std::cell::{OnceCell, RefCell};
use std::collections::BTreeMap;

use super::ctx::Ctx;
use super::{MAX_INVOKE_CALLS, MAX_INVOKE_DEPTH, MAX_LOCAL_DEPTH};
use crate::api::LocalValue;
use crate::compile::{Module, Scope};
use crate::exprs::{self, Invoke, Vars};
use crate::slots::{self, Slot};

/// Runs `f` on a fresh stack segment when little stack is left: user
/// functions and chains of locals recurse through the expression
/// evaluator, and 100 nested calls need several MiB in debug builds.
pub(super) fn guard_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(1024 * 1024, 8 * 1024 * 1024, f)
}

pub(super) fn calls_message() -> String {
    format!("user function calls: more than {MAX_INVOKE_CALLS} calls in one evaluation")
}

pub(super) fn depth_message() -> String {
    format!("user function calls: max depth {MAX_INVOKE_DEPTH} exceeded")
}

pub(super) enum LocalCell {
    Pending,
    InProgress,
    Done(Value),
}

pub(super) enum FrameVars<'a> {
    /// One named variable (`req`, `self`, `each`).
    Named(&'static str, Value),
    /// One named variable built on its first read (a resource's `self`,
    /// which most bodies never read: no object, no observed-body lookup).
    NamedLazy(&'static str, OnceCell<Value>, &'a dyn Fn() -> Value),
    /// A scope's locals, evaluated on first use.
    Locals {
        scope: &'a Scope,
        cells: RefCell<Vec<LocalCell>>,
    },
    /// A user function's arguments.
    Args(BTreeMap<Key, Value>),
    /// The base of a module instance: `req` (module-local), `param`,
    /// `module.<instance>` and `switch.<name>`.
    Instance { rt: usize, param: Value },
}

pub(super) struct Frame<'a> {
    pub(super) ctx: &'a Ctx<'a>,
    pub(super) parent: Option<&'a Frame<'a>>,
    /// The module whose code is evaluated (its user functions).
    pub(super) module: &'a Module,
    pub(super) vars: FrameVars<'a>,
}

impl<'a> Frame<'a> {
    pub(super) fn named(parent: &'a Frame<'a>, name: &'static str, v: Value) -> Frame<'a> {
        Frame {
            ctx: parent.ctx,
            parent: Some(parent),
            module: parent.module,
            vars: FrameVars::Named(name, v),
        }
    }

    /// A frame of one named variable whose value `build` makes on the
    /// first read (then kept): the same value as [`Frame::named`] with
    /// `build()`, for a variable that is often not read at all.
    pub(super) fn named_lazy(
        parent: &'a Frame<'a>,
        name: &'static str,
        build: &'a dyn Fn() -> Value,
    ) -> Frame<'a> {
        Frame {
            ctx: parent.ctx,
            parent: Some(parent),
            module: parent.module,
            vars: FrameVars::NamedLazy(name, OnceCell::new(), build),
        }
    }

    /// The base frame of module instance `rt`.
    pub(super) fn instance(
        ctx: &'a Ctx<'a>,
        module: &'a Module,
        rt: usize,
        param: Value,
    ) -> Frame<'a> {
        Frame {
            ctx,
            parent: None,
            module,
            vars: FrameVars::Instance { rt, param },
        }
    }

    /// A locals frame, or `None` for a scope without locals.
    pub(super) fn locals(parent: &'a Frame<'a>, scope: &'a Scope) -> Option<Frame<'a>> {
        if scope.is_empty() {
            return None;
        }
        Some(Frame {
            ctx: parent.ctx,
            parent: Some(parent),
            module: parent.module,
            vars: FrameVars::Locals {
                scope,
                cells: RefCell::new(scope.locals.iter().map(|_| LocalCell::Pending).collect()),
            },
        })
    }

    pub(super) fn eval(&self, e: &Compiled) -> (Value, Vec<Diagnostic>) {
        exprs::eval(e, self, self, &self.ctx.budget)
    }

    /// Local `i`'s value, computed on its first use. The usual read (of
    /// a local already computed) is inline; the rest is [`Self::compute`].
    #[inline]
    pub(super) fn force(&self, scope: &Scope, cells: &RefCell<Vec<LocalCell>>, i: usize) -> Value {
        if let Some(LocalCell::Done(v)) = cells.borrow().get(i) {
            return v.clone();
        }
        self.compute(scope, cells, i)
    }

    /// [`Self::force`] of a local not computed yet (or in a cycle).
    #[inline(never)]
    fn compute(&self, scope: &Scope, cells: &RefCell<Vec<LocalCell>>, i: usize) -> Value {
        match cells.borrow().get(i) {
            Some(LocalCell::Done(v)) => return v.clone(),
            Some(LocalCell::InProgress) => {
                // Cycles are rejected at compile time; this is a safety net.
                let l = &scope.locals[i];
                self.ctx.warn([Diagnostic::error(
                    format!("cycle found: {} → {}", l.name, l.name),
                    "",
                )
                .with_span(l.expr.span)]);
                return Value::dynamic_unknown();
            }
            Some(LocalCell::Pending) => {}
            None => return Value::dynamic_unknown(),
        }
        let local = &scope.locals[i];
        let depth = self.ctx.local_depth.get() + 1;
        let v = if depth > MAX_LOCAL_DEPTH {
            self.ctx.warn([Diagnostic::error(
                "locals nested too deeply",
                format!("more than {MAX_LOCAL_DEPTH} locals depend on each other in a chain"),
            )
            .with_span(local.expr.span)]);
            Value::dynamic_unknown()
        } else {
            cells.borrow_mut()[i] = LocalCell::InProgress;
            self.ctx.local_depth.set(depth);
            let (v, diags) = guard_stack(|| self.eval(&local.expr));
            self.ctx.local_depth.set(depth - 1);
            // Errors in locals are not fatal: the local becomes unknown and
            // the errors become warnings (upstream §3.4).
            self.ctx.warn(diags);
            v
        };
        if let Some(trace) = self.ctx.trace {
            trace.borrow_mut().push(LocalValue {
                name: local.name.to_string(),
                span: local.expr.span,
                value: v.clone(),
            });
        }
        cells.borrow_mut()[i] = LocalCell::Done(v.clone());
        v
    }
}

impl Vars for Frame<'_> {
    // Out of line: slot reads (`get_slot`) fall back to it only for the
    // base frame's names, and inlined it made every slot read's frame big.
    #[inline(never)]
    fn get(&self, name: &str) -> Option<Value> {
        let mut f = Some(self);
        while let Some(fr) = f {
            match &fr.vars {
                FrameVars::Named(n, v) => {
                    if *n == name {
                        return Some(v.clone());
                    }
                }
                FrameVars::NamedLazy(n, cell, build) => {
                    if *n == name {
                        return Some(cell.get_or_init(build).clone());
                    }
                }
                FrameVars::Locals { scope, cells } => {
                    if let Some(i) = scope.find(name) {
                        return Some(fr.force(scope, cells, i));
                    }
                }
                FrameVars::Args(args) => {
                    if let Some(v) = args.get(name) {
                        return Some(v.clone());
                    }
                }
                FrameVars::Instance { rt, param } => {
                    if name == "req" {
                        // Module-local views are built on first use.
                        return Some(fr.ctx.req_of(*rt));
                    }
                    if name == "param" {
                        return Some(param.clone());
                    }
                    if let Some(rest) = name.strip_prefix("module.") {
                        return Some(match rest.split_once('.') {
                            Some((inst, export)) => {
                                let id = *fr.module.instance_ids.get(inst)?;
                                fr.ctx.instance_export(*rt, id, export)
                            }
                            None => {
                                let id = *fr.module.instance_ids.get(rest)?;
                                fr.ctx.instance_exports(*rt, id)
                            }
                        });
                    }
                    if let Some(sw) = name.strip_prefix("switch.") {
                        let id = *fr.module.switch_ids.get(sw)?;
                        return Some(fr.ctx.switch_value(*rt, id));
                    }
                    return None;
                }
            }
            f = fr.parent;
        }
        None
    }

    fn get_slot(&self, name: &str, slot: Option<u32>) -> Option<Value> {
        match slot {
            Some(s) => self.by_slot(name, slots::decode(s)),
            None => self.get(name),
        }
    }
}

impl Frame<'_> {
    /// The frame chain's value of root variable `name` by its slot (see
    /// `crate::slots`): frames are matched by the slot's scope id or
    /// kind, without comparing names; a slot not found on the chain falls
    /// back to the name search.
    fn by_slot(&self, name: &str, slot: Slot) -> Option<Value> {
        let mut f = Some(self);
        while let Some(fr) = f {
            match (&fr.vars, slot) {
                (FrameVars::Named(n, v), Slot::Named) if same_name(n, name) => {
                    return Some(v.clone());
                }
                (FrameVars::NamedLazy(n, cell, build), Slot::Named) if same_name(n, name) => {
                    return Some(cell.get_or_init(build).clone());
                }
                (FrameVars::Locals { scope, cells }, Slot::Local { scope: id, index })
                    if scope.id == id =>
                {
                    if scope
                        .locals
                        .get(index)
                        .is_some_and(|l| same_name(&l.name, name))
                    {
                        return Some(fr.force(scope, cells, index));
                    }
                    break;
                }
                // The base of the chain.
                (FrameVars::Instance { .. }, Slot::Base) => return fr.get(name),
                _ => {}
            }
            f = fr.parent;
        }
        self.get(name)
    }
}

/// Name equality for a slot read's check: a reference and the local it
/// names usually share the parser's one copy of the text, so the texts'
/// addresses are compared before their bytes.
#[inline]
fn same_name(a: &str, b: &str) -> bool {
    a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || a == b)
}

impl Invoke for Frame<'_> {
    fn invoke(&self, name: &str, args: Value) -> Result<Value, String> {
        self.ctx.invoke_in(self.module, name, args)
    }
}
