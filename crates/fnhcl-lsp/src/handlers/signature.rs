//! `textDocument/signatureHelp`.

use lsp_types::{
    Documentation, MarkupContent, MarkupKind, ParameterInformation, ParameterLabel, SignatureHelp,
    SignatureHelpParams, SignatureInformation,
};

use super::Result;
use crate::server::Server;

/// The call around the position: a built-in's parameters or, in
/// `invoke("name", {...})`, the user function's arguments.
pub(crate) fn signature_help(
    server: &mut Server,
    params: SignatureHelpParams,
) -> Result<Option<SignatureHelp>> {
    let at = params.text_document_position_params;
    let Some((snap, pos)) = super::position_in(server, &at) else {
        return Ok(None);
    };
    let Some(help) = fnhcl_ide::signature_help(&snap, pos) else {
        return Ok(None);
    };
    let sig = help.signature;
    // Parameter labels are offsets into the label, in UTF-16 units.
    let utf16 = |b: u32| sig.label[..b as usize].encode_utf16().count() as u32;
    let parameters = sig
        .parameters
        .iter()
        .map(|((a, b), doc)| ParameterInformation {
            label: ParameterLabel::LabelOffsets([utf16(*a), utf16(*b)]),
            documentation: doc.clone().map(Documentation::String),
        })
        .collect();
    Ok(Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            documentation: sig.documentation.clone().map(|d| {
                Documentation::MarkupContent(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: d,
                })
            }),
            parameters: Some(parameters),
            active_parameter: help.active_parameter,
            label: sig.label,
        }],
        active_signature: Some(0),
        active_parameter: help.active_parameter,
    }))
}
