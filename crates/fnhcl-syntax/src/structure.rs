//! A token-level check of a body's structure that names syntax errors the
//! way hashicorp/hcl's `hclsyntax` parser does.
//!
//! hcl-edit is a backtracking parser: when a body item fails it often
//! reports the start of the item (or of the file) rather than the token
//! that is wrong. This module is run only after hcl-edit has rejected a
//! file. It lexes the text, walks body items as HCL does (attribute, block
//! header with labels, single-line block, the newline after each item) and
//! follows expressions: operands and operators, the items of tuples,
//! objects, calls, parentheses and indexes, and `for` expressions. It
//! reports the first problem it finds, worded and placed as HCL words and
//! places it. Quoted strings and heredocs are skipped whole (apart from
//! their template directives); problems inside them are
//! left to the mapping of hcl-edit's own error, and [`Found::inner`] lists
//! the regions so the caller can tell whose error comes first.
//!
//! Size: one token-level pass that must word every error as hashicorp/hcl does;
//! it goes away with the error-recovering parser (issue 41).

use fnhcl_base::{Diagnostic, FileId, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum K {
    Ident,
    Number,
    Quoted,
    Heredoc,
    /// A heredoc without its closing marker (the rest of the file).
    OpenHeredoc,
    Newline,
    Eof,
    OBrace,
    CBrace,
    OBrack,
    CBrack,
    OParen,
    CParen,
    Comma,
    Equal,
    Dot,
    Ellipsis,
    Question,
    Colon,
    Arrow,
    /// A binary operator other than `-` and `*`.
    BinOp,
    Minus,
    Star,
    Bang,
}

#[derive(Clone, Copy, Debug)]
struct Tok {
    k: K,
    start: usize,
    end: usize,
    /// The end of HCL's first token of this one: the opening quote of a
    /// quoted template, the `<<EOT` line of a heredoc, else `end`.
    head: usize,
}

/// What the check found.
pub(crate) struct Found {
    /// The first structural error, if any.
    pub diag: Option<Diagnostic>,
    /// Where the error is (byte offset), to compare with hcl-edit's.
    pub at: usize,
    /// Byte ranges whose contents were not checked (bracketed groups,
    /// strings, heredocs) and lie before the error.
    pub inner: Vec<(usize, usize)>,
    /// Where the last token of the file starts.
    pub last_token: usize,
}

/// Checks the structure of a whole file. `None` when the text holds
/// something this check does not model (the caller then relies on
/// hcl-edit's error alone).
pub(crate) fn check(file: FileId, name: &str, text: &str) -> Option<Found> {
    let toks = match lex(name, text) {
        Ok(t) => t,
        Err(Lexed::GiveUp) => return None,
        Err(Lexed::Error(d, at)) => {
            return Some(Found {
                diag: Some(d.with_file(file)),
                at,
                inner: Vec::new(),
                last_token: text.len(),
            });
        }
    };
    let last_token = toks
        .iter()
        .rev()
        .find(|t| !matches!(t.k, K::Eof | K::Newline))
        .map_or(text.len(), |t| t.start);
    let mut p = Parser {
        text,
        toks,
        pos: 0,
        inner: Vec::new(),
        depth: 0,
        last_end: 0,
        nl_ignore: false,
    };
    match p.body(None) {
        Ok(()) => Some(Found {
            diag: None,
            at: text.len(),
            inner: p.inner,
            last_token,
        }),
        Err(Stop::GiveUp) => None,
        Err(Stop::Diag(d)) => {
            let at = d.found_at.unwrap_or(d.span.0);
            Some(Found {
                diag: Some(d.with_file(file)),
                at,
                inner: p.inner,
                last_token,
            })
        }
    }
}

/// HCL's error for what hcl-edit accepts but HCL does not: a quoted string
/// that runs over a line end ("Invalid multi-line string"), a carriage
/// return not followed by a line feed, and a heredoc whose closing marker
/// ends the file without a newline. Called on files
/// hcl-edit parsed.
pub(crate) fn accepted_by_hcl_edit_only(file: FileId, text: &str) -> Option<Diagnostic> {
    match lex("", text) {
        Err(Lexed::Error(d, _))
            if d.summary == MULTI_LINE_STRING
                || (d.summary == "Invalid character" && text[d.span.0..].starts_with('\r')) =>
        {
            Some(d.with_file(file))
        }
        Ok(toks) if toks.iter().any(|t| t.k == K::OpenHeredoc) => Some(
            crate::errors::syntax_error(
                "Unterminated template string",
                "No closing marker was found for the string.",
            )
            .with_span(Span::new(file, text.len(), text.len())),
        ),
        _ => None,
    }
}

const MULTI_LINE_STRING: &str = "Invalid multi-line string";

/// HCL's error for an object item whose key is not followed by `=` or `:`,
/// given hcl-edit's error offset (which may be at the token after the key,
/// inside it, or one token further).
pub(crate) fn object_separator(file: FileId, text: &str, offset: usize) -> Option<Diagnostic> {
    let toks = lex("", text).ok()?;
    let mut i = toks.iter().position(|t| t.end > offset)?;
    let separator = |k: K| matches!(k, K::OBrace | K::Comma | K::Newline);
    if i >= 2 && !separator(toks[i - 2].k) {
        i -= 1;
    }
    if i < 2 || !separator(toks[i - 2].k) {
        return None;
    }
    let next = toks[i];
    let (summary, detail, end) = match next.k {
        K::Newline | K::Comma => (
            "Missing attribute value",
            "Expected an attribute value, introduced by an equals sign (\"=\").",
            next.end,
        ),
        K::Ident => (
            "Missing key/value separator",
            "Expected an equals sign (\"=\") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.",
            next.end,
        ),
        K::Eof => return None,
        _ => ("Missing key/value separator", SEPARATOR_DETAIL, next.head),
    };
    Some(crate::errors::syntax_error(summary, detail).with_span(Span::new(file, next.start, end)))
}

/// The span of HCL's token at `offset` (for hcl-edit errors that point at
/// the start of the unexpected token).
pub(crate) fn token_at(file: FileId, text: &str, offset: usize) -> Option<Span> {
    let toks = lex("", text).ok()?;
    let t = toks.iter().find(|t| t.start == offset && t.k != K::Eof)?;
    Some(Span::new(file, t.start, t.head))
}

const SEPARATOR_DETAIL: &str =
    "Expected an equals sign (\"=\") to mark the beginning of the attribute value.";

/// A diagnostic before the file is known.
struct Pending {
    summary: &'static str,
    detail: String,
    span: (usize, usize),
    /// Where the problem was detected, when that is not the span's start
    /// (the end of the file for an unclosed bracket).
    found_at: Option<usize>,
}

impl Pending {
    fn new(summary: &'static str, detail: impl Into<String>, start: usize, end: usize) -> Self {
        Pending {
            summary,
            detail: detail.into(),
            span: (start, end),
            found_at: None,
        }
    }

    fn found_at(mut self, at: usize) -> Self {
        self.found_at = Some(at);
        self
    }

    fn with_file(self, file: FileId) -> Diagnostic {
        crate::errors::syntax_error(self.summary, self.detail).with_span(Span::new(
            file,
            self.span.0,
            self.span.1,
        ))
    }
}

enum Lexed {
    GiveUp,
    Error(Pending, usize),
}

enum Stop {
    GiveUp,
    Diag(Pending),
}

/// Nesting (templates inside interpolations, blocks inside blocks) beyond
/// which the check gives up; hcl-edit stops at 64 levels.
const MAX_DEPTH: usize = 128;

const ITEM_REQUIRED: &str = "Argument or block definition required";
const ITEM_REQUIRED_DETAIL: &str = "An argument or block definition is required here.";
const ITEM_REQUIRED_EQUALS: &str = "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.";
const UNCLOSED_BLOCK_DETAIL: &str = "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.";
const MISSING_EXPR_EOF: &str =
    "Expected the start of an expression, but found the end of the file.";

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_continue(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

fn lex(name: &str, text: &str) -> Result<Vec<Tok>, Lexed> {
    let b = text.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let mut tok = |k: K, end: usize| {
            let head = match k {
                K::Quoted => start + 1,
                K::Heredoc => text[start..end].find('\n').map_or(end, |n| start + n + 1),
                _ => end,
            };
            toks.push(Tok {
                k,
                start,
                end,
                head,
            })
        };
        match c {
            b' ' | b'\t' => i += 1,
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                tok(K::Newline, i + 2);
                i += 2;
            }
            // HCL's scanner knows a carriage return only before a line feed.
            b'\r' => {
                let (summary, detail) = invalid_character('\r');
                return Err(Lexed::Error(Pending::new(summary, detail, i, i + 1), i));
            }
            b'\n' => {
                tok(K::Newline, i + 1);
                i += 1;
            }
            // A line comment stands for the newline that ends it; HCL's
            // token covers the comment too.
            b'#' | b'/' if c == b'#' || b.get(i + 1) == Some(&b'/') => {
                let le = line_end(b, i);
                if le < b.len() {
                    tok(K::Newline, le + 1);
                }
                i = le + 1;
            }
            b'/' if b.get(i + 1) == Some(&b'*') && text[i + 2..].contains("*/") => {
                i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            b'"' => {
                let end = quoted_end(name, text, i, 0)?;
                tok(K::Quoted, end);
                i = end;
            }
            b'<' if b.get(i + 1) == Some(&b'<') && heredoc_marker(b, i).is_some() => {
                let Some(end) = heredoc_end(text, i) else {
                    // No closing marker: the rest of the file is the
                    // heredoc's text. HCL's token is the `<<EOT` line.
                    let line = text[i..].find('\n').map_or(text.len(), |n| i + n + 1);
                    tok(K::OpenHeredoc, line);
                    break;
                };
                heredoc_directives(name, text, i, end)?;
                tok(K::Heredoc, end);
                i = end;
            }
            b'{' => (tok(K::OBrace, i + 1), i += 1).1,
            b'}' => (tok(K::CBrace, i + 1), i += 1).1,
            b'[' => (tok(K::OBrack, i + 1), i += 1).1,
            b']' => (tok(K::CBrack, i + 1), i += 1).1,
            b'(' => (tok(K::OParen, i + 1), i += 1).1,
            b')' => (tok(K::CParen, i + 1), i += 1).1,
            b',' => (tok(K::Comma, i + 1), i += 1).1,
            b'?' => (tok(K::Question, i + 1), i += 1).1,
            b':' => (tok(K::Colon, i + 1), i += 1).1,
            b'-' => (tok(K::Minus, i + 1), i += 1).1,
            b'*' => (tok(K::Star, i + 1), i += 1).1,
            b'+' | b'/' | b'%' => (tok(K::BinOp, i + 1), i += 1).1,
            b'=' | b'!' | b'<' | b'>' => {
                let next = b.get(i + 1).copied();
                let (k, len) = match (c, next) {
                    (b'=', Some(b'=')) | (b'!', Some(b'=')) => (K::BinOp, 2),
                    (b'<', Some(b'=')) | (b'>', Some(b'=')) => (K::BinOp, 2),
                    (b'=', Some(b'>')) => (K::Arrow, 2),
                    (b'=', _) => (K::Equal, 1),
                    (b'!', _) => (K::Bang, 1),
                    _ => (K::BinOp, 1),
                };
                tok(k, i + len);
                i += len;
            }
            b'&' | b'|' if b.get(i + 1) == Some(&c) => (tok(K::BinOp, i + 2), i += 2).1,
            b'.' if text[i..].starts_with("...") => (tok(K::Ellipsis, i + 3), i += 3).1,
            b'.' => (tok(K::Dot, i + 1), i += 1).1,
            b'0'..=b'9' => {
                let end = number_end(b, i);
                tok(K::Number, end);
                i = end;
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                if !is_ident_start(ch) {
                    let (summary, detail) = invalid_character(ch);
                    return Err(Lexed::Error(
                        Pending::new(summary, detail, i, i + ch.len_utf8()),
                        i,
                    ));
                }
                let end = text[i..]
                    .char_indices()
                    .find(|&(_, c)| !is_ident_continue(c))
                    .map_or(text.len(), |(n, _)| i + n);
                tok(K::Ident, end);
                i = end;
            }
        }
    }
    toks.push(Tok {
        k: K::Eof,
        start: text.len(),
        end: text.len(),
        head: text.len(),
    });
    Ok(toks)
}

/// HCL's scanner diagnostic for a character that starts no token.
fn invalid_character(c: char) -> (&'static str, &'static str) {
    const BITWISE: &str = "Unsupported operator";
    match c {
        '&' => (
            BITWISE,
            "Bitwise operators are not supported. Did you mean boolean AND (\"&&\")?",
        ),
        '|' => (
            BITWISE,
            "Bitwise operators are not supported. Did you mean boolean OR (\"||\")?",
        ),
        '~' => (
            BITWISE,
            "Bitwise operators are not supported. Did you mean boolean NOT (\"!\")?",
        ),
        '^' => (BITWISE, "Bitwise operators are not supported."),
        '`' => (
            "Invalid character",
            "The \"`\" character is not valid. To create a multi-line string, use the \"heredoc\" syntax, like \"<<EOT\".",
        ),
        '\'' => (
            "Invalid character",
            "Single quotes are not valid. Use double quotes (\") to enclose strings.",
        ),
        ';' => (
            "Invalid character",
            "The \";\" character is not valid. Use newlines to separate arguments and blocks, and commas to separate items in collection values.",
        ),
        '\u{201c}' | '\u{201d}' => (
            "Invalid character",
            "\"Curly quotes\" are not valid here. These can sometimes be inadvertently introduced when sharing code via documents or discussion forums. It might help to replace the character with a \"straight quote\".",
        ),
        _ => (
            "Invalid character",
            "This character is not used within the language.",
        ),
    }
}

/// The end of the marker of a heredoc introducer `<<EOT` / `<<-EOT` at `i`
/// followed by a newline.
fn heredoc_marker(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 2;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    let ms = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'-') {
        j += 1;
    }
    (j > ms && matches!(b.get(j), Some(b'\n') | Some(b'\r'))).then_some(j)
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |n| i + n)
}

