//! Terraform 1.5.7 built-in functions over the value model.
//!
//! Architecture invariant: knows nothing about HCL syntax or spans. A call
//! fails with a [`CallError`] naming the argument; the evaluator attaches
//! the source range. `try`, `can` (lazy arguments) and `invoke` (user
//! functions) are evaluated by the expression evaluator; they appear in the
//! registry for documentation and name checks only.

use fnhcl_value::Value;

/// Why a call failed. `arg` is the zero-based index of the offending
/// argument, when one is to blame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub arg: Option<usize>,
    pub message: String,
}

/// Calls the built-in `name`. `None` if no such function exists.
pub fn call(name: &str, args: &[Value]) -> Option<Result<Value, CallError>> {
    let _ = (name, args);
    None
}

/// True if `name` is a built-in function (including `try`, `can`, `invoke`).
pub fn exists(name: &str) -> bool {
    let _ = name;
    false
}
