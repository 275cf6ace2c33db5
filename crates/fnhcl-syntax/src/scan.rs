//! A bracket pre-scan run before `hcl-edit`.
//!
//! hcl-edit backtracks exponentially on some unclosed brackets (for example
//! `0+l*{` repeated: every unclosed `{` after an operator doubles the parse
//! time; twenty take seconds). Found by `cargo fuzz run parse`. This scanner
//! lexes just enough of HCL (comments, quoted templates with `${`/`%{`,
//! heredocs) to match brackets; when many are left unclosed it reports the
//! problem itself instead of handing the text to the parser. A few unclosed
//! brackets are cheap for hcl-edit, whose messages are better, so they are
//! left to it.

use fnhcl_base::{Diagnostic, FileId, Span};

/// Unclosed brackets tolerated before the scanner reports the problem.
const MAX_UNCLOSED: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// `{`, `[` or `(` in expression or body context.
    Bracket(u8),
    /// `${` or `%{` inside a quoted template or heredoc.
    Interp,
    /// A quoted template.
    Quote,
    /// A heredoc whose closing marker is this text.
    Heredoc(usize, usize),
}

/// Returns a diagnostic when the brackets of `text` are so unbalanced that
/// parsing could take too long.
pub(crate) fn check_brackets(file: FileId, text: &str) -> Option<Diagnostic> {
    let b = text.as_bytes();
    let mut stack: Vec<(Open, usize)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let top = stack.last().map(|&(o, _)| o);
        match top {
            Some(Open::Quote) => match b[i] {
                b'\\' => i += 2,
                b'"' => {
                    stack.pop();
                    i += 1;
                }
                b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                    stack.push((Open::Interp, i));
                    i += 2;
                }
                b'$' | b'%' if b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'{') => {
                    i += 3;
                }
                b'\n' => {
                    // An unterminated quoted string ends at the line end.
                    stack.pop();
                    i += 1;
                }
                _ => i += 1,
            },
            Some(Open::Heredoc(ms, me)) => {
                // At a line start: is this the closing marker?
                let line_end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                let line = &text[i..line_end];
                if line.trim() == &text[ms..me] {
                    stack.pop();
                    i = line_end;
                    continue;
                }
                // Scan the line for interpolations.
                let mut j = i;
                let mut opened = false;
                while j < line_end {
                    if (b[j] == b'$' || b[j] == b'%') && b.get(j + 1) == Some(&b[j]) {
                        j += 3;
                    } else if (b[j] == b'$' || b[j] == b'%') && b.get(j + 1) == Some(&b'{') {
                        stack.push((Open::Interp, j));
                        i = j + 2;
                        opened = true;
                        break;
                    } else {
                        j += 1;
                    }
                }
                if !opened {
                    i = line_end + 1;
                }
            }
            _ => {
                let c = b[i];
                match c {
                    b'#' => i = skip_line(b, i),
                    b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
                    b'/' if b.get(i + 1) == Some(&b'*') => {
                        i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                    }
                    b'"' => {
                        stack.push((Open::Quote, i));
                        i += 1;
                    }
                    b'<' if b.get(i + 1) == Some(&b'<') => {
                        let mut j = i + 2;
                        if b.get(j) == Some(&b'-') {
                            j += 1;
                        }
                        let ms = j;
                        while j < b.len()
                            && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'-')
                        {
                            j += 1;
                        }
                        if j > ms && matches!(b.get(j), Some(b'\n') | Some(b'\r')) {
                            stack.push((Open::Heredoc(ms, j), i));
                            i = skip_line(b, j) + 1;
                        } else {
                            i = j.max(i + 2);
                        }
                    }
                    b'{' | b'[' | b'(' => {
                        stack.push((Open::Bracket(c), i));
                        i += 1;
                    }
                    b'}' | b']' | b')' => {
                        let want = match c {
                            b'}' => b'{',
                            b']' => b'[',
                            _ => b'(',
                        };
                        match top {
                            Some(Open::Bracket(o)) if o == want => {
                                stack.pop();
                            }
                            Some(Open::Interp) if c == b'}' => {
                                stack.pop();
                            }
                            _ => return too_many(file, &stack),
                        }
                        i += 1;
                    }
                    _ => i += 1,
                }
            }
        }
    }
    too_many(file, &stack)
}

fn skip_line(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |n| i + n)
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
        Diagnostic::error(
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
