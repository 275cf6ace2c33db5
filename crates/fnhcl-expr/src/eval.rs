//! The tree-walking evaluator. Each node returns its value and the
//! diagnostics produced while evaluating it (HCL decides per node which
//! child diagnostics to keep, e.g. a conditional keeps only the chosen
//! branch's).

use std::collections::BTreeMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap, Span};
use fnhcl_syntax::ast::{
    BinaryOp, Expr, ExprKind, ForExpr, Ident, ObjectKey, Template, TemplatePart, UnaryOp,
};
use fnhcl_value::{Key, Number, Type, Value};

use crate::conv;
use crate::ops::{self, Arith, Cmp};
use crate::suggest::name_suggestion;
use crate::{EvalContext, Evaluated};

type Diags = Vec<Diagnostic>;
type R = (Value, Diags);

fn has_errors(d: &[Diagnostic]) -> bool {
    d.iter().any(Diagnostic::is_error)
}

fn dynamic() -> Value {
    Value::dynamic_unknown()
}

/// Splits off the top-level mark.
fn unmark(v: Value) -> (Value, bool) {
    match v {
        Value::Marked(inner) => {
            let (i, _) = unmark((*inner).clone());
            (i, true)
        }
        v => (v, false),
    }
}

/// A branch of a conditional: an expression, or a template (`%{if}`).
#[derive(Clone, Copy)]
enum Branch<'e> {
    Expr(&'e Expr),
    Template(&'e Template, Span),
    /// `%{if}` without `%{else}`: the empty string.
    Empty(Span),
}

impl Branch<'_> {
    fn span(&self) -> Span {
        match self {
            Branch::Expr(e) => e.span,
            Branch::Template(_, s) | Branch::Empty(s) => *s,
        }
    }
}

