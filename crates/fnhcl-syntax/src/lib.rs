//! HCL native syntax front end.
//!
//! API boundary: nothing outside this crate sees `hcl-edit` types. Parsing
//! produces our own spanned AST ([`ast`]), whose spans are byte ranges into
//! the files of a [`fnhcl_base::SourceMap`].

pub mod ast;
mod convert;
mod dupkeys;
mod errors;
mod fast;
pub mod lex;
mod scan;
mod strip;
mod structure;
pub mod visit;

use fnhcl_base::{Diagnostic, FileId, SourceMap};

/// The cheap checks run before parsing (file size, bracket balance), for
/// tools that hand text to `hcl-edit` themselves (the formatter): a text
/// that fails them must not be parsed. Returns the byte offset of the
/// problem and a message.
pub fn precheck(text: &str) -> Option<(usize, String)> {
    errors::precheck(FileId(0), text).map(|d| {
        let at = d.primary.map_or(0, |s| s.start as usize);
        (at, format!("{}: {}", d.summary, d.detail))
    })
}

/// Parses a whole file as an HCL body.
///
/// On a syntax error the body is empty and the diagnostics say why.
///
/// Our own parser ([`fast`]) reads the text first; when it gives up, the
/// hcl-edit path parses it again and gives the diagnostics.
pub fn parse_file(sources: &SourceMap, file: FileId) -> (ast::Body, Vec<Diagnostic>) {
    if let Some(b) = fast::parse_body(file, &sources.get(file).text) {
        let mut diags = Vec::new();
        check_duplicates(sources, &b, &mut diags);
        if diags.iter().any(Diagnostic::is_error) {
            let whole = fnhcl_base::Span::new(file, 0, sources.get(file).text.len());
            let empty = ast::Body {
                items: Vec::new(),
                span: whole,
            };
            return (empty, diags);
        }
        return (b, diags);
    }
    parse_file_hcl_edit(sources, file)
}

/// [`parse_file`] with hcl-edit (the fallback).
fn parse_file_hcl_edit(sources: &SourceMap, file: FileId) -> (ast::Body, Vec<Diagnostic>) {
    let text = &sources.get(file).text;
    let whole = fnhcl_base::Span::new(file, 0, text.len());
    let empty = ast::Body {
        items: Vec::new(),
        span: whole,
    };
    if let Some(d) = errors::precheck(file, text) {
        return (empty, vec![d]);
    }
    let (parsed, renamed) = dupkeys::parse_lenient(text, hcl_edit::parser::parse_body);
    match parsed {
        Ok(body) => {
            // hcl-edit accepts a newline inside a quoted string, and a
            // heredoc marker at the very end of the file; HCL does not.
            if let Some(d) = structure::accepted_by_hcl_edit_only(file, text) {
                return (empty, vec![d]);
            }
            let mut conv = convert::Converter::new(file, text).with_renamed(renamed);
            let b = conv.file_body(body, whole);
            let mut diags = conv.into_diagnostics();
            check_duplicates(sources, &b, &mut diags);
            if diags.iter().any(Diagnostic::is_error) {
                return (empty, diags);
            }
            (b, diags)
        }
        Err(e) => {
            let d = if e.message().contains("redefined attribute") {
                redefined(sources, file, e.location().offset())
            } else {
                None
            };
            let name = &sources.get(file).name;
            let d = d
                .or_else(|| errors::structural(file, name, text, e.location().offset()))
                .unwrap_or_else(|| errors::from_parse_error(file, text, &e, false, 0));
            (empty, vec![d])
        }
    }
}

/// Parses a whole file as one HCL expression (surrounding whitespace and
/// newlines allowed).
pub fn parse_expr(sources: &SourceMap, file: FileId) -> (Option<ast::Expr>, Vec<Diagnostic>) {
    if let Some(e) = fast::parse_expr(file, &sources.get(file).text) {
        return (Some(e), Vec::new());
    }
    parse_expr_hcl_edit(sources, file)
}

