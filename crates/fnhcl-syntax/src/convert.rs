//! hcl-edit tree → our AST.

use std::ops::Range;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, FileId, Span};
use hcl_edit::Span as _;
use hcl_edit::expr::{self as he, Expression, TraversalOperator};
use hcl_edit::structure as hs;
use hcl_edit::template::{self as ht, Directive, Element};

use crate::ast::*;
use crate::strip::Tok;

/// Longest chain of `.name`/`[key]`/`[*]` steps accepted (each step is one
/// level of the AST).
const MAX_TRAVERSAL_STEPS: usize = 128;

pub(crate) struct Converter<'a> {
    file: FileId,
    text: &'a str,
    /// Offset of the parsed slice in `text`.
    base: isize,
    /// Object keys renamed before parsing (offsets in the parsed slice).
    renamed: crate::dupkeys::Renamed,
    diags: Vec<Diagnostic>,
}

impl<'a> Converter<'a> {
    pub(crate) fn new(file: FileId, text: &'a str) -> Converter<'a> {
        Converter {
            file,
            text,
            base: 0,
            renamed: Vec::new(),
            diags: Vec::new(),
        }
    }

    pub(crate) fn with_base(mut self, base: isize) -> Converter<'a> {
        self.base = base;
        self
    }

    pub(crate) fn with_renamed(mut self, renamed: crate::dupkeys::Renamed) -> Converter<'a> {
        self.renamed = renamed;
        self
    }

    /// The original text of a renamed object key, if `r` is one.
    fn renamed_key(&self, r: Option<Range<usize>>) -> Option<String> {
        let r = r?;
        if !self.renamed.contains(&r.start) {
            return None;
        }
        let s = (r.start as isize + self.base).max(0) as usize;
        let e = (r.end as isize + self.base).max(0) as usize;
        self.text.get(s..e).map(str::to_owned)
    }

    pub(crate) fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diags
    }

    fn span(&self, r: Option<Range<usize>>, fallback: Span) -> Span {
        match r {
            Some(r)
                if r.start <= r.end
                    && r.start as isize + self.base >= 0
                    && r.end as isize + self.base <= self.text.len() as isize =>
            {
                Span::new(
                    self.file,
                    (r.start as isize + self.base) as usize,
                    (r.end as isize + self.base) as usize,
                )
            }
            _ => fallback,
        }
    }

    fn zero(&self) -> Span {
        Span::new(self.file, 0, 0)
    }

    pub(crate) fn body(&mut self, body: &hs::Body, span: Span) -> Body {
        let mut items = Vec::with_capacity(body.len());
        for s in body.iter() {
            items.push(self.structure(s));
        }
        Body { items, span }
    }

    /// [`Self::body`] for a file's whole body, taken by value: each
    /// top-level attribute or block of hcl-edit's tree is dropped once
    /// converted, so the two trees (hcl-edit's is about twice ours) are
    /// not both whole in memory at once.
    pub(crate) fn file_body(&mut self, body: hs::Body, span: Span) -> Body {
        let mut items = Vec::with_capacity(body.len());
        for s in body {
            items.push(self.structure(&s));
        }
        Body { items, span }
    }

    fn structure(&mut self, s: &hs::Structure) -> Structure {
        match s {
            hs::Structure::Attribute(a) => {
                let fallback = self.zero();
                let key_span = self.span(a.key.span(), fallback);
                let expr = self.expr(&a.value);
                let span = key_span.to(expr.span);
                Structure::Attribute(Attribute {
                    name: Ident {
                        name: Arc::from(a.key.as_str()),
                        span: key_span,
                    },
                    expr,
                    span,
                })
            }
            hs::Structure::Block(b) => Structure::Block(self.block(b)),
        }
    }

    fn block(&mut self, b: &hs::Block) -> Block {
        let fallback = self.zero();
        let ident_span = self.span(b.ident.span(), fallback);
        let whole = self.span(b.span(), ident_span);
        let labels: Vec<BlockLabel> = b
            .labels
            .iter()
            .map(|l| {
                let (value, quoted) = match l {
                    hs::BlockLabel::Ident(i) => (i.as_str().to_owned(), false),
                    hs::BlockLabel::String(s) => (s.value().clone(), true),
                };
                BlockLabel {
                    value,
                    quoted,
                    span: self.span(l.span(), ident_span),
                }
            })
            .collect();
        let header_end = labels.last().map_or(ident_span.end, |l| l.span.end) as usize;
        // The `{` is the first non-blank character after the header.
        let open = self.text[header_end.min(self.text.len())..]
            .find('{')
            .map(|i| header_end + i)
            .unwrap_or(header_end);
        let open_brace = Span::new(self.file, open, (open + 1).min(self.text.len()));
        let body_span = Span::new(self.file, open, (whole.end as usize).max(open));
        let body = self.body(&b.body, body_span);
        Block {
            ident: Ident {
                name: Arc::from(b.ident.as_str()),
                span: ident_span,
            },
            labels,
            body,
            span: Span::new(self.file, ident_span.start as usize, whole.end as usize),
            open_brace,
        }
    }

    pub(crate) fn expr(&mut self, e: &Expression) -> Expr {
        let fallback = self.zero();
        let span = self.span(e.span(), fallback);
        let kind = match e {
            Expression::Null(_) => ExprKind::Null,
            Expression::Bool(b) => ExprKind::Bool(*b.value()),
            Expression::Number(_) => ExprKind::Number(Arc::from(
                self.text[span.start as usize..span.end as usize].trim(),
            )),
            Expression::String(s) => ExprKind::Template(Template {
                parts: vec![TemplatePart::Literal(Arc::from(s.value().as_str()))],
                heredoc: false,
            }),
            Expression::Array(a) => ExprKind::Tuple(a.iter().map(|x| self.expr(x)).collect()),
            Expression::Object(o) => {
                let mut items = Vec::with_capacity(o.len());
                for (k, v) in o.iter() {
                    let original = self.renamed_key(k.span());
                    let key = match k {
                        he::ObjectKey::Ident(i) => ObjectKey::Ident(Ident {
                            name: Arc::from(original.as_deref().unwrap_or(i.as_str())),
                            span: self.span(k.span(), span),
                        }),
                        he::ObjectKey::Expression(x) => {
                            let mut e = self.expr(x);
                            if let (Some(o), ExprKind::Template(t)) = (&original, &mut e.kind) {
                                let inner = o.trim_start_matches('"').trim_end_matches('"');
                                t.parts = vec![TemplatePart::Literal(Arc::from(inner))];
                            }
                            ObjectKey::Expr(Box::new(e))
                        }
                    };
                    let value = self.expr(v.expr());
                    items.push(ObjectItem { key, value });
                }
                ExprKind::Object(items)
            }
            Expression::StringTemplate(t) => {
                let mut t2 = ht::Template::from_iter(t.iter().cloned());
                apply_strip(&mut t2);
                ExprKind::Template(self.template(&t2, false, span))
            }
            Expression::HeredocTemplate(h) => {
                let mut t2 = h.template.clone();
                // hcl-edit has already dedented `<<-` heredocs its own way;
                // HCL strips first and dedents afterwards, per line, so we
                // start again from the raw text of each literal.
                restore_raw_literals(&mut t2, self.text, self.base);
                let flush = self.text[span.start as usize..].starts_with("<<-");
                apply_strip_heredoc(&mut t2, flush);
                ExprKind::Template(self.template(&t2, true, span))
            }
            Expression::Parenthesis(p) => ExprKind::Parens(Box::new(self.expr(p.inner()))),
            Expression::Variable(v) => ExprKind::Variable(Ident {
                name: Arc::from(v.as_str()),
                span,
            }),
            Expression::Conditional(c) => ExprKind::Conditional {
                cond: Box::new(self.expr(&c.cond_expr)),
                then: Box::new(self.expr(&c.true_expr)),
                otherwise: Box::new(self.expr(&c.false_expr)),
            },
            Expression::FuncCall(f) => {
                let name_span = self.span(f.name.name.span(), span);
                let (name, nspan) = if f.name.namespace.is_empty() {
                    (f.name.name.as_str().to_owned(), name_span)
                } else {
                    let mut s = String::new();
                    let mut start = name_span;
                    for (i, ns) in f.name.namespace.iter().enumerate() {
                        if i == 0 {
                            start = self.span(ns.span(), name_span);
                        }
                        s.push_str(ns.as_str());
                        s.push_str("::");
                    }
                    s.push_str(f.name.name.as_str());
                    (s, start.to(name_span))
                };
                ExprKind::FuncCall {
                    name: Ident {
                        name: Arc::from(name),
                        span: nspan,
                    },
                    args: f.args.iter().map(|a| self.expr(a)).collect(),
                    expand_final: f.args.expand_final(),
                }
            }
            Expression::Traversal(t) => return self.traversal(t, span),
            Expression::UnaryOp(u) => {
                let op = match u.operator.value() {
                    he::UnaryOperator::Neg => UnaryOp::Neg,
                    he::UnaryOperator::Not => UnaryOp::Not,
                };
                ExprKind::Unary(op, Box::new(self.expr(&u.expr)))
            }
            Expression::BinaryOp(b) => {
                use he::BinaryOperator as B;
                let op = match b.operator.value() {
                    B::Eq => BinaryOp::Eq,
                    B::NotEq => BinaryOp::NotEq,
                    B::LessEq => BinaryOp::LtEq,
                    B::GreaterEq => BinaryOp::GtEq,
                    B::Less => BinaryOp::Lt,
                    B::Greater => BinaryOp::Gt,
                    B::Plus => BinaryOp::Add,
                    B::Minus => BinaryOp::Sub,
                    B::Mul => BinaryOp::Mul,
                    B::Div => BinaryOp::Div,
                    B::Mod => BinaryOp::Mod,
                    B::And => BinaryOp::And,
                    B::Or => BinaryOp::Or,
                };
                ExprKind::Binary(
                    op,
                    Box::new(self.expr(&b.lhs_expr)),
                    Box::new(self.expr(&b.rhs_expr)),
                )
            }
            Expression::ForExpr(f) => {
                let kv = f.intro.key_var.as_ref().map(|k| self.ident(k, span));
                let vv = self.ident(&f.intro.value_var, span);
                ExprKind::For(Box::new(ForExpr {
                    key_var: kv,
                    value_var: vv,
                    collection: self.expr(&f.intro.collection_expr),
                    key_expr: f.key_expr.as_ref().map(|k| self.expr(k)),
                    value_expr: self.expr(&f.value_expr),
                    grouping: f.grouping,
                    cond: f.cond.as_ref().map(|c| self.expr(&c.expr)),
                }))
            }
        };
        Expr { kind, span }
    }

    fn ident(&self, i: &hcl_edit::Decorated<hcl_edit::Ident>, fallback: Span) -> Ident {
        Ident {
            name: Arc::from(i.as_str()),
            span: self.span(i.span(), fallback),
        }
    }

    fn traversal(&mut self, t: &he::Traversal, span: Span) -> Expr {
        let source = self.expr(&t.expr);
        let mut ops: Vec<(Span, &TraversalOperator)> = t
            .operators
            .iter()
            .map(|o| (self.span(o.span(), span), o.value()))
            .collect();
        if ops.len() > MAX_TRAVERSAL_STEPS {
            let at = ops[MAX_TRAVERSAL_STEPS].0;
            self.diags.push(
                crate::errors::syntax_error(
                    "Traversal too long",
                    format!(
                        "This expression has {} attribute, index and splat steps in a row; at most {MAX_TRAVERSAL_STEPS} are supported.",
                        ops.len()
                    ),
                )
                .with_span(at),
            );
            ops.truncate(MAX_TRAVERSAL_STEPS);
        }
        self.apply_ops(source, &ops, None)
    }

    /// Builds the nested access expression for `source` followed by `ops`,
    /// with HCL's splat scoping: a full splat `[*]` takes every following
    /// operator into its per-element expression; an attribute-only splat
    /// `.*` takes the following `.name` and `.N` steps only.
    fn apply_ops(
        &mut self,
        mut source: Expr,
        ops: &[(Span, &TraversalOperator)],
        in_attr_splat: Option<Span>,
    ) -> Expr {
        let mut i = 0;
        while i < ops.len() {
            let (op_span, op) = ops[i];
            match op {
                TraversalOperator::FullSplat(_) => {
                    let item = Expr {
                        kind: ExprKind::SplatItem,
                        span: op_span,
                    };
                    let each = self.apply_ops(item, &ops[i + 1..], None);
                    let end = ops.last().map_or(op_span, |o| o.0);
                    let span = source.span.to(end);
                    return Expr {
                        kind: ExprKind::Splat {
                            source: Box::new(source),
                            each: Box::new(each),
                            full: true,
                        },
                        span,
                    };
                }
                TraversalOperator::AttrSplat(_) => {
                    let mut j = i + 1;
                    while j < ops.len()
                        && matches!(
                            ops[j].1,
                            TraversalOperator::GetAttr(_) | TraversalOperator::LegacyIndex(_)
                        )
                    {
                        j += 1;
                    }
                    let item = Expr {
                        kind: ExprKind::SplatItem,
                        span: op_span,
                    };
                    if let Some((next, TraversalOperator::AttrSplat(_))) = ops.get(j) {
                        let star = Span::new(
                            self.file,
                            (next.end as usize).saturating_sub(1),
                            next.end as usize,
                        );
                        self.diags.push(
                            crate::errors::syntax_error(
                                "Nested splat expression not allowed",
                                "A splat expression (*) cannot be used inside another attribute-only splat expression.",
                            )
                            .with_span(star),
                        );
                    }
                    let star = Span::new(
                        self.file,
                        (op_span.end as usize).saturating_sub(1),
                        op_span.end as usize,
                    );
                    let each = self.apply_ops(item, &ops[i + 1..j], Some(star));
                    let end = ops[j - 1].0;
                    let span = source.span.to(end);
                    source = Expr {
                        kind: ExprKind::Splat {
                            source: Box::new(source),
                            each: Box::new(each),
                            full: false,
                        },
                        span,
                    };
                    i = j;
                    continue;
                }
                TraversalOperator::GetAttr(name) => {
                    let n = name.as_str();
                    let nstart = (op_span.end as usize).saturating_sub(n.len());
                    let ident = Ident {
                        name: Arc::from(n),
                        span: Span::new(
                            self.file,
                            nstart.max(op_span.start as usize),
                            op_span.end as usize,
                        ),
                    };
                    let span = source.span.to(op_span);
                    source = Expr {
                        kind: ExprKind::GetAttr(Box::new(source), ident),
                        span,
                    };
                }
                TraversalOperator::Index(k) => {
                    let key = self.expr(k);
                    let span = source.span.to(op_span);
                    source = Expr {
                        kind: ExprKind::Index(Box::new(source), Box::new(key)),
                        span,
                    };
                }
                TraversalOperator::LegacyIndex(n) => {
                    let text = n.value().to_string();
                    let kstart = (op_span.end as usize).saturating_sub(text.len());
                    // `a.0.1`: HCL's scanner reads `0.1` as one number, when
                    // the digits, the dot and the next digits touch (`a. 0. 1`
                    // is two indexes).
                    if let Some((next, TraversalOperator::LegacyIndex(m))) = ops.get(i + 1)
                        && next.start == op_span.end
                        && let second = m.value().to_string()
                        && (next.end as usize).saturating_sub(second.len())
                            == next.start as usize + 1
                    {
                        let hint = if in_attr_splat.is_some() {
                            "Use the proper index syntax with a full splat expression [*] instead"
                        } else {
                            "Use the proper index syntax instead"
                        };
                        // HCL blames the splat's `*` inside an attribute-only
                        // splat, else the number it read (`0.1`).
                        let subject = in_attr_splat.unwrap_or_else(|| {
                            Span::new(
                                self.file,
                                kstart
                                    .max(op_span.start as usize + 1)
                                    .min(next.end as usize),
                                next.end as usize,
                            )
                        });
                        self.diags.push(
                            crate::errors::syntax_error(
                                "Invalid legacy index syntax",
                                format!(
                                    "When using the legacy index syntax, chaining two indexes together is not permitted. {hint}, like [{text}][{second}]."
                                ),
                            )
                            .with_span(subject),
                        );
                    }
                    let key = Expr {
                        kind: ExprKind::Number(Arc::from(text)),
                        span: Span::new(
                            self.file,
                            kstart.max(op_span.start as usize),
                            op_span.end as usize,
                        ),
                    };
                    let span = source.span.to(op_span);
                    source = Expr {
                        kind: ExprKind::Index(Box::new(source), Box::new(key)),
                        span,
                    };
                }
            }
            i += 1;
        }
        source
    }

    fn template(&mut self, t: &ht::Template, heredoc: bool, span: Span) -> Template {
        let mut parts = Vec::with_capacity(t.len());
        for el in t.iter() {
            match el {
                Element::Literal(s) => {
                    if let Some(TemplatePart::Literal(prev)) = parts.last_mut() {
                        let mut joined = String::from(&**prev);
                        joined.push_str(s.value());
                        *prev = Arc::from(joined);
                    } else {
                        parts.push(TemplatePart::Literal(Arc::from(s.value().as_str())));
                    }
                }
                Element::Interpolation(i) => {
                    parts.push(TemplatePart::Interpolation(self.expr(&i.expr)));
                }
                Element::Directive(d) => match &**d {
                    Directive::If(ifd) => {
                        let dspan = self.span(ifd.span(), span);
                        let cond = self.expr(&ifd.if_expr.cond_expr);
                        let then = self.template(&ifd.if_expr.template, heredoc, dspan);
                        let otherwise = ifd
                            .else_expr
                            .as_ref()
                            .map(|e| self.template(&e.template, heredoc, dspan));
                        parts.push(TemplatePart::If(Box::new(TemplateIf {
                            cond,
                            then,
                            otherwise,
                            span: dspan,
                        })));
                    }
                    Directive::For(fd) => {
                        let dspan = self.span(fd.span(), span);
                        let f = &fd.for_expr;
                        parts.push(TemplatePart::For(Box::new(TemplateFor {
                            key_var: f.key_var.as_ref().map(|k| self.ident(k, dspan)),
                            value_var: self.ident(&f.value_var, dspan),
                            collection: self.expr(&f.collection_expr),
                            body: self.template(&f.template, heredoc, dspan),
                            span: dspan,
                        })));
                    }
                },
            }
        }
        Template { parts, heredoc }
    }
}

