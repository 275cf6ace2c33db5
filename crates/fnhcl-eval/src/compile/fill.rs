//! The compiler borrows the parse tree while it checks and compiles, so
//! it compiles each attribute's expression without taking it
//! ([`fnhcl_expr::Compiled::with_slots_pending`]). Once every module is
//! compiled the tree is no longer needed: [`fill`] moves each expression
//! into the compiled expressions built from it (matched by span: an
//! attribute's expression has a span of its own), instead of a copy per
//! expression and the tree's drop.

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_expr::Compiled;
use fnhcl_syntax::ast::{Body, Expr, ExprKind, Structure};

use super::types::{
    Case, Child, Collection, Composite, ContextBlock, Export, ExportValue, Function, Group,
    Instance, Item, Module, Params, Ready, Requirement, Resource, Scope, Select, Switch, Template,
};

/// Deepest block nesting followed (the parsers accept less).
const MAX_DEPTH: usize = 128;

/// Moves the expressions of `bodies` into the pending compiled
/// expressions of `modules`. An error if one is left pending (a
/// compiled expression that is not an attribute's: a bug).
pub(super) fn fill(modules: &mut [Module], bodies: &mut [Body]) -> Result<(), Diagnostic> {
    let mut pending: Vec<&mut Compiled> = Vec::new();
    for m in modules.iter_mut() {
        module(m, &mut pending);
    }
    pending.retain(|c| c.is_pending());
    if pending.is_empty() {
        return Ok(());
    }
    pending.sort_by_key(|c| key(c.ast().span));
    for b in bodies.iter_mut() {
        body(b, &mut pending, 0);
    }
    if pending.iter().any(|c| c.is_pending()) {
        return Err(Diagnostic::error(
            "internal error: a compiled expression was not given its source",
            "",
        )
        .with_code(codes::PROGRAM));
    }
    Ok(())
}

fn key(s: Span) -> (u32, u32, u32) {
    (s.file.0, s.start, s.end)
}

fn body(b: &mut Body, pending: &mut [&mut Compiled], depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for item in &mut b.items {
        match item {
            Structure::Attribute(a) => attribute(&mut a.expr, pending),
            Structure::Block(inner) => body(&mut inner.body, pending, depth + 1),
        }
    }
}

/// Gives `e` to the compiled expressions of its span (the last takes it,
/// any other gets a copy).
fn attribute(e: &mut Expr, pending: &mut [&mut Compiled]) {
    let k = key(e.span);
    let from = pending.partition_point(|c| key(c.ast().span) < k);
    let to = from + pending[from..].partition_point(|c| key(c.ast().span) == k);
    let Some((last, rest)) = pending[from..to].split_last_mut() else {
        return;
    };
    for c in rest {
        if c.is_pending() {
            c.fill(e.clone());
        }
    }
    if last.is_pending() {
        let span = e.span;
        last.fill(std::mem::replace(
            e,
            Expr {
                kind: ExprKind::Null,
                span,
            },
        ));
    }
}

// The module tree, every compiled expression in it (the patterns name
// every field, so a new one cannot be missed).

fn module<'a>(m: &'a mut Module, out: &mut Vec<&'a mut Compiled>) {
    let Module {
        dir: _,
        top,
        items: its,
        functions,
        params: _,
        exports: exs,
        instances: _,
        instance_ids: _,
        switches: _,
        switch_ids: _,
        names: _,
        instance_count: _,
        dep_kinds: _,
    } = m;
    scope(top, out);
    items(its, out);
    for f in functions.values_mut() {
        let Function {
            name: _,
            args: _,
            scope: s,
            body,
        } = f;
        scope(s, out);
        out.push(body);
    }
    exports(exs, out);
}

fn scope<'a>(s: &'a mut Scope, out: &mut Vec<&'a mut Compiled>) {
    let Scope {
        id: _,
        locals,
        index: _,
    } = s;
    out.extend(locals.iter_mut().map(|l| &mut l.expr));
}