fn number_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(b.get(i), Some(b'e') | Some(b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+') | Some(b'-')) {
            j += 1;
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    i
}

/// The end of the quoted template starting at `start` (after its closing
/// quote). A string running into a newline is left to the caller's
/// multi-line check; an interpolation left open at the end of the file is
/// HCL's "Unclosed template interpolation sequence".
fn quoted_end(name: &str, text: &str, start: usize, nesting: usize) -> Result<usize, Lexed> {
    if nesting > MAX_DEPTH {
        return Err(Lexed::GiveUp);
    }
    let b = text.as_bytes();
    let mut i = start + 1;
    let mut directives = Vec::new();
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => {
                check_directives(name, text, &directives, (i, i + 1))?;
                return Ok(i + 1);
            }
            b'\n' | b'\r' => {
                return Err(Lexed::Error(
                    Pending::new(
                        MULTI_LINE_STRING,
                        "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
                        i,
                        i + 1,
                    ),
                    i,
                ));
            }
            b'$' | b'%' if b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'{') => i += 3,
            b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                let end = interpolation_end(name, text, i, nesting)?;
                if b[i] == b'%' {
                    directives.push((i, end));
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    Err(Lexed::GiveUp)
}

/// The end of the `${ ... }` or `%{ ... }` sequence starting at `start`.
fn interpolation_end(name: &str, text: &str, start: usize, nesting: usize) -> Result<usize, Lexed> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start + 2;
    while i < b.len() {
        match b[i] {
            b'"' => i = quoted_end(name, text, i, nesting + 1)?,
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' if depth == 0 => return Ok(i + 1),
            b'}' => {
                depth -= 1;
                i += 1;
            }
            b'#' => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
            b'<' if b.get(i + 1) == Some(&b'<') => {
                i = heredoc_end(text, i).unwrap_or(i + 2);
            }
            _ => i += 1,
        }
    }
    Err(Lexed::Error(
        Pending::new(
            "Unclosed template interpolation sequence",
            "There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.",
            start,
            start + 2,
        ),
        start,
    ))
}

