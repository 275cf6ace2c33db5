//! Code frames for a fatal result: the function reports positions in HCL's
//! range format (`main.hcl:20,32-39`); the HCL is in the step's input, so
//! the renderer can show the lines it points at.

use fnhcl_base::{Diagnostic, SourceMap, Span, render_frames};
use serde_json::Value;

/// A position named in a message: file, start line/col, end line/col.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Position {
    pub file: String,
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
    /// Byte range of the position text in the message.
    pub text_end: usize,
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

fn digits(s: &str) -> (Option<usize>, &str) {
    let n = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if n == 0 || n > 9 {
        return (None, s);
    }
    (s[..n].parse().ok(), &s[n..])
}

/// Finds `name.hcl:L,C-C` and `name.hcl:L,C-L,C` in a message.
pub(crate) fn positions(message: &str) -> Vec<Position> {
    let mut out = Vec::new();
    let mut search = 0;
    while let Some(rel) = message[search..].find(".hcl:") {
        let dot = search + rel;
        let colon = dot + 4;
        search = colon + 1;
        let start = message[..dot]
            .char_indices()
            .rev()
            .take_while(|(_, c)| is_name_char(*c))
            .last()
            .map_or(dot, |(i, _)| i);
        let file = &message[start..colon];
        if file == ".hcl" {
            continue;
        }
        let rest = &message[colon + 1..];
        let (Some(line), rest) = digits(rest) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(',') else {
            continue;
        };
        let (Some(col), rest) = digits(rest) else {
            continue;
        };
        let Some(rest) = rest.strip_prefix('-') else {
            continue;
        };
        let (Some(a), rest) = digits(rest) else {
            continue;
        };
        let (end_line, end_col, rest) = match rest.strip_prefix(',') {
            Some(r2) => match digits(r2) {
                (Some(b), r3) => (a, b, r3),
                (None, _) => (line, a, rest),
            },
            None => (line, a, rest),
        };
        let text_end = message.len() - rest.len();
        out.push(Position {
            file: file.to_owned(),
            line,
            col,
            end_line,
            end_col,
            text_end,
        });
        search = text_end;
    }
    out
}

/// Byte offset of a 1-based line and column (columns count characters).
fn offset(text: &str, line: usize, col: usize) -> Option<usize> {
    let mut start = 0usize;
    for _ in 1..line {
        start += text[start..].find('\n')? + 1;
    }
    let rest = &text[start..];
    let line_text = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let idx = col.checked_sub(1)?;
    match line_text.char_indices().nth(idx) {
        Some((i, _)) => Some(start + i),
        // Just past the end of the line.
        None => (idx == line_text.chars().count()).then_some(start + line_text.len()),
    }
}

/// Code frames for the positions in `message`, using the HCL of the step's
/// input; `None` when there is nothing to show.
pub(crate) fn for_message(message: &str, input: Option<&Value>) -> Option<String> {
    let hcl = input?.get("hcl")?.as_str()?;
    let found = positions(message);
    if found.is_empty() {
        return None;
    }
    let mut sources = SourceMap::new();
    // The files as the function split them (D2: a text without markers
    // is `main.hcl`).
    let files: Vec<_> = fnhcl_base::txtar::parse(hcl)
        .unwrap_or_default()
        .into_iter()
        .map(|f| {
            let id = sources.add(f.name.clone(), f.data.clone());
            (f.name, f.data, id)
        })
        .collect();
    let mut spans = Vec::new();
    for p in &found {
        let Some((_, text, id)) = files.iter().find(|(n, _, _)| *n == p.file) else {
            continue;
        };
        let (Some(a), Some(b)) = (
            offset(text, p.line, p.col),
            offset(text, p.end_line, p.end_col),
        ) else {
            continue;
        };
        if b < a {
            continue;
        }
        spans.push((Span::new(*id, a, b), p.text_end));
    }
    let (&(primary, after), rest) = spans.split_first()?;
    let summary = message[after..]
        .trim_start_matches([':', ' '])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    let summary = if summary.is_empty() {
        message.lines().next().unwrap_or_default().to_owned()
    } else {
        summary
    };
    let mut d = Diagnostic::error(summary, "").with_span(primary);
    for (s, _) in rest {
        if *s != primary {
            d = d.with_label(*s, "");
        }
    }
    Some(render_frames(std::slice::from_ref(&d), &sources))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_positions() {
        let p = positions("main.hcl:19,12-21,6:discarded x, dir/a.hcl:20,32-39: oops; y.hcl:bad");
        assert_eq!(p.len(), 2);
        assert_eq!(
            (
                p[0].file.as_str(),
                p[0].line,
                p[0].col,
                p[0].end_line,
                p[0].end_col
            ),
            ("main.hcl", 19, 12, 21, 6)
        );
        assert_eq!(
            (
                p[1].file.as_str(),
                p[1].line,
                p[1].col,
                p[1].end_line,
                p[1].end_col
            ),
            ("dir/a.hcl", 20, 32, 20, 39)
        );
    }

    #[test]
    fn frame_points_at_source() {
        let input = json!({"hcl": "-- main.hcl --\nlocals {\n  a = b.c\n}\n"});
        let f = for_message(
            "main.hcl:2,7-10: unknown variable; there is no b",
            Some(&input),
        )
        .unwrap();
        assert!(f.contains("a = b.c"), "{f}");
        assert!(f.contains("main.hcl:2:7"), "{f}");
        assert!(f.contains("unknown variable"), "{f}");
        assert!(for_message("no positions", Some(&input)).is_none());
        assert!(for_message("main.hcl:99,1-2: x", Some(&input)).is_none());
    }
}
