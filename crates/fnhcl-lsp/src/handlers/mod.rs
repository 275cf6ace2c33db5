//! Request handlers: each takes the server state and the request's params
//! and returns the result (serialized by the caller) or an error message.

mod format;
mod preview;

pub(crate) use format::formatting;
pub(crate) use preview::{RENDER_COMMAND, execute_command, inlay_hints};

pub(crate) type Result<T> = std::result::Result<T, String>;
