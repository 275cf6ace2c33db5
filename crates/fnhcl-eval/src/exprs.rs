//! The one place that calls the expression evaluator (`fnhcl-expr`).

use fnhcl_base::Diagnostic;
use fnhcl_syntax::ast::Expr;
use fnhcl_value::Value;

/// Variable lookup for one evaluation.
pub(crate) trait Vars {
    fn get(&self, name: &str) -> Option<Value>;
}

/// User-function calls (`invoke`).
pub(crate) trait Invoke {
    fn invoke(&self, name: &str, args: Value) -> Result<Value, String>;
}

/// Evaluates `expr`: the value (unknown on errors) and the diagnostics.
pub(crate) fn eval(expr: &Expr, vars: &dyn Vars, invoker: &dyn Invoke) -> (Value, Vec<Diagnostic>) {
    let _ = (vars, invoker);
    (
        Value::dynamic_unknown(),
        vec![
            Diagnostic::error(
                "expression evaluator not available",
                "fnhcl-expr has no evaluate() yet",
            )
            .with_span(expr.span),
        ],
    )
}
