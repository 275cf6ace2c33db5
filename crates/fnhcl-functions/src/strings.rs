//! String functions: chomp endswith indent join lower replace split
//! startswith strcontains strrev substr title trim trimprefix trimsuffix
//! trimspace upper.
//!
//! Semantics follow Go's `strings` package as used by cty 1.12 and
//! Terraform 1.5.7: simple (one-to-one) case mapping, grapheme clusters
//! for `strrev`/`substr`, Go's `strings.Title` word boundaries.

use fnhcl_value::{Type, Value};
use unicode_segmentation::UnicodeSegmentation;

use crate::args::{int_arg, str_arg};
use crate::error::CallError;
use crate::limits::MAX_STRING_BYTES;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "upper",
            "Converts all cased letters in the given string to uppercase.",
        )
        .param(Param::new("str", Type::String).allow_dynamic_type())
        .returns(Type::String)
        .implement(|a| case_mapped(a, true)),
    );
    r.add(
        FuncDef::new(
            "lower",
            "Converts all cased letters in the given string to lowercase.",
        )
        .param(Param::new("str", Type::String).allow_dynamic_type())
        .returns(Type::String)
        .implement(|a| case_mapped(a, false)),
    );
    r.add(
        FuncDef::new(
            "strrev",
            "Reverses the characters (grapheme clusters) in a string.",
        )
        .param(Param::new("str", Type::String).allow_dynamic_type())
        .returns(Type::String)
        .implement(|a| Ok(crate::limits::cty_string(strrev(str_arg(a, 0)?)))),
    );
    r.add(
        FuncDef::new(
            "substr",
            "Extracts a substring from the given string, by grapheme cluster offset and length.",
        )
        .param(Param::new("str", Type::String).allow_dynamic_type())
        .param(Param::new("offset", Type::Number).allow_dynamic_type())
        .param(Param::new("length", Type::Number).allow_dynamic_type())
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let offset = int_arg(a, 1)?;
            let length = int_arg(a, 2)?;
            Ok(crate::limits::cty_string(substr(s, offset, length)))
        }),
    );
    r.add(
        FuncDef::new(
            "join",
            "Concatenates together the string elements of one or more lists with a given separator.",
        )
        .param(Param::new("separator", Type::String))
        .variadic(Param::new("lists", Type::list(Type::String)))
        .returns(Type::String)
        .implement(join_impl),
    );
    r.add(
        FuncDef::new(
            "split",
            "Produces a list of one or more strings by splitting the given string at all instances of a given separator substring.",
        )
        .param(Param::new("separator", Type::String))
        .param(Param::new("str", Type::String))
        .returns_with("list(string)", |_| Ok(Type::list(Type::String)))
        .implement(|a| {
            let sep = str_arg(a, 0)?;
            let s = str_arg(a, 1)?;
            let items = split(s, sep).into_iter().map(crate::limits::cty_string).collect();
            Ok(Value::list(Type::String, items))
        }),
    );
    r.add(
        FuncDef::new(
            "chomp",
            "Removes one or more newline characters from the end of the given string.",
        )
        .param(Param::new("str", Type::String))
        .returns(Type::String)
        .implement(|a| Ok(crate::limits::cty_string(chomp(str_arg(a, 0)?)))),
    );
    r.add(
        FuncDef::new(
            "indent",
            "Adds a given number of spaces after each newline character in the given string.",
        )
        .param(Param::new("spaces", Type::Number))
        .param(Param::new("str", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let n = int_arg(a, 0)?;
            let s = str_arg(a, 1)?;
            indent(n, s).map(crate::limits::cty_string)
        }),
    );
    r.add(
        FuncDef::new(
            "title",
            "Replaces one letter after each non-letter and non-digit character with its uppercase form.",
        )
        .param(Param::new("str", Type::String))
        .returns(Type::String)
        .implement(|a| Ok(crate::limits::cty_string(title(str_arg(a, 0)?)))),
    );
    r.add(
        FuncDef::new(
            "trimspace",
            "Removes any consecutive space characters (as defined by Unicode) from the start and end of the given string.",
        )
        .param(Param::new("str", Type::String))
        .returns(Type::String)
        .implement(|a| Ok(crate::limits::cty_string(str_arg(a, 0)?.trim()))),
    );
    r.add(
        FuncDef::new(
            "trim",
            "Removes consecutive sequences of characters in \"cutset\" from the start and end of the given string.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("cutset", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let cut = str_arg(a, 1)?;
            Ok(crate::limits::cty_string(s.trim_matches(|c: char| cut.contains(c))))
        }),
    );
    r.add(
        FuncDef::new(
            "trimprefix",
            "Removes the given prefix from the start of the given string, if present.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("prefix", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let p = str_arg(a, 1)?;
            Ok(crate::limits::cty_string(s.strip_prefix(p).unwrap_or(s)))
        }),
    );
    r.add(
        FuncDef::new(
            "trimsuffix",
            "Removes the given suffix from the start of the given string, if present.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("suffix", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let p = str_arg(a, 1)?;
            Ok(crate::limits::cty_string(s.strip_suffix(p).unwrap_or(s)))
        }),
    );
    r.add(
        FuncDef::new(
            "startswith",
            "Determines if the input string starts with the given prefix.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("prefix", Type::String))
        .returns(Type::Bool)
        .implement(|a| Ok(Value::Bool(str_arg(a, 0)?.starts_with(str_arg(a, 1)?)))),
    );
    r.add(
        FuncDef::new(
            "endswith",
            "Determines if the input string ends with the given suffix.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("suffix", Type::String))
        .returns(Type::Bool)
        .implement(|a| Ok(Value::Bool(str_arg(a, 0)?.ends_with(str_arg(a, 1)?)))),
    );
    r.add(
        FuncDef::new(
            "strcontains",
            "Checks whether a substring is within another string.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("substr", Type::String))
        .returns(Type::Bool)
        .implement(|a| Ok(Value::Bool(str_arg(a, 0)?.contains(str_arg(a, 1)?)))),
    );
    r.add(
        FuncDef::new(
            "replace",
            "Replaces each occurrence of a substring (or of a /regex/) in a string with a replacement.",
        )
        .param(Param::new("str", Type::String))
        .param(Param::new("substr", Type::String))
        .param(Param::new("replace", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let sub = str_arg(a, 1)?;
            let rep = str_arg(a, 2)?;
            replace(s, sub, rep).map(crate::limits::cty_string)
        }),
    );
}

/// Go's `unicode.ToUpper` applied to each rune (simple case mapping: a
/// character whose full uppercase is several characters, like `ß`, is
/// kept).
/// `upper` (`to_upper`) or `lower` of argument 0. An ASCII string (the
/// usual case) maps to ASCII, already NFC: unchanged, it is the argument
/// itself (no copy); otherwise one copy cased in place. Other text goes
/// through [`upper`] / [`lower`] and NFC.
fn case_mapped(args: &[Value], to_upper: bool) -> Result<Value, CallError> {
    if let Some(Value::String(s)) = args.first()
        && s.is_ascii()
    {
        let changes = if to_upper {
            s.bytes().any(|b| b.is_ascii_lowercase())
        } else {
            s.bytes().any(|b| b.is_ascii_uppercase())
        };
        if !changes {
            return Ok(Value::String(s.clone()));
        }
        let mut out: std::sync::Arc<str> = std::sync::Arc::from(&**s);
        if let Some(text) = std::sync::Arc::get_mut(&mut out) {
            if to_upper {
                text.make_ascii_uppercase();
            } else {
                text.make_ascii_lowercase();
            }
        }
        return Ok(Value::String(out));
    }
    let s = str_arg(args, 0)?;
    let mapped = if to_upper { upper(s) } else { lower(s) };
    Ok(crate::limits::cty_string(mapped))
}

pub(crate) fn upper(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_uppercase();
    }
    s.chars().map(upper_char).collect()
}

fn upper_char(c: char) -> char {
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        // Greek with ypogegrammeni: the full mapping expands (ᾳ → ΑΙ), the
        // simple one Go uses goes to the precomposed capital (ᾼ).
        _ => match c as u32 {
            0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => {
                char::from_u32(c as u32 + 8).unwrap_or(c)
            }
            0x1FB3 | 0x1FC3 | 0x1FF3 => char::from_u32(c as u32 + 9).unwrap_or(c),
            _ => c,
        },
    }
}

