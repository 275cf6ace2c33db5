//! Traversals: `.name`, `[key]`, the legacy `.0`, `.*` and `[*]` after an
//! operand, nested as the converter nests hcl-edit's operators (splat
//! scoping included).

use fnhcl_base::Span;

use super::lexer::{id_continue, id_start};
use super::{Bail, MAX_TRAVERSAL_STEPS, Parser, R};
use crate::ast::*;

/// One traversal step, with the span hcl-edit gives its operator.
pub(super) enum Step {
    Attr(Span, Ident),
    Index(Span, Expr),
    Legacy(Span, Expr),
    AttrSplat(Span),
    FullSplat(Span),
}

impl Step {
    fn span(&self) -> Span {
        match self {
            Step::Attr(s, _)
            | Step::Index(s, _)
            | Step::Legacy(s, _)
            | Step::AttrSplat(s)
            | Step::FullSplat(s) => *s,
        }
    }

    fn in_attr_splat(&self) -> bool {
        matches!(self, Step::Attr(..) | Step::Legacy(..))
    }
}

impl Parser<'_> {
    /// Traversal steps after a term (`.name`, `[key]`, `.0`, `.*`, `[*]`).
    pub(super) fn traversal(&mut self, source: Expr, nl: bool) -> R<Expr> {
        // The steps go to a buffer the parser keeps (a traversal inside an
        // index key gets a new one).
        let mut steps = std::mem::take(&mut self.steps);
        let r = self.traversal_into(&mut steps, source, nl);
        steps.clear();
        if steps.capacity() > self.steps.capacity() {
            self.steps = steps;
        }
        r
    }

    fn traversal_into(&mut self, steps: &mut Vec<Step>, source: Expr, nl: bool) -> R<Expr> {
        loop {
            let save = self.pos;
            self.ws_or_sp(nl)?;
            let go = if steps.is_empty() {
                matches!(self.peek2()?, Some((a, b)) if (a == b'.' && b != b'.') || a == b'[')
            } else {
                matches!(self.peek(), Some(b'.' | b'[')) && !self.starts_with(b"..")
            };
            if !go {
                self.pos = save;
                break;
            }
            let start = self.pos;
            if self.eat(b'.') {
                self.ws()?;
                match self.peek().ok_or(Bail)? {
                    b'*' => {
                        self.pos += 1;
                        steps.push(Step::AttrSplat(self.span(start, self.pos)));
                    }
                    b'0'..=b'9' => {
                        let ks = self.pos;
                        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                            self.pos += 1;
                        }
                        let digits = &self.text[ks..self.pos];
                        let chained = self.peek() == Some(b'.')
                            && self.peek_at(1).is_some_and(|c| c.is_ascii_digit());
                        if chained
                            || digits.len() > 18
                            || (digits.len() > 1 && digits.starts_with('0'))
                            || self.peek().is_some_and(|c| id_continue(c) || c >= 0x80)
                        {
                            return Err(Bail);
                        }
                        let key = Expr {
                            kind: ExprKind::Number(self.interned(ks)),
                            span: self.span(ks, self.pos),
                        };
                        steps.push(Step::Legacy(self.span(start, self.pos), key));
                    }
                    c if id_start(c) => {
                        let name = self.bare_ident()?;
                        steps.push(Step::Attr(self.span(start, self.pos), name));
                    }
                    _ => return Err(Bail),
                }
            } else {
                self.pos += 1;
                self.ws()?;
                let step = if self.eat(b'*') {
                    None
                } else {
                    Some(self.expr(true)?)
                };
                self.ws()?;
                self.expect(b']')?;
                let span = self.span(start, self.pos);
                steps.push(match step {
                    None => Step::FullSplat(span),
                    Some(k) => Step::Index(span, k),
                });
            }
        }
        if steps.is_empty() {
            return Ok(source);
        }
        if steps.len() > MAX_TRAVERSAL_STEPS {
            return Err(Bail);
        }
        steps.reverse();
        apply_steps(source, steps, false)
    }
}

/// Nests `steps` (next step last) over `source` as the converter does: a
/// full splat takes every following step into its per-element expression,
/// an attribute-only splat the following `.name` and `.N` steps only
/// (`in_attr_splat`: inside one, stop at any other step).
fn apply_steps(mut source: Expr, steps: &mut Vec<Step>, in_attr_splat: bool) -> R<Expr> {
    while let Some(step) = steps.last() {
        if in_attr_splat && !step.in_attr_splat() {
            break;
        }
        let step = steps.pop().ok_or(Bail)?;
        let op_span = step.span();
        let span = source.span.to(op_span);
        let kind = match step {
            Step::FullSplat(_) => {
                let end = steps.first().map_or(op_span, Step::span);
                let item = Expr {
                    kind: ExprKind::SplatItem,
                    span: op_span,
                };
                let each = apply_steps(item, steps, false)?;
                let span = source.span.to(end);
                return Ok(Expr {
                    kind: ExprKind::Splat {
                        source: Box::new(source),
                        each: Box::new(each),
                        full: true,
                    },
                    span,
                });
            }
            Step::AttrSplat(_) => {
                let taken = steps.iter().rev().take_while(|s| s.in_attr_splat()).count();
                // A nested attribute-only splat is an error (the converter's).
                if matches!(steps.iter().rev().nth(taken), Some(Step::AttrSplat(_))) {
                    return Err(Bail);
                }
                let end = if taken == 0 {
                    op_span
                } else {
                    steps[steps.len() - taken].span()
                };
                let item = Expr {
                    kind: ExprKind::SplatItem,
                    span: op_span,
                };
                let each = apply_steps(item, steps, true)?;
                let span = source.span.to(end);
                source = Expr {
                    kind: ExprKind::Splat {
                        source: Box::new(source),
                        each: Box::new(each),
                        full: false,
                    },
                    span,
                };
                continue;
            }
            Step::Attr(_, name) => ExprKind::GetAttr(Box::new(source), name),
            Step::Index(_, key) | Step::Legacy(_, key) => {
                ExprKind::Index(Box::new(source), Box::new(key))
            }
        };
        source = Expr { kind, span };
    }
    Ok(source)
}
