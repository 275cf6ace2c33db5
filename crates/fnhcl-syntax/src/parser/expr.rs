//! Expressions: the conditional, binary operators by precedence (each
//! level left-associative), unary operators, terms and their traversals,
//! function calls, tuples, objects and `for` expressions.
//!
//! Size: about 800 lines, one function per grammar rule in the order of
//! HCL's expression grammar; traversals are in `traversal.rs`.

use fnhcl_base::Span;

use super::{MAX_OPERATORS, Parser};
use crate::ast::*;
use crate::lexer::{T, Token};

/// A binary operator and its precedence level (0 binds loosest; every
/// level is left-associative).
fn binary_op(kind: T) -> Option<(usize, BinaryOp)> {
    Some(match kind {
        T::Or => (0, BinaryOp::Or),
        T::And => (1, BinaryOp::And),
        T::EqualOp => (2, BinaryOp::Eq),
        T::NotEqual => (2, BinaryOp::NotEq),
        T::Gt => (3, BinaryOp::Gt),
        T::GtEq => (3, BinaryOp::GtEq),
        T::Lt => (3, BinaryOp::Lt),
        T::LtEq => (3, BinaryOp::LtEq),
        T::Plus => (4, BinaryOp::Add),
        T::Minus => (4, BinaryOp::Sub),
        T::Star => (5, BinaryOp::Mul),
        T::Slash => (5, BinaryOp::Div),
        T::Percent => (5, BinaryOp::Mod),
        _ => return None,
    })
}

/// Whether `text` is a number HCL reads: digits, an optional fraction and
/// an optional exponent.
fn valid_number(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > s
    };
    if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        // `1.e5` is a number too.
        i += 1;
        digits(&mut i);
    }
    let mut exp: i64 = 0;
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative = b.get(i) == Some(&b'-');
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        if !digits(&mut i) {
            return false;
        }
        // cty reads the number as a big float: a decimal exponent past
        // what it holds is not a number.
        exp = match text[s..i].parse::<i64>() {
            Ok(e) if negative => -e,
            Ok(e) => e,
            Err(_) => return negative && i == b.len(),
        };
    }
    if i != b.len() {
        return false;
    }
    // Where the first significant digit is, as a power of ten.
    let mantissa = text.split(['e', 'E']).next().unwrap_or("");
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let int = int.trim_start_matches('0');
    let lead = if int.is_empty() {
        match frac.find(|c| c != '0') {
            Some(z) => -(z as i64) - 1,
            None => return true,
        }
    } else {
        int.len() as i64 - 1
    };
    exp.saturating_add(lead) < i64::from(i32::MAX)
}

const UNTERMINATED_OBJECT: &str = "There is no corresponding closing brace before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.";

/// How an object's item ended.
enum ItemEnd {
    /// At its separator: the next item follows.
    Next,
    /// At the object's `}`.
    Closed(Token),
    /// With an error (reported).
    Broken,
}

