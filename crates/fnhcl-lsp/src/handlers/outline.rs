//! `textDocument/documentSymbol`, `workspace/symbol` and
//! `textDocument/foldingRange`.

use fnhcl_ide::{FoldKind, SymbolKind as Kind};
use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, FoldingRange, FoldingRangeKind,
    FoldingRangeParams, Location, OneOf, SymbolKind, WorkspaceSymbol, WorkspaceSymbolParams,
    WorkspaceSymbolResponse,
};

use super::Result;
use crate::convert::{path_to_uri, position, range};
use crate::server::Server;

fn kind(k: Kind) -> SymbolKind {
    match k {
        Kind::Resource => SymbolKind::CLASS,
        Kind::Collection => SymbolKind::ARRAY,
        Kind::Function => SymbolKind::FUNCTION,
        Kind::Arg => SymbolKind::TYPE_PARAMETER,
        Kind::Local => SymbolKind::VARIABLE,
        Kind::Module => SymbolKind::MODULE,
        Kind::Block => SymbolKind::NAMESPACE,
        Kind::Attribute => SymbolKind::FIELD,
    }
}

#[allow(deprecated)] // `DocumentSymbol::deprecated` must be spelt out.
fn symbol(f: &fnhcl_ide::SourceMap, s: fnhcl_ide::Symbol) -> DocumentSymbol {
    let file = f.get(s.span.file);
    DocumentSymbol {
        name: s.name,
        detail: (!s.detail.is_empty()).then_some(s.detail),
        kind: kind(s.kind),
        tags: None,
        deprecated: None,
        range: range(file, s.span),
        selection_range: range(file, s.selection),
        children: Some(s.children.into_iter().map(|c| symbol(f, c)).collect()),
    }
}

pub(crate) fn document_symbols(
    server: &mut Server,
    params: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>> {
    let Some((snap, file)) = server.file(&params.text_document.uri) else {
        return Ok(None);
    };
    let syms = fnhcl_ide::document_symbols(&snap, file);
    Ok(Some(DocumentSymbolResponse::Nested(
        syms.into_iter()
            .map(|s| symbol(snap.sources(), s))
            .collect(),
    )))
}

/// The named things of every program the server has open, best matches
/// first.
pub(crate) fn workspace_symbols(
    server: &mut Server,
    params: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>> {
    let mut out = Vec::new();
    for (root, snap) in server.snapshots() {
        for s in fnhcl_ide::workspace_symbols(&snap, &params.query) {
            let f = snap.sources().get(s.span.file);
            out.push(WorkspaceSymbol {
                name: s.name,
                kind: kind(s.kind),
                tags: None,
                container_name: Some(f.name.clone()),
                location: OneOf::Left(Location::new(
                    path_to_uri(&root.join(&f.name)),
                    range(f, s.span),
                )),
                data: None,
            });
        }
    }
    Ok(Some(WorkspaceSymbolResponse::Nested(out)))
}

pub(crate) fn folding_ranges(
    server: &mut Server,
    params: FoldingRangeParams,
) -> Result<Option<Vec<FoldingRange>>> {
    let Some((snap, file)) = server.file(&params.text_document.uri) else {
        return Ok(None);
    };
    let f = snap.sources().get(file);
    Ok(Some(
        fnhcl_ide::folding_ranges(&snap, file)
            .into_iter()
            .map(|x| FoldingRange {
                start_line: position(f, x.span.start).line,
                start_character: None,
                end_line: position(f, x.span.end).line,
                end_character: None,
                kind: Some(match x.kind {
                    FoldKind::Region => FoldingRangeKind::Region,
                    FoldKind::Comment => FoldingRangeKind::Comment,
                }),
                collapsed_text: None,
            })
            .collect(),
    ))
}