/// Go's `unicode.ToLower` per rune: simple case mapping, no final-sigma
/// context rule; `İ` lowers to plain `i`.
pub(crate) fn lower(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.chars()
        .map(|c| {
            let mut it = c.to_lowercase();
            match (it.next(), it.next()) {
                (Some(l), None) => l,
                (Some(l), Some(_)) if c == '\u{130}' => l,
                _ => c,
            }
        })
        .collect()
}

/// The number of grapheme clusters in `s` (what `length` and the padding
/// widths of `format` count): ASCII text as [`clusters`] reads it, with
/// the `\n`s found by a `memchr` search (many bytes at a time).
pub(crate) fn grapheme_count(s: &str) -> usize {
    if s.is_ascii() {
        let b = s.as_bytes();
        let crlf = s
            .match_indices('\n')
            .filter(|&(i, _)| i > 0 && b[i - 1] == b'\r')
            .count();
        return b.len() - crlf;
    }
    s.graphemes(true).count()
}

/// The grapheme clusters of `s`, front to back or back to front. In ASCII
/// text every byte is a cluster of its own except a CR directly before an
/// LF, which joins it (UAX #29 rule GB3): such text is read without the
/// segmenter, which costs ~100 instructions a byte.
pub(crate) fn clusters(s: &str) -> Clusters<'_> {
    if s.is_ascii() {
        Clusters::Ascii(s)
    } else {
        Clusters::Unicode(s.graphemes(true))
    }
}

