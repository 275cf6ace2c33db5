//! Semantic tokens from the lexer alone, for the text of a file with
//! syntax errors that the parser's recovery leaves out of the tree (the
//! rest of an object after a broken item, a bracket's contents up to the
//! line it ends before): a degraded classification (block types and
//! attribute names at line starts, labels, strings, numbers, comments,
//! operators, calls, the `req`/`self`/`each` roots) so highlighting does
//! not vanish there while the author is typing.

use fnhcl_base::{FileId, Span};

use super::{Token, TokenKind, WELL_KNOWN, label_kind};
use crate::lex::{T, closes_string, is_string_text, opens_sequence, opens_string, tokenize};

/// The words HCL reserves inside expressions.
const KEYWORDS: &[&str] = &[
    "true", "false", "null", "for", "in", "if", "else", "endif", "endfor",
];

/// What an open bracket is.
enum Open {
    /// A block's body (its type).
    Block(String),
    /// An object's braces.
    Object,
    /// `[`, `(` or the braces of an interpolation.
    Other,
}

pub(super) fn tokens(file: FileId, text: &str) -> Vec<Token> {
    let toks = tokenize(text);
    let mut out: Vec<Token> = Vec::new();
    let push = |out: &mut Vec<Token>, t: &crate::lex::Token, kind, definition| {
        // The pieces of a string (quote, text, quote) make one token.
        if kind == TokenKind::String
            && let Some(last) = out.last_mut()
            && last.kind == TokenKind::String
            && last.span.end == t.start
        {
            last.span.end = t.end;
            return;
        }
        out.push(Token {
            span: Span::new(file, t.start as usize, t.end as usize),
            kind,
            definition,
        })
    };
    let mut open: Vec<Open> = Vec::new();
    // The block header being read: its type and how many labels so far.
    let mut header: Option<(String, usize)> = None;
    // Where the tokens of a quoted label start in `out`.
    let mut label_at: Option<usize> = None;
    let mut line_start = true;
    let mut in_string = 0usize;
    for (i, t) in toks.iter().enumerate() {
        let word = t.text(text);
        let next = toks[i + 1..]
            .iter()
            .find(|n| n.kind != T::Comment)
            .map(|n| n.kind);
        let prev = i.checked_sub(1).map(|p| toks[p].kind);
        // A word in the first column followed by a label or `{` starts a
        // top-level block, whatever was left open above it.
        let first_column =
            line_start && (t.start == 0 || text.as_bytes()[t.start as usize - 1] == b'\n');
        if first_column && t.kind == T::Ident && next.is_some_and(starts_header) {
            open.clear();
            in_string = 0;
        }
        // A statement can start here: a line start in a block's body.
        let statement = line_start
            && in_string == 0
            && matches!(
                open.last(),
                None | Some(Open::Block(_)) | Some(Open::Object)
            );
        line_start = false;
        match t.kind {
            T::Newline => {
                line_start = true;
                header = None;
            }
            T::Comment => push(&mut out, t, TokenKind::Comment, false),
            T::NumberLit => push(&mut out, t, TokenKind::Number, false),
            k if opens_string(k) => {
                if in_string == 0 && header.is_some() {
                    label_at = Some(out.len());
                }
                in_string += 1;
                push(&mut out, t, TokenKind::String, false);
            }
            k if is_string_text(k) => push(&mut out, t, TokenKind::String, false),
            _ if closes_string(t) => {
                in_string = in_string.saturating_sub(1);
                push(&mut out, t, TokenKind::String, false);
                if in_string == 0
                    && let (Some(at), Some((ty, n))) = (label_at.take(), header.as_mut())
                {
                    let (kind, definition) = label_kind(ty, *n);
                    *n += 1;
                    for o in out.iter_mut().skip(at) {
                        o.kind = kind;
                        o.definition = definition;
                    }
                }
            }
            k if opens_sequence(k) => open.push(Open::Other),
            T::TemplateSeqEnd | T::CBrace | T::CBrack | T::CParen => {
                open.pop();
            }
            T::OBrace => open.push(match header.take() {
                Some((ty, _)) => Open::Block(ty),
                None => Open::Object,
            }),
            T::OBrack | T::OParen => open.push(Open::Other),
            T::EqualOp
            | T::NotEqual
            | T::LtEq
            | T::GtEq
            | T::And
            | T::Or
            | T::Plus
            | T::Minus
            | T::Star
            | T::Slash
            | T::Percent
            | T::Lt
            | T::Gt
            | T::Bang
            | T::Question => push(&mut out, t, TokenKind::Operator, false),
            T::Ident if header.is_some() => {
                let (ty, n) = header.as_mut().expect("checked");
                let (kind, definition) = label_kind(ty, *n);
                *n += 1;
                push(&mut out, t, kind, definition);
            }
            T::Ident if statement && matches!(next, Some(T::Equal | T::Colon)) => {
                let (kind, definition) = match open.last() {
                    Some(Open::Block(b)) if b == "locals" => (TokenKind::Variable, true),
                    Some(Open::Object) => (TokenKind::Property, false),
                    _ => (TokenKind::Keyword, false),
                };
                push(&mut out, t, kind, definition);
            }
            T::Ident
                if statement
                    && !matches!(open.last(), Some(Open::Object))
                    && next.is_some_and(starts_header) =>
            {
                push(&mut out, t, TokenKind::Keyword, false);
                header = Some((word.to_owned(), 0));
            }
            T::Ident
                if matches!(open.last(), Some(Open::Object))
                    && matches!(prev, Some(T::OBrace | T::Comma))
                    && matches!(next, Some(T::Equal | T::Colon)) =>
            {
                push(&mut out, t, TokenKind::Property, false)
            }
            T::Ident => {
                let after_dot = prev == Some(T::Dot);
                let kind = if after_dot {
                    let root = i.checked_sub(2).map(|p| toks[p].text(text));
                    let known = root.is_some_and(|r| {
                        WELL_KNOWN
                            .iter()
                            .any(|(w, seconds)| *w == r && seconds.contains(&word))
                    });
                    if known {
                        TokenKind::Keyword
                    } else {
                        TokenKind::Property
                    }
                } else if next == Some(T::OParen) {
                    TokenKind::Function
                } else if KEYWORDS.contains(&word) || WELL_KNOWN.iter().any(|(r, _)| *r == word) {
                    TokenKind::Keyword
                } else {
                    TokenKind::Variable
                };
                push(&mut out, t, kind, false);
            }
            _ => {}
        }
    }
    out
}

/// A token that can follow a block's type: a label or the `{`.
fn starts_header(k: T) -> bool {
    matches!(k, T::Ident | T::OBrace) || opens_string(k)
}
