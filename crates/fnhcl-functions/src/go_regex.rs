//! The Go-regexp compatibility layer shared by `regex`, `regexall` and
//! `replace`.
//!
//! Patterns use RE2 syntax as Go's `regexp` does. The `regex` crate's
//! syntax is nearly identical; the differences handled here are that Go's
//! Perl classes (`\d`, `\w`, `\s`) and word boundaries (`\b`) are ASCII-only,
//! `\Q...\E` quotes literal text, and repeat counts above 1000 are errors.
//! Compiled programs are size-limited so hostile patterns fail cleanly.

use regex::Regex;
use regex_syntax::ast::{self, Ast, Visitor};

use crate::error::CallError;
use crate::limits::{MAX_REGEX_SIZE, check_len};

/// A pattern that Go's regexp would reject (or that is too large).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PatternError {
    /// Go's `syntax.ErrorCode` text, e.g. "missing closing )".
    pub code: String,
    /// The offending part of the pattern.
    pub expr: String,
}

impl PatternError {
    /// Go's `(*syntax.Error).Error()`, as Terraform's `replace` shows it.
    pub(crate) fn go_message(&self) -> String {
        format!("error parsing regexp: {}: `{}`", self.code, self.expr)
    }
    /// cty's wording in `regex`/`regexall`.
    pub(crate) fn cty_message(&self) -> String {
        format!("invalid regexp pattern: {} in {}", self.code, self.expr)
    }
}

/// Compiled patterns kept per thread: `regex(...)` in a `for` expression
/// would otherwise compile the same pattern once per element (~70 µs
/// each). Only patterns whose program is small are kept (see
/// [`CACHED_SIZE_LIMIT`]), so the cache stays small whatever the input.
const CACHE_ENTRIES: usize = 16;
/// Compiled-program and lazy-DFA size limit for a cached pattern (bytes).
const CACHED_SIZE_LIMIT: usize = 1 << 20;

thread_local! {
    static CACHE: std::cell::RefCell<Vec<(String, Regex)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Compiles a Go (RE2) pattern (cached, see [`CACHE_ENTRIES`]).
pub(crate) fn compile(pattern: &str) -> Result<Regex, PatternError> {
    if let Some(re) = CACHE.with(|c| {
        let c = c.borrow();
        c.iter()
            .find(|(p, _)| p == pattern)
            .map(|(_, re)| re.clone())
    }) {
        return Ok(re);
    }
    if let Ok(re) = compile_with(pattern, CACHED_SIZE_LIMIT) {
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= CACHE_ENTRIES {
                c.remove(0);
            }
            c.push((pattern.to_owned(), re.clone()));
        });
        return Ok(re);
    }
    compile_with(pattern, MAX_REGEX_SIZE)
}

fn compile_with(pattern: &str, size_limit: usize) -> Result<Regex, PatternError> {
    let quoted = rename_duplicate_groups(&literal_braces(&expand_quotes(pattern)));
    let parsed = ast::parse::ParserBuilder::new()
        .nest_limit(200)
        .build()
        .parse(&quoted)
        .map_err(|e| ast_error(&quoted, &e))?;
    ast::visit(&parsed, GoSyntaxCheck { pattern: &quoted }).map_err(|(code, expr)| {
        PatternError {
            code: code.into(),
            expr,
        }
    })?;
    let translated = translate(&keep_zero_repeat_groups(&quoted));
    regex::RegexBuilder::new(&translated)
        .size_limit(size_limit)
        .dfa_size_limit(size_limit)
        .nest_limit(200)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => PatternError {
                code: "expression too large".into(),
                expr: pattern.to_owned(),
            },
            other => PatternError {
                code: syntax_text(&other.to_string()),
                expr: pattern.to_owned(),
            },
        })
}

fn syntax_text(msg: &str) -> String {
    msg.lines()
        .rev()
        .find(|l| l.starts_with("error: "))
        .map(|l| l.trim_start_matches("error: ").to_owned())
        .unwrap_or_else(|| "invalid or unsupported Perl syntax".into())
}

