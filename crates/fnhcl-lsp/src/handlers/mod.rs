//! Request handlers: each takes the server state and the request's params
//! and returns the result (serialized by the caller) or an error message.

mod actions;
mod completion;
mod format;
mod hover;
mod navigate;
mod outline;
mod preview;
mod signature;
pub(crate) mod tokens;

pub(crate) use actions::{code_actions, fix_data};
pub(crate) use completion::completion;
pub(crate) use format::formatting;
pub(crate) use hover::hover;
pub(crate) use navigate::{definition, prepare_rename, references, rename};
pub(crate) use outline::{document_symbols, folding_ranges, workspace_symbols};
pub(crate) use preview::{RENDER_COMMAND, execute_command, inlay_hints};
pub(crate) use signature::signature_help;
pub(crate) use tokens::semantic_tokens_full;

pub(crate) type Result<T> = std::result::Result<T, String>;

/// The snapshot of the program holding a request's document and the
/// request's position in it, as a byte offset (`None`: not one of ours).
pub(crate) fn position_in(
    server: &mut crate::server::Server,
    at: &lsp_types::TextDocumentPositionParams,
) -> Option<(std::sync::Arc<fnhcl_ide::Snapshot>, fnhcl_ide::FilePosition)> {
    let (snap, file) = server.file(&at.text_document.uri)?;
    let offset = crate::convert::offset(&snap.sources().get(file).text, at.position) as u32;
    Some((snap, fnhcl_ide::FilePosition { file, offset }))
}
