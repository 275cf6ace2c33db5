//! txtar bundles (see upstream-behaviour §1.3 and decision D2).
//!
//! Standard `golang.org/x/tools/txtar` rules: a marker line starts with
//! `-- `, ends with ` --` (exactly; a CRLF marker line is not a marker) and
//! has a non-empty trimmed name between. Text before the first marker is a
//! comment and ignored. A file's data runs from the line after its marker
//! to the next marker line; the last file gets a final newline if it lacks
//! one. Extensions (D2): a text without any marker line is one file named
//! `main.hcl`; two members with the same name are an error.

use std::fmt;

use crate::{FileId, SourceMap};

/// One member of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxtarFile {
    pub name: String,
    pub data: String,
}

/// Why a bundle was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TxtarError {
    /// Two members have the same name.
    DuplicateName(String),
}

impl fmt::Display for TxtarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TxtarError::DuplicateName(n) => {
                write!(f, "duplicate file name {n:?} in the txtar bundle")
            }
        }
    }
}

impl std::error::Error for TxtarError {}

/// The name given to a plain (marker-less) text.
pub const DEFAULT_FILE_NAME: &str = "main.hcl";

/// Parses a bundle with Go txtar's rules, without the D2 extensions: the
/// comment and the members (possibly none).
pub fn parse_archive(text: &str) -> (String, Vec<TxtarFile>) {
    let (comment, mut name, mut rest) = find_marker(text);
    let mut files = Vec::new();
    while let Some(n) = name {
        let (data, next_name, next_rest) = find_marker(rest);
        files.push(TxtarFile {
            name: n,
            data: data.to_owned(),
        });
        name = next_name;
        rest = next_rest;
    }
    // Go's `fixNL` only applies when no further marker follows, i.e. to
    // the comment of a marker-less text and to the last member.
    if let Some(last) = files.last_mut() {
        fix_nl(&mut last.data);
    }
    let mut comment = comment.to_owned();
    if files.is_empty() {
        fix_nl(&mut comment);
    }
    (comment, files)
}

/// Parses the `hcl` input: txtar members, or (D2) the whole text as one
/// file `main.hcl` when it has no marker line. Duplicate names are an
/// error.
pub fn parse(text: &str) -> Result<Vec<TxtarFile>, TxtarError> {
    let (_, files) = parse_archive(text);
    if files.is_empty() {
        return Ok(vec![TxtarFile {
            name: DEFAULT_FILE_NAME.to_owned(),
            data: text.to_owned(),
        }]);
    }
    for (i, f) in files.iter().enumerate() {
        if files[..i].iter().any(|g| g.name == f.name) {
            return Err(TxtarError::DuplicateName(f.name.clone()));
        }
    }
    Ok(files)
}

/// Parses `text` with [`parse`] and adds every member to `sources`, in
/// order.
pub fn load_into(sources: &mut SourceMap, text: &str) -> Result<Vec<FileId>, TxtarError> {
    let files = parse(text)?;
    Ok(files
        .into_iter()
        .map(|f| sources.add(f.name, f.data))
        .collect())
}

/// Formats members as a txtar bundle (each member's data should end with a
/// newline; one is added if missing).
pub fn format(files: &[TxtarFile]) -> String {
    let mut out = String::new();
    for f in files {
        out.push_str("-- ");
        out.push_str(&f.name);
        out.push_str(" --\n");
        out.push_str(&f.data);
        if !f.data.is_empty() && !f.data.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn fix_nl(s: &mut String) {
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
}

/// The marker name if `line` (without its newline) is a marker line.
fn marker_name(line: &str) -> Option<String> {
    if line.len() < 6 || !line.starts_with("-- ") || !line.ends_with(" --") {
        return None;
    }
    let name = line[3..line.len() - 3].trim();
    (!name.is_empty()).then(|| name.to_owned())
}

/// Finds the next marker line in `data`: returns the text before it, the
/// marker's name and the text after the marker line. Without a marker:
/// `(data, None, "")`.
fn find_marker(data: &str) -> (&str, Option<String>, &str) {
    let mut i = 0;
    loop {
        let rest = &data[i..];
        let (line, after) = match rest.find('\n') {
            Some(j) => (&rest[..j], &rest[j + 1..]),
            None => (rest, ""),
        };
        if let Some(name) = marker_name(line) {
            return (&data[..i], Some(name), after);
        }
        match next_marker_candidate(rest) {
            Some(j) => i += j + 1,
            None => return (data, None, ""),
        }
    }
}

/// Where the next `"\n-- "` starts in `s` (memchr's vectorised search:
/// the text between markers is most of a bundle).
fn next_marker_candidate(s: &str) -> Option<usize> {
    memchr::memmem::find(s.as_bytes(), b"\n-- ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(files: &[TxtarFile]) -> Vec<(&str, &str)> {
        files
            .iter()
            .map(|f| (f.name.as_str(), f.data.as_str()))
            .collect()
    }

    #[test]
    fn members_comment_and_final_newline() {
        let t = "comment\n-- a.hcl --\nx = 1\n\n--  b.hcl  --\ny = 2";
        let (c, files) = parse_archive(t);
        assert_eq!(c, "comment\n");
        assert_eq!(
            names(&files),
            vec![("a.hcl", "x = 1\n\n"), ("b.hcl", "y = 2\n")]
        );
    }

    #[test]
    fn plain_text_is_main_hcl() {
        let files = parse("resource x {\n}\n").unwrap();
        assert_eq!(names(&files), vec![("main.hcl", "resource x {\n}\n")]);
        // Not markers: CRLF marker, empty name, missing closing dashes.
        let files = parse("-- a.hcl --\r\nx\n-- --\n-- b\n").unwrap();
        assert_eq!(
            names(&files),
            vec![("main.hcl", "-- a.hcl --\r\nx\n-- --\n-- b\n")]
        );
    }

    #[test]
    fn marker_at_end_and_empty_members() {
        let (_, files) = parse_archive("-- a --\n-- b --");
        assert_eq!(names(&files), vec![("a", ""), ("b", "")]);
        let (_, files) = parse_archive("-- a --\nx\n-- b --\n");
        assert_eq!(names(&files), vec![("a", "x\n"), ("b", "")]);
    }

    #[test]
    fn duplicate_names_are_an_error() {
        let e = parse("-- a.hcl --\nx\n-- a.hcl --\ny\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "duplicate file name \"a.hcl\" in the txtar bundle"
        );
    }

    #[test]
    fn load_into_source_map_with_per_file_lines() {
        let mut sm = SourceMap::new();
        let ids = load_into(&mut sm, "-- a.hcl --\nx = 1\n-- b.hcl --\n\ny = 2\n").unwrap();
        assert_eq!(ids.len(), 2);
        assert_eq!(sm.get(ids[1]).name, "b.hcl");
        let off = sm.get(ids[1]).text.find('y').unwrap();
        let s = crate::Span::new(ids[1], off, off + 1);
        assert_eq!(sm.range_text(s), "b.hcl:2,1-2");
    }

    #[test]
    fn format_round_trips() {
        let files = vec![
            TxtarFile {
                name: "a.hcl".into(),
                data: "x\n".into(),
            },
            TxtarFile {
                name: "b.hcl".into(),
                data: "y\n".into(),
            },
        ];
        assert_eq!(parse(&format(&files)).unwrap(), files);
    }
}
