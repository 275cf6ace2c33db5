//! Evaluation of a compiled expression (`crate::compiled`): the node and
//! the AST node it was compiled from are walked together. Every node
//! charges the steps and enters the nesting levels the tree walk would,
//! in the same order, and gives the same value and diagnostics: the
//! rules themselves are the tree walk's (the other files of `eval/`),
//! called with the compiled children. A folded constant or a traversal
//! charges its steps at once, only where no limit or interrupt check
//! can fall inside them; otherwise it is evaluated by the tree walk.

use fnhcl_syntax::ast::{Expr, ExprKind, TemplatePart};
use fnhcl_value::Value;

use super::traversal::widen_chain_context;
use super::{Branch, Evaluator, R, dynamic};
use crate::compiled::node::{Const, Key, Node, Traversal};

impl Evaluator<'_, '_> {
    /// Evaluates compiled node `n` of expression `e`.
    pub(super) fn eval_c(&mut self, n: &Node, e: &Expr) -> R {
        match n {
            Node::Ast => self.eval(e),
            Node::Const(c) => self.constant(c, e),
            Node::Traversal(t) => self.traversal_c(t, e),
            Node::Bound(t) => self.traversal_bound(t, e),
            _ => self.node_charged(e.span, |ev| ev.eval_inner_c(n, e)),
        }
    }

    /// Whether `steps` steps and `height` nesting levels from here can be
    /// charged at once: no limit is reached and no interrupt check falls
    /// inside them. (`for` bindings are no concern: a traversal knows
    /// from compile time whether its root is one, `Node::Bound`.)
    fn can_batch(&self, steps: u32, height: u32) -> bool {
        if self.aborted {
            return false;
        }
        let (steps, height) = (u64::from(steps), height as usize);
        let after = self.steps.saturating_add(steps);
        after <= self.ctx.limits.max_steps
            && ((self.steps ^ after) < crate::INTERRUPT_INTERVAL
                || self.ctx.limits.interrupt.is_none())
            && self.depth.saturating_add(height) <= self.ctx.limits.max_depth
    }

    fn constant(&mut self, c: &Const, e: &Expr) -> R {
        if !self.can_batch(c.steps, c.height) {
            return self.eval(e);
        }
        self.steps += u64::from(c.steps);
        (c.value.clone(), Vec::new())
    }

    /// A root variable and its attribute and literal-key steps: walked by
    /// reference while each step finds its element in a known object,
    /// map, tuple or list (cloning the last value only); from the first
    /// step that does not, HCL's `GetAttr`/`Index` on owned values, as
    /// the tree walk does.
    fn traversal_c(&mut self, t: &Traversal, e: &Expr) -> R {
        if !self.can_batch(t.steps, t.height) {
            return self.eval(e);
        }
        self.steps += u64::from(t.steps);
        let Some(root) = self.ctx.vars.get_slot(&t.root.name, t.root.slot) else {
            return self.traversal_missing_root(t, e);
        };
        if t.path.is_empty() {
            return (root, Vec::new());
        }
        let (cur, done) = walk(&root, &t.path);
        let v = cur.clone();
        if done == t.path.len() {
            return (v, Vec::new());
        }
        self.traversal_rest(v, &t.path[done..], e)
    }

    /// [`Self::traversal_c`] from a `for` variable: the binding at the
    /// root's slot, read in place (the tree walk finds the same one by
    /// name: the innermost binding of that name).
    fn traversal_bound(&mut self, t: &Traversal, e: &Expr) -> R {
        let at = t.root.slot.map_or(usize::MAX, |s| s as usize);
        let bound = self
            .locals
            .get(at)
            .is_some_and(|(name, _)| **name == *t.root.name);
        // Not bound there: not reached (the slots follow the pushes); the
        // tree walk finds the name.
        if !bound || !self.can_batch(t.steps, t.height) {
            return self.eval(e);
        }
        self.steps += u64::from(t.steps);
        let (cur, done) = walk(&self.locals[at].1, &t.path);
        let v = cur.clone();
        if done == t.path.len() {
            return (v, Vec::new());
        }
        self.traversal_rest(v, &t.path[done..], e)
    }

    /// A traversal whose root variable is not found: the tree walk's
    /// "Unknown variable" (and the steps' diagnostics), out of the usual
    /// path.
    #[cold]
    #[inline(never)]
    fn traversal_missing_root(&mut self, t: &Traversal, e: &Expr) -> R {
        let Some(ident) = fnhcl_syntax::visit::traversal_root(e) else {
            // Not reached: the node was built from this chain.
            self.steps -= u64::from(t.steps);
            return self.eval(e);
        };
        let (mut v, mut diags) = self.variable(ident);
        for s in t.path.iter() {
            v = self.path_step(v, s, &mut diags);
        }
        widen_chain_context(e, &mut diags);
        (v, diags)
    }

    /// The steps of a traversal from the first one not walked by
    /// reference (`v` is the value reached): HCL's `GetAttr`/`Index` on
    /// owned values, out of the usual path.
    #[inline(never)]
    fn traversal_rest(
        &mut self,
        mut v: Value,
        rest: &[crate::compiled::node::PathStep],
        e: &Expr,
    ) -> R {
        let mut diags = Vec::new();
        for s in rest {
            v = self.path_step(v, s, &mut diags);
        }
        if !diags.is_empty() {
            widen_chain_context(e, &mut diags);
        }
        (v, diags)
    }