fn collect_tokens<'t>(t: &'t mut ht::Template, out: &mut Vec<Tok<'t>>) {
    for el in t.iter_mut() {
        match el {
            Element::Literal(s) => out.push(Tok::Lit(&mut *s)),
            Element::Interpolation(i) => out.push(mark(i.strip)),
            Element::Directive(d) => match &mut **d {
                Directive::If(ifd) => {
                    out.push(mark(ifd.if_expr.strip));
                    collect_tokens(&mut ifd.if_expr.template, out);
                    if let Some(e) = &mut ifd.else_expr {
                        out.push(mark(e.strip));
                        collect_tokens(&mut e.template, out);
                    }
                    out.push(mark(ifd.endif_expr.strip));
                }
                Directive::For(fd) => {
                    out.push(mark(fd.for_expr.strip));
                    collect_tokens(&mut fd.for_expr.template, out);
                    out.push(mark(fd.endfor_expr.strip));
                }
            },
        }
    }
}

fn mark<'t>(s: hcl_edit::template::Strip) -> Tok<'t> {
    Tok::Mark {
        start: s.strip_start(),
        end: s.strip_end(),
    }
}

/// Applies `~` strip markers (see [`crate::strip::strip_quoted`]).
fn apply_strip(t: &mut ht::Template) {
    let mut toks = Vec::new();
    collect_tokens(t, &mut toks);
    crate::strip::strip_quoted(&mut toks);
}