impl Parser<'_> {
    /// An attribute's (or a root) expression: its own count of operators.
    pub(super) fn root_expr(&mut self) -> Expr {
        let outer = std::mem::replace(&mut self.operators, 0);
        let e = self.expression();
        self.operators = outer;
        e
    }

    /// A placeholder where an expression could not be read.
    pub(super) fn placeholder(&self, at: Span) -> Expr {
        Expr {
            kind: ExprKind::Null,
            span: at,
        }
    }

    /// A whole expression, one nesting level deeper.
    pub(super) fn expression(&mut self) -> Expr {
        if !self.enter() {
            self.leave();
            let at = self.span(self.peek());
            return self.placeholder(at);
        }
        let e = self.conditional();
        self.leave();
        e
    }

    fn conditional(&mut self) -> Expr {
        let mark = self.diags.len();
        let cond = self.binary(0);
        if self.recovery && self.failed_since(mark) {
            return cond;
        }
        if self.peek().kind != T::Question {
            return cond;
        }
        self.read();
        let mark = self.diags.len();
        let then = self.expression();
        if self.recovery && self.failed_since(mark) {
            return cond;
        }
        let colon = self.peek();
        if colon.kind != T::Colon {
            self.error(
                "Missing false expression in conditional",
                "The conditional operator (...?...:...) requires a false expression, delimited by a colon.",
                self.span(colon),
            );
            return cond;
        }
        self.read();
        let mark = self.diags.len();
        let otherwise = self.expression();
        if self.recovery && self.failed_since(mark) {
            return cond;
        }
        let span = cond.span.to(otherwise.span);
        Expr {
            kind: ExprKind::Conditional {
                cond: Box::new(cond),
                then: Box::new(then),
                otherwise: Box::new(otherwise),
            },
            span,
        }
    }

    /// Operands and the binary operators of level `min` or tighter
    /// (precedence climbing: the tree HCL's one-function-per-level parser
    /// builds).
    fn binary(&mut self, min: usize) -> Expr {
        let mark = self.diags.len();
        let mut lhs = self.with_traversals();
        if self.recovery && self.failed_since(mark) {
            return lhs;
        }
        while let Some((level, op)) = binary_op(self.peek().kind) {
            if level < min {
                break;
            }
            let op_tok = self.read();
            self.operators += 1;
            if self.operators > MAX_OPERATORS {
                self.error_once(
                    "Nesting too deep",
                    format!(
                        "This expression has more than {MAX_OPERATORS} binary operators; each one nests it one level deeper."
                    ),
                    self.span(op_tok),
                );
                self.recovery = true;
                return lhs;
            }
            let mark = self.diags.len();
            let rhs = self.binary(level + 1);
            let span = lhs.span.to(rhs.span);
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                span,
            };
            if self.recovery && self.failed_since(mark) {
                return lhs;
            }
        }
        lhs
    }

    fn with_traversals(&mut self) -> Expr {
        let term = self.term();
        self.traversals(term)
    }

    /// A number literal token as an expression (checked as HCL reads it).
    pub(super) fn number(&mut self, t: Token) -> Expr {
        let text = self.text;
        let s = t.text(text);
        if !valid_number(s) {
            self.error(
                "Invalid number literal",
                "Failed to recognize the value of this number literal.",
                self.span(t),
            );
        }
        Expr {
            kind: ExprKind::Number(self.intern(s)),
            span: self.span(t),
        }
    }

    fn term(&mut self) -> Expr {
        let start = self.peek();
        match start.kind {
            T::OParen => {
                let open = self.read();
                self.push_newlines(false);
                let mark = self.diags.len();
                let inner = self.expression();
                if self.failed_since(mark) {
                    self.recover(T::CParen);
                    self.pop_newlines();
                    return inner;
                }
                let close = self.peek();
                if close.kind != T::CParen {
                    self.error(
                        "Unbalanced parentheses",
                        "Expected a closing parenthesis to terminate the expression.",
                        self.span(close),
                    );
                    self.recovery = true;
                }
                let close = self.read();
                self.pop_newlines();
                Expr {
                    kind: ExprKind::Parens(Box::new(inner)),
                    span: self.span(open).to(self.span(close)),
                }
            }
            T::NumberLit => {
                self.read();
                self.number(start)
            }
            T::Ident => {
                self.read();
                let after = self.peek().kind;
                if after == T::OParen || after == T::DoubleColon {
                    return self.call(start);
                }
                let span = self.span(start);
                let kind = match start.text(self.text) {
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    "null" => ExprKind::Null,
                    _ => ExprKind::Variable(self.ident(start)),
                };
                Expr { kind, span }
            }
            T::OQuote | T::OHeredoc => self.template_expr(),
            T::Minus | T::Bang => {
                let op = self.read();
                if !self.enter() {
                    self.leave();
                    return self.placeholder(self.span(op));
                }
                let operand = self.with_traversals();
                self.leave();
                let unary = if op.kind == T::Minus {
                    UnaryOp::Neg
                } else {
                    UnaryOp::Not
                };
                let span = self.span(op).to(operand.span);
                Expr {
                    kind: ExprKind::Unary(unary, Box::new(operand)),
                    span,
                }
            }
            T::OBrack => self.tuple(),
            T::OBrace => self.object(),
            _ => {
                if start.kind == T::Eof {
                    self.error_once(
                        "Missing expression",
                        "Expected the start of an expression, but found the end of the file.",
                        self.span(start),
                    );
                } else {
                    self.error_once(
                        "Invalid expression",
                        "Expected the start of an expression, but found an invalid expression token.",
                        self.span(start),
                    );
                }
                self.recovery = true;
                self.placeholder(self.span(start))
            }
        }
    }

    /// A function call after its name (`name(` or `ns::name(`).
    fn call(&mut self, name_tok: Token) -> Expr {
        let mut open = self.read();
        let mut name_end = name_tok;
        while open.kind == T::DoubleColon {
            let next = self.read();
            if next.kind != T::Ident {
                self.error(
                    "Missing function name",
                    "Function scope resolution symbol :: must be followed by a function name in this scope.",
                    self.span(next),
                );
                self.recover_over(T::OParen);
                return self.placeholder(self.span(name_tok).to(self.span(next)));
            }
            name_end = next;
            open = self.read();
        }
        let name_span = self.span(name_tok).to(self.span(name_end));
        if open.kind != T::OParen {
            self.error(
                "Missing open parenthesis",
                "Function selector must be followed by an open parenthesis to begin the function call.",
                self.span(open),
            );
            self.recover_over(T::OParen);
            return self.placeholder(name_span.to(self.span(open)));
        }
        let text = self.text;
        let name = Ident {
            name: self.intern(&text[name_span.start as usize..name_span.end as usize]),
            span: name_span,
        };
        let mark_args = self.exprs.len();
        let mut expand_final = false;
        let mut close = open;
        self.push_newlines(false);
        loop {
            let t = self.peek();
            if t.kind == T::CParen {
                close = self.read();
                break;
            }
            let mark = self.diags.len();
            let arg = self.expression();
            self.exprs.push(arg);
            if self.recovery && self.failed_since(mark) {
                let r = self.recover(T::CParen);
                if r.kind == T::CParen {
                    close = r;
                }
                break;
            }
            let sep = self.read();
            if sep.kind == T::CParen {
                close = sep;
                break;
            }
            if sep.kind == T::Ellipsis {
                expand_final = true;
                if self.peek().kind != T::CParen {
                    self.error_once(
                        "Missing closing parenthesis",
                        "An expanded function argument (with ...) must be immediately followed by closing parentheses.",
                        self.span(sep),
                    );
                    close = self.recover(T::CParen);
                } else {
                    close = self.read();
                }
                break;
            }
            if sep.kind != T::Comma {
                if sep.kind == T::Eof {
                    self.error(
                        "Unterminated function call",
                        "There is no closing parenthesis for this function call before the end of the file. This may be caused by incorrect parenthesis nesting elsewhere in this file.",
                        name_span.to(self.span(open)),
                    );
                } else {
                    self.error(
                        "Missing argument separator",
                        "A comma is required to separate each function argument from the next.",
                        self.span(sep),
                    );
                }
                close = self.recover(T::CParen);
                break;
            }
            if self.peek().kind == T::CParen {
                close = self.read();
                break;
            }
        }
        self.pop_newlines();
        let args: Vec<Expr> = self.exprs.drain(mark_args..).collect();
        Expr {
            kind: ExprKind::FuncCall {
                name,
                args,
                expand_final,
            },
            span: name_span.to(self.span(close)),
        }
    }

    fn tuple(&mut self) -> Expr {
        let open = self.read();
        self.push_newlines(false);
        let e = self.tuple_inner(open);
        self.pop_newlines();
        e
    }

    fn tuple_inner(&mut self, open: Token) -> Expr {
        if self.is_keyword(self.peek(), "for") {
            return self.for_expr(open);
        }
        let mark_items = self.exprs.len();
        let close;
        loop {
            let next = self.peek();
            if next.kind == T::CBrack {
                close = self.read();
                break;
            }
            let mark = self.diags.len();
            let item = self.expression();
            self.exprs.push(item);
            if self.recovery && self.failed_since(mark) {
                close = self.recover(T::CBrack);
                break;
            }
            let next = self.peek();
            if next.kind == T::CBrack {
                close = self.read();
                break;
            }
            if next.kind != T::Comma {
                if next.kind == T::Eof {
                    self.error_once(
                        "Unterminated tuple constructor expression",
                        "There is no corresponding closing bracket before the end of the file. This may be caused by incorrect bracket nesting elsewhere in this file.",
                        self.span(open),
                    );
                } else {
                    self.error_once(
                        "Missing item separator",
                        "Expected a comma to mark the beginning of the next item.",
                        self.span(next),
                    );
                }
                close = self.recover(T::CBrack);
                break;
            }
            self.read();
        }
        let items: Vec<Expr> = self.exprs.drain(mark_items..).collect();
        Expr {
            kind: ExprKind::Tuple(items),
            span: self.span(open).to(self.span(close)),
        }
    }

    fn object(&mut self) -> Expr {
        let open = self.read();
        self.push_newlines(false);
        let is_for = self.is_keyword(self.peek(), "for");
        self.pop_newlines();
        if is_for {
            self.push_newlines(false);
            let e = self.for_expr(open);
            self.pop_newlines();
            return e;
        }
        self.push_newlines(true);
        let e = self.object_inner(open);
        self.pop_newlines();
        e
    }

    fn object_inner(&mut self, open: Token) -> Expr {
        let mark_items = self.object_items.len();
        let close = loop {
            let next = self.peek();
            if next.kind == T::Newline {
                self.read();
                continue;
            }
            if next.kind == T::CBrace {
                break self.read();
            }
            match self.object_item(open) {
                ItemEnd::Next => {}
                ItemEnd::Closed(close) => break close,
                ItemEnd::Broken => {
                    if !self.skip_object_line() {
                        break self.recover(T::CBrace);
                    }
                }
            }
        };
        let items: Vec<ObjectItem> = self.object_items.drain(mark_items..).collect();
        Expr {
            kind: ExprKind::Object(items),
            span: self.span(open).to(self.span(close)),
        }
    }

    /// One `key = value` of the object opened by `open`, and the separator
    /// after it.
    fn object_item(&mut self, open: Token) -> ItemEnd {
        let mark = self.diags.len();
        let key = self.expression();
        if self.recovery && self.failed_since(mark) {
            return ItemEnd::Broken;
        }
        let next = self.peek();
        if next.kind != T::Equal && next.kind != T::Colon {
            match next.kind {
                T::Newline | T::Comma => self.error_once(
                    "Missing attribute value",
                    "Expected an attribute value, introduced by an equals sign (\"=\").",
                    self.span(next),
                ),
                T::Ident => self.error_once(
                    "Missing key/value separator",
                    "Expected an equals sign (\"=\") to mark the beginning of the attribute value. If you intended to given an attribute name containing periods or spaces, write the name in quotes to create a string literal.",
                    self.span(next),
                ),
                T::Eof => self.error_once(
                    "Unterminated object constructor expression",
                    UNTERMINATED_OBJECT,
                    self.span(open),
                ),
                _ => self.error_once(
                    "Missing key/value separator",
                    "Expected an equals sign (\"=\") to mark the beginning of the attribute value.",
                    self.span(next),
                ),
            }
            return ItemEnd::Broken;
        }
        self.read();
        let key = match key.kind {
            ExprKind::Variable(i) => ObjectKey::Ident(i),
            _ => ObjectKey::Expr(Box::new(key)),
        };
        let mark = self.diags.len();
        let value = self.expression();
        self.object_items.push(ObjectItem { key, value });
        if self.recovery && self.failed_since(mark) {
            return ItemEnd::Broken;
        }
        let next = self.peek();
        if next.kind == T::CBrace {
            return ItemEnd::Closed(self.read());
        }
        if next.kind != T::Comma && next.kind != T::Newline {
            if next.kind == T::Eof {
                self.error_once(
                    "Unterminated object constructor expression",
                    UNTERMINATED_OBJECT,
                    self.span(open),
                );
            } else {
                self.error_once(
                    "Missing attribute separator",
                    "Expected a newline or comma to mark the beginning of the next attribute.",
                    self.span(next),
                );
            }
            return ItemEnd::Broken;
        }
        self.read();
        ItemEnd::Next
    }

    /// After an error in an object's item: skips to the end of its line
    /// (outside brackets opened on it) or to the object's `}`, so the items
    /// on the next lines are still read (HCL skips to the `}`, dropping
    /// them). `false` where the object cannot go on: the end of the file,
    /// another bracket closing, or a line that starts the next body item
    /// (the caller's recovery then stops there too).
    fn skip_object_line(&mut self) -> bool {
        self.recovery = true;
        let mut nest = 0usize;
        for i in self.next..self.toks.len() {
            match self.toks[i].kind {
                T::Newline if nest == 0 => {
                    if self.in_attribute > 0 && self.item_line_at(i).is_some() {
                        return false;
                    }
                    self.next = i;
                    return true;
                }
                T::OBrace | T::OBrack | T::OParen | T::TemplateInterp | T::TemplateControl => {
                    nest += 1;
                }
                T::CBrace if nest == 0 => {
                    // The object's own `}`.
                    self.next = i;
                    return true;
                }
                T::CBrack | T::CParen | T::TemplateSeqEnd if nest == 0 => return false,
                T::CBrace | T::CBrack | T::CParen | T::TemplateSeqEnd => nest -= 1,
                T::Eof => return false,
                _ => {}
            }
        }
        false
    }

    /// `[for …]` or `{for …}` after the bracket; newlines do not count.
    fn for_expr(&mut self, open: Token) -> Expr {
        let object = open.kind == T::OBrace;
        let close_kind = if object { T::CBrace } else { T::CBrack };
        self.read(); // `for`
        let failed = |p: &mut Self, detail: &str| {
            if !p.recovery {
                let at = p.span(p.peek());
                p.error("Invalid 'for' expression", detail.to_owned(), at);
            }
            let close = p.recover(close_kind);
            p.placeholder(p.span(open).to(p.span(close)))
        };
        let (key_var, value_var) = match self.for_names(false) {
            Ok(names) => names,
            Err(detail) => return failed(self, detail),
        };
        let mark = self.diags.len();
        let collection = self.expression();
        if self.recovery && self.failed_since(mark) {
            let close = self.recover(close_kind);
            return self.placeholder(self.span(open).to(self.span(close)));
        }
        if self.peek().kind != T::Colon {
            return failed(
                self,
                "For expression requires a colon after the collection expression.",
            );
        }
        self.read();
        let mark = self.diags.len();
        let mut value_expr = self.expression();
        let mut key_expr = None;
        if self.peek().kind == T::FatArrow {
            self.read();
            key_expr = Some(value_expr);
            value_expr = self.expression();
        }
        if self.recovery && self.failed_since(mark) {
            let close = self.recover(close_kind);
            return self.placeholder(self.span(open).to(self.span(close)));
        }
        let mut ellipsis = None;
        if self.peek().kind == T::Ellipsis {
            ellipsis = Some(self.read());
        }
        let mut cond = None;
        if self.is_keyword(self.peek(), "if") {
            self.read();
            let mark = self.diags.len();
            cond = Some(self.expression());
            if self.recovery && self.failed_since(mark) {
                let close = self.recover(close_kind);
                return self.placeholder(self.span(open).to(self.span(close)));
            }
        }
        let close = if self.peek().kind == close_kind {
            self.read()
        } else {
            self.error_once(
                "Invalid 'for' expression",
                "Extra characters after the end of the 'for' expression.",
                self.span(self.peek()),
            );
            self.recover(close_kind)
        };
        if !object {
            if let Some(k) = &key_expr {
                self.error(
                    "Invalid 'for' expression",
                    "Key expression is not valid when building a tuple.",
                    k.span,
                );
            }
            if let Some(e) = ellipsis {
                self.error(
                    "Invalid 'for' expression",
                    "Grouping ellipsis (...) cannot be used when building a tuple.",
                    self.span(e),
                );
            }
        } else if key_expr.is_none() {
            self.error(
                "Invalid 'for' expression",
                "Key expression is required when building an object.",
                value_expr.span,
            );
        }
        Expr {
            kind: ExprKind::For(Box::new(ForExpr {
                key_var,
                value_var,
                collection,
                key_expr,
                value_expr,
                grouping: ellipsis.is_some(),
                cond,
            })),
            span: self.span(open).to(self.span(close)),
        }
    }

    /// `for k, v in collection` inside a `%{ }` directive, after `for`.
    pub(super) fn directive_for_vars(&mut self) -> Option<(Option<Ident>, Ident, Expr)> {
        match self.for_names(true) {
            Ok((key_var, value_var)) => Some((key_var, value_var, self.expression())),
            Err(detail) => {
                self.error_once("Invalid 'for' directive", detail, self.span(self.peek()));
                None
            }
        }
    }

    /// After `for`: `value in` or `key, value in`, as (key, value); or
    /// HCL's detail for what is missing, worded for a `for` expression or
    /// a `%{ for }` directive.
    fn for_names(&mut self, directive: bool) -> Result<(Option<Ident>, Ident), &'static str> {
        let [no_name, no_value, no_in] = if directive {
            [
                "For directive requires variable name after 'for'.",
                "For directive requires value variable name after comma.",
                "For directive requires 'in' keyword after names.",
            ]
        } else {
            [
                "For expression requires variable name after 'for'.",
                "For expression requires value variable name after comma.",
                "For expression requires the 'in' keyword after its name declarations.",
            ]
        };
        let first = self.peek();
        if first.kind != T::Ident {
            return Err(no_name);
        }
        self.read();
        let mut names = (None, self.ident(first));
        if self.peek().kind == T::Comma {
            self.read();
            let second = self.peek();
            if second.kind != T::Ident {
                return Err(no_value);
            }
            self.read();
            names = (Some(names.1), self.ident(second));
        }
        if !self.is_keyword(self.peek(), "in") {
            return Err(no_in);
        }
        self.read();
        Ok(names)
    }
}
