//! Bodies: attributes, blocks with their labels, the one-line block, and
//! the newline that ends each item.

use std::collections::HashMap;

use super::Parser;
use crate::ast::*;
use crate::lexer::{T, Token};

const NEEDS_EQUALS: &str = "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.";
const REQUIRED: &str = "An argument or block definition is required here.";
const UNCLOSED_BLOCK: &str = "There is no closing brace for this block before the end of the file. This may be caused by incorrect brace nesting elsewhere in this file.";

/// Attribute names seen in one body: a list while short, a map after.
#[derive(Default)]
struct Seen<'s> {
    list: Vec<(&'s str, usize)>,
    map: Option<HashMap<&'s str, usize>>,
}

impl<'s> Seen<'s> {
    /// The index of the earlier attribute of this name, or records this one.
    fn check(&mut self, name: &'s str, index: usize) -> Option<usize> {
        if let Some(m) = &mut self.map {
            return match m.get(name) {
                Some(&i) => Some(i),
                None => {
                    m.insert(name, index);
                    None
                }
            };
        }
        if let Some(&(_, i)) = self.list.iter().find(|(n, _)| *n == name) {
            return Some(i);
        }
        self.list.push((name, index));
        if self.list.len() > 16 {
            self.map = Some(self.list.drain(..).collect());
        }
        None
    }
}

