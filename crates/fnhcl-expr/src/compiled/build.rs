//! From an AST expression to its compiled node: constants folded (their
//! steps and nesting recorded), traversals from a root variable
//! pre-split, built-ins bound, object keys ordered, templates pre-sized
//! (directives included); what is left to the tree walk becomes
//! [`Node::Ast`].

use fnhcl_base::Span;
use std::sync::Arc;

use fnhcl_syntax::ast::{Expr, ExprKind, Ident, ObjectKey, Template, TemplateFor, TemplatePart};
use fnhcl_syntax::visit::is_literal_key;

use super::node::{
    Call, CanCall, Const, ForNode, Key, LitObject, Node, ObjItem, PathStep, Probe, Root,
    TemplateNode, TemplatePartNode, Traversal, TryCall,
};
use fnhcl_value::{Number, Value};

/// What a root name means where a node is compiled: the caller's
/// resolver for the names it knows, and the `for` variables bound around
/// the node, in the order the evaluator pushes them (for each `for`, outer
/// to inner: its key variable if it has one, then its value variable), so
/// that a name's place here is its place among the evaluator's bindings.
pub(super) struct Scope<'r> {
    resolve: &'r dyn Fn(&str) -> Option<u32>,
    bound: Vec<Arc<str>>,
}

impl<'r> Scope<'r> {
    /// The scope of a whole expression: no `for` variable bound.
    pub(super) fn top(resolve: &'r dyn Fn(&str) -> Option<u32>) -> Scope<'r> {
        Scope {
            resolve,
            bound: Vec::new(),
        }
    }

    /// The scope inside a `for` binding `key_var` (if any) and `value_var`.
    fn inside(&self, key_var: Option<&Ident>, value_var: &Ident) -> Scope<'r> {
        let mut bound = Vec::with_capacity(self.bound.len() + 2);
        bound.extend(self.bound.iter().cloned());
        bound.extend(key_var.map(|k| k.name.clone()));
        bound.push(value_var.name.clone());
        Scope {
            resolve: self.resolve,
            bound,
        }
    }

    /// The `for` binding `name` is, innermost first (the tree walk's
    /// `lookup` searches its bindings from the last pushed).
    fn binding(&self, name: &str) -> Option<usize> {
        self.bound.iter().rposition(|n| **n == *name)
    }
}

pub(super) fn build(e: &Expr, scope: &Scope<'_>) -> Node {
    if foldable(e)
        && let Some(c) = fold(e)
    {
        return Node::Const(Box::new(c));
    }
    let sub = |x: &Expr| build(x, scope);
    match &e.kind {
        ExprKind::Variable(_) | ExprKind::GetAttr(..) | ExprKind::Index(..)
            if let Some((t, bound)) = traversal(e, scope) =>
        {
            if bound {
                Node::Bound(Box::new(t))
            } else {
                Node::Traversal(Box::new(t))
            }
        }
        ExprKind::Tuple(items) => Node::Tuple(items.iter().map(sub).collect()),
        ExprKind::Object(items) if let Some(o) = literal_object(items, scope) => {
            Node::LitObject(Box::new(o))
        }
        ExprKind::Object(items) => Node::Object(
            items
                .iter()
                .map(|it| ObjItem {
                    key: match &it.key {
                        // The constructor uses these keys as they are
                        // (`eval/constructors.rs`), without their node.
                        ObjectKey::Expr(k) if !plain_ascii_string(k) => Some(Box::new(sub(k))),
                        _ => None,
                    },
                    value: sub(&it.value),
                })
                .collect(),
        ),
        ExprKind::Template(t) => match t.parts.as_slice() {
            [TemplatePart::Interpolation(x)] => Node::Wrap(Box::new(sub(x))),
            _ => Node::Template(Box::new(template(t, scope))),
        },
        ExprKind::Parens(x) => Node::Wrap(Box::new(sub(x))),
        ExprKind::GetAttr(src, _) => Node::GetAttr(Box::new(sub(src))),
        ExprKind::Index(src, key) => Node::Index(Box::new([sub(src), sub(key)])),
        ExprKind::FuncCall {
            name,
            args,
            expand_final: false,
        } if &*name.name == "try" => Node::Try(Box::new(TryCall {
            args: args.iter().map(sub).collect(),
            probes: args.iter().map(|a| probes(a, scope)).collect(),
        })),
        ExprKind::FuncCall {
            name,
            args,
            expand_final: false,
        } if &*name.name == "can" && args.len() == 1 => Node::Can(Box::new(CanCall {
            arg: sub(&args[0]),
            probes: probes(&args[0], scope),
        })),
        ExprKind::FuncCall {
            name,
            args,
            expand_final: false,
        } if !matches!(&*name.name, "try" | "can" | "invoke") => {
            match fnhcl_functions::registry().get(&name.name) {
                // The argument count is fixed: a wrong one is an error
                // the general call reports, a right one is not checked
                // again.
                Some(def) if def.check_arity(args.len()).is_ok() => Node::Call(Box::new(Call {
                    def,
                    args: args.iter().map(sub).collect(),
                })),
                _ => Node::CallAny(args.iter().map(sub).collect()),
            }
        }
        ExprKind::FuncCall { args, .. } => Node::CallAny(args.iter().map(sub).collect()),
        ExprKind::Splat { source, each, .. } => Node::Splat(Box::new([sub(source), sub(each)])),
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => Node::Conditional(Box::new([sub(cond), sub(then), sub(otherwise)])),
        ExprKind::For(f) => {
            // Inside, the `for` variables hide any slot of the same name.
            let inside = scope.inside(f.key_var.as_ref(), &f.value_var);
            let inner = |x: &Expr| build(x, &inside);
            Node::For(Box::new(ForNode {
                collection: sub(&f.collection),
                key: f.key_expr.as_ref().map(inner),
                value: inner(&f.value_expr),
                cond: f.cond.as_ref().map(inner),
            }))
        }
        ExprKind::Unary(_, x) => Node::Unary(Box::new(sub(x))),
        ExprKind::Binary(_, a, b) => Node::Binary(Box::new([sub(a), sub(b)])),
        _ => Node::Ast,
    }
}