fn ast_error(pattern: &str, e: &ast::Error) -> PatternError {
    use ast::ErrorKind as K;
    let span = e.span();
    let frag = pattern
        .get(span.start.offset..span.end.offset)
        .unwrap_or(pattern)
        .to_owned();
    let (code, expr) = match e.kind() {
        K::GroupUnclosed => ("missing closing )", pattern.to_owned()),
        K::GroupUnopened => ("unexpected )", pattern.to_owned()),
        K::ClassUnclosed => ("missing closing ]", frag),
        K::ClassRangeInvalid | K::ClassRangeLiteral => ("invalid character class range", frag),
        K::ClassEscapeInvalid
        | K::EscapeUnrecognized
        | K::EscapeHexEmpty
        | K::EscapeHexInvalid
        | K::EscapeHexInvalidDigit
        | K::EscapeUnexpectedEof
        | K::UnicodeClassInvalid => ("invalid escape sequence", frag),
        K::RepetitionMissing => {
            // Go shows the operator: `*`, `+`, `?` or the whole `{n,m}`.
            let rest = pattern.get(span.start.offset..).unwrap_or("");
            let op = if rest.starts_with('{') {
                rest.find('}').map_or(rest, |e| &rest[..=e])
            } else {
                rest.get(..1).unwrap_or(rest)
            };
            ("missing argument to repetition operator", op.to_owned())
        }
        K::RepetitionCountInvalid | K::RepetitionCountDecimalEmpty | K::RepetitionCountUnclosed => {
            ("invalid repeat count", frag)
        }
        K::GroupNameDuplicate { .. } => ("duplicate capture group name", frag),
        K::GroupNameEmpty | K::GroupNameInvalid | K::GroupNameUnexpectedEof => {
            ("invalid named capture", frag)
        }
        K::NestLimitExceeded(_) => ("expression nests too deeply", pattern.to_owned()),
        _ => ("invalid or unsupported Perl syntax", frag),
    };
    PatternError {
        code: code.to_owned(),
        expr,
    }
}

/// What Go's parser rejects but `regex_syntax` accepts: counted
/// repetitions above 1000, a repetition applied directly to another
/// (`a**`, `a{2}{3}`), flags other than `i m s U`, and (before Go 1.22,
/// which Terraform 1.5.7 predates) the `(?<name>...)` group syntax.
struct GoSyntaxCheck<'a> {
    pattern: &'a str,
}

impl GoSyntaxCheck<'_> {
    fn text(&self, start: usize, end: usize) -> String {
        self.pattern
            .get(start..end.min(self.pattern.len()))
            .unwrap_or(self.pattern)
            .to_owned()
    }
}

fn go_flags(f: &ast::Flags) -> bool {
    f.items.iter().all(|i| match &i.kind {
        ast::FlagsItemKind::Negation => true,
        ast::FlagsItemKind::Flag(flag) => matches!(
            flag,
            ast::Flag::CaseInsensitive
                | ast::Flag::MultiLine
                | ast::Flag::DotMatchesNewLine
                | ast::Flag::SwapGreed
        ),
    })
}