impl Parser<'_> {
    /// The items of a body, up to and including the token `end` (the end of
    /// the file, or the `}` of a block).
    pub(super) fn body(&mut self, end: T) -> Vec<Structure> {
        let start = self.prev();
        let mark = self.structures.len();
        // Names are compared as texts of the file (the items own copies).
        let text = self.text;
        let mut seen = Seen::default();
        loop {
            let next = self.peek();
            if next.kind == end {
                self.read();
                break;
            }
            match next.kind {
                T::Newline => {
                    self.read();
                }
                T::Ident => {
                    let line = text[..next.start as usize].rfind('\n').map_or(0, |i| i + 1);
                    let outer = std::mem::replace(&mut self.item_indent, next.start - line as u32);
                    let item = self.body_item();
                    self.item_indent = outer;
                    let Some(item) = item else {
                        continue;
                    };
                    if let Structure::Attribute(a) = &item {
                        let name = a.name.span;
                        let name_text = &text[name.start as usize..name.end as usize];
                        if let Some(i) = seen.check(name_text, self.structures.len()) {
                            let Structure::Attribute(prev) = &self.structures[i] else {
                                continue;
                            };
                            let detail = format!(
                                "The argument \"{}\" was already set at {}. Each argument may be set only once.",
                                a.name.name,
                                self.sources.range_text(prev.name.span)
                            );
                            self.diags.push(
                                fnhcl_base::Diagnostic::error("Attribute redefined", detail)
                                    .with_span(name)
                                    .with_code(fnhcl_base::codes::DUPLICATE),
                            );
                            continue;
                        }
                    }
                    self.structures.push(item);
                }
                _ => {
                    let bad = self.read();
                    match bad.kind {
                        T::OQuote => self.error_once(
                            "Invalid argument name",
                            "Argument names must not be quoted.",
                            self.span(bad),
                        ),
                        T::Eof if end == T::CBrace => {
                            self.error_once(
                                "Unclosed configuration block",
                                UNCLOSED_BLOCK,
                                self.span(start),
                            );
                        }
                        T::Eof => self.error_once(
                            "Unclosed configuration body",
                            "Found end of file before the end of this configuration body.",
                            self.span(start),
                        ),
                        _ => self.error_once(
                            "Argument or block definition required",
                            REQUIRED,
                            self.span(bad),
                        ),
                    }
                    if bad.kind == T::Eof {
                        break;
                    }
                    // HCL skips to the end of the body; the rest of the
                    // line is enough, and keeps the items after it.
                    self.recover_after_body_item();
                }
            }
        }
        self.structures.drain(mark..).collect()
    }

    fn body_item(&mut self) -> Option<Structure> {
        let ident = self.read();
        let next = self.peek();
        match next.kind {
            T::Equal => Some(Structure::Attribute(self.attribute(ident, false))),
            T::OQuote | T::OBrace | T::Ident => Some(Structure::Block(self.block(ident))),
            _ => {
                self.not_an_item(ident, NEEDS_EQUALS);
                None
            }
        }
    }

    /// `name = expr` after the name; `single_line`: inside a one-line
    /// block (no newline after it).
    fn attribute(&mut self, ident: Token, single_line: bool) -> Attribute {
        self.read(); // `=`
        let name = self.ident(ident);
        let mark = self.diags.len();
        self.in_attribute += 1;
        let expr = self.root_expr();
        self.in_attribute -= 1;
        if self.recovery && self.failed_since(mark) {
            self.recover_after_body_item();
        } else if !single_line {
            let end = self.peek();
            if end.kind != T::Newline && end.kind != T::Eof {
                let (summary, detail) = if end.kind == T::Comma {
                    (
                        "Unexpected comma after argument",
                        "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
                    )
                } else {
                    (
                        "Missing newline after argument",
                        "An argument definition must end with a newline.",
                    )
                };
                self.error_once(summary, detail, self.span(end));
                self.recover_after_body_item();
            } else {
                self.read();
            }
        }
        let span = name.span.to(expr.span);
        Attribute { name, expr, span }
    }

    fn block(&mut self, ident_tok: Token) -> Block {
        let ident = self.ident(ident_tok);
        let mut labels = Vec::new();
        let open = loop {
            let t = self.peek();
            match t.kind {
                T::OBrace => break self.read(),
                T::OQuote => {
                    let (value, span) = self.quoted_string_literal();
                    labels.push(BlockLabel {
                        value,
                        quoted: true,
                        span,
                    });
                }
                T::Ident => {
                    self.read();
                    labels.push(BlockLabel {
                        value: t.text(self.text).to_owned(),
                        quoted: false,
                        span: self.span(t),
                    });
                }
                _ => {
                    match t.kind {
                        T::Equal => self.error(
                            "Invalid block definition",
                            "The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.",
                            self.span(t),
                        ),
                        T::Newline => self.error(
                            "Invalid block definition",
                            "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
                            self.span(t),
                        ),
                        _ => self.error_once(
                            "Invalid block definition",
                            "Either a quoted string block label or an opening brace (\"{\") is expected here.",
                            self.span(t),
                        ),
                    }
                    self.recover_after_body_item();
                    let header = labels.last().map_or(ident.span, |l: &BlockLabel| l.span);
                    let end = fnhcl_base::Span::empty_at(self.file, header.end as usize);
                    return Block {
                        span: ident.span.to(header),
                        open_brace: end,
                        ident,
                        labels,
                        body: Body {
                            items: Vec::new(),
                            span: end,
                        },
                    };
                }
            }
        };
        if !self.enter() {
            self.recover(T::CBrace);
            self.leave();
            let span = self.span(open);
            return Block {
                span: ident.span.to(span),
                open_brace: span,
                ident,
                labels,
                body: Body {
                    items: Vec::new(),
                    span,
                },
            };
        }
        let items = match self.peek().kind {
            T::Newline | T::Eof | T::CBrace => self.body(T::CBrace),
            _ => {
                let mark = self.diags.len();
                let attr = self.single_attribute_body();
                let inner: Vec<_> = self.diags.drain(mark..).collect();
                let next = self.peek();
                match next.kind {
                    T::CBrace => {
                        self.read();
                    }
                    T::Comma => {
                        self.error(
                            "Invalid single-argument block definition",
                            "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.",
                            self.span(next),
                        );
                        self.recover(T::CBrace);
                    }
                    T::Newline => {
                        self.error(
                            "Invalid single-argument block definition",
                            "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.",
                            self.span(next),
                        );
                        self.recover(T::CBrace);
                    }
                    _ => {
                        if next.kind == T::Eof {
                            self.error_once(
                                "Unclosed configuration block",
                                UNCLOSED_BLOCK,
                                self.span(open),
                            );
                        } else {
                            self.error_once(
                                "Invalid single-argument block definition",
                                "A single-line block definition must end with a closing brace immediately after its single argument definition.",
                                self.span(next),
                            );
                        }
                        self.recover(T::CBrace);
                    }
                }
                self.diags.extend(inner);
                attr.map(Structure::Attribute).into_iter().collect()
            }
        };
        self.leave();
        let close = self.prev();
        let eol = self.peek();
        if eol.kind == T::Newline || eol.kind == T::Eof {
            self.read();
        } else {
            self.error_once(
                "Missing newline after block definition",
                "A block definition must end with a newline.",
                self.span(eol),
            );
            self.recover_after_body_item();
        }
        let open_span = self.span(open);
        let body_span = open_span.to(self.span(close));
        Block {
            span: ident.span.to(body_span),
            ident,
            labels,
            body: Body {
                items,
                span: body_span,
            },
            open_brace: open_span,
        }
    }

    /// HCL's error for a body item that is neither an attribute nor a block,
    /// at `at`, after skipping to the end of the item.
    fn not_an_item(&mut self, at: Token, detail: &str) {
        self.recover_after_body_item();
        self.error(
            "Argument or block definition required",
            detail,
            self.span(at),
        );
    }

    /// The body of `name { attr = value }`: exactly one attribute.
    fn single_attribute_body(&mut self) -> Option<Attribute> {
        let ident = self.read();
        if ident.kind != T::Ident {
            self.not_an_item(ident, REQUIRED);
            return None;
        }
        let next = self.peek();
        match next.kind {
            T::Equal => Some(self.attribute(ident, true)),
            T::OQuote | T::OBrace | T::Ident => {
                self.recover_after_body_item();
                let name = ident.text(self.text);
                self.error(
                    "Argument definition required",
                    format!(
                        "A single-line block definition can contain only a single argument. If you meant to define argument \"{name}\", use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block."
                    ),
                    self.span(ident).to(self.span(next)),
                );
                None
            }
            _ => {
                self.not_an_item(ident, NEEDS_EQUALS);
                None
            }
        }
    }
}