/// A template's parts compiled; a `%{for}` body with its variables
/// hiding slots of the same name.
fn template(t: &Template, scope: &Scope<'_>) -> TemplateNode {
    let parts = t
        .parts
        .iter()
        .map(|p| match p {
            TemplatePart::Literal(_) => TemplatePartNode::Literal,
            TemplatePart::Interpolation(x) => TemplatePartNode::Interpolation(build(x, scope)),
            TemplatePart::If(i) => TemplatePartNode::If {
                cond: build(&i.cond, scope),
                then: template(&i.then, scope),
                otherwise: i.otherwise.as_ref().map(|o| template(o, scope)),
            },
            TemplatePart::For(f) => {
                let TemplateFor {
                    key_var,
                    value_var,
                    collection,
                    body,
                    ..
                } = &**f;
                TemplatePartNode::For {
                    collection: build(collection, scope),
                    body: template(body, &scope.inside(key_var.as_ref(), value_var)),
                }
            }
        })
        .collect();
    TemplateNode {
        guess: crate::eval::template_guess(t),
        parts,
    }
}

/// An object constructor whose keys are all literal (what the tree walk
/// uses as they are, `crate::eval::literal_key`): the distinct keys
/// sorted once here, and each item's place among them.
fn literal_object(items: &[fnhcl_syntax::ast::ObjectItem], scope: &Scope<'_>) -> Option<LitObject> {
    let lits = items
        .iter()
        .map(|it| crate::eval::literal_key(&it.key))
        .collect::<Option<Vec<&fnhcl_value::Key>>>()?;
    // The items' indices in key order (`ObjMap`'s: the byte order of the
    // text, `str`'s `Ord`); equal keys end up next to each other.
    let mut order: Vec<usize> = (0..lits.len()).collect();
    order.sort_unstable_by(|&a, &b| lits[a].cmp(lits[b]));
    let mut keys: Vec<fnhcl_value::Key> = Vec::with_capacity(lits.len());
    let mut slots = vec![0u32; lits.len()].into_boxed_slice();
    for i in order {
        if keys.last().is_none_or(|k| k != lits[i]) {
            keys.push(lits[i].clone());
        }
        slots[i] = u32::try_from(keys.len() - 1).ok()?;
    }
    // Items written in key order, one per key (the usual `apiVersion`,
    // `kind`, `metadata`, `spec`): no slots, decided here once rather than
    // on every evaluation.
    let in_order = slots.iter().enumerate().all(|(i, &s)| s as usize == i);
    Some(LitObject {
        keys: keys.into_boxed_slice(),
        slots: if in_order { Box::default() } else { slots },
        values: items.iter().map(|it| build(&it.value, scope)).collect(),
    })
}

/// The root traversals of a `try`/`can` argument, compiled.
fn probes(e: &Expr, scope: &Scope<'_>) -> Box<[Probe]> {
    fnhcl_syntax::visit::traversals(e)
        .into_iter()
        .map(|t| Probe {
            expr: t.clone(),
            node: build(t, scope),
        })
        .collect()
}

