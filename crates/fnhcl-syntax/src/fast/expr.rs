//! Expressions: terms, traversals, operators, conditionals, collections
//! and `for` expressions, with hcl-edit's rules for where newlines may be
//! skipped (the `nl` flag: an expression state's "newlines allowed").

use fnhcl_base::Span;

use super::body::check_keys;
use super::lexer::id_start;
use super::{Bail, MAX_OPERATORS, Parser, R};
use crate::ast::*;

fn precedence(op: BinaryOp) -> u8 {
    match op {
        BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 6,
        BinaryOp::Add | BinaryOp::Sub => 5,
        BinaryOp::Lt | BinaryOp::LtEq | BinaryOp::Gt | BinaryOp::GtEq => 4,
        BinaryOp::Eq | BinaryOp::NotEq => 3,
        BinaryOp::And => 2,
        BinaryOp::Or => 1,
    }
}

/// hcl-edit's test (on the next two bytes) for a binary operator after
/// an operand; `//` and `/*` start comments.
fn operator_follows(a: u8, b: u8) -> bool {
    !(a == b'/' && (b == b'/' || b == b'*'))
        && ((a == b'=' && b == b'=')
            || matches!(
                a,
                b'!' | b'<' | b'>' | b'+' | b'-' | b'*' | b'/' | b'%' | b'&' | b'|'
            ))
}

fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = Span {
        file: lhs.span.file,
        start: lhs.span.start,
        end: rhs.span.end,
    };
    Expr {
        kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
        span,
    }
}

