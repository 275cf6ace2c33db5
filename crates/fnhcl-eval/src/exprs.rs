//! The one place that calls the expression evaluator (`fnhcl-expr`).

use std::cell::{Cell, RefCell};

use fnhcl_base::Diagnostic;
use fnhcl_expr::{Compiled, EvalContext, Limits};
use fnhcl_syntax::ast::Expr;
use fnhcl_value::Value;

pub(crate) use fnhcl_expr::{Invoker as Invoke, Variables as Vars};

/// The limits of one whole evaluation (one request): the expression
/// limits, with `max_steps` and `max_bytes` budgets shared by every
/// expression evaluated for the request rather than per-expression ones.
pub(crate) struct Budget {
    limits: Limits,
    left: Cell<u64>,
    /// What is left of `max_bytes`, shared the same way as the steps.
    bytes_left: Cell<u64>,
    /// The first resource-limit error seen (steps, nesting, result size):
    /// such an error makes the whole evaluation fail, even inside a local
    /// whose other errors would only be warnings.
    exceeded: RefCell<Option<Diagnostic>>,
    /// Evaluate the ASTs with the tree walk instead of the compiled
    /// expressions (the reference, for the differential test).
    pub(crate) tree_walk: bool,
}

/// Error summaries `fnhcl-expr` gives its resource-limit errors, and texts
/// of the built-ins' size-limit errors.
const LIMIT_SUMMARIES: &[&str] = &[
    "Evaluation limit exceeded",
    "Expression too deeply nested",
    "Result too large",
];
const LIMIT_DETAILS: &[&str] = &[
    "would be longer than the limit of",
    "the result would have more than",
    "width and precision must not exceed",
];

fn is_limit_error(d: &Diagnostic) -> bool {
    d.is_error()
        && (LIMIT_SUMMARIES.contains(&d.summary.as_str())
            || LIMIT_DETAILS.iter().any(|t| d.detail.contains(t)))
}

impl Budget {
    pub(crate) fn new(limits: Limits) -> Budget {
        Budget {
            left: Cell::new(limits.max_steps),
            bytes_left: Cell::new(limits.max_bytes),
            limits,
            exceeded: RefCell::new(None),
            tree_walk: false,
        }
    }

    /// Steps used so far.
    pub(crate) fn used(&self) -> u64 {
        self.limits.max_steps.saturating_sub(self.left.get())
    }

    /// The first resource-limit error of the evaluation, if any.
    pub(crate) fn exceeded(&self) -> Option<Diagnostic> {
        self.exceeded.borrow().clone()
    }
}

/// Evaluates `expr`: the value (unknown on errors) and the diagnostics.
pub(crate) fn eval(
    expr: &Compiled,
    vars: &dyn Vars,
    invoker: &dyn Invoke,
    budget: &Budget,
) -> (Value, Vec<Diagnostic>) {
    let limits = Limits {
        max_steps: budget.left.get(),
        max_bytes: budget.bytes_left.get(),
        ..budget.limits.clone()
    };
    let ctx = EvalContext {
        vars,
        invoker: Some(invoker),
        functions: true,
        limits: &limits,
    };
    let r = if budget.tree_walk {
        fnhcl_expr::evaluate(expr.ast(), &ctx)
    } else {
        fnhcl_expr::evaluate_compiled(expr, &ctx)
    };
    // Nested evaluations (locals forced, user functions called) have taken
    // their own steps off the budget meanwhile; take ours off what is left.
    let left = budget.left.get();
    let after = left.saturating_sub(r.steps);
    budget.left.set(after);
    budget
        .bytes_left
        .set(budget.bytes_left.get().saturating_sub(r.bytes));
    // Many small expressions never reach the interval inside `fnhcl-expr`:
    // the budget checks the interrupt whenever the steps of the whole
    // request cross a multiple of it. Stopping empties the budget, so every
    // later expression stops at its first step.
    if (left ^ after) >= fnhcl_expr::INTERRUPT_INTERVAL
        && let Some(interrupt) = &budget.limits.interrupt
        && !interrupt.check()
    {
        budget.left.set(0);
        if budget.exceeded.borrow().is_none() {
            *budget.exceeded.borrow_mut() = Some(
                Diagnostic::error("Evaluation limit exceeded", fnhcl_expr::INTERRUPTED_DETAIL)
                    .with_span(expr.span),
            );
        }
    }
    if budget.exceeded.borrow().is_none()
        && let Some(d) = r.diagnostics.iter().find(|d| is_limit_error(d))
    {
        *budget.exceeded.borrow_mut() = Some(d.clone());
    }
    (r.value, r.diagnostics)
}

/// Evaluates a constant expression: no variables, no functions (as for
/// user-function argument defaults).
pub(crate) fn eval_constant(expr: &Expr) -> (Value, Vec<Diagnostic>) {
    let r = fnhcl_expr::evaluate_constant(expr);
    (r.value, r.diagnostics)
}
