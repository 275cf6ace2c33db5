//! The error type every built-in returns.

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