/// The end of the heredoc starting at `start` (`<<` or `<<-`): just after
/// the newline that ends its closing marker line (or the end of the file).
fn heredoc_end(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut j = start + 2;
    if b.get(j) == Some(&b'-') {
        j += 1;
    }
    let ms = j;
    while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'-') {
        j += 1;
    }
    if j == ms {
        return None;
    }
    let marker = &text[ms..j];
    let mut k = j + text[j..].find('\n')? + 1;
    loop {
        // HCL needs the newline after the closing marker too.
        let le = k + text[k..].find('\n')?;
        if text[k..le].trim() == marker {
            // The newline after the marker is a token of its own.
            return Some(le);
        }
        k = le + 1;
    }
}

/// Checks the template directives of the heredoc `start..end`.
fn heredoc_directives(name: &str, text: &str, start: usize, end: usize) -> Result<(), Lexed> {
    let b = text.as_bytes();
    let body_start = start + text[start..end].find('\n').map_or(0, |n| n + 1);
    let marker_line = text[..end].rfind('\n').map_or(0, |n| n + 1).max(body_start);
    let mut directives = Vec::new();
    let mut i = body_start;
    while i < marker_line {
        match b[i] {
            b'$' | b'%' if b.get(i + 1) == Some(&b[i]) && b.get(i + 2) == Some(&b'{') => i += 3,
            b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                let e = interpolation_end(name, text, i, 0)?;
                if b[i] == b'%' {
                    directives.push((i, e));
                }
                i = e;
            }
            _ => i += 1,
        }
    }
    let line = &text[marker_line..end];
    let lead = line.len() - line.trim_start().len();
    let m = (marker_line + lead, marker_line + line.trim_end().len());
    check_directives(name, text, &directives, m)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    If { in_else: bool },
    For,
}