impl Visitor for GoSyntaxCheck<'_> {
    type Output = ();
    type Err = (&'static str, String);
    fn finish(self) -> Result<(), Self::Err> {
        Ok(())
    }
    /// Nested repetition, innermost pair first (where Go's parser stops).
    fn visit_post(&mut self, a: &Ast) -> Result<(), Self::Err> {
        if let Ast::Repetition(outer) = a
            && let Ast::Repetition(inner) = &*outer.ast
        {
            return Err((
                "invalid nested repetition operator",
                self.text(inner.op.span.start.offset, outer.op.span.end.offset),
            ));
        }
        Ok(())
    }
    fn visit_pre(&mut self, a: &Ast) -> Result<(), Self::Err> {
        let perl = "invalid or unsupported Perl syntax";
        match a {
            Ast::Group(g) => match &g.kind {
                ast::GroupKind::CaptureName {
                    starts_with_p: false,
                    ..
                } => return Err((perl, "(?<".into())),
                // Go accepts only ASCII word characters in group names.
                ast::GroupKind::CaptureName { name, .. }
                    if !base_name(&name.name)
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
                {
                    return Err((
                        "invalid named capture",
                        self.text(g.span.start.offset, name.span.end.offset + 1),
                    ));
                }
                ast::GroupKind::NonCapturing(f) if !go_flags(f) => {
                    return Err((perl, self.text(g.span.start.offset, f.span.end.offset)));
                }
                _ => {}
            },
            Ast::Flags(f) if !go_flags(&f.flags) => {
                return Err((
                    perl,
                    self.text(f.span.start.offset, f.flags.span.end.offset),
                ));
            }
            _ => {}
        }
        if let Ast::Repetition(rep) = a
            && let ast::RepetitionKind::Range(range) = &rep.op.kind
        {
            let too_big = match *range {
                ast::RepetitionRange::Exactly(n) | ast::RepetitionRange::AtLeast(n) => n > 1000,
                ast::RepetitionRange::Bounded(m, n) => m > 1000 || n > 1000 || m > n,
            };
            if too_big {
                return Err(("invalid repeat count", format!("{{{}}}", range_text(range))));
            }
        }
        Ok(())
    }
}

fn range_text(r: &ast::RepetitionRange) -> String {
    match *r {
        ast::RepetitionRange::Exactly(n) => n.to_string(),
        ast::RepetitionRange::AtLeast(n) => format!("{n},"),
        ast::RepetitionRange::Bounded(m, n) => format!("{m},{n}"),
    }
}

/// Replaces Go's `\\Q...\\E` literal sections by escaped text.
fn expand_quotes(p: &str) -> String {
    if !p.contains("\\Q") {
        return p.to_owned();
    }
    let mut out = String::with_capacity(p.len());
    let mut rest = p;
    while let Some(pos) = rest.find('\\') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        let Some(e) = after.chars().next() else {
            out.push('\\');
            rest = "";
            break;
        };
        if e == 'Q' {
            let body = &after[1..];
            let (lit, next) = match body.find("\\E") {
                Some(end) => (&body[..end], &body[end + 2..]),
                None => (body, ""),
            };
            out.push_str(&regex_syntax::escape(lit));
            rest = next;
        } else {
            out.push('\\');
            out.push(e);
            rest = &after[e.len_utf8()..];
        }
    }
    out.push_str(rest);
    out
}

/// Go keeps capture groups inside a `{0}` repetition (they never match);
/// the `regex` crate drops them, which would change the result's shape.
/// Rewrites `X{0}` around such groups into `(?:[^\x00-\x{10FFFF}]X)?`, an
/// optional branch that can never match, innermost first.
fn keep_zero_repeat_groups(p: &str) -> String {
    fn has_capture(a: &Ast) -> bool {
        match a {
            Ast::Group(g) => g.capture_index().is_some() || has_capture(&g.ast),
            Ast::Repetition(r) => has_capture(&r.ast),
            Ast::Alternation(x) => x.asts.iter().any(has_capture),
            Ast::Concat(x) => x.asts.iter().any(has_capture),
            _ => false,
        }
    }
    fn is_zero(r: &ast::Repetition) -> bool {
        matches!(
            r.op.kind,
            ast::RepetitionKind::Range(
                ast::RepetitionRange::Exactly(0) | ast::RepetitionRange::Bounded(0, 0)
            )
        )
    }
    /// The innermost zero repetition with a capture inside.
    fn find(a: &Ast) -> Option<(usize, usize, usize, usize)> {
        let inner = match a {
            Ast::Group(g) => find(&g.ast),
            Ast::Repetition(r) => find(&r.ast),
            Ast::Alternation(x) => x.asts.iter().find_map(find),
            Ast::Concat(x) => x.asts.iter().find_map(find),
            _ => None,
        };
        if inner.is_some() {
            return inner;
        }
        match a {
            Ast::Repetition(r) if is_zero(r) && has_capture(&r.ast) => Some((
                r.span.start.offset,
                r.span.end.offset,
                r.ast.span().start.offset,
                r.ast.span().end.offset,
            )),
            _ => None,
        }
    }
    if !p.contains('{') || !p.contains('(') {
        return p.to_owned();
    }
    let mut text = p.to_owned();
    for _ in 0..64 {
        let Ok(parsed) = ast::parse::ParserBuilder::new()
            .nest_limit(200)
            .build()
            .parse(&text)
        else {
            break;
        };
        let Some((start, end, a_start, a_end)) = find(&parsed) else {
            break;
        };
        let replaced = format!(
            "{}(?:[^\\x00-\\x{{10FFFF}}]{})?{}",
            &text[..start],
            &text[a_start..a_end],
            &text[end..]
        );
        text = replaced;
    }
    text
}

