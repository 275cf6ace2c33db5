//! Positions and URIs between the editor and the program: LSP positions
//! count UTF-16 code units per line (the protocol's default encoding, the
//! one every client supports); our spans count bytes.

use std::path::{Path, PathBuf};
use std::str::FromStr as _;

use fnhcl_base::{SourceFile, Span};
use lsp_types::{Position, Range, Uri};

/// The byte offset of an LSP position in `text`, clamped: a line past the
/// end gives the end of the text, a character past the end of its line the
/// end of the line, a position inside a surrogate pair the start of its
/// character.
pub(crate) fn offset(text: &str, pos: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..pos.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..]
        .find('\n')
        .map_or(text.len(), |i| line_start + i);
    let mut units = 0u32;
    for (i, c) in text[line_start..line_end].char_indices() {
        let w = c.len_utf16() as u32;
        if units + w > pos.character {
            return line_start + i;
        }
        units += w;
    }
    line_end
}

/// The LSP position of a byte offset of `file` (clamped to the text).
pub(crate) fn position(file: &SourceFile, offset: u32) -> Position {
    let text = &*file.text;
    let mut offset = (offset as usize).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let starts = file.line_starts();
    let line = match starts.binary_search(&(offset as u32)) {
        Ok(i) => i,
        Err(i) => i - 1,
    };
    let start = starts[line] as usize;
    let character = text[start..offset]
        .chars()
        .map(char::len_utf16)
        .sum::<usize>();
    Position::new(line as u32, character as u32)
}

/// The LSP range of a span of `file`.
pub(crate) fn range(file: &SourceFile, span: Span) -> Range {
    Range::new(position(file, span.start), position(file, span.end))
}

/// The local path a `file:` URI names.
pub(crate) fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file:///p` (empty authority) or `file://localhost/p`.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let decoded = percent_decode(rest)?;
    Some(PathBuf::from(decoded))
}

/// The `file:` URI of an absolute path.
pub(crate) fn path_to_uri(path: &Path) -> Uri {
    let mut s = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).unwrap_or_else(|_| Uri::from_str("file:///").expect("a valid URI"))
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The message a diagnostic is published with: its summary, then its
/// detail after `; ` (code actions find their diagnostic by it).
pub(crate) fn message(d: &fnhcl_base::Diagnostic) -> String {
    if d.detail.is_empty() {
        d.summary.clone()
    } else {
        format!("{}; {}", d.summary, d.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_utf16_units() {
        let text = "a = \"é😀x\"\nb = 1\n";
        // 😀 is two UTF-16 units and four bytes.
        assert_eq!(offset(text, Position::new(0, 5)), 5); // é
        assert_eq!(offset(text, Position::new(0, 6)), 7); // 😀
        assert_eq!(offset(text, Position::new(0, 7)), 7); // inside the pair
        assert_eq!(offset(text, Position::new(0, 8)), 11); // x
        assert_eq!(offset(text, Position::new(0, 99)), 13); // end of line
        assert_eq!(offset(text, Position::new(1, 2)), 16);
        assert_eq!(offset(text, Position::new(9, 0)), text.len());
        let f = SourceFile::new("m.hcl", text);
        assert_eq!(position(&f, 11), Position::new(0, 8));
        assert_eq!(position(&f, 16), Position::new(1, 2));
        assert_eq!(position(&f, 9), Position::new(0, 6)); // mid-char: its start
    }

    #[test]
    fn uris_round_trip() {
        let p = Path::new("/tmp/a dir/ü.hcl");
        let u = path_to_uri(p);
        assert_eq!(u.as_str(), "file:///tmp/a%20dir/%C3%BC.hcl");
        assert_eq!(uri_to_path(&u).as_deref(), Some(p));
        let other = Uri::from_str("untitled:Untitled-1").unwrap();
        assert_eq!(uri_to_path(&other), None);
    }
}
