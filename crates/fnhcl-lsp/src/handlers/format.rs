//! `textDocument/formatting`.

use lsp_types::{DocumentFormattingParams, TextEdit};

use super::Result;
use crate::server::Server;

/// `textDocument/formatting`: `fn-hcl fmt` of the whole document.
pub(crate) fn formatting(
    server: &mut Server,
    params: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>> {
    let Some((snap, file)) = server.file(&params.text_document.uri) else {
        return Ok(None);
    };
    let edit = fnhcl_ide::format(&snap, file).map_err(|e| format!("cannot format: {e}"))?;
    Ok(edit.map(|e| {
        let f = snap.sources().get(file);
        vec![TextEdit::new(crate::convert::range(f, e.span), e.new_text)]
    }))
}