/// Replaces every literal of a heredoc template by its source text (only
/// the `$${` and `%%{` escapes exist in heredocs).
fn restore_raw_literals(t: &mut ht::Template, text: &str, base: isize) {
    for el in t.iter_mut() {
        match el {
            Element::Literal(s) => {
                if let Some(r) = s.span()
                    && r.start as isize + base >= 0
                    && let Some(raw) = text
                        .get((r.start as isize + base) as usize..(r.end as isize + base) as usize)
                {
                    let v = raw.replace("$${", "${").replace("%%{", "%{");
                    **s = v;
                }
            }
            Element::Interpolation(_) => {}
            Element::Directive(d) => match &mut **d {
                Directive::If(ifd) => {
                    restore_raw_literals(&mut ifd.if_expr.template, text, base);
                    if let Some(e) = &mut ifd.else_expr {
                        restore_raw_literals(&mut e.template, text, base);
                    }
                }
                Directive::For(fd) => restore_raw_literals(&mut fd.for_expr.template, text, base),
            },
        }
    }
}

/// Heredoc strip markers and `<<-` indentation (see
/// [`crate::strip::strip_heredoc`]).
fn apply_strip_heredoc(t: &mut ht::Template, flush: bool) {
    let mut toks = Vec::new();
    collect_tokens(t, &mut toks);
    crate::strip::strip_heredoc(&mut toks, flush);
}
