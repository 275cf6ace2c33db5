//! Object constructors with a repeated key.
//!
//! HCL accepts `{a = 1, a = 2}` (the last value wins); hcl-edit refuses to
//! parse it ("redefined object key"). We rename each repeated key in a
//! copy of the text to an unused name of the same byte length, parse that,
//! and the converter takes the real key name back from the original text.

/// Byte offsets (in the parsed text) of renamed keys.
pub(crate) type Renamed = Vec<usize>;

/// Each rename costs one more parse of the whole text, so only a few
/// repeated keys per file are accepted.
const MAX_RENAMES: usize = 32;

const KEYWORDS: &[&str] = &[
    "for", "in", "if", "null", "true", "false", "endif", "endfor", "else",
];

/// Runs `parse` on `text`, renaming repeated object keys until it succeeds
/// or fails for another reason.
pub(crate) fn parse_lenient<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, hcl_edit::parser::Error>,
) -> (Result<T, hcl_edit::parser::Error>, Renamed) {
    let mut work = text.to_owned();
    let mut renamed = Vec::new();
    let mut fixes = 0;
    loop {
        match parse(&work) {
            Ok(t) => return (Ok(t), renamed),
            Err(e) => {
                let offset = e.location().offset();
                if fixes < MAX_RENAMES && widen_number_at(&mut work, offset) {
                    fixes += 1;
                    continue;
                }
                if !e.message().contains("redefined object key")
                    || renamed.len() >= MAX_RENAMES
                    || renamed.contains(&offset)
                {
                    return (Err(e), renamed);
                }
                match rename_at(&mut work, offset) {
                    Some(()) => renamed.push(offset),
                    None => return (Err(e), renamed),
                }
            }
        }
    }
}

/// hcl-edit reads number literals as float64 and rejects exponents beyond
/// its range (`1e309`); HCL reads them at 512 bits. Such a literal at the
/// error position is replaced by a same-length `0…01` in the working copy
/// (the converter takes a number's text from the original source).
fn widen_number_at(work: &mut String, offset: usize) -> bool {
    let b = work.as_bytes();
    let is_num = |c: u8| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-');
    let mut start = offset.min(b.len());
    while start > 0 && is_num(b[start - 1]) {
        start -= 1;
    }
    // A sign before the literal belongs to an operator, not the number.
    while start < b.len() && matches!(b[start], b'+' | b'-') {
        start += 1;
    }
    if start >= b.len() || !b[start].is_ascii_digit() {
        return false;
    }
    let mut end = start;
    while end < b.len() && is_num(b[end]) {
        if matches!(b[end], b'+' | b'-') && !matches!(b[end - 1], b'e' | b'E') {
            break;
        }
        end += 1;
    }
    let lit = &work[start..end];
    if !lit.contains(['e', 'E']) || end - start < 2 {
        return false;
    }
    match lit.parse::<f64>() {
        Ok(v) if v.is_infinite() => {
            let repl = format!("{}1", "0".repeat(end - start - 1));
            work.replace_range(start..end, &repl);
            true
        }
        _ => false,
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b >= 0x80
}

fn rename_at(work: &mut String, offset: usize) -> Option<()> {
    if !work.is_char_boundary(offset) {
        return None;
    }
    let bytes = work.as_bytes();
    let (start, len, quoted) = if bytes.get(offset) == Some(&b'"') {
        let rest = &work[offset + 1..];
        let close = rest.find('"')?;
        if rest[..close].contains(['\\', '$', '%', '\n']) || close == 0 {
            return None;
        }
        (offset + 1, close, true)
    } else {
        let mut end = offset;
        while end < bytes.len() && is_ident_byte(bytes[end]) {
            end += 1;
        }
        if end == offset {
            return None;
        }
        (offset, end - offset, false)
    };
    let name = placeholder(work, len, quoted)?;
    work.replace_range(start..start + len, &name);
    Some(())
}

/// An ASCII name of `len` bytes that does not occur in `work` (as a whole
/// identifier, or as a whole quoted string).
fn placeholder(work: &str, len: usize, quoted: bool) -> Option<String> {
    const ALPHA: &[u8] = b"ZQXJKVWYUGPFMBHDLCNRSTOIEA";
    for counter in 0..20_000usize {
        let mut c = counter;
        let mut name = Vec::with_capacity(len);
        for _ in 0..len {
            name.push(ALPHA[c % ALPHA.len()]);
            c /= ALPHA.len();
        }
        if c != 0 {
            return None;
        }
        let name = String::from_utf8(name).ok()?;
        if KEYWORDS.contains(&name.to_lowercase().as_str()) {
            continue;
        }
        let taken = if quoted {
            work.contains(&format!("\"{name}\""))
        } else {
            occurs_as_ident(work, &name)
        };
        if !taken {
            return Some(name);
        }
    }
    None
}

fn occurs_as_ident(text: &str, name: &str) -> bool {
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let at = from + i;
        let end = at + name.len();
        let before = at > 0 && is_ident_byte(b[at - 1]);
        let after = end < b.len() && is_ident_byte(b[end]);
        if !before && !after {
            return true;
        }
        from = at + 1;
    }
    false
}
