//! Calls of built-in functions: argument evaluation and `...` expansion,
//! arity, charging the built-in's work to the step budget, error texts
//! (argument errors, unknown functions with "did you mean"). `try`, `can`
//! and `invoke` are dispatched to `intrinsics.rs`.

use fnhcl_base::{Diagnostic, Span};
use fnhcl_syntax::ast::{Expr, ExprKind, Ident, TemplatePart};
use fnhcl_value::Value;
use fnhcl_value::shape::{Shape, shape};

use super::{Diags, Evaluator, R, dynamic, has_errors, unmark};
use crate::compiled::node::Node;
use crate::suggest::name_suggestion;

impl Evaluator<'_, '_> {
    /// A function call, with its arguments' compiled nodes when given.
    pub(super) fn call(
        &mut self,
        name: &Ident,
        args: &[Expr],
        expand_final: bool,
        nodes: Option<&[Node]>,
        span: Span,
    ) -> R {
        let fname: &str = &name.name;
        if !self.ctx.functions {
            return self.calls_not_allowed(span);
        }
        match fname {
            "try" if !expand_final => return self.call_try(args, None, span),
            "can" if !expand_final => return self.call_can(name, args, None, span),
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
            return self.call_builtin(def, fname, args, nodes, span);
        }
        let node = |i: usize| nodes.and_then(|n| n.get(i));
        let mut diags = Vec::new();
        // Argument values, with `...` expansion of the last one.
        let mut vals: Vec<(Value, Span, Span, Diags)> = Vec::with_capacity(args.len());
        let (plain, last) = if expand_final && !args.is_empty() {
            (&args[..args.len() - 1], args.last())
        } else {
            (args, None)
        };
        for (i, a) in plain.iter().enumerate() {
            let (v, d) = self.eval_sub(a, node(i));
            vals.push((v, start_range(a), a.span, d));
        }
        if let Some(x) = last {
            let (v, d) = self.eval_sub(x, node(plain.len()));
            let bad = has_errors(&d);
            diags.extend(d);
            if bad {
                // HCL stops before evaluating the other arguments.
                return (dynamic(), diags);
            }
            // The outer kind of the value's type is enough (`type_of` of a
            // long tuple would type every element).
            let ty = match shape(&v) {
                Shape::Dynamic => Expand::Dynamic,
                Shape::Tuple(_) | Shape::List(_) | Shape::Set(_) => Expand::Sequence,
                _ => Expand::Other,
            };
            let null_err = |s: &Self| {
                s.error(
                    "Invalid expanding argument value",
                    "The expanding argument (indicated by ...) must not be null.",
                    x.span,
                    x.span,
                )
            };
            match ty {
                Expand::Dynamic => {
                    if v.is_null() {
                        diags.push(null_err(self));
                    }
                    return (dynamic(), diags);
                }
                Expand::Sequence => {
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
                Expand::Other => {
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
    pub(super) fn charge_and_call(
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
                // What the result is made of is built anew (one value per
                // step of its cost, 16 bytes each): its steps and bytes.
                let remaining = self.ctx.limits.max_steps.saturating_sub(self.steps);
                let cost = value_cost(&v, remaining);
                if !self.step(cost, span, &mut diags)
                    || !self.charge_bytes_only(
                        cost.saturating_mul(crate::BYTES_PER_STEP),
                        span,
                        &mut diags,
                    )
                {
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
    pub(super) fn call_builtin(
        &mut self,
        def: &fnhcl_functions::FuncDef,
        fname: &str,
        args: &[Expr],
        nodes: Option<&[Node]>,
        span: Span,
    ) -> R {
        self.builtin_call::<true>(def, fname, args, nodes, span)
    }

    /// [`Self::call_builtin`] of a compiled call (`Node::Call`), whose
    /// argument count was found right when it was compiled.
    pub(super) fn call_compiled(
        &mut self,
        def: &fnhcl_functions::FuncDef,
        fname: &str,
        args: &[Expr],
        nodes: &[Node],
        span: Span,
    ) -> R {
        self.builtin_call::<false>(def, fname, args, Some(nodes), span)
    }

    /// A built-in call without `...`; `CHECK_ARITY` is false where the
    /// argument count is known to be right.
    #[inline]
    fn builtin_call<const CHECK_ARITY: bool>(
        &mut self,
        def: &fnhcl_functions::FuncDef,
        fname: &str,
        args: &[Expr],
        nodes: Option<&[Node]>,
        span: Span,
    ) -> R {
        // Up to four arguments (nearly every call) are held on the stack.
        let mut inline: [Value; INLINE_ARGS];
        let heap: Vec<Value>;
        let mut diags = Vec::new();
        let argvals: &[Value] = if args.len() <= INLINE_ARGS {
            inline = std::array::from_fn(|_| Value::Bool(false));
            for (i, (a, slot)) in args.iter().zip(inline.iter_mut()).enumerate() {
                let (v, d) = self.eval_sub(a, nodes.and_then(|n| n.get(i)));
                if !d.is_empty() {
                    diags.extend(d);
                }
                *slot = v;
            }
            &inline[..args.len()]
        } else {
            (heap, diags) = self.eval_each(args, nodes);
            &heap
        };
        if CHECK_ARITY && let Err((summary, detail)) = def.check_arity(args.len()) {
            let extra = args.get(def_param_count(def)).map(start_range);
            let subject = arity_subject(summary, extra, span);
            let summary = format!("{summary} for {fname:?}");
            // The arguments' own diagnostics are dropped, as HCL checks
            // the arity before evaluating them.
            return (dynamic(), vec![self.error(&summary, detail, subject, span)]);
        }
        self.charge_and_call(def, fname, argvals, diags, span, || {
            (
                args.iter().map(start_range).collect(),
                args.iter().map(|a| a.span).collect(),
            )
        })
    }

    /// A call where functions are not available (argument defaults).
    pub(super) fn calls_not_allowed(&self, span: Span) -> R {
        (
            dynamic(),
            vec![self.error(
                "Function calls not allowed",
                "Functions may not be called here.",
                span,
                span,
            )],
        )
    }

    pub(super) fn call_error(
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

    pub(super) fn unknown_function(&self, name: &Ident, span: Span) -> Diagnostic {
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
}

/// Arguments of a built-in call held on the stack (more go in a `Vec`).
const INLINE_ARGS: usize = 4;

/// The outer kind of an expanding (`...`) argument's type.
enum Expand {
    Dynamic,
    Sequence,
    Other,
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
            Some(TemplatePart::If(i)) => start_range(&i.cond),
            Some(TemplatePart::For(f)) => Span {
                file: f.span.file,
                start: f.span.start,
                end: f.span.start + 2,
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

/// A scalar's cost, or `None` for a collection (or a marked value).
#[inline]
fn scalar_cost(v: &Value) -> Option<u64> {
    match v {
        Value::String(s) => Some(1 + s.len() as u64 / 16),
        Value::Null(_) | Value::Unknown(_) | Value::Bool(_) | Value::Number(_) => Some(1),
        _ => None,
    }
}

/// Approximate work of reading or building `v`, in evaluation steps: one
/// per value and element, plus one per 16 bytes of string. Stops counting
/// past `budget` (the caller only needs to know the budget is exceeded).
/// A scalar (most arguments and results) is counted inline.
#[inline]
fn value_cost(v: &Value, budget: u64) -> u64 {
    match scalar_cost(v) {
        Some(c) => c,
        None => collection_cost(v, budget),
    }
}

/// [`value_cost`] of a collection or a marked value.
fn collection_cost(v: &Value, budget: u64) -> u64 {
    // A flat collection (no collection or mark inside: the usual object
    // of a few attributes) is counted whole whatever the budget, in one
    // pass.
    // Plain loops over the slices (one compare and add per element).
    fn flat(items: &[Value]) -> Option<u64> {
        let mut total = 1u64;
        for item in items {
            total += scalar_cost(item)?;
        }
        Some(total)
    }
    fn flat_entries(entries: &[(fnhcl_value::Key, Value)]) -> Option<u64> {
        let mut total = 1u64;
        for (_, item) in entries {
            total += scalar_cost(item)?;
        }
        Some(total)
    }
    let counted = match v {
        Value::List(c) | Value::Set(c) => flat(&c.items),
        Value::Map(m) => flat_entries(m.items.as_slice()),
        Value::Tuple(items) => flat(items),
        Value::Object(attrs) => flat_entries(attrs.as_slice()),
        _ => None,
    };
    match counted {
        Some(c) => c,
        None => nested_cost(v, budget),
    }
}

/// [`value_cost`] of a collection with collections or marks inside, or
/// of a marked value.
fn nested_cost<'a>(v: &'a Value, budget: u64) -> u64 {
    let scalar = scalar_cost;
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
        // A flat collection is counted whole, as the general walk does
        // whatever the budget.
        assert_eq!(value_cost(&flat, 0), super::nested_cost(&flat, 0));
        let flat_list = Value::tuple(vec![Value::string(long.as_str()), Value::null()]);
        assert_eq!(value_cost(&flat_list, 0), 1 + 5 + 1);
        assert_eq!(value_cost(&flat_list, 0), super::nested_cost(&flat_list, 0));
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
