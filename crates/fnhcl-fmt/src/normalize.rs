//! Literal normalisation: inside object constructors, a key/value `:`
//! becomes `=` (upstream `fn-hcl-tools fmt --normalize-literals`).
//!
//! Every attribute expression, at any block depth, is scanned with a small
//! stack: `{` pushes "object", `?` pushes "ternary", `for` right after `{`
//! or `[` pushes "for"; a `:` closes the innermost ternary or for marker,
//! or, when the innermost marker is an object, is a key/value separator and
//! gets rewritten; `}` must close an object marker. When anything does not
//! fit, that attribute is left as it is.

use crate::tokens::{Kind, Token};

const MAX_DEPTH: usize = 256;

pub(crate) fn colons_to_equals(tokens: &mut [Token]) {
    let mut w = Walker { toks: tokens, i: 0 };
    // A structure we do not understand stops the walk; attributes already
    // seen keep their (independent, checked) rewrites.
    let _ = w.body(0, false);
}

struct Walker<'a> {
    toks: &'a mut [Token],
    i: usize,
}

impl Walker<'_> {
    fn kind(&self) -> Option<Kind> {
        self.toks.get(self.i).map(|t| t.kind)
    }

    fn body(&mut self, depth: usize, in_block: bool) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        loop {
            while matches!(self.kind(), Some(Kind::Newline | Kind::Comment)) {
                self.i += 1;
            }
            match self.kind() {
                None => return (!in_block).then_some(()),
                Some(Kind::CBrace) if in_block => return Some(()),
                Some(Kind::Ident) => self.i += 1,
                _ => return None,
            }
            if self.kind() == Some(Kind::Equal) {
                self.i += 1;
                let start = self.i;
                let mut d: i64 = 0;
                while let Some(t) = self.toks.get(self.i) {
                    if d <= 0 && (t.is_newline() || t.kind == Kind::CBrace) {
                        break;
                    }
                    d += t.bracket_change();
                    self.i += 1;
                }
                let end = self.i;
                rewrite(&mut self.toks[start..end]);
                continue;
            }
            // A block: labels, then `{ body }`.
            loop {
                match self.kind() {
                    Some(Kind::Ident) => self.i += 1,
                    Some(Kind::OQuote) => {
                        while !matches!(self.kind(), Some(Kind::CQuote) | None) {
                            self.i += 1;
                        }
                        self.i += 1;
                    }
                    _ => break,
                }
            }
            if self.kind() != Some(Kind::OBrace) {
                return None;
            }
            self.i += 1;
            self.body(depth + 1, true)?;
            if self.kind() != Some(Kind::CBrace) {
                return None;
            }
            self.i += 1;
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Marker {
    Object,
    Ternary,
    For,
}

fn rewrite(expr: &mut [Token]) {
    let mut stack: Vec<Marker> = Vec::new();
    let mut colons = Vec::new();
    let mut prev: Option<Kind> = None;
    for (i, t) in expr.iter().enumerate() {
        match t.kind {
            Kind::OBrace => stack.push(Marker::Object),
            Kind::Question => stack.push(Marker::Ternary),
            Kind::Ident if t.text == "for" && matches!(prev, Some(Kind::OBrace | Kind::OBrack)) => {
                stack.push(Marker::For)
            }
            Kind::Colon => match stack.last() {
                Some(Marker::Ternary | Marker::For) => {
                    stack.pop();
                }
                Some(Marker::Object) => colons.push(i),
                None => return,
            },
            Kind::CBrace => {
                if stack.last() != Some(&Marker::Object) {
                    return;
                }
                stack.pop();
            }
            _ => {}
        }
        if !matches!(t.kind, Kind::Newline | Kind::Comment) {
            prev = Some(t.kind);
        }
    }
    if !stack.is_empty() {
        return;
    }
    for i in colons {
        expr[i].kind = Kind::Equal;
        expr[i].text = "=".to_owned();
    }
}
