//! `textDocument/hover`.

use fnhcl_ide::FilePosition;
use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};

use super::Result;
use crate::convert::{offset, range};
use crate::server::Server;

/// What the word under the cursor is (markdown).
pub(crate) fn hover(server: &mut Server, params: HoverParams) -> Result<Option<Hover>> {
    let at = params.text_document_position_params;
    let Some((snap, file)) = server.file(&at.text_document.uri) else {
        return Ok(None);
    };
    let f = snap.sources().get(file);
    let pos = FilePosition {
        file,
        offset: offset(&f.text, at.position) as u32,
    };
    Ok(fnhcl_ide::hover(&snap, pos).map(|h| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: h.markdown,
        }),
        range: Some(range(f, h.span)),
    }))
}