fn exports<'a>(es: &'a mut [Export], out: &mut Vec<&'a mut Compiled>) {
    for e in es {
        let Export {
            name: _,
            span: _,
            value,
        } = e;
        match value {
            ExportValue::Expr(c) => out.push(c),
            ExportValue::Resource(_) => {}
        }
    }
}

fn items<'a>(its: &'a mut [Item], out: &mut Vec<&'a mut Compiled>) {
    for it in its {
        match it {
            Item::Group(g) => {
                let Group {
                    condition,
                    scope: s,
                    items: inner,
                    names: _,
                } = g;
                out.extend(condition.as_mut().map(|c| &mut c.expr));
                scope(s, out);
                items(inner, out);
            }
            Item::Resource(r) => {
                let Resource {
                    name: _,
                    header: _,
                    condition,
                    optional: _,
                    policy: _,
                    scope: s,
                    body,
                    children: ch,
                } = r;
                out.extend(condition.as_mut().map(|c| &mut c.expr));
                scope(s, out);
                out.push(body);
                children(ch, out);
            }
            Item::Collection(c) => {
                let Collection {
                    base: _,
                    header: _,
                    condition,
                    optional: _,
                    policy: _,
                    scope: s,
                    for_each,
                    name,
                    children: ch,
                    template,
                } = &mut **c;
                out.extend(condition.as_mut().map(|c| &mut c.expr));
                scope(s, out);
                out.push(for_each);
                out.extend(name.as_mut());
                children(ch, out);
                let Template {
                    header: _,
                    scope: ts,
                    body,
                    children: tch,
                } = template;
                scope(ts, out);
                out.push(body);
                children(tch, out);
            }
            Item::Composite(c) => composite(c, out),
            Item::Context(c) => context(c, out),
            Item::Requirement(r) => {
                let Requirement {
                    name: _,
                    condition,
                    scope: s,
                    select,
                } = &mut **r;
                out.extend(condition.as_mut().map(|c| &mut c.expr));
                scope(s, out);
                let Select {
                    header: _,
                    api_version,
                    kind,
                    match_name,
                    match_labels,
                    namespace,
                } = select;
                out.push(api_version);
                out.push(kind);
                out.extend(match_name.as_mut());
                out.extend(match_labels.as_mut());
                out.extend(namespace.as_mut());
            }
            Item::Module(i) => {
                let Instance {
                    id: _,
                    name: _,
                    header: _,
                    module: _,
                    condition,
                    optional: _,
                    policy: _,
                    params,
                    names: _,
                } = i;
                out.extend(condition.as_mut().map(|c| &mut c.expr));
                match params {
                    Params::Named(list) => out.extend(list.iter_mut().map(|(_, c)| c)),
                    Params::Object(c) => out.push(c),
                }
            }
            Item::Switch(sw) => {
                let Switch {
                    id: _,
                    name: _,
                    header: _,
                    cases,
                    export_names: _,
                    names: _,
                } = sw;
                for c in cases {
                    let Case {
                        name: _,
                        condition,
                        scope: s,
                        items: inner,
                        exports: exs,
                    } = c;
                    out.extend(condition.as_mut().map(|c| &mut c.expr));
                    scope(s, out);
                    items(inner, out);
                    exports(exs, out);
                }
            }
        }
    }
}

fn children<'a>(ch: &'a mut [Child], out: &mut Vec<&'a mut Compiled>) {
    for c in ch {
        match c {
            Child::Composite(c) => composite(c, out),
            Child::Context(c) => context(c, out),
            Child::Ready(r) => {
                let Ready { scope: s, value } = r;
                scope(s, out);
                out.push(value);
            }
        }
    }
}

fn composite<'a>(c: &'a mut Composite, out: &mut Vec<&'a mut Compiled>) {
    let Composite {
        kind: _,
        scope: s,
        body,
        condition,
    } = c;
    out.extend(condition.as_mut().map(|c| &mut c.expr));
    scope(s, out);
    out.push(body);
}

fn context<'a>(c: &'a mut ContextBlock, out: &mut Vec<&'a mut Compiled>) {
    let ContextBlock {
        scope: s,
        key,
        value,
    } = c;
    scope(s, out);
    out.push(key);
    out.push(value);
}
