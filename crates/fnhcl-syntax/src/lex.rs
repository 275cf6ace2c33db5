//! A forgiving tokenizer: it never fails, so the text being typed (an
//! unclosed string, a dangling `.`, an unbalanced brace) still gives tokens
//! up to the cursor. The editor features use it where there is no syntax
//! tree, and the parser's bracket pre-scan ([`crate::parse_file`]) uses it
//! to count unclosed brackets. It knows just enough of HCL
//! for that: identifiers, numbers, quoted strings and heredocs with their
//! `${ }` / `%{ }` interpolations, comments, punctuation.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tok {
    Ident,
    Number,
    /// The opening `"` of a quoted string (or `<<EOF` of a heredoc).
    StrOpen,
    /// Literal text inside a string.
    StrText,
    /// The closing `"` (or the heredoc's end marker). An unterminated
    /// string ends, empty, at the end of its line.
    StrClose,
    /// `${` or `%{` inside a string.
    InterpOpen,
    /// The `}` that closes an interpolation.
    InterpClose,
    /// A one-character punctuation or operator: `{ } [ ] ( ) . , = : ? ...`
    Punct(u8),
    /// A two-character operator (`==`, `=>`, `!=`, `<=`, `>=`, `&&`, `||`, `...`).
    Op,
    Newline,
    /// `# ...`, `// ...` or `/* ... */`.
    Comment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

enum Mode {
    /// Expressions; `interp` inside `${ }`, counting the braces opened in it.
    Code {
        interp: bool,
        braces: u32,
    },
    Str,
    Heredoc {
        tag: String,
    },
}

pub fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

pub fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c >= 0x80
}

/// The tokens of `text`, in order.
pub fn tokenize(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut modes = vec![Mode::Code {
        interp: false,
        braces: 0,
    }];
    let mut i = 0usize;
    let push = |out: &mut Vec<Token>, kind, s: usize, e: usize| {
        out.push(Token {
            kind,
            start: s as u32,
            end: e as u32,
        })
    };
    while i < b.len() {
        let c = b[i];
        match modes.last_mut().expect("the base mode is never popped") {
            Mode::Str => {
                let s = i;
                let mut j = i;
                while j < b.len() {
                    match b[j] {
                        b'\\' => j = (j + 2).min(b.len()),
                        b'$' | b'%'
                            if b.get(j + 1) == Some(&b[j]) && b.get(j + 2) == Some(&b'{') =>
                        {
                            j += 3
                        }
                        b'$' | b'%' if b.get(j + 1) == Some(&b'{') => break,
                        b'"' | b'\n' => break,
                        _ => j += 1,
                    }
                }
                if j > s {
                    push(&mut out, Tok::StrText, s, j);
                }
                i = j;
                if i >= b.len() {
                    break;
                }
                match b[i] {
                    b'"' => {
                        push(&mut out, Tok::StrClose, i, i + 1);
                        modes.pop();
                        i += 1;
                    }
                    b'\n' => {
                        // Unterminated: the string ends here, the newline stays.
                        push(&mut out, Tok::StrClose, i, i);
                        modes.pop();
                    }
                    _ => {
                        push(&mut out, Tok::InterpOpen, i, i + 2);
                        modes.push(Mode::Code {
                            interp: true,
                            braces: 0,
                        });
                        i += 2;
                    }
                }
            }
            Mode::Heredoc { tag } => {
                let line_start = i == 0 || b[i - 1] == b'\n';
                let line_end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                if line_start && text[i..line_end].trim() == tag {
                    push(&mut out, Tok::StrClose, i, line_end);
                    modes.pop();
                    i = line_end;
                    continue;
                }
                let s = i;
                let mut j = i;
                while j < line_end {
                    let sigil = b[j] == b'$' || b[j] == b'%';
                    if sigil && b.get(j + 1) == Some(&b[j]) && b.get(j + 2) == Some(&b'{') {
                        // `$${` / `%%{`: an escaped, literal `${` / `%{`.
                        j += 3;
                    } else if sigil && b.get(j + 1) == Some(&b'{') {
                        break;
                    } else {
                        j += 1;
                    }
                }
                let j = j.min(line_end);
                if j > s {
                    push(&mut out, Tok::StrText, s, j);
                }
                if j < line_end {
                    push(&mut out, Tok::InterpOpen, j, j + 2);
                    modes.push(Mode::Code {
                        interp: true,
                        braces: 0,
                    });
                    i = j + 2;
                } else {
                    // The newline belongs to the heredoc's text.
                    i = (line_end + 1).min(b.len());
                }
            }
            Mode::Code { interp, braces } => {
                let s = i;
                match c {
                    b'\n' => {
                        push(&mut out, Tok::Newline, i, i + 1);
                        i += 1;
                    }
                    b' ' | b'\t' | b'\r' => i += 1,
                    b'#' | b'/' if c == b'#' || b.get(i + 1) == Some(&b'/') => {
                        i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                        push(&mut out, Tok::Comment, s, i);
                    }
                    b'/' if b.get(i + 1) == Some(&b'*') => {
                        i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
                        push(&mut out, Tok::Comment, s, i);
                    }
                    b'"' => {
                        push(&mut out, Tok::StrOpen, i, i + 1);
                        modes.push(Mode::Str);
                        i += 1;
                    }
                    b'<' if b.get(i + 1) == Some(&b'<') && heredoc_tag(&text[i..]).is_some() => {
                        let (tag, len) = heredoc_tag(&text[i..]).expect("checked");
                        push(&mut out, Tok::StrOpen, i, i + len);
                        i += len;
                        // The heredoc starts on the next line.
                        i = text[i..].find('\n').map_or(b.len(), |n| i + n + 1);
                        modes.push(Mode::Heredoc { tag });
                    }
                    b'{' => {
                        if *interp {
                            *braces += 1;
                        }
                        push(&mut out, Tok::Punct(c), i, i + 1);
                        i += 1;
                    }
                    b'}' => {
                        if *interp && *braces == 0 {
                            push(&mut out, Tok::InterpClose, i, i + 1);
                            modes.pop();
                        } else {
                            if *interp {
                                *braces -= 1;
                            }
                            push(&mut out, Tok::Punct(c), i, i + 1);
                        }
                        i += 1;
                    }
                    _ if is_ident_start(c) => {
                        while i < b.len() && is_ident_char(b[i]) {
                            i += 1;
                        }
                        // Back up to a char boundary (identifier chars are
                        // ASCII or whole multi-byte chars, so this is a no-op
                        // except at a cut-off end).
                        while !text.is_char_boundary(i) {
                            i -= 1;
                        }
                        if i == s {
                            i = s + 1;
                            while !text.is_char_boundary(i) {
                                i += 1;
                            }
                        }
                        push(&mut out, Tok::Ident, s, i);
                    }
                    b'0'..=b'9' => {
                        while i < b.len()
                            && (b[i].is_ascii_digit()
                                || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit))
                                || b[i] == b'e'
                                || b[i] == b'E')
                        {
                            i += 1;
                        }
                        push(&mut out, Tok::Number, s, i);
                    }
                    _ => {
                        let two = text.get(i..i + 2).unwrap_or("");
                        if two == ".." && text.get(i..i + 3) == Some("...") {
                            push(&mut out, Tok::Op, i, i + 3);
                            i += 3;
                        } else if matches!(two, "==" | "=>" | "!=" | "<=" | ">=" | "&&" | "||") {
                            push(&mut out, Tok::Op, i, i + 2);
                            i += 2;
                        } else {
                            let mut e = i + 1;
                            while !text.is_char_boundary(e) {
                                e += 1;
                            }
                            push(&mut out, Tok::Punct(c), i, e);
                            i = e;
                        }
                    }
                }
            }
        }
    }
    out
}

