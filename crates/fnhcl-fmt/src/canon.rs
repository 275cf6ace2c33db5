//! The meaning of a file, as a string: its syntax tree printed without
//! whitespace, comments, spans, trailing commas, object separators or the
//! choice between `:` and `=` in objects. Two files with the same canonical
//! form mean the same thing; the formatter checks this for every file it
//! rewrites.

use std::fmt::Write as _;

use hcl_edit::expr::{Expression, ForExpr, ObjectKey, TraversalOperator};
use hcl_edit::structure::{BlockLabel, Body, Structure};
use hcl_edit::template::{Directive, Element, Template};

const MAX_DEPTH: usize = 512;

pub(crate) struct Canon {
    out: String,
    too_deep: bool,
}

pub(crate) fn body(b: &Body) -> Option<String> {
    let mut c = Canon {
        out: String::new(),
        too_deep: false,
    };
    c.body(b, 0);
    (!c.too_deep).then_some(c.out)
}

impl Canon {
    fn deep(&mut self, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            self.too_deep = true;
        }
        self.too_deep
    }

    fn body(&mut self, b: &Body, depth: usize) {
        if self.deep(depth) {
            return;
        }
        self.out.push('{');
        for s in b.iter() {
            match s {
                Structure::Attribute(a) => {
                    let _ = write!(self.out, "attr {:?} = ", a.key.as_str());
                    self.expr(&a.value, depth + 1);
                    self.out.push(';');
                }
                Structure::Block(bl) => {
                    let _ = write!(self.out, "block {:?}", bl.ident.as_str());
                    for l in &bl.labels {
                        match l {
                            BlockLabel::Ident(i) => {
                                let _ = write!(self.out, " ident {:?}", i.as_str());
                            }
                            BlockLabel::String(s) => {
                                let _ = write!(self.out, " str {:?}", s.as_str());
                            }
                        }
                    }
                    self.body(&bl.body, depth + 1);
                    self.out.push(';');
                }
            }
        }
        self.out.push('}');
    }

    fn template(&mut self, t: &Template, depth: usize) {
        if self.deep(depth) {
            return;
        }
        self.out.push('<');
        for e in t.iter() {
            match e {
                Element::Literal(s) => {
                    let _ = write!(self.out, "lit {:?};", s.as_str());
                }
                Element::Interpolation(i) => {
                    let _ = write!(self.out, "interp {:?} ", i.strip);
                    self.expr(&i.expr, depth + 1);
                    self.out.push(';');
                }
                Element::Directive(d) => match d.as_ref() {
                    Directive::If(d) => {
                        let _ = write!(self.out, "if {:?} ", d.if_expr.strip);
                        self.expr(&d.if_expr.cond_expr, depth + 1);
                        self.template(&d.if_expr.template, depth + 1);
                        if let Some(e) = &d.else_expr {
                            let _ = write!(self.out, "else {:?} ", e.strip);
                            self.template(&e.template, depth + 1);
                        }
                        let _ = write!(self.out, "endif {:?};", d.endif_expr.strip);
                    }
                    Directive::For(d) => {
                        let f = &d.for_expr;
                        let _ = write!(
                            self.out,
                            "for {:?} {:?} {:?} ",
                            f.strip,
                            f.key_var.as_ref().map(|k| k.as_str().to_owned()),
                            f.value_var.as_str()
                        );
                        self.expr(&f.collection_expr, depth + 1);
                        self.template(&f.template, depth + 1);
                        let _ = write!(self.out, "endfor {:?};", d.endfor_expr.strip);
                    }
                },
            }
        }
        self.out.push('>');
    }

    fn expr(&mut self, e: &Expression, depth: usize) {
        if self.deep(depth) {
            return;
        }
        let d = depth + 1;
        match e {
            Expression::Null(_) => self.out.push_str("null"),
            Expression::Bool(b) => {
                let _ = write!(self.out, "{}", b.value());
            }
            Expression::Number(n) => {
                let _ = write!(self.out, "num({:?})", n.value());
            }
            Expression::String(s) => {
                let _ = write!(self.out, "<lit {:?};>", s.as_str());
            }
            Expression::Array(a) => {
                self.out.push('[');
                for v in a.iter() {
                    self.expr(v, d);
                    self.out.push(',');
                }
                self.out.push(']');
            }
            Expression::Object(o) => {
                self.out.push_str("obj{");
                for (k, v) in o.iter() {
                    match k {
                        ObjectKey::Ident(i) => {
                            let _ = write!(self.out, "key {:?}", i.as_str());
                        }
                        ObjectKey::Expression(k) => {
                            self.out.push_str("keyexpr ");
                            self.expr(k, d);
                        }
                    }
                    self.out.push_str(" => ");
                    self.expr(v.expr(), d);
                    self.out.push(',');
                }
                self.out.push('}');
            }
            Expression::StringTemplate(t) => self.template(t, d),
            Expression::HeredocTemplate(h) => {
                let _ = write!(
                    self.out,
                    "heredoc {:?} {:?} ",
                    h.delimiter.as_str(),
                    h.indent()
                );
                self.template(&h.template, d);
            }
            Expression::Parenthesis(p) => {
                self.out.push('(');
                self.expr(p.inner(), d);
                self.out.push(')');
            }
            Expression::Variable(v) => {
                let _ = write!(self.out, "var {:?}", v.as_str());
            }
            Expression::Conditional(c) => {
                self.out.push_str("cond(");
                self.expr(&c.cond_expr, d);
                self.out.push_str(" ? ");
                self.expr(&c.true_expr, d);
                self.out.push_str(" : ");
                self.expr(&c.false_expr, d);
                self.out.push(')');
            }
            Expression::FuncCall(f) => {
                self.out.push_str("call ");
                for ns in &f.name.namespace {
                    let _ = write!(self.out, "{:?}::", ns.as_str());
                }
                let _ = write!(self.out, "{:?}(", f.name.name.as_str());
                for a in f.args.iter() {
                    self.expr(a, d);
                    self.out.push(',');
                }
                let _ = write!(self.out, "expand={})", f.args.expand_final());
            }
            Expression::Traversal(t) => {
                self.out.push_str("trav(");
                self.expr(&t.expr, d);
                for op in &t.operators {
                    match op.value() {
                        TraversalOperator::AttrSplat(_) => self.out.push_str(".*"),
                        TraversalOperator::FullSplat(_) => self.out.push_str("[*]"),
                        TraversalOperator::GetAttr(i) => {
                            let _ = write!(self.out, ".{:?}", i.as_str());
                        }
                        TraversalOperator::Index(i) => {
                            self.out.push('[');
                            self.expr(i, d);
                            self.out.push(']');
                        }
                        TraversalOperator::LegacyIndex(i) => {
                            let _ = write!(self.out, ".{}", i.value());
                        }
                    }
                }
                self.out.push(')');
            }
            Expression::UnaryOp(u) => {
                let _ = write!(self.out, "unary({:?} ", u.operator.value());
                self.expr(&u.expr, d);
                self.out.push(')');
            }
            Expression::BinaryOp(b) => {
                self.out.push_str("binary(");
                self.expr(&b.lhs_expr, d);
                let _ = write!(self.out, " {:?} ", b.operator.value());
                self.expr(&b.rhs_expr, d);
                self.out.push(')');
            }
            Expression::ForExpr(f) => self.for_expr(f, d),
        }
    }

    fn for_expr(&mut self, f: &ForExpr, d: usize) {
        let _ = write!(
            self.out,
            "for({:?} {:?} in ",
            f.intro.key_var.as_ref().map(|k| k.as_str().to_owned()),
            f.intro.value_var.as_str()
        );
        self.expr(&f.intro.collection_expr, d);
        if let Some(k) = &f.key_expr {
            self.out.push_str(" key ");
            self.expr(k, d);
        }
        self.out.push_str(" value ");
        self.expr(&f.value_expr, d);
        let _ = write!(self.out, " group={}", f.grouping);
        if let Some(c) = &f.cond {
            self.out.push_str(" if ");
            self.expr(&c.expr, d);
        }
        self.out.push(')');
    }
}
