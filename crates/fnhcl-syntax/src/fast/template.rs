//! Templates: quoted strings (escapes), heredocs (`<<`/`<<-`), their
//! interpolations and `%{if}`/`%{for}` directives, then the strip markers
//! and heredoc indentation ([`crate::strip`], shared with the converter).

use std::sync::Arc;

use fnhcl_base::Span;

use super::lexer::id_continue;
use super::{Bail, Parser, R};
use crate::ast::*;
use crate::strip::{self, Tok};

/// A template element before strip markers are applied.
enum Raw {
    Lit(String),
    /// The expression and its `(${~, ~})` flags.
    Interp(Expr, (bool, bool)),
    If {
        cond: Expr,
        then: Vec<Raw>,
        otherwise: Option<((bool, bool), Vec<Raw>)>,
        marks: [(bool, bool); 2],
        span: Span,
    },
    For {
        key_var: Option<Ident>,
        value_var: Ident,
        collection: Expr,
        body: Vec<Raw>,
        marks: [(bool, bool); 2],
        span: Span,
    },
}

fn mark<'t>((start, end): (bool, bool)) -> Tok<'t> {
    Tok::Mark { start, end }
}

fn collect<'t>(raws: &'t mut [Raw], out: &mut Vec<Tok<'t>>) {
    for r in raws {
        match r {
            Raw::Lit(s) => out.push(Tok::Lit(s)),
            Raw::Interp(_, m) => out.push(mark(*m)),
            Raw::If {
                then,
                otherwise,
                marks,
                ..
            } => {
                out.push(mark(marks[0]));
                collect(then, out);
                if let Some((m, o)) = otherwise {
                    out.push(mark(*m));
                    collect(o, out);
                }
                out.push(mark(marks[1]));
            }
            Raw::For { body, marks, .. } => {
                out.push(mark(marks[0]));
                collect(body, out);
                out.push(mark(marks[1]));
            }
        }
    }
}

/// The AST template (adjacent literals joined, as the converter does).
fn finish(raws: Vec<Raw>, heredoc: bool) -> Template {
    let mut parts = Vec::with_capacity(raws.len());
    for r in raws {
        match r {
            Raw::Lit(s) => {
                if let Some(TemplatePart::Literal(prev)) = parts.last_mut() {
                    let mut joined = String::from(&**prev);
                    joined.push_str(&s);
                    *prev = Arc::from(joined);
                } else {
                    parts.push(TemplatePart::Literal(Arc::from(s)));
                }
            }
            Raw::Interp(e, _) => parts.push(TemplatePart::Interpolation(e)),
            Raw::If {
                cond,
                then,
                otherwise,
                span,
                ..
            } => parts.push(TemplatePart::If(Box::new(TemplateIf {
                cond,
                then: finish(then, heredoc),
                otherwise: otherwise.map(|(_, o)| finish(o, heredoc)),
                span,
            }))),
            Raw::For {
                key_var,
                value_var,
                collection,
                body,
                span,
                ..
            } => parts.push(TemplatePart::For(Box::new(TemplateFor {
                key_var,
                value_var,
                collection,
                body: finish(body, heredoc),
                span,
            }))),
        }
    }
    Template { parts, heredoc }
}

/// Where a template's elements stop.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    /// The end of the text (a heredoc's content, a directive's body).
    End,
    /// An `%{else}`, `%{endif}` or `%{endfor}` marker.
    Marker,
}

