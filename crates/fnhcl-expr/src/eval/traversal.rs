//! Variables and traversals: root-name lookup (with `for`-bound names),
//! attribute access and indexing (HCL's `GetAttr`/`Index`), splats, and
//! the widening of a diagnostic's context to the whole traversal.

use fnhcl_base::{Diagnostic, Span};
use fnhcl_syntax::ast::{Expr, ExprKind, Ident};
use fnhcl_value::{Number, Type, Value};

use super::{Diags, Evaluator, R, dynamic, has_errors, unmark};
use crate::compiled::node::Node;
use crate::conv;
use crate::ops;
use crate::suggest::name_suggestion;

impl Evaluator<'_, '_> {
    /// `src.name` (`e`), its source evaluated through its compiled node
    /// when there is one: the tree walk and the compiled walk share it.
    pub(super) fn get_attr_node(
        &mut self,
        e: &Expr,
        src: &Expr,
        name: &Ident,
        src_n: Option<&Node>,
    ) -> R {
        let (v, mut diags) = self.eval_sub(src, src_n);
        let r = match self.get_attr(v, &name.name, step_span(e, src), e.span) {
            Ok(v) => v,
            Err(d) => {
                diags.push(d);
                dynamic()
            }
        };
        widen_chain_context(e, &mut diags);
        (r, diags)
    }

    /// `src[key]` (`e`), its parts evaluated through their compiled nodes
    /// when there are some.
    pub(super) fn index_node(
        &mut self,
        e: &Expr,
        src: &Expr,
        key: &Expr,
        nodes: Option<&[Node; 2]>,
    ) -> R {
        let (coll, mut diags) = self.eval_sub(src, nodes.map(|n| &n[0]));
        let (k, kd) = self.eval_sub(key, nodes.map(|n| &n[1]));
        diags.extend(kd);
        let r = match self.index(coll, k, step_span(e, src), e.span) {
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

    pub(super) fn lookup(&self, name: &str) -> Option<Value> {
        for (n, v) in self.locals.iter().rev() {
            if &**n == name {
                return Some(v.clone());
            }
        }
        self.ctx.vars.get(name)
    }

    pub(super) fn variable(&mut self, id: &Ident) -> R {
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
    pub(super) fn get_attr(
        &self,
        obj: Value,
        name: &str,
        subject: Span,
        context: Span,
    ) -> Result<Value, Diagnostic> {
        let err =
            |summary: &str, detail: String| Err(self.error(summary, detail, subject, context));
        // Headlines name the attribute (D9); the detail is HCL's. Built
        // only on error: this runs for every `.name` step.
        let unsupported = || format!("Unsupported attribute {name:?}");
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
                    &unsupported(),
                    format!("This object does not have an attribute named {name:?}."),
                ),
            };
        }
        let ty = obj.type_of();
        let out = match &ty {
            Type::Object(attrs) => {
                let Some(aty) = attrs.get(name) else {
                    return err(
                        &unsupported(),
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
                return err(&unsupported(), detail);
            }
            t if t.is_primitive() => {
                return err(
                    &unsupported(),
                    format!(
                        "Can't access attributes on a primitive-typed value ({}).",
                        ty.friendly_name()
                    ),
                );
            }
            _ => {
                return err(
                    &unsupported(),
                    "This value does not have any attributes.".into(),
                );
            }
        };
        Ok(out.mark_if(marked))
    }

    /// HCL's `Index` (hcl/ops.go).
    pub(super) fn index(
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

    /// A splat, with the compiled nodes of its source and of the
    /// expression applied to each element when given.
    pub(super) fn splat(
        &mut self,
        source: &Expr,
        each: &Expr,
        nodes: Option<&[Node; 2]>,
        span: Span,
    ) -> R {
        let each_n = nodes.map(|n| &n[1]);
        let (sv, mut diags) = self.eval_sub(source, nodes.map(|n| &n[0]));
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
            let (ty, d) = self.splat_result_type(&sty, (each, each_n));
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
            let (v, d) = self.eval_sub(each, each_n);
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
            let (ty, _) = self.splat_result_type(&sty, (each, each_n));
            return (Value::Unknown(ty), diags);
        }
        match sty {
            Type::List(_) | Type::Set(_) => {
                if vals.is_empty() {
                    let (ty, d) = self.splat_result_type(&sty, (each, each_n));
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

    pub(super) fn splat_result_type(
        &mut self,
        sty: &Type,
        (each, each_n): (&Expr, Option<&Node>),
    ) -> (Type, Diags) {
        match sty {
            Type::List(e) | Type::Set(e) => {
                self.splat_items.push(Value::Unknown((**e).clone()));
                let (v, d) = self.eval_sub(each, each_n);
                self.splat_items.pop();
                (Type::list(v.type_of()), d)
            }
            Type::Tuple(es) => {
                let mut diags = Vec::new();
                let mut tys = Vec::with_capacity(es.len());
                for e in es.iter() {
                    self.splat_items.push(Value::Unknown(e.clone()));
                    let (v, d) = self.eval_sub(each, each_n);
                    self.splat_items.pop();
                    diags.extend(d);
                    tys.push(v.type_of());
                }
                (Type::tuple(tys), diags)
            }
            _ => (Type::Dynamic, Vec::new()),
        }
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
pub(super) fn widen_chain_context(e: &Expr, diags: &mut Diags) {
    if diags.is_empty() {
        // The usual case; finding the chain's base walks the chain.
        return;
    }
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

/// HCL's subject for an error in a traversal step: from the end of its
/// source to the end of the step.
pub(super) fn step_span(e: &Expr, src: &Expr) -> Span {
    Span {
        file: e.span.file,
        start: src.span.end,
        end: e.span.end,
    }
}
