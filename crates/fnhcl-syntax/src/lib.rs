//! HCL native syntax front end: one lexer ([`lexer`]), one parser that
//! recovers from errors, and the spanned AST ([`ast`]) every consumer reads
//! (the evaluator, the analyzer, the formatter's check, the editor
//! features). Spans are byte ranges into the files of a
//! [`fnhcl_base::SourceMap`].

pub mod ast;
pub mod lexer;
mod parser;
mod strip;
pub mod visit;

use fnhcl_base::{Diagnostic, FileId, SourceMap};

/// Parses a whole file as an HCL body.
///
/// Never fails: the tree holds what could be read (with placeholders where
/// parts were missing), the diagnostics say what could not, worded and
/// placed as hashicorp/hcl's (lexical errors first, then the parser's).
/// A caller that runs the program must not use a tree with errors.
pub fn parse_file(sources: &SourceMap, file: FileId) -> (ast::Body, Vec<Diagnostic>) {
    parser::parse_file(sources, file)
}

/// Parses a whole file as one expression (newlines and comments around and
/// inside it allowed, as inside parentheses).
pub fn parse_expr(sources: &SourceMap, file: FileId) -> (Option<ast::Expr>, Vec<Diagnostic>) {
    parser::parse_expr(sources, file)
}

#[cfg(test)]
mod tests;
