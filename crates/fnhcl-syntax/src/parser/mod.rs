//! The one parser of HCL native syntax: tokens ([`crate::lexer`]) to the
//! spanned AST ([`crate::ast`]), recovering from errors.
//!
//! It follows hashicorp/hcl's `hclsyntax` parser: the same grammar (which
//! newlines count where, precedence, the one-line block), the same
//! recovery (skip to the bracket that closes the construct, or to the end
//! of the body item) and the same diagnostics, worded and placed as HCL's
//! (the `tests/parse_errors` corpus holds HCL's answers). Once it has had
//! to recover it stays in recovery mode, as HCL's does, and stops
//! reporting the errors that are likely consequences of the first. Where
//! HCL's recovery would drop the rest of a file being typed, ours stops
//! sooner (at the end of a line; docs/notes/parser.md): HCL's first error
//! is the same either way. It never fails: every text gives a tree (with
//! placeholders where parts were missing) and the errors found.

mod body;
mod expr;
mod template;
mod traversal;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use fnhcl_base::{Diagnostic, FileId, SourceMap, Span, codes};

use crate::ast;
use crate::lexer::{T, Token};

/// Deepest nesting of expressions, templates and blocks (each level is a
/// few frames of the parser's recursion, and the evaluator's).
const MAX_DEPTH: usize = 64;

/// Most binary operators in one attribute's expression (a chain of them
/// is as deep as it is long).
const MAX_OPERATORS: usize = 128;

/// Longest run of traversal steps (each one nests the expression).
const MAX_TRAVERSAL_STEPS: usize = 128;

/// Largest source file parsed (bytes).
pub(crate) const MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

/// A syntax error, with its code.
pub(crate) fn syntax_error(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
    Diagnostic::error(summary, detail).with_code(codes::SYNTAX)
}

pub(crate) struct Parser<'a> {
    sources: &'a SourceMap,
    text: &'a str,
    file: FileId,
    toks: &'a [Token],
    /// The index of the next token to read (HCL's peeker).
    next: usize,
    /// Whether newlines are tokens here, innermost last.
    newlines: Vec<bool>,
    /// Set once the parser has recovered from an error.
    recovery: bool,
    diags: Vec<Diagnostic>,
    depth: usize,
    /// Attribute values being parsed (nested through one-line blocks).
    in_attribute: usize,
    /// How far the current body item is indented (bytes from its line's
    /// start).
    item_indent: u32,
    /// Binary operators in the current attribute's expression.
    operators: usize,
    /// One shared string per distinct short name, number or string.
    strings: HashMap<&'a str, Arc<str>, BuildHasherDefault<WordHash>>,
    /// The items of the lists being parsed, innermost last: each list is
    /// built here and moved out in one allocation of its exact size.
    structures: Vec<ast::Structure>,
    object_items: Vec<ast::ObjectItem>,
    exprs: Vec<ast::Expr>,
}

/// Parses a whole file as a body: the tree (partial where there are
/// errors) and the errors, lexical ones first.
pub(crate) fn parse_file(sources: &SourceMap, file: FileId) -> (ast::Body, Vec<Diagnostic>) {
    let text = &*sources.get(file).text;
    let whole = Span::new(file, 0, text.len());
    if let Some(d) = too_large(file, text) {
        return (
            ast::Body {
                items: Vec::new(),
                span: whole,
            },
            vec![d],
        );
    }
    let mut toks = crate::lexer::lex(text);
    let lexical = crate::lexer::invalid_tokens(file, text, &toks);
    grammar_tokens(text, &mut toks);
    let mut p = Parser::new(sources, file, &toks);
    let items = p.body(T::Eof);
    let diags = merge(lexical, p.diags);
    (ast::Body { items, span: whole }, diags)
}

/// Parses a whole file as one expression, newlines ignored as inside
/// parentheses.
pub(crate) fn parse_expr(
    sources: &SourceMap,
    file: FileId,
) -> (Option<ast::Expr>, Vec<Diagnostic>) {
    let text = &*sources.get(file).text;
    if let Some(d) = too_large(file, text) {
        return (None, vec![d]);
    }
    let mut toks = crate::lexer::lex_expr(text);
    let lexical = crate::lexer::invalid_tokens(file, text, &toks);
    grammar_tokens(text, &mut toks);
    let mut p = Parser::new(sources, file, &toks);
    p.newlines.push(false);
    let e = p.root_expr();
    let next = p.peek();
    if next.kind != T::Eof && !p.recovery {
        p.error(
            "Extra characters after expression",
            "An expression was successfully parsed, but extra characters were found after it.",
            p.span(next),
        );
    }
    let diags = merge(lexical, p.diags);
    (Some(e), diags)
}

