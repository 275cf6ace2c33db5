//! `for` expressions (and `%{for}` in templates): iteration over lists,
//! sets, tuples, maps and objects, the `if` clause, key expressions and
//! grouping, the collection-size limit.

use std::collections::{BTreeMap, BTreeSet};

use fnhcl_base::Span;
use fnhcl_syntax::ast::{Expr, ForExpr, Ident};
use fnhcl_value::shape::{Shape, shape};
use fnhcl_value::{Key, Type, Value};

use super::{Branch, Diags, Evaluator, R, dynamic, has_errors, unmark};
use crate::compiled::node::{ForNode, Node};
use crate::conv;

impl Evaluator<'_, '_> {
    /// A `for` expression, with its parts' compiled nodes when given.
    pub(super) fn for_expr(&mut self, f: &ForExpr, nodes: Option<&ForNode>, span: Span) -> R {
        self.for_core(
            f.key_var.as_ref(),
            &f.value_var,
            (&f.collection, nodes.map(|n| &n.collection)),
            f.key_expr
                .as_ref()
                .map(|k| (k, nodes.and_then(|n| n.key.as_ref()))),
            Branch::Expr(&f.value_expr, nodes.map(|n| &n.value)),
            f.grouping,
            f.cond
                .as_ref()
                .map(|c| (c, nodes.and_then(|n| n.cond.as_ref()))),
            span,
        )
    }

    pub(super) fn with_vars<T>(
        &mut self,
        key_var: Option<&Ident>,
        k: Value,
        value_var: &Ident,
        v: Value,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let n = self.locals.len();
        if let Some(kv) = key_var {
            self.locals.push((kv.name.clone(), k));
        }
        self.locals.push((value_var.name.clone(), v));
        let r = f(self);
        self.locals.truncate(n);
        r
    }

    /// The `if` clause for one element: `Ok(include)` or `Err(())` when the
    /// element makes the result unknown (diagnostics already pushed).
    pub(super) fn for_cond(
        &mut self,
        (cond, cond_n): (&Expr, Option<&Node>),
        known: bool,
        marked: &mut bool,
        diags: &mut Diags,
    ) -> Result<bool, ()> {
        let (c, d) = self.eval_sub(cond, cond_n);
        diags.extend(d);
        if c.is_null() {
            if known {
                diags.push(self.error(
                    "Invalid 'for' condition",
                    "The value of the 'if' clause must not be null.",
                    cond.span,
                    cond.span,
                ));
            }
            return Err(());
        }
        let b = match conv::convert(&c, &Type::Bool) {
            Ok(b) => b,
            Err(m) => {
                if known {
                    diags.push(self.error(
                        "Invalid 'for' condition",
                        format!("The 'if' clause value is invalid: {m}."),
                        cond.span,
                        cond.span,
                    ));
                }
                return Err(());
            }
        };
        if !b.is_known() {
            return Err(());
        }
        let (b, m) = b.unmark_deep();
        *marked |= m;
        Ok(b.as_bool().unwrap_or(false))
    }