impl Parser<'_> {
    /// An attribute's value: its own count of binary operators.
    pub(super) fn root_expr(&mut self) -> R<Expr> {
        let outer = std::mem::replace(&mut self.operators, 0);
        let e = self.expr(false);
        self.operators = outer;
        e
    }

    /// A whole expression (operators and conditional included), one level
    /// deeper. `nl`: whether newlines may be skipped between its parts.
    pub(super) fn expr(&mut self, nl: bool) -> R<Expr> {
        self.enter()?;
        let e = self.expr_inner(nl);
        self.leave();
        e
    }

    fn expr_inner(&mut self, mut nl: bool) -> R<Expr> {
        let mut cur = self.term(&mut nl)?;
        loop {
            let save = self.pos;
            self.ws_or_sp(nl)?;
            match self.peek2()? {
                Some((b'?', _)) => {
                    self.pos += 1;
                    self.ws_or_sp(nl)?;
                    let then = self.expr(nl)?;
                    self.ws_or_sp(nl)?;
                    self.expect(b':')?;
                    self.ws_or_sp(nl)?;
                    let otherwise = self.expr(nl)?;
                    let span = self.span(cur.span.start as usize, otherwise.span.end as usize);
                    return Ok(Expr {
                        kind: ExprKind::Conditional {
                            cond: Box::new(cur),
                            then: Box::new(then),
                            otherwise: Box::new(otherwise),
                        },
                        span,
                    });
                }
                Some((a, b)) if operator_follows(a, b) => {
                    self.pos = save;
                    cur = self.binary_ops(cur, nl)?;
                }
                _ => {
                    self.pos = save;
                    return Ok(cur);
                }
            }
        }
    }

    fn binary_operator(&mut self) -> Option<BinaryOp> {
        let next = self.peek_at(1);
        let (op, len) = match self.peek()? {
            b'=' if next == Some(b'=') => (BinaryOp::Eq, 2),
            b'!' if next == Some(b'=') => (BinaryOp::NotEq, 2),
            b'<' if next == Some(b'=') => (BinaryOp::LtEq, 2),
            b'<' => (BinaryOp::Lt, 1),
            b'>' if next == Some(b'=') => (BinaryOp::GtEq, 2),
            b'>' => (BinaryOp::Gt, 1),
            b'+' => (BinaryOp::Add, 1),
            b'-' => (BinaryOp::Sub, 1),
            b'*' => (BinaryOp::Mul, 1),
            b'/' if !matches!(next, Some(b'/' | b'*')) => (BinaryOp::Div, 1),
            b'%' => (BinaryOp::Mod, 1),
            b'&' if next == Some(b'&') => (BinaryOp::And, 2),
            b'|' if next == Some(b'|') => (BinaryOp::Or, 2),
            _ => return None,
        };
        self.pos += len;
        Some(op)
    }

    /// A chain of binary operators and operands after `first`, folded by
    /// precedence (all left-associative, as hcl-edit's Pratt parser).
    fn binary_ops(&mut self, first: Expr, nl: bool) -> R<Expr> {
        let mut ops: Vec<BinaryOp> = Vec::new();
        let mut out: Vec<Expr> = vec![first];
        let mut pending = 0;
        loop {
            let save = self.pos;
            self.ws_or_sp(nl)?;
            let Some(op) = self.binary_operator() else {
                if pending == 0 {
                    return Err(Bail);
                }
                self.pos = save;
                break;
            };
            self.ws_or_sp(nl)?;
            let mut term_nl = nl;
            let rhs = self.term(&mut term_nl)?;
            pending += 1;
            self.operators += 1;
            if self.operators > MAX_OPERATORS {
                return Err(Bail);
            }
            while let Some(&top) = ops.last()
                && precedence(top) >= precedence(op)
            {
                ops.pop();
                let r = out.pop().ok_or(Bail)?;
                let l = out.pop().ok_or(Bail)?;
                out.push(binary(top, l, r));
            }
            ops.push(op);
            out.push(rhs);
        }
        while let Some(top) = ops.pop() {
            let r = out.pop().ok_or(Bail)?;
            let l = out.pop().ok_or(Bail)?;
            out.push(binary(top, l, r));
        }
        out.pop().ok_or(Bail)
    }

    /// An operand with its traversal steps. May set `nl` as hcl-edit sets
    /// it on the enclosing expression (after a tuple, a function call or
    /// an object `for`).
    fn term(&mut self, nl: &mut bool) -> R<Expr> {
        let start = self.pos;
        let kind = match self.peek().ok_or(Bail)? {
            b'"' => self.quoted_template()?,
            b'[' => {
                *nl = true;
                self.tuple()?
            }
            b'{' => self.object(nl)?,
            b'0'..=b'9' => {
                self.number()?;
                ExprKind::Number(self.interned(start))
            }
            b'<' => self.heredoc()?,
            b'-' => match self.peek_at(1) {
                Some(c) if c.is_ascii_digit() => {
                    self.pos += 1;
                    self.number()?;
                    ExprKind::Number(self.interned(start))
                }
                // hcl-edit reads `- 1` as one number literal.
                Some(b' ' | b'\t' | b'/') => return Err(Bail),
                _ => self.unary(UnaryOp::Neg, *nl)?,
            },
            b'!' => self.unary(UnaryOp::Not, *nl)?,
            b'(' => {
                self.pos += 1;
                self.ws()?;
                let inner = self.expr(true)?;
                self.ws()?;
                self.expect(b')')?;
                ExprKind::Parens(Box::new(inner))
            }
            c if id_start(c) => self.identlike(nl)?,
            _ => return Err(Bail),
        };
        let e = Expr {
            kind,
            span: self.span(start, self.pos),
        };
        self.traversal(e, *nl)
    }

    fn unary(&mut self, op: UnaryOp, nl: bool) -> R<ExprKind> {
        self.pos += 1;
        self.sp()?;
        self.enter()?;
        let mut inner_nl = nl;
        let operand = self.term(&mut inner_nl)?;
        self.leave();
        Ok(ExprKind::Unary(op, Box::new(operand)))
    }

    fn identlike(&mut self, nl: &mut bool) -> R<ExprKind> {
        let (s, e) = self.ident()?;
        let text = self.text;
        let name = &text[s..e];
        let save = self.pos;
        self.ws_or_sp(*nl)?;
        if self.starts_with(b"::") {
            return Err(Bail);
        }
        if self.peek() == Some(b'(') && self.peek_at(1).is_some() {
            *nl = true;
            let (args, expand_final) = self.call_args()?;
            return Ok(ExprKind::FuncCall {
                name: Ident {
                    name: self.intern(name),
                    span: self.span(s, e),
                },
                args,
                expand_final,
            });
        }
        self.pos = save;
        Ok(match name {
            "null" => ExprKind::Null,
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            _ => ExprKind::Variable(Ident {
                name: self.intern(name),
                span: self.span(s, e),
            }),
        })
    }

    fn call_args(&mut self) -> R<(Vec<Expr>, bool)> {
        self.expect(b'(')?;
        let mark = self.exprs.len();
        let mut expand = false;
        self.ws()?;
        if !matches!(self.peek(), Some(b',' | b'.' | b')')) {
            loop {
                let arg = self.expr(true)?;
                self.exprs.push(arg);
                self.ws()?;
                if self.peek() == Some(b',') {
                    let save = self.pos;
                    self.pos += 1;
                    self.ws()?;
                    if matches!(self.peek(), Some(b',' | b'.' | b')')) {
                        self.pos = save;
                        break;
                    }
                    continue;
                }
                break;
            }
            if self.eat(b',') {
            } else if self.starts_with(b"...") {
                self.pos += 3;
                expand = true;
            }
        }
        self.ws()?;
        self.expect(b')')?;
        Ok((self.exprs.drain(mark..).collect(), expand))
    }

    /// `[` … `]`: a tuple or a tuple `for`.
    fn tuple(&mut self) -> R<ExprKind> {
        self.pos += 1;
        if self.for_follows()? {
            let (key_var, value_var, collection) = self.for_intro()?;
            self.ws()?;
            let value_expr = self.expr(true)?;
            self.ws()?;
            let cond = self.for_cond()?;
            self.expect(b']')?;
            return Ok(ExprKind::For(Box::new(ForExpr {
                key_var,
                value_var,
                collection,
                key_expr: None,
                value_expr,
                grouping: false,
                cond,
            })));
        }
        let mark = self.exprs.len();
        self.ws()?;
        if self.peek() != Some(b']') {
            loop {
                let item = self.expr(true)?;
                self.exprs.push(item);
                self.ws()?;
                if self.peek() == Some(b',') {
                    let save = self.pos;
                    self.pos += 1;
                    self.ws()?;
                    if self.peek() == Some(b']') {
                        self.pos = save;
                        break;
                    }
                    continue;
                }
                break;
            }
        }
        self.eat(b',');
        self.ws()?;
        self.expect(b']')?;
        Ok(ExprKind::Tuple(self.exprs.drain(mark..).collect()))
    }

    /// `{` … `}`: an object or an object `for`.
    fn object(&mut self, nl: &mut bool) -> R<ExprKind> {
        self.pos += 1;
        if self.for_follows()? {
            *nl = true;
            let (key_var, value_var, collection) = self.for_intro()?;
            self.ws()?;
            let key_expr = self.expr(false)?;
            self.ws()?;
            if !self.starts_with(b"=>") {
                return Err(Bail);
            }
            self.pos += 2;
            self.ws()?;
            let value_expr = self.expr(false)?;
            self.ws()?;
            let grouping = self.starts_with(b"...");
            if grouping {
                self.pos += 3;
                self.ws()?;
            }
            let cond = self.for_cond()?;
            self.expect(b'}')?;
            return Ok(ExprKind::For(Box::new(ForExpr {
                key_var,
                value_var,
                collection,
                key_expr: Some(key_expr),
                value_expr,
                grouping,
                cond,
            })));
        }
        let mark = self.object_items.len();
        loop {
            self.ws()?;
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                None => return Err(Bail),
                _ => {}
            }
            let k = self.expr(false)?;
            self.sp()?;
            let key = match k.kind {
                ExprKind::Variable(i) => ObjectKey::Ident(i),
                _ => ObjectKey::Expr(Box::new(k)),
            };
            if !matches!(self.peek(), Some(b'=' | b':')) {
                return Err(Bail);
            }
            self.pos += 1;
            self.sp()?;
            let value = self.expr(false)?;
            self.sp()?;
            self.object_items.push(ObjectItem { key, value });
            match self.peek() {
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\n' | b',') => self.pos += 1,
                Some(b'#') => {
                    self.line_comment()?;
                    self.expect(b'\n')?;
                }
                Some(b'/') if self.peek_at(1) == Some(b'/') => {
                    self.line_comment()?;
                    self.expect(b'\n')?;
                }
                _ => return Err(Bail),
            }
        }
        check_keys(&self.object_items[mark..])?;
        Ok(ExprKind::Object(self.object_items.drain(mark..).collect()))
    }

    /// hcl-edit's test for a `for` expression after `[` or `{`.
    fn for_follows(&mut self) -> R<bool> {
        let save = self.pos;
        self.ws()?;
        let found = self.starts_with(b"for")
            && matches!(self.peek_at(3), Some(b' ' | b'\t' | b'#' | b'/' | b'\n'));
        self.pos = save;
        Ok(found)
    }

    /// `for k, v in collection :`
    fn for_intro(&mut self) -> R<(Option<Ident>, Ident, Expr)> {
        self.ws()?;
        self.pos += 3;
        self.ws()?;
        let intro = self.for_vars_in()?;
        self.ws()?;
        self.expect(b':')?;
        Ok(intro)
    }

    /// After `for` and its blanks (in a `for` expression and a `%{ for }`
    /// directive alike): `value in collection` or `key, value in
    /// collection`, as (key, value, collection).
    pub(super) fn for_vars_in(&mut self) -> R<(Option<Ident>, Ident, Expr)> {
        let first = self.bare_ident()?;
        self.ws()?;
        let second = if self.eat(b',') {
            self.ws()?;
            let i = self.bare_ident()?;
            self.ws()?;
            Some(i)
        } else {
            None
        };
        if !self.keyword(b"in")? {
            return Err(Bail);
        }
        self.ws()?;
        let collection = self.expr(false)?;
        Ok(match second {
            Some(v) => (Some(first), v, collection),
            None => (None, first, collection),
        })
    }

    /// An optional `if cond` at the end of a `for` expression (hcl-edit
    /// parses it in the state of the enclosing `[`/`{`: newlines allowed).
    fn for_cond(&mut self) -> R<Option<Expr>> {
        let save = self.pos;
        self.ws()?;
        if !self.keyword(b"if")? {
            self.pos = save;
            return Ok(None);
        }
        self.ws()?;
        let cond = self.expr(true)?;
        self.ws()?;
        Ok(Some(cond))
    }

    pub(super) fn bare_ident(&mut self) -> R<Ident> {
        let (s, e) = self.ident()?;
        let text = self.text;
        Ok(Ident {
            name: self.intern(&text[s..e]),
            span: self.span(s, e),
        })
    }
}