/// HCL's checks of a template's control directives (`%{ ... }`, given as
/// byte ranges): known keywords, balanced `if`/`else`/`endif` and
/// `for`/`endfor`. `end` is the template's closing quote or marker.
fn check_directives(
    name: &str,
    text: &str,
    directives: &[(usize, usize)],
    end: (usize, usize),
) -> Result<(), Lexed> {
    let range = |(s, e): (usize, usize)| {
        let mut sm = fnhcl_base::SourceMap::new();
        let f = sm.add(name, text);
        sm.range_text(Span::new(f, s, e))
    };
    let err = |summary: &'static str, detail: String, (s, e): (usize, usize)| {
        Err(Lexed::Error(Pending::new(summary, detail, s, e), s))
    };
    let mut stack: Vec<(Open, (usize, usize))> = Vec::new();
    for &(start, stop) in directives {
        let inner = &text[start + 2..stop - 1];
        let inner_at = start + 2;
        let trimmed = inner.trim_start_matches('~').trim_start();
        let kw_at = inner_at + inner.len() - trimmed.len();
        let kw_len = trimmed
            .char_indices()
            .find(|&(_, c)| !is_ident_continue(c))
            .map_or(trimmed.len(), |(n, _)| n);
        let kw = &trimmed[..kw_len];
        let d = (start, stop);
        let unbalanced = |kw: &str| {
            err(
                match kw {
                    "else" => "Unexpected else directive",
                    "endif" => "Unexpected endif directive",
                    _ => "Unexpected endfor directive",
                },
                "The control directives within this template are unbalanced.".to_owned(),
                d,
            )
        };
        match (kw, stack.last_mut()) {
            ("if", _) => stack.push((Open::If { in_else: false }, d)),
            ("for", _) => stack.push((Open::For, d)),
            ("else" | "endif" | "endfor", None) => return unbalanced(kw),
            ("else", Some((Open::If { in_else }, at))) => {
                if *in_else {
                    return err(
                        "Unexpected else directive",
                        format!(
                            "Already in the else clause for the if started at {}.",
                            range(*at)
                        ),
                        d,
                    );
                }
                *in_else = true;
            }
            ("else", Some((Open::For, _))) => {
                return err(
                    "Unexpected else directive",
                    "An else clause is not expected for a for directive.".to_owned(),
                    d,
                );
            }
            ("endif", Some((Open::If { .. }, _))) | ("endfor", Some((Open::For, _))) => {
                stack.pop();
            }
            ("endif", Some((Open::For, at))) => {
                return err(
                    "Unexpected endif directive",
                    format!(
                        "Expecting an endfor directive corresponding to the for directive at {}.",
                        range(*at)
                    ),
                    d,
                );
            }
            ("endfor", Some((_, at))) => {
                return err(
                    "Unexpected endfor directive",
                    format!(
                        "Expecting an endif directive for the if started at {}.",
                        range(*at)
                    ),
                    d,
                );
            }
            ("", _) => return Err(Lexed::GiveUp),
            (given, _) => {
                let suggestion = ["if", "for", "else", "endif", "endfor"]
                    .into_iter()
                    .find(|k| levenshtein(given, k) < 3)
                    .map(|k| format!(" Did you mean {k:?}?"))
                    .unwrap_or_default();
                return err(
                    "Invalid template control keyword",
                    format!("{given:?} is not a valid template control keyword.{suggestion}"),
                    (kw_at, kw_at + kw_len),
                );
            }
        }
    }
    match stack.last() {
        Some((open, at)) => {
            let (what, end_kw) = match open {
                Open::If { .. } => ("if", "endif"),
                Open::For => ("for", "endfor"),
            };
            err(
                "Unexpected end of template",
                format!(
                    "The {what} directive at {} is missing its corresponding {end_kw} directive.",
                    range(*at)
                ),
                end,
            )
        }
        None => Ok(()),
    }
}

