//! The functions the evaluator implements itself: `try` and `can`
//! (arguments evaluated lazily, errors caught) and `invoke` (user
//! functions through the caller's `Invoker`).

use fnhcl_base::Span;
use fnhcl_syntax::ast::{Expr, Ident};
use fnhcl_value::{Type, Value};

use super::{Diags, Evaluator, R, dynamic, has_errors};
use crate::compiled::node::{Node, Probe};
use crate::conv;

impl Evaluator<'_, '_> {
    pub(super) fn finish_invoke(
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
    pub(super) fn run_invoke(
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
    /// With `probes`, the traversals found and compiled at compile time.
    pub(super) fn depends_on_unknowns(&mut self, e: &Expr, probes: Option<&[Probe]>) -> bool {
        let unknown = |(v, d): R| !has_errors(&d) && !v.is_wholly_known();
        match probes {
            Some(probes) => probes
                .iter()
                .any(|p| unknown(self.eval_c(&p.node, &p.expr))),
            None => fnhcl_syntax::visit::traversals(e)
                .into_iter()
                .any(|t| unknown(self.eval(t))),
        }
    }

    /// `try(args...)`; `compiled` holds the arguments' nodes and probes.
    pub(super) fn call_try(
        &mut self,
        args: &[Expr],
        compiled: Option<(&[Node], &[Box<[Probe]>])>,
        span: Span,
    ) -> R {
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
        for (i, a) in args.iter().enumerate() {
            let probes = compiled.and_then(|(_, p)| p.get(i)).map(|p| &**p);
            if self.depends_on_unknowns(a, probes) {
                return (dynamic(), Vec::new());
            }
            let (v, d) = self.eval_sub(a, compiled.and_then(|(n, _)| n.get(i)));
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

    /// `can(x)`; `compiled` holds the argument's node and probes.
    pub(super) fn call_can(
        &mut self,
        name: &Ident,
        args: &[Expr],
        compiled: Option<(&Node, &[Probe])>,
        span: Span,
    ) -> R {
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
        if self.depends_on_unknowns(&args[0], compiled.map(|(_, p)| p)) {
            return (Value::Unknown(Type::Bool), Vec::new());
        }
        let (_, d) = self.eval_sub(&args[0], compiled.map(|(n, _)| n));
        (Value::Bool(!has_errors(&d)), Vec::new())
    }
}
