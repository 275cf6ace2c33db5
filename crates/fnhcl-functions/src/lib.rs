//! Terraform 1.5.7 built-in functions over the value model.
//!
//! Architecture invariant: knows nothing about HCL syntax or spans. A call
//! fails with a [`CallError`] naming the argument; the evaluator attaches
//! the source range. `try`, `can` (lazy arguments) and `invoke` (user
//! functions) are evaluated by the expression evaluator; they appear in the
//! registry for documentation and name checks only.
//!
//! See [`registry`] for how functions are declared and called.

mod charsets;
mod cidr;
mod collection;
mod convert;
mod crypto;
mod datetime;
pub mod docs;
mod encoding;
mod evaluator_funcs;
mod format;
mod gzip;
mod json;
mod limits;
mod limits_coll;
mod numeric;
mod numfmt;
mod regex_fns;
pub mod registry;
mod strings;
mod typeconv;
mod yaml;

use fnhcl_value::Value;

pub use limits_coll::{DEFAULT_MAX_ELEMENTS, Limits, limits, set_limits};
pub use registry::{FuncDef, Param, Registry, registry};

/// Why a call failed. `arg` is the zero-based index of the offending
/// argument, when one is to blame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub arg: Option<usize>,
    pub message: String,
}

impl CallError {
    /// An error not attributed to one argument ("Call to function ... failed").
    pub fn new(message: impl Into<String>) -> CallError {
        CallError {
            arg: None,
            message: message.into(),
        }
    }
    /// An error blaming argument `i` ("Invalid value for ... parameter").
    pub fn arg(i: usize, message: impl Into<String>) -> CallError {
        CallError {
            arg: Some(i),
            message: message.into(),
        }
    }
}

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