/// [`parse_expr`] with hcl-edit (the fallback).
fn parse_expr_hcl_edit(sources: &SourceMap, file: FileId) -> (Option<ast::Expr>, Vec<Diagnostic>) {
    let text = &sources.get(file).text;
    if let Some(d) = errors::precheck(file, text) {
        return (None, vec![d]);
    }
    if text.trim().is_empty() {
        let d = errors::syntax_error(
            "Invalid expression",
            "Expected the start of an expression, but found the end of the file.",
        )
        .with_span(fnhcl_base::Span::new(file, text.len(), text.len()));
        return (None, vec![d]);
    }
    // The parser takes exactly one expression: no surrounding blanks. A
    // heredoc needs the newline after its closing marker, so that variant
    // is tried first.
    let lead = text.len() - text.trim_start().len();
    let end = text.trim_end().len();
    let mut with_nl = end;
    if text[end..].starts_with("\r\n") {
        with_nl = end + 2;
    } else if text[end..].starts_with('\n') {
        with_nl = end + 1;
    }
    let mut attempts = vec![end];
    if with_nl != end && text[lead..end].contains("<<") {
        attempts.insert(0, with_nl);
    }
    let mut first_err = None;
    for stop in attempts {
        let (parsed, renamed) =
            dupkeys::parse_lenient(&text[lead..stop], hcl_edit::parser::parse_expr);
        match parsed {
            Ok(expr) => {
                let mut conv = convert::Converter::new(file, text)
                    .with_base(lead as isize)
                    .with_renamed(renamed);
                let e = conv.expr(&expr);
                return (Some(e), conv.into_diagnostics());
            }
            Err(e) => {
                if stop == end || first_err.is_none() {
                    first_err = Some(shift_err(file, text, lead, &e));
                }
            }
        }
    }
    // HCL ignores newlines in a top-level expression (`true\n? 1\n: 2`);
    // hcl-edit does so inside parentheses.
    let wrapped = format!("({}\n)", &text[lead..end.max(with_nl)]);
    let (parsed, renamed) = dupkeys::parse_lenient(&wrapped, hcl_edit::parser::parse_expr);
    if let Ok(hcl_edit::expr::Expression::Parenthesis(p)) = parsed {
        let mut conv = convert::Converter::new(file, text)
            .with_base(lead as isize - 1)
            .with_renamed(renamed);
        let e = conv.expr(p.inner());
        return (Some(e), conv.into_diagnostics());
    }
    (None, first_err.into_iter().collect())
}

/// "Attribute redefined" for the parser's duplicate-key error at `offset`:
/// finds the earlier definition of the same name in the same body.
fn redefined(sources: &SourceMap, file: FileId, offset: usize) -> Option<Diagnostic> {
    let text = &sources.get(file).text;
    let rest = text.get(offset..)?;
    let len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    if len == 0 {
        return None;
    }
    let name = &rest[..len];
    // Re-parse the text before the duplicate to find the first definition.
    let cut = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let mut prev = None;
    let mut pos = 0;
    while let Some(i) = text[pos..cut].find(name) {
        let at = pos + i;
        pos = at + name.len();
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let after = text[pos..].trim_start_matches([' ', '\t']);
        if text[line_start..at].trim().is_empty()
            && after.starts_with('=')
            && !after.starts_with("==")
        {
            prev = Some(at);
        }
    }
    let span = fnhcl_base::Span::new(file, offset, offset + len);
    let detail = match prev {
        Some(p) => format!(
            "The argument \"{name}\" was already set at {}. Each argument may be set only once.",
            sources.range_text(fnhcl_base::Span::new(file, p, p + len))
        ),
        None => {
            format!("The argument \"{name}\" was already set. Each argument may be set only once.")
        }
    };
    Some(
        Diagnostic::error("Attribute redefined", detail)
            .with_span(span)
            .with_code(fnhcl_base::codes::DUPLICATE),
    )
}

