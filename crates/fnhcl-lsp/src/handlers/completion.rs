//! `textDocument/completion`.

use fnhcl_ide::CompletionKind;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionList, CompletionParams, CompletionResponse,
    CompletionTextEdit, Documentation, InsertTextFormat, MarkupContent, MarkupKind, TextEdit,
};

use super::Result;
use crate::convert::range;
use crate::server::Server;

/// What can be typed at the position: every proposal replaces the partial
/// word before the cursor (a `textEdit`), snippets when the client takes them.
pub(crate) fn completion(
    server: &mut Server,
    params: CompletionParams,
) -> Result<Option<CompletionResponse>> {
    let at = params.text_document_position;
    let Some((snap, pos)) = super::position_in(server, &at) else {
        return Ok(None);
    };
    let snippets = server.snippets;
    let f = snap.sources().get(pos.file);
    let items = fnhcl_ide::complete(&snap, pos)
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let (text, format) = match (&item.snippet, snippets) {
                (Some(s), true) => (s.clone(), InsertTextFormat::SNIPPET),
                _ => (item.insert_text.clone(), InsertTextFormat::PLAIN_TEXT),
            };
            CompletionItem {
                kind: Some(kind(item.kind)),
                detail: item.detail,
                documentation: item.documentation.map(|d| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value: d,
                    })
                }),
                // Keep our order (scope first, then built-ins) among equals.
                sort_text: Some(format!("{i:04}")),
                insert_text_format: Some(format),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit::new(
                    range(f, item.replace),
                    text,
                ))),
                label: item.label,
                ..Default::default()
            }
        })
        .collect();
    Ok(Some(CompletionResponse::List(CompletionList {
        is_incomplete: false,
        items,
    })))
}

fn kind(k: CompletionKind) -> CompletionItemKind {
    match k {
        CompletionKind::Block => CompletionItemKind::STRUCT,
        CompletionKind::Attribute => CompletionItemKind::PROPERTY,
        CompletionKind::Field => CompletionItemKind::FIELD,
        CompletionKind::Variable => CompletionItemKind::VARIABLE,
        CompletionKind::Function => CompletionItemKind::FUNCTION,
        CompletionKind::Value => CompletionItemKind::VALUE,
        CompletionKind::Keyword => CompletionItemKind::KEYWORD,
    }
}
