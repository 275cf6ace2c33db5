//! Static walks over expressions: variable references (traversals) and
//! function calls.

use std::sync::Arc;

use fnhcl_syntax::ast::{Expr, ExprKind, ObjectKey, Template, TemplatePart};

/// A variable reference: a root variable followed by attribute steps and
/// index steps with literal keys (what HCL calls a traversal).
pub(crate) struct Traversal<'a> {
    /// The whole traversal expression (`req.composite.spec`).
    pub expr: &'a Expr,
    /// The root variable's name and span.
    pub root: &'a fnhcl_syntax::ast::Ident,
    /// The first attribute step after the root, if any (`composite`).
    pub first_attr: Option<&'a fnhcl_syntax::ast::Ident>,
}

/// Maximum expression nesting the walkers follow (the parser limits
/// nesting too; this keeps the walkers safe on their own).
const MAX_DEPTH: usize = 512;

/// Every traversal in `expr`, in source order, except references to
/// variables bound by enclosing `for` expressions/directives.
pub(crate) fn traversals(expr: &Expr) -> Vec<Traversal<'_>> {
    let mut w = Walker {
        bound: Vec::new(),
        out: Vec::new(),
        calls: Vec::new(),
    };
    w.expr(expr, 0);
    w.out
}

/// Every function call in `expr`, in source order (outer calls first).
pub(crate) fn calls(expr: &Expr) -> Vec<&Expr> {
    let mut w = Walker {
        bound: Vec::new(),
        out: Vec::new(),
        calls: Vec::new(),
    };
    w.expr(expr, 0);
    w.calls
}

/// The root of a traversal chain: `Some((root, first_attr))` when `e` is a
/// variable followed only by attribute steps and literal index steps.
fn chain_root(e: &Expr) -> Option<(&fnhcl_syntax::ast::Ident, Option<&fnhcl_syntax::ast::Ident>)> {
    let mut cur = e;
    let mut first_attr = None;
    let mut depth = 0;
    loop {
        depth += 1;
        if depth > MAX_DEPTH {
            return None;
        }
        match &cur.kind {
            ExprKind::Variable(id) => return Some((id, first_attr)),
            ExprKind::GetAttr(inner, name) => {
                first_attr = Some(name);
                cur = inner;
            }
            ExprKind::Index(inner, key) if is_literal_key(key) => {
                // `x["name"]` counts as an attribute step for `self`/`each`
                // checks only when it is the first step; keep it simple and
                // report only real attribute steps.
                first_attr = None;
                cur = inner;
            }
            _ => return None,
        }
    }
}

fn is_literal_key(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::Null => true,
        ExprKind::Template(t) => !t.heredoc && literal_template(t).is_some(),
        _ => false,
    }
}

/// The text of a template made only of literal parts.
pub(crate) fn literal_template(t: &Template) -> Option<String> {
    let mut s = String::new();
    for p in &t.parts {
        match p {
            TemplatePart::Literal(l) => s.push_str(l),
            _ => return None,
        }
    }
    Some(s)
}

/// The string of a literal string expression (`"abc"`).
pub(crate) fn literal_string(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Template(t) => literal_template(t),
        ExprKind::Parens(inner) => literal_string(inner),
        _ => None,
    }
}

struct Walker<'a> {
    bound: Vec<Arc<str>>,
    out: Vec<Traversal<'a>>,
    calls: Vec<&'a Expr>,
}

impl<'a> Walker<'a> {
    fn expr(&mut self, e: &'a Expr, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let d = depth + 1;
        if let Some((root, first_attr)) = chain_root(e) {
            if !self.bound.iter().any(|b| **b == *root.name) {
                self.out.push(Traversal {
                    expr: e,
                    root,
                    first_attr,
                });
            }
            return;
        }
        match &e.kind {
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Number(_)
            | ExprKind::SplatItem
            | ExprKind::Variable(_) => {}
            ExprKind::Template(t) => self.template(t, d),
            ExprKind::Tuple(items) => {
                for i in items {
                    self.expr(i, d);
                }
            }
            ExprKind::Object(items) => {
                for it in items {
                    if let ObjectKey::Expr(k) = &it.key {
                        self.expr(k, d);
                    }
                    self.expr(&it.value, d);
                }
            }
            ExprKind::GetAttr(inner, _) => self.expr(inner, d),
            ExprKind::Index(inner, key) => {
                self.expr(inner, d);
                self.expr(key, d);
            }
            ExprKind::Splat { source, each, .. } => {
                self.expr(source, d);
                self.expr(each, d);
            }
            ExprKind::FuncCall { args, .. } => {
                self.calls.push(e);
                for a in args {
                    self.expr(a, d);
                }
            }
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond, d);
                self.expr(then, d);
                self.expr(otherwise, d);
            }
            ExprKind::Unary(_, x) | ExprKind::Parens(x) => self.expr(x, d),
            ExprKind::Binary(_, a, b) => {
                self.expr(a, d);
                self.expr(b, d);
            }
            ExprKind::For(f) => {
                self.expr(&f.collection, d);
                let n = self.bound.len();
                if let Some(k) = &f.key_var {
                    self.bound.push(k.name.clone());
                }
                self.bound.push(f.value_var.name.clone());
                if let Some(k) = &f.key_expr {
                    self.expr(k, d);
                }
                self.expr(&f.value_expr, d);
                if let Some(c) = &f.cond {
                    self.expr(c, d);
                }
                self.bound.truncate(n);
            }
        }
    }

    fn template(&mut self, t: &'a Template, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let d = depth + 1;
        for p in &t.parts {
            match p {
                TemplatePart::Literal(_) => {}
                TemplatePart::Interpolation(e) => self.expr(e, d),
                TemplatePart::If {
                    cond,
                    then,
                    otherwise,
                    ..
                } => {
                    self.expr(cond, d);
                    self.template(then, d);
                    if let Some(o) = otherwise {
                        self.template(o, d);
                    }
                }
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                    ..
                } => {
                    self.expr(collection, d);
                    let n = self.bound.len();
                    if let Some(k) = key_var {
                        self.bound.push(k.name.clone());
                    }
                    self.bound.push(value_var.name.clone());
                    self.template(body, d);
                    self.bound.truncate(n);
                }
            }
        }
    }
}