/// The iterator of [`clusters`].
pub(crate) enum Clusters<'a> {
    /// The ASCII text not read yet.
    Ascii(&'a str),
    Unicode(unicode_segmentation::Graphemes<'a>),
}

impl<'a> Iterator for Clusters<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Clusters::Ascii(rest) => {
                if rest.is_empty() {
                    return None;
                }
                let n = if rest.starts_with("\r\n") { 2 } else { 1 };
                let (g, tail) = rest.split_at(n);
                *rest = tail;
                Some(g)
            }
            Clusters::Unicode(g) => g.next(),
        }
    }
}

impl DoubleEndedIterator for Clusters<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Clusters::Ascii(rest) => {
                if rest.is_empty() {
                    return None;
                }
                let n = if rest.ends_with("\r\n") { 2 } else { 1 };
                let (head, g) = rest.split_at(rest.len() - n);
                *rest = head;
                Some(g)
            }
            Clusters::Unicode(g) => g.next_back(),
        }
    }
}

/// Reverses grapheme clusters.
pub(crate) fn strrev(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for g in clusters(s).rev() {
        out.push_str(g);
    }
    out
}

/// cty's `substr`, including its quirks (a negative offset counts from the
/// end; a negative length takes the rest; with a negative offset a zero
/// length is not special-cased).
pub(crate) fn substr(s: &str, mut offset: i64, length: i64) -> String {
    if offset < 0 {
        offset += grapheme_count(s) as i64;
    } else if length == 0 {
        return String::new();
    }
    let mut sub = s;
    if offset > 0 {
        let mut i = 0usize;
        let mut pos = 0i64;
        for g in clusters(s) {
            i += g.len();
            pos += 1;
            if pos == offset {
                break;
            }
            if i >= s.len() {
                return String::new();
            }
        }
        sub = &s[i..];
    }
    if length < 0 {
        return sub.to_owned();
    }
    let mut i = 0usize;
    let mut pos = 0i64;
    for g in clusters(sub) {
        i += g.len();
        pos += 1;
        if pos == length {
            break;
        }
    }
    sub[..i].to_owned()
}

fn join_impl(args: &[Value]) -> Result<Value, CallError> {
    let sep = str_arg(args, 0)?;
    let lists = &args[1..];
    if lists.is_empty() {
        return Err(CallError::new("at least one list is required"));
    }
    if lists.iter().any(|l| !l.is_wholly_known()) {
        return Ok(Value::Unknown(Type::String));
    }
    let mut out = String::new();
    let mut first = true;
    for (ai, list) in lists.iter().enumerate() {
        let items = list.as_seq().unwrap_or(&[]);
        for (ei, item) in items.iter().enumerate() {
            let Some(s) = item.as_str() else {
                let msg = if lists.len() > 1 {
                    format!(
                        "element {ei} of list {} is null; cannot concatenate null values",
                        ai + 1
                    )
                } else {
                    format!("element {ei} is null; cannot concatenate null values")
                };
                return Err(CallError::arg(ai + 1, msg));
            };
            if !first {
                out.push_str(sep);
            }
            first = false;
            out.push_str(s);
            if out.len() > MAX_STRING_BYTES {
                return Err(CallError::new(crate::limits::too_long_message()));
            }
        }
    }
    Ok(crate::limits::cty_string(out))
}

