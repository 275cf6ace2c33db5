//! `textDocument/definition`, `declaration`, `references`, `prepareRename`
//! and `rename`, answered by fnhcl-ide's resolution of names.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fnhcl_ide::{FileId, FilePosition, Snapshot, Span};
use lsp_types::{
    GotoDefinitionParams, GotoDefinitionResponse, Location, PrepareRenameResponse, ReferenceParams,
    RenameParams, TextDocumentPositionParams, TextEdit, Uri, WorkspaceEdit,
};

use super::Result;
use crate::convert::{path_to_uri, range};
use crate::server::Server;

/// A document's snapshot, the cursor as a byte position, and where the
/// program's files are on disk.
pub(crate) struct At {
    pub(crate) snap: Arc<Snapshot>,
    pub(crate) pos: FilePosition,
    root: PathBuf,
}

impl At {
    pub(crate) fn new(server: &mut Server, p: &TextDocumentPositionParams) -> Option<At> {
        let (snap, pos) = super::position_in(server, p)?;
        let path = crate::convert::uri_to_path(&p.text_document.uri)?;
        let root = root_of(&path, &snap.sources().get(pos.file).name)?;
        Some(At { snap, pos, root })
    }

    pub(crate) fn uri(&self, file: FileId) -> Uri {
        path_to_uri(&self.root.join(&self.snap.sources().get(file).name))
    }

    pub(crate) fn location(&self, span: Span) -> Location {
        Location::new(
            self.uri(span.file),
            range(self.snap.sources().get(span.file), span),
        )
    }
}

/// The program's directory: `path` without the file's relative `name`.
pub(crate) fn root_of(path: &Path, name: &str) -> Option<PathBuf> {
    let depth = name.split('/').count();
    path.ancestors().nth(depth).map(Path::to_path_buf)
}

pub(crate) fn definition(
    server: &mut Server,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let Some(at) = At::new(server, &params.text_document_position_params) else {
        return Ok(None);
    };
    let spans = fnhcl_ide::definition(&at.snap, at.pos);
    Ok(match spans.as_slice() {
        [] => None,
        [one] => Some(GotoDefinitionResponse::Scalar(at.location(*one))),
        many => Some(GotoDefinitionResponse::Array(
            many.iter().map(|s| at.location(*s)).collect(),
        )),
    })
}

pub(crate) fn references(
    server: &mut Server,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>> {
    let Some(at) = At::new(server, &params.text_document_position) else {
        return Ok(None);
    };
    let spans = fnhcl_ide::references(&at.snap, at.pos, params.context.include_declaration);
    Ok(Some(spans.into_iter().map(|s| at.location(s)).collect()))
}

pub(crate) fn prepare_rename(
    server: &mut Server,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let Some(at) = At::new(server, &params) else {
        return Ok(None);
    };
    let span = fnhcl_ide::prepare_rename(&at.snap, at.pos)?;
    let f = at.snap.sources().get(span.file);
    Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
        range: range(f, span),
        placeholder: f.text[span.start as usize..span.end as usize].to_owned(),
    }))
}

// lsp-types keys `WorkspaceEdit::changes` by `Uri`, whose parsed form caches
// in cells; the keys are never mutated here.
#[allow(clippy::mutable_key_type)]
pub(crate) fn rename(server: &mut Server, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let Some(at) = At::new(server, &params.text_document_position) else {
        return Ok(None);
    };
    let edits = fnhcl_ide::rename(&at.snap, at.pos, &params.new_name)?;
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for e in edits {
        let f = at.snap.sources().get(e.span.file);
        changes
            .entry(at.uri(e.span.file))
            .or_default()
            .push(TextEdit::new(range(f, e.span), e.new_text));
    }
    Ok(Some(WorkspaceEdit::new(changes)))
}
