//! The one lexer of HCL native syntax: text to tokens, never failing.
//!
//! It reads text as hashicorp/hcl's scanner does (the token kinds, where a
//! token starts and ends, the template modes of quoted strings, heredocs
//! and `${ }`/`%{ }` sequences), because the parser's errors are placed on
//! these tokens and must land where HCL's land. Characters the language
//! does not use become [`T::Invalid`] (and friends) tokens, reported by
//! [`invalid_tokens`]; comments and newlines are tokens too, so the
//! formatter and the editor features read the same stream as the parser.

use fnhcl_base::{Diagnostic, FileId, Span, codes};

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum T {
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    /// The `"` opening a quoted template.
    OQuote,
    /// The `"` closing it.
    CQuote,
    /// `<<EOT` or `<<-EOT`, with the newline after it.
    OHeredoc,
    /// A heredoc's closing marker (without the newline after it, which is
    /// a [`T::Newline`] of its own).
    CHeredoc,
    Star,
    Slash,
    Plus,
    Minus,
    Percent,
    Equal,
    EqualOp,
    NotEqual,
    Lt,
    LtEq,
    Gt,
    GtEq,
    And,
    Or,
    Bang,
    Dot,
    Comma,
    DoubleColon,
    Ellipsis,
    FatArrow,
    Question,
    Colon,
    /// `${` or `${~`.
    TemplateInterp,
    /// `%{` or `%{~`.
    TemplateControl,
    /// The `}` or `~}` that ends a template sequence.
    TemplateSeqEnd,
    /// Literal text of a quoted template (escapes not yet applied).
    QuotedLit,
    /// Literal text of a heredoc (one line at most, its newline included).
    StringLit,
    NumberLit,
    Ident,
    /// `# …` and `// …` (with the newline ending them), `/* … */`.
    Comment,
    Newline,
    Eof,
    BitwiseAnd,
    BitwiseOr,
    BitwiseNot,
    BitwiseXor,
    Apostrophe,
    Backtick,
    Semicolon,
    /// A character the language does not use.
    Invalid,
    /// Newlines inside a quoted template.
    QuotedNewline,
}

impl T {
    /// The bracket that closes or opens this one.
    pub fn opposite(self) -> Option<T> {
        Some(match self {
            T::OBrace => T::CBrace,
            T::OBrack => T::CBrack,
            T::OParen => T::CParen,
            T::OQuote => T::CQuote,
            T::OHeredoc => T::CHeredoc,
            T::CBrace => T::OBrace,
            T::CBrack => T::OBrack,
            T::CParen => T::OParen,
            T::CQuote => T::OQuote,
            T::CHeredoc => T::OHeredoc,
            T::TemplateInterp | T::TemplateControl => T::TemplateSeqEnd,
            T::TemplateSeqEnd => T::TemplateInterp,
            _ => return None,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: T,
    pub start: u32,
    pub end: u32,
}

impl Token {
    pub fn text<'t>(&self, text: &'t str) -> &'t str {
        &text[self.start as usize..self.end as usize]
    }

    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }
}

/// The first character of an identifier.
pub fn is_ident_start(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_start(c)
}

/// A character after the first of an identifier.
pub fn is_ident_continue(c: char) -> bool {
    c == '-' || unicode_ident::is_xid_continue(c)
}

enum Mode {
    /// Expressions and bodies.
    Main,
    Quoted,
    Heredoc {
        marker: (usize, usize),
        start_of_line: bool,
    },
}

/// The tokens of `text`, ending with one [`T::Eof`]. A leading byte-order
/// mark is skipped.
pub fn lex(text: &str) -> Vec<Token> {
    lex_with(text, false)
}

/// [`lex`] for a text that is one expression: a heredoc's closing marker
/// may end the text without a newline after it.
pub fn lex_expr(text: &str) -> Vec<Token> {
    lex_with(text, true)
}

fn lex_with(text: &str, marker_at_eof: bool) -> Vec<Token> {
    let mut l = Lexer {
        marker_at_eof,
        text,
        b: text.as_bytes(),
        pos: 0,
        out: Vec::with_capacity(text.len() / 4 + 1),
        modes: vec![Mode::Main],
        braces: 0,
        returns: Vec::new(),
    };
    if text.starts_with('\u{feff}') {
        l.pos = 3;
    }
    l.run();
    let n = text.len() as u32;
    l.out.push(Token {
        kind: T::Eof,
        start: n,
        end: n,
    });
    l.out
}

