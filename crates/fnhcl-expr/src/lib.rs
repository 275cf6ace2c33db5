//! HCL native expression evaluator with cty semantics and unknown values.
//!
//! [`evaluate`] never fails outright: as in HCL, an expression with errors
//! still yields a value (usually an unknown, or a container with unknown
//! parts) together with error diagnostics. Diagnostic texts follow HCL's
//! wording exactly, because they appear in user-visible outputs.
//!
//! Architecture invariant: no IO; the caller supplies variables
//! ([`Variables`]) and user functions ([`Invoker`]).

mod compiled;
mod conv;
mod eval;
pub mod jsonl;
mod ops;
mod suggest;

use fnhcl_base::Diagnostic;
use fnhcl_syntax::ast;
use fnhcl_value::Value;

pub use compiled::{Compiled, Root};

/// Root variables (`req`, `self`, `each`, locals, function arguments).
pub trait Variables {
    /// The value of root variable `name`, or `None` if it does not exist.
    fn get(&self, name: &str) -> Option<Value>;
    /// The value of root variable `name`, which a compiled expression's
    /// resolver gave `slot` (see [`Compiled::with_slots`]). The default
    /// looks the name up.
    fn get_slot(&self, name: &str, slot: Option<u32>) -> Option<Value> {
        let _ = slot;
        self.get(name)
    }
    /// Names available, for "Did you mean" suggestions (optional).
    fn names(&self) -> Vec<String> {
        Vec::new()
    }
}

/// No variables at all.
pub struct NoVariables;

impl Variables for NoVariables {
    fn get(&self, _name: &str) -> Option<Value> {
        None
    }
}

impl<S: std::hash::BuildHasher> Variables for std::collections::HashMap<String, Value, S> {
    fn get(&self, name: &str) -> Option<Value> {
        std::collections::HashMap::get(self, name).cloned()
    }
    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.keys().cloned().collect();
        v.sort();
        v
    }
}

impl Variables for std::collections::BTreeMap<String, Value> {
    fn get(&self, name: &str) -> Option<Value> {
        std::collections::BTreeMap::get(self, name).cloned()
    }
    fn names(&self) -> Vec<String> {
        self.keys().cloned().collect()
    }
}

/// User-defined functions, called through the `invoke(name, args)` built-in.
pub trait Invoker {
    /// Calls user function `name` with the arguments object `args`. The
    /// error text becomes `Call to function "invoke" failed: <text>.`
    fn invoke(&self, name: &str, args: Value) -> Result<Value, String>;
}

/// Resource limits for one evaluation. Exceeding one is an error
/// diagnostic (the value becomes unknown), never a crash.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Maximum nesting of expression evaluation (recursion depth).
    pub max_depth: usize,
    /// Maximum number of evaluation steps (expression nodes visited,
    /// iterations, elements produced) for one [`evaluate`] call.
    pub max_steps: u64,
    /// Maximum length in bytes of a string produced by a template.
    pub max_string_bytes: usize,
    /// Maximum bytes of values built by one [`evaluate`] call, counted as
    /// they are built: template text, built-ins' results, the elements a
    /// `for` produces (see [`BYTES_PER_STEP`] for what each costs in steps
    /// too). It bounds the memory one evaluation can take whatever its
    /// steps: a value shared (a variable used many times) is not counted
    /// again.
    pub max_bytes: u64,
    /// Maximum number of elements of a collection produced by a `for`
    /// expression, splat or function-argument expansion.
    pub max_collection_len: usize,
    /// Called every [`INTERRUPT_INTERVAL`] steps; `false` stops the
    /// evaluation with an "Evaluation limit exceeded" error (a server
    /// whose client went away stops spending CPU on it). It may also
    /// block for a while (a scheduler moving a long run aside).
    pub interrupt: Option<Interrupt>,
    /// Memory shared with other evaluations (a server's budget for every
    /// request it runs at once), told of the bytes this one builds, in
    /// batches of [`MEMORY_INTERVAL`] and at its end; when it answers
    /// `false` the evaluation stops with an "Evaluation limit exceeded"
    /// error naming [`Memory::limit`].
    pub memory: Option<std::sync::Arc<dyn Memory>>,
}

/// Memory shared by evaluations: see [`Limits::memory`].
pub trait Memory: Send + Sync {
    /// `bytes` more have been built; whether the evaluation may go on.
    fn built(&self, bytes: u64) -> bool;
    /// The bytes shared, for the error message.
    fn limit(&self) -> u64;
}

/// How many bytes of values an evaluation builds between two reports to
/// [`Limits::memory`].
pub const MEMORY_INTERVAL: u64 = 1 << 20;

/// How many evaluation steps pass between two calls of
/// [`Limits::interrupt`] (a power of two: the check is a shift and a
/// compare per step).
pub const INTERRUPT_INTERVAL: u64 = 1 << 12;

