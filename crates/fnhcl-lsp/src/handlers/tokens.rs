//! `textDocument/semanticTokens/full`: fnhcl-ide's tokens, split at line
//! ends (not every client takes multi-line tokens) and delta-encoded in
//! UTF-16 columns.

use fnhcl_base::SourceFile;
use fnhcl_ide::{Token, TokenKind};
use lsp_types::{
    SemanticToken, SemanticTokenModifier, SemanticTokenType, SemanticTokens,
    SemanticTokensFullOptions, SemanticTokensLegend, SemanticTokensOptions, SemanticTokensParams,
    SemanticTokensResult, SemanticTokensServerCapabilities,
};

use super::Result;
use crate::convert::position;
use crate::server::Server;

fn token_type(k: TokenKind) -> SemanticTokenType {
    match k {
        TokenKind::Keyword => SemanticTokenType::KEYWORD,
        TokenKind::Class => SemanticTokenType::CLASS,
        TokenKind::EnumMember => SemanticTokenType::ENUM_MEMBER,
        TokenKind::Variable => SemanticTokenType::VARIABLE,
        TokenKind::Property => SemanticTokenType::PROPERTY,
        TokenKind::String => SemanticTokenType::STRING,
        TokenKind::Number => SemanticTokenType::NUMBER,
        TokenKind::Function => SemanticTokenType::FUNCTION,
        TokenKind::Operator => SemanticTokenType::OPERATOR,
        TokenKind::Parameter => SemanticTokenType::PARAMETER,
        TokenKind::Comment => SemanticTokenType::COMMENT,
    }
}

/// What the server announces in `initialize`.
pub(crate) fn capability() -> SemanticTokensServerCapabilities {
    SemanticTokensServerCapabilities::SemanticTokensOptions(SemanticTokensOptions {
        work_done_progress_options: Default::default(),
        legend: SemanticTokensLegend {
            token_types: TokenKind::ALL.iter().map(|k| token_type(*k)).collect(),
            token_modifiers: vec![SemanticTokenModifier::DEFINITION],
        },
        range: None,
        full: Some(SemanticTokensFullOptions::Bool(true)),
    })
}

pub(crate) fn semantic_tokens_full(
    server: &mut Server,
    params: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>> {
    let Some((snap, file)) = server.file(&params.text_document.uri) else {
        return Ok(None);
    };
    let tokens = fnhcl_ide::semantic_tokens(&snap, file);
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data: encode(snap.sources().get(file), &tokens),
    })))
}

/// The LSP encoding of sorted, non-overlapping tokens.
pub(crate) fn encode(f: &SourceFile, tokens: &[Token]) -> Vec<SemanticToken> {
    let text = &*f.text;
    let mut out = Vec::with_capacity(tokens.len());
    let (mut prev_line, mut prev_col) = (0u32, 0u32);
    for t in tokens {
        let kind = TokenKind::ALL
            .iter()
            .position(|k| *k == t.kind)
            .unwrap_or(0) as u32;
        let mut start = t.span.start as usize;
        let end = (t.span.end as usize).min(text.len());
        while start < end {
            let line_end = text[start..end].find('\n').map_or(end, |i| start + i);
            let seg = text[start..line_end].trim_end_matches('\r');
            if !seg.is_empty() {
                let p = position(f, start as u32);
                let length = seg.chars().map(char::len_utf16).sum::<usize>() as u32;
                let delta_line = p.line - prev_line;
                let delta_start = if delta_line == 0 {
                    p.character - prev_col
                } else {
                    p.character
                };
                out.push(SemanticToken {
                    delta_line,
                    delta_start,
                    length,
                    token_type: kind,
                    token_modifiers_bitset: u32::from(t.definition),
                });
                (prev_line, prev_col) = (p.line, p.character);
            }
            start = line_end + 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use fnhcl_base::{FileId, Span};

    use super::*;

    #[test]
    fn multi_line_tokens_are_split_and_columns_count_utf16() {
        let text = "a = \"😀\" + <<EOT\nx\nEOT\n";
        let f = SourceFile::new("m.hcl", text);
        let tok = |s: usize, e: usize, kind| Token {
            span: Span::new(FileId(0), s, e),
            kind,
            definition: false,
        };
        let heredoc = text.find("<<").unwrap();
        let tokens = [
            tok(0, 1, TokenKind::Variable),
            tok(4, 10, TokenKind::String),
            tok(11, 12, TokenKind::Operator),
            tok(heredoc, text.len() - 1, TokenKind::String),
        ];
        let got: Vec<(u32, u32, u32, u32)> = encode(&f, &tokens)
            .iter()
            .map(|t| (t.delta_line, t.delta_start, t.length, t.token_type))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0, 1, 3),
                (0, 4, 4, 5), // "😀" is 2 UTF-16 units, plus the quotes
                (0, 5, 1, 8),
                (0, 2, 5, 5), // <<EOT
                (1, 0, 1, 5), // x
                (1, 0, 3, 5), // EOT
            ]
        );
    }
}