/// Whether `e` is made of literals only (no variables, calls, templates
/// with interpolations or non-ASCII text, computed keys, `for`, splats):
/// its value does not depend on the context or on the limits, except
/// through the steps and nesting it costs.
fn foldable(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Null | ExprKind::Bool(_) | ExprKind::Number(_) => true,
        ExprKind::Template(t) => {
            matches!(t.parts.as_slice(), [TemplatePart::Literal(s)] if s.is_ascii())
        }
        ExprKind::Tuple(items) => items.iter().all(foldable),
        ExprKind::Object(items) => items.iter().all(|it| {
            let literal_key = match &it.key {
                ObjectKey::Ident(_) => true,
                ObjectKey::Expr(k) => matches!(&k.kind, ExprKind::Template(t)
                    if matches!(t.parts.as_slice(), [TemplatePart::Literal(s)] if s.is_ascii())),
            };
            literal_key && foldable(&it.value)
        }),
        ExprKind::Parens(x) | ExprKind::Unary(_, x) => foldable(x),
        ExprKind::Binary(_, a, b) => foldable(a) && foldable(b),
        _ => false,
    }
}

/// A key an object constructor takes as it is: a template of one ASCII
/// literal.
fn plain_ascii_string(k: &Expr) -> bool {
    matches!(&k.kind, ExprKind::Template(t)
        if matches!(t.parts.as_slice(), [TemplatePart::Literal(s)] if s.is_ascii()))
}

/// Nesting levels the tree walk enters for a [`foldable`] expression.
fn height(e: &Expr) -> usize {
    let below = match &e.kind {
        ExprKind::Tuple(items) => items.iter().map(height).max().unwrap_or(0),
        ExprKind::Object(items) => items.iter().map(|it| height(&it.value)).max().unwrap_or(0),
        ExprKind::Parens(x) | ExprKind::Unary(_, x) => height(x),
        ExprKind::Binary(_, a, b) => height(a).max(height(b)),
        _ => 0,
    };
    below + 1
}

/// The value of a [`foldable`] expression and the steps it costs, by the
/// tree walk itself; `None` when it has diagnostics (left to run time,
/// which gives them).
fn fold(e: &Expr) -> Option<Const> {
    // Leaves directly, as the tree walk's dispatch gives them (one step).
    let leaf = match &e.kind {
        ExprKind::Null => Some(Value::null()),
        ExprKind::Bool(b) => Some(Value::Bool(*b)),
        ExprKind::Number(text) => Some(Value::Number(Number::parse(text)?)),
        ExprKind::Template(_) => crate::eval::ascii_literal(e).map(|s| Value::String(s.clone())),
        _ => None,
    };
    if let Some(value) = leaf {
        return Some(Const {
            value,
            steps: 1,
            height: 1,
        });
    }
    let r = crate::evaluate_constant(e);
    if !r.diagnostics.is_empty() {
        return None;
    }
    Some(Const {
        value: r.value,
        steps: u32::try_from(r.steps).ok()?,
        height: u32::try_from(height(e)).ok()?,
    })
}

/// `root.a["b"][0]`: a root variable followed by attribute and literal-key
/// steps, all known at compile time; and whether the root is a `for`
/// variable (its slot is then its place among the bindings, [`Scope`]).
fn traversal(e: &Expr, scope: &Scope<'_>) -> Option<(Traversal, bool)> {
    let mut path = Vec::new();
    let mut steps = 1u32;
    let mut cur = e;
    loop {
        let sub = |src: &Expr| Span {
            file: cur.span.file,
            start: src.span.end,
            end: cur.span.end,
        };
        match &cur.kind {
            ExprKind::GetAttr(src, name) => {
                path.push(PathStep {
                    key: Key::Attr(name.name.clone()),
                    subject: sub(src),
                    context: cur.span,
                });
                steps = steps.checked_add(1)?;
                cur = src;
            }
            ExprKind::Index(src, key) if is_literal_key(key) && foldable(key) => {
                let k = fold(key)?;
                path.push(PathStep {
                    key: Key::Index(k.value),
                    subject: sub(src),
                    context: cur.span,
                });
                steps = steps.checked_add(1)?.checked_add(k.steps)?;
                cur = src;
            }
            ExprKind::Variable(id) => {
                path.reverse();
                let (slot, bound) = match scope.binding(&id.name) {
                    Some(i) => (Some(u32::try_from(i).ok()?), true),
                    None => ((scope.resolve)(&id.name), false),
                };
                return Some((
                    Traversal {
                        root: Root {
                            name: id.name.clone(),
                            slot,
                        },
                        height: u32::try_from(path.len() + 1).ok()?,
                        path: path.into_boxed_slice(),
                        steps,
                    },
                    bound,
                ));
            }
            _ => return None,
        }
    }
}
