//! Parse errors as diagnostics with HCL-like summaries.

use fnhcl_base::{Diagnostic, FileId, Span, codes};

/// A syntax error: the parser's diagnostics carry [`codes::SYNTAX`] from
/// their creation (but a second definition of an attribute, which is
/// [`codes::DUPLICATE`]).
pub(crate) fn syntax_error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
    Diagnostic::error(summary, detail).with_code(codes::SYNTAX)
}

/// Largest source file we parse (bytes).
pub(crate) const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// Checks done before handing the text to the parser.
pub(crate) fn precheck(file: FileId, text: &str) -> Option<Diagnostic> {
    if text.len() > MAX_FILE_BYTES {
        return Some(
            syntax_error(
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
    // A newline is reported as HCL reports its newline token: up to the
    // start of the next line (code frames draw it on one line).
    let end = if text[offset..].starts_with("\r\n") {
        offset + 2
    } else {
        next_char_end(text, offset)
    };
    let mut span = Span::new(file, offset, end);
    if let Some(d) = special_cases(file, text, offset, expr_mode) {
        return d;
    }
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
    // `exact`: the summary and detail are HCL's own texts, so the parser's
    // explanation is not appended.
    let (summary, mut detail, exact) = match label {
        Some("expression") | Some("binary operation") if at_eof => (
            "Missing expression".to_owned(),
            "Expected the start of an expression, but found the end of the file.".to_owned(),
            true,
        ),
        Some("expression") | Some("binary operation") => (
            "Invalid expression".to_owned(),
            "Expected the start of an expression, but found an invalid expression token."
                .to_owned(),
            true,
        ),
        _ if text[offset..].starts_with('.')
            && !text[offset..].starts_with("...")
            && !text[offset + 1..]
                .starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '*') =>
        {
            let at = offset + 1;
            let end = text[at..]
                .chars()
                .next()
                .filter(|c| *c != '\n')
                .map_or(at, |c| at + c.len_utf8());
            span = Span::new(file, at, end);
            (
                "Invalid attribute name".to_owned(),
                "An attribute name is required after a dot.".to_owned(),
                true,
            )
        }
        Some("block body") if at_eof => {
            if let Some(open) = unclosed_brace(text) {
                span = Span::new(file, open, open + 1);
            }
            (
                "Unclosed configuration block".to_owned(),
                "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.".to_owned(),
                true,
            )
        }
        _ if rest.contains("heredoc end delimiter") => {
            span = Span::new(file, text.len(), text.len());
            (
                "Unterminated template string".to_owned(),
                "No closing marker was found for the string.".to_owned(),
                true,
            )
        }
        _ if text[offset..].trim() == "," => {
            span = Span::new(file, text.trim_end().len(), text.trim_end().len());
            (
                "Missing expression".to_owned(),
                "Expected the start of an expression, but found the end of the file.".to_owned(),
                true,
            )
        }
        _ if rest.contains("expected `in`") && for_before(text, offset) => (
            "Invalid 'for' expression".to_owned(),
            "For expression requires the 'in' keyword after its name declarations.".to_owned(),
            true,
        ),
        _ if rest.contains("expected `=>`") => (
            {
                span = previous_token(file, text, offset).unwrap_or(span);
                "Invalid 'for' expression".to_owned()
            },
            "Key expression is required when building an object.".to_owned(),
            true,
        ),
        _ if rest.contains("expected `:`") && for_before(text, offset) => (
            "Invalid 'for' expression".to_owned(),
            "For expression requires a colon after the collection expression.".to_owned(),
            true,
        ),
        _ if rest.contains("expected `:`") => {
            if at_eof {
                span = Span::new(file, text.len(), text.len());
            }
            (
                "Missing false expression in conditional".to_owned(),
                "The conditional operator (...?...:...) requires a false expression, delimited by a colon.".to_owned(),
                true,
            )
        }
        _ if rest == "expected `)`" && !text[offset..].contains(')') => {
            if at_eof {
                span = Span::new(file, text.len(), text.len());
            }
            (
                "Unbalanced parentheses".to_owned(),
                "Expected a closing parenthesis to terminate the expression.".to_owned(),
                true,
            )
        }
        _ if rest.contains("expected `]`")
            && !text[offset..].trim().contains([']', ' ', '\t', '\n', '\r']) =>
        {
            if let Some(open) = unmatched_open(&text[..offset], b'[', b']') {
                span = Span::new(file, open, open + 1);
            }
            (
                "Unterminated tuple constructor expression".to_owned(),
                "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.".to_owned(),
                true,
            )
        }
        _ if rest.contains("expected `]`") => (
            {
                if text[offset..].starts_with("...") {
                    span = Span::new(file, offset, offset + 3);
                }
                "Missing item separator".to_owned()
            },
            "Expected a comma to mark the beginning of the next item.".to_owned(),
            true,
        ),
        _ if rest.contains("expected `)` or expression") => (
            "Missing argument separator".to_owned(),
            "A comma is required to separate each function argument from the next.".to_owned(),
            true,
        ),
        _ if !expr_mode && rest.contains("expected newline") => (
            "Missing newline after argument".to_owned(),
            "An argument definition must end with a newline.".to_owned(),
            true,
        ),
        Some("structure") | Some("attribute") | Some("block body") => (
            "Argument or block definition required".to_owned(),
            "An argument or block definition is required here.".to_owned(),
            true,
        ),
        Some("object value assignment") if !expr_mode => {
            if let Some(d) = crate::structure::object_separator(file, text, offset) {
                return d;
            }
            (
                "Missing key/value separator".to_owned(),
                "Expected an equals sign (\"=\") to mark the beginning of the attribute value."
                    .to_owned(),
                true,
            )
        }
        Some("object value assignment") => (
            {
                span = previous_token(file, text, offset).unwrap_or(span);
                "Missing key/value separator".to_owned()
            },
            "Expected an equals sign (\"=\") to mark the beginning of the attribute value."
                .to_owned(),
            true,
        ),
        Some("object item") => (
            {
                if !expr_mode {
                    span = crate::structure::token_at(file, text, offset).unwrap_or(span);
                }
                "Missing attribute separator".to_owned()
            },
            "Expected a newline or comma to mark the beginning of the next attribute.".to_owned(),
            true,
        ),
        Some("traversal operator") => (
            "Invalid attribute name".to_owned(),
            "An attribute name is required after a dot.".to_owned(),
            true,
        ),
        Some("escape sequence") => match escape_selector(text, offset) {
            Some((bs, c)) if !c.is_whitespace() => {
                span = Span::new(file, bs, bs + 1 + c.len_utf8());
                (
                    "Invalid escape sequence".to_owned(),
                    format!(
                        "The symbol {:?} is not a valid escape sequence selector.",
                        c.to_string()
                    ),
                    true,
                )
            }
            _ => (
                "Invalid escape sequence".to_owned(),
                "Backslash must be followed by an escape sequence selector character.".to_owned(),
                true,
            ),
        },
        Some("unicode 4-digit hex code") => (
            {
                span = unicode_escape(file, text, offset, 4).unwrap_or(span);
                "Invalid escape sequence".to_owned()
            },
            "The \\u escape sequence must be followed by four hexadecimal digits.".to_owned(),
            true,
        ),
        Some("unicode 8-digit hex code") => (
            {
                span = unicode_escape(file, text, offset, 8).unwrap_or(span);
                "Invalid escape sequence".to_owned()
            },
            "The \\U escape sequence must be followed by eight hexadecimal digits.".to_owned(),
            true,
        ),
        Some("nesting depth") => (
            "Nesting too deep".to_owned(),
            "Expressions, templates and blocks are nested too deeply.".to_owned(),
            false,
        ),
        _ if at_eof => (
            if expr_mode {
                "Missing expression".to_owned()
            } else {
                "Unexpected end of file".to_owned()
            },
            if expr_mode {
                "Expected the start of an expression, but found the end of the file.".to_owned()
            } else {
                "The file ends before the construct is complete.".to_owned()
            },
            expr_mode,
        ),
        _ => (
            if expr_mode {
                "Invalid expression".to_owned()
            } else {
                "Invalid syntax".to_owned()
            },
            format!("Unexpected {found}."),
            false,
        ),
    };
    if !exact && !rest.is_empty() && rest != "unexpected token" {
        detail.push_str(" Parser: ");
        detail.push_str(rest);
        if !rest.ends_with('.') {
            detail.push('.');
        }
    }
    syntax_error(summary, detail).with_span(span)
}

/// HCL's error from the token-level structure check, unless hcl-edit's
/// error at `offset` lies inside a group or string the check skipped before
/// its own error (then that inner error is the first one).
pub(crate) fn structural(
    file: FileId,
    name: &str,
    text: &str,
    offset: usize,
) -> Option<Diagnostic> {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let found = crate::structure::check(file, name, text)?;
    let d = found.diag?;
    let inner_first = found.inner.iter().any(|&(s, e)| {
        s < offset
            && offset < e
            && if e == text.len() {
                // A group left open at the end of the file: hcl-edit's
                // error is an inner one if it is before the last token.
                offset < found.last_token
            } else {
                e <= found.at
            }
    });
    (!inner_first).then_some(d)
}

/// The word (identifier or number) that ends just before `offset`, past
/// spaces: hcl-edit reports some errors after the token HCL names.
fn previous_token(file: FileId, text: &str, offset: usize) -> Option<Span> {
    let end = text[..offset].trim_end_matches([' ', '\t']).len();
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '.';
    let start = text[..end].trim_end_matches(word).len();
    (start < end).then(|| Span::new(file, start, end))
}

/// A `\u` / `\U` escape with fewer than `digits` hex digits before
/// `offset`: from the backslash to the last digit, as HCL reports it.
fn unicode_escape(file: FileId, text: &str, offset: usize, digits: usize) -> Option<Span> {
    let bs = text[..offset].rfind('\\')?;
    let hex = text[bs + 2..]
        .chars()
        .take(digits)
        .take_while(char::is_ascii_hexdigit)
        .count();
    Some(Span::new(file, bs, bs + 2 + hex))
}

/// The backslash and selector of the escape sequence the parser rejected:
/// hcl-edit reports the position after the selector or at it.
fn escape_selector(text: &str, offset: usize) -> Option<(usize, char)> {
    let before = &text[..offset];
    let bs = before.rfind('\\')?;
    if offset - bs > 2 {
        return None;
    }
    let c = text[bs + 1..].chars().next()?;
    Some((bs, c))
}

/// The last `open` bracket in `text` without its `close` (quoted strings
/// skipped).
fn unmatched_open(text: &str, open: u8, close: u8) -> Option<usize> {
    let mut stack = Vec::new();
    let mut in_str = false;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else if c == b'"' {
            in_str = true;
        } else if c == open {
            stack.push(i);
        } else if c == close {
            stack.pop();
        }
        i += 1;
    }
    stack.last().copied()
}

/// True if the innermost open bracket before `offset` starts a `for`
/// expression.
fn for_before(text: &str, offset: usize) -> bool {
    let before = &text[..offset];
    match before.rfind(['[', '{']) {
        Some(i) => before[i + 1..].trim_start().starts_with("for "),
        None => false,
    }
}

/// Situations HCL names precisely that hcl-edit reports generically.
fn special_cases(file: FileId, text: &str, offset: usize, expr_mode: bool) -> Option<Diagnostic> {
    // A quoted string running into a newline (or the end of the file).
    // hcl-edit backtracks to the start of the construct, so any such string
    // in a file that failed to parse is the error.
    if let Some((at, eof)) = unterminated_quote(text) {
        return Some(if eof {
            syntax_error(
                "Unterminated template string",
                "No closing marker was found for the string.",
            )
            .with_span(Span::new(file, text.len(), text.len()))
        } else {
            syntax_error(
                "Invalid multi-line string",
                "Quoted strings may not be split over multiple lines. To produce a multi-line string, either use the \\n escape to represent a newline character or use the \"heredoc\" multi-line template syntax.",
            )
            .with_span(Span::new(file, at, at + 1))
        });
    }
    if expr_mode {
        return None;
    }
    let rest = &text[offset..];
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = text[line_start..offset].trim();
    // `name "x"\n{`: the block body must start on the header line.
    if rest.starts_with(['\n', '\r']) && rest.trim_start().starts_with('{') && !before.is_empty() {
        return Some(
            syntax_error(
                "Invalid block definition",
                "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
            )
            .with_span(Span::new(file, offset, offset)),
        );
    }
    // `"name" = value`
    if before.is_empty() && rest.starts_with('"') {
        let close = rest[1..].find('"').map(|i| i + 2)?;
        if rest[close..].trim_start().starts_with('=')
            && !rest[close..].trim_start().starts_with("==")
        {
            return Some(
                syntax_error(
                    "Invalid argument name",
                    "Argument names must not be quoted.",
                )
                .with_span(Span::new(file, offset, offset + close)),
            );
        }
    }
    // `name <something other than = or a block header>`
    let is_ident = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
    };
    if is_ident(before) && !rest.starts_with(['\n', '\r']) {
        let end = rest
            .chars()
            .next()
            .map_or(offset, |c| offset + c.len_utf8());
        return Some(
            syntax_error(
                "Argument or block definition required",
                "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.",
            )
            .with_span(Span::new(file, offset, end)),
        );
    }
    None
}