/// The tokens as the grammar reads them (HCL's peeker): without comments,
/// but a line comment, which holds the newline ending it, is that newline
/// (with the comment's range).
fn grammar_tokens(text: &str, toks: &mut Vec<Token>) {
    let b = text.as_bytes();
    toks.retain_mut(|t| {
        if t.kind != T::Comment {
            return true;
        }
        let line = b[t.start as usize] == b'#' || b.get(t.start as usize + 1) == Some(&b'/');
        if line && b[t.end as usize - 1] == b'\n' {
            t.kind = T::Newline;
            return true;
        }
        false
    });
}

/// The lexical errors, then the parser's, but those the parser found
/// where a lexical error is (an invalid character is also a token the
/// grammar does not expect: one error is enough).
fn merge(mut lexical: Vec<Diagnostic>, parsed: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut at: Vec<u32> = lexical
        .iter()
        .filter_map(|d| d.primary.map(|s| s.start))
        .collect();
    at.sort_unstable();
    lexical.extend(parsed.into_iter().filter(|d| {
        d.primary
            .is_none_or(|s| at.binary_search(&s.start).is_err())
    }));
    lexical
}

fn too_large(file: FileId, text: &str) -> Option<Diagnostic> {
    (text.len() > MAX_FILE_BYTES).then(|| {
        syntax_error(
            "Source file too large",
            format!(
                "The file is {} bytes long; at most {MAX_FILE_BYTES} bytes are supported.",
                text.len()
            ),
        )
        .with_span(Span::new(file, 0, 0))
    })
}

