//! A bracket pre-scan run before `hcl-edit`.
//!
//! hcl-edit backtracks exponentially on some unclosed brackets (for example
//! `0+l*{` repeated: every unclosed `{` after an operator doubles the parse
//! time; twenty take seconds). Found by `cargo fuzz run parse`. The tolerant
//! lexer ([`crate::lex`]) knows comments, quoted templates with `${`/`%{`
//! and heredocs; this matches the brackets of its tokens, and when many are
//! left unclosed it reports the problem itself instead of handing the text
//! to the parser. A few unclosed brackets are cheap for hcl-edit, whose
//! messages are better, so they are left to it.

use fnhcl_base::{Diagnostic, FileId, Span};

use crate::lex::{Tok, tokenize};

/// Unclosed brackets tolerated before the scanner reports the problem.
const MAX_UNCLOSED: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `{`, `[` or `(` in expression or body context.
    Bracket(u8),
    /// `${` or `%{` inside a quoted template or heredoc.
    Interp,
}

/// Returns a diagnostic when the brackets of `text` are so unbalanced that
/// parsing could take too long.
pub(crate) fn check_brackets(file: FileId, text: &str) -> Option<Diagnostic> {
    let mut stack: Vec<(Open, usize)> = Vec::new();
    for t in tokenize(text) {
        let at = t.start as usize;
        match t.kind {
            Tok::Punct(c @ (b'{' | b'[' | b'(')) => stack.push((Open::Bracket(c), at)),
            Tok::InterpOpen => stack.push((Open::Interp, at)),
            Tok::Punct(b'}' | b']' | b')') | Tok::InterpClose => {
                let want = match c_or_interp(t.kind) {
                    None => Open::Interp,
                    Some(b'}') => Open::Bracket(b'{'),
                    Some(b']') => Open::Bracket(b'['),
                    Some(_) => Open::Bracket(b'('),
                };
                match stack.last() {
                    Some(&(o, _)) if o == want => {
                        stack.pop();
                    }
                    _ => return too_many(file, &stack),
                }
            }
            _ => {}
        }
    }
    too_many(file, &stack)
}

/// The closing bracket of a token (`None`: the end of an interpolation).
fn c_or_interp(t: Tok) -> Option<u8> {
    match t {
        Tok::Punct(c) => Some(c),
        _ => None,
    }
}

fn too_many(file: FileId, stack: &[(Open, usize)]) -> Option<Diagnostic> {
    let unclosed = stack
        .iter()
        .filter(|(o, _)| matches!(o, Open::Bracket(_) | Open::Interp))
        .count();
    if unclosed <= MAX_UNCLOSED {
        return None;
    }
    let &(open, at) = stack
        .iter()
        .find(|(o, _)| matches!(o, Open::Bracket(_) | Open::Interp))?;
    let what = match open {
        Open::Bracket(b'{') => "{",
        Open::Bracket(b'[') => "[",
        Open::Bracket(_) => "(",
        _ => "${",
    };
    Some(
        crate::errors::syntax_error(
            "Unbalanced brackets",
            format!(
                "{unclosed} brackets are never closed; the first is this \"{what}\". Check the brackets' nesting."
            ),
        )
        .with_span(Span::new(file, at, at + what.len())),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str) -> Option<String> {
        check_brackets(FileId(0), text).map(|d| format!("{}: {}", d.summary, d.detail))
    }

    #[test]
    fn balanced_inputs_pass() {
        assert_eq!(check("a = { b = [1, (2)] }\n"), None);
        assert_eq!(check("a = \"${x} {{{{{{{{{{{\"\n"), None);
        assert_eq!(check("a = <<EOT\n{{{{{{{{{{{{ ${b}\nEOT\n"), None);
        assert_eq!(check("# {{{{{{{{{{{{\n/* [[[[[[[[[[[[ */ a = 1\n"), None);
        assert_eq!(check("a = \"$${{{{{{{{{{{{{{\"\n"), None);
    }

    #[test]
    fn many_unclosed_brackets_are_reported() {
        let text = "0+l*{\n".repeat(20);
        let msg = check(&text).expect("reported");
        assert!(msg.contains("20 brackets are never closed"), "{msg}");
    }

    #[test]
    fn a_few_unclosed_brackets_are_left_to_the_parser() {
        assert_eq!(check("a = {{{\n"), None);
    }
}