/// The position of the first quoted string that reaches a newline (its
/// newline) or the end of the file (then `true`), skipping comments,
/// heredocs and interpolation sequences.
fn unterminated_quote(text: &str) -> Option<(usize, bool)> {
    let b = text.as_bytes();
    let mut i = 0;
    // Stack of contexts: true = inside a quoted string, false = inside an
    // interpolation (expression) within a string.
    let mut stack: Vec<bool> = Vec::new();
    let in_string = |st: &Vec<bool>| st.last() == Some(&true);
    while i < b.len() {
        let c = b[i];
        if in_string(&stack) {
            match c {
                b'\\' => i += 1,
                b'"' => {
                    stack.pop();
                }
                b'\n' => return Some((i, false)),
                b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                    if i > 0 && b[i - 1] == c {
                        // `$${` / `%%{` escapes
                    } else {
                        stack.push(false);
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => stack.push(true),
            b'}' if !stack.is_empty() => {
                stack.pop();
            }
            b'{' if !stack.is_empty() => stack.push(false),
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') => {
                // Heredoc: skip to the line holding only the marker.
                let mut j = i + 2;
                if b.get(j) == Some(&b'-') {
                    j += 1;
                }
                let ms = j;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'-')
                {
                    j += 1;
                }
                if j > ms && matches!(b.get(j), Some(b'\n') | Some(b'\r')) {
                    let marker = &text[ms..j];
                    let mut k = j;
                    loop {
                        let nl = text[k..].find('\n')?;
                        k += nl + 1;
                        let line_end = text[k..].find('\n').map_or(text.len(), |x| k + x);
                        if text[k..line_end].trim() == marker {
                            i = line_end;
                            break;
                        }
                    }
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if in_string(&stack) {
        return Some((text.len(), true));
    }
    None
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