/// Go's `strings.Split`: an empty separator splits after each UTF-8
/// sequence; an empty string with a non-empty separator gives `[""]`.
pub(crate) fn split<'a>(s: &'a str, sep: &str) -> Vec<&'a str> {
    if sep.is_empty() {
        return s
            .char_indices()
            .map(|(i, c)| &s[i..i + c.len_utf8()])
            .collect();
    }
    // A one-byte separator (`","`, `" "`: the usual) is found by byte,
    // not by the general substring search.
    match sep.as_bytes() {
        &[b] if b.is_ascii() => s.split(char::from(b)).collect(),
        _ => s.split(sep).collect(),
    }
}

/// Removes all trailing `\r\n`, `\r` and `\n` sequences.
pub(crate) fn chomp(s: &str) -> &str {
    s.trim_end_matches(['\r', '\n'])
}

fn indent(n: i64, s: &str) -> Result<String, CallError> {
    if n < 0 {
        return Err(CallError::arg(
            0,
            "the number of spaces must not be negative",
        ));
    }
    let newlines = s.matches('\n').count();
    let extra = (n as u128) * (newlines as u128);
    if (s.len() as u128) + extra > MAX_STRING_BYTES as u128 {
        return Err(CallError::new(crate::limits::too_long_message()));
    }
    let pad = format!("\n{}", " ".repeat(n as usize));
    Ok(s.replace('\n', &pad))
}

/// Go's `strings.Title`: the first letter after a separator is mapped to
/// title case. ASCII letters, digits and `_` are not separators; other
/// characters are separators only if they are white space.
pub(crate) fn title(s: &str) -> String {
    let mut prev = ' ';
    s.chars()
        .map(|c| {
            let out = if is_separator(prev) { title_char(c) } else { c };
            prev = c;
            out
        })
        .collect()
}

fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    c.is_whitespace()
}

/// Go's `unicode.ToTitle`: the upper case except for the Latin digraphs
/// (which have a distinct title-case form) and Georgian letters (whose
/// title case is themselves).
fn title_char(c: char) -> char {
    match c {
        '\u{1C4}'..='\u{1C6}' => '\u{1C5}',
        '\u{1C7}'..='\u{1C9}' => '\u{1C8}',
        '\u{1CA}'..='\u{1CC}' => '\u{1CB}',
        '\u{1F1}'..='\u{1F3}' => '\u{1F2}',
        '\u{10D0}'..='\u{10FA}' | '\u{10FD}'..='\u{10FF}' => c,
        _ => upper_char(c),
    }
}

