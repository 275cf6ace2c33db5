//! The structure of a file from its tokens alone: which blocks, objects,
//! calls and strings are open at a point, and the blocks and attributes
//! the file declares. Works on any text, complete or half-typed, in one
//! linear pass.
//!
//! Kept beside the recovering parser's tree because completion, hover and
//! signature help ask about the text at the cursor, which is the text the
//! parser's recovery leaves out: a header still without its `{`
//! (`resource "x" |`), a call or string not yet closed (`invoke("|`),
//! the rest of a line or object after a typo. The tree has no node there;
//! the open frames (with a call's comma count, an entry's state) are what
//! these features need, and one pass over the tokens gives them.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::lex::{T, Token, closes_string, is_string_text, opens_sequence, opens_string, tokenize};

/// What an open bracket (or string) is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A block's body; the file itself is a body with an empty type.
    Body {
        ty: String,
        labels: Vec<String>,
    },
    /// `{ ... }` in an expression.
    Object,
    /// `[ ... ]`.
    Tuple,
    /// `( ... )`: a call when an identifier precedes it. `first_string` is
    /// the text of a string literal that is the whole first argument
    /// (`invoke("name", ...)`).
    Paren {
        func: Option<String>,
        commas: usize,
        first_string: Option<String>,
    },
    Interp,
    Str,
}

/// Where a body or object is within its current entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    /// Before a name (a new attribute, block or object key).
    Start,
    /// After a name, before `=` or `{`: a block header (type and labels so far).
    Header { name: String, labels: Vec<String> },
    /// In the value of attribute or key `name`.
    Value { name: String },
}

#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub(crate) kind: Kind,
    /// Offset of the opening token.
    pub(crate) open: u32,
    /// The attribute or key whose value this bracket is, if any.
    pub(crate) key: Option<String>,
    pub(crate) entry: Entry,
}

/// A block found in a file.
#[derive(Clone, Debug)]
pub(crate) struct BlockDecl {
    pub(crate) ty: String,
    /// Label texts and spans (byte offsets).
    pub(crate) labels: Vec<(String, u32, u32)>,
    /// Types of the enclosing blocks, outermost first.
    pub(crate) chain: Vec<String>,
    /// From the type's start to the closing brace (end of file if none).
    pub(crate) start: u32,
    pub(crate) end: u32,
    /// Index of the enclosing block in [`Outline::blocks`].
    pub(crate) parent: Option<usize>,
}

/// An attribute of a block body.
#[derive(Clone, Debug)]
pub(crate) struct AttrDecl {
    pub(crate) name: String,
    /// The value's extent (to the end of its line at the body's level).
    pub(crate) value_start: u32,
    pub(crate) value_end: u32,
    pub(crate) block: Option<usize>,
}

/// Everything a file declares, as far as its tokens tell.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outline {
    pub(crate) blocks: Vec<BlockDecl>,
    pub(crate) attrs: Vec<AttrDecl>,
}

/// The outlines of the texts seen lately, so that a file the editor did
/// not change is not lexed again for every new snapshot. Keyed by a hash
/// of the text, checked against the text itself.
static OUTLINES: Mutex<Option<HashMap<u64, (Arc<str>, Arc<Outline>)>>> = Mutex::new(None);

/// How many texts [`OUTLINES`] keeps before it starts afresh.
const OUTLINES_KEPT: usize = 512;

/// [`outline`] of `text`, from [`OUTLINES`] when it was seen before.
pub(crate) fn cached_outline(text: &Arc<str>) -> Arc<Outline> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    let key = h.finish();
    let lock = || OUTLINES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((t, o)) = lock().as_ref().and_then(|c| c.get(&key))
        && (Arc::ptr_eq(t, text) || **t == **text)
    {
        return o.clone();
    }
    let o = Arc::new(outline(text));
    let mut guard = lock();
    let cache = guard.get_or_insert_with(HashMap::new);
    if cache.len() >= OUTLINES_KEPT {
        cache.clear();
    }
    cache.insert(key, (text.clone(), o.clone()));
    o
}

/// Deeper nesting is ignored (the parser rejects it anyway).
const MAX_FRAMES: usize = 256;

