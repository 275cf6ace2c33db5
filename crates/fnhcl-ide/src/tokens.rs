//! Semantic tokens: what each word of a file is, for highlighting beyond
//! what a grammar can tell (a resource's label, a local's definition, the
//! parts of `req.*`). Spans are bytes; the LSP layer splits multi-line
//! tokens and encodes UTF-16 deltas.

use fnhcl_base::{FileId, Severity, Span};
use fnhcl_syntax::ast::{
    BinaryOp, Block, Body, Expr, ExprKind, ObjectKey, Structure, Template, TemplatePart,
};
use fnhcl_syntax::visit::{Visitor, walk_expr};

use crate::Snapshot;

/// The kinds of token (the LSP layer's legend lists them in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum TokenKind {
    Keyword,
    Class,
    EnumMember,
    Variable,
    Property,
    String,
    Number,
    Function,
    Operator,
    Parameter,
    Comment,
}

impl TokenKind {
    pub const ALL: [TokenKind; 11] = [
        TokenKind::Keyword,
        TokenKind::Class,
        TokenKind::EnumMember,
        TokenKind::Variable,
        TokenKind::Property,
        TokenKind::String,
        TokenKind::Number,
        TokenKind::Function,
        TokenKind::Operator,
        TokenKind::Parameter,
        TokenKind::Comment,
    ];
}

/// One token. `definition`: the token names something being defined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub span: Span,
    pub kind: TokenKind,
    pub definition: bool,
}

/// The second segments that are part of the language: `req.composite`,
/// `each.value`, `self.name`, ...
const WELL_KNOWN: &[(&str, &[&str])] = &[
    (
        "req",
        &[
            "composite",
            "composite_connection",
            "resource",
            "resources",
            "connection",
            "connections",
            "context",
            "extra_resources",
            "credentials",
            "watched",
        ],
    ),
    ("each", &["key", "value"]),
    (
        "self",
        &[
            "name",
            "basename",
            "resource",
            "resources",
            "connection",
            "connections",
        ],
    ),
];

/// The tokens of a file, sorted and not overlapping. A file with syntax
/// errors is classified as far as it parses (the parser recovers: the
/// tree holds what could be read); the text its recovery leaves out gets
/// the lexer's classification, so highlighting does not vanish there.
pub fn semantic_tokens(snapshot: &Snapshot, file: FileId) -> Vec<Token> {
    let text = &snapshot.sources().get(file).text;
    let (body, errors) = snapshot.parse(file);
    let mut w = Walker {
        text,
        out: Vec::new(),
    };
    w.body(body, None, 0);
    w.out.extend(
        crate::outline::comments(file, text)
            .into_iter()
            .map(|span| Token {
                span,
                kind: TokenKind::Comment,
                definition: false,
            }),
    );
    let tree = kept(w.out, text.len());
    if !errors.iter().any(|d| d.severity == Severity::Error) {
        return tree;
    }
    // The lexer's tokens where the tree has none.
    let lexed = kept(fallback::tokens(file, text), text.len());
    let mut out = Vec::with_capacity(tree.len() + lexed.len() / 4);
    let mut tree = tree.into_iter().peekable();
    for t in lexed {
        while let Some(x) = tree.next_if(|x| x.span.start < t.span.end) {
            out.push(x);
        }
        if out.last().is_none_or(|p| p.span.end <= t.span.start)
            && tree.peek().is_none_or(|x| t.span.end <= x.span.start)
        {
            out.push(t);
        }
    }
    out.extend(tree);
    out
}

/// `tokens` within the text, sorted, the later of two overlapping ones
/// left out.
fn kept(mut tokens: Vec<Token>, len: usize) -> Vec<Token> {
    tokens.retain(|t| t.span.start < t.span.end && (t.span.end as usize) <= len);
    tokens.sort_by_key(|t| (t.span.start, t.span.end));
    let mut kept: Vec<Token> = Vec::with_capacity(tokens.len());
    for t in tokens {
        if kept.last().is_none_or(|p| p.span.end <= t.span.start) {
            kept.push(t);
        }
    }
    kept
}

const MAX_DEPTH: usize = 256;

struct Walker<'t> {
    text: &'t str,
    out: Vec<Token>,
}

impl Walker<'_> {
    fn push(&mut self, span: Span, kind: TokenKind) {
        self.out.push(Token {
            span,
            kind,
            definition: false,
        });
    }

    fn define(&mut self, span: Span, kind: TokenKind) {
        self.out.push(Token {
            span,
            kind,
            definition: true,
        });
    }

    /// The first occurrence of `word` in `from..to` that is not inside
    /// another word, as a span.
    fn find(&self, file: FileId, from: u32, to: u32, word: &str) -> Option<Span> {
        let (from, to) = (from as usize, (to as usize).min(self.text.len()));
        let hay = self.text.get(from..to)?;
        let is_word = word.bytes().all(|b| b.is_ascii_alphanumeric());
        let mut at = 0;
        while let Some(i) = hay[at..].find(word) {
            let s = at + i;
            let e = s + word.len();
            let boundary =
                |o: Option<u8>| o.is_none_or(|b| !(b.is_ascii_alphanumeric() || b == b'_'));
            if !is_word
                || (boundary(s.checked_sub(1).map(|p| hay.as_bytes()[p]))
                    && boundary(hay.as_bytes().get(e).copied()))
            {
                return Some(Span::new(file, from + s, from + e));
            }
            at = e;
        }
        None
    }

    fn body(&mut self, body: &Body, parent: Option<&str>, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for s in &body.items {
            match s {
                Structure::Attribute(a) => {
                    if parent == Some("locals") {
                        self.define(a.name.span, TokenKind::Variable);
                    } else {
                        self.push(a.name.span, TokenKind::Keyword);
                    }
                    self.expr(&a.expr);
                }
                Structure::Block(b) => self.block(b, depth + 1),
            }
        }
    }

    fn block(&mut self, b: &Block, depth: usize) {
        let ident = &*b.ident.name;
        self.push(b.ident.span, TokenKind::Keyword);
        for (i, l) in b.labels.iter().enumerate() {
            let (kind, definition) = label_kind(ident, i);
            self.out.push(Token {
                span: l.span,
                kind,
                definition,
            });
        }
        self.body(&b.body, Some(ident), depth);
    }

    fn expr(&mut self, e: &Expr) {
        walk_expr(self, e);
    }

    /// A string: the text between its interpolations and directives is a
    /// string token (what is inside them is walked on).
    fn template(&mut self, span: Span, t: &Template) {
        let mut holes: Vec<Span> = t
            .parts
            .iter()
            .filter_map(|p| match p {
                TemplatePart::Literal(_) => None,
                TemplatePart::Interpolation(x) => Some(x.span),
                TemplatePart::If(i) => Some(i.span),
                TemplatePart::For(f) => Some(f.span),
            })
            .collect();
        holes.sort_by_key(|h| h.start);
        let mut at = span.start;
        for h in holes {
            if h.start > at {
                self.push(
                    Span::new(span.file, at as usize, h.start as usize),
                    TokenKind::String,
                );
            }
            at = at.max(h.end);
        }
        if span.end > at {
            self.push(
                Span::new(span.file, at as usize, span.end as usize),
                TokenKind::String,
            );
        }
    }
}