/// `<<EOF` or `<<-EOF` at the start of `s`: the tag and the marker's length.
fn heredoc_tag(s: &str) -> Option<(String, usize)> {
    let rest = s.strip_prefix("<<")?;
    let (rest, dash) = match rest.strip_prefix('-') {
        Some(r) => (r, 1),
        None => (rest, 0),
    };
    let n = rest.bytes().take_while(|c| is_ident_char(*c)).count();
    if n == 0 || !rest.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    Some((rest[..n].to_owned(), 2 + dash + n))
}

/// The text of a token.
pub fn text_of<'t>(text: &'t str, t: &Token) -> &'t str {
    text.get(t.start as usize..t.end as usize).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Tok, &str)> {
        tokenize(text)
            .iter()
            .map(|t| (t.kind, text_of(text, t)))
            .collect()
    }

    #[test]
    fn strings_with_interpolations_and_unterminated_ones() {
        let k = kinds("a = \"x${req.b}y\"\nc = \"open\nd");
        assert_eq!(
            k,
            vec![
                (Tok::Ident, "a"),
                (Tok::Punct(b'='), "="),
                (Tok::StrOpen, "\""),
                (Tok::StrText, "x"),
                (Tok::InterpOpen, "${"),
                (Tok::Ident, "req"),
                (Tok::Punct(b'.'), "."),
                (Tok::Ident, "b"),
                (Tok::InterpClose, "}"),
                (Tok::StrText, "y"),
                (Tok::StrClose, "\""),
                (Tok::Newline, "\n"),
                (Tok::Ident, "c"),
                (Tok::Punct(b'='), "="),
                (Tok::StrOpen, "\""),
                (Tok::StrText, "open"),
                (Tok::StrClose, ""),
                (Tok::Newline, "\n"),
                (Tok::Ident, "d"),
            ]
        );
    }

    #[test]
    fn heredocs_comments_and_operators() {
        let k = kinds("x = <<EOT\nhi ${a}\nEOT\n# c\ny = a == b // d\n");
        let idents: Vec<&str> = k
            .iter()
            .filter(|(t, _)| *t == Tok::Ident)
            .map(|(_, s)| *s)
            .collect();
        assert_eq!(idents, ["x", "a", "y", "a", "b"]);
        assert!(k.contains(&(Tok::Op, "==")));
        assert!(k.contains(&(Tok::StrClose, "EOT")));
    }

    #[test]
    fn escaped_interpolations_are_text() {
        for text in ["a = \"$${x}\"\n", "a = <<EOT\n$${x} %%{y}\nEOT\n"] {
            assert!(
                !kinds(text).iter().any(|(t, _)| *t == Tok::InterpOpen),
                "{text:?}: {:?}",
                kinds(text)
            );
        }
    }

    #[test]
    fn never_panics_on_odd_text() {
        for t in [
            "\"${",
            "<<",
            "<<-X",
            "/*",
            "é.ü",
            "\"\\",
            "${}}}",
            "a.\u{1F600}",
        ] {
            tokenize(t);
        }
    }
}
