//! Read-only walks over expressions.

use crate::ast::*;

/// Every root-variable traversal in `expr`, like HCL's `Variables()`:
/// the outermost chain that starts at a [`ExprKind::Variable`] and
/// continues with attribute steps and index steps whose key is a literal
/// (number, bool, null or plain string). Returned in source order. Names
/// bound by an enclosing `for` expression or `%{for}` directive are
/// excluded.
pub fn traversals(expr: &Expr) -> Vec<&Expr> {
    let mut t = Traversals {
        bound: Vec::new(),
        out: Vec::new(),
    };
    walk_expr(&mut t, expr);
    t.out
}

/// The root variable of a static traversal (`req.composite["x"][0]` →
/// `req`), or `None` if `expr` is not a variable followed by attribute and
/// literal-key index steps.
pub fn traversal_root(expr: &Expr) -> Option<&Ident> {
    match &expr.kind {
        ExprKind::Variable(i) => Some(i),
        ExprKind::GetAttr(src, _) => traversal_root(src),
        ExprKind::Index(src, k) if is_literal_key(k) => traversal_root(src),
        _ => None,
    }
}

/// True if `e` is a literal usable as a static traversal key.
pub fn is_literal_key(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::Null => true,
        ExprKind::Template(t) => {
            !t.heredoc
                && t.parts
                    .iter()
                    .all(|p| matches!(p, TemplatePart::Literal(_)))
        }
        _ => false,
    }
}

/// The text of a template made only of literal parts (`"abc"`), else `None`.
pub fn literal_text(t: &Template) -> Option<String> {
    let mut s = String::new();
    for p in &t.parts {
        match p {
            TemplatePart::Literal(l) => s.push_str(l),
            _ => return None,
        }
    }
    Some(s)
}

/// The text of a string literal made only of literal parts (`"abc"`, also
/// in parentheses), else `None`.
pub fn literal_string(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Template(t) => literal_text(t),
        ExprKind::Parens(inner) => literal_string(inner),
        _ => None,
    }
}

/// Calls `f` on every block of `body` and of the blocks nested in it, in
/// source order (outer before inner).
pub fn each_block<'b>(body: &'b Body, f: &mut dyn FnMut(&'b Block)) {
    for s in &body.items {
        if let Structure::Block(b) = s {
            f(b);
            each_block(&b.body, f);
        }
    }
}

/// What a walk over an expression ([`walk_expr`]) does at each node.
/// The walk visits every sub-expression in source order and knows HCL's
/// scoping: the variables of a `for` expression or `%{for}` directive are
/// bound around its body (not its collection).
pub trait Visitor<'a> {
    /// Called on `e` before its sub-expressions; `false` skips them.
    fn enter(&mut self, e: &'a Expr) -> bool;
    /// A `for` binds `var` (key variable first, then value variable).
    fn bind(&mut self, _var: &'a Ident) {}
    /// The last `n` bound variables go out of scope.
    fn unbind(&mut self, _n: usize) {}
}

/// Guard against pathological nesting (the parser already limits it).
const MAX_DEPTH: usize = 1024;

/// Walks `e` and everything in it (see [`Visitor`]).
pub fn walk_expr<'a>(v: &mut impl Visitor<'a>, e: &'a Expr) {
    walk(v, e, 0)
}

/// Walks the interpolations and directives of a template.
pub fn walk_template<'a>(v: &mut impl Visitor<'a>, t: &'a Template) {
    template(v, t, 0)
}

fn walk<'a>(v: &mut impl Visitor<'a>, e: &'a Expr, depth: usize) {
    if depth > MAX_DEPTH || !v.enter(e) {
        return;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Number(_)
        | ExprKind::Variable(_)
        | ExprKind::SplatItem => {}
        ExprKind::Template(t) => template(v, t, d),
        ExprKind::Tuple(items) => items.iter().for_each(|i| walk(v, i, d)),
        ExprKind::Object(items) => {
            for it in items {
                if let ObjectKey::Expr(k) = &it.key {
                    walk(v, k, d);
                }
                walk(v, &it.value, d);
            }
        }
        ExprKind::GetAttr(src, _) => walk(v, src, d),
        ExprKind::Index(src, k) => {
            walk(v, src, d);
            walk(v, k, d);
        }
        ExprKind::Splat { source, each, .. } => {
            walk(v, source, d);
            walk(v, each, d);
        }
        ExprKind::FuncCall { args, .. } => args.iter().for_each(|a| walk(v, a, d)),
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            walk(v, cond, d);
            walk(v, then, d);
            walk(v, otherwise, d);
        }
        ExprKind::Unary(_, x) | ExprKind::Parens(x) => walk(v, x, d),
        ExprKind::Binary(_, a, b) => {
            walk(v, a, d);
            walk(v, b, d);
        }
        ExprKind::For(f) => {
            walk(v, &f.collection, d);
            let n = bind(v, f.key_var.as_ref(), &f.value_var);
            if let Some(k) = &f.key_expr {
                walk(v, k, d);
            }
            walk(v, &f.value_expr, d);
            if let Some(c) = &f.cond {
                walk(v, c, d);
            }
            v.unbind(n);
        }
    }
}

fn bind<'a>(v: &mut impl Visitor<'a>, key: Option<&'a Ident>, value: &'a Ident) -> usize {
    if let Some(k) = key {
        v.bind(k);
    }
    v.bind(value);
    1 + usize::from(key.is_some())
}

fn template<'a>(v: &mut impl Visitor<'a>, t: &'a Template, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let d = depth + 1;
    for p in &t.parts {
        match p {
            TemplatePart::Literal(_) => {}
            TemplatePart::Interpolation(e) => walk(v, e, d),
            TemplatePart::If(i) => {
                let TemplateIf {
                    cond,
                    then,
                    otherwise,
                    ..
                } = &**i;
                walk(v, cond, d);
                template(v, then, d);
                if let Some(o) = otherwise {
                    template(v, o, d);
                }
            }
            TemplatePart::For(f) => {
                let TemplateFor {
                    key_var,
                    value_var,
                    collection,
                    body,
                    ..
                } = &**f;
                walk(v, collection, d);
                let n = bind(v, key_var.as_ref(), value_var);
                template(v, body, d);
                v.unbind(n);
            }
        }
    }
}

/// Collects the traversals of an expression that are not `for` variables.
struct Traversals<'a> {
    bound: Vec<&'a str>,
    out: Vec<&'a Expr>,
}

impl<'a> Visitor<'a> for Traversals<'a> {
    fn enter(&mut self, e: &'a Expr) -> bool {
        let Some(root) = traversal_root(e) else {
            return true;
        };
        if !self.bound.contains(&&*root.name) {
            self.out.push(e);
        }
        false
    }
    fn bind(&mut self, var: &'a Ident) {
        self.bound.push(&var.name);
    }
    fn unbind(&mut self, n: usize) {
        self.bound.truncate(self.bound.len().saturating_sub(n));
    }
}
