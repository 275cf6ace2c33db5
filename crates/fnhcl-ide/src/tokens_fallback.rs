//! Semantic tokens of a file that does not parse, from the tolerant lexer:
//! a degraded classification (block types and attribute names at line
//! starts, labels, strings, numbers, comments, operators, calls, the
//! `req`/`self`/`each` roots) so highlighting does not vanish while the
//! author is typing.

use fnhcl_base::{FileId, Span};

use super::{Token, TokenKind, WELL_KNOWN, label_kind};
use crate::lex::{Tok, text_of, tokenize};

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
        let word = text_of(text, t);
        let next = toks[i + 1..]
            .iter()
            .find(|n| n.kind != Tok::Comment)
            .map(|n| n.kind);
        let prev = i.checked_sub(1).map(|p| toks[p].kind);
        // A word in the first column followed by a label or `{` starts a
        // top-level block, whatever was left open above it.
        let first_column =
            line_start && (t.start == 0 || text.as_bytes()[t.start as usize - 1] == b'\n');
        if first_column
            && t.kind == Tok::Ident
            && matches!(next, Some(Tok::Ident | Tok::StrOpen | Tok::Punct(b'{')))
        {
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
            Tok::Newline => {
                line_start = true;
                header = None;
            }
            Tok::Comment => push(&mut out, t, TokenKind::Comment, false),
            Tok::Number => push(&mut out, t, TokenKind::Number, false),
            Tok::StrOpen => {
                if in_string == 0 && header.is_some() {
                    label_at = Some(out.len());
                }
                in_string += 1;
                push(&mut out, t, TokenKind::String, false);
            }
            Tok::StrText => push(&mut out, t, TokenKind::String, false),
            Tok::StrClose => {
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
            Tok::InterpOpen => open.push(Open::Other),
            Tok::InterpClose | Tok::Punct(b'}' | b']' | b')') => {
                open.pop();
            }
            Tok::Punct(b'{') => open.push(match header.take() {
                Some((ty, _)) => Open::Block(ty),
                None => Open::Object,
            }),
            Tok::Punct(b'[' | b'(') => open.push(Open::Other),
            Tok::Op if word != "=>" && word != "..." => {
                push(&mut out, t, TokenKind::Operator, false)
            }
            Tok::Punct(b'+' | b'-' | b'*' | b'/' | b'%' | b'<' | b'>' | b'!' | b'?') => {
                push(&mut out, t, TokenKind::Operator, false)
            }
            Tok::Ident if header.is_some() => {
                let (ty, n) = header.as_mut().expect("checked");
                let (kind, definition) = label_kind(ty, *n);
                *n += 1;
                push(&mut out, t, kind, definition);
            }
            Tok::Ident if statement && matches!(next, Some(Tok::Punct(b'=' | b':'))) => {
                let (kind, definition) = match open.last() {
                    Some(Open::Block(b)) if b == "locals" => (TokenKind::Variable, true),
                    Some(Open::Object) => (TokenKind::Property, false),
                    _ => (TokenKind::Keyword, false),
                };
                push(&mut out, t, kind, definition);
            }
            Tok::Ident
                if statement
                    && !matches!(open.last(), Some(Open::Object))
                    && matches!(next, Some(Tok::Ident | Tok::StrOpen | Tok::Punct(b'{'))) =>
            {
                push(&mut out, t, TokenKind::Keyword, false);
                header = Some((word.to_owned(), 0));
            }
            Tok::Ident
                if matches!(open.last(), Some(Open::Object))
                    && matches!(prev, Some(Tok::Punct(b'{' | b',')))
                    && matches!(next, Some(Tok::Punct(b'=' | b':'))) =>
            {
                push(&mut out, t, TokenKind::Property, false)
            }
            Tok::Ident => {
                let after_dot = prev == Some(Tok::Punct(b'.'));
                let kind = if after_dot {
                    let root = i.checked_sub(2).map(|p| text_of(text, &toks[p]));
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
                } else if next == Some(Tok::Punct(b'(')) {
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
