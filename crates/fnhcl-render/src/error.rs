//! Render failures, worded as `crossplane render` words them.

use std::fmt;

/// A render that cannot complete. `message` is what follows
/// `crossplane: error: ` on stderr; `frames` optionally shows the HCL source
/// a fatal result points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenderError {
    pub message: String,
    /// Code frames for source positions named in the message (no colour).
    pub frames: Option<String>,
}

impl RenderError {
    pub fn new(message: impl Into<String>) -> RenderError {
        RenderError {
            message: message.into(),
            frames: None,
        }
    }

    /// The message with a prefix, as Go's `errors.Wrap` does.
    pub(crate) fn wrap(mut self, prefix: &str) -> RenderError {
        self.message = format!("{prefix}: {}", self.message);
        self
    }
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RenderError {}
