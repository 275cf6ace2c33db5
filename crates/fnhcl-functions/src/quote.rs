//! Go-style quoting of text for error messages.

/// Go's `strconv.Quote`.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        push_escaped(&mut out, c, '"');
    }
    out.push('"');
    out
}

/// Go's `strconv.QuoteRune`.
pub(crate) fn go_quote_rune(c: char) -> String {
    let mut out = String::from("'");
    push_escaped(&mut out, c, '\'');
    out.push('\'');
    out
}

fn push_escaped(out: &mut String, c: char, quote: char) {
    match c {
        '\x07' => out.push_str("\\a"),
        '\x08' => out.push_str("\\b"),
        '\x0C' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\x0B' => out.push_str("\\v"),
        '\\' => out.push_str("\\\\"),
        c if c == quote => {
            out.push('\\');
            out.push(c);
        }
        c if (c as u32) < 0x20 || c == '\x7F' => out.push_str(&format!("\\x{:02x}", c as u32)),
        c if c.is_control() => {
            if (c as u32) < 0x10000 {
                out.push_str(&format!("\\u{:04x}", c as u32));
            } else {
                out.push_str(&format!("\\U{:08x}", c as u32));
            }
        }
        c => out.push(c),
    }
}

/// Go's `%q` for a string (close enough for error messages: quotes,
/// backslashes and control characters escaped, other text kept).
///
/// The collection, numeric and type-conversion messages use this one. It
/// differs from [`go_quote`] only in writing `\a`, `\b`, `\f`, `\v` as
/// `\x07`-style escapes and keeping C1 control characters as they are.
pub(crate) fn go_quote_basic(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