struct Lexer<'a> {
    /// A heredoc's marker may end the text (no newline after it).
    marker_at_eof: bool,
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    out: Vec<Token>,
    modes: Vec<Mode>,
    /// Open braces, counted across template sequences.
    braces: i64,
    /// The brace counts at which a `}` ends a template sequence.
    returns: Vec<i64>,
}

impl Lexer<'_> {
    fn push(&mut self, kind: T, start: usize, end: usize) {
        self.out.push(Token {
            kind,
            start: start as u32,
            end: end as u32,
        });
        self.pos = end;
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn char_end(&self, i: usize) -> usize {
        let mut j = i + 1;
        while j < self.b.len() && !self.text.is_char_boundary(j) {
            j += 1;
        }
        j
    }

    fn run(&mut self) {
        while self.pos < self.b.len() {
            match self.modes.last() {
                Some(Mode::Main) | None => self.main(),
                Some(Mode::Quoted) => self.quoted(),
                Some(Mode::Heredoc { .. }) => self.heredoc(),
            }
        }
    }

    /// The end of an identifier starting at `i`, if one starts there.
    fn ident_end(&self, i: usize) -> Option<usize> {
        let c = self.text[i..].chars().next()?;
        if !is_ident_start(c) {
            return None;
        }
        let mut j = i + c.len_utf8();
        // ASCII first: one table-free test per byte.
        loop {
            match self.b.get(j) {
                Some(&c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' => j += 1,
                Some(&c) if c >= 0x80 => {
                    let ch = self.text[j..].chars().next().unwrap_or(' ');
                    if !is_ident_continue(ch) {
                        break;
                    }
                    j += ch.len_utf8();
                }
                _ => break,
            }
        }
        Some(j)
    }

    fn number_end(&self, i: usize) -> usize {
        // Digits, dots and exponents, but not ending on a dot.
        let mut j = i + 1;
        let mut last = j;
        loop {
            match self.at(j) {
                b'0'..=b'9' => {
                    j += 1;
                    last = j;
                }
                b'.' => j += 1,
                b'e' | b'E' => {
                    let k = j + 1 + usize::from(matches!(self.at(j + 1), b'+' | b'-'));
                    if self.at(k).is_ascii_digit() {
                        j = k + 1;
                        last = j;
                    } else {
                        break;
                    }
                }
                _ => break,
            }
        }
        last
    }

    /// The template sequence opener at `i` (`${`, `${~`, `%{`, `%{~`).
    fn sequence(&mut self, i: usize) {
        let kind = if self.b[i] == b'$' {
            T::TemplateInterp
        } else {
            T::TemplateControl
        };
        let end = i + 2 + usize::from(self.at(i + 2) == b'~');
        self.push(kind, i, end);
        self.braces += 1;
        self.returns.push(self.braces);
        if let Some(Mode::Heredoc { start_of_line, .. }) = self.modes.last_mut() {
            *start_of_line = false;
        }
        self.modes.push(Mode::Main);
    }

    fn close_brace(&mut self, i: usize, end: usize, tilde: bool) {
        if self.returns.last() == Some(&self.braces) {
            self.push(T::TemplateSeqEnd, i, end);
            self.braces -= 1;
            self.returns.pop();
            self.modes.pop();
        } else {
            self.push(if tilde { T::TemplateSeqEnd } else { T::CBrace }, i, end);
            self.braces -= 1;
        }
    }

    fn main(&mut self) {
        let i = self.pos;
        let c = self.b[i];
        let next = self.at(i + 1);
        let one = |k| (k, i + 1);
        let two = |k| (k, i + 2);
        let (kind, end) = match c {
            b' ' | b'\t' => {
                let mut j = i + 1;
                while matches!(self.at(j), b' ' | b'\t') {
                    j += 1;
                }
                self.pos = j;
                return;
            }
            b'0'..=b'9' => (T::NumberLit, self.number_end(i)),
            b'\n' => one(T::Newline),
            b'\r' if next == b'\n' => two(T::Newline),
            b'#' => (T::Comment, self.line_comment_end(i)),
            b'/' if next == b'/' => (T::Comment, self.line_comment_end(i)),
            b'/' if next == b'*' => match self.text[i + 2..].find("*/") {
                Some(k) => (T::Comment, i + 2 + k + 2),
                None => one(T::Slash),
            },
            b'=' if next == b'=' => two(T::EqualOp),
            b'=' if next == b'>' => two(T::FatArrow),
            b'!' if next == b'=' => two(T::NotEqual),
            b'>' if next == b'=' => two(T::GtEq),
            b'<' if next == b'=' => two(T::LtEq),
            b'&' if next == b'&' => two(T::And),
            b'|' if next == b'|' => two(T::Or),
            b':' if next == b':' => two(T::DoubleColon),
            b'.' if next == b'.' && self.at(i + 2) == b'.' => (T::Ellipsis, i + 3),
            b'{' => {
                self.push(T::OBrace, i, i + 1);
                self.braces += 1;
                return;
            }
            b'}' => {
                self.close_brace(i, i + 1, false);
                return;
            }
            b'~' if next == b'}' => {
                self.close_brace(i, i + 2, true);
                return;
            }
            b'"' => {
                self.push(T::OQuote, i, i + 1);
                self.modes.push(Mode::Quoted);
                return;
            }
            b'<' if next == b'<' => match self.heredoc_start(i) {
                Some(h) => {
                    self.push(T::OHeredoc, i, h.end);
                    self.modes.push(Mode::Heredoc {
                        marker: h.marker,
                        start_of_line: true,
                    });
                    return;
                }
                None => one(T::Lt),
            },
            b'[' => one(T::OBrack),
            b']' => one(T::CBrack),
            b'(' => one(T::OParen),
            b')' => one(T::CParen),
            b'.' => one(T::Dot),
            b',' => one(T::Comma),
            b'*' => one(T::Star),
            b'/' => one(T::Slash),
            b'%' => one(T::Percent),
            b'+' => one(T::Plus),
            b'-' => one(T::Minus),
            b'=' => one(T::Equal),
            b'<' => one(T::Lt),
            b'>' => one(T::Gt),
            b'!' => one(T::Bang),
            b'?' => one(T::Question),
            b':' => one(T::Colon),
            b'&' => one(T::BitwiseAnd),
            b'|' => one(T::BitwiseOr),
            b'~' => one(T::BitwiseNot),
            b'^' => one(T::BitwiseXor),
            b';' => one(T::Semicolon),
            b'`' => one(T::Backtick),
            b'\'' => one(T::Apostrophe),
            _ => match self.ident_end(i) {
                Some(e) => (T::Ident, e),
                None => (T::Invalid, self.char_end(i)),
            },
        };
        self.push(kind, i, end);
    }

    fn line_comment_end(&self, i: usize) -> usize {
        match memchr::memchr(b'\n', &self.b[i..]) {
            Some(k) => i + k + 1,
            None => self.b.len(),
        }
    }

    /// `<<EOT` or `<<-EOT` followed by a newline at `i`.
    fn heredoc_start(&self, i: usize) -> Option<HeredocStart> {
        let s = i + 2 + usize::from(self.at(i + 2) == b'-');
        let e = self.ident_end(s)?;
        let end = match (self.at(e), self.at(e + 1)) {
            (b'\n', _) => e + 1,
            (b'\r', b'\n') => e + 2,
            _ => return None,
        };
        Some(HeredocStart {
            marker: (s, e),
            end,
        })
    }

    fn quoted(&mut self) {
        let i = self.pos;
        let c = self.b[i];
        let next = self.at(i + 1);
        match c {
            b'$' | b'%' if next == b'{' => self.sequence(i),
            b'"' => {
                self.push(T::CQuote, i, i + 1);
                self.modes.pop();
            }
            b'\n' | b'\r' => {
                let mut j = i + 1;
                while matches!(self.at(j), b'\n' | b'\r') {
                    j += 1;
                }
                if self.b[i..j].contains(&b'\n') {
                    // A string left open at the end of its line (being
                    // typed, most likely) ends there: an empty token marks
                    // the place, and the line break is read as code. HCL
                    // reads on into the next lines; its first error, the
                    // newline in the string, is the same.
                    self.push(T::QuotedNewline, i, i);
                    self.modes.pop();
                } else {
                    self.push(T::QuotedNewline, i, j);
                }
            }
            b'\\'
                if matches!(next, b'\n' | b'\r' | 0) && i + 1 >= self.b.len()
                    || matches!(next, b'\n' | b'\r') =>
            {
                self.push(T::Invalid, i, i + 1);
            }
            _ => {
                // A run of literal text: escapes, `$${`/`%%{`, and `$`/`%`
                // not starting a sequence.
                let mut j = i;
                while j < self.b.len() {
                    match self.b[j] {
                        b'"' | b'\n' | b'\r' => break,
                        b'\\' => {
                            if matches!(self.at(j + 1), b'\n' | b'\r') || j + 1 >= self.b.len() {
                                break;
                            }
                            j = self.char_end(j + 1);
                        }
                        b'$' | b'%' => {
                            if j > i {
                                break;
                            }
                            match self.dollar(j) {
                                Some(e) => j = e,
                                None => return,
                            }
                            break;
                        }
                        _ => j += 1,
                    }
                }
                self.push(T::QuotedLit, i, j);
            }
        }
    }

    /// The end of the literal token at a `$` or `%` that does not start a
    /// sequence (HCL's scanner makes it a token of its own: the character,
    /// or the `$${`/`%%{` escape). At the end of the text it matches
    /// nothing: the rest is an invalid token (pushed; `None`).
    fn dollar(&mut self, j: usize) -> Option<usize> {
        let d = self.b[j];
        if j + 1 == self.b.len() {
            self.push(T::Invalid, j, j + 1);
            return None;
        }
        if self.at(j + 1) == d && self.at(j + 2) == b'{' {
            Some(j + 3)
        } else {
            Some(j + 1)
        }
    }

    fn heredoc(&mut self) {
        let i = self.pos;
        let c = self.b[i];
        if (c == b'$' || c == b'%') && self.at(i + 1) == b'{' {
            self.sequence(i);
            return;
        }
        // Literal text up to the end of the line or a sequence.
        let mut j = i;
        let mut eol = None;
        while j < self.b.len() {
            match self.b[j] {
                b'\n' => {
                    eol = Some(j + 1);
                    break;
                }
                b'\r' if self.at(j + 1) == b'\n' => {
                    eol = Some(j + 2);
                    break;
                }
                b'\r' => {
                    // No heredoc text holds a lone carriage return: HCL's
                    // scanner stops here, the rest of the text one invalid
                    // token.
                    if j == i {
                        self.push(T::Invalid, i, self.b.len());
                        return;
                    }
                    break;
                }
                b'$' | b'%' => {
                    if j > i {
                        break;
                    }
                    match self.dollar(j) {
                        Some(e) => j = e,
                        None => return,
                    }
                    break;
                }
                _ => j += 1,
            }
        }
        let Some(Mode::Heredoc {
            marker,
            start_of_line,
        }) = self.modes.last_mut()
        else {
            return;
        };
        let Some(end) = eol else {
            if self.marker_at_eof
                && j == self.b.len()
                && *start_of_line
                && self.text[i..j].trim_matches(|c: char| c.is_ascii_whitespace())
                    == &self.text[marker.0..marker.1]
            {
                self.modes.pop();
                self.push(T::CHeredoc, i, j);
                return;
            }
            *start_of_line = false;
            self.push(T::StringLit, i, j);
            return;
        };
        if *start_of_line {
            let line = self.text[i..end].trim_matches(|c: char| c.is_ascii_whitespace());
            if line == &self.text[marker.0..marker.1] {
                // The marker ends at the last non-blank before the newline.
                let nl = if self.b[end - 2] == b'\r' {
                    end - 2
                } else {
                    end - 1
                };
                self.modes.pop();
                self.push(T::CHeredoc, i, nl);
                self.push(T::Newline, nl, end);
                return;
            }
        }
        *start_of_line = true;
        self.push(T::StringLit, i, end);
    }
}

struct HeredocStart {
    marker: (usize, usize),
    end: usize,
}

/// The lexical errors of a token stream, as HCL reports them before
/// parsing: invalid characters, bitwise operators, newlines in quoted
/// strings.
pub fn invalid_tokens(file: FileId, text: &str, tokens: &[Token]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut told = [0u32; 4]; // bitwise, backtick, apostrophe, semicolon
    for t in tokens {
        let span = Span::new(file, t.start as usize, t.end as usize);
        let error = |summary: &str, detail: &str| {
            Diagnostic::error(summary, detail)
                .with_span(span)
                .with_code(codes::SYNTAX)
        };
        match t.kind {
            T::BitwiseAnd | T::BitwiseOr | T::BitwiseXor | T::BitwiseNot if told[0] < 4 => {
                let hint = match t.kind {
                    T::BitwiseAnd => " Did you mean boolean AND (\"&&\")?",
                    T::BitwiseOr => " Did you mean boolean OR (\"||\")?",
                    T::BitwiseNot => " Did you mean boolean NOT (\"!\")?",
                    _ => "",
                };
                out.push(error(
                    "Unsupported operator",
                    &format!("Bitwise operators are not supported.{hint}"),
                ));
                told[0] += 1;
            }
            T::Backtick => {
                if told[1] % 2 == 0 {
                    out.push(error(
                        "Invalid character",
                        "The \"`\" character is not valid. To create a multi-line string, use the \"heredoc\" syntax, like \"<<EOT\".",
                    ));
                }
                if told[1] <= 2 {
                    told[1] += 1;
                }
            }
            T::Apostrophe => {
                if told[2] % 2 == 0 {
                    out.push(error(
                        "Invalid character",
                        "Single quotes are not valid. Use double quotes (\") to enclose strings.",
                    ));
                }
                if told[2] <= 2 {
                    told[2] += 1;
                }
            }
            T::Semicolon if told[3] < 1 => {
                out.push(error(
                    "Invalid character",
                    "The \";\" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.",
                ));
                told[3] += 1;
            }
            T::QuotedNewline => {
                // The newline characters (an empty token stands for those
                // that ended the string).
                let b = text.as_bytes();
                let mut end = t.end as usize;
                while matches!(b.get(end), Some(b'\n' | b'\r')) {
                    end += 1;
                }
                out.push(
                    Diagnostic::error(
                        "Invalid multi-line string",
                        "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
                    )
                    .with_span(Span::new(file, t.start as usize, end))
                    .with_code(codes::SYNTAX),
                );
            }
            T::Invalid => {
                let detail = match t.text(text) {
                    "\u{201c}" | "\u{201d}" => {
                        "\"Curly quotes\" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a \"straight quote\"."
                    }
                    _ => "This character is not used within the language.",
                };
                out.push(error("Invalid character", detail));
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(T, &str)> {
        lex(text).iter().map(|t| (t.kind, t.text(text))).collect()
    }

    #[test]
    fn numbers_do_not_end_on_a_dot() {
        assert_eq!(
            kinds("1. 1.5e+3 1e"),
            vec![
                (T::NumberLit, "1"),
                (T::Dot, "."),
                (T::NumberLit, "1.5e+3"),
                (T::NumberLit, "1"),
                (T::Ident, "e"),
                (T::Eof, "")
            ]
        );
    }

    #[test]
    fn templates_nest() {
        let k = kinds("\"a${b}%{if c~}d\"");
        assert_eq!(
            k,
            vec![
                (T::OQuote, "\""),
                (T::QuotedLit, "a"),
                (T::TemplateInterp, "${"),
                (T::Ident, "b"),
                (T::TemplateSeqEnd, "}"),
                (T::TemplateControl, "%{"),
                (T::Ident, "if"),
                (T::Ident, "c"),
                (T::TemplateSeqEnd, "~}"),
                (T::QuotedLit, "d"),
                (T::CQuote, "\""),
                (T::Eof, "")
            ]
        );
    }

    #[test]
    fn heredocs_end_at_a_marker_line() {
        let k = kinds("<<EOT\nx ${y}\n  EOT\nz");
        assert_eq!(
            k,
            vec![
                (T::OHeredoc, "<<EOT\n"),
                (T::StringLit, "x "),
                (T::TemplateInterp, "${"),
                (T::Ident, "y"),
                (T::TemplateSeqEnd, "}"),
                (T::StringLit, "\n"),
                (T::CHeredoc, "  EOT"),
                (T::Newline, "\n"),
                (T::Ident, "z"),
                (T::Eof, "")
            ]
        );
    }

    #[test]
    fn unclosed_block_comment_is_a_slash() {
        assert_eq!(kinds("/* x")[0], (T::Slash, "/"));
        assert_eq!(kinds("# x\ny")[0], (T::Comment, "# x\n"));
    }
}