pub(crate) struct Walker<'t> {
    text: &'t str,
    pub(crate) frames: Vec<Frame>,
    /// The previous significant token.
    prev: Option<Token>,
    pub(crate) outline: Outline,
    /// Open block of each `Body` frame (parallel to the body frames but the first).
    open_blocks: Vec<usize>,
    /// The attribute whose value is being read, per body frame depth.
    open_attr: Option<(usize, usize)>,
    /// The string being read: its literal text, if only literal.
    string: Option<String>,
    /// The string being read follows a `(` directly.
    string_opens_call: bool,
}

impl<'t> Walker<'t> {
    pub(crate) fn new(text: &'t str) -> Walker<'t> {
        Walker {
            text,
            frames: vec![Frame {
                kind: Kind::Body {
                    ty: String::new(),
                    labels: Vec::new(),
                },
                open: 0,
                key: None,
                entry: Entry::Start,
            }],
            prev: None,
            outline: Outline::default(),
            open_blocks: Vec::new(),
            open_attr: None,
            string: None,
            string_opens_call: false,
        }
    }

    fn top(&mut self) -> &mut Frame {
        self.frames
            .last_mut()
            .expect("the file frame is never popped")
    }

    fn push(&mut self, kind: Kind, open: u32) {
        let top = self.top();
        let key = match &top.entry {
            Entry::Value { name } if matches!(top.kind, Kind::Body { .. } | Kind::Object) => {
                Some(name.clone())
            }
            _ => None,
        };
        if self.frames.len() < MAX_FRAMES {
            self.frames.push(Frame {
                kind,
                open,
                key,
                entry: Entry::Start,
            });
        }
    }

    /// Ends the attribute being read if it belongs to the top frame.
    fn end_attr(&mut self, at: u32) {
        if let Some((depth, i)) = self.open_attr
            && depth == self.frames.len()
        {
            self.outline.attrs[i].value_end = at.max(self.outline.attrs[i].value_start);
            self.open_attr = None;
        }
    }

    /// Closes the innermost frame of a kind `close` accepts, if one is open
    /// (a stray closer is ignored).
    fn pop_to(&mut self, t: Token, close: fn(&Kind) -> bool) {
        let Some(pos) = self.frames.iter().rposition(|f| close(&f.kind)) else {
            return;
        };
        if pos == 0 {
            return;
        }
        while self.frames.len() > pos {
            self.end_attr(t.start);
            let f = self.frames.pop().expect("len > pos >= 1");
            if matches!(f.kind, Kind::Body { .. })
                && let Some(b) = self.open_blocks.pop()
            {
                self.outline.blocks[b].end = t.end;
            }
        }
        // The bracket was a value: the entry it belongs to goes on (an
        // operator may follow) until a newline or comma. A block is done.
        if let Entry::Header { .. } = self.top().entry {
            self.top().entry = Entry::Start;
        }
    }

    pub(crate) fn step(&mut self, t: Token) {
        let text = self.text;
        // `invoke("a" + x, ...)`: a string followed by more of the first
        // argument is not the whole argument, so names no function.
        if !matches!(t.kind, T::Comment | T::Newline | T::Comma | T::CParen)
            && let Kind::Paren {
                commas: 0,
                first_string,
                ..
            } = &mut self.top().kind
        {
            *first_string = None;
        }
        match t.kind {
            T::Comment => return,
            T::Newline => {
                if matches!(self.top().kind, Kind::Body { .. } | Kind::Object) {
                    self.end_attr(t.start);
                    self.top().entry = Entry::Start;
                }
                return;
            }
            k if opens_string(k) => {
                self.string_opens_call = self.prev.is_some_and(|p| p.kind == T::OParen);
                self.push(Kind::Str, t.start);
                self.string = Some(String::new());
            }
            k if is_string_text(k) => {
                if let Some(s) = &mut self.string {
                    s.push_str(t.text(text));
                }
            }
            k if opens_sequence(k) => {
                self.string = None;
                self.push(Kind::Interp, t.start);
            }
            T::TemplateSeqEnd => self.pop_to(t, |k| matches!(k, Kind::Interp)),
            _ if closes_string(&t) => {
                let s = self.string.take();
                if matches!(self.top().kind, Kind::Str) {
                    self.frames.pop();
                }
                self.literal(s);
            }
            T::Ident => {
                let name = t.text(text).to_owned();
                let top = self.top();
                match &mut top.entry {
                    Entry::Start if matches!(top.kind, Kind::Body { .. } | Kind::Object) => {
                        top.entry = Entry::Header {
                            name,
                            labels: Vec::new(),
                        };
                    }
                    Entry::Header { labels, .. } => labels.push(name),
                    _ => {}
                }
            }
            T::Equal | T::Colon => self.assign(t),
            T::OBrace => self.open_brace(t),
            T::CBrace => {
                self.pop_to(t, |k| matches!(k, Kind::Body { .. } | Kind::Object));
            }
            T::OBrack => self.push(Kind::Tuple, t.start),
            T::CBrack => self.pop_to(t, |k| matches!(k, Kind::Tuple)),
            T::OParen => {
                let func = self
                    .prev
                    .filter(|p| p.kind == T::Ident && p.end == t.start)
                    .map(|p| p.text(text).to_owned());
                self.push(
                    Kind::Paren {
                        func,
                        commas: 0,
                        first_string: None,
                    },
                    t.start,
                );
            }
            T::CParen => self.pop_to(t, |k| matches!(k, Kind::Paren { .. })),
            T::Comma => {
                let top = self.top();
                match &mut top.kind {
                    Kind::Paren { commas, .. } => *commas += 1,
                    Kind::Object => top.entry = Entry::Start,
                    _ => {}
                }
            }
            _ => {}
        }
        self.prev = Some(t);
    }

    /// A complete string literal (`None` if it had interpolations).
    fn literal(&mut self, s: Option<String>) {
        let first_arg = self.string_opens_call;
        let top = self.top();
        match (&mut top.kind, &mut top.entry) {
            (Kind::Body { .. } | Kind::Object, Entry::Header { labels, .. }) => {
                labels.push(s.unwrap_or_default())
            }
            (Kind::Object, Entry::Start) => {
                top.entry = Entry::Header {
                    name: s.unwrap_or_default(),
                    labels: Vec::new(),
                }
            }
            (
                Kind::Paren {
                    commas: 0,
                    first_string,
                    ..
                },
                _,
            ) if first_arg => *first_string = s,
            _ => {}
        }
    }

    fn assign(&mut self, t: Token) {
        let depth = self.frames.len();
        let in_body = matches!(self.top().kind, Kind::Body { .. });
        let top = self.top();
        let Entry::Header { name, labels } = &top.entry else {
            return;
        };
        if !labels.is_empty() || !matches!(top.kind, Kind::Body { .. } | Kind::Object) {
            return;
        }
        let name = name.clone();
        top.entry = Entry::Value { name: name.clone() };
        if in_body {
            let block = self.open_blocks.last().copied();
            self.outline.attrs.push(AttrDecl {
                name,
                value_start: t.end,
                value_end: t.end,
                block,
            });
            self.open_attr = Some((depth, self.outline.attrs.len() - 1));
        }
    }

    fn open_brace(&mut self, t: Token) {
        let top = self.top();
        if let (Kind::Body { .. }, Entry::Header { name, labels }) = (&top.kind, &top.entry) {
            let (ty, labels) = (name.clone(), labels.clone());
            let chain: Vec<String> = self.frames[1..]
                .iter()
                .filter_map(|f| match &f.kind {
                    Kind::Body { ty, .. } => Some(ty.clone()),
                    _ => None,
                })
                .collect();
            let start = self.prev_header_start(t.start);
            let spans = self.label_spans(start, t.start);
            self.outline.blocks.push(BlockDecl {
                ty: ty.clone(),
                labels: labels
                    .iter()
                    .cloned()
                    .zip(spans)
                    .map(|(l, (s, e))| (l, s, e))
                    .collect(),
                chain,
                start,
                end: self.text.len() as u32,
                parent: self.open_blocks.last().copied(),
            });
            self.open_blocks.push(self.outline.blocks.len() - 1);
            self.push(Kind::Body { ty, labels }, t.start);
        } else {
            self.push(Kind::Object, t.start);
        }
    }

    /// The start of the block header that ends at `brace`: the start of its
    /// line's first token.
    fn prev_header_start(&self, brace: u32) -> u32 {
        let line_start = self.text[..brace as usize].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.text[line_start..brace as usize];
        (line_start + (line.len() - line.trim_start().len())) as u32
    }

    /// Spans of the labels between a header's start and its brace (the
    /// type is the first word; labels are words or quoted strings).
    fn label_spans(&self, start: u32, brace: u32) -> Vec<(u32, u32)> {
        let header = &self.text[start as usize..brace as usize];
        let mut out = Vec::new();
        let mut quote = None;
        for t in tokenize(header).iter().skip(1) {
            match t.kind {
                T::Ident if quote.is_none() => out.push((start + t.start, start + t.end)),
                T::OQuote => quote = Some(t.end),
                _ if closes_string(t) => {
                    if let Some(open) = quote.take() {
                        out.push((start + open, start + t.start));
                    }
                }
                _ => {}
            }
        }
        out
    }
}

/// The open frames at `offset` and the tokens before it.
pub(crate) fn frames_at(text: &str, tokens: &[Token], offset: u32) -> Vec<Frame> {
    let mut w = Walker::new(text);
    for t in tokens {
        if t.start >= offset {
            break;
        }
        // A name or number that touches the cursor is the word being
        // completed (or hovered), not a step of the structure.
        if t.end >= offset && matches!(t.kind, T::Ident | T::NumberLit) {
            break;
        }
        w.step(*t);
    }
    w.frames
}

/// What a file declares.
pub(crate) fn outline(text: &str) -> Outline {
    let mut w = Walker::new(text);
    for t in tokenize(text) {
        w.step(t);
    }
    let end = text.len() as u32;
    while w.frames.len() > 1 {
        w.end_attr(end);
        w.frames.pop();
    }
    w.end_attr(end);
    w.outline
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Vec<Frame> {
        let off = text.find('|').expect("a cursor") as u32;
        let text = text.replace('|', "");
        frames_at(&text, &tokenize(&text), off)
    }

    #[test]
    fn frames_in_a_resource_body() {
        let f = at("resource \"b\" {\n  body = {\n    spec = {\n      | \n");
        let kinds: Vec<_> = f.iter().map(|f| (&f.kind, f.key.as_deref())).collect();
        assert_eq!(kinds.len(), 4);
        assert_eq!(
            kinds[1].0,
            &Kind::Body {
                ty: "resource".into(),
                labels: vec!["b".into()]
            }
        );
        assert_eq!(kinds[2], (&Kind::Object, Some("body")));
        assert_eq!(kinds[3], (&Kind::Object, Some("spec")));
        assert_eq!(f[3].entry, Entry::Start);
    }

    #[test]
    fn calls_count_commas_and_keep_the_first_string() {
        let f = at("locals {\n  x = invoke(\"fn\", { a = 1, |");
        let paren = f
            .iter()
            .find(|f| matches!(f.kind, Kind::Paren { .. }))
            .expect("a call");
        assert_eq!(
            paren.kind,
            Kind::Paren {
                func: Some("invoke".into()),
                commas: 1,
                first_string: Some("fn".into())
            }
        );
        assert_eq!(f.last().map(|f| &f.kind), Some(&Kind::Object));
        // Only a string that is the whole first argument names the function.
        for text in [
            "locals {\n  x = invoke(y + \"fn\", |",
            "locals {\n  x = invoke(\"fn\" + y, |",
            "locals {\n  x = invoke(\"fn\"[0], |",
        ] {
            let f = at(text);
            let paren = f.iter().find(|f| matches!(f.kind, Kind::Paren { .. }));
            assert!(
                matches!(
                    paren.map(|p| &p.kind),
                    Some(Kind::Paren {
                        first_string: None,
                        ..
                    })
                ),
                "{text}: {paren:?}"
            );
        }
    }

    #[test]
    fn outline_lists_blocks_and_attributes_even_when_broken() {
        let text = "locals {\n  a = 1 + (2)\n  b = req.\n}\nresource r {\n  locals {\n    c = [1,\n      2]\n  }\n  body = {\n";
        let o = outline(text);
        let blocks: Vec<_> = o
            .blocks
            .iter()
            .map(|b| (b.ty.as_str(), b.chain.len()))
            .collect();
        assert_eq!(blocks, [("locals", 0), ("resource", 0), ("locals", 1)]);
        assert_eq!(o.blocks[1].labels[0].0, "r");
        let attrs: Vec<_> = o
            .attrs
            .iter()
            .map(|a| {
                (
                    a.name.as_str(),
                    &text[a.value_start as usize..a.value_end as usize],
                )
            })
            .collect();
        assert_eq!(
            attrs,
            [
                ("a", " 1 + (2)"),
                ("b", " req."),
                ("c", " [1,\n      2]"),
                ("body", " {\n")
            ]
        );
    }
}
