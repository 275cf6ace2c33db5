//! Quick fixes: the "did you mean" of a diagnostic as an edit.
//!
//! The analyzer's messages carry the suggestion in their text
//! (`did you mean "length"?`), and its spans point at the offending name
//! (or at an expression or string holding it). This reads both: the
//! suggestion from the message, the name from the source under the span.

use fnhcl_base::{Diagnostic, SourceMap, Span, edit_distance};

use crate::TextEdit;

/// A fix for one diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuickFix {
    /// `Change "lenght" to "length"`.
    pub title: String,
    pub edit: TextEdit,
}

/// The did-you-mean of `d` as an edit of the name it complains about, if
/// the message has one and the name can be found under its span.
pub fn quick_fix(sources: &SourceMap, d: &Diagnostic) -> Option<QuickFix> {
    let suggestion = suggestion_in(&d.summary).or_else(|| suggestion_in(&d.detail))?;
    let span = d.primary?;
    let text = sources
        .get(span.file)
        .text
        .get(span.start as usize..span.end as usize)?;
    let (start, end) = offending(text, &d.summary, &suggestion)?;
    let old = &text[start..end];
    if old == suggestion {
        return None;
    }
    Some(QuickFix {
        title: format!("Change \"{old}\" to \"{suggestion}\""),
        edit: TextEdit {
            span: Span {
                file: span.file,
                start: span.start + start as u32,
                end: span.start + end as u32,
            },
            new_text: suggestion,
        },
    })
}

/// The name in `did you mean "name"?` (any case), if `message` has one.
fn suggestion_in(message: &str) -> Option<String> {
    let lower = message.to_ascii_lowercase();
    let at = lower.find("did you mean ")? + "did you mean ".len();
    let rest = message[at..].strip_prefix('"')?;
    let end = rest.find('"')?;
    let s = &rest[..end];
    (!s.is_empty() && !s.contains(char::is_whitespace)).then(|| s.to_owned())
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

/// The byte range in `text` (the source under the diagnostic's span) of
/// the name to replace.
fn offending(text: &str, summary: &str, suggestion: &str) -> Option<(usize, usize)> {
    // The span is the name itself, or a quoted string holding it.
    if !text.is_empty() && text.chars().all(is_name_char) {
        return Some((0, text.len()));
    }
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'))
        && !inner.is_empty()
        && inner.chars().all(is_name_char)
    {
        return Some((1, text.len() - 1));
    }
    let words = words(text);
    // A name the summary quotes (`unknown variable "regoin"`), the last
    // occurrence (the failing step of a path is its last one).
    for quoted in summary.split('"').skip(1).step_by(2) {
        let last = quoted.rsplit('.').next().unwrap_or(quoted);
        if let Some(&(s, e)) = words.iter().rev().find(|(s, e)| &text[*s..*e] == last) {
            return Some((s, e));
        }
    }
    // Otherwise the word closest to the suggestion.
    words
        .iter()
        .filter_map(|&(s, e)| edit_distance(&text[s..e], suggestion, 64).map(|dist| (dist, s, e)))
        .filter(|(dist, _, _)| *dist > 0 && *dist <= suggestion.chars().count().div_ceil(2))
        .min_by_key(|(dist, s, _)| (*dist, std::cmp::Reverse(*s)))
        .map(|(_, s, e)| (s, e))
}

/// The words (runs of name characters) of `text`, as byte ranges.
fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_name_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

#[cfg(test)]
#[path = "fixes_tests.rs"]
mod tests;