impl Parser<'_> {
    /// A quoted string (`"…"`): one literal part when it has no
    /// interpolation or directive (hcl-edit's plain string), else a
    /// template with its strip markers applied.
    pub(super) fn quoted_template(&mut self) -> R<ExprKind> {
        if let Some(s) = self.simple_string() {
            return Ok(ExprKind::Template(Template {
                parts: vec![TemplatePart::Literal(s)],
                heredoc: false,
            }));
        }
        self.quoted += 1;
        let r = self.quoted_inner();
        self.quoted -= 1;
        let (raws, plain) = r?;
        if plain {
            let lit = match raws.into_iter().next() {
                Some(Raw::Lit(s)) => s,
                _ => String::new(),
            };
            return Ok(ExprKind::Template(Template {
                parts: vec![TemplatePart::Literal(Arc::from(lit))],
                heredoc: false,
            }));
        }
        let mut raws = raws;
        let mut toks = Vec::new();
        collect(&mut raws, &mut toks);
        strip::strip_quoted(&mut toks);
        Ok(ExprKind::Template(finish(raws, false)))
    }

    /// The common quoted string: no escape, no template, on one line.
    fn simple_string(&mut self) -> Option<Arc<str>> {
        let rest = &self.b[self.pos + 1..self.end];
        let i = rest
            .iter()
            .position(|c| matches!(c, b'"' | b'\\' | b'$' | b'%' | b'\n'))?;
        if rest[i] != b'"' {
            return None;
        }
        let text = self.text;
        let s = &text[self.pos + 1..self.pos + 1 + i];
        self.pos += i + 2;
        Some(self.intern(s))
    }

    /// A plain quoted string's value (a block label); gives up on a
    /// template.
    pub(super) fn plain_string(&mut self) -> R<String> {
        self.quoted += 1;
        let r = self.quoted_inner();
        self.quoted -= 1;
        match r? {
            (raws, true) => Ok(match raws.into_iter().next() {
                Some(Raw::Lit(s)) => s,
                _ => String::new(),
            }),
            _ => Err(Bail),
        }
    }

    fn quoted_inner(&mut self) -> R<(Vec<Raw>, bool)> {
        self.expect(b'"')?;
        let mut raws = Vec::new();
        let mut lit = String::new();
        let mut plain = true;
        loop {
            let c = self.peek().ok_or(Bail)?;
            match c {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\n' => return Err(Bail),
                b'\\' => self.escape(&mut lit)?,
                b'$' | b'%' if self.peek_at(1) == Some(c) && self.peek_at(2) == Some(b'{') => {
                    lit.push(char::from(c));
                    lit.push('{');
                    self.pos += 3;
                }
                b'$' | b'%' if self.peek_at(1) == Some(b'{') => {
                    plain = false;
                    if !lit.is_empty() {
                        raws.push(Raw::Lit(std::mem::take(&mut lit)));
                    }
                    raws.push(self.element()?.ok_or(Bail)?);
                }
                _ => {
                    let start = self.pos;
                    self.pos += 1;
                    let rest = &self.b[self.pos..self.end];
                    self.pos += rest
                        .iter()
                        .position(|c| matches!(c, b'"' | b'\\' | b'$' | b'%' | b'\n'))
                        .unwrap_or(rest.len());
                    lit.push_str(&self.text[start..self.pos]);
                }
            }
        }
        if !lit.is_empty() || plain {
            raws.push(Raw::Lit(lit));
        }
        Ok((raws, plain))
    }

    fn escape(&mut self, out: &mut String) -> R<()> {
        let c = self.peek_at(1).ok_or(Bail)?;
        self.pos += 2;
        let ch = match c {
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'\\' => '\\',
            b'"' => '"',
            b'u' | b'U' => {
                let n = if c == b'u' { 4 } else { 8 };
                let hex = self.text.get(self.pos..self.pos + n).ok_or(Bail)?;
                if self.pos + n > self.end || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err(Bail);
                }
                let v = u32::from_str_radix(hex, 16).map_err(|_| Bail)?;
                self.pos += n;
                char::from_u32(v).ok_or(Bail)?
            }
            _ => return Err(Bail),
        };
        out.push(ch);
        Ok(())
    }

    /// Template elements up to the end of the text or a closing marker.
    /// Literals are raw text with the `$${`/`%%{` escapes (a directive's
    /// body, a heredoc).
    fn elements(&mut self) -> R<(Vec<Raw>, Stop)> {
        let mut raws = Vec::new();
        loop {
            let start = self.pos;
            let mut lit: Option<String> = None;
            let mut from = start;
            loop {
                let rest = &self.b[self.pos..self.end];
                let Some(i) = rest.iter().position(|c| matches!(c, b'$' | b'%')) else {
                    self.pos = self.end;
                    break;
                };
                self.pos += i;
                let c = self.b[self.pos];
                if self.peek_at(1) == Some(c) && self.peek_at(2) == Some(b'{') {
                    let s = lit.get_or_insert_with(String::new);
                    s.push_str(&self.text[from..self.pos + 1]);
                    s.push('{');
                    self.pos += 3;
                    from = self.pos;
                } else if self.peek_at(1) == Some(b'{') {
                    break;
                } else {
                    self.pos += 1;
                }
            }
            if self.pos > start {
                let mut s = lit.unwrap_or_default();
                s.push_str(&self.text[from..self.pos]);
                // In a quoted string, hcl-edit reads a directive's body
                // without escapes and past the closing quote.
                if self.quoted > 0 && s.contains(['"', '\\', '\n']) {
                    return Err(Bail);
                }
                raws.push(Raw::Lit(s));
            }
            if self.pos >= self.end {
                return Ok((raws, Stop::End));
            }
            match self.element()? {
                Some(r) => raws.push(r),
                None => return Ok((raws, Stop::Marker)),
            }
        }
    }

    /// An interpolation or directive at `${`/`%{`; `None` (nothing read)
    /// at an `else`/`endif`/`endfor` marker.
    fn element(&mut self) -> R<Option<Raw>> {
        let start = self.pos;
        let interp = self.b[self.pos] == b'$';
        self.pos += 2;
        let strip_start = self.eat(b'~');
        self.ws()?;
        if interp {
            let e = self.expr(true)?;
            let m = (strip_start, self.close()?);
            return Ok(Some(Raw::Interp(e, m)));
        }
        if self.keyword(b"if")? {
            self.ws()?;
            let cond = self.expr(false)?;
            let open = (strip_start, self.close()?);
            let (then, stop) = self.body_template()?;
            if stop != Stop::Marker {
                return Err(Bail);
            }
            let mut otherwise = None;
            let mut end_mark = self.marker(b"else")?;
            if let Some(m) = end_mark {
                let (o, stop) = self.body_template()?;
                if stop != Stop::Marker {
                    return Err(Bail);
                }
                otherwise = Some((m, o));
                end_mark = None;
            }
            let close = match end_mark {
                Some(m) => m,
                None => self.marker(b"endif")?.ok_or(Bail)?,
            };
            return Ok(Some(Raw::If {
                cond,
                then,
                otherwise,
                marks: [open, close],
                span: self.span(start, self.pos),
            }));
        }
        if self.keyword(b"for")? {
            self.ws()?;
            let (key_var, value_var, collection) = self.for_vars_in()?;
            let open = (strip_start, self.close()?);
            let (body, stop) = self.body_template()?;
            if stop != Stop::Marker {
                return Err(Bail);
            }
            let close = self.marker(b"endfor")?.ok_or(Bail)?;
            return Ok(Some(Raw::For {
                key_var,
                value_var,
                collection,
                body,
                marks: [open, close],
                span: self.span(start, self.pos),
            }));
        }
        if [&b"else"[..], b"endif", b"endfor"]
            .iter()
            .any(|k| self.starts_with(k))
        {
            self.pos = start;
            return Ok(None);
        }
        Err(Bail)
    }

    /// Blanks, an optional `~` and the `}` closing an interpolation or a
    /// directive's opening; returns whether the `~` was there.
    fn close(&mut self) -> R<bool> {
        self.ws()?;
        let strip = self.eat(b'~');
        self.expect(b'}')?;
        Ok(strip)
    }

    /// A directive's body, one level deeper.
    fn body_template(&mut self) -> R<(Vec<Raw>, Stop)> {
        self.enter()?;
        let r = self.elements();
        self.leave();
        r
    }

    /// The `%{ word }` marker here, with its strip flags; `None` (nothing
    /// read) when another marker is here.
    fn marker(&mut self, word: &[u8]) -> R<Option<(bool, bool)>> {
        let start = self.pos;
        if !self.starts_with(b"%{") {
            return Err(Bail);
        }
        self.pos += 2;
        let strip_start = self.eat(b'~');
        self.ws()?;
        if !self.keyword(word)? {
            self.pos = start;
            return Ok(None);
        }
        Ok(Some((strip_start, self.close()?)))
    }

    /// `<<EOT` / `<<-EOT` … `EOT`.
    pub(super) fn heredoc(&mut self) -> R<ExprKind> {
        if self.quoted > 0 || !self.starts_with(b"<<") {
            return Err(Bail);
        }
        self.pos += 2;
        let flush = self.eat(b'-');
        let (ds, de) = self.ident()?;
        let delim = &self.b[ds..de];
        self.expect(b'\n')?;
        let content = self.pos;
        // An empty heredoc: hcl-edit may read the following text into it.
        if self.delimiter_line(content, delim)?.is_some() {
            return Err(Bail);
        }
        let mut close = None;
        let mut at = content;
        while let Some(i) = self.b[at..self.end].iter().position(|&c| c == b'\n') {
            let nl = at + i;
            if let Some(after) = self.delimiter_line(nl + 1, delim)? {
                close = Some((nl, after));
                break;
            }
            at = nl + 1;
        }
        let (nl, after) = close.ok_or(Bail)?;
        // HCL wants the marker alone on its line.
        if self.b.get(after) != Some(&b'\n') || after >= self.end {
            return Err(Bail);
        }
        let outer_end = std::mem::replace(&mut self.end, nl + 1);
        let outer_in = std::mem::replace(&mut self.in_heredoc, true);
        let r = self.elements();
        self.end = outer_end;
        self.in_heredoc = outer_in;
        let (mut raws, stop) = r?;
        if stop != Stop::End || self.pos != nl + 1 {
            return Err(Bail);
        }
        self.pos = after;
        let mut toks = Vec::new();
        collect(&mut raws, &mut toks);
        strip::strip_heredoc(&mut toks, flush);
        Ok(ExprKind::Template(finish(raws, true)))
    }

    /// If the line at `at` is `delim` after blanks (and not a longer
    /// identifier), the offset just after `delim`.
    fn delimiter_line(&self, at: usize, delim: &[u8]) -> R<Option<usize>> {
        let rest = &self.b[at..self.end];
        let blanks = rest
            .iter()
            .take_while(|&&c| c == b' ' || c == b'\t')
            .count();
        if !rest[blanks..].starts_with(delim) {
            return Ok(None);
        }
        let after = at + blanks + delim.len();
        match self.b.get(after) {
            Some(&c) if c >= 0x80 => Err(Bail),
            Some(&c) if id_continue(c) => Ok(None),
            _ => Ok(Some(after)),
        }
    }
}