impl<'a> Parser<'a> {
    fn new(sources: &'a SourceMap, file: FileId, toks: &'a [Token]) -> Parser<'a> {
        let text = &*sources.get(file).text;
        Parser {
            sources,
            text,
            file,
            toks,
            next: 0,
            newlines: vec![true],
            recovery: false,
            diags: Vec::new(),
            depth: 0,
            in_attribute: 0,
            item_indent: 0,
            operators: 0,
            strings: HashMap::with_capacity_and_hasher(
                (text.len() / 16).min(STRINGS_CAPACITY),
                Default::default(),
            ),
            structures: Vec::new(),
            object_items: Vec::new(),
            exprs: Vec::new(),
        }
    }

    // ---- the peeker ----

    /// The next token the grammar sees, and the index after it: newlines
    /// are skipped where they do not count.
    #[inline]
    fn next_token(&self) -> (Token, usize) {
        let mut i = self.next;
        let last = self.toks.len() - 1;
        while i < last {
            let t = self.toks[i];
            if t.kind != T::Newline || self.newlines.last().copied().unwrap_or(true) {
                return (t, i + 1);
            }
            i += 1;
        }
        (self.toks[last], self.toks.len())
    }

    fn peek(&self) -> Token {
        self.next_token().0
    }

    fn read(&mut self) -> Token {
        let (t, i) = self.next_token();
        self.next = i;
        t
    }

    /// The token read last (the first one if none was read).
    fn prev(&self) -> Token {
        if self.next == 0 {
            return self.peek();
        }
        self.toks[self.next - 1]
    }

    fn push_newlines(&mut self, include: bool) {
        self.newlines.push(include);
    }

    fn pop_newlines(&mut self) {
        self.newlines.pop();
    }

    // ---- recovery ----

    /// Skips to the token `end` (counting nested brackets of its kind) and
    /// returns it, or the end of the file.
    fn recover(&mut self, end: T) -> Token {
        let by_lines = self.in_attribute > 0 && matches!(end, T::CParen | T::CBrack | T::CBrace);
        self.recover_with(end, by_lines)
    }

    /// Where HCL's recovery to `end` would stop, without moving (HCL
    /// reports some errors there).
    fn hcl_recovery_stop(&mut self, end: T) -> Token {
        let (next, recovery) = (self.next, self.recovery);
        let t = self.recover_with(end, false);
        (self.next, self.recovery) = (next, recovery);
        t
    }

    fn recover_with(&mut self, end: T, by_lines: bool) -> Token {
        let start = end.opposite();
        self.recovery = true;
        let mut nest = 0usize;
        loop {
            if by_lines && let Some(at) = self.next_item_line() {
                self.next = at;
                return self.prev();
            }
            let t = self.read();
            let mut kind = t.kind;
            if end == T::TemplateSeqEnd && kind == T::TemplateControl {
                kind = T::TemplateInterp;
            }
            if Some(kind) == start {
                nest += 1;
            } else if kind == end {
                if nest == 0 {
                    return t;
                }
                nest -= 1;
            } else if kind == T::Eof {
                return t;
            }
        }
    }

    /// Whether the next raw token is a newline before a line that starts a
    /// body item at most as indented as the current one (or closes the
    /// block around it): an attribute's unclosed bracket does not swallow
    /// the items after it (HCL's recovery skips to the bracket, often the
    /// end of the file; editors need the rest). Returns where to stop.
    fn next_item_line(&self) -> Option<usize> {
        self.item_line_at(self.next)
    }

    /// [`Self::next_item_line`] for the raw token at `at`.
    fn item_line_at(&self, at: usize) -> Option<usize> {
        if self.toks.get(at)?.kind != T::Newline {
            return None;
        }
        let k = at + self.toks[at..].iter().position(|t| t.kind != T::Newline)?;
        let (t, before) = (self.toks[k], self.toks[k - 1]);
        let indent = t.start.checked_sub(before.end)?;
        let starts_item = t.kind == T::Ident
            && matches!(
                self.toks.get(k + 1).map(|n| n.kind),
                Some(T::Equal | T::OBrace | T::OQuote | T::Ident)
            )
            && indent <= self.item_indent;
        let closes_block = t.kind == T::CBrace && indent < self.item_indent;
        (starts_item || closes_block).then_some(at)
    }

    /// Skips to the next `start` bracket, then past the one closing it.
    fn recover_over(&mut self, start: T) {
        loop {
            let t = self.read();
            if t.kind == start || t.kind == T::Eof {
                break;
            }
        }
        if let Some(end) = start.opposite() {
            self.recover(end);
        }
    }

    /// Skips to the newline ending the current body item (outside any
    /// bracket opened after it).
    fn recover_after_body_item(&mut self) {
        self.recovery = true;
        let mut open: Vec<T> = Vec::new();
        loop {
            let t = self.read();
            match t.kind {
                T::Newline if open.is_empty() => break,
                T::Eof => break,
                T::OBrace
                | T::OBrack
                | T::OParen
                | T::OQuote
                | T::OHeredoc
                | T::TemplateInterp
                | T::TemplateControl => open.push(t.kind),
                T::CBrace | T::CBrack | T::CParen | T::CQuote | T::CHeredoc => {
                    let opener = t.kind.opposite();
                    while open.last().is_some_and(|&o| Some(o) != opener) {
                        open.pop();
                    }
                    open.pop();
                }
                T::TemplateSeqEnd => {
                    while open
                        .last()
                        .is_some_and(|&o| o != T::TemplateInterp && o != T::TemplateControl)
                    {
                        open.pop();
                    }
                    open.pop();
                }
                _ => {}
            }
        }
    }

    // ---- diagnostics and helpers ----

    fn span(&self, t: Token) -> Span {
        Span::new(self.file, t.start as usize, t.end as usize)
    }

    fn error(&mut self, summary: &str, detail: impl Into<String>, at: Span) {
        self.diags
            .push(syntax_error(summary.to_owned(), detail).with_span(at));
    }

    /// [`Parser::error`], unless the parser is recovering from an earlier
    /// error: as in HCL, what follows the first error in a construct is
    /// mostly its consequence, and is not reported.
    fn error_once(&mut self, summary: &str, detail: impl Into<String>, at: Span) {
        if !self.recovery {
            self.error(summary, detail, at);
        }
    }

    /// Whether errors were reported since `mark` (a length of `diags`).
    fn failed_since(&self, mark: usize) -> bool {
        self.diags.len() > mark
    }

    /// One nesting level deeper; `false` (reported once) past the limit.
    fn enter(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            self.error_once(
                "Nesting too deep",
                format!(
                    "Expressions, templates and blocks are nested more than {MAX_DEPTH} levels deep."
                ),
                self.span(self.peek()),
            );
            self.recovery = true;
            return false;
        }
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `s` as a shared string (the same allocation for equal short texts).
    fn intern(&mut self, s: &'a str) -> Arc<str> {
        if s.len() > MAX_INTERNED {
            return Arc::from(s);
        }
        self.strings
            .entry(s)
            .or_insert_with(|| Arc::from(s))
            .clone()
    }

    fn ident(&mut self, t: Token) -> ast::Ident {
        let text = self.text;
        ast::Ident {
            name: self.intern(t.text(text)),
            span: self.span(t),
        }
    }

    fn is_keyword(&self, t: Token, word: &str) -> bool {
        t.kind == T::Ident && t.text(self.text) == word
    }
}

/// A multiply-rotate hash over eight bytes at a time (the shape of
/// rustc's FxHash): short keys, no untrusted-collision concern worth
/// SipHash's cost (a file is at most 16 MiB and the map only saves
/// allocations).
#[derive(Default)]
struct WordHash(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl WordHash {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for WordHash {
    fn finish(&self) -> u64 {
        // The well-mixed high bits down to where the table's index is.
        self.0.rotate_left(26)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        self.add(u64::from_le_bytes(w) ^ ((rest.len() as u64) << 59));
    }

    fn write_u8(&mut self, b: u8) {
        self.add(u64::from(b));
    }
}

/// Most room made up front for shared strings.
const STRINGS_CAPACITY: usize = 256;

/// Longest text shared through [`Parser::intern`].
const MAX_INTERNED: usize = 64;
