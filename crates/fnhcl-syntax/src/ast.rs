//! The spanned HCL AST shared by the evaluator, analyzer and tools.
//!
//! Template strip markers (`~`) and heredoc indentation (`<<-`) are already
//! applied: literal template parts hold the final text.

use std::sync::Arc;

use fnhcl_base::Span;

/// A file's or block's body.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    pub items: Vec<Structure>,
    /// The whole body (for a block body: from `{` to `}` inclusive; for a
    /// file: the whole file).
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Structure {
    Attribute(Attribute),
    Block(Block),
}

/// `name = expr`
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub expr: Expr,
    /// From the name to the end of the expression.
    pub span: Span,
}

/// `ident label... { body }`
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub ident: Ident,
    pub labels: Vec<BlockLabel>,
    pub body: Body,
    /// From the identifier to the closing brace.
    pub span: Span,
    /// The `{` (HCL reports "missing required argument" here).
    pub open_brace: Span,
}

impl Block {
    /// HCL's "definition range": the identifier and labels.
    pub fn header_span(&self) -> Span {
        match self.labels.last() {
            Some(l) => self.ident.span.to(l.span),
            None => self.ident.span,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: Arc<str>,
    pub span: Span,
}

/// A block label: `resource foo {` (identifier) or `resource "foo" {` (quoted).
#[derive(Clone, Debug, PartialEq)]
pub struct BlockLabel {
    pub value: String,
    pub quoted: bool,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Null,
    Bool(bool),
    /// A number literal's source text (parsed by the evaluator).
    Number(Arc<str>),
    /// A quoted string or heredoc. A template that is exactly one
    /// interpolation (`"${x}"`) is still a `Template` here; the evaluator
    /// returns the interpolated value unconverted, as HCL does.
    Template(Template),
    Tuple(Vec<Expr>),
    Object(Vec<ObjectItem>),
    /// A root variable reference: `req`, `each`, a local.
    Variable(Ident),
    /// `expr.name`
    GetAttr(Box<Expr>, Ident),
    /// `expr[key]`, and the legacy `expr.0` form (key is a number literal).
    Index(Box<Expr>, Box<Expr>),
    /// `source[*].rest` (full) or `source.*.rest` (attribute-only). `each`
    /// is applied to every element; inside it, [`ExprKind::SplatItem`]
    /// stands for the element.
    Splat {
        source: Box<Expr>,
        each: Box<Expr>,
        full: bool,
    },
    /// The element placeholder inside a splat's `each` expression.
    SplatItem,
    FuncCall {
        name: Ident,
        args: Vec<Expr>,
        /// `f(a, b...)`: the last argument is expanded.
        expand_final: bool,
    },
    Conditional {
        cond: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    For(Box<ForExpr>),
    Parens(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ObjectItem {
    pub key: ObjectKey,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ObjectKey {
    /// A bare identifier key: the literal string of its name.
    Ident(Ident),
    /// Any other key expression (a string template, a parenthesised
    /// expression, ...). Boxed: most keys are identifiers, and an inline
    /// expression would make every object item 48 bytes larger.
    Expr(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Template {
    pub parts: Vec<TemplatePart>,
    /// True for heredocs.
    pub heredoc: bool,
}

/// One part of a template. The directives are boxed: they are rare, and
/// inline they would make every part (most are literal text) 192 bytes
/// instead of 80 (docs/notes/memory-and-jsonl.md).
#[derive(Clone, Debug, PartialEq)]
pub enum TemplatePart {
    Literal(Arc<str>),
    Interpolation(Expr),
    If(Box<TemplateIf>),
    For(Box<TemplateFor>),
}

/// `%{ if cond }then%{ else }otherwise%{ endif }`
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateIf {
    pub cond: Expr,
    pub then: Template,
    pub otherwise: Option<Template>,
    pub span: Span,
}

/// `%{ for key_var, value_var in collection }body%{ endfor }`
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateFor {
    pub key_var: Option<Ident>,
    pub value_var: Ident,
    pub collection: Expr,
    pub body: Template,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Or,
    And,
    Eq,
    NotEq,
    Lt,
    LtEq,
    Gt,
    GtEq,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ForExpr {
    pub key_var: Option<Ident>,
    pub value_var: Ident,
    pub collection: Expr,
    /// For an object `for`: the key expression. `None` for a tuple `for`.
    pub key_expr: Option<Expr>,
    pub value_expr: Expr,
    /// `...` after the value (object `for` grouping).
    pub grouping: bool,
    pub cond: Option<Expr>,
}
