//! Traversals after a term: `.name`, the legacy `.0`, `[key]`, and the
//! splats `.*` (taking the `.name`/`.0` steps after it) and `[*]` (taking
//! every step after it), nested as HCL nests them.

use fnhcl_base::Span;

use super::{MAX_TRAVERSAL_STEPS, Parser};
use crate::ast::*;
use crate::lexer::{T, Token};

/// One traversal step with the span of its operator (from `.` or `[`).
enum Step {
    Attr(Span, Ident),
    Index(Span, Expr),
}

impl Step {
    fn span(&self) -> Span {
        match self {
            Step::Attr(s, _) | Step::Index(s, _) => *s,
        }
    }
}

impl Parser<'_> {
    /// Traversal steps after `from`: `.name`, `.0`, `[key]`, `.*`, `[*]`.
    pub(super) fn traversals(&mut self, from: Expr) -> Expr {
        let mut ret = from;
        let mut steps = 0usize;
        loop {
            let next = self.peek();
            match next.kind {
                T::Dot | T::OBrack => {}
                _ => return ret,
            }
            steps += 1;
            if steps > MAX_TRAVERSAL_STEPS {
                self.error_once(
                    "Traversal too long",
                    format!(
                        "This expression has more than {MAX_TRAVERSAL_STEPS} attribute, index and splat steps in a row."
                    ),
                    self.span(next),
                );
                self.recovery = true;
                return ret;
            }
            if next.kind == T::Dot {
                let dot = self.read();
                let attr = self.peek();
                if attr.kind == T::Star {
                    let star = self.read();
                    ret = self.attribute_splat(ret, dot, star);
                    continue;
                }
                let Some(step) = self.dot_step(dot, None) else {
                    self.error(
                        "Invalid attribute name",
                        "An attribute name is required after a dot.",
                        self.span(attr),
                    );
                    self.recovery = true;
                    return ret;
                };
                ret = apply(ret, step);
                continue;
            }
            // `[`
            let open = self.read();
            if self.peek().kind == T::Star {
                self.read();
                let mut close = self.read();
                if close.kind != T::CBrack && !self.recovery {
                    close = self.missing_close_bracket(
                        "Missing close bracket on splat index",
                        "The star for a full splat operator must be immediately followed by a closing bracket (\"]\").",
                    );
                }
                let marker = self.span(open).to(self.span(close));
                let item = Expr {
                    kind: ExprKind::SplatItem,
                    span: marker,
                };
                // The steps after `[*]` nest inside it.
                if !self.enter() {
                    self.leave();
                    return ret;
                }
                let each = self.traversals(item);
                self.leave();
                let span = ret.span.to(each.span);
                ret = Expr {
                    kind: ExprKind::Splat {
                        source: Box::new(ret),
                        each: Box::new(each),
                        full: true,
                    },
                    span,
                };
                continue;
            }
            self.push_newlines(false);
            let mark = self.diags.len();
            let key = self.expression();
            let close = if self.recovery && self.failed_since(mark) {
                self.recover(T::CBrack)
            } else {
                let close = self.read();
                if close.kind != T::CBrack && !self.recovery {
                    self.missing_close_bracket(
                        "Missing close bracket on index",
                        "The index operator must end with a closing bracket (\"]\").",
                    )
                } else {
                    close
                }
            };
            self.pop_newlines();
            let op = self.span(open).to(self.span(close));
            ret = apply(ret, Step::Index(op, key));
        }
    }

    /// HCL's error for a missing `]`, placed where HCL's recovery stops (it
    /// reports the token that recovery returns); then our recovery.
    fn missing_close_bracket(&mut self, summary: &str, detail: &str) -> Token {
        let at = self.hcl_recovery_stop(T::CBrack);
        self.error(summary, detail, self.span(at));
        self.recover(T::CBrack)
    }

    /// The step after `dot`: `.name`, or the legacy `.0`; `None` (nothing
    /// read) at anything else. `splat`: the `*` of the attribute-only splat
    /// the step is in (HCL words and places its legacy-index error
    /// differently there).
    fn dot_step(&mut self, dot: Token, splat: Option<Token>) -> Option<Step> {
        let t = self.peek();
        match t.kind {
            T::Ident => {
                self.read();
                let name = self.ident(t);
                Some(Step::Attr(self.span(dot).to(name.span), name))
            }
            T::NumberLit => {
                self.read();
                if let Some((first, second)) = t.text(self.text).split_once('.') {
                    let (hint, at) = match splat {
                        None => ("", t),
                        Some(star) => (" with a full splat expression [*]", star),
                    };
                    self.error(
                        "Invalid legacy index syntax",
                        format!(
                            "When using the legacy index syntax, chaining two indexes together is not permitted. Use the proper index syntax{hint} instead, like [{first}][{second}]."
                        ),
                        self.span(at),
                    );
                }
                let key = self.number(t);
                Some(Step::Index(self.span(dot).to(key.span), key))
            }
            _ => None,
        }
    }

    /// `.*` and the `.name`/`.0` steps after it.
    fn attribute_splat(&mut self, source: Expr, dot: Token, star: Token) -> Expr {
        let marker = self.span(dot).to(self.span(star));
        let mut each = Expr {
            kind: ExprKind::SplatItem,
            span: marker,
        };
        let mut end = marker;
        while self.peek().kind == T::Dot {
            let d = self.read();
            let next = self.peek();
            match self.dot_step(d, Some(star)) {
                Some(step) => {
                    end = step.span();
                    each = apply(each, step);
                }
                None => {
                    if next.kind == T::Star {
                        self.error_once(
                            "Nested splat expression not allowed",
                            "A splat expression (*) cannot be used inside another attribute-only splat expression.",
                            self.span(next),
                        );
                    } else {
                        self.error_once(
                            "Invalid attribute name",
                            "An attribute name is required after a dot.",
                            self.span(star),
                        );
                    }
                    self.recovery = true;
                    break;
                }
            }
        }
        let span = source.span.to(end);
        Expr {
            kind: ExprKind::Splat {
                source: Box::new(source),
                each: Box::new(each),
                full: false,
            },
            span,
        }
    }
}

/// `source` followed by one step.
fn apply(source: Expr, step: Step) -> Expr {
    match step {
        Step::Attr(op, name) => {
            let span = source.span.to(op);
            Expr {
                kind: ExprKind::GetAttr(Box::new(source), name),
                span,
            }
        }
        Step::Index(op, key) => {
            let span = source.span.to(op);
            Expr {
                kind: ExprKind::Index(Box::new(source), Box::new(key)),
                span,
            }
        }
    }
}
