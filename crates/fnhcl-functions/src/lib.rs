//! Terraform 1.5.7 built-in functions over the value model.
//!
//! Architecture invariant: knows nothing about HCL syntax or spans. A call
//! fails with a [`CallError`] naming the argument; the evaluator attaches
//! the source range. `try`, `can` (lazy arguments) and `invoke` (user
//! functions) are evaluated by the expression evaluator; they appear in the
//! registry for documentation and name checks only.
//!
//! See [`registry`] for how functions are declared and called.

mod args;
mod base64;
mod catalog;
mod charsets;
mod cidr;
mod collection;
mod convert;
mod crypto;
mod datetime;
pub mod docs;
mod encoding;
mod error;
mod evaluator_funcs;
mod format;
mod go_regex;
mod gzip;
mod json;
mod limits;
mod limits_coll;
mod numeric;
mod numfmt;
mod quote;
mod regex_fns;
pub mod registry;
mod strings;
mod typeconv;
mod yaml;

use fnhcl_value::Value;

pub use catalog::registry;
pub use error::CallError;
pub use limits_coll::{DEFAULT_MAX_ELEMENTS, Limits, limits, set_limits};
pub use registry::{FuncDef, Param, Registry};

/// Calls the built-in `name`. `None` if no such function exists.
pub fn call(name: &str, args: &[Value]) -> Option<Result<Value, CallError>> {
    registry().get(name).map(|f| f.call(args))
}

/// True if `name` is a built-in function (including `try`, `can`, `invoke`).
pub fn exists(name: &str) -> bool {
    registry().get(name).is_some()
}

/// The name of the parameter that receives argument `arg` of `func`, for
/// HCL's "Invalid value for "<param>" parameter" messages.
pub fn param_name(func: &str, arg: usize) -> Option<&'static str> {
    registry().get(func)?.param_for(arg).map(|p| p.name)
}
