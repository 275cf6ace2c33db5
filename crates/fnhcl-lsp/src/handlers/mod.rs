//! Request handlers: each takes the server state and the request's params
//! and returns the result (serialized by the caller) or an error message.

mod completion;
mod format;
mod hover;
mod signature;

pub(crate) use completion::completion;
pub(crate) use format::formatting;
pub(crate) use hover::hover;
pub(crate) use signature::signature_help;

pub(crate) type Result<T> = std::result::Result<T, String>;