    pub(super) fn for_core(
        &mut self,
        key_var: Option<&Ident>,
        value_var: &Ident,
        (collection, collection_n): (&Expr, Option<&Node>),
        key_expr: Option<(&Expr, Option<&Node>)>,
        value: Branch<'_>,
        grouping: bool,
        cond: Option<(&Expr, Option<&Node>)>,
        span: Span,
    ) -> R {
        let (coll, mut diags) = self.eval_sub(collection, collection_n);
        if coll.is_null() {
            diags.push(self.error(
                "Iteration over null value",
                "A null value cannot be used as the collection in a 'for' expression.",
                collection.span,
                collection.span,
            ));
            return (dynamic(), diags);
        }
        // The checks need the outer kind of the collection's type only;
        // its whole type (a walk of every element) only for the message.
        let iterable = match shape(&coll) {
            Shape::Dynamic => return (dynamic(), diags),
            Shape::List(_) | Shape::Set(_) | Shape::Map(_) | Shape::Tuple(_) | Shape::Object(_) => {
                true
            }
            Shape::Bool | Shape::Number | Shape::String => false,
        };
        if !iterable {
            diags.push(self.error(
                "Iteration over non-iterable value",
                format!(
                    "A value of type {} cannot be used as the collection in a 'for' expression.",
                    coll.type_of().friendly_name()
                ),
                collection.span,
                collection.span,
            ));
            return (dynamic(), diags);
        }
        let (coll, mut marked) = unmark(coll);
        if !coll.is_known() {
            return (dynamic(), diags);
        }
        if let Some((c, c_n)) = cond {
            let (r, d) = self.with_vars(key_var, dynamic(), value_var, dynamic(), |s| {
                s.eval_sub(c, c_n)
            });
            let cerr = has_errors(&d);
            diags.extend(d);
            if r.is_null() {
                diags.push(self.error(
                    "Condition is null",
                    "The value of the 'if' clause must not be null.",
                    c.span,
                    c.span,
                ));
                return (dynamic(), diags);
            }
            if let Err(m) = conv::convert(&r, &Type::Bool) {
                diags.push(self.error(
                    "Invalid 'for' condition",
                    format!("The 'if' clause value is invalid: {m}."),
                    c.span,
                    c.span,
                ));
                return (dynamic(), diags);
            }
            if cerr {
                return (dynamic(), diags);
            }
        }
        let elems: Vec<(Value, Value)> = match &coll {
            Value::List(c) => c
                .items
                .iter()
                .enumerate()
                .map(|(i, v)| (Value::int(i as i64), v.clone()))
                .collect(),
            Value::Tuple(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (Value::int(i as i64), v.clone()))
                .collect(),
            Value::Set(c) => c.items.iter().map(|v| (v.clone(), v.clone())).collect(),
            Value::Map(m) => m
                .items
                .iter()
                .map(|(k, v)| (Value::string(k.clone()), v.clone()))
                .collect(),
            Value::Object(attrs) => attrs
                .iter()
                .map(|(k, v)| (Value::string(k.clone()), v.clone()))
                .collect(),
            _ => Vec::new(),
        };
        if !self.step(elems.len() as u64, span, &mut diags) {
            return (dynamic(), diags);
        }
        if elems.len() > self.ctx.limits.max_collection_len {
            diags.push(self.error(
                "Result too large",
                format!(
                    "The 'for' expression would produce more than {} elements.",
                    self.ctx.limits.max_collection_len
                ),
                span,
                span,
            ));
            return (dynamic(), diags);
        }
        let mut known = true;
        if let Some((kx, kx_n)) = key_expr {
            // Keys usually arrive in increasing order (a `for` over an
            // object or map): then a duplicate can only be the last key.
            // Once one arrives out of order, `seen` holds every key so far.
            let mut vals: Vec<(Key, Value)> = Vec::with_capacity(elems.len());
            let mut seen: Option<BTreeSet<Key>> = None;
            let mut groups: BTreeMap<Key, Vec<Value>> = BTreeMap::new();
            for (k, v) in elems {
                let r = self.with_vars(key_var, k, value_var, v, |s| {
                    let mut d = Vec::new();
                    if let Some(c) = cond {
                        match s.for_cond(c, known, &mut marked, &mut d) {
                            Err(()) => return (None, d, true),
                            Ok(false) => return (None, d, false),
                            Ok(true) => {}
                        }
                    }
                    let (kr, kd) = s.eval_sub(kx, kx_n);
                    d.extend(kd);
                    if kr.is_null() {
                        if known {
                            d.push(s.error(
                                "Invalid object key",
                                "Key expression in 'for' expression must not produce a null value.",
                                kx.span,
                                kx.span,
                            ));
                        }
                        return (None, d, true);
                    }
                    if !kr.is_known() {
                        return (None, d, true);
                    }
                    let key = match conv::convert(&kr, &Type::String) {
                        Ok(k) => k,
                        Err(m) => {
                            if known {
                                d.push(s.error(
                                    "Invalid object key",
                                    format!("The key expression produced an invalid result: {m}."),
                                    kx.span,
                                    kx.span,
                                ));
                            }
                            return (None, d, true);
                        }
                    };
                    let (key, km) = key.unmark_deep();
                    marked |= km;
                    let (val, vd) = s.eval_branch(value);
                    d.extend(vd);
                    (Some((key, val)), d, false)
                });
                let (item, d, unknown) = r;
                diags.extend(d);
                if unknown {
                    known = false;
                    continue;
                }
                let Some((key, val)) = item else { continue };
                // The key string's own text, shared.
                let Value::String(k) = key else {
                    known = false;
                    continue;
                };
                if !self.charge_bytes(element_bytes(&val), span, &mut diags) {
                    return (dynamic(), diags);
                }
                if grouping {
                    groups.entry(k).or_default().push(val);
                } else {
                    let duplicate = match (&mut seen, vals.last()) {
                        (Some(seen), _) => !seen.insert(k.clone()),
                        (None, None) => false,
                        (None, Some((last, _))) if **last < *k => false,
                        (None, Some(_)) => {
                            let mut all: BTreeSet<Key> =
                                vals.iter().map(|(k, _)| k.clone()).collect();
                            let duplicate = !all.insert(k.clone());
                            seen = Some(all);
                            duplicate
                        }
                    };
                    if duplicate {
                        diags.push(self.error(
                            "Duplicate object key",
                            format!(
                                "Two different items produced the key {:?} in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.",
                                &*k
                            ),
                            kx.span,
                            kx.span,
                        ));
                    } else {
                        vals.push((k, val));
                    }
                }
            }
            if !known {
                return (dynamic(), diags);
            }
            let vals: fnhcl_value::ObjMap = if grouping {
                groups
                    .into_iter()
                    .map(|(k, g)| (k, Value::tuple(g)))
                    .collect()
            } else {
                vals.into_iter().collect()
            };
            (Value::object(vals).mark_if(marked), diags)
        } else {
            let mut vals = Vec::with_capacity(elems.len());
            for (k, v) in elems {
                let (item, d, unknown) = self.with_vars(key_var, k, value_var, v, |s| {
                    let mut d = Vec::new();
                    if let Some(c) = cond {
                        match s.for_cond(c, known, &mut marked, &mut d) {
                            Err(()) => return (None, d, true),
                            Ok(false) => return (None, d, false),
                            Ok(true) => {}
                        }
                    }
                    let (val, vd) = s.eval_branch(value);
                    d.extend(vd);
                    (Some(val), d, false)
                });
                diags.extend(d);
                if unknown {
                    known = false;
                    continue;
                }
                if let Some(v) = item {
                    if !self.charge_bytes(element_bytes(&v), span, &mut diags) {
                        return (dynamic(), diags);
                    }
                    vals.push(v);
                }
            }
            if !known {
                return (dynamic(), diags);
            }
            (Value::tuple(vals).mark_if(marked), diags)
        }
    }
}

/// The bytes a `for` element costs: the slot it takes, and the slots of
/// the collection it is, when it is one (an object built by the body).
/// Strings and collections inside were counted when they were built, and a
/// value taken from a variable is shared, not copied.
fn element_bytes(v: &Value) -> u64 {
    const SLOT: u64 = 32;
    let len = match v {
        Value::List(c) | Value::Set(c) => c.items.len(),
        Value::Map(m) => m.items.len(),
        Value::Tuple(items) => items.len(),
        Value::Object(attrs) => attrs.len(),
        _ => 0,
    };
    SLOT.saturating_mul(len as u64 + 1)
}
