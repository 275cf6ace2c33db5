//! The shape of the program: document symbols (the block tree of a file),
//! workspace symbols (named things across the program) and folding ranges.

use fnhcl_base::{FileId, Span};
use fnhcl_syntax::ast::{Block, Body, Expr, ExprKind, Structure};
use fnhcl_syntax::visit::{Visitor, walk_expr};

use crate::Snapshot;
use crate::resolve::{DefKind, label_value_span};

/// What a symbol is (the LSP layer picks the editor's icon).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    /// A `resource` block.
    Resource,
    /// A `resources` block.
    Collection,
    /// A `function` block.
    Function,
    /// An `arg` block.
    Arg,
    /// An attribute of a `locals` block.
    Local,
    /// A `module` instance.
    Module,
    /// Any other block.
    Block,
    /// An attribute of a block (`body`, `for_each`, `condition`, ...).
    Attribute,
}

/// One entry of the outline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    /// The block type for a labelled block (`resource`), else empty.
    pub detail: String,
    pub kind: SymbolKind,
    /// The whole block or attribute.
    pub span: Span,
    /// The name to select (a label, an attribute name, a block type).
    pub selection: Span,
    pub children: Vec<Symbol>,
}

/// The outline of one file: its blocks, nested, with the locals of
/// `locals` blocks and the attributes of the other blocks.
pub fn document_symbols(snapshot: &Snapshot, file: FileId) -> Vec<Symbol> {
    body_symbols(&snapshot.parse(file).0, 0)
}

const MAX_DEPTH: usize = 64;

fn body_symbols(body: &Body, depth: usize) -> Vec<Symbol> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    body.items
        .iter()
        .map(|s| match s {
            Structure::Attribute(a) => Symbol {
                name: a.name.name.to_string(),
                detail: String::new(),
                kind: SymbolKind::Attribute,
                span: a.span,
                selection: a.name.span,
                children: Vec::new(),
            },
            Structure::Block(b) => block_symbol(b, depth),
        })
        .collect()
}

fn block_symbol(b: &Block, depth: usize) -> Symbol {
    let ident = &*b.ident.name;
    let kind = match ident {
        "resource" => SymbolKind::Resource,
        "resources" => SymbolKind::Collection,
        "function" => SymbolKind::Function,
        "arg" => SymbolKind::Arg,
        "module" => SymbolKind::Module,
        _ => SymbolKind::Block,
    };
    let mut children = body_symbols(&b.body, depth + 1);
    if ident == "locals" {
        for c in &mut children {
            if c.kind == SymbolKind::Attribute {
                c.kind = SymbolKind::Local;
            }
        }
    }
    let (name, detail, selection) = match b.labels.as_slice() {
        [] => (ident.to_owned(), String::new(), b.ident.span),
        labels => (
            labels
                .iter()
                .map(|l| l.value.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            ident.to_owned(),
            label_value_span(labels.last().unwrap_or(&labels[0])),
        ),
    };
    Symbol {
        name: if name.is_empty() {
            ident.to_owned()
        } else {
            name
        },
        detail,
        kind,
        span: b.span,
        selection,
        children,
    }
}

/// A named thing of the program for a workspace-wide search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: SymbolKind,
    pub span: Span,
}

/// The resources, collections, user functions and locals of the program
/// whose names match `query` (case-insensitive, its characters in order;
/// an empty query matches everything), best matches first.
pub fn workspace_symbols(snapshot: &Snapshot, query: &str) -> Vec<WorkspaceSymbol> {
    let index = snapshot.index();
    let mut out: Vec<(u32, WorkspaceSymbol)> = index
        .defs
        .iter()
        .filter_map(|d| {
            let kind = match d.kind {
                DefKind::Resource => SymbolKind::Resource,
                DefKind::Collection => SymbolKind::Collection,
                DefKind::Function => SymbolKind::Function,
                DefKind::Local => SymbolKind::Local,
                DefKind::Instance => SymbolKind::Module,
                DefKind::Requirement | DefKind::Switch => SymbolKind::Block,
                DefKind::Param => SymbolKind::Arg,
                DefKind::Arg | DefKind::ForVar => return None,
            };
            let score = fuzzy_score(&d.name, query)?;
            Some((
                score,
                WorkspaceSymbol {
                    name: d.name.clone(),
                    kind,
                    span: d.span,
                },
            ))
        })
        .collect();
    out.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| a.1.name.cmp(&b.1.name))
            .then_with(|| (a.1.span.file.0, a.1.span.start).cmp(&(b.1.span.file.0, b.1.span.start)))
    });
    out.into_iter().map(|(_, s)| s).collect()
}

