//! Template strip markers (`~`) and `<<-` heredoc indentation, applied to
//! the literal pieces of a template in source order, as HCL applies them
//! to its template tokens.

/// One piece of a template in source order: a literal (to be trimmed) or
/// the strip flags of an interpolation or directive marker (`${~`/`%{~`:
/// `start`, `~}`: `end`).
pub(crate) enum Tok<'t> {
    Lit(&'t mut String),
    Mark { start: bool, end: bool },
}

/// Which tokens a `~` marker next to them trims: `(trim_start,
/// trim_end)`, one flag per token. `${~`/`%{~` trims the end of the token
/// before it, `~}` the start of the token after it.
fn strip_flags(toks: &[Tok<'_>]) -> (Vec<bool>, Vec<bool>) {
    let mut trim_end = vec![false; toks.len()];
    let mut trim_start = vec![false; toks.len()];
    for (i, tok) in toks.iter().enumerate() {
        if let Tok::Mark { start, end } = *tok {
            if start && i > 0 {
                trim_end[i - 1] = true;
            }
            if end && i + 1 < toks.len() {
                trim_start[i + 1] = true;
            }
        }
    }
    (trim_start, trim_end)
}

fn any_mark(toks: &[Tok<'_>]) -> bool {
    toks.iter()
        .any(|t| matches!(t, Tok::Mark { start, end } if *start || *end))
}

/// Applies `~` strip markers of a quoted template: `${~`/`%{~` trims
/// trailing whitespace from the literal just before, `~}` trims leading
/// whitespace from the literal just after (across directive boundaries, as
/// HCL does on its token stream).
pub(crate) fn strip_quoted(toks: &mut [Tok<'_>]) {
    if !any_mark(toks) {
        return;
    }
    let (trim_start, trim_end) = strip_flags(toks);
    for (i, tok) in toks.iter_mut().enumerate() {
        if let Tok::Lit(s) = tok {
            if trim_start[i] {
                let t = s.trim_start().to_owned();
                **s = t;
            }
            if trim_end[i] {
                let t = s.trim_end().to_owned();
                **s = t;
            }
        }
    }
}

/// Heredoc version of [`strip_quoted`]: HCL scans heredoc text one line at
/// a time, so a strip marker only trims the adjacent line piece; then, for
/// `<<-`, the common leading whitespace of all lines is removed (HCL's
/// `flushHeredocTemplateParts`, applied after stripping).
pub(crate) fn strip_heredoc(toks: &mut [Tok<'_>], flush: bool) {
    if any_mark(toks) {
        let (trim_start, trim_end) = strip_flags(toks);
        for (i, tok) in toks.iter_mut().enumerate() {
            if let Tok::Lit(s) = tok {
                if trim_start[i] {
                    let cut = s.find('\n').map_or(s.len(), |j| j + 1);
                    let t = format!("{}{}", s[..cut].trim_start(), &s[cut..]);
                    **s = t;
                }
                if trim_end[i] {
                    let body = s.strip_suffix('\n').unwrap_or(s);
                    let start = body.rfind('\n').map_or(0, |j| j + 1);
                    let t = format!("{}{}", &s[..start], s[start..].trim_end());
                    **s = t;
                }
            }
        }
    }
    if flush {
        flush_heredoc(toks);
    }
}

fn flush_heredoc(toks: &mut [Tok<'_>]) {
    let mut min = usize::MAX;
    let mut newline = true;
    // (token index, byte offset of a line-leading piece)
    let mut adjust: Vec<(usize, usize)> = Vec::new();
    for (i, tok) in toks.iter().enumerate() {
        match tok {
            Tok::Lit(s) => {
                let pieces: Vec<&str> = if s.is_empty() {
                    vec![""]
                } else {
                    s.split_inclusive('\n').collect()
                };
                let mut off = 0;
                for piece in pieces {
                    if newline {
                        newline = false;
                        let trimmed = piece.trim_start();
                        if !(trimmed.is_empty() && piece.ends_with('\n')) {
                            let n = piece[..piece.len() - trimmed.len()].chars().count();
                            min = min.min(n);
                            adjust.push((i, off));
                        }
                    }
                    if piece.ends_with('\n') {
                        newline = true;
                    }
                    off += piece.len();
                }
            }
            Tok::Mark { .. } => {
                if newline {
                    newline = false;
                    min = 0;
                }
            }
        }
    }
    if min == 0 || min == usize::MAX {
        return;
    }
    for &(i, off) in adjust.iter().rev() {
        if let Tok::Lit(s) = &mut toks[i] {
            let rest = &s[off..];
            let cut: usize = rest.chars().take(min).map(char::len_utf8).sum();
            let t = format!("{}{}", &s[..off], &rest[cut..]);
            **s = t;
        }
    }
}