/// Suffix given to the second and later groups that reuse a name (Go
/// allows that; `regex` does not). `.` cannot appear in a Go group name.
const DUP_SUFFIX: &str = ".dup";

/// The group name as written in the pattern.
pub(crate) fn base_name(name: &str) -> &str {
    name.split_once(DUP_SUFFIX).map_or(name, |(b, _)| b)
}

/// Renames repeated `(?P<name>` groups to `name.dupN`.
fn rename_duplicate_groups(p: &str) -> String {
    if p.matches("(?P<").count() < 2 {
        return p.to_owned();
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = String::with_capacity(p.len() + 8);
    let b = p.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    let mut dup = 0usize;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let end =
                    (i + 1 + p[i + 1..].chars().next().map_or(0, char::len_utf8)).min(b.len());
                out.push_str(&p[i..end]);
                i = end;
                continue;
            }
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class && p[i..].starts_with("(?P<") => {
                if let Some(close) = p[i + 4..].find('>') {
                    let name = &p[i + 4..i + 4 + close];
                    out.push_str("(?P<");
                    out.push_str(name);
                    if !seen.insert(name.to_owned()) {
                        dup += 1;
                        out.push_str(&format!("{DUP_SUFFIX}{dup}"));
                    }
                    out.push('>');
                    i += 4 + close + 1;
                    continue;
                }
            }
            _ => {}
        }
        let ch_len = p[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&p[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// Go reads `{` as a repetition only in the forms `{n}`, `{n,}` and
/// `{n,m}` (decimal, no leading zeros); any other `{` is a literal brace.
/// Escapes those so `regex_syntax` reads them literally too.
fn literal_braces(p: &str) -> String {
    fn number(s: &[u8]) -> usize {
        let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
        if n >= 2 && s[0] == b'0' { 0 } else { n }
    }
    fn is_repeat(s: &[u8]) -> bool {
        // s starts at '{'
        let mut i = 1;
        let n = number(&s[i..]);
        if n == 0 {
            return false;
        }
        i += n;
        if s.get(i) == Some(&b',') {
            i += 1;
            if s.get(i) != Some(&b'}') {
                let m = number(&s[i..]);
                if m == 0 {
                    return false;
                }
                i += m;
            }
        }
        s.get(i) == Some(&b'}')
    }
    if !p.contains('{') {
        return p.to_owned();
    }
    let b = p.as_bytes();
    let mut out = String::with_capacity(p.len() + 4);
    let mut i = 0;
    let mut in_class = false;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                let mut end =
                    (i + 1 + p[i + 1..].chars().next().map_or(0, char::len_utf8)).min(b.len());
                // `\p{Name}`, `\P{Name}` and `\x{hex}` carry their own braces.
                if matches!(b.get(i + 1), Some(b'p' | b'P' | b'x'))
                    && b.get(i + 2) == Some(&b'{')
                    && let Some(close) = p[i + 2..].find('}')
                {
                    end = i + 2 + close + 1;
                }
                out.push_str(&p[i..end]);
                i = end;
                continue;
            }
            b'[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                if b.get(i) == Some(&b'^') {
                    out.push('^');
                    i += 1;
                }
                if b.get(i) == Some(&b']') {
                    out.push(']');
                    i += 1;
                }
                continue;
            }
            b'[' if in_class && b.get(i + 1) == Some(&b':') => {
                if let Some(end) = p[i..].find(":]") {
                    out.push_str(&p[i..i + end + 2]);
                    i += end + 2;
                    continue;
                }
            }
            b']' if in_class => in_class = false,
            b'{' if !in_class && !is_repeat(&b[i..]) => {
                out.push_str("\\{");
                i += 1;
                continue;
            }
            _ => {}
        }
        let ch_len = p[i..].chars().next().map_or(1, char::len_utf8);
        out.push_str(&p[i..i + ch_len]);
        i += ch_len;
    }
    out
}

