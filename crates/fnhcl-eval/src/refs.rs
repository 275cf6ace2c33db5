//! Static walks over expressions: variable references (traversals) and
//! function calls.

use std::sync::Arc;

use fnhcl_syntax::ast::{
    Expr, ExprKind, ObjectKey, Template, TemplateFor, TemplateIf, TemplatePart,
};

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
    walk(expr).out
}

/// [`traversals`] and every function call in `expr` (in source order,
/// outer calls first), from one walk.
pub(crate) fn traversals_and_calls(expr: &Expr) -> (Vec<Traversal<'_>>, Vec<&Expr>) {
    let w = walk(expr);
    (w.out, w.calls)
}

/// One walk of `expr` collects both its traversals and its calls.
fn walk(expr: &Expr) -> Walker<'_> {
    let mut w = Walker {
        bound: Vec::new(),
        out: Vec::new(),
        calls: Vec::new(),
    };
    fnhcl_syntax::visit::walk_expr(&mut w, expr);
    w
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
            ExprKind::Index(inner, key) if fnhcl_syntax::visit::is_literal_key(key) => {
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

/// The string of a literal string expression (`"abc"`).
pub(crate) use fnhcl_syntax::visit::literal_string;

struct Walker<'a> {
    bound: Vec<Arc<str>>,
    out: Vec<Traversal<'a>>,
    calls: Vec<&'a Expr>,
}

impl<'a> fnhcl_syntax::visit::Visitor<'a> for Walker<'a> {
    fn enter(&mut self, e: &'a Expr) -> bool {
        if let Some((root, first_attr)) = chain_root(e) {
            if !self.bound.iter().any(|b| **b == *root.name) {
                self.out.push(Traversal {
                    expr: e,
                    root,
                    first_attr,
                });
            }
            return false;
        }
        if let ExprKind::FuncCall { .. } = e.kind {
            self.calls.push(e);
        }
        true
    }
    fn bind(&mut self, var: &'a fnhcl_syntax::ast::Ident) {
        self.bound.push(var.name.clone());
    }
    fn unbind(&mut self, n: usize) {
        self.bound.truncate(self.bound.len().saturating_sub(n));
    }
}

/// Rewrites every `root.name` whose root is one of `roots` (and not a
/// variable bound by an enclosing `for`) into one variable named
/// `root.name`, in every expression of `body`. Module instances and
/// switches are looked up that way (`module.logs`, `switch.tier`), each
/// on its own, so reading one instance's exports never evaluates another.
pub(crate) fn rewrite_body(body: &mut fnhcl_syntax::ast::Body, roots: &[&str]) {
    let mut bound = Vec::new();
    rewrite_in_body(body, roots, &mut bound, 0);
}

fn rewrite_in_body(
    body: &mut fnhcl_syntax::ast::Body,
    roots: &[&str],
    bound: &mut Vec<Arc<str>>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for item in &mut body.items {
        match item {
            fnhcl_syntax::ast::Structure::Attribute(a) => {
                rewrite_expr(&mut a.expr, roots, bound, 0)
            }
            fnhcl_syntax::ast::Structure::Block(b) => {
                rewrite_in_body(&mut b.body, roots, bound, depth + 1);
            }
        }
    }
}