/// Terraform's `replace`: a `/regex/` search string is a Go regexp with
/// `$1`/`${name}` expansion; otherwise a literal replacement of every
/// occurrence (an empty search string inserts around every character).
pub(crate) fn replace(s: &str, sub: &str, rep: &str) -> Result<String, CallError> {
    if sub.len() > 1 && sub.starts_with('/') && sub.ends_with('/') {
        let re = crate::go_regex::compile(&sub[1..sub.len() - 1])
            .map_err(|e| CallError::new(e.go_message()))?;
        let out = crate::go_regex::replace_all(&re, s, rep)?;
        return Ok(out);
    }
    let count = if sub.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(sub).count()
    };
    let grow = (rep.len() as u128) * (count as u128);
    if (s.len() as u128) + grow > MAX_STRING_BYTES as u128 {
        return Err(CallError::new(crate::limits::too_long_message()));
    }
    Ok(s.replace(sub, rep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn case_mapping_is_simple() {
        assert_eq!(upper("straße"), "STRAßE");
        assert_eq!(lower("İ"), "i");
        assert_eq!(lower("ΟΔΟΣ"), "οδοσ");
        assert_eq!(upper("алло!"), "АЛЛО!");
        assert_eq!(upper("ᾳᾀῳ"), "ᾼᾈῼ");
    }

    #[test]
    fn ascii_clusters_are_the_segmenter_s() {
        // Every string of up to 6 bytes over CR, LF, another control, a
        // letter and a space, and a non-ASCII one for the slow path.
        let alphabet = ['\r', '\n', '\u{1}', 'a', ' '];
        let mut texts = vec![String::new(), "e\u{301}\r\nx".to_owned()];
        for len in 1..=6 {
            for mut i in 0..alphabet.len().pow(len) {
                let mut t = String::new();
                for _ in 0..len {
                    t.push(alphabet[i % alphabet.len()]);
                    i /= alphabet.len();
                }
                texts.push(t);
            }
        }
        for t in texts {
            let whole: Vec<&str> = t.graphemes(true).collect();
            assert_eq!(grapheme_count(&t), whole.len(), "{t:?}");
            assert_eq!(clusters(&t).collect::<Vec<_>>(), whole, "{t:?}");
            let mut back: Vec<&str> = clusters(&t).rev().collect();
            back.reverse();
            assert_eq!(back, whole, "{t:?} backwards");
            // From both ends at once, meeting in the middle.
            let mut it = clusters(&t);
            let (mut front, mut rear) = (Vec::new(), Vec::new());
            loop {
                match (it.next(), it.next_back()) {
                    (Some(a), Some(b)) => {
                        front.push(a);
                        rear.push(b);
                    }
                    (Some(a), None) => front.push(a),
                    (None, _) => break,
                }
            }
            rear.reverse();
            front.extend(rear);
            assert_eq!(front, whole, "{t:?} from both ends");
        }
    }

    #[test]
    fn substr_quirks() {
        assert_eq!(substr("hello world", 1, 4), "ello");
        assert_eq!(substr("hello", 1, -1), "ello");
        assert_eq!(substr("hello", -3, 2), "ll");
        assert_eq!(substr("hello", 10, 10), "");
        assert_eq!(substr("hello", 5, 1), "");
        assert_eq!(
            substr("noël", 0, 3),
            "noël".graphemes(true).take(3).collect::<String>()
        );
        assert_eq!(substr("hello", -1, 0), "o");
        assert_eq!(substr("hello", -10, 2), "he");
        assert_eq!(substr("", 0, 3), "");
    }

    #[test]
    fn split_like_go() {
        assert_eq!(split("abc", ""), vec!["a", "b", "c"]);
        assert_eq!(split("", ","), vec![""]);
        assert_eq!(split("a,,b,", ","), vec!["a", "", "b", ""]);
        assert!(split("", "").is_empty());
        assert_eq!(split("a b  c ", " "), vec!["a", "b", "", "c", ""]);
        assert_eq!(split("é,漢,", ","), vec!["é", "漢", ""]);
        assert_eq!(split("a--b-c", "--"), vec!["a", "b-c"]);
        assert_eq!(split("aéb", "é"), vec!["a", "b"]);
    }

    #[test]
    fn title_like_go() {
        assert_eq!(title("hello-world foo_bar"), "Hello-World Foo_bar");
        assert_eq!(title("ǆemal"), "ǅemal");
        assert_eq!(title("élan vital"), "Élan Vital");
    }

    #[test]
    fn chomp_and_indent() {
        assert_eq!(chomp("a\r\n\n\r"), "a");
        assert_eq!(indent(2, "a\nb").ok().as_deref(), Some("a\n  b"));
        assert!(indent(-1, "a").is_err());
        assert!(indent(i64::MAX, "a\nb").is_err());
    }

    #[test]
    fn replace_literal_and_regex() {
        assert_eq!(replace("abc", "", "-").ok().as_deref(), Some("-a-b-c-"));
        assert_eq!(
            replace("-ab-axxb-", "/a(x*)b/", "${1}W").ok().as_deref(),
            Some("-W-xxW-")
        );
        assert_eq!(
            replace("-ab-axxb-", "/a(x*)b/", "$1W").ok().as_deref(),
            Some("---")
        );
        assert!(replace("hello", "/(l/", "x").is_err());
        assert_eq!(replace("x", "/", "y").ok().as_deref(), Some("x"));
    }
}