/// Rewrites the Go-specific parts of a pattern into `regex` syntax.
fn translate(p: &str) -> String {
    let mut out = String::with_capacity(p.len() + 16);
    let mut chars = p.char_indices().peekable();
    let mut class_depth = 0usize;
    while let Some((_, c)) = chars.next() {
        match c {
            '\\' => {
                let Some((_, e)) = chars.next() else {
                    out.push('\\');
                    break;
                };
                let in_class = class_depth > 0;
                match e {
                    'd' if in_class => out.push_str("0-9"),
                    'd' => out.push_str("[0-9]"),
                    'D' => out.push_str("[^0-9]"),
                    's' if in_class => out.push_str("\\t\\n\\x0C\\r "),
                    's' => out.push_str("[\\t\\n\\x0C\\r ]"),
                    'S' => out.push_str("[^\\t\\n\\x0C\\r ]"),
                    'w' if in_class => out.push_str("0-9A-Za-z_"),
                    'w' => out.push_str("[0-9A-Za-z_]"),
                    'W' => out.push_str("[^0-9A-Za-z_]"),
                    'b' if !in_class => out.push_str("(?-u:\\b)"),
                    'B' if !in_class => out.push_str("(?-u:\\B)"),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
            }
            '[' if class_depth == 0 => {
                out.push('[');
                class_depth = 1;
                if chars.peek().is_some_and(|&(_, n)| n == '^') {
                    chars.next();
                    out.push('^');
                }
                // A `]` first in a class is literal.
                if chars.peek().is_some_and(|&(_, n)| n == ']') {
                    chars.next();
                    out.push_str("\\]");
                }
            }
            '[' if chars.peek().is_some_and(|&(_, n)| n == ':') => {
                // POSIX class like [:alpha:] inside a class.
                out.push('[');
                for (_, n) in chars.by_ref() {
                    out.push(n);
                    if n == ']' {
                        break;
                    }
                }
            }
            // Inside a class Go treats these literally; `regex` would read
            // a nested class or a set operation.
            '[' | '&' | '~' if class_depth > 0 => {
                out.push('\\');
                out.push(c);
            }
            ']' if class_depth > 0 => {
                class_depth = 0;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Go's `Regexp.Expand` template rules: `$$` is a dollar; `$name` and
/// `${name}` take the longest run of Unicode letters, digits and `_`; a
/// name that is a number without leading zeros is a group index; an
/// unknown or unmatched group expands to nothing; a malformed reference
/// (`$` followed by no name, `${` without `}`) is kept literally.
fn go_expand(re: &Regex, caps: &regex::Captures<'_>, template: &str, out: &mut String) {
    let mut t = template;
    while let Some(pos) = t.find('$') {
        out.push_str(&t[..pos]);
        t = &t[pos + 1..];
        if let Some(rest) = t.strip_prefix('$') {
            out.push('$');
            t = rest;
            continue;
        }
        let (brace, body) = match t.strip_prefix('{') {
            Some(b) => (true, b),
            None => (false, t),
        };
        let name_len: usize = body
            .chars()
            .take_while(|c| c.is_alphabetic() || c.is_numeric() || *c == '_')
            .map(char::len_utf8)
            .sum();
        let closed = !brace || body[name_len..].starts_with('}');
        if name_len == 0 || !closed {
            out.push('$');
            continue;
        }
        let name = &body[..name_len];
        t = &body[name_len + usize::from(brace)..];
        let index = if name.bytes().all(|b| b.is_ascii_digit())
            && !(name.len() > 1 && name.starts_with('0'))
            && name.len() <= 9
        {
            name.parse::<usize>().ok()
        } else {
            None
        };
        let group = match index {
            Some(i) => caps.get(i),
            None => re
                .capture_names()
                .position(|n| n == Some(name))
                .and_then(|i| caps.get(i)),
        };
        if let Some(g) = group {
            out.push_str(g.as_str());
        }
    }
    out.push_str(t);
}

/// Go's `Regexp.ReplaceAllString` (`$1`, `${name}`, `$$` expansion).
pub(crate) fn replace_all(re: &Regex, s: &str, rep: &str) -> Result<String, CallError> {
    let mut out = String::new();
    let mut last = 0;
    for caps in re.captures_iter(s) {
        let Some(m) = caps.get(0) else { continue };
        out.push_str(&s[last..m.start()]);
        go_expand(re, &caps, rep, &mut out);
        last = m.end();
        check_len(out.len())?;
    }
    out.push_str(&s[last..]);
    check_len(out.len())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perl_classes_are_ascii() {
        let re = compile(r"^\d+$").ok();
        assert!(re.as_ref().is_some_and(|r| r.is_match("123")));
        assert!(re.as_ref().is_some_and(|r| !r.is_match("١٢٣")));
        let re = compile(r"[\d\s]+").ok();
        assert!(re.is_some_and(|r| r.find("a1 2b").map(|m| m.as_str()) == Some("1 2")));
        let re = compile(r"\bé").ok();
        assert!(re.is_some_and(|r| r.is_match("aé")));
        let re = compile(r"a\Q.*\Eb").ok();
        assert!(re.is_some_and(|r| r.is_match("a.*b")));
        let re = compile(r"[]a]+").ok();
        assert!(re.is_some_and(|r| r.find("x]a]").map(|m| m.as_str()) == Some("]a]")));
        let re = compile(r"[[:alpha:]]+").ok();
        assert!(re.is_some_and(|r| r.find("12ab").map(|m| m.as_str()) == Some("ab")));
    }

    #[test]
    fn errors_like_go() {
        let e = compile("(l").err();
        assert_eq!(
            e.map(|e| e.go_message()),
            Some("error parsing regexp: missing closing ): `(l`".to_owned())
        );
        assert!(compile("a{1001}").is_err());
        assert!(compile("a{1000}").is_ok());
        assert_eq!(
            compile("(?<n>a)").err().map(|e| e.go_message()),
            Some("error parsing regexp: invalid or unsupported Perl syntax: `(?<`".to_owned())
        );
        assert!(compile("(?P<n>a)").is_ok());
        let msg = |p: &str| compile(p).err().map(|e| e.go_message());
        assert_eq!(
            msg("a**").as_deref(),
            Some("error parsing regexp: invalid nested repetition operator: `**`")
        );
        assert_eq!(
            msg("(?x)a").as_deref(),
            Some("error parsing regexp: invalid or unsupported Perl syntax: `(?x`")
        );
        assert!(msg("(?i:a)(?s)(?-m)a*?").is_none());
        assert_eq!(
            msg("{1}").as_deref(),
            Some("error parsing regexp: missing argument to repetition operator: `{1}`")
        );
        assert_eq!(
            msg("*").as_deref(),
            Some("error parsing regexp: missing argument to repetition operator: `*`")
        );
        // A brace that is not a repetition is a literal, as in Go.
        assert!(compile("a{,3}").is_ok_and(|r| r.is_match("a{,3}")));
        assert!(compile(r"x\b{start}").is_ok_and(|r| r.is_match("x{start}")));
        assert!(
            compile(r"\p{Greek}+\x{41}[\p{L}]")
                .is_ok_and(|r| r.is_match("ΑΒA1") || r.is_match("ΑΒAé"))
        );
        assert!(compile("((((((((((a{1000}){1000}){1000})))))))").is_err());
    }
}
