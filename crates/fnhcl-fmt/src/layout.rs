//! The canonical layout, following the behaviour of `hclwrite.Format`
//! (the formatter behind `terraform fmt`): tokens are grouped into lines,
//! each line into a "lead" cell, an optional "assign" cell (`= value` when
//! the value is complete on that line) and an optional trailing comment
//! cell. Indentation comes from bracket nesting, spacing from a table of
//! token pairs, and `=` signs and trailing comments of consecutive lines are
//! aligned.
//!
//! As hclwrite does, every line is kept: blank lines (at the start of the
//! file, in runs, at the end) stay where they are, so line numbers in
//! diagnostics still match after formatting. Beyond hclwrite: the file ends
//! with a newline, newlines are `\n`, and single-line comments lose
//! trailing whitespace.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation as _;

use crate::tokens::{Kind, Token};

struct Line {
    lead: Range<usize>,
    assign: Option<Range<usize>>,
    comment: Option<Range<usize>>,
}

/// Lays out the tokens and renders the result.
pub(crate) fn render(mut tokens: Vec<Token>) -> String {
    normalise_newlines(&mut tokens);
    let lines = split_lines(&tokens);
    indent(&lines, &mut tokens);
    spaces(&lines, &mut tokens);
    align(&lines, &mut tokens);

    let mut out = String::new();
    for t in &tokens {
        for _ in 0..t.spaces_before {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn normalise_newlines(tokens: &mut [Token]) {
    for t in tokens {
        match t.kind {
            Kind::Newline => t.text = "\n".to_owned(),
            Kind::Comment if t.text.ends_with('\n') => {
                let body = t.text.trim_end_matches(['\n', '\r']).trim_end();
                t.text = format!("{body}\n");
            }
            Kind::Comment if !t.text.starts_with("/*") => {
                t.text = t.text.trim_end().to_owned();
            }
            _ => {}
        }
    }
}

fn split_lines(tokens: &[Token]) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        if t.is_newline() {
            lines.push(start..i + 1);
            start = i + 1;
        }
    }
    if start < tokens.len() {
        lines.push(start..tokens.len());
    }
    lines
        .into_iter()
        .map(|lead| {
            let mut lead = lead;
            let mut comment = None;
            // Only line comments (`#`, `//`: they carry their newline) are
            // trailing comments, as in hclwrite. A block comment at the very
            // end of a file without a final newline must not count either,
            // or the newline formatting adds would change the alignment on
            // the next run (found by fuzzing).
            if lead.len() > 1
                && tokens[lead.end - 1].kind == Kind::Comment
                && !tokens[lead.end - 1].text.starts_with("/*")
            {
                comment = Some(lead.end - 1..lead.end);
                lead = lead.start..lead.end - 1;
            }
            let mut assign = None;
            for i in lead.clone().skip(1) {
                if tokens[i].kind == Kind::Equal {
                    if net_brackets(&tokens[i..lead.end]) == 0 {
                        assign = Some(i..lead.end);
                        lead = lead.start..i;
                    }
                    break;
                }
            }
            Line {
                lead,
                assign,
                comment,
            }
        })
        .collect()
}

/// Net bracket change of a token run, stopping at a heredoc opener.
fn net_brackets(tokens: &[Token]) -> i64 {
    let mut n = 0;
    for t in tokens {
        n += t.bracket_change();
        if t.kind == Kind::OHeredoc {
            break;
        }
    }
    n
}

fn indent(lines: &[Line], tokens: &mut [Token]) {
    let mut indents: Vec<i64> = Vec::new();
    for line in lines {
        if line.lead.is_empty() {
            continue;
        }
        let first = line.lead.start;
        if tokens[first].kind == Kind::Newline {
            tokens[first].spaces_before = 0;
            continue;
        }
        let mut net = net_brackets(&tokens[line.lead.clone()]);
        if let Some(a) = &line.assign {
            net += net_brackets(&tokens[a.clone()]);
        }
        if net > 0 {
            tokens[first].spaces_before = 2 * indents.len();
            indents.push(net);
        } else {
            let mut closed = -net;
            while closed > 0 {
                let Some(top) = indents.last_mut() else {
                    break;
                };
                if closed >= *top {
                    closed -= *top;
                    indents.pop();
                } else {
                    *top -= closed;
                    closed = 0;
                }
            }
            tokens[first].spaces_before = 2 * indents.len();
        }
    }
}

fn spaces(lines: &[Line], tokens: &mut [Token]) {
    for line in lines {
        set_cell_spaces(tokens, line.lead.clone());
        if let Some(a) = &line.assign {
            tokens[a.start].spaces_before = 1;
            set_cell_spaces(tokens, a.clone());
        }
    }
}

fn set_cell_spaces(tokens: &mut [Token], cell: Range<usize>) {
    for i in cell.clone() {
        if i + 1 >= cell.end {
            break;
        }
        let before = if i > cell.start {
            Some(tokens[i - 1].kind)
        } else {
            None
        };
        let space = space_after(&tokens[i], before, &tokens[i + 1]);
        tokens[i + 1].spaces_before = usize::from(space);
    }
}

/// Whether one space goes between `subject` and `after` (`before` is the
/// token preceding `subject` in the same cell).
fn space_after(subject: &Token, before: Option<Kind>, after: &Token) -> bool {
    use Kind::*;
    let s = subject.kind;
    let a = after.kind;
    if a == Newline {
        return false;
    }
    if s == Ident && a == OParen {
        return false;
    }
    // `3. 14` is not `3.14`: between a number and a dot, keep the
    // source's choice (hclwrite would join them and change the meaning).
    if (s == NumberLit && a == Dot) || (s == Dot && a == NumberLit) {
        return after.spaced_in_source;
    }
    if s == Dot || a == Dot {
        return false;
    }
    if a == Comma || a == Ellipsis {
        return false;
    }
    if s == Comma {
        return true;
    }
    if matches!(s, QuotedLit | StringLit | OQuote | OHeredoc)
        || matches!(a, QuotedLit | StringLit | CQuote | CHeredoc)
    {
        return false;
    }
    if s == Ident && subject.text == "in" && before == Some(Ident) {
        return true;
    }
    if a == OBrack && (s == Ident || s == NumberLit || subject.bracket_change() < 0) {
        return false;
    }
    if s == Bang {
        return false;
    }
    if s == Minus {
        return !matches!(
            before,
            None | Some(
                OParen
                    | OBrace
                    | OBrack
                    | Equal
                    | Colon
                    | Comma
                    | Question
                    | Plus
                    | Star
                    | Slash
                    | Percent
                    | Minus
                    | EqualOp
                    | NotEqual
                    | Gt
                    | GtEq
                    | Lt
                    | LtEq
                    | And
                    | Or
                    | Bang
            )
        );
    }
    if s == OBrace || a == CBrace {
        return !(s == OBrace && a == CBrace);
    }
    if matches!(s, TemplateInterp | TemplateControl) && a == OBrace {
        return true;
    }
    if s == CBrace && a == TemplateSeqEnd {
        return true;
    }
    if s == TemplateSeqEnd && matches!(a, TemplateInterp | TemplateControl) {
        return false;
    }
    if subject.bracket_change() > 0 {
        return false;
    }
    if after.bracket_change() < 0 {
        return false;
    }
    true
}

/// Display width of a cell, counted in grapheme clusters as hclwrite does
/// (`é` written as `e` + combining accent is one column).
fn columns(tokens: &[Token], cell: &Range<usize>) -> usize {
    tokens[cell.clone()]
        .iter()
        .map(|t| t.spaces_before + t.text.graphemes(true).count())
        .sum()
}

fn align(lines: &[Line], tokens: &mut [Token]) {
    // `=` of consecutive lines that have an assign cell.
    let mut i = 0;
    while i < lines.len() {
        if lines[i].assign.is_none() {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].assign.is_some() {
            i += 1;
        }
        let width = lines[start..i]
            .iter()
            .map(|l| columns(tokens, &l.lead))
            .max()
            .unwrap_or(0);
        for l in &lines[start..i] {
            let cols = columns(tokens, &l.lead);
            if let Some(a) = &l.assign {
                tokens[a.start].spaces_before = width - cols + 1;
            }
        }
    }
    // Trailing comments of consecutive lines.
    let mut i = 0;
    while i < lines.len() {
        if lines[i].comment.is_none() {
            i += 1;
            continue;
        }
        let start = i;
        while i < lines.len() && lines[i].comment.is_some() {
            i += 1;
        }
        let width_of = |tokens: &[Token], l: &Line| {
            columns(tokens, &l.lead) + l.assign.as_ref().map_or(0, |a| columns(tokens, a))
        };
        let width = lines[start..i]
            .iter()
            .map(|l| width_of(tokens, l))
            .max()
            .unwrap_or(0);
        for l in &lines[start..i] {
            let cols = width_of(tokens, l);
            if let Some(c) = &l.comment {
                tokens[c.start].spaces_before = width - cols + 1;
            }
        }
    }
}
