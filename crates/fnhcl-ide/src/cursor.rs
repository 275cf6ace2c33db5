//! Where the cursor is, read from the tokens before it: the open frames,
//! the word being typed, the traversal (`req.composite.spec.`) before it,
//! and whether it sits in a resource body. Shared by completion, hover and
//! signature help; tolerant of any text.

use crate::lex::{T, Token, is_ident_continue, is_ident_start, literal_string, tokenize};
use crate::walk::{Frame, Kind, frames_at};

pub(crate) struct Cursor<'t> {
    pub(crate) text: &'t str,
    /// The tokens of the text, comments left out.
    pub(crate) tokens: Vec<Token>,
    /// The cursor is in a comment.
    pub(crate) in_comment: bool,
    /// Start of the word the cursor is in or after (== offset if none).
    pub(crate) word_start: u32,
    pub(crate) offset: u32,
    /// Frames open at `word_start`.
    pub(crate) frames: Vec<Frame>,
}

/// What a resource-like body is about.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum BodyOf {
    /// A composed resource's body; apiVersion and kind as written.
    Resource(Option<String>, Option<String>),
    /// `composite status { body = ... }`: the XR (path starts at `status`).
    CompositeStatus,
    /// `composite connection { body = ... }`: the XR's connection details.
    CompositeConnection,
}

impl<'t> Cursor<'t> {
    pub(crate) fn new(text: &'t str, offset: u32) -> Cursor<'t> {
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let mut start = offset;
        for (i, c) in text[..offset].char_indices().rev() {
            if !is_ident_continue(c) {
                break;
            }
            start = i;
        }
        // A word starts with a letter or `_` (`5-` and `-x` are not names).
        while let Some(c) = text[start..offset].chars().next()
            && !is_ident_start(c)
        {
            start += c.len_utf8();
        }
        let mut tokens = tokenize(text);
        let in_comment = tokens
            .iter()
            .any(|t| t.kind == T::Comment && t.start < offset as u32 && offset as u32 <= t.end);
        // Comments are not part of the structure; in one, there is nothing
        // to complete or describe.
        tokens.retain(|t| t.kind != T::Comment);
        let frames = frames_at(text, &tokens, start as u32);
        Cursor {
            text,
            in_comment,
            tokens,
            word_start: start as u32,
            offset: offset as u32,
            frames,
        }
    }

    pub(crate) fn top(&self) -> &Frame {
        self.frames.last().expect("the file frame")
    }

    /// The types of the blocks around the cursor, outermost first.
    pub(crate) fn chain(&self) -> Vec<&str> {
        chain_of(&self.frames)
    }

    /// The traversal that ends with a `.` right before the word:
    /// `req.composite.spec.` gives `["req", "composite", "spec"]`.
    pub(crate) fn path_before_word(&self) -> Option<Vec<String>> {
        let i = self.tokens.iter().rposition(|t| t.end <= self.word_start)?;
        let dot = self.tokens[i];
        if dot.kind != T::Dot || dot.end != self.word_start || i == 0 {
            return None;
        }
        traversal_ending(self.text, &self.tokens, i - 1)
    }

    /// For a cursor right inside an index bracket (`x.y[` or `x.y["`): the
    /// traversal before the bracket.
    pub(crate) fn path_before_index(&self) -> Option<Vec<String>> {
        let n = self.frames.len();
        let tuple = match self.top().kind {
            Kind::Tuple => &self.frames[n - 1],
            Kind::Str if n >= 2 && self.frames[n - 2].kind == Kind::Tuple => &self.frames[n - 2],
            _ => return None,
        };
        let i = self.tokens.iter().position(|t| t.start == tuple.open)?;
        if i == 0 || self.tokens[i - 1].end != tuple.open {
            return None;
        }
        traversal_ending(self.text, &self.tokens, i - 1)
    }

    /// The resource-like body the frames `frames` are in, and the field path
    /// of the innermost object (`None` when not in a body, or in an
    /// expression inside it).
    pub(crate) fn body_at(&self, frames: &[Frame]) -> Option<(BodyOf, Vec<String>)> {
        let bi = frames
            .iter()
            .rposition(|f| matches!(f.kind, Kind::Body { .. }))?;
        let Kind::Body { ty, labels } = &frames[bi].kind else {
            return None;
        };
        let resource_like = |t: &str| matches!(t, "resource" | "template" | "resources");
        let (target, open, rest) = if ty == "body"
            && bi >= 1
            && matches!(&frames[bi - 1].kind, Kind::Body { ty, .. } if resource_like(ty))
        {
            (true, frames[bi].open, &frames[bi + 1..])
        } else {
            let obj = frames.get(bi + 1)?;
            if obj.kind != Kind::Object || obj.key.as_deref() != Some("body") {
                return None;
            }
            if resource_like(ty) {
                (true, obj.open, &frames[bi + 2..])
            } else if ty == "composite" && labels.first().map(String::as_str) == Some("status") {
                (false, obj.open, &frames[bi + 2..])
            } else if ty == "composite" && labels.first().map(String::as_str) == Some("connection")
            {
                // Connection details are flat: keys directly in the body.
                return (frames.len() == bi + 2)
                    .then_some((BodyOf::CompositeConnection, Vec::new()));
            } else {
                return None;
            }
        };
        let mut path = Vec::new();
        if !target {
            path.push("status".to_owned());
        }
        for (k, f) in rest.iter().enumerate() {
            if !matches!(f.kind, Kind::Object | Kind::Tuple) {
                return None;
            }
            match &f.key {
                Some(key) => path.push(key.clone()),
                None if k > 0 && rest[k - 1].kind == Kind::Tuple => path.push("0".to_owned()),
                None if k == 0 => {}
                None => return None,
            }
        }
        let body = if target {
            let (v, k) = crate::program::object_kind(self.text, open, self.text.len() as u32);
            BodyOf::Resource(v, k)
        } else {
            BodyOf::CompositeStatus
        };
        Some((body, path))
    }

    /// The word being typed (up to the cursor).
    pub(crate) fn word(&self) -> &'t str {
        &self.text[self.word_start as usize..self.offset as usize]
    }
}

