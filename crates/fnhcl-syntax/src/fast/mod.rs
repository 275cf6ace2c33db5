//! Our own parser for the fast path: a scanner ([`lexer`]) and a
//! recursive-descent parser ([`expr`], [`template`], [`body`]) that build
//! the [`crate::ast`] directly, without hcl-edit's tree.
//!
//! The contract (docs/notes/parser.md): when this parser accepts a text,
//! the hcl-edit path accepts it too and gives exactly the same AST (spans
//! included). Whenever it meets anything it is not sure of (an error, a
//! construct hcl-edit reads in a surprising way, a limit), it gives up
//! ([`Bail`]) and the caller parses the text again with hcl-edit, which
//! produces every diagnostic. It follows hcl-edit's grammar (whitespace,
//! newlines, comments, precedence), not HCL's, where the two differ: the
//! AST must not depend on which parser ran.

mod body;
mod expr;
mod lexer;
mod template;
mod traversal;

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use fnhcl_base::{FileId, Span};

use crate::ast;

/// The fast path gave up; parse with hcl-edit instead.
#[derive(Debug)]
pub(crate) struct Bail;

pub(crate) type R<T> = Result<T, Bail>;

/// Deepest nesting of expressions, templates and blocks accepted (counted
/// at least as often as hcl-edit counts its levels, whose limit is 64).
const MAX_DEPTH: usize = 40;

/// Most binary operators in one attribute's expression (hcl-edit refuses
/// more than 128 on one path of the tree).
const MAX_OPERATORS: usize = 100;

/// Longest traversal (the converter reports more than 128 steps).
const MAX_TRAVERSAL_STEPS: usize = 128;

pub(crate) struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    /// Where the text ends for the parse in progress (the end of a
    /// heredoc's content while it is parsed).
    end: usize,
    /// `end` is a heredoc's end: the text goes on after it.
    in_heredoc: bool,
    file: FileId,
    depth: usize,
    /// Binary operators in the current root expression.
    operators: usize,
    /// Open quoted templates (a newline inside one is not accepted).
    quoted: u32,
    /// One shared string per distinct name, number or short plain string
    /// (a program repeats a few hundred of them thousands of times).
    strings: HashMap<&'a str, Arc<str>, BuildHasherDefault<WordHash>>,
    /// The items of the bodies and objects being parsed, innermost last:
    /// each list is built here and moved out in one allocation of its
    /// exact size (no growth, no shrink).
    structures: Vec<ast::Structure>,
    object_items: Vec<ast::ObjectItem>,
    /// The same for tuple items and call arguments.
    exprs: Vec<ast::Expr>,
    /// The steps of the traversal being parsed.
    steps: Vec<traversal::Step>,
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

/// Most room made up front for shared strings: one per 16 bytes of text
/// up to this many (a file of a typical program holds a few hundred
/// distinct ones; the table starts large instead of growing).
const STRINGS_CAPACITY: usize = 256;

/// Longest text shared through [`Parser::intern`].
const MAX_INTERNED: usize = 64;

/// Parses a whole file as a body, or gives up.
pub(crate) fn parse_body(file: FileId, text: &str) -> Option<ast::Body> {
    let mut p = Parser::new(file, text)?;
    let items = p.body().ok()?;
    if p.pos != text.len() {
        return None;
    }
    Some(ast::Body {
        items,
        span: Span::new(file, 0, text.len()),
    })
}

/// Parses a whole file as one expression (blanks and comments around it
/// allowed), or gives up.
pub(crate) fn parse_expr(file: FileId, text: &str) -> Option<ast::Expr> {
    let mut p = Parser::new(file, text)?;
    let lead = text.len() - text.trim_start().len();
    let end = text.trim_end().len();
    if lead >= end {
        return None;
    }
    // hcl-edit's last attempt (see `crate::parse_expr`) reads the text,
    // with the newline after it, inside parentheses.
    let rest = &text[end..];
    let stop = end + usize::from(rest.starts_with('\n'));
    p.pos = lead;
    p.end = stop;
    let e = p.expr(true).ok()?;
    p.ws().ok()?;
    (p.pos == stop).then_some(e)
}

impl<'a> Parser<'a> {
    fn new(file: FileId, text: &'a str) -> Option<Parser<'a>> {
        // Carriage returns: hcl-edit and HCL differ on them; left to the
        // hcl-edit path and its checks.
        if text.len() > crate::errors::MAX_FILE_BYTES
            || memchr::memchr(b'\r', text.as_bytes()).is_some()
        {
            return None;
        }
        Some(Parser {
            text,
            b: text.as_bytes(),
            pos: 0,
            end: text.len(),
            in_heredoc: false,
            file,
            depth: 0,
            operators: 0,
            quoted: 0,
            strings: HashMap::with_capacity_and_hasher(
                (text.len() / 16).min(STRINGS_CAPACITY),
                Default::default(),
            ),
            structures: Vec::new(),
            object_items: Vec::new(),
            exprs: Vec::new(),
            steps: Vec::new(),
        })
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

    /// The source text from `start` to the current position, shared.
    fn interned(&mut self, start: usize) -> Arc<str> {
        let text = self.text;
        self.intern(&text[start..self.pos])
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// One nesting level deeper; [`Self::leave`] undoes it.
    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Bail);
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}
