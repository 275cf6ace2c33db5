//! Live preview: `textDocument/inlayHint` (locals' values, deferred
//! blocks) and `workspace/executeCommand` `fn-hcl.render`.

use lsp_types::{
    ExecuteCommandParams, InlayHint, InlayHintKind, InlayHintLabel, InlayHintParams,
    InlayHintTooltip, Uri,
};
use serde_json::Value as Json;

use super::Result;
use crate::convert::{offset, position, uri_to_path};
use crate::server::Server;

/// The command that returns the program's desired state as YAML.
pub(crate) const RENDER_COMMAND: &str = "fn-hcl.render";

/// `textDocument/inlayHint`: empty without an `xr.yaml`.
pub(crate) fn inlay_hints(
    server: &mut Server,
    params: InlayHintParams,
) -> Result<Option<Vec<InlayHint>>> {
    let Some((snap, file)) = server.file(&params.text_document.uri) else {
        return Ok(None);
    };
    let Some(preview) = server.preview(&params.text_document.uri) else {
        return Ok(None);
    };
    let f = snap.sources().get(file);
    let start = offset(&f.text, params.range.start) as u32;
    let end = offset(&f.text, params.range.end) as u32;
    let span = fnhcl_ide::Span::new(file, start as usize, end as usize);
    let hints = preview
        .hints_in(span)
        .map(|h| InlayHint {
            position: position(f, h.offset),
            label: InlayHintLabel::String(h.label.clone()),
            kind: (h.kind == fnhcl_ide::HintKind::Value).then_some(InlayHintKind::TYPE),
            text_edits: None,
            tooltip: Some(InlayHintTooltip::String(h.tooltip.clone())),
            padding_left: Some(true),
            padding_right: Some(h.kind == fnhcl_ide::HintKind::Deferred),
            data: None,
        })
        .collect();
    Ok(Some(hints))
}

/// `workspace/executeCommand`: `fn-hcl.render [uri]` returns the YAML
/// `fn-hcl render` prints for the program of `uri` and the XR beside it.
pub(crate) fn execute_command(server: &mut Server, params: ExecuteCommandParams) -> Result<Json> {
    if params.command != RENDER_COMMAND {
        return Err(format!("unknown command {:?}", params.command));
    }
    let uri: Uri = params
        .arguments
        .first()
        .and_then(|a| serde_json::from_value(a.clone()).ok())
        .ok_or_else(|| format!("{RENDER_COMMAND}: expected one argument, a file's URI"))?;
    let path = uri_to_path(&uri).ok_or_else(|| format!("{RENDER_COMMAND}: not a file URI"))?;
    let preview = server
        .preview(&uri)
        .ok_or_else(|| format!("{RENDER_COMMAND}: {} is not in a program", path.display()))?;
    match &preview.rendered {
        Ok(yaml) => Ok(Json::String(yaml.clone())),
        Err(e) => Err(format!("{RENDER_COMMAND}: {e}")),
    }
}