fn rewrite_expr(e: &mut Expr, roots: &[&str], bound: &mut Vec<Arc<str>>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    // `module.<instance>.<export>` is one variable too: reading one export
    // never evaluates the others.
    if let ExprKind::GetAttr(mid, export) = &e.kind
        && let ExprKind::GetAttr(inner, attr) = &mid.kind
        && let ExprKind::Variable(v) = &inner.kind
        && &*v.name == "module"
        && roots.contains(&"module")
        && !bound.contains(&v.name)
    {
        let name: Arc<str> = format!("module.{}.{}", attr.name, export.name).into();
        let span = v.span.to(export.span);
        e.kind = ExprKind::Variable(fnhcl_syntax::ast::Ident { name, span });
        return;
    }
    if let ExprKind::GetAttr(inner, attr) = &e.kind
        && let ExprKind::Variable(v) = &inner.kind
        && roots.contains(&&*v.name)
        && !bound.contains(&v.name)
    {
        let name: Arc<str> = format!("{}.{}", v.name, attr.name).into();
        let span = v.span.to(attr.span);
        e.kind = ExprKind::Variable(fnhcl_syntax::ast::Ident { name, span });
        return;
    }
    match &mut e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Number(_)
        | ExprKind::SplatItem
        | ExprKind::Variable(_) => {}
        ExprKind::Template(t) => rewrite_template(t, roots, bound, d),
        ExprKind::Tuple(items) => {
            for i in items {
                rewrite_expr(i, roots, bound, d);
            }
        }
        ExprKind::Object(items) => {
            for it in items {
                if let ObjectKey::Expr(k) = &mut it.key {
                    rewrite_expr(k, roots, bound, d);
                }
                rewrite_expr(&mut it.value, roots, bound, d);
            }
        }
        ExprKind::GetAttr(inner, _) => rewrite_expr(inner, roots, bound, d),
        ExprKind::Index(inner, key) => {
            rewrite_expr(inner, roots, bound, d);
            rewrite_expr(key, roots, bound, d);
        }
        ExprKind::Splat { source, each, .. } => {
            rewrite_expr(source, roots, bound, d);
            rewrite_expr(each, roots, bound, d);
        }
        ExprKind::FuncCall { args, .. } => {
            for a in args {
                rewrite_expr(a, roots, bound, d);
            }
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            rewrite_expr(cond, roots, bound, d);
            rewrite_expr(then, roots, bound, d);
            rewrite_expr(otherwise, roots, bound, d);
        }
        ExprKind::Unary(_, x) | ExprKind::Parens(x) => rewrite_expr(x, roots, bound, d),
        ExprKind::Binary(_, a, b) => {
            rewrite_expr(a, roots, bound, d);
            rewrite_expr(b, roots, bound, d);
        }
        ExprKind::For(f) => {
            rewrite_expr(&mut f.collection, roots, bound, d);
            let n = bound.len();
            if let Some(k) = &f.key_var {
                bound.push(k.name.clone());
            }
            bound.push(f.value_var.name.clone());
            if let Some(k) = &mut f.key_expr {
                rewrite_expr(k, roots, bound, d);
            }
            rewrite_expr(&mut f.value_expr, roots, bound, d);
            if let Some(c) = &mut f.cond {
                rewrite_expr(c, roots, bound, d);
            }
            bound.truncate(n);
        }
    }
}

fn rewrite_template(t: &mut Template, roots: &[&str], bound: &mut Vec<Arc<str>>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    for p in &mut t.parts {
        match p {
            TemplatePart::Literal(_) => {}
            TemplatePart::Interpolation(e) => rewrite_expr(e, roots, bound, d),
            TemplatePart::If(i) => {
                let TemplateIf {
                    cond,
                    then,
                    otherwise,
                    ..
                } = &mut **i;
                rewrite_expr(cond, roots, bound, d);
                rewrite_template(then, roots, bound, d);
                if let Some(o) = otherwise {
                    rewrite_template(o, roots, bound, d);
                }
            }
            TemplatePart::For(f) => {
                let TemplateFor {
                    key_var,
                    value_var,
                    collection,
                    body,
                    ..
                } = &mut **f;
                rewrite_expr(collection, roots, bound, d);
                let n = bound.len();
                if let Some(k) = key_var {
                    bound.push(k.name.clone());
                }
                bound.push(value_var.name.clone());
                rewrite_template(body, roots, bound, d);
                bound.truncate(n);
            }
        }
    }
}

/// The attribute names after a traversal's root, as far as they are plain
/// attribute steps (`a.b.c[0].d` → `b`, `c`).
pub(crate) fn attr_steps(e: &Expr) -> Vec<&fnhcl_syntax::ast::Ident> {
    let mut out = Vec::new();
    let mut cur = e;
    let mut depth = 0;
    loop {
        depth += 1;
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        match &cur.kind {
            ExprKind::GetAttr(inner, name) => {
                out.push(name);
                cur = inner;
            }
            ExprKind::Index(inner, _) => {
                out.clear();
                cur = inner;
            }
            _ => break,
        }
    }
    out.reverse();
    out
}