    fn path_step(
        &mut self,
        v: Value,
        s: &crate::compiled::node::PathStep,
        diags: &mut super::Diags,
    ) -> Value {
        let r = match &s.key {
            Key::Attr(n) => self.get_attr(v, n, s.subject, s.context),
            Key::Index(k) => self.index(v, k.clone(), s.subject, s.context),
        };
        match r {
            Ok(v) => v,
            Err(d) => {
                diags.push(d);
                dynamic()
            }
        }
    }

    fn eval_inner_c(&mut self, n: &Node, e: &Expr) -> R {
        match (n, &e.kind) {
            (Node::Tuple(nodes), ExprKind::Tuple(items)) => {
                let (vals, diags) = self.eval_each(items, Some(nodes));
                (Value::tuple(vals), diags)
            }
            (Node::Object(nodes), ExprKind::Object(items)) => {
                self.object(items, Some(nodes), e.span)
            }
            (Node::LitObject(o), ExprKind::Object(items)) if o.values.len() == items.len() => {
                self.literal_object(items, o)
            }
            (Node::Template(tn), ExprKind::Template(t)) if tn.parts.len() == t.parts.len() => {
                self.template(t, e.span, Some(tn))
            }
            (Node::Wrap(inner), ExprKind::Parens(x)) => self.eval_c(inner, x),
            (Node::Wrap(inner), ExprKind::Template(t)) => match t.parts.as_slice() {
                [TemplatePart::Interpolation(x)] => self.eval_c(inner, x),
                _ => self.eval_inner(e),
            },
            (Node::GetAttr(src_n), ExprKind::GetAttr(src, name)) => {
                self.get_attr_node(e, src, name, Some(src_n))
            }
            (Node::Index(nodes), ExprKind::Index(src, key)) => {
                self.index_node(e, src, key, Some(nodes))
            }
            (Node::Call(c), ExprKind::FuncCall { name, args, .. }) => {
                if !self.ctx.functions {
                    return self.calls_not_allowed(e.span);
                }
                self.call_compiled(c.def, &name.name, args, &c.args, e.span)
            }
            (Node::Try(c), ExprKind::FuncCall { args, .. }) => {
                if !self.ctx.functions {
                    return self.calls_not_allowed(e.span);
                }
                self.call_try(args, Some((&c.args, &c.probes)), e.span)
            }
            (Node::Can(c), ExprKind::FuncCall { name, args, .. }) => {
                if !self.ctx.functions {
                    return self.calls_not_allowed(e.span);
                }
                self.call_can(name, args, Some((&c.arg, &c.probes)), e.span)
            }
            (
                Node::Conditional(nodes),
                ExprKind::Conditional {
                    cond,
                    then,
                    otherwise,
                },
            ) => {
                let [c, t, f] = &**nodes;
                self.conditional(
                    cond,
                    Some(c),
                    Branch::Expr(then, Some(t)),
                    Branch::Expr(otherwise, Some(f)),
                    e.span,
                )
            }
            (
                Node::CallAny(nodes),
                ExprKind::FuncCall {
                    name,
                    args,
                    expand_final,
                },
            ) => self.call(name, args, *expand_final, Some(nodes), e.span),
            (Node::Splat(nodes), ExprKind::Splat { source, each, .. }) => {
                self.splat(source, each, Some(nodes), e.span)
            }
            (Node::For(nodes), ExprKind::For(f)) => self.for_expr(f, Some(nodes), e.span),
            (Node::Unary(x_n), ExprKind::Unary(op, x)) => self.unary(*op, x, Some(x_n), e.span),
            (Node::Binary(nodes), ExprKind::Binary(op, a, b)) => {
                self.binary(*op, [a, b], Some(nodes), e.span)
            }
            // Not reached: a node is built from its expression. The tree
            // walk (this node's step is charged).
            _ => self.eval_inner(e),
        }
    }
}

/// Walks `path` from `root` by reference while each step finds its
/// element in a known object, map, tuple or list: the value reached and
/// how many steps were taken.
fn walk<'v>(root: &'v Value, path: &[crate::compiled::node::PathStep]) -> (&'v Value, usize) {
    let mut cur = root;
    let mut done = 0;
    for s in path {
        let next = match (cur, &s.key) {
            (Value::Object(m), Key::Attr(n)) => m.get(n),
            (Value::Object(m), Key::Index(Value::String(n))) => m.get(n),
            (Value::Map(m), Key::Attr(n) | Key::Index(Value::String(n))) => m.items.get(n),
            (Value::Tuple(items), Key::Index(Value::Number(n))) => seq_get(items, n),
            (Value::List(c), Key::Index(Value::Number(n))) => seq_get(&c.items, n),
            _ => None,
        };
        match next {
            Some(v) => {
                cur = v;
                done += 1;
            }
            None => break,
        }
    }
    (cur, done)
}

/// A tuple's or list's element at a whole, non-negative index.
fn seq_get<'v>(items: &'v [Value], n: &fnhcl_value::Number) -> Option<&'v Value> {
    if !n.is_integer() || n.is_negative() {
        return None;
    }
    items.get(usize::try_from(n.to_i64()?).ok()?)
}