pub(crate) fn chain_of(frames: &[Frame]) -> Vec<&str> {
    frames
        .iter()
        .skip(1)
        .filter_map(|f| match &f.kind {
            Kind::Body { ty, .. } => Some(ty.as_str()),
            _ => None,
        })
        .collect()
}

/// The static traversal whose last token is `tokens[last]`: names joined
/// by `.` and literal or other index steps (`[0]`, `["a"]`, `[*]` → `"*"`),
/// starting with a root name.
pub(crate) fn traversal_ending(text: &str, tokens: &[Token], last: usize) -> Option<Vec<String>> {
    let mut segs = Vec::new();
    let mut p = last;
    loop {
        let t = tokens[p];
        match t.kind {
            T::Ident => {
                segs.push(t.text(text).to_owned());
                if p >= 2
                    && tokens[p - 1].kind == T::Dot
                    && tokens[p - 1].end == t.start
                    && tokens[p - 1].start == tokens[p - 2].end
                {
                    p -= 2;
                    continue;
                }
                break;
            }
            T::NumberLit if p >= 2 && tokens[p - 1].kind == T::Dot => {
                segs.push(t.text(text).to_owned());
                p -= 2;
            }
            T::CBrack => {
                let mut depth = 0;
                let mut j = p;
                loop {
                    match tokens[j].kind {
                        T::CBrack => depth += 1,
                        T::OBrack => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    if j == 0 || p - j > 64 {
                        return None;
                    }
                    j -= 1;
                }
                let inner = &tokens[j + 1..p];
                let seg = match inner {
                    [n] if n.kind == T::NumberLit => n.text(text).to_owned(),
                    _ => literal_string(text, inner).unwrap_or_else(|| "*".to_owned()),
                };
                segs.push(seg);
                if j == 0 {
                    return None;
                }
                p = j - 1;
            }
            _ => return None,
        }
    }
    segs.reverse();
    Some(segs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(text: &str) -> (String, u32) {
        let off = text.find('|').expect("a cursor") as u32;
        (text.replace('|', ""), off)
    }

    #[test]
    fn paths_before_the_word() {
        for (src, want) in [
            (
                "x = req.composite.spec.re|",
                Some(vec!["req", "composite", "spec"]),
            ),
            ("x = req.|", Some(vec!["req"])),
            (
                "x = req.resources[\"b\"][0].st|",
                Some(vec!["req", "resources", "b", "0"]),
            ),
            ("x = f(a).|", None),
            ("x = req|", None),
        ] {
            let (t, o) = cursor(src);
            let c = Cursor::new(&t, o);
            let want = want.map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
            assert_eq!(c.path_before_word(), want, "{src}");
        }
    }

    #[test]
    fn bodies_and_their_paths() {
        let (t, o) = cursor(
            "resource b {\n  body = {\n    apiVersion = \"s3/v1\"\n    kind = \"Bucket\"\n    spec = {\n      tags = [{\n        |",
        );
        let c = Cursor::new(&t, o);
        assert_eq!(
            c.body_at(&c.frames),
            Some((
                BodyOf::Resource(Some("s3/v1".into()), Some("Bucket".into())),
                vec!["spec".into(), "tags".into(), "0".into()]
            ))
        );
        let (t, o) = cursor("composite status {\n  body = {\n    |\n  }\n}\n");
        let c = Cursor::new(&t, o);
        assert_eq!(
            c.body_at(&c.frames),
            Some((BodyOf::CompositeStatus, vec!["status".into()]))
        );
        let (t, o) = cursor("resource b {\n  body {\n    spec = {\n      |");
        let c = Cursor::new(&t, o);
        assert_eq!(
            c.body_at(&c.frames),
            Some((BodyOf::Resource(None, None), vec!["spec".into()]))
        );
    }
}
