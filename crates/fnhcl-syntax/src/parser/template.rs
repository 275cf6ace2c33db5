//! Templates: quoted strings and heredocs, their escapes, interpolations
//! and `%{if}`/`%{for}` directives, then the strip markers and heredoc
//! indentation ([`crate::strip`]); block labels (quoted strings without
//! templates).

use std::sync::Arc;

use fnhcl_base::Span;

use super::Parser;
use crate::ast::*;
use crate::lexer::{T, Token};
use crate::strip::{self, Tok};

/// One piece of a template as read, before directives are matched.
enum Part {
    Lit(String),
    /// An interpolation with its `(${~, ~})` flags.
    Interp(Expr, (bool, bool)),
    If(Expr, (bool, bool), Span),
    For(Option<Ident>, Ident, Expr, (bool, bool), Span),
    /// `%{ else }`, `%{ endif }` or `%{ endfor }`.
    Close(Closer),
}

/// A template element with its directives matched, before strip markers
/// are applied.
enum Raw {
    Lit(String),
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

/// The template's pieces in source order, for the strip markers.
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

/// The AST template.
fn finish(raws: Vec<Raw>, heredoc: bool) -> Template {
    let parts = raws
        .into_iter()
        .map(|r| match r {
            Raw::Lit(s) => TemplatePart::Literal(Arc::from(s)),
            Raw::Interp(e, _) => TemplatePart::Interpolation(e),
            Raw::If {
                cond,
                then,
                otherwise,
                span,
                ..
            } => TemplatePart::If(Box::new(TemplateIf {
                cond,
                then: finish(then, heredoc),
                otherwise: otherwise.map(|(_, o)| finish(o, heredoc)),
                span,
            })),
            Raw::For {
                key_var,
                value_var,
                collection,
                body,
                span,
                ..
            } => TemplatePart::For(Box::new(TemplateFor {
                key_var,
                value_var,
                collection,
                body: finish(body, heredoc),
                span,
            })),
        })
        .collect();
    Template { parts, heredoc }
}

/// `c` quoted as Go's `%q` quotes it (HCL's wording of an escape's
/// selector): printable characters as they are, others escaped.
fn go_quoted(c: char) -> String {
    let escaped = match c {
        '"' => "\\\"".to_owned(),
        '\\' => "\\\\".to_owned(),
        '\u{7}' => "\\a".to_owned(),
        '\u{8}' => "\\b".to_owned(),
        '\u{c}' => "\\f".to_owned(),
        '\n' => "\\n".to_owned(),
        '\r' => "\\r".to_owned(),
        '\t' => "\\t".to_owned(),
        '\u{b}' => "\\v".to_owned(),
        c if go_printable(c) => c.to_string(),
        c if u32::from(c) < 0x20 || c == '\u{7f}' => format!("\\x{:02x}", u32::from(c)),
        c if u32::from(c) < 0x10000 => format!("\\u{:04x}", u32::from(c)),
        c => format!("\\U{:08x}", u32::from(c)),
    };
    format!("\"{escaped}\"")
}

/// Go's `strconv.IsPrint` for the characters Rust can tell: not a control,
/// not a space other than ` `, not a format character, not private use.
fn go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    let format = matches!(
        u32::from(c),
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e | 0x200b..=0x200f
            | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff | 0xfff9..=0xfffb
    );
    let private = matches!(u32::from(c), 0xe000..=0xf8ff | 0xf0000..);
    !(c.is_control() || c.is_whitespace() || format || private)
}

/// The first of `candidates` within an edit distance of 2 of `given`.
fn suggestion<'c>(given: &str, candidates: &[&'c str]) -> Option<&'c str> {
    candidates
        .iter()
        .copied()
        .find(|c| levenshtein(given, c) < 3)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Matches directives: the elements of one template level, as HCL's
/// template parser does (an unbalanced directive is reported and left out).
struct Matcher<'p, 'a> {
    p: &'p mut Parser<'a>,
    parts: std::vec::IntoIter<Part>,
    /// Where the template ends (its closing quote or marker).
    end: Span,
}

/// A directive that ends a part of a template, with its strip markers
/// and span.
enum Closer {
    Else((bool, bool), Span),
    EndIf((bool, bool), Span),
    EndFor((bool, bool), Span),
}

