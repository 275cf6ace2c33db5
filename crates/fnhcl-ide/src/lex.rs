//! The tokens the token-level features read ([`crate::walk`], the cursor,
//! hover's look at the word under the mouse): [`fnhcl_syntax::lexer`]'s,
//! read as the parser reads them, and the groups of HCL's token kinds
//! those features tell apart.

pub(crate) use fnhcl_syntax::lexer::{T, Token, is_ident_continue, is_ident_start};

/// The tokens of a file, without the final [`T::Eof`]. A line comment's
/// newline is a [`T::Newline`] of its own: it ends a line as any newline
/// does (the parser reads a line comment as a newline too).
pub(crate) fn tokenize(text: &str) -> Vec<Token> {
    split(text, fnhcl_syntax::lexer::lex(text))
}

/// [`tokenize`] for the text of one expression (an attribute's value): a
/// heredoc's closing marker may end it.
pub(crate) fn tokenize_expr(text: &str) -> Vec<Token> {
    split(text, fnhcl_syntax::lexer::lex_expr(text))
}

fn split(text: &str, tokens: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(tokens.len() + tokens.len() / 8);
    for t in tokens {
        match t.kind {
            T::Eof => break,
            T::Comment if t.text(text).ends_with('\n') => {
                let nl = t.end - if t.text(text).ends_with("\r\n") { 2 } else { 1 };
                out.push(Token { end: nl, ..t });
                out.push(Token {
                    kind: T::Newline,
                    start: nl,
                    end: t.end,
                });
            }
            _ => out.push(t),
        }
    }
    out
}

/// `"` or `<<EOT`.
pub(crate) fn opens_string(k: T) -> bool {
    matches!(k, T::OQuote | T::OHeredoc)
}

/// The literal text of a string (a quoted string's may come in several
/// pieces: `$` and `%` not starting a sequence are tokens of their own).
pub(crate) fn is_string_text(k: T) -> bool {
    matches!(k, T::QuotedLit | T::StringLit)
}

/// The end of a string: its closing quote or marker, or the empty token
/// where a quoted string left open ends, at the end of its line.
pub(crate) fn closes_string(t: &Token) -> bool {
    matches!(t.kind, T::CQuote | T::CHeredoc) || (t.kind == T::QuotedNewline && t.is_empty())
}

/// `${` or `%{` (and their `~` forms).
pub(crate) fn opens_sequence(k: T) -> bool {
    matches!(k, T::TemplateInterp | T::TemplateControl)
}

/// The text of the quoted string `tokens` (its quotes included) when it
/// is literal: no interpolation, no directive (a string left open at the
/// end of its line, as it is while being typed, counts).
pub(crate) fn literal_string(text: &str, tokens: &[Token]) -> Option<String> {
    let [open, inner @ .., close] = tokens else {
        return None;
    };
    if open.kind != T::OQuote || !closes_string(close) {
        return None;
    }
    let mut s = String::new();
    for t in inner {
        if t.kind != T::QuotedLit {
            return None;
        }
        s.push_str(t.text(text));
    }
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(T, &str)> {
        tokenize(text)
            .iter()
            .map(|t| (t.kind, t.text(text)))
            .collect()
    }

    #[test]
    fn a_line_comment_ends_its_line() {
        assert_eq!(
            kinds("a = 1 # one\r\nb // two\n/* three */"),
            [
                (T::Ident, "a"),
                (T::Equal, "="),
                (T::NumberLit, "1"),
                (T::Comment, "# one"),
                (T::Newline, "\r\n"),
                (T::Ident, "b"),
                (T::Comment, "// two"),
                (T::Newline, "\n"),
                (T::Comment, "/* three */"),
            ]
        );
    }

    #[test]
    fn a_string_left_open_ends_at_its_line() {
        let text = "a = \"x${y}\nb = \"$z\"";
        let toks = tokenize(text);
        let ends: Vec<usize> = toks
            .iter()
            .enumerate()
            .filter(|(_, t)| closes_string(t))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(ends.len(), 2, "{:?}", kinds(text));
        assert_eq!(toks[ends[0] + 1].kind, T::Newline);
        let open = toks
            .iter()
            .rposition(|t| t.kind == T::OQuote)
            .expect("a string");
        assert_eq!(
            literal_string(text, &toks[open..=ends[1]]).as_deref(),
            Some("$z")
        );
    }

    #[test]
    fn an_expression_may_end_with_a_heredoc_marker() {
        let text = "<<EOT\nhi\nEOT";
        assert!(!tokenize(text).iter().any(closes_string));
        assert!(tokenize_expr(text).iter().any(closes_string));
    }
}