/// Edit distance between two words (in characters).
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    pos: usize,
    inner: Vec<(usize, usize)>,
    depth: usize,
    /// The end of the last token taken.
    last_end: usize,
    /// Inside parentheses, brackets and argument lists newlines are not
    /// significant (in an object they separate items).
    nl_ignore: bool,
}

/// What a bracket opens.
#[derive(Clone, Copy)]
enum Group {
    /// A function call's arguments (the name token).
    Call(Tok),
    Paren,
    Tuple,
    Index,
    Object,
}

type R = Result<(), Stop>;

fn diag(summary: &'static str, detail: impl Into<String>, t: Tok) -> Stop {
    Stop::Diag(Pending::new(summary, detail, t.start, t.head))
}

impl Parser<'_> {
    fn peek(&mut self) -> Tok {
        if self.nl_ignore {
            while self.toks[self.pos.min(self.toks.len() - 1)].k == K::Newline {
                self.pos += 1;
            }
        }
        self.toks[self.pos.min(self.toks.len() - 1)]
    }

    fn next(&mut self) -> Tok {
        let t = self.peek();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        self.last_end = t.end;
        t
    }

    fn is_keyword(&self, t: Tok, keyword: &str) -> bool {
        t.k == K::Ident && &self.text[t.start..t.end] == keyword
    }

    /// A `for` expression after its opening bracket, as HCL parses it.
    fn for_expr(&mut self, make_obj: bool) -> R {
        let err = |detail: &'static str, start: usize, end: usize| {
            Err(Stop::Diag(Pending::new(
                "Invalid 'for' expression",
                detail,
                start,
                end,
            )))
        };
        self.next(); // `for`
        let t = self.peek();
        if t.k != K::Ident {
            return err(
                "For expression requires variable name after 'for'.",
                t.start,
                t.head,
            );
        }
        self.next();
        if self.peek().k == K::Comma {
            self.next();
            let t = self.peek();
            if t.k != K::Ident {
                return err(
                    "For expression requires value variable name after comma.",
                    t.start,
                    t.head,
                );
            }
            self.next();
        }
        let t = self.peek();
        if !self.is_keyword(t, "in") {
            return err(
                "For expression requires the 'in' keyword after its name declarations.",
                t.start,
                t.head,
            );
        }
        self.next();
        self.expr()?;
        let t = self.peek();
        if t.k != K::Colon {
            return err(
                "For expression requires a colon after the collection expression.",
                t.start,
                t.head,
            );
        }
        self.next();
        let first_start = self.peek().start;
        self.expr()?;
        let first = (first_start, self.last_end);
        let mut key = None;
        let mut value = first;
        if self.peek().k == K::Arrow {
            self.next();
            key = Some(first);
            let start = self.peek().start;
            self.expr()?;
            value = (start, self.last_end);
        }
        let mut ellipsis = None;
        if self.peek().k == K::Ellipsis {
            ellipsis = Some(self.next());
        }
        let t = self.peek();
        if self.is_keyword(t, "if") {
            self.next();
            self.expr()?;
        }
        let close = if make_obj { K::CBrace } else { K::CBrack };
        let t = self.peek();
        if t.k != close {
            return err(
                "Extra characters after the end of the 'for' expression.",
                t.start,
                t.head,
            );
        }
        self.next();
        match (make_obj, key, ellipsis) {
            (false, Some((s, e)), _) => {
                err("Key expression is not valid when building a tuple.", s, e)
            }
            (false, None, Some(t)) => err(
                "Grouping ellipsis (...) cannot be used when building a tuple.",
                t.start,
                t.end,
            ),
            (true, None, _) => err(
                "Key expression is required when building an object.",
                value.0,
                value.1,
            ),
            _ => Ok(()),
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek().k == K::Newline {
            self.pos += 1;
        }
    }

    fn eof(&self) -> Tok {
        let n = self.text.len();
        Tok {
            k: K::Eof,
            start: n,
            end: n,
            head: n,
        }
    }

    /// A body up to the closing brace of `open` (or the end of the file).
    fn body(&mut self, open: Option<Tok>) -> R {
        loop {
            self.skip_newlines();
            let t = self.next();
            match t.k {
                K::Eof => {
                    return match open {
                        Some(o) => Err(Stop::Diag(
                            Pending::new(
                                "Unclosed configuration block",
                                UNCLOSED_BLOCK_DETAIL,
                                o.start,
                                o.end,
                            )
                            .found_at(t.start),
                        )),
                        None => Ok(()),
                    };
                }
                K::CBrace if open.is_some() => return Ok(()),
                K::Ident => self.item(t)?,
                K::Quoted => {
                    return Err(Stop::Diag(Pending::new(
                        "Invalid argument name",
                        "Argument names must not be quoted.",
                        t.start,
                        t.start + 1,
                    )));
                }
                _ => return Err(diag(ITEM_REQUIRED, ITEM_REQUIRED_DETAIL, t)),
            }
        }
    }

    /// One body item after its name.
    fn item(&mut self, ident: Tok) -> R {
        match self.peek().k {
            K::Equal => {
                self.next();
                self.expr()?;
                let end = self.peek();
                match end.k {
                    K::Newline | K::Eof => {
                        self.next();
                        Ok(())
                    }
                    K::Comma => Err(diag(
                        "Unexpected comma after argument",
                        "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
                        end,
                    )),
                    _ => Err(diag(
                        "Missing newline after argument",
                        "An argument definition must end with a newline.",
                        end,
                    )),
                }
            }
            K::Quoted | K::OBrace | K::Ident => self.block(),
            _ => Err(diag(ITEM_REQUIRED, ITEM_REQUIRED_EQUALS, ident)),
        }
    }

    /// A block after its type name: labels, then the body.
    fn block(&mut self) -> R {
        let open = loop {
            let t = self.peek();
            match t.k {
                K::OBrace => break self.next(),
                K::Quoted => {
                    self.inner.push((t.start, t.end));
                    self.next();
                }
                K::Ident => {
                    self.next();
                }
                K::Equal => {
                    return Err(diag(
                        "Invalid block definition",
                        "The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.",
                        t,
                    ));
                }
                K::Newline => {
                    return Err(diag(
                        "Invalid block definition",
                        "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
                        t,
                    ));
                }
                _ => {
                    return Err(diag(
                        "Invalid block definition",
                        "Either a quoted string block label or an opening brace (\"{\") is expected here.",
                        t,
                    ));
                }
            }
        };
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Stop::GiveUp);
        }
        match self.peek().k {
            K::Newline | K::Eof | K::CBrace => self.body(Some(open))?,
            _ => self.single_line_body(open)?,
        }
        self.depth -= 1;
        let eol = self.peek();
        match eol.k {
            K::Newline | K::Eof => {
                self.next();
                Ok(())
            }
            _ => Err(diag(
                "Missing newline after block definition",
                "A block definition must end with a newline.",
                eol,
            )),
        }
    }

    /// `name { arg = value }` on one line.
    fn single_line_body(&mut self, open: Tok) -> R {
        let ident = self.next();
        if ident.k != K::Ident {
            return Err(diag(ITEM_REQUIRED, ITEM_REQUIRED_DETAIL, ident));
        }
        let next = self.peek();
        match next.k {
            K::Equal => {
                self.next();
                self.expr()?;
            }
            K::Quoted | K::OBrace | K::Ident => {
                let name = &self.text[ident.start..ident.end];
                return Err(Stop::Diag(Pending::new(
                    "Argument definition required",
                    format!(
                        "A single-line block definition can contain only a single argument. If you meant to define argument {name:?}, use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block."
                    ),
                    ident.start,
                    next.head,
                )));
            }
            _ => return Err(diag(ITEM_REQUIRED, ITEM_REQUIRED_EQUALS, ident)),
        }
        let t = self.peek();
        match t.k {
            K::CBrace => {
                self.next();
                Ok(())
            }
            K::Comma => Err(diag(
                "Invalid single-argument block definition",
                "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.",
                t,
            )),
            K::Newline => Err(diag(
                "Invalid single-argument block definition",
                "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
                t,
            )),
            K::Eof => Err(Stop::Diag(
                Pending::new(
                    "Unclosed configuration block",
                    UNCLOSED_BLOCK_DETAIL,
                    open.start,
                    open.end,
                )
                .found_at(t.start),
            )),
            _ => Err(diag(
                "Invalid single-argument block definition",
                "A single-line block definition must end with a closing brace immediately after its single argument definition.",
                t,
            )),
        }
    }

    /// An expression, followed at its top level only.
    fn expr(&mut self) -> R {
        let mut conditionals = 0usize;
        'operand: loop {
            while matches!(self.peek().k, K::Minus | K::Bang) {
                self.next();
            }
            let t = self.next();
            match t.k {
                K::Ident => {
                    if self.peek().k == K::OParen {
                        let open = self.next();
                        self.group(open, Group::Call(t))?;
                    }
                }
                K::Number => {}
                K::Quoted | K::Heredoc => self.inner.push((t.start, t.end)),
                K::OpenHeredoc => {
                    let end = self.eof();
                    return Err(diag(
                        "Unterminated template string",
                        "No closing marker was found for the string.",
                        end,
                    ));
                }
                K::OParen => self.group(t, Group::Paren)?,
                K::OBrack => self.group(t, Group::Tuple)?,
                K::OBrace => self.group(t, Group::Object)?,
                K::Eof => return Err(diag("Missing expression", MISSING_EXPR_EOF, t)),
                _ => {
                    return Err(diag(
                        "Invalid expression",
                        "Expected the start of an expression, but found an invalid expression token.",
                        t,
                    ));
                }
            }
            loop {
                let t = self.peek();
                match t.k {
                    K::Dot => {
                        self.next();
                        let n = self.next();
                        if !matches!(n.k, K::Ident | K::Number | K::Star) {
                            return Err(diag(
                                "Invalid attribute name",
                                "An attribute name is required after a dot.",
                                n,
                            ));
                        }
                    }
                    K::OBrack => {
                        let open = self.next();
                        self.group(open, Group::Index)?;
                    }
                    K::BinOp | K::Minus | K::Star => {
                        self.next();
                        continue 'operand;
                    }
                    K::Question => {
                        self.next();
                        conditionals += 1;
                        continue 'operand;
                    }
                    K::Colon if conditionals > 0 => {
                        self.next();
                        conditionals -= 1;
                        continue 'operand;
                    }
                    _ if conditionals > 0 => {
                        return Err(diag(
                            "Missing false expression in conditional",
                            "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                            t,
                        ));
                    }
                    _ => return Ok(()),
                }
            }
        }
    }

    /// Skips the bracketed group opened by `open` (`call` is the function
    /// name when it is a call's argument list). Reaching the end of the
    /// file inside it gives HCL's error for the innermost open bracket.
    /// The bracketed group opened by `open`, checked item by item as HCL
    /// parses it. Where the check does not model the contents (very deep
    /// nesting, a heredoc without its marker, `...` not closing a call)
    /// the group is skipped as a whole.
    fn group(&mut self, open: Tok, kind: Group) -> R {
        let open_idx = self.pos - 1;
        let saved = (self.nl_ignore, self.depth);
        self.depth += 1;
        let r = if self.depth > MAX_DEPTH {
            Err(Stop::GiveUp)
        } else {
            self.group_items(open, kind)
        };
        self.nl_ignore = saved.0;
        self.depth = saved.1;
        match r {
            Ok(()) => {
                self.inner.push((open.start, self.toks[self.pos - 1].end));
                Ok(())
            }
            Err(Stop::GiveUp) => {
                self.pos = open_idx + 1;
                let call = match kind {
                    Group::Call(name) => Some(name),
                    _ => None,
                };
                self.skip_group(open, call)
            }
            Err(d) => Err(d),
        }
    }

    fn group_items(&mut self, open: Tok, kind: Group) -> R {
        self.nl_ignore = !matches!(kind, Group::Object);
        let first = self.peek_past_newlines();
        if matches!(kind, Group::Tuple | Group::Object) && self.is_keyword(first, "for") {
            self.nl_ignore = true;
            return self.for_expr(matches!(kind, Group::Object));
        }
        match kind {
            Group::Paren => {
                self.expr()?;
                let t = self.peek();
                if t.k != K::CParen {
                    return Err(diag(
                        "Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.",
                        t,
                    ));
                }
                self.next();
                Ok(())
            }
            Group::Index => {
                if self.peek().k == K::Star {
                    self.next();
                } else {
                    self.expr()?;
                }
                let t = self.peek();
                if t.k != K::CBrack {
                    return Err(diag(
                        "Missing close bracket on index",
                        "The index operator must end with a closing bracket (\"]\").",
                        t,
                    ));
                }
                self.next();
                Ok(())
            }
            Group::Tuple => loop {
                if self.peek().k == K::CBrack {
                    self.next();
                    return Ok(());
                }
                self.expr()?;
                let t = self.peek();
                match t.k {
                    K::Comma => {
                        self.next();
                    }
                    K::CBrack => {
                        self.next();
                        return Ok(());
                    }
                    K::Eof => {
                        return Err(diag(
                            "Unterminated tuple constructor expression",
                            "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
                            open,
                        ));
                    }
                    _ => {
                        return Err(diag(
                            "Missing item separator",
                            "Expected a comma to mark the beginning of the next item.",
                            t,
                        ));
                    }
                }
            },
            Group::Call(name) => loop {
                if self.peek().k == K::CParen {
                    self.next();
                    return Ok(());
                }
                self.expr()?;
                if self.peek().k == K::Ellipsis {
                    self.next();
                    if self.peek().k != K::CParen {
                        return Err(Stop::GiveUp);
                    }
                }
                let t = self.peek();
                match t.k {
                    K::Comma => {
                        self.next();
                    }
                    K::CParen => {
                        self.next();
                        return Ok(());
                    }
                    K::Eof => {
                        return Err(Stop::Diag(Pending::new(
                            "Unterminated function call",
                            "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parethesis nesting elsewhere in this file.",
                            name.start,
                            open.end,
                        )));
                    }
                    _ => {
                        return Err(diag(
                            "Missing argument separator",
                            "A comma is required to separate each function argument from the next.",
                            t,
                        ));
                    }
                }
            },
            Group::Object => loop {
                self.skip_newlines();
                let t = self.peek();
                match t.k {
                    K::CBrace => {
                        self.next();
                        return Ok(());
                    }
                    K::Eof => return Err(diag("Missing expression", MISSING_EXPR_EOF, t)),
                    _ => {}
                }
                self.expr()?;
                let t = self.peek();
                match t.k {
                    K::Equal | K::Colon => {
                        self.next();
                    }
                    K::Newline | K::Comma => {
                        return Err(diag(
                            "Missing attribute value",
                            "Expected an attribute value, introduced by an equals sign (\"=\").",
                            t,
                        ));
                    }
                    K::Ident => {
                        return Err(diag(
                            "Missing key/value separator",
                            "Expected an equals sign (\"=\") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.",
                            t,
                        ));
                    }
                    K::Eof => {
                        return Err(diag(
                            "Unterminated object constructor expression",
                            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                            open,
                        ));
                    }
                    _ => return Err(diag("Missing key/value separator", SEPARATOR_DETAIL, t)),
                }
                self.expr()?;
                let t = self.peek();
                match t.k {
                    K::Comma | K::Newline => {
                        self.next();
                    }
                    K::CBrace => {
                        self.next();
                        return Ok(());
                    }
                    K::Eof => {
                        return Err(diag(
                            "Unterminated object constructor expression",
                            "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                            open,
                        ));
                    }
                    _ => {
                        return Err(diag(
                            "Missing attribute separator",
                            "Expected a newline or comma to mark the beginning of the next attribute.",
                            t,
                        ));
                    }
                }
            },
        }
    }

    /// The next token that is not a newline, without moving.
    fn peek_past_newlines(&self) -> Tok {
        self.toks[self.pos..]
            .iter()
            .copied()
            .find(|t| t.k != K::Newline)
            .unwrap_or_else(|| self.eof())
    }

    /// Skips the group opened by `open` without checking its contents.
    fn skip_group(&mut self, open: Tok, call: Option<Tok>) -> R {
        // (open bracket token index, function name if a call)
        let mut stack = vec![(self.pos - 1, call)];
        loop {
            let t = self.next();
            match t.k {
                // Whether it is HCL's first error depends on the group's
                // contents, which are not followed here.
                K::OpenHeredoc => return Err(Stop::GiveUp),
                K::OBrace | K::OBrack | K::OParen => {
                    let prev = self.toks[self.pos - 2];
                    let name = (t.k == K::OParen && prev.k == K::Ident).then_some(prev);
                    stack.push((self.pos - 1, name));
                }
                K::CBrace | K::CBrack | K::CParen => {
                    let Some(&(o, _)) = stack.last() else {
                        return Err(Stop::GiveUp);
                    };
                    let want = match self.toks[o].k {
                        K::OBrace => K::CBrace,
                        K::OBrack => K::CBrack,
                        _ => K::CParen,
                    };
                    if t.k != want {
                        return Err(Stop::GiveUp);
                    }
                    stack.pop();
                    if stack.is_empty() {
                        self.inner.push((open.start, t.end));
                        return Ok(());
                    }
                }
                K::Eof => {
                    self.inner.push((open.start, self.text.len()));
                    let (o, name) = stack.last().copied().unwrap_or((0, None));
                    return Err(self.unclosed_at_eof(o, name));
                }
                _ => {}
            }
        }
    }

    /// HCL's error for the bracket at token index `o` left open at the end
    /// of the file.
    fn unclosed_at_eof(&self, o: usize, name: Option<Tok>) -> Stop {
        match self.unclosed_at_eof_diag(o, name) {
            Stop::Diag(d) => Stop::Diag(d.found_at(self.text.len())),
            other => other,
        }
    }

    fn unclosed_at_eof_diag(&self, o: usize, name: Option<Tok>) -> Stop {
        let open = self.toks[o];
        let eof = self.eof();
        // The last token before the end, and the last that is not a newline.
        let body = &self.toks[o + 1..self.toks.len() - 1];
        let last = body.last().map(|t| t.k);
        let last_sig = body.iter().rev().find(|t| t.k != K::Newline).map(|t| t.k);
        let expects_operand = |k: Option<K>| {
            matches!(
                k,
                None | Some(K::Comma)
                    | Some(K::OBrace)
                    | Some(K::OBrack)
                    | Some(K::OParen)
                    | Some(K::Equal)
                    | Some(K::Colon)
                    | Some(K::Question)
                    | Some(K::Arrow)
                    | Some(K::BinOp)
                    | Some(K::Minus)
                    | Some(K::Star)
                    | Some(K::Bang)
            )
        };
        let depth1 = |k: K| {
            let mut depth = 0i32;
            body.iter().any(|t| {
                match t.k {
                    K::OBrace | K::OBrack | K::OParen => depth += 1,
                    K::CBrace | K::CBrack | K::CParen => depth -= 1,
                    _ => {}
                }
                depth == 0 && t.k == k
            })
        };
        let is_for = body
            .first()
            .is_some_and(|t| t.k == K::Ident && &self.text[t.start..t.end] == "for");
        let prev = o.checked_sub(1).map(|i| self.toks[i].k);
        let missing = || diag("Missing expression", MISSING_EXPR_EOF, eof);
        match open.k {
            _ if expects_operand(last_sig) => missing(),
            K::OBrace | K::OBrack if is_for => {
                if depth1(K::Colon) {
                    diag(
                        "Invalid 'for' expression",
                        "Extra characters after the end of the 'for' expression.",
                        eof,
                    )
                } else {
                    diag(
                        "Invalid 'for' expression",
                        "For expression requires a colon after the collection expression.",
                        eof,
                    )
                }
            }
            K::OParen => match name {
                Some(n) => Stop::Diag(Pending::new(
                    "Unterminated function call",
                    "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parethesis nesting elsewhere in this file.",
                    n.start,
                    open.end,
                )),
                None => diag(
                    "Unbalanced parentheses",
                    "Expected a closing parenthesis to terminate the expression.",
                    eof,
                ),
            },
            K::OBrack
                if matches!(
                    prev,
                    Some(K::Ident | K::Number | K::Quoted | K::CBrack | K::CParen | K::CBrace)
                ) =>
            {
                diag(
                    "Missing close bracket on index",
                    "The index operator must end with a closing bracket (\"]\").",
                    eof,
                )
            }
            K::OBrack => diag(
                "Unterminated tuple constructor expression",
                "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
                open,
            ),
            _ if last == Some(K::Newline) => missing(),
            _ => diag(
                "Unterminated object constructor expression",
                "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.",
                open,
            ),
        }
    }
}