/// HCL rejects a second definition of an attribute in one body at parse time.
fn check_duplicates(sources: &SourceMap, body: &ast::Body, diags: &mut Vec<Diagnostic>) {
    // By name: linear in the attributes of a body (a list scanned per
    // attribute was quadratic: 100,000 attributes took 16 s).
    let mut seen: std::collections::HashMap<&str, &ast::Ident> = std::collections::HashMap::new();
    for item in &body.items {
        match item {
            ast::Structure::Attribute(a) => match seen.entry(&a.name.name) {
                std::collections::hash_map::Entry::Occupied(prev) => diags.push(
                    Diagnostic::error(
                        "Attribute redefined",
                        format!(
                            "The argument \"{}\" was already set at {}. Each argument may be set only once.",
                            a.name.name,
                            sources.range_text(prev.get().span)
                        ),
                    )
                    .with_span(a.name.span)
                    .with_code(fnhcl_base::codes::DUPLICATE),
                ),
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(&a.name);
                }
            },
            ast::Structure::Block(b) => check_duplicates(sources, &b.body, diags),
        }
    }
}

fn shift_err(file: FileId, text: &str, lead: usize, e: &hcl_edit::parser::Error) -> Diagnostic {
    extra_characters(file, text, lead, e.location().offset())
        .unwrap_or_else(|| errors::from_parse_error(file, text, e, true, lead))
}

/// HCL's messages for a complete expression followed by more text: the
/// parser stops where the valid prefix ends.
fn extra_characters(file: FileId, text: &str, lead: usize, offset: usize) -> Option<Diagnostic> {
    let end = text.trim_end().len();
    let stop = lead + offset;
    let prefix = text.get(lead..stop)?;
    if prefix.trim().is_empty() || hcl_edit::parser::parse_expr(prefix).is_err() {
        return None;
    }
    let rest = text.get(stop..end)?;
    let skipped = rest.len() - rest.trim_start().len();
    let at = stop + skipped;
    let rest = rest.trim_start();
    if rest.is_empty() {
        return None;
    }
    const OPERATORS: &[&str] = &[
        "==", "!=", "<=", ">=", "&&", "||", "+", "-", "*", "/", "%", "<", ">", "?", ":", "[", "(",
        ",", ".",
    ];
    if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op))
        && rest[op.len()..].trim().is_empty()
    {
        let summary = if *op == "." {
            "Invalid attribute name"
        } else {
            "Missing expression"
        };
        let detail = if *op == "." {
            "An attribute name is required after a dot."
        } else {
            "Expected the start of an expression, but found the end of the file."
        };
        return Some(
            errors::syntax_error(summary, detail).with_span(fnhcl_base::Span::new(file, end, end)),
        );
    }
    let c_end = at + rest.chars().next().map_or(0, char::len_utf8);
    Some(
        errors::syntax_error(
            "Extra characters after expression",
            "An expression was successfully parsed, but extra characters were found after it.",
        )
        .with_span(fnhcl_base::Span::new(file, at, c_end)),
    )
}

/// The two parsers apart, for the differential tests (not an API).
#[doc(hidden)]
pub mod differential {
    use super::*;

    /// Our parser alone: `None` when it gives up.
    pub fn fast_file(sources: &SourceMap, file: FileId) -> Option<ast::Body> {
        fast::parse_body(file, &sources.get(file).text)
    }

    /// Our parser alone, one expression.
    pub fn fast_expr(sources: &SourceMap, file: FileId) -> Option<ast::Expr> {
        fast::parse_expr(file, &sources.get(file).text)
    }

    /// The hcl-edit path alone.
    pub fn hcl_edit_file(sources: &SourceMap, file: FileId) -> (ast::Body, Vec<Diagnostic>) {
        parse_file_hcl_edit(sources, file)
    }

    /// The hcl-edit path alone, one expression.
    pub fn hcl_edit_expr(
        sources: &SourceMap,
        file: FileId,
    ) -> (Option<ast::Expr>, Vec<Diagnostic>) {
        parse_expr_hcl_edit(sources, file)
    }
}

#[cfg(test)]
mod tests;