pub(crate) struct Evaluator<'c, 'a> {
    ctx: &'c EvalContext<'a>,
    sources: Option<&'c SourceMap>,
    locals: Vec<(Arc<str>, Value)>,
    splat_items: Vec<Value>,
    steps: u64,
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
            depth: 0,
            aborted: false,
        }
    }

    pub(crate) fn run(mut self, e: &Expr) -> Evaluated {
        let (value, mut diagnostics) = self.eval(e);
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
        Evaluated {
            value,
            diagnostics,
            steps: self.steps,
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
            diags.push(self.error(
                "Evaluation limit exceeded",
                crate::INTERRUPTED_DETAIL,
                span,
                span,
            ));
            return false;
        }
        if self.steps > self.ctx.limits.max_steps {
            self.aborted = true;
            diags.push(self.error(
                "Evaluation limit exceeded",
                format!(
                    "Evaluating this expression took more than {} steps; simplify it or reduce the size of the data it works on.",
                    self.ctx.limits.max_steps
                ),
                span,
                span,
            ));
            return false;
        }
        true
    }

    pub(crate) fn eval(&mut self, e: &Expr) -> R {
        let mut diags = Vec::new();
        if !self.step(1, e.span, &mut diags) {
            return (dynamic(), diags);
        }
        if self.depth >= self.ctx.limits.max_depth {
            diags.push(self.error(
                "Expression too deeply nested",
                format!(
                    "Evaluation exceeded the nesting limit of {} levels.",
                    self.ctx.limits.max_depth
                ),
                e.span,
                e.span,
            ));
            return (dynamic(), diags);
        }
        self.depth += 1;
        let r = self.eval_inner(e);
        self.depth -= 1;
        r
    }

    /// Evaluates `exprs` in order: their values, and all their diagnostics.
    fn eval_each(&mut self, exprs: &[Expr]) -> (Vec<Value>, Diags) {
        let mut diags = Vec::new();
        let mut vals = Vec::with_capacity(exprs.len());
        for e in exprs {
            let (v, d) = self.eval(e);
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
                self.template(t, e.span)
            }
            ExprKind::Tuple(items) => {
                let (vals, diags) = self.eval_each(items);
                (Value::tuple(vals), diags)
            }
            ExprKind::Object(items) => self.object(items, e.span),
            ExprKind::Variable(id) => self.variable(id),
            ExprKind::GetAttr(src, name) => {
                let (v, mut diags) = self.eval(src);
                let step = Span {
                    file: e.span.file,
                    start: src.span.end,
                    end: e.span.end,
                };
                let r = match self.get_attr(v, &name.name, step, e.span) {
                    Ok(v) => v,
                    Err(d) => {
                        diags.push(d);
                        dynamic()
                    }
                };
                widen_chain_context(e, &mut diags);
                (r, diags)
            }
            ExprKind::Index(src, key) => {
                let (coll, mut diags) = self.eval(src);
                let (k, kd) = self.eval(key);
                diags.extend(kd);
                let step = Span {
                    file: e.span.file,
                    start: src.span.end,
                    end: e.span.end,
                };
                let r = match self.index(coll, k, step, e.span) {
                    Ok(v) => v,
                    Err(d) => {
                        diags.push(d);
                        dynamic()
                    }
                };
                if fnhcl_syntax::visit::is_literal_key(key) {
                    widen_chain_context(e, &mut diags);
                }
                (r, diags)
            }
            ExprKind::Splat { source, each, .. } => self.splat(source, each, e.span),
            ExprKind::SplatItem => (
                self.splat_items.last().cloned().unwrap_or_else(dynamic),
                Vec::new(),
            ),
            ExprKind::FuncCall {
                name,
                args,
                expand_final,
            } => self.call(name, args, *expand_final, e.span),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => self.conditional(cond, Branch::Expr(then), Branch::Expr(otherwise), e.span),
            ExprKind::Unary(op, x) => self.unary(*op, x, e.span),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span),
            ExprKind::For(f) => self.for_expr(f, e.span),
            ExprKind::Parens(x) => self.eval(x),
        }
    }

    // ---------------------------------------------------------------
    // Variables and traversal.

    fn lookup(&self, name: &str) -> Option<Value> {
        for (n, v) in self.locals.iter().rev() {
            if &**n == name {
                return Some(v.clone());
            }
        }
        self.ctx.vars.get(name)
    }

    fn variable(&mut self, id: &Ident) -> R {
        if let Some(v) = self.lookup(&id.name) {
            return (v, Vec::new());
        }
        let mut names: Vec<String> = self.ctx.vars.names();
        for (n, _) in &self.locals {
            names.push(n.to_string());
        }
        let suggestion = name_suggestion(&id.name, names.iter().map(String::as_str))
            .map(|s| format!(" Did you mean {s:?}?"))
            .unwrap_or_default();
        (
            dynamic(),
            vec![self.error(
                &format!("Unknown variable {:?}", &*id.name),
                format!("There is no variable named {:?}.{suggestion}", &*id.name),
                id.span,
                id.span,
            )],
        )
    }

    /// HCL's `GetAttr` (hcl/ops.go).
    fn get_attr(
        &self,
        obj: Value,
        name: &str,
        subject: Span,
        context: Span,
    ) -> Result<Value, Diagnostic> {
        let err =
            |summary: &str, detail: String| Err(self.error(summary, detail, subject, context));
        // Headlines name the attribute (D9); the detail is HCL's.
        let unsupported = format!("Unsupported attribute {name:?}");
        if obj.is_null() {
            return err(
                "Attempt to get attribute from null value",
                "This value is null, so it does not have any attributes.".into(),
            );
        }
        let (obj, marked) = unmark(obj);
        // Known objects (the common case, `req.composite.spec...`): look
        // the attribute up without computing the type of the whole value,
        // which costs as much as the value is big.
        if let Value::Object(vals) = &obj {
            return match vals.get(name) {
                Some(v) => Ok(v.clone().mark_if(marked)),
                None => err(
                    &unsupported,
                    format!("This object does not have an attribute named {name:?}."),
                ),
            };
        }
        let ty = obj.type_of();
        let out = match &ty {
            Type::Object(attrs) => {
                let Some(aty) = attrs.get(name) else {
                    return err(
                        &unsupported,
                        format!("This object does not have an attribute named {name:?}."),
                    );
                };
                match &obj {
                    Value::Object(vals) => vals
                        .get(name)
                        .cloned()
                        .unwrap_or_else(|| Value::Unknown(aty.clone())),
                    _ => Value::Unknown(aty.clone()),
                }
            }
            Type::Map(ety) => match &obj {
                Value::Map(m) => match m.items.get(name) {
                    Some(v) => v.clone(),
                    None => {
                        return err(
                            &format!("Missing map element {name:?}"),
                            format!("This map does not have an element with the key {name:?}."),
                        );
                    }
                },
                _ => Value::Unknown((**ety).clone()),
            },
            Type::Dynamic => dynamic(),
            Type::List(ety) | Type::Set(ety) if matches!(**ety, Type::Object(_)) => {
                let has = matches!(&**ety, Type::Object(a) if a.contains_key(name));
                let detail = match (matches!(ty, Type::List(_)), has) {
                    (true, true) => format!("Can't access attributes on a list of objects. Did you mean to access attribute {name:?} for a specific element of the list, or across all elements of the list?"),
                    (true, false) => "Can't access attributes on a list of objects. Did you mean to access an attribute for a specific element of the list, or across all elements of the list?".to_owned(),
                    (false, _) => "Can't access attributes on a set of objects. Did you mean to access an attribute across all elements of the set?".to_owned(),
                };
                return err(&unsupported, detail);
            }
            t if t.is_primitive() => {
                return err(
                    &unsupported,
                    format!(
                        "Can't access attributes on a primitive-typed value ({}).",
                        ty.friendly_name()
                    ),
                );
            }
            _ => {
                return err(
                    &unsupported,
                    "This value does not have any attributes.".into(),
                );
            }
        };
        Ok(out.mark_if(marked))
    }

    /// HCL's `Index` (hcl/ops.go).
    fn index(
        &self,
        coll: Value,
        key: Value,
        subject: Span,
        context: Span,
    ) -> Result<Value, Diagnostic> {
        let err =
            |summary: &str, detail: String| Err(self.error(summary, detail, subject, context));
        if coll.is_null() {
            return err(
                "Attempt to index null value",
                "This value is null, so it does not have any indices.".into(),
            );
        }
        if key.is_null() {
            return err(
                "Invalid index",
                "Can't use a null value as an indexing key.".into(),
            );
        }
        let (coll, cmarked) = unmark(coll);
        let (key, kmarked) = unmark(key);
        let marked = cmarked || kmarked;
        // Fast paths for an element that is there (no whole-value type):
        // an object by attribute name, a tuple or list by whole number.
        match (&coll, &key) {
            (Value::Object(vals), Value::String(s)) => {
                if let Some(v) = vals.get(&**s) {
                    return Ok(v.clone().mark_if(marked));
                }
            }
            (Value::Tuple(items), Value::Number(n)) if n.is_integer() && !n.is_negative() => {
                if let Some(v) = n.to_i64().and_then(|i| items.get(usize::try_from(i).ok()?)) {
                    return Ok(v.clone().mark_if(marked));
                }
            }
            _ => {}
        }
        let ty = coll.type_of();
        let kty = key.type_of();
        if kty == Type::Dynamic || ty == Type::Dynamic {
            return Ok(dynamic());
        }
        let generic = "The given key does not identify an element in this collection value.";
        match &ty {
            Type::List(_) | Type::Tuple(_) | Type::Map(_) => {
                let want = if matches!(ty, Type::Map(_)) { Type::String } else { Type::Number };
                let k = match conv::convert(&key, &want) {
                    Ok(k) => k,
                    Err(m) => {
                        return err(
                            "Invalid index",
                            format!("The given key does not identify an element in this collection value: {m}."),
                        );
                    }
                };
                // cty `HasIndex`: `None` when unknown.
                let seq_has = |n: &Number, len: usize| {
                    n.is_integer() && !n.is_negative() && n.to_i64().is_some_and(|i| (i as u64) < len as u64)
                };
                let has: Option<bool> = match (&ty, k.unmarked()) {
                    (_, Value::Unknown(_)) => None,
                    (Type::Tuple(es), Value::Number(n)) => Some(seq_has(n, es.len())),
                    (_, _) if !coll.is_known() => None,
                    (Type::List(_), Value::Number(n)) => {
                        Some(seq_has(n, coll.as_seq().map_or(0, <[Value]>::len)))
                    }
                    (Type::Map(_), Value::String(s)) => {
                        Some(coll.as_entries().is_some_and(|m| m.contains_key(&**s)))
                    }
                    _ => Some(false),
                };
                match has {
                    None => Ok(match &ty {
                        Type::List(e) | Type::Map(e) => Value::Unknown((**e).clone()),
                        _ => dynamic(),
                    }),
                    Some(false) => {
                        if let (Type::List(_) | Type::Tuple(_), Value::Number(n)) = (&ty, k.unmarked()) {
                            let detail = |m: &str| {
                                format!("The given key does not identify an element in this collection value: {m}.")
                            };
                            if !n.is_integer() && !n.is_infinite() {
                                return err(
                                    "Invalid index",
                                    detail("indexing a sequence requires a whole number, but the given index has a fractional part"),
                                );
                            }
                            if n.is_negative() {
                                return err(
                                    "Invalid index",
                                    detail("a negative number is not a valid index for a sequence"),
                                );
                            }
                            // HCL 2.14 compares `index - length < 1`, so
                            // this only fires for index == length (or an
                            // empty collection).
                            let len = match (&ty, coll.as_seq()) {
                                (Type::Tuple(es), _) => Some(es.len()),
                                (_, Some(items)) => Some(items.len()),
                                _ => None,
                            };
                            if let Some(len) = len.filter(|_| !cmarked)
                                && let Ok(diff) = n.sub(&Number::from_u64(len as u64))
                                && (diff.is_negative() || diff.is_zero())
                            {
                                let m = if len == 0 {
                                    "the collection has no elements"
                                } else {
                                    "the given index is greater than or equal to the length of the collection"
                                };
                                return err("Invalid index", detail(m));
                            }
                        }
                        err("Invalid index", generic.into())
                    }
                    Some(true) => {
                        let found = match (&coll, k.unmarked()) {
                            (Value::Map(m), Value::String(s)) => m.items.get(&**s).cloned(),
                            (Value::List(_) | Value::Tuple(_), Value::Number(n)) => n
                                .to_i64()
                                .and_then(|i| coll.as_seq().and_then(|it| it.get(i as usize)).cloned()),
                            (Value::Unknown(_), Value::Number(n)) => match &ty {
                                Type::Tuple(es) => n
                                    .to_i64()
                                    .and_then(|i| es.get(i as usize))
                                    .map(|t| Value::Unknown(t.clone())),
                                _ => None,
                            },
                            _ => None,
                        };
                        Ok(found.unwrap_or_else(dynamic).mark_if(marked))
                    }
                }
            }
            Type::Object(attrs) => {
                let k = match conv::convert(&key, &Type::String) {
                    Ok(k) => k,
                    Err(m) => {
                        return err(
                            "Invalid index",
                            format!("The given key does not identify an element in this collection value: {m}."),
                        );
                    }
                };
                if !coll.is_known() || !k.is_known() {
                    return Ok(dynamic());
                }
                let name = k.as_str().unwrap_or_default();
                if !attrs.contains_key(name) {
                    let hint = if kty == Type::Number {
                        " An object only supports looking up attributes by name, not by numeric index."
                    } else {
                        ""
                    };
                    return err("Invalid index", format!("{generic}{hint}"));
                }
                match &coll {
                    Value::Object(vals) => Ok(vals
                        .get(name)
                        .cloned()
                        .unwrap_or_else(dynamic)
                        .mark_if(marked)),
                    _ => Ok(dynamic().mark_if(marked)),
                }
            }
            Type::Set(_) => err(
                "Invalid index",
                "Elements of a set are identified only by their value and don't have any separate index or key to select with, so it's only possible to perform operations across all elements of the set.".into(),
            ),
            _ => err("Invalid index", "This value does not have any indices.".into()),
        }
    }

    // ---------------------------------------------------------------
    // Constructors.

    fn object(&mut self, items: &[fnhcl_syntax::ast::ObjectItem], _span: Span) -> R {
        let mut diags = Vec::new();
        let mut vals: BTreeMap<Key, Value> = BTreeMap::new();
        let mut known = true;
        let mut marked = false;
        for it in items {
            // Keys written as a name or a plain ASCII string (the usual
            // case) are used as they are.
            let literal_key = match &it.key {
                ObjectKey::Ident(id) => Some(&id.name),
                ObjectKey::Expr(k) => match &k.kind {
                    ExprKind::Template(t) => match t.parts.as_slice() {
                        [TemplatePart::Literal(s)] if s.is_ascii() => Some(s),
                        _ => None,
                    },
                    _ => None,
                },
            };
            if let Some(k) = literal_key {
                let (val, vd) = self.eval(&it.value);
                diags.extend(vd);
                vals.insert(k.clone(), val);
                continue;
            }
            let (key, kd, kspan) = match &it.key {
                ObjectKey::Ident(id) => (Value::string(id.name.clone()), Vec::new(), id.span),
                // A bare keyword key (`null`, `true`, `false`) is its name.
                ObjectKey::Expr(k) if matches!(k.kind, ExprKind::Null) => {
                    (Value::string("null"), Vec::new(), k.span)
                }
                ObjectKey::Expr(k) => {
                    let (v, d) = self.eval(k);
                    (v, d, k.span)
                }
            };
            let kerr = has_errors(&kd);
            diags.extend(kd);
            let (val, vd) = self.eval(&it.value);
            diags.extend(vd);
            if kerr {
                known = false;
                continue;
            }
            if key.is_null() {
                diags.push(self.error(
                    "Null value as key",
                    "Can't use a null value as a key.",
                    it.value.span,
                    kspan,
                ));
                known = false;
                continue;
            }
            let (key, km) = unmark(key);
            marked |= km;
            let key = match conv::convert(&key, &Type::String) {
                Ok(k) => k,
                Err(m) => {
                    diags.push(self.error(
                        "Incorrect key type",
                        format!("Can't use this value as a key: {m}."),
                        kspan,
                        kspan,
                    ));
                    known = false;
                    continue;
                }
            };
            match key.unmarked() {
                Value::String(s) => {
                    vals.insert(s.clone(), val);
                }
                _ => known = false,
            }
        }
        if !known {
            return (dynamic(), diags);
        }
        (Value::object(vals).mark_if(marked), diags)
    }

    // ---------------------------------------------------------------
    // Templates.

    fn template(&mut self, t: &Template, span: Span) -> R {
        let mut diags = Vec::new();
        // Room for the literal text and a short value per interpolation,
        // so the usual template allocates once.
        let guess = t.parts.iter().fold(0usize, |n, p| match p {
            TemplatePart::Literal(s) => n.saturating_add(s.len()),
            _ => n.saturating_add(16),
        });
        let mut buf = String::with_capacity(guess.min(4096));
        let mut known = true;
        let mut marked = false;
        for part in &t.parts {
            let (v, d, pspan) = match part {
                TemplatePart::Literal(s) => {
                    if !self.append_text(&mut buf, s, known, &mut diags, span) {
                        return (Value::Unknown(Type::String), diags);
                    }
                    continue;
                }
                TemplatePart::Interpolation(e) => {
                    let (v, d) = self.eval(e);
                    if let Value::String(s) = &v
                        && d.is_empty()
                    {
                        // The common case: a known, unmarked string.
                        if !self.append_text(&mut buf, s, known, &mut diags, e.span) {
                            return (Value::Unknown(Type::String), diags);
                        }
                        continue;
                    }
                    (v, d, e.span)
                }
                TemplatePart::If {
                    cond,
                    then,
                    otherwise,
                    span: ds,
                } => {
                    let t_b = Branch::Template(then, *ds);
                    let f_b = match otherwise {
                        Some(o) => Branch::Template(o, *ds),
                        None => Branch::Empty(*ds),
                    };
                    let (v, d) = self.conditional(cond, t_b, f_b, *ds);
                    (v, d, *ds)
                }
                TemplatePart::For {
                    key_var,
                    value_var,
                    collection,
                    body,
                    span: ds,
                } => {
                    let (v, d) =
                        self.template_for(key_var.as_ref(), value_var, collection, body, *ds);
                    (v, d, *ds)
                }
            };
            diags.extend(d);
            if v.is_null() {
                diags.push(self.error(
                    "Invalid template interpolation value",
                    "The expression result is null. Cannot include a null value in a string template.",
                    pspan,
                    pspan,
                ));
                continue;
            }
            let (v, m) = v.unmark_deep();
            marked |= m;
            if !v.is_known() {
                known = false;
                continue;
            }
            match conv::convert(&v, &Type::String) {
                Ok(s) => match s.as_str() {
                    Some(s) => {
                        if !self.append_text(&mut buf, s, known, &mut diags, pspan) {
                            return (Value::Unknown(Type::String), diags);
                        }
                    }
                    None => {
                        if known && !has_errors(&diags) {
                            known = false;
                        }
                    }
                },
                Err(m) => diags.push(self.error(
                    "Invalid template interpolation value",
                    format!("Cannot include the given value in a string template: {m}."),
                    pspan,
                    pspan,
                )),
            }
        }
        let v = if known {
            Value::string(nfc(buf))
        } else {
            Value::Unknown(Type::String)
        };
        (v.mark_if(marked), diags)
    }

    /// Appends `s` to a template's text, unless the text is already
    /// unknown or in error. False (with a diagnostic) when the text would
    /// grow past the string limit.
    fn append_text(
        &self,
        buf: &mut String,
        s: &str,
        known: bool,
        diags: &mut Diags,
        at: Span,
    ) -> bool {
        if known && !has_errors(diags) {
            if buf.len() + s.len() > self.ctx.limits.max_string_bytes {
                diags.push(self.too_large(at));
                return false;
            }
            buf.push_str(s);
        }
        true
    }

    fn too_large(&self, span: Span) -> Diagnostic {
        self.error(
            "Result too large",
            format!(
                "The result would be longer than the limit of {} bytes.",
                self.ctx.limits.max_string_bytes
            ),
            span,
            span,
        )
    }

    fn template_for(
        &mut self,
        key_var: Option<&Ident>,
        value_var: &Ident,
        collection: &Expr,
        body: &Template,
        span: Span,
    ) -> R {
        let (tuple, mut diags) = self.for_core(
            key_var,
            value_var,
            collection,
            None,
            Branch::Template(body, span),
            false,
            None,
            span,
        );
        let (tuple, marked) = tuple.unmark_deep();
        let items = match &tuple {
            Value::Tuple(items) => items.clone(),
            _ => return (Value::Unknown(Type::String).mark_if(marked), diags),
        };
        let mut buf = String::new();
        for v in items.iter() {
            if v.is_null() {
                diags.push(self.error(
                    "Invalid template interpolation value",
                    "An iteration result is null. Cannot include a null value in a string template.",
                    span,
                    span,
                ));
                continue;
            }
            if v.type_of() == Type::Dynamic {
                return (Value::Unknown(Type::String).mark_if(marked), diags);
            }
            match conv::convert(v, &Type::String) {
                Ok(s) => {
                    if !v.is_known() {
                        return (Value::Unknown(Type::String).mark_if(marked), diags);
                    }
                    if let Some(s) = s.as_str() {
                        if buf.len() + s.len() > self.ctx.limits.max_string_bytes {
                            diags.push(self.too_large(span));
                            return (Value::Unknown(Type::String), diags);
                        }
                        buf.push_str(s);
                    }
                }
                Err(m) => diags.push(self.error(
                    "Invalid template interpolation value",
                    format!("Cannot include one of the interpolation results into the string template: {m}."),
                    span,
                    span,
                )),
            }
        }
        (Value::string(nfc(buf)).mark_if(marked), diags)
    }

    fn eval_branch(&mut self, b: Branch<'_>) -> R {
        match b {
            Branch::Expr(e) => self.eval(e),
            Branch::Template(t, s) => self.template(t, s),
            Branch::Empty(_) => (Value::string(""), Vec::new()),
        }
    }

    // ---------------------------------------------------------------
    // Conditionals.

    fn conditional(&mut self, cond: &Expr, t: Branch<'_>, f: Branch<'_>, span: Span) -> R {
        let (tv, td) = self.eval_branch(t);
        let (fv, fd) = self.eval_branch(f);
        let mut diags = Vec::new();
        let tt = tv.type_of();
        let ft = fv.type_of();
        let untyped_null = |v: &Value| matches!(v.unmarked(), Value::Null(Type::Dynamic));
        // `conv_t`/`conv_f`: the type each branch must be converted to.
        let (result_ty, conv_t, conv_f) = if untyped_null(&tv) {
            (ft.clone(), Some(ft.clone()), None)
        } else if untyped_null(&fv) {
            (tt.clone(), None, Some(tt.clone()))
        } else if tt == Type::Dynamic || ft == Type::Dynamic {
            (Type::Dynamic, None, None)
        } else if tt == ft {
            // Already the same type: unification is the identity.
            (tt.clone(), None, None)
        } else {
            match conv::unify(&[tt.clone(), ft.clone()]) {
                Some(u) => {
                    let ct = (u != tt).then(|| u.clone());
                    let cf = (u != ft).then(|| u.clone());
                    (u, ct, cf)
                }
                None => {
                    let sub = t.span().to(f.span());
                    return (
                        dynamic(),
                        vec![self.error(
                            "Inconsistent conditional result types",
                            format!(
                                "The true and false result expressions must have consistent types. {}.",
                                describe_mismatch(&tt, &ft, 0)
                            ),
                            sub,
                            span,
                        )],
                    );
                }
            }
        };
        let (cv, cd) = self.eval(cond);
        diags.extend(cd);
        if cv.is_null() {
            diags.push(self.error(
                "Null condition",
                "The condition value is null. Conditions must either be true or false.",
                cond.span,
                cond.span,
            ));
            return (Value::Unknown(result_ty), diags);
        }
        // HCL 2.14: the condition's marks are not carried to the result.
        let (cv, _) = cv.unmark_deep();
        if !cv.is_known() {
            return (Value::Unknown(result_ty), diags);
        }
        let cb = match conv::convert(&cv, &Type::Bool) {
            Ok(Value::Bool(b)) => b,
            _ => {
                diags.push(self.error(
                    "Incorrect condition type",
                    "The condition expression must be of type bool.",
                    cond.span,
                    cond.span,
                ));
                return (Value::Unknown(result_ty), diags);
            }
        };
        let (v, d, conv_to, which, bspan) = if cb {
            (tv, td, conv_t, "true", t.span())
        } else {
            (fv, fd, conv_f, "false", f.span())
        };
        diags.extend(d);
        let v = match conv_to {
            Some(ty) => match conv::convert(&v, &ty) {
                Ok(v) => v,
                Err(m) => {
                    diags.push(self.error(
                        "Inconsistent conditional result types",
                        format!("The {which} result value has the wrong type: {m}."),
                        bspan,
                        bspan,
                    ));
                    Value::Unknown(result_ty)
                }
            },
            None => v,
        };
        (v, diags)
    }

    // ---------------------------------------------------------------
    // Operators.

    fn unary(&mut self, op: UnaryOp, x: &Expr, span: Span) -> R {
        let (v, mut diags) = self.eval(x);
        let want = match op {
            UnaryOp::Neg => Type::Number,
            UnaryOp::Not => Type::Bool,
        };
        let v = match conv::convert(&v, &want) {
            Ok(v) => v,
            Err(m) => {
                diags.push(self.error(
                    "Invalid operand",
                    format!("Unsuitable value for unary operand: {m}."),
                    x.span,
                    x.span,
                ));
                v
            }
        };
        if has_errors(&diags) {
            return (Value::Unknown(want), diags);
        }
        let (v, marked) = v.unmark_deep();
        if v.is_null() {
            diags.push(self.op_failed("argument must not be null", span));
            return (Value::Unknown(want), diags);
        }
        if !v.is_known() {
            return (Value::Unknown(want), diags);
        }
        let out = match (&v, op) {
            (Value::Number(n), UnaryOp::Neg) => Value::Number(n.neg()),
            (Value::Bool(b), UnaryOp::Not) => Value::Bool(!b),
            _ => Value::Unknown(want),
        };
        (out.mark_if(marked), diags)
    }

    fn op_failed(&self, msg: &str, span: Span) -> Diagnostic {
        self.error(
            "Operation failed",
            format!("Error during operation: {msg}."),
            span,
            span,
        )
    }

    fn binary(&mut self, op: BinaryOp, a: &Expr, b: &Expr, span: Span) -> R {
        let (av, ad) = self.eval(a);
        let (bv, bd) = self.eval(b);
        let mut diags = ad;
        diags.extend(bd);
        let (param, result) = match op {
            BinaryOp::Eq | BinaryOp::NotEq => (Type::Dynamic, Type::Bool),
            BinaryOp::And | BinaryOp::Or => (Type::Bool, Type::Bool),
            BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq => {
                (Type::Number, Type::Bool)
            }
            _ => (Type::Number, Type::Number),
        };
        let convert =
            |v: Value, side: &str, s: Span, diags: &mut Diags| match conv::convert(&v, &param) {
                Ok(v) => v,
                Err(m) => {
                    diags.push(self.error(
                        "Invalid operand",
                        format!("Unsuitable value for {side} operand: {m}."),
                        s,
                        s,
                    ));
                    v
                }
            };
        let av = convert(av, "left", a.span, &mut diags);
        let bv = convert(bv, "right", b.span, &mut diags);
        if has_errors(&diags) {
            return (Value::Unknown(result), diags);
        }
        let (av, am) = av.unmark_deep();
        let (bv, bm) = bv.unmark_deep();
        let marked = am || bm;
        if matches!(op, BinaryOp::Eq | BinaryOp::NotEq) {
            let r = match ops::equals(&av, &bv) {
                Some(eq) => Value::Bool(eq == (op == BinaryOp::Eq)),
                None => Value::Unknown(Type::Bool),
            };
            return (r.mark_if(marked), diags);
        }
        if av.is_null() || bv.is_null() {
            diags.push(self.op_failed("argument must not be null", span));
            return (Value::Unknown(result), diags);
        }
        if !av.is_known() || !bv.is_known() {
            // cty's call short-circuit returns the unknown without marks.
            return (Value::Unknown(result), diags);
        }
        let out = match (op, &av, &bv) {
            (BinaryOp::And, Value::Bool(x), Value::Bool(y)) => Value::Bool(*x && *y),
            (BinaryOp::Or, Value::Bool(x), Value::Bool(y)) => Value::Bool(*x || *y),
            (_, Value::Number(x), Value::Number(y)) => {
                let cmp = match op {
                    BinaryOp::Lt => Some(Cmp::Lt),
                    BinaryOp::LtEq => Some(Cmp::LtEq),
                    BinaryOp::Gt => Some(Cmp::Gt),
                    BinaryOp::GtEq => Some(Cmp::GtEq),
                    _ => None,
                };
                if let Some(c) = cmp {
                    Value::Bool(ops::compare(c, x, y))
                } else {
                    let ar = match op {
                        BinaryOp::Add => Arith::Add,
                        BinaryOp::Sub => Arith::Sub,
                        BinaryOp::Mul => Arith::Mul,
                        BinaryOp::Div => Arith::Div,
                        _ => Arith::Mod,
                    };
                    match ops::arith(ar, x, y) {
                        Ok(n) => Value::Number(n),
                        Err(m) => {
                            diags.push(self.op_failed(&m, span));
                            return (Value::Unknown(result), diags);
                        }
                    }
                }
            }
            _ => Value::Unknown(result),
        };
        (out.mark_if(marked), diags)
    }

    // ---------------------------------------------------------------
    // Splat and for.

    fn splat(&mut self, source: &Expr, each: &Expr, span: Span) -> R {
        let (sv, mut diags) = self.eval(source);
        if has_errors(&diags) {
            return (dynamic(), diags);
        }
        let sty = sv.type_of();
        let auto_upgrade = !matches!(sty, Type::Tuple(_) | Type::List(_) | Type::Set(_));
        if sv.is_null() {
            if auto_upgrade {
                return (ops::empty_tuple(), diags);
            }
            diags.push(self.error(
                "Splat of null value",
                "Splat expressions (with the * symbol) cannot be applied to null sequences.",
                source.span,
                source.span,
            ));
            return (dynamic(), diags);
        }
        if sty == Type::Dynamic {
            return (dynamic(), diags);
        }
        let upgraded_unknown = auto_upgrade && !sv.is_known();
        let sv = if auto_upgrade {
            Value::tuple(vec![sv])
        } else {
            sv
        };
        let sty = sv.type_of();
        if !sv.is_known() {
            let (ty, d) = self.splat_result_type(&sty, each);
            diags.extend(d);
            return (Value::Unknown(ty), diags);
        }
        let (sv, marked) = unmark(sv);
        let items: Vec<Value> = sv.as_seq().map(<[Value]>::to_vec).unwrap_or_default();
        if !self.step(items.len() as u64, span, &mut diags) {
            return (dynamic(), diags);
        }
        let mut vals = Vec::with_capacity(items.len());
        let mut ok = true;
        for it in items {
            self.splat_items.push(it);
            let (v, d) = self.eval(each);
            self.splat_items.pop();
            if has_errors(&d) {
                ok = false;
            }
            diags.extend(d);
            vals.push(v);
        }
        if upgraded_unknown {
            return (dynamic(), diags);
        }
        if !ok {
            let (ty, _) = self.splat_result_type(&sty, each);
            return (Value::Unknown(ty), diags);
        }
        match sty {
            Type::List(_) | Type::Set(_) => {
                if vals.is_empty() {
                    let (ty, d) = self.splat_result_type(&sty, each);
                    diags.extend(d);
                    let ety = ty.element_type().cloned().unwrap_or(Type::Dynamic);
                    return (Value::list(ety, Vec::new()), diags);
                }
                let tys: Vec<Type> = vals.iter().map(Value::type_of).collect();
                let ety = conv::unify(&tys).unwrap_or(Type::Dynamic);
                let vals: Vec<Value> = vals
                    .into_iter()
                    .map(|v| conv::convert(&v, &ety).unwrap_or(v))
                    .collect();
                (Value::list(ety, vals).mark_if(marked), diags)
            }
            _ => (Value::tuple(vals).mark_if(marked), diags),
        }
    }

    fn splat_result_type(&mut self, sty: &Type, each: &Expr) -> (Type, Diags) {
        match sty {
            Type::List(e) | Type::Set(e) => {
                self.splat_items.push(Value::Unknown((**e).clone()));
                let (v, d) = self.eval(each);
                self.splat_items.pop();
                (Type::list(v.type_of()), d)
            }
            Type::Tuple(es) => {
                let mut diags = Vec::new();
                let mut tys = Vec::with_capacity(es.len());
                for e in es.iter() {
                    self.splat_items.push(Value::Unknown(e.clone()));
                    let (v, d) = self.eval(each);
                    self.splat_items.pop();
                    diags.extend(d);
                    tys.push(v.type_of());
                }
                (Type::tuple(tys), diags)
            }
            _ => (Type::Dynamic, Vec::new()),
        }
    }

    fn for_expr(&mut self, f: &ForExpr, span: Span) -> R {
        self.for_core(
            f.key_var.as_ref(),
            &f.value_var,
            &f.collection,
            f.key_expr.as_ref(),
            Branch::Expr(&f.value_expr),
            f.grouping,
            f.cond.as_ref(),
            span,
        )
    }

    fn with_vars<T>(
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
    fn for_cond(
        &mut self,
        cond: &Expr,
        known: bool,
        marked: &mut bool,
        diags: &mut Diags,
    ) -> Result<bool, ()> {
        let (c, d) = self.eval(cond);
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

    fn for_core(
        &mut self,
        key_var: Option<&Ident>,
        value_var: &Ident,
        collection: &Expr,
        key_expr: Option<&Expr>,
        value: Branch<'_>,
        grouping: bool,
        cond: Option<&Expr>,
        span: Span,
    ) -> R {
        let (coll, mut diags) = self.eval(collection);
        if coll.is_null() {
            diags.push(self.error(
                "Iteration over null value",
                "A null value cannot be used as the collection in a 'for' expression.",
                collection.span,
                collection.span,
            ));
            return (dynamic(), diags);
        }
        let cty = coll.type_of();
        if cty == Type::Dynamic {
            return (dynamic(), diags);
        }
        if !matches!(
            cty,
            Type::List(_) | Type::Set(_) | Type::Map(_) | Type::Tuple(_) | Type::Object(_)
        ) {
            diags.push(self.error(
                "Iteration over non-iterable value",
                format!(
                    "A value of type {} cannot be used as the collection in a 'for' expression.",
                    cty.friendly_name()
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
        if let Some(c) = cond {
            let (r, d) = self.with_vars(key_var, dynamic(), value_var, dynamic(), |s| s.eval(c));
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
        if let Some(kx) = key_expr {
            let mut vals: BTreeMap<Key, Value> = BTreeMap::new();
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
                    let (kr, kd) = s.eval(kx);
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
                let Some(k) = key.as_str() else {
                    known = false;
                    continue;
                };
                let k: Key = Arc::from(k);
                if grouping {
                    groups.entry(k).or_default().push(val);
                } else {
                    match vals.entry(k) {
                        std::collections::btree_map::Entry::Occupied(o) => {
                            diags.push(self.error(
                                "Duplicate object key",
                                format!(
                                    "Two different items produced the key {:?} in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key.",
                                    &**o.key()
                                ),
                                kx.span,
                                kx.span,
                            ));
                        }
                        std::collections::btree_map::Entry::Vacant(slot) => {
                            slot.insert(val);
                        }
                    }
                }
            }
            if !known {
                return (dynamic(), diags);
            }
            if grouping {
                vals = groups
                    .into_iter()
                    .map(|(k, g)| (k, Value::tuple(g)))
                    .collect();
            }
            (Value::object(vals).mark_if(marked), diags)
        } else {
            let mut vals = Vec::new();
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
                    vals.push(v);
                }
            }
            if !known {
                return (dynamic(), diags);
            }
            (Value::tuple(vals).mark_if(marked), diags)
        }
    }

    // ---------------------------------------------------------------
    // Function calls.

    fn call(&mut self, name: &Ident, args: &[Expr], expand_final: bool, span: Span) -> R {
        let fname: &str = &name.name;
        if !self.ctx.functions {
            return (
                dynamic(),
                vec![self.error(
                    "Function calls not allowed",
                    "Functions may not be called here.",
                    span,
                    span,
                )],
            );
        }
        match fname {
            "try" if !expand_final => return self.call_try(args, span),
            "can" if !expand_final => return self.call_can(name, args, span),
            _ => {}
        }
        let def = fnhcl_functions::registry().get(fname);
        let is_invoke = fname == "invoke" && self.ctx.invoker.is_some();
        if def.is_none() && !is_invoke || (fname == "invoke" && self.ctx.invoker.is_none()) {
            return (dynamic(), vec![self.unknown_function(name, span)]);
        }
        if let Some(def) = def
            && !expand_final
            && !is_invoke
        {
            return self.call_builtin(def, fname, args, span);
        }
        let mut diags = Vec::new();
        // Argument values, with `...` expansion of the last one.
        let mut vals: Vec<(Value, Span, Span, Diags)> = Vec::with_capacity(args.len());
        let (plain, last) = if expand_final && !args.is_empty() {
            (&args[..args.len() - 1], args.last())
        } else {
            (args, None)
        };
        for a in plain {
            let (v, d) = self.eval(a);
            vals.push((v, start_range(a), a.span, d));
        }
        if let Some(x) = last {
            let (v, d) = self.eval(x);
            let bad = has_errors(&d);
            diags.extend(d);
            if bad {
                // HCL stops before evaluating the other arguments.
                return (dynamic(), diags);
            }
            let ty = v.type_of();
            let null_err = |s: &Self| {
                s.error(
                    "Invalid expanding argument value",
                    "The expanding argument (indicated by ...) must not be null.",
                    x.span,
                    x.span,
                )
            };
            match ty {
                Type::Dynamic => {
                    if v.is_null() {
                        diags.push(null_err(self));
                    }
                    return (dynamic(), diags);
                }
                Type::Tuple(_) | Type::List(_) | Type::Set(_) => {
                    if v.is_null() {
                        diags.push(null_err(self));
                        return (dynamic(), diags);
                    }
                    if !v.is_known() {
                        return (dynamic(), diags);
                    }
                    let (v, m) = unmark(v);
                    let items = v.as_seq().unwrap_or(&[]);
                    if items.len() > self.ctx.limits.max_collection_len {
                        diags.push(self.error(
                            "Result too large",
                            "Too many arguments after expansion.",
                            x.span,
                            span,
                        ));
                        return (dynamic(), diags);
                    }
                    for it in items {
                        vals.push((it.clone().mark_if(m), x.span, x.span, Vec::new()));
                    }
                }
                _ => {
                    diags.push(self.error(
                        "Invalid expanding argument value",
                        "The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
                        x.span,
                        x.span,
                    ));
                    return (dynamic(), diags);
                }
            }
        }
        if is_invoke {
            return self.finish_invoke(name, vals, diags, span);
        }
        let Some(def) = def else {
            return (dynamic(), vec![self.unknown_function(name, span)]);
        };
        if let Err((summary, detail)) = def.check_arity(vals.len()) {
            let extra = vals.get(def_param_count(def)).map(|a| a.1);
            let subject = arity_subject(summary, extra, span);
            let summary = format!("{summary} for {:?}", &*name.name);
            // HCL checks the arity before evaluating the arguments.
            diags.push(self.error(&summary, detail, subject, span));
            return (dynamic(), diags);
        }
        let mut argvals = Vec::with_capacity(vals.len());
        let mut spans = Vec::with_capacity(vals.len());
        for (v, s, f, d) in vals {
            diags.extend(d);
            argvals.push(v);
            spans.push((s, f));
        }
        self.charge_and_call(def, fname, &argvals, diags, span, || {
            spans.into_iter().unzip()
        })
    }

    /// Calls built-in `def` on evaluated arguments (unless `diags` already
    /// has errors), charging its work to the step budget. `spans` gives
    /// the arguments' (start, full) spans, needed only for an error.
    fn charge_and_call(
        &mut self,
        def: &fnhcl_functions::FuncDef,
        fname: &str,
        argvals: &[Value],
        mut diags: Diags,
        span: Span,
        spans: impl FnOnce() -> (Vec<Span>, Vec<Span>),
    ) -> R {
        if has_errors(&diags) {
            return (dynamic(), diags);
        }
        // Built-ins do work in proportion to the size of their arguments
        // and result, which expression nodes alone don't count: charge it,
        // so `length(big_string)` in a large loop hits the step limit
        // instead of running for hours.
        let remaining = self.ctx.limits.max_steps.saturating_sub(self.steps);
        let arg_cost = argvals
            .iter()
            .fold(0u64, |acc, v| acc.saturating_add(value_cost(v, remaining)));
        if !self.step(arg_cost, span, &mut diags) {
            return (dynamic(), diags);
        }
        match def.call(argvals) {
            Ok(v) => {
                let remaining = self.ctx.limits.max_steps.saturating_sub(self.steps);
                if !self.step(value_cost(&v, remaining), span, &mut diags) {
                    return (dynamic(), diags);
                }
                (v, diags)
            }
            Err(e) => {
                let (spans, full) = spans();
                diags.push(self.call_error(fname, &e, &spans, &full, span));
                (dynamic(), diags)
            }
        }
    }

    /// A built-in called without `...` expansion (the usual case): the
    /// general path of [`Self::call`] without its per-argument bookkeeping;
    /// spans for messages are worked out only on error.
    fn call_builtin(
        &mut self,
        def: &fnhcl_functions::FuncDef,
        fname: &str,
        args: &[Expr],
        span: Span,
    ) -> R {
        let (argvals, diags) = self.eval_each(args);
        if let Err((summary, detail)) = def.check_arity(args.len()) {
            let extra = args.get(def_param_count(def)).map(start_range);
            let subject = arity_subject(summary, extra, span);
            let summary = format!("{summary} for {fname:?}");
            // The arguments' own diagnostics are dropped, as HCL checks
            // the arity before evaluating them.
            return (dynamic(), vec![self.error(&summary, detail, subject, span)]);
        }
        self.charge_and_call(def, fname, &argvals, diags, span, || {
            (
                args.iter().map(start_range).collect(),
                args.iter().map(|a| a.span).collect(),
            )
        })
    }

    fn call_error(
        &self,
        fname: &str,
        e: &fnhcl_functions::CallError,
        spans: &[Span],
        full: &[Span],
        span: Span,
    ) -> Diagnostic {
        let start = Span {
            file: span.file,
            start: span.start,
            end: span.start + fname.len() as u32 + 1,
        };
        match e.arg {
            Some(i) => {
                let pname = fnhcl_functions::param_name(fname, i);
                match (pname, spans.get(i)) {
                    (Some(p), Some(s)) => self.error(
                        &format!("Invalid function argument for {fname:?}"),
                        format!("Invalid value for {p:?} parameter: {}.", e.message),
                        *s,
                        full.get(i).copied().unwrap_or(*s),
                    ),
                    (Some(p), None) => self.error(
                        &format!("Invalid function argument for {fname:?}"),
                        format!("Invalid value for {p:?} parameter: {}.", e.message),
                        span,
                        span,
                    ),
                    _ => self.error(
                        &format!("Error in function call to {fname:?}"),
                        format!("Call to function {fname:?} failed: {}.", e.message),
                        start,
                        span,
                    ),
                }
            }
            None => self.error(
                &format!("Error in function call to {fname:?}"),
                format!("Call to function {fname:?} failed: {}.", e.message),
                start,
                span,
            ),
        }
    }

    fn unknown_function(&self, name: &Ident, span: Span) -> Diagnostic {
        let fname: &str = &name.name;
        let mut avail: Vec<&str> = fnhcl_functions::registry()
            .iter()
            .map(|f| f.name)
            .filter(|n| *n != "invoke" || self.ctx.invoker.is_some())
            .collect();
        if self.ctx.invoker.is_some() && !avail.contains(&"invoke") {
            avail.push("invoke");
        }
        if let Some(sep) = fname.rfind("::") {
            let ns = &fname[..sep + 2];
            let short = &fname[sep + 2..];
            let in_ns: Vec<&str> = avail
                .iter()
                .copied()
                .filter(|a| a.starts_with(ns))
                .collect();
            if in_ns.is_empty() {
                return self.error(
                    &format!("Call to unknown function {fname:?}"),
                    format!("There are no functions in namespace {ns:?}."),
                    name.span,
                    span,
                );
            }
            let sugg = name_suggestion(short, in_ns.iter().map(|a| &a[ns.len()..]))
                .map(|s| format!(" Did you mean {ns}{s}?"))
                .unwrap_or_default();
            return self.error(
                &format!("Call to unknown function {fname:?}"),
                format!("There is no function named {short:?} in namespace {ns}.{sugg}"),
                name.span,
                span,
            );
        }
        let sugg = name_suggestion(fname, avail.iter().copied())
            .map(|s| format!(" Did you mean {s:?}?"))
            .unwrap_or_default();
        self.error(
            &format!("Call to unknown function {fname:?}"),
            format!("There is no function named {fname:?}.{sugg}"),
            name.span,
            span,
        )
    }

    fn finish_invoke(
        &mut self,
        name: &Ident,
        vals: Vec<(Value, Span, Span, Diags)>,
        mut diags: Diags,
        span: Span,
    ) -> R {
        if vals.len() != 2 {
            let (summary, detail, subject) = if vals.len() < 2 {
                let missing = if vals.is_empty() { "name" } else { "args" };
                (
                    "Not enough function arguments for \"invoke\"",
                    format!(
                        "Function \"invoke\" expects 2 argument(s). Missing value for {missing:?}."
                    ),
                    Span {
                        file: span.file,
                        start: span.end.saturating_sub(1),
                        end: span.end,
                    },
                )
            } else {
                (
                    "Too many function arguments for \"invoke\"",
                    "Function \"invoke\" expects only 2 argument(s).".to_owned(),
                    vals[2].1,
                )
            };
            // HCL checks the arity before evaluating the arguments.
            diags.push(self.error(summary, detail, subject, span));
            return (dynamic(), diags);
        }
        let mut argvals = Vec::new();
        let mut spans = Vec::new();
        let mut full = Vec::new();
        for (v, s, f, d) in vals {
            full.push(f);
            diags.extend(d);
            argvals.push(v);
            spans.push(s);
        }
        if has_errors(&diags) {
            return (dynamic(), diags);
        }
        self.run_invoke(name, argvals, spans, full, diags, span)
    }

    /// `invoke(name, args)`: cty calling convention for (string, any).
    fn run_invoke(
        &mut self,
        _name: &Ident,
        args: Vec<Value>,
        spans: Vec<Span>,
        full: Vec<Span>,
        mut diags: Diags,
        span: Span,
    ) -> R {
        let Some(inv) = self.ctx.invoker else {
            return (dynamic(), diags);
        };
        let fail = |s: &Self, p: &str, i: usize, m: &str| {
            s.error(
                "Invalid function argument for \"invoke\"",
                format!("Invalid value for {p:?} parameter: {m}."),
                spans.get(i).copied().unwrap_or(span),
                full.get(i).copied().unwrap_or(span),
            )
        };
        let (Some(a0), Some(a1)) = (args.first(), args.get(1)) else {
            return (dynamic(), diags);
        };
        let fname = match conv::convert(a0, &Type::String) {
            Ok(v) => v,
            Err(m) => {
                diags.push(fail(self, "name", 0, &m));
                return (dynamic(), diags);
            }
        };
        if fname.is_null() {
            diags.push(fail(self, "name", 0, "argument must not be null"));
            return (dynamic(), diags);
        }
        if a1.is_null() {
            diags.push(fail(self, "args", 1, "argument must not be null"));
            return (dynamic(), diags);
        }
        let (fname, m1) = fname.unmark_deep();
        let (a, m2) = a1.unmark_deep();
        if !fname.is_known() || !a.is_known() {
            return (dynamic(), diags);
        }
        let n = fname.as_str().unwrap_or_default().to_owned();
        match inv.invoke(&n, a) {
            Ok(v) => (v.mark_if(m1 || m2), diags),
            Err(msg) => {
                let start = Span {
                    file: span.file,
                    start: span.start,
                    end: span.start + "invoke(".len() as u32,
                };
                diags.push(self.error(
                    &format!("Error in function call to user function {n:?}"),
                    format!("Call to function \"invoke\" failed: {msg}."),
                    start,
                    span,
                ));
                (dynamic(), diags)
            }
        }
    }

    /// True if any root traversal of `e` is not wholly known (tryfunc's
    /// `dependsOnUnknowns`).
    fn depends_on_unknowns(&mut self, e: &Expr) -> bool {
        for t in fnhcl_syntax::visit::traversals(e) {
            let (v, d) = self.eval(t);
            if has_errors(&d) {
                continue;
            }
            if !v.is_wholly_known() {
                return true;
            }
        }
        false
    }

    fn call_try(&mut self, args: &[Expr], span: Span) -> R {
        let start = Span {
            file: span.file,
            start: span.start,
            end: span.start + 4,
        };
        if args.is_empty() {
            return (
                dynamic(),
                vec![self.error(
                    "Error in function call to \"try\"",
                    "Call to function \"try\" failed: at least one argument is required.",
                    start,
                    span,
                )],
            );
        }
        let mut all = Vec::new();
        for a in args {
            if self.depends_on_unknowns(a) {
                return (dynamic(), Vec::new());
            }
            let (v, d) = self.eval(a);
            if has_errors(&d) {
                all.extend(d);
                continue;
            }
            return (v, Vec::new());
        }
        let mut msg = String::from("no expression succeeded:\n");
        for d in &all {
            match (d.primary, self.sources) {
                (Some(p), Some(sm)) => msg.push_str(&format!(
                    "- {} (at {})\n  {}\n",
                    d.summary,
                    sm.range_text(p),
                    d.detail
                )),
                _ => msg.push_str(&format!("- {}\n  {}\n", d.summary, d.detail)),
            }
        }
        msg.push_str("\nAt least one expression must produce a successful result");
        (
            dynamic(),
            vec![self.error(
                "Error in function call to \"try\"",
                format!("Call to function \"try\" failed: {msg}."),
                start,
                span,
            )],
        )
    }

    fn call_can(&mut self, name: &Ident, args: &[Expr], span: Span) -> R {
        if args.len() != 1 {
            let (summary, detail, subject) = if args.is_empty() {
                (
                    "Not enough function arguments for \"can\"",
                    "Function \"can\" expects 1 argument(s). Missing value for \"expression\"."
                        .to_owned(),
                    Span {
                        file: span.file,
                        start: span.end.saturating_sub(1),
                        end: span.end,
                    },
                )
            } else {
                (
                    "Too many function arguments for \"can\"",
                    "Function \"can\" expects only 1 argument(s).".to_owned(),
                    args[1].span,
                )
            };
            let _ = name;
            return (dynamic(), vec![self.error(summary, detail, subject, span)]);
        }
        if self.depends_on_unknowns(&args[0]) {
            return (Value::Unknown(Type::Bool), Vec::new());
        }
        let (_, d) = self.eval(&args[0]);
        (Value::Bool(!has_errors(&d)), Vec::new())
    }
}

/// Where an arity error points: the first argument too many (`extra`),
/// or the closing parenthesis when arguments are missing.
fn arity_subject(summary: &str, extra: Option<Span>, span: Span) -> Span {
    match extra {
        Some(s) if summary == "Too many function arguments" => s,
        _ if summary == "Too many function arguments" => span,
        _ => Span {
            file: span.file,
            start: span.end.saturating_sub(1),
            end: span.end,
        },
    }
}

fn def_param_count(def: &fnhcl_functions::FuncDef) -> usize {
    let mut n = 0;
    while def.param_for(n).is_some() && n < 64 {
        n += 1;
    }
    n
}

/// cty normalises every string to NFC.
pub(crate) fn nfc(s: String) -> String {
    match fnhcl_value::nfc(&s) {
        std::borrow::Cow::Borrowed(_) => s,
        std::borrow::Cow::Owned(normalized) => normalized,
    }
}

/// The expression a chain of attribute / literal-index steps starts from.
fn chain_base(e: &Expr) -> &Expr {
    let mut cur = e;
    loop {
        match &cur.kind {
            ExprKind::GetAttr(src, _) => cur = src,
            ExprKind::Index(src, k) if fnhcl_syntax::visit::is_literal_key(k) => cur = src,
            _ => return cur,
        }
    }
}

/// HCL evaluates `a.b[0].c` as one traversal expression, so diagnostics
/// from its steps (and from the root variable lookup) have the whole
/// chain as their context ("Expression"); `e` is the chain's outermost
/// node when the recursion unwinds.
fn widen_chain_context(e: &Expr, diags: &mut Diags) {
    let base = chain_base(e);
    let root_var = matches!(base.kind, ExprKind::Variable(_));
    for d in diags.iter_mut() {
        if let Some(c) = d.context
            && c.file == e.span.file
            && c.start == e.span.start
            && c.end <= e.span.end
            && (c.end > base.span.end || root_var)
        {
            d.context = Some(e.span);
        }
    }
}

/// HCL's `StartRange` of an expression (used as the subject of argument
/// errors).
fn start_range(e: &Expr) -> Span {
    let at = |start: u32, len: u32| Span {
        file: e.span.file,
        start,
        end: (start + len).min(e.span.end.max(start)),
    };
    match &e.kind {
        ExprKind::Null
        | ExprKind::Bool(_)
        | ExprKind::Number(_)
        | ExprKind::Variable(_)
        | ExprKind::GetAttr(..)
        | ExprKind::SplatItem => e.span,
        ExprKind::Index(_, k) if fnhcl_syntax::visit::is_literal_key(k) => e.span,
        ExprKind::Index(src, _) => at(src.span.end, 1),
        ExprKind::Template(t) => match t.parts.first() {
            Some(TemplatePart::Interpolation(x)) if t.parts.len() == 1 => {
                let _ = x;
                e.span
            }
            Some(TemplatePart::Interpolation(x)) => start_range(x),
            Some(TemplatePart::Literal(l)) if !t.heredoc => at(e.span.start + 1, l.len() as u32),
            Some(TemplatePart::If { cond, .. }) => start_range(cond),
            Some(TemplatePart::For { span, .. }) => Span {
                file: span.file,
                start: span.start,
                end: span.start + 2,
            },
            _ => e.span,
        },
        ExprKind::Tuple(_) | ExprKind::Object(_) | ExprKind::For(_) | ExprKind::Parens(_) => {
            at(e.span.start, 1)
        }
        ExprKind::FuncCall { name, .. } => Span {
            file: e.span.file,
            start: name.span.start,
            end: name.span.end + 1,
        },
        ExprKind::Conditional { cond, .. } => start_range(cond),
        ExprKind::Unary(..) => at(e.span.start, 1),
        ExprKind::Binary(_, a, _) => start_range(a),
        ExprKind::Splat { source, full, .. } => at(source.span.end, if *full { 3 } else { 2 }),
    }
}

/// HCL's `describeConditionalTypeMismatch`.
fn describe_mismatch(t: &Type, f: &Type, depth: usize) -> String {
    if depth < 32 {
        match (t, f) {
            (Type::Object(ta), Type::Object(fa)) => {
                for (name, tty) in ta.iter() {
                    match fa.get(name) {
                        None => {
                            return format!(
                                "The 'true' value includes object attribute {name:?}, which is absent in the 'false' value"
                            );
                        }
                        Some(fty) if fty != tty => {
                            return format!(
                                "Type mismatch for object attribute {name:?}: {}",
                                describe_mismatch(tty, fty, depth + 1)
                            );
                        }
                        _ => {}
                    }
                }
                for name in fa.keys() {
                    if !ta.contains_key(name) {
                        return format!(
                            "The 'false' value includes object attribute {name:?}, which is absent in the 'true' value"
                        );
                    }
                }
            }
            (Type::Tuple(te), Type::Tuple(fe)) => {
                if te.len() != fe.len() {
                    return format!(
                        "The 'true' tuple has length {}, but the 'false' tuple has length {}",
                        te.len(),
                        fe.len()
                    );
                }
                for (i, (a, b)) in te.iter().zip(fe.iter()).enumerate() {
                    if a != b {
                        return format!(
                            "Mismatched tuple element types at index {i}: {}",
                            describe_mismatch(a, b, depth + 1)
                        );
                    }
                }
            }
            _ => {}
        }
    }
    format!(
        "The 'true' value is {}, but the 'false' value is {}",
        t.friendly_name(),
        f.friendly_name()
    )
}

/// Approximate work of reading or building `v`, in evaluation steps: one
/// per value and element, plus one per 16 bytes of string. Stops counting
/// past `budget` (the caller only needs to know the budget is exceeded).
pub(crate) fn value_cost<'a>(v: &'a Value, budget: u64) -> u64 {
    /// A scalar's cost, or `None` for a collection (or a marked value).
    fn scalar(v: &Value) -> Option<u64> {
        match v {
            Value::String(s) => Some(1 + s.len() as u64 / 16),
            Value::Null(_) | Value::Unknown(_) | Value::Bool(_) | Value::Number(_) => Some(1),
            _ => None,
        }
    }
    if let Some(c) = scalar(v) {
        return c;
    }
    // Scalar elements are counted as they are met; only nested
    // collections go on the stack (none for the usual flat object, so
    // no allocation).
    let mut total = 0u64;
    let mut stack: Vec<&'a Value> = Vec::new();
    let mut next = Some(v);
    while let Some(v) = next.or_else(|| stack.pop()) {
        next = None;
        if total > budget {
            break;
        }
        total += 1;
        let mut visit = |item: &'a Value| match scalar(item) {
            Some(c) => total += c,
            None => stack.push(item),
        };
        match v {
            Value::List(c) | Value::Set(c) => c.items.iter().for_each(&mut visit),
            Value::Map(m) => m.items.values().for_each(&mut visit),
            Value::Tuple(items) => items.iter().for_each(&mut visit),
            Value::Object(attrs) => attrs.values().for_each(&mut visit),
            Value::Marked(inner) => next = Some(inner),
            // A marked scalar's inner value comes here.
            Value::String(s) => total += s.len() as u64 / 16,
            _ => {}
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::value_cost;
    use fnhcl_value::{Key, Value};

    fn obj(items: Vec<(&str, Value)>) -> Value {
        Value::object(items.into_iter().map(|(k, v)| (Key::from(k), v)).collect())
    }

    #[test]
    fn value_cost_counts_every_value_and_string_bytes() {
        let long = "x".repeat(64);
        assert_eq!(value_cost(&Value::string("ab"), u64::MAX), 1);
        assert_eq!(value_cost(&Value::string(long.as_str()), u64::MAX), 5);
        // A flat object: itself, one per element, string bytes.
        let flat = obj(vec![
            ("a", Value::Bool(true)),
            ("b", Value::string(long.as_str())),
        ]);
        assert_eq!(value_cost(&flat, u64::MAX), 1 + 1 + 5);
        // Nested collections and marks count at every level, and a marked
        // string still counts its bytes.
        let nested = Value::tuple(vec![
            flat.clone(),
            Value::string(long.as_str()).mark(),
            Value::tuple(vec![Value::null()]),
        ]);
        assert_eq!(value_cost(&nested, u64::MAX), 1 + 7 + (1 + 5) + (1 + 1));
        // Counting stops once past the budget.
        let big = Value::tuple(vec![Value::tuple(vec![Value::Bool(true); 100]); 100]);
        assert!(value_cost(&big, 10) < 200);
        assert_eq!(value_cost(&big, u64::MAX), 1 + 100 * 101);
    }
}
