//! Parse errors as diagnostics with HCL-like summaries.

use fnhcl_base::{Diagnostic, FileId, Span};

/// Largest source file we parse (bytes).
pub(crate) const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// Checks done before handing the text to the parser.
pub(crate) fn precheck(file: FileId, text: &str) -> Option<Diagnostic> {
    if text.len() > MAX_FILE_BYTES {
        return Some(
            Diagnostic::error(
                "Source file too large",
                format!(
                    "The file is {} bytes long; at most {MAX_FILE_BYTES} bytes are supported.",
                    text.len()
                ),
            )
            .with_span(Span::new(file, 0, 0)),
        );
    }
    crate::scan::check_brackets(file, text)
}

/// Maps a parser error to a diagnostic: the summary names the construct
/// (as HCL's summaries do), the detail says what was expected.
pub(crate) fn from_parse_error(
    file: FileId,
    text: &str,
    err: &hcl_edit::parser::Error,
    expr_mode: bool,
    base: usize,
) -> Diagnostic {
    let mut offset = (err.location().offset() + base).min(text.len());
    // hcl-edit may report an offset inside a multi-byte character.
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let at_eof = text[offset..].trim().is_empty();
    // A newline (or the end of the file) is reported as an empty range, so
    // that code frames stay on one line.
    let end = match text[offset..].chars().next() {
        Some('\n') | Some('\r') | None => offset,
        Some(_) => next_char_end(text, offset),
    };
    let mut span = Span::new(file, offset, end);
    let msg = err.message();
    let (label, rest) = match msg.strip_prefix("invalid ") {
        Some(m) => match m.split_once("; ") {
            Some((l, r)) => (Some(l), r),
            None => (None, msg),
        },
        None => (None, msg),
    };
    let found = if at_eof {
        "the end of the file".to_owned()
    } else {
        describe_char(text[offset..].chars().next().unwrap_or(' '))
    };
    let (summary, mut detail) = match label {
        Some("expression") | Some("binary operation") => (
            "Invalid expression".to_owned(),
            format!("Expected the start of an expression, but found {found}."),
        ),
        Some("block body") if at_eof => {
            if let Some(open) = unclosed_brace(text) {
                span = Span::new(file, open, open + 1);
            }
            (
            "Unclosed configuration block".to_owned(),
            "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.".to_owned(),
        )
        }
        _ if !expr_mode && rest.contains("expected newline") => (
            "Missing newline after argument".to_owned(),
            "An argument definition must end with a newline.".to_owned(),
        ),
        Some("structure") | Some("attribute") | Some("block body") => (
            "Argument or block definition required".to_owned(),
            format!("An argument or block definition is required here; found {found}."),
        ),
        Some("object item") | Some("object value assignment") => (
            "Invalid object constructor".to_owned(),
            format!("Object items must be written as key = value pairs; found {found}."),
        ),
        Some("traversal operator") => (
            "Invalid attribute name".to_owned(),
            "An attribute name is required after a dot.".to_owned(),
        ),
        Some("escape sequence")
        | Some("unicode 4-digit hex code")
        | Some("unicode 8-digit hex code") => (
            "Invalid escape sequence".to_owned(),
            "The symbol after the backslash does not start a valid escape sequence.".to_owned(),
        ),
        Some("nesting depth") => (
            "Nesting too deep".to_owned(),
            "Expressions, templates and blocks are nested too deeply.".to_owned(),
        ),
        _ if at_eof => (
            if expr_mode {
                "Invalid expression".to_owned()
            } else {
                "Unexpected end of file".to_owned()
            },
            "The file ends before the construct is complete.".to_owned(),
        ),
        _ => (
            if expr_mode {
                "Invalid expression".to_owned()
            } else {
                "Invalid syntax".to_owned()
            },
            format!("Unexpected {found}."),
        ),
    };
    if !rest.is_empty() && rest != "unexpected token" {
        detail.push_str(" Parser: ");
        detail.push_str(rest);
        if !rest.ends_with('.') {
            detail.push('.');
        }
    }
    Diagnostic::error(summary, detail).with_span(span)
}

/// The innermost `{` left open at the end of the text (strings, comments
/// and heredocs skipped approximately).
fn unclosed_brace(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut stack: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                let mut depth = 0usize;
                while i < b.len() {
                    match b[i] {
                        b'\\' => i += 1,
                        b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                            depth += 1;
                            i += 1;
                        }
                        b'}' if depth > 0 => depth -= 1,
                        b'"' if depth == 0 => break,
                        b'\n' => break,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b'{' => stack.push(i),
            b'}' => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    stack.last().copied()
}

fn next_char_end(text: &str, offset: usize) -> usize {
    match text[offset..].chars().next() {
        Some(c) => offset + c.len_utf8(),
        None => offset,
    }
}

fn describe_char(c: char) -> String {
    match c {
        '\n' | '\r' => "a newline".to_owned(),
        c if c.is_control() => format!("the control character U+{:04X}", c as u32),
        c => format!("{c:?}").replace('\'', "\""),
    }
}
