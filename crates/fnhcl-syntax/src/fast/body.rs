//! Bodies: attributes and blocks, one per line (hcl-edit's layout rules:
//! a multi-line block body starts on a new line, a one-line body holds at
//! most one attribute).

use super::lexer::id_start;
use super::{Bail, Parser, R};
use crate::ast::*;

impl Parser<'_> {
    /// The items of a body, up to the end of the text or a `}` (left for
    /// the caller), blanks and comments after them included.
    pub(super) fn body(&mut self) -> R<Vec<Structure>> {
        let mark = self.structures.len();
        loop {
            let save = self.pos;
            self.ws()?;
            match self.peek() {
                Some(c) if id_start(c) => {}
                Some(c) if c >= 0x80 => return Err(Bail),
                _ => {
                    self.pos = save;
                    break;
                }
            }
            let s = self.structure()?;
            self.structures.push(s);
            self.sp()?;
            if self.peek() == Some(b'#') || self.starts_with(b"//") {
                self.line_comment()?;
            }
            match self.peek() {
                None => {}
                Some(b'\n') => self.pos += 1,
                _ => return Err(Bail),
            }
        }
        self.ws()?;
        let items: Vec<Structure> = self.structures.drain(mark..).collect();
        // A repeated attribute is an error (hcl-edit's, with its message).
        let mut names: Vec<&str> = items
            .iter()
            .filter_map(|s| match s {
                Structure::Attribute(a) => Some(&*a.name.name),
                Structure::Block(_) => None,
            })
            .collect();
        if names.len() > 1 {
            names.sort_unstable();
            if names.windows(2).any(|w| w[0] == w[1]) {
                return Err(Bail);
            }
        }
        Ok(items)
    }

    fn structure(&mut self) -> R<Structure> {
        let name = self.bare_ident()?;
        self.sp()?;
        match self.peek() {
            Some(b'=') => {
                self.pos += 1;
                self.sp()?;
                let expr = self.root_expr()?;
                let span = name.span.to(expr.span);
                Ok(Structure::Attribute(Attribute { name, expr, span }))
            }
            Some(c) if c == b'{' || c == b'"' || id_start(c) => self.block(name),
            _ => Err(Bail),
        }
    }

    fn block(&mut self, ident: Ident) -> R<Structure> {
        let mut labels = Vec::new();
        loop {
            let start = self.pos;
            match self.peek() {
                Some(b'"') => {
                    let value = self.plain_string()?;
                    labels.push(BlockLabel {
                        value,
                        quoted: true,
                        span: self.span(start, self.pos),
                    });
                }
                Some(c) if id_start(c) => {
                    let i = self.bare_ident()?;
                    labels.push(BlockLabel {
                        value: i.name.to_string(),
                        quoted: false,
                        span: i.span,
                    });
                }
                Some(c) if c >= 0x80 => return Err(Bail),
                _ => break,
            }
            self.sp()?;
        }
        let header_end = labels.last().map_or(ident.span.end, |l| l.span.end) as usize;
        // The converter's `{`: the first one after the header.
        let open = header_end + self.text[header_end..].find('{').ok_or(Bail)?;
        self.enter()?;
        self.expect(b'{')?;
        let save = self.pos;
        self.sp()?;
        if self.peek() == Some(b'#') || self.starts_with(b"//") {
            self.line_comment()?;
        }
        let items = if self.eat(b'\n') {
            self.body()?
        } else {
            // A one-line body: at most one attribute.
            self.pos = save;
            self.sp()?;
            let mut items = Vec::new();
            if self.peek().is_some_and(id_start) {
                let name = self.bare_ident()?;
                self.sp()?;
                self.expect(b'=')?;
                self.sp()?;
                let expr = self.root_expr()?;
                let span = name.span.to(expr.span);
                items.push(Structure::Attribute(Attribute { name, expr, span }));
                self.sp()?;
            }
            items
        };
        self.expect(b'}')?;
        self.leave();
        let end = self.pos;
        Ok(Structure::Block(Block {
            span: self.span(ident.span.start as usize, end),
            ident,
            labels,
            body: Body {
                items,
                span: self.span(open, end),
            },
            open_brace: self.span(open, open + 1),
        }))
    }
}

/// hcl-edit refuses an object with a repeated key (the hcl-edit path then
/// renames it and parses again): give up on any two keys that may be
/// equal. Keys that are neither names nor plain strings are compared by
/// hcl-edit as whole expressions; more than one of those gives up too.
pub(super) fn check_keys(items: &[ObjectItem]) -> R<()> {
    if items.len() < 2 {
        return Ok(());
    }
    let mut names: Vec<&str> = Vec::with_capacity(items.len());
    let mut others = 0;
    for it in items {
        match &it.key {
            ObjectKey::Ident(i) => names.push(&i.name),
            ObjectKey::Expr(k)
                if let ExprKind::Template(t) = &k.kind
                    && !t.heredoc
                    && let [TemplatePart::Literal(s)] = &t.parts[..] =>
            {
                names.push(s);
            }
            ObjectKey::Expr(_) => others += 1,
        }
    }
    if others > 1 {
        return Err(Bail);
    }
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err(Bail);
    }
    Ok(())
}
