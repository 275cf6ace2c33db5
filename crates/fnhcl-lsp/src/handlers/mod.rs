//! Request handlers: each takes the server state and the request's params
//! and returns the result (serialized by the caller) or an error message.

mod format;
mod navigate;

pub(crate) use format::formatting;
pub(crate) use navigate::{definition, prepare_rename, references, rename};

pub(crate) type Result<T> = std::result::Result<T, String>;