impl Closer {
    fn name_and_span(&self) -> (&'static str, Span) {
        match *self {
            Closer::Else(_, s) => ("else", s),
            Closer::EndIf(_, s) => ("endif", s),
            Closer::EndFor(_, s) => ("endfor", s),
        }
    }
}

impl Matcher<'_, '_> {
    /// The template's elements; a closing directive at this level closes
    /// nothing (reported, and left out).
    fn root(&mut self) -> Vec<Raw> {
        let mut out = Vec::new();
        while let Some(c) = self.until_closer(&mut out) {
            let (name, span) = c.name_and_span();
            self.p.error(
                &format!("Unexpected {name} directive"),
                "The control directives within this template are unbalanced.",
                span,
            );
        }
        out
    }

    /// One element; `Err` for a closing directive (not consumed further).
    fn element(&mut self, part: Part) -> Result<Option<Raw>, Closer> {
        Ok(Some(match part {
            Part::Lit(s) => Raw::Lit(s),
            Part::Interp(e, m) => Raw::Interp(e, m),
            Part::If(cond, m, span) => return Ok(self.if_directive(cond, m, span)),
            Part::For(k, v, c, m, span) => return Ok(self.for_directive(k, v, c, m, span)),
            Part::Close(c) => return Err(c),
        }))
    }

    /// Elements up to a closing directive (returned), or `None` at the end
    /// of the template.
    fn until_closer(&mut self, out: &mut Vec<Raw>) -> Option<Closer> {
        while let Some(part) = self.parts.next() {
            match self.element(part) {
                Ok(Some(r)) => out.push(r),
                Ok(None) => {}
                Err(c) => return Some(c),
            }
        }
        None
    }

    fn if_directive(&mut self, cond: Expr, open: (bool, bool), span: Span) -> Option<Raw> {
        let at = self.p.sources.range_text(span);
        let mut then = Vec::new();
        let mut otherwise: Option<((bool, bool), Vec<Raw>)> = None;
        loop {
            let target = match &mut otherwise {
                Some((_, o)) => o,
                None => &mut then,
            };
            match self.until_closer(target) {
                None => {
                    self.p.error(
                        "Unexpected end of template",
                        format!(
                            "The if directive at {at} is missing its corresponding endif directive."
                        ),
                        self.end,
                    );
                    return None;
                }
                Some(Closer::Else(m, s)) => {
                    if otherwise.is_none() {
                        otherwise = Some((m, Vec::new()));
                        continue;
                    }
                    self.p.error(
                        "Unexpected else directive",
                        format!("Already in the else clause for the if started at {at}."),
                        s,
                    );
                    return None;
                }
                Some(Closer::EndIf(m, s)) => {
                    return Some(Raw::If {
                        cond,
                        then,
                        otherwise,
                        marks: [open, m],
                        span: span.to(s),
                    });
                }
                Some(Closer::EndFor(_, s)) => {
                    self.p.error(
                        "Unexpected endfor directive",
                        format!("Expecting an endif directive for the if started at {at}."),
                        s,
                    );
                    return None;
                }
            }
        }
    }

    fn for_directive(
        &mut self,
        key_var: Option<Ident>,
        value_var: Ident,
        collection: Expr,
        open: (bool, bool),
        span: Span,
    ) -> Option<Raw> {
        let at = self.p.sources.range_text(span);
        let mut body = Vec::new();
        match self.until_closer(&mut body) {
            None => {
                self.p.error(
                    "Unexpected end of template",
                    format!(
                        "The for directive at {at} is missing its corresponding endfor directive."
                    ),
                    self.end,
                );
                None
            }
            Some(Closer::Else(_, s)) => {
                self.p.error(
                    "Unexpected else directive",
                    "An else clause is not expected for a for directive.",
                    s,
                );
                None
            }
            Some(Closer::EndFor(m, s)) => Some(Raw::For {
                key_var,
                value_var,
                collection,
                body,
                marks: [open, m],
                span: span.to(s),
            }),
            Some(Closer::EndIf(_, s)) => {
                self.p.error(
                    "Unexpected endif directive",
                    format!(
                        "Expecting an endfor directive corresponding to the for directive at {at}."
                    ),
                    s,
                );
                None
            }
        }
    }
}

