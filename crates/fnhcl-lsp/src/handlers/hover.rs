//! `textDocument/hover`.

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use super::Result;
use crate::convert::range;
use crate::server::Server;

/// What the word under the cursor is (markdown).
pub(crate) fn hover(server: &mut Server, params: HoverParams) -> Result<Option<Hover>> {
    let at = params.text_document_position_params;
    let Some((snap, pos)) = super::position_in(server, &at) else {
        return Ok(None);
    };
    let f = snap.sources().get(pos.file);
    Ok(fnhcl_ide::hover(&snap, pos).map(|h| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: h.markdown,
        }),
        range: Some(range(f, h.span)),
    }))
}
