//! Read-only walks over expressions.

use crate::ast::*;

/// Every root-variable traversal in `expr`, like HCL's `Variables()`:
/// the outermost chain that starts at a [`ExprKind::Variable`] and
/// continues with attribute steps and index steps whose key is a literal
/// (number, bool, null or plain string). Returned in source order. Names
/// bound by an enclosing `for` expression or `%{for}` directive are
/// excluded.
pub fn traversals(expr: &Expr) -> Vec<&Expr> {
    let mut out = Vec::new();
    let mut bound: Vec<&str> = Vec::new();
    collect(expr, &mut bound, &mut out, 0);
    out
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

/// Guard against pathological nesting (the parser already limits it).
const MAX_DEPTH: usize = 10_000;

fn collect<'a>(e: &'a Expr, bound: &mut Vec<&'a str>, out: &mut Vec<&'a Expr>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(root) = traversal_root(e) {
        if !bound.contains(&&*root.name) {
            out.push(e);
        }
        return;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Number(_)
        | ExprKind::Variable(_)
        | ExprKind::SplatItem => {}
        ExprKind::Template(t) => collect_template(t, bound, out, d),
        ExprKind::Tuple(items) => {
            for i in items {
                collect(i, bound, out, d);
            }
        }
        ExprKind::Object(items) => {
            for it in items {
                if let ObjectKey::Expr(k) = &it.key {
                    collect(k, bound, out, d);
                }
                collect(&it.value, bound, out, d);
            }
        }
        ExprKind::GetAttr(src, _) => collect(src, bound, out, d),
        ExprKind::Index(src, k) => {
            collect(src, bound, out, d);
            collect(k, bound, out, d);
        }
        ExprKind::Splat { source, each, .. } => {
            collect(source, bound, out, d);
            collect(each, bound, out, d);
        }
        ExprKind::FuncCall { args, .. } => {
            for a in args {
                collect(a, bound, out, d);
            }
        }
        ExprKind::Conditional {
            cond,
            then,
            otherwise,
        } => {
            collect(cond, bound, out, d);
            collect(then, bound, out, d);
            collect(otherwise, bound, out, d);
        }
        ExprKind::Unary(_, x) | ExprKind::Parens(x) => collect(x, bound, out, d),
        ExprKind::Binary(_, a, b) => {
            collect(a, bound, out, d);
            collect(b, bound, out, d);
        }
        ExprKind::For(f) => {
            collect(&f.collection, bound, out, d);
            let n = bound.len();
            if let Some(k) = &f.key_var {
                bound.push(&k.name);
            }
            bound.push(&f.value_var.name);
            if let Some(k) = &f.key_expr {
                collect(k, bound, out, d);
            }
            collect(&f.value_expr, bound, out, d);
            if let Some(c) = &f.cond {
                collect(c, bound, out, d);
            }
            bound.truncate(n);
        }
    }
}

fn collect_template<'a>(
    t: &'a Template,
    bound: &mut Vec<&'a str>,
    out: &mut Vec<&'a Expr>,
    depth: usize,
) {
    for p in &t.parts {
        match p {
            TemplatePart::Literal(_) => {}
            TemplatePart::Interpolation(e) => collect(e, bound, out, depth),
            TemplatePart::If {
                cond,
                then,
                otherwise,
                ..
            } => {
                collect(cond, bound, out, depth);
                collect_template(then, bound, out, depth + 1);
                if let Some(o) = otherwise {
                    collect_template(o, bound, out, depth + 1);
                }
            }
            TemplatePart::For {
                key_var,
                value_var,
                collection,
                body,
                ..
            } => {
                collect(collection, bound, out, depth);
                let n = bound.len();
                if let Some(k) = key_var {
                    bound.push(&k.name);
                }
                bound.push(&value_var.name);
                collect_template(body, bound, out, depth + 1);
                bound.truncate(n);
            }
        }
    }
}
