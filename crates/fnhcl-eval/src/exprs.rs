//! The one place that calls the expression evaluator (`fnhcl-expr`).

use fnhcl_base::Diagnostic;
use fnhcl_expr::{EvalContext, Limits, NoVariables};
use fnhcl_syntax::ast::Expr;
use fnhcl_value::Value;

pub(crate) use fnhcl_expr::{Invoker as Invoke, Variables as Vars};

/// Evaluates `expr`: the value (unknown on errors) and the diagnostics.
pub(crate) fn eval(expr: &Expr, vars: &dyn Vars, invoker: &dyn Invoke) -> (Value, Vec<Diagnostic>) {
    let limits = Limits::default();
    let ctx = EvalContext {
        vars,
        invoker: Some(invoker),
        functions: true,
        limits: &limits,
    };
    let r = fnhcl_expr::evaluate(expr, &ctx);
    (r.value, r.diagnostics)
}

/// Evaluates a constant expression: no variables, no functions (as for
/// user-function argument defaults).
pub(crate) fn eval_constant(expr: &Expr) -> (Value, Vec<Diagnostic>) {
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &NoVariables,
        invoker: None,
        functions: false,
        limits: &limits,
    };
    let r = fnhcl_expr::evaluate(expr, &ctx);
    (r.value, r.diagnostics)
}
