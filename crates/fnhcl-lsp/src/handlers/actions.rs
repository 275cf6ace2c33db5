//! `textDocument/codeAction`: quick fixes. A diagnostic's did-you-mean
//! travels in its `data` (set when diagnostics are published), so the
//! action needs no new analysis; for a client that does not send `data`
//! back, the fix is recomputed from the current snapshot.

use std::collections::HashMap;

use fnhcl_base::{Diagnostic, SourceMap};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse, Range,
    TextEdit, WorkspaceEdit,
};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

use super::Result;
use crate::convert::range;
use crate::server::Server;

/// What a published diagnostic's `data` holds.
#[derive(Serialize, Deserialize)]
struct FixData {
    fix: Fix,
}

#[derive(Serialize, Deserialize)]
struct Fix {
    title: String,
    range: Range,
    #[serde(rename = "newText")]
    new_text: String,
}

fn fix_of(sources: &SourceMap, d: &Diagnostic) -> Option<Fix> {
    let fix = fnhcl_ide::quick_fix(sources, d)?;
    Some(Fix {
        title: fix.title,
        range: range(sources.get(fix.edit.span.file), fix.edit.span),
        new_text: fix.edit.new_text,
    })
}

/// The `data` of a published diagnostic: its quick fix, if it has one.
pub(crate) fn fix_data(sources: &SourceMap, d: &Diagnostic) -> Option<Json> {
    let fix = fix_of(sources, d)?;
    serde_json::to_value(FixData { fix }).ok()
}

pub(crate) fn code_actions(
    server: &mut Server,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    if let Some(only) = &params.context.only
        && !only
            .iter()
            .any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))
    {
        return Ok(Some(Vec::new()));
    }
    let uri = params.text_document.uri.clone();
    let mut out: CodeActionResponse = Vec::new();
    // Recomputed fixes, for diagnostics without data: (range, message) → fix.
    let mut fresh: Option<HashMap<(Range, String), Fix>> = None;
    for diag in &params.context.diagnostics {
        if diag.source.as_deref() != Some("fn-hcl") {
            continue;
        }
        let from_data = diag
            .data
            .clone()
            .and_then(|d| serde_json::from_value::<FixData>(d).ok())
            .map(|d| d.fix);
        let fix = match from_data {
            Some(f) => Some(f),
            None => {
                let fixes = fresh.get_or_insert_with(|| recompute(server, &params));
                fixes.remove(&(diag.range, diag.message.clone()))
            }
        };
        let Some(fix) = fix else { continue };
        let edit = WorkspaceEdit::new(HashMap::from([(
            uri.clone(),
            vec![TextEdit::new(fix.range, fix.new_text)],
        )]));
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: fix.title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diag.clone()]),
            edit: Some(edit),
            is_preferred: Some(true),
            ..Default::default()
        }));
    }
    Ok(Some(out))
}

/// The fixes of the current analysis of the document, by the range and
/// message their diagnostics are published with.
fn recompute(server: &mut Server, params: &CodeActionParams) -> HashMap<(Range, String), Fix> {
    let Some((snap, file)) = server.file(&params.text_document.uri) else {
        return HashMap::new();
    };
    let sources = snap.sources();
    snap.diagnostics()
        .iter()
        .filter(|d| d.primary.is_some_and(|s| s.file == file))
        .filter_map(|d| {
            let span = d.primary?;
            let message = crate::convert::message(d);
            Some((
                (range(sources.get(file), span), message),
                fix_of(sources, d)?,
            ))
        })
        .collect()
}