impl Parser<'_> {
    /// A quoted template or a heredoc.
    pub(super) fn template_expr(&mut self) -> Expr {
        let open = self.read();
        let heredoc = open.kind == T::OHeredoc;
        let end_kind = if heredoc { T::CHeredoc } else { T::CQuote };
        // The common string: one literal without escapes.
        if !heredoc
            && let (Some(&lit), Some(&close)) =
                (self.toks.get(self.next), self.toks.get(self.next + 1))
            && lit.kind == T::QuotedLit
            && close.kind == T::CQuote
            && !lit.text(self.text).contains(['\\', '$', '%'])
        {
            self.next += 2;
            let text = self.text;
            let s = self.intern(lit.text(text));
            return Expr {
                kind: ExprKind::Template(Template {
                    parts: vec![TemplatePart::Literal(s)],
                    heredoc: false,
                }),
                span: self.span(open).to(self.span(close)),
            };
        }
        if !self.enter() {
            let close = self.recover(end_kind);
            self.leave();
            return self.placeholder(self.span(open).to(self.span(close)));
        }
        let flush = heredoc && open.text(self.text).starts_with("<<-");
        let (parts, end) = self.template_parts(end_kind);
        let close = self.prev();
        let mut raws = Matcher {
            end: self.span(end),
            parts: parts.into_iter(),
            p: self,
        }
        .root();
        self.leave();
        if raws.is_empty() && !heredoc {
            raws.push(Raw::Lit(String::new()));
        }
        let mut toks = Vec::new();
        collect(&mut raws, &mut toks);
        if heredoc {
            strip::strip_heredoc(&mut toks, flush);
        } else {
            strip::strip_quoted(&mut toks);
        }
        Expr {
            kind: ExprKind::Template(finish(raws, heredoc)),
            span: self.span(open).to(self.span(close)),
        }
    }

    /// The pieces of a template up to its closing token `end`, which is
    /// returned (or the token where the parse gave up).
    fn template_parts(&mut self, end: T) -> (Vec<Part>, Token) {
        let start = self.peek();
        let mut parts: Vec<Part> = Vec::new();
        loop {
            let next = self.read();
            if next.kind == end {
                return (parts, next);
            }
            match next.kind {
                T::QuotedLit | T::StringLit => {
                    let s = self.literal_text(next);
                    if let Some(Part::Lit(prev)) = parts.last_mut() {
                        prev.push_str(&s);
                    } else {
                        parts.push(Part::Lit(s));
                    }
                }
                T::TemplateInterp => {
                    let strip_start = next.len() == 3;
                    self.push_newlines(false);
                    let e = self.expression();
                    let close = self.peek();
                    let mut strip_end = false;
                    if close.kind != T::TemplateSeqEnd {
                        self.unclosed_interpolation(start, close, end);
                        // An interpolation of a quoted string left open
                        // (being typed): the string ends at the end of the
                        // line, and the lines after it still parse. (HCL
                        // skips to the next `}`.) Only forward: going back
                        // would read tokens again, once per enclosing
                        // template.
                        if end == T::CQuote
                            && let Some(k) = self.toks[self.next..]
                                .iter()
                                .position(|t| t.kind == T::Newline)
                                .map(|k| self.next + k)
                        {
                            self.recovery = true;
                            self.pop_newlines();
                            parts.push(Part::Interp(e, (strip_start, false)));
                            self.next = k;
                            return (parts, self.toks[k - 1]);
                        }
                        self.recover(T::TemplateSeqEnd);
                    } else {
                        self.read();
                        strip_end = close.len() == 2;
                    }
                    self.pop_newlines();
                    parts.push(Part::Interp(e, (strip_start, strip_end)));
                }
                T::TemplateControl => {
                    self.push_newlines(false);
                    if let Some(p) = self.directive(next) {
                        parts.push(p);
                    }
                    self.pop_newlines();
                }
                // The string ended at the end of its line (reported by the
                // lexer).
                T::QuotedNewline if next.is_empty() => return (parts, next),
                _ => {
                    self.error_once(
                        "Unterminated template string",
                        "No closing marker was found for the string.",
                        self.span(next),
                    );
                    let last = self.recover(end);
                    return (parts, last);
                }
            }
        }
    }

    fn unclosed_interpolation(&mut self, start: Token, close: Token, end: T) {
        match close.kind {
            T::Eof => self.error_once(
                "Unclosed template interpolation sequence",
                "There is no closing brace for this interpolation sequence before the end of the file. This might be caused by incorrect nesting inside the given expression.",
                self.span(start),
            ),
            T::Colon => self.error_once(
                "Extra characters after interpolation expression",
                "Template interpolation doesn't expect a colon at this location. Did you intend this to be a literal sequence to be processed as part of another language? If so, you can escape it by starting with \"$${\" instead of just \"${\".",
                self.span(close),
            ),
            T::CQuote | T::OQuote if end == T::CQuote => self.error_once(
                "Unclosed template interpolation sequence",
                "There is no closing brace for this interpolation sequence before the end of the quoted template. This might be caused by incorrect nesting inside the given expression.",
                self.span(start),
            ),
            _ => self.error_once(
                "Extra characters after interpolation expression",
                "Expected a closing brace to end the interpolation expression, but found extra characters.\n\nThis can happen when you include interpolation syntax for another language, such as shell scripting, but forget to escape the interpolation start token. If this is an embedded sequence for another language, escape it by starting with \"$${\" instead of just \"${\".",
                self.span(close),
            ),
        }
    }

    /// A `%{ … }` directive after its opener; `None` when it is broken
    /// (reported, and skipped to its end).
    fn directive(&mut self, opener: Token) -> Option<Part> {
        enum Dir {
            If(Expr),
            For(Option<Ident>, Ident, Expr),
            Else,
            EndIf,
            EndFor,
        }
        let strip_start = opener.len() == 3;
        let kw = self.peek();
        if kw.kind != T::Ident {
            self.error_once(
                "Invalid template directive",
                "A template directive keyword (\"if\", \"for\", etc) is expected at the beginning of a %{ sequence.",
                self.span(kw),
            );
            self.recover(T::TemplateSeqEnd);
            return None;
        }
        self.read();
        let word = kw.text(self.text);
        let dir = match word {
            "if" => Dir::If(self.expression()),
            "else" => Dir::Else,
            "endif" => Dir::EndIf,
            "endfor" => Dir::EndFor,
            "for" => match self.directive_for_vars() {
                Some((k, v, c)) => Dir::For(k, v, c),
                None => {
                    self.recover(T::TemplateSeqEnd);
                    return None;
                }
            },
            _ => {
                let hint = suggestion(word, &["if", "for", "else", "endif", "endfor"])
                    .map(|s| format!(" Did you mean \"{s}\"?"))
                    .unwrap_or_default();
                self.error_once(
                    "Invalid template control keyword",
                    format!("\"{word}\" is not a valid template control keyword.{hint}"),
                    self.span(kw),
                );
                self.recover(T::TemplateSeqEnd);
                return None;
            }
        };
        let span = self.span(opener).to(self.span(self.peek()));
        let close = self.peek();
        let mut strip_end = false;
        if close.kind != T::TemplateSeqEnd {
            self.error_once(
                &format!("Extra characters in {word} marker"),
                "Expected a closing brace to end the sequence, but found extra characters.",
                self.span(close),
            );
            self.recover(T::TemplateSeqEnd);
        } else {
            self.read();
            strip_end = close.len() == 2;
        }
        let m = (strip_start, strip_end);
        Some(match dir {
            Dir::If(cond) => Part::If(cond, m, span),
            Dir::For(k, v, c) => Part::For(k, v, c, m, span),
            Dir::Else => Part::Close(Closer::Else(m, span)),
            Dir::EndIf => Part::Close(Closer::EndIf(m, span)),
            Dir::EndFor => Part::Close(Closer::EndFor(m, span)),
        })
    }

    /// A literal token's text with its escapes applied (quoted strings:
    /// backslash escapes too), reporting invalid ones.
    fn literal_text(&mut self, t: Token) -> String {
        let text = self.text;
        let s = t.text(text);
        let quoted = t.kind == T::QuotedLit;
        if !s.contains(['\\', '$', '%']) {
            return s.to_owned();
        }
        let mut out = String::with_capacity(s.len());
        let base = t.start as usize;
        let b = s.as_bytes();
        let mut i = 0;
        while i < s.len() {
            let c = b[i];
            if c == b'\\' && quoted {
                let Some(sel) = s[i + 1..].chars().next() else {
                    self.error(
                        "Invalid escape sequence",
                        "Backslash must be followed by an escape sequence selector character.",
                        Span::new(self.file, base + i, base + i + 1),
                    );
                    i += 1;
                    continue;
                };
                let after = i + 1 + sel.len_utf8();
                match sel {
                    'n' => out.push('\n'),
                    'r' => out.push('\r'),
                    't' => out.push('\t'),
                    '"' => out.push('"'),
                    '\\' => out.push('\\'),
                    'u' | 'U' => {
                        let want = if sel == 'u' { 4 } else { 8 };
                        let hex = b[after..]
                            .iter()
                            .take(want)
                            .take_while(|c| c.is_ascii_hexdigit())
                            .count();
                        let end = after + hex;
                        let span = Span::new(self.file, base + i, base + end);
                        if hex != want {
                            let detail = if sel == 'u' {
                                "The \\u escape sequence must be followed by four hexadecimal digits."
                            } else {
                                "The \\U escape sequence must be followed by eight hexadecimal digits."
                            };
                            self.error("Invalid escape sequence", detail, span);
                        } else {
                            let n = u32::from_str_radix(&s[after..end], 16).unwrap_or(u32::MAX);
                            match char::from_u32(n) {
                                Some(ch) => out.push(ch),
                                None => self.error(
                                    "Invalid escape sequence",
                                    format!("Cannot encode character U+{n:04x} in UTF-8."),
                                    span,
                                ),
                            }
                        }
                        i = end;
                        continue;
                    }
                    other => {
                        self.error(
                            "Invalid escape sequence",
                            format!(
                                "The symbol {} is not a valid escape sequence selector.",
                                go_quoted(other)
                            ),
                            Span::new(self.file, base + i, base + after),
                        );
                        out.push(other);
                    }
                }
                i = after;
                continue;
            }
            if (c == b'$' || c == b'%') && b.get(i + 1) == Some(&c) && b.get(i + 2) == Some(&b'{') {
                out.push(char::from(c));
                out.push('{');
                i += 3;
                continue;
            }
            let ch = s[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
        out
    }

    /// A quoted string without templates (a block label): its value and
    /// span, quotes included.
    pub(super) fn quoted_string_literal(&mut self) -> (String, Span) {
        let open = self.read();
        let mut value = String::new();
        let end = loop {
            let t = self.read();
            match t.kind {
                T::CQuote => break t,
                T::QuotedNewline if t.is_empty() => break t,
                T::QuotedLit => {
                    let s = self.literal_text(t);
                    value.push_str(&s);
                }
                T::TemplateInterp | T::TemplateControl => {
                    let which = if t.kind == T::TemplateControl {
                        '%'
                    } else {
                        '$'
                    };
                    self.error(
                        "Invalid string literal",
                        format!(
                            "Template sequences are not allowed in this string. To include a literal \"{which}\", double it (as \"{which}{which}\") to escape it."
                        ),
                        self.span(t),
                    );
                    value.push(which);
                    value.push_str("{ ... }");
                    self.recover(T::TemplateSeqEnd);
                }
                T::Eof => {
                    self.error(
                        "Unterminated string literal",
                        "Unable to find the closing quote mark before the end of the file.",
                        self.span(t),
                    );
                    break t;
                }
                _ => {
                    self.error(
                        "Invalid string literal",
                        "This item is not valid in a string literal.",
                        self.span(t),
                    );
                    self.recover(T::CQuote);
                    break t;
                }
            }
        };
        (value, self.span(open).to(self.span(end)))
    }
}

#[cfg(test)]
mod tests {
    use super::go_quoted;

    #[test]
    fn selectors_are_quoted_as_go_quotes_them() {
        for (c, want) in [
            ('q', r#""q""#),
            ('\'', r#""'""#),
            ('"', r#""\"""#),
            ('é', r#""é""#),
            ('\t', r#""\t""#),
            ('\u{a0}', r#""\u00a0""#),
            ('\u{200b}', r#""\u200b""#),
            ('\u{1}', r#""\x01""#),
        ] {
            assert_eq!(go_quoted(c), want, "{c:?}");
        }
    }
}