/// Each expression's own tokens: its keywords, operators and names (the
/// walk goes on into its sub-expressions).
impl Visitor<'_> for Walker<'_> {
    fn enter(&mut self, e: &Expr) -> bool {
        let file = e.span.file;
        match &e.kind {
            // A placeholder the parser put where an expression is missing
            // is no `null` keyword.
            ExprKind::Null
                if self.text.get(e.span.start as usize..e.span.end as usize) != Some("null") => {}
            ExprKind::Null | ExprKind::Bool(_) => self.push(e.span, TokenKind::Keyword),
            ExprKind::Number(_) => self.push(e.span, TokenKind::Number),
            ExprKind::Variable(v) => {
                let kind = if WELL_KNOWN.iter().any(|(r, _)| **r == *v.name) {
                    TokenKind::Keyword
                } else {
                    TokenKind::Variable
                };
                self.push(v.span, kind);
            }
            ExprKind::GetAttr(src, name) => {
                let known = match &src.kind {
                    ExprKind::Variable(v) => WELL_KNOWN
                        .iter()
                        .any(|(r, seconds)| **r == *v.name && seconds.contains(&&*name.name)),
                    _ => false,
                };
                let kind = if known {
                    TokenKind::Keyword
                } else {
                    TokenKind::Property
                };
                self.push(name.span, kind);
            }
            ExprKind::Template(t) => self.template(e.span, t),
            ExprKind::Object(items) => {
                for it in items {
                    if let ObjectKey::Ident(k) = &it.key {
                        self.push(k.span, TokenKind::Property);
                    }
                }
            }
            ExprKind::FuncCall { name, .. } => self.push(name.span, TokenKind::Function),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                if let Some(s) = self.find(file, cond.span.end, then.span.start, "?") {
                    self.push(s, TokenKind::Operator);
                }
                if let Some(s) = self.find(file, then.span.end, otherwise.span.start, ":") {
                    self.push(s, TokenKind::Operator);
                }
            }
            ExprKind::Unary(_, x) if x.span.start > e.span.start => {
                self.push(
                    Span::new(file, e.span.start as usize, e.span.start as usize + 1),
                    TokenKind::Operator,
                );
            }
            ExprKind::Binary(op, a, b) => {
                if let Some(s) = self.find(file, a.span.end, b.span.start, op_text(*op)) {
                    self.push(s, TokenKind::Operator);
                }
            }
            ExprKind::For(f) => {
                if let Some(s) = self.find(file, e.span.start, f.value_var.span.start, "for") {
                    self.push(s, TokenKind::Keyword);
                }
                if let Some(k) = &f.key_var {
                    self.push(k.span, TokenKind::Variable);
                }
                self.push(f.value_var.span, TokenKind::Variable);
                if let Some(s) =
                    self.find(file, f.value_var.span.end, f.collection.span.start, "in")
                {
                    self.push(s, TokenKind::Keyword);
                }
                if let Some(c) = &f.cond
                    && let Some(s) = self.find(file, f.value_expr.span.end, c.span.start, "if")
                {
                    self.push(s, TokenKind::Keyword);
                }
            }
            _ => {}
        }
        true
    }
}

/// What the `i`th label of a block of type `ident` is, and whether it
/// defines a name.
fn label_kind(ident: &str, i: usize) -> (TokenKind, bool) {
    match (ident, i) {
        ("resource" | "resources", 0) => (TokenKind::Class, true),
        ("composite", 0) => (TokenKind::EnumMember, false),
        ("function", 0) => (TokenKind::Function, true),
        ("arg", 0) => (TokenKind::Parameter, true),
        _ => (TokenKind::String, false),
    }
}

fn op_text(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Or => "||",
        BinaryOp::And => "&&",
        BinaryOp::Eq => "==",
        BinaryOp::NotEq => "!=",
        BinaryOp::Lt => "<",
        BinaryOp::LtEq => "<=",
        BinaryOp::Gt => ">",
        BinaryOp::GtEq => ">=",
        BinaryOp::Add => "+",
        BinaryOp::Sub => "-",
        BinaryOp::Mul => "*",
        BinaryOp::Div => "/",
        BinaryOp::Mod => "%",
    }
}

#[path = "tokens_fallback.rs"]
mod fallback;

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