/// Bytes of values built that cost one evaluation step (besides counting
/// against [`Limits::max_bytes`]): copying and normalising text is work in
/// proportion to its size, which the nodes alone do not count.
pub const BYTES_PER_STEP: u64 = 16;

/// Default [`Limits::max_bytes`]: 64 MiB.
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;

/// A check that may stop a running evaluation: returns `true` to go on,
/// `false` to stop. See [`Limits::interrupt`].
#[derive(Clone)]
pub struct Interrupt(std::sync::Arc<dyn Fn() -> bool + Send + Sync>);

impl Interrupt {
    pub fn new(check: impl Fn() -> bool + Send + Sync + 'static) -> Interrupt {
        Interrupt(std::sync::Arc::new(check))
    }

    /// Whether the evaluation may go on.
    pub fn check(&self) -> bool {
        (self.0)()
    }
}

impl std::fmt::Debug for dyn Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Memory({})", self.limit())
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Interrupt")
    }
}

/// The detail of the error an [`Interrupt`] that said stop leaves.
pub const INTERRUPTED_DETAIL: &str = "The evaluation was stopped: the request was cancelled (its caller went away or its deadline passed).";

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_depth: 200,
            max_steps: 5_000_000,
            max_string_bytes: 16 * 1024 * 1024,
            max_bytes: DEFAULT_MAX_BYTES,
            max_collection_len: 1_000_000,
            interrupt: None,
            memory: None,
        }
    }
}

/// Everything an evaluation needs besides the expression.
pub struct EvalContext<'a> {
    pub vars: &'a dyn Variables,
    /// User functions for `invoke`; `None` makes `invoke` an unknown
    /// function.
    pub invoker: Option<&'a dyn Invoker>,
    /// `false`: no functions at all ("Function calls not allowed"), as for
    /// user-function argument defaults.
    pub functions: bool,
    pub limits: &'a Limits,
}

/// The result of [`evaluate`]: always a value, plus diagnostics.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub value: Value,
    pub diagnostics: Vec<Diagnostic>,
    /// Evaluation steps used (as counted against [`Limits::max_steps`]),
    /// so callers can keep a budget across many evaluations.
    pub steps: u64,
    /// Bytes of values built (as counted against [`Limits::max_bytes`]).
    pub bytes: u64,
}

impl Evaluated {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Evaluates `expr` with HCL semantics.
pub fn evaluate(expr: &ast::Expr, ctx: &EvalContext<'_>) -> Evaluated {
    eval::Evaluator::new(ctx, None).run(expr)
}

/// Evaluates a compiled expression: the same value, diagnostics and steps
/// as [`evaluate`] of the expression it was compiled from.
pub fn evaluate_compiled(expr: &Compiled, ctx: &EvalContext<'_>) -> Evaluated {
    eval::Evaluator::new(ctx, None).run_compiled(expr)
}

/// [`evaluate_compiled`] with the source map (see [`evaluate_with_sources`]).
pub fn evaluate_compiled_with_sources(
    expr: &Compiled,
    ctx: &EvalContext<'_>,
    sources: &fnhcl_base::SourceMap,
) -> Evaluated {
    eval::Evaluator::new(ctx, Some(sources)).run_compiled(expr)
}

/// Evaluates a constant expression: no variables, no functions, default
/// limits (user-function argument defaults, and folding at compile time).
pub fn evaluate_constant(expr: &ast::Expr) -> Evaluated {
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &NoVariables,
        invoker: None,
        functions: false,
        limits: &limits,
    };
    evaluate(expr, &ctx)
}

/// Like [`evaluate`], with the source map available so that messages that
/// quote source ranges (the `try` failure summary) can print them, and
/// each diagnostic's `expr_text` is the source text of its `context` (the
/// expression HCL blames). Prefer this one when the sources are at hand.
pub fn evaluate_with_sources(
    expr: &ast::Expr,
    ctx: &EvalContext<'_>,
    sources: &fnhcl_base::SourceMap,
) -> Evaluated {
    eval::Evaluator::new(ctx, Some(sources)).run(expr)
}

/// Convenience: parses `text` as an expression in a fresh file named
/// `name` of `sources` and evaluates it. Parse errors are returned as
/// diagnostics with an unknown value.
pub fn eval_source(
    sources: &mut fnhcl_base::SourceMap,
    name: &str,
    text: &str,
    ctx: &EvalContext<'_>,
) -> (Evaluated, bool) {
    let file = sources.add(name, text);
    let (expr, diags) = fnhcl_syntax::parse_expr(sources, file);
    match expr {
        Some(e) if !diags.iter().any(Diagnostic::is_error) => {
            (evaluate_with_sources(&e, ctx, sources), false)
        }
        _ => (
            Evaluated {
                value: Value::dynamic_unknown(),
                diagnostics: diags,
                steps: 0,
                bytes: 0,
            },
            true,
        ),
    }
}

#[cfg(test)]
mod tests;
