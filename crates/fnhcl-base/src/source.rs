use std::sync::{Arc, OnceLock};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }
    /// Smallest span covering both (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
    pub fn empty_at(file: FileId, offset: usize) -> Span {
        Span::new(file, offset, offset)
    }
}

/// 1-based line and 1-based column (columns count grapheme clusters, as HCL does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// One source file: its name (as in diagnostics) and text.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: Arc<str>,
    /// Where each line starts, worked out when a position is first asked
    /// for (a program that compiles and runs cleanly never asks).
    line_starts: OnceLock<Vec<u32>>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.into(),
            line_starts: OnceLock::new(),
        }
    }

    pub fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut starts = vec![0u32];
            starts.extend(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i as u32 + 1));
            starts
        })
    }

    /// Line/column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts().binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts()[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let before = &self.text[start..end];
        let col = if before.is_ascii() {
            before.len()
        } else {
            unicode_segmentation::UnicodeSegmentation::graphemes(before, true).count()
        } as u32
            + 1;
        LineCol {
            line: line as u32 + 1,
            col,
        }
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }
}

/// All files of one program (a txtar bundle, a directory, or one expression).
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile::new(name, text));
        id
    }
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }
    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }
    pub fn len(&self) -> usize {
        self.files.len()
    }
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// HCL's range format: `file.hcl:L,C-C` on one line, `file.hcl:L,C-L,C`
    /// across lines.
    pub fn range_text(&self, span: Span) -> String {
        let f = self.get(span.file);
        let a = f.line_col(span.start);
        let b = f.line_col(span.end);
        if a.line == b.line {
            format!("{}:{},{}-{}", f.name, a.line, a.col, b.col)
        } else {
            format!("{}:{},{}-{},{}", f.name, a.line, a.col, b.line, b.col)
        }
    }

    /// The source text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        self.get(span.file).slice(span)
    }
}