/// Lower is better; `None` when `query`'s characters do not all appear in
/// `name` in order. Exact matches, then prefixes, then substrings, then the
/// rest.
fn fuzzy_score(name: &str, query: &str) -> Option<u32> {
    let n = name.to_lowercase();
    let q = query.to_lowercase();
    if q.is_empty() {
        return Some(3);
    }
    if n == q {
        return Some(0);
    }
    if n.starts_with(&q) {
        return Some(1);
    }
    if n.contains(&q) {
        return Some(2);
    }
    let mut chars = n.chars();
    q.chars().all(|c| chars.any(|x| x == c)).then_some(4)
}

/// What a folding range holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldKind {
    /// A block, a multi-line object, list, call or heredoc.
    Region,
    /// A run of comment lines or a multi-line block comment.
    Comment,
}

/// A foldable region: from the line of `span.start` to the line of
/// `span.end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub span: Span,
    pub kind: FoldKind,
}

/// The folding ranges of a file, spanning more than one line each, sorted.
pub fn folding_ranges(snapshot: &Snapshot, file: FileId) -> Vec<Fold> {
    let f = snapshot.sources().get(file);
    let mut spans: Vec<Span> = Vec::new();
    fold_body(&snapshot.parse(file).0, &mut spans, 0);
    let mut out: Vec<Fold> = spans
        .into_iter()
        .map(|span| Fold {
            span,
            kind: FoldKind::Region,
        })
        .collect();
    out.extend(comment_runs(file, &f.text).into_iter().map(|span| Fold {
        span,
        kind: FoldKind::Comment,
    }));
    let line = |o: u32| f.line_col(o).line;
    out.retain(|x| line(x.span.start) < line(x.span.end));
    out.sort_by_key(|x| (x.span.start, std::cmp::Reverse(x.span.end)));
    out.dedup_by_key(|x| (line(x.span.start), line(x.span.end)));
    out
}

fn fold_body(body: &Body, out: &mut Vec<Span>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    for s in &body.items {
        match s {
            Structure::Attribute(a) => fold_expr(&a.expr, out),
            Structure::Block(b) => {
                out.push(b.span);
                fold_body(&b.body, out, depth + 1);
            }
        }
    }
}

/// Multi-line expressions fold: objects, tuples, calls, `for`s, heredocs.
fn fold_expr(e: &Expr, out: &mut Vec<Span>) {
    struct Folds<'o>(&'o mut Vec<Span>);
    impl Visitor<'_> for Folds<'_> {
        fn enter(&mut self, e: &Expr) -> bool {
            let folds = match &e.kind {
                ExprKind::Object(_)
                | ExprKind::Tuple(_)
                | ExprKind::FuncCall { .. }
                | ExprKind::For(_) => true,
                ExprKind::Template(t) => t.heredoc,
                _ => false,
            };
            if folds {
                self.0.push(e.span);
            }
            true
        }
    }
    walk_expr(&mut Folds(out), e);
}

/// The comments of a file: `#` and `//` line comments (without their
/// newline) and `/* */` block comments, skipping strings and heredocs.
/// From the lexer, so this works on text that does not parse.
pub(crate) fn comments(file: FileId, text: &str) -> Vec<Span> {
    crate::lex::tokenize(text)
        .into_iter()
        .filter(|t| t.kind == crate::lex::T::Comment)
        .map(|t| Span::new(file, t.start as usize, t.end as usize))
        .collect()
}

/// Runs of line comments on consecutive lines with nothing else on them,
/// and block comments.
fn comment_runs(file: FileId, text: &str) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    let mut run: Option<(Span, usize)> = None; // (span so far, its last line)
    // Comments come in order: count lines incrementally.
    let (mut counted_to, mut lines) = (0usize, 0usize);
    let mut line_of = |o: u32| {
        lines += text[counted_to..o as usize].matches('\n').count();
        counted_to = o as usize;
        lines
    };
    for c in comments(file, text) {
        let own_line = text[..c.start as usize]
            .rsplit('\n')
            .next()
            .is_some_and(|before| before.trim().is_empty());
        let is_block = text[c.start as usize..].starts_with("/*");
        if is_block || !own_line {
            if is_block {
                out.push(c);
            }
            out.extend(run.take().map(|(s, _)| s));
            continue;
        }
        let line = line_of(c.start);
        run = match run {
            Some((s, last)) if last + 1 == line => Some((s.to(c), line)),
            prev => {
                out.extend(prev.map(|(s, _)| s));
                Some((c, line))
            }
        };
    }
    out.extend(run.map(|(s, _)| s));
    out
}

#[cfg(test)]
#[path = "outline_tests.rs"]
mod tests;
