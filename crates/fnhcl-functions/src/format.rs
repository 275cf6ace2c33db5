//! `format` and `formatlist` (cty 1.12's printf-like formatter).
//!
//! Verb syntax: `%` flags (`0 # - + space`), width (`[1-9][0-9]*`),
//! precision (`.` digits), argument index (`[n]`), then a letter. Verbs:
//! `%v %#v %t %b %d %o %x %X %e %E %f %g %G %s %q`, and `%%`. Widths and
//! precisions of strings count grapheme clusters.

use fnhcl_value::{Type, Value};

use crate::args::str_arg;
use crate::error::CallError;
use crate::limits::{MAX_STRING_BYTES, check_len};
use crate::numfmt::{self, Spec};
use crate::quote::{go_quote, go_quote_rune};
use crate::registry::{FuncDef, Param, Registry};

/// Go's `fmt` refuses widths and precisions above this for numbers.
const MAX_NUMERIC_WIDTH: usize = 1_000_000;

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "format",
            "Constructs a string by applying formatting verbs to a series of arguments, using a similar syntax to the C function \"printf\".",
        )
        .param(Param::new("format", Type::String))
        .variadic(Param::new("args", Type::Dynamic).allow_null())
        .returns(Type::String)
        .implement(|a| {
            let fmt = str_arg(a, 0)?;
            let rest = &a[1..];
            if rest.iter().any(|v| !v.is_wholly_known()) {
                return Ok(Value::Unknown(Type::String));
            }
            format_value(fmt, rest)
        }),
    );
    r.add(
        FuncDef::new(
            "formatlist",
            "Constructs a list of strings by applying formatting verbs to a series of arguments, using a similar syntax to the C function \"printf\".",
        )
        .param(Param::new("format", Type::String))
        .variadic(
            Param::new("args", Type::Dynamic)
                .allow_null()
                .allow_unknown(),
        )
        .returns_with("list(string)", |_| Ok(Type::list(Type::String)))
        .implement(formatlist),
    );
}

/// Formats `args` (already known) according to `fmt`. Errors blaming an
/// extraneous argument carry its index in the full argument list.
pub(crate) fn format(fmt: &str, args: &[Value]) -> Result<String, CallError> {
    let mut out = String::new();
    format_into(&mut out, fmt, args)?;
    Ok(out)
}

thread_local! {
    /// `format`'s text buffer, kept between calls on this thread: the text
    /// is copied into the result's `Arc<str>` anyway (as a template's).
    static FORMAT_BUF: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// The largest buffer kept between `format` calls (bytes).
const KEPT_BUF_MAX: usize = 4096;

/// `format` as the built-in returns it: the text built in the thread's
/// kept buffer and copied once into the string value.
fn format_value(fmt: &str, args: &[Value]) -> Result<Value, CallError> {
    let mut buf = FORMAT_BUF.take();
    buf.clear();
    let r = format_into(&mut buf, fmt, args).map(|()| crate::limits::cty_string(&buf));
    if buf.capacity() <= KEPT_BUF_MAX {
        FORMAT_BUF.set(buf);
    }
    r
}

/// [`format`] appending to `out` (empty on entry).
fn format_into(out: &mut String, fmt: &str, args: &[Value]) -> Result<(), CallError> {
    let b = fmt.as_bytes();
    // The text and a short value per verb, so the usual result allocates once.
    out.reserve(fmt.len().saturating_add(16).min(4096));
    let mut next_arg = 1usize;
    let mut highest = 0usize;
    let mut p = 0usize;
    let mut lit_start = 0usize;
    while p < b.len() {
        if b[p] != b'%' {
            p += 1;
            continue;
        }
        out.push_str(&fmt[lit_start..p]);
        let ts = p;
        p += 1;
        if p < b.len() && b[p] == b'%' {
            out.push('%');
            p += 1;
            lit_start = p;
            continue;
        }
        let mut spec = Spec::default();
        let mut arg_num = next_arg;
        // flags
        while p < b.len() {
            match b[p] {
                b'0' => spec.zero = true,
                b'#' => spec.sharp = true,
                b'-' => spec.minus = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                _ => break,
            }
            p += 1;
        }
        // width
        if p < b.len() && (b'1'..=b'9').contains(&b[p]) {
            let (n, np) = digits(b, p);
            spec.width = Some(n);
            p = np;
        }
        // precision
        if p < b.len() && b[p] == b'.' {
            let (n, np) = digits(b, p + 1);
            spec.prec = Some(n);
            p = np;
        }
        // argument index
        if p < b.len() && b[p] == b'[' {
            p += 1;
            if p >= b.len() {
                return Err(eof_error(p));
            }
            if !(b'1'..=b'9').contains(&b[p]) {
                return Err(bad_char(fmt, p));
            }
            let (n, np) = digits(b, p);
            arg_num = n;
            p = np;
            if p >= b.len() {
                return Err(eof_error(p));
            }
            if b[p] != b']' {
                return Err(bad_char(fmt, p));
            }
            p += 1;
        }
        if p >= b.len() {
            return Err(eof_error(p));
        }
        if !b[p].is_ascii_alphabetic() {
            return Err(bad_char(fmt, p));
        }
        let mode = b[p] as char;
        p += 1;
        lit_start = p;
        let raw = &fmt[ts..p];
        highest = highest.max(arg_num);
        append(out, raw, ts, mode, arg_num, &spec, args)?;
        check_len(out.len())?;
        next_arg = arg_num.saturating_add(1);
    }
    out.push_str(&fmt[lit_start..]);
    check_len(out.len())?;
    if highest < args.len() {
        let first_bad = highest + 1;
        if highest == 0 {
            return Err(CallError::arg(
                first_bad,
                "too many arguments; no verbs in format string",
            ));
        }
        return Err(CallError::arg(
            first_bad,
            format!("too many arguments; only {highest} used by format string"),
        ));
    }
    Ok(())
}

/// Reads decimal digits from `p`, saturating (the caller checks limits).
fn digits(b: &[u8], mut p: usize) -> (usize, usize) {
    let mut n = 0usize;
    while p < b.len() && b[p].is_ascii_digit() {
        n = n.saturating_mul(10).saturating_add((b[p] - b'0') as usize);
        p += 1;
    }
    (n, p)
}

fn eof_error(p: usize) -> CallError {
    CallError::new(format!("invalid format string starting at offset {p}"))
}

fn bad_char(fmt: &str, p: usize) -> CallError {
    let c = fmt[p..].chars().next().unwrap_or('\u{FFFD}');
    CallError::new(format!(
        "unrecognized format character {} at offset {p}",
        go_quote_rune(c)
    ))
}

/// A verb as Go's `%q` prints it, quoted only when an error message is
/// actually built.
struct Quoted<'a>(&'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&go_quote(self.0))
    }
}

fn append(
    out: &mut String,
    raw: &str,
    offset: usize,
    mode: char,
    arg_num: usize,
    spec: &Spec,
    args: &[Value],
) -> Result<(), CallError> {
    let qraw = Quoted(raw);
    let Some(arg) = arg_num.checked_sub(1).and_then(|i| args.get(i)) else {
        return Err(CallError::new(format!(
            "not enough arguments for {qraw} at {offset}: need index {arg_num} but have {} total",
            args.len()
        )));
    };
    let arg = arg.unmarked();
    if mode != 'v' && arg.is_null() {
        return Err(CallError::new(format!(
            "unsupported value for {qraw} at {offset}: null value cannot be formatted"
        )));
    }
    let unsupported =
        |msg: &str| CallError::new(format!("unsupported value for {qraw} at {offset}: {msg}"));
    for size in [spec.width, spec.prec].into_iter().flatten() {
        if size > MAX_STRING_BYTES {
            return Err(unsupported(&format!(
                "width and precision must not exceed {MAX_STRING_BYTES}"
            )));
        }
    }
    match mode {
        'v' => {
            if !spec.sharp && !arg.is_null() {
                match arg {
                    Value::String(s) => {
                        pad_width(out, spec, s);
                        return Ok(());
                    }
                    Value::Number(n) => {
                        pad_width(out, spec, &numfmt::shortest_g(n));
                        return Ok(());
                    }
                    _ => {}
                }
            }
            let js = fnhcl_value::json::to_cty_json_text(arg).map_err(|e| unsupported(&e))?;
            pad_width(out, spec, &js);
            Ok(())
        }
        't' => {
            let v = crate::convert::convert(arg, &Type::Bool).map_err(|e| unsupported(&e))?;
            out.push_str(if v.as_bool() == Some(true) {
                "true"
            } else {
                "false"
            });
            Ok(())
        }
        'b' | 'd' | 'o' | 'x' | 'X' | 'e' | 'E' | 'f' | 'g' | 'G' => {
            for size in [spec.width, spec.prec].into_iter().flatten() {
                if size > MAX_NUMERIC_WIDTH {
                    return Err(unsupported(&format!(
                        "width and precision of numbers must not exceed {MAX_NUMERIC_WIDTH}"
                    )));
                }
            }
            let v = crate::convert::convert(arg, &Type::Number).map_err(|e| unsupported(&e))?;
            let Some(n) = v.as_number() else {
                return Err(unsupported("number required"));
            };
            if matches!(mode, 'b' | 'd' | 'o' | 'x' | 'X') {
                if let Some(i) = n.to_i64() {
                    // Small integers (the usual case) skip the exact decimal
                    // and the big integer.
                    numfmt::write_u64(out, n.is_negative(), i.unsigned_abs(), mode, spec);
                    return Ok(());
                }
                let Some(abs) = numfmt::exact(n).and_then(|d| d.to_integer()) else {
                    return Err(unsupported("an integer is required"));
                };
                out.push_str(&numfmt::format_int(n.is_negative(), &abs, mode, spec));
            } else {
                out.push_str(&numfmt::format_float(n, mode, spec));
            }
            Ok(())
        }
        's' | 'q' => {
            let v = crate::convert::convert(arg, &Type::String).map_err(|e| unsupported(&e))?;
            let Some(s) = v.as_str() else {
                return Err(unsupported("string required"));
            };
            let s = match spec.prec {
                Some(p) if p > 0 => {
                    let end: usize = crate::strings::clusters(s).take(p).map(str::len).sum();
                    &s[..end]
                }
                _ => s,
            };
            if mode == 's' {
                pad_width(out, spec, s);
            } else {
                let mut quoted = String::with_capacity(s.len() + 2);
                fnhcl_value::json::write_json_string(&mut quoted, s);
                pad_width(out, spec, &quoted);
            }
            Ok(())
        }
        _ => Err(CallError::new(format!(
            "unsupported format verb {} in {qraw} at offset {offset}",
            go_quote_rune(mode)
        ))),
    }
}

/// cty's `formatPadWidth`: pads to the width in grapheme clusters, with
/// `0` if the zero flag is set (even when left-aligned).
fn pad_width(out: &mut String, spec: &Spec, s: &str) {
    let Some(w) = spec.width else {
        out.push_str(s);
        return;
    };
    let have = crate::strings::grapheme_count(s);
    if have >= w {
        out.push_str(s);
        return;
    }
    let pad = if spec.zero { '0' } else { ' ' };
    if spec.minus {
        out.push_str(s);
        out.extend(std::iter::repeat_n(pad, w - have));
    } else {
        out.extend(std::iter::repeat_n(pad, w - have));
        out.push_str(s);
    }
}

fn formatlist(args: &[Value]) -> Result<Value, CallError> {
    let fmt_v = &args[0];
    let rest = &args[1..];
    let list_ty = Type::list(Type::String);
    if !fmt_v.is_known() {
        return Ok(Value::Unknown(list_ty));
    }
    let fmt = str_arg(args, 0)?;
    if rest.is_empty() {
        let s = format(fmt, &[])?;
        return Ok(Value::list(
            Type::String,
            vec![crate::limits::cty_string(s)],
        ));
    }
    let mut iter_len: Option<(usize, usize)> = None;
    let mut unknown = false;
    for (i, arg) in rest.iter().enumerate() {
        let ty = arg.type_of();
        let is_seq = matches!(ty, Type::List(_) | Type::Set(_) | Type::Tuple(_));
        if is_seq && !arg.is_null() {
            let len = match arg.as_seq() {
                Some(items) => items.len(),
                None => {
                    // Unknown list or set: no length yet.
                    if let Type::Tuple(ts) = &ty {
                        ts.len()
                    } else {
                        unknown = true;
                        continue;
                    }
                }
            };
            match iter_len {
                None => iter_len = Some((len, i)),
                Some((l, chooser)) if l != len => {
                    return Err(CallError::arg(
                        i + 1,
                        format!(
                            "argument {} has length {len}, which is inconsistent with argument {} of length {l}",
                            i + 1,
                            chooser + 1
                        ),
                    ));
                }
                _ => {}
            }
            if !arg.is_known() {
                unknown = true;
            }
        } else if ty == Type::Dynamic && !arg.is_known() {
            unknown = true;
        }
    }
    if unknown {
        return Ok(Value::Unknown(list_ty));
    }
    let n = match iter_len {
        Some((0, _)) => return Ok(Value::list(Type::String, Vec::new())),
        Some((l, _)) => l,
        None => 1,
    };
    let mut out = Vec::with_capacity(n);
    let mut total = 0usize;
    'iter: for idx in 0..n {
        let mut call_args = Vec::with_capacity(rest.len());
        for arg in rest {
            let item = match arg.as_seq() {
                Some(items) if !arg.is_null() => items[idx].clone(),
                _ => arg.clone(),
            };
            if !item.is_wholly_known() {
                out.push(Value::Unknown(Type::String));
                continue 'iter;
            }
            call_args.push(item);
        }
        let s = format(fmt, &call_args).map_err(|e| {
            CallError::new(format!("error on format iteration {idx}: {}", e.message))
        })?;
        total += s.len();
        check_len(total)?;
        out.push(crate::limits::cty_string(s));
    }
    Ok(Value::list(Type::String, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fnhcl_value::Number;

    fn s(v: &str) -> Value {
        crate::limits::cty_string(v)
    }
    fn n(v: &str) -> Value {
        Value::Number(Number::parse(v).unwrap_or_else(|| Number::from_i64(0)))
    }
    fn ok(fmt: &str, args: &[Value]) -> String {
        match format(fmt, args) {
            Ok(s) => s,
            Err(e) => format!("ERR {}", e.message),
        }
    }

    #[test]
    fn verbs() {
        assert_eq!(ok("Hello, %s!", &[s("Ander")]), "Hello, Ander!");
        assert_eq!(ok("%#v", &[Value::null()]), "null");
        assert_eq!(ok("%v", &[Value::null()]), "null");
        assert_eq!(ok("%5.1f", &[n("3.14159")]), "  3.1");
        assert_eq!(ok("%-10s|", &[s("hello")]), "hello     |");
        assert_eq!(ok("%.1q", &[s("日本語")]), "\"日\"");
        assert_eq!(ok("%4s", &[s("💃🏿")]), "   💃🏿");
        assert_eq!(ok("%[2]d things", &[n("1"), n("10")]), "10 things");
        assert_eq!(ok("%+d", &[n("10")]), "+10");
        assert_eq!(ok("%x", &[s("255")]), "ff");
        assert_eq!(ok("%05d", &[n("-42")]), "-0042");
        assert_eq!(ok("%-05s|", &[s("ab")]), "ab000|");
        assert_eq!(ok("%t", &[s("true")]), "true");
        assert_eq!(ok("%v", &[n("1e20")]), "1e+20");
        assert_eq!(ok("%q", &[Value::FALSE]), "\"false\"");
        assert_eq!(
            ok("%f", &[s("100000000000000000000000000000000000001")]),
            "100000000000000000000000000000000000001.000000"
        );
    }

    #[test]
    fn errors() {
        assert_eq!(
            ok("%v %v %v", &[Value::TRUE, Value::TRUE]),
            "ERR not enough arguments for \"%v\" at 6: need index 3 but have 2 total"
        );
        assert_eq!(
            ok("%z is not valid", &[n("10")]),
            "ERR unsupported format verb 'z' in \"%z\" at offset 0"
        );
        assert_eq!(
            ok("%[0]s", &[Value::TRUE]),
            "ERR unrecognized format character '0' at offset 2"
        );
        assert_eq!(
            ok("%d", &[n("3.5")]),
            "ERR unsupported value for \"%d\" at 0: an integer is required"
        );
        assert_eq!(
            ok("%d", &[Value::TRUE]),
            "ERR unsupported value for \"%d\" at 0: number required"
        );
        assert_eq!(
            ok("%s", &[Value::Null(Type::String)]),
            "ERR unsupported value for \"%s\" at 0: null value cannot be formatted"
        );
        assert!(ok("%999999999s", &[s("")]).starts_with("ERR "));
        assert!(ok("%99999999999999999999999999s", &[s("")]).starts_with("ERR "));
        assert!(ok("%.9999999f", &[n("1")]).starts_with("ERR "));
        assert_eq!(
            ok("abc%", &[]),
            "ERR invalid format string starting at offset 4"
        );
        let e = format("only %d", &[n("1"), n("2")]).err();
        assert_eq!(e.as_ref().and_then(|e| e.arg), Some(2));
    }

    #[test]
    fn formatlist_cases() {
        let l = Value::list(Type::String, vec![s("a"), s("b")]);
        let r = formatlist(&[s("%s=%d"), l.clone(), Value::tuple(vec![n("1"), n("2")])]);
        assert_eq!(
            r.ok(),
            Some(Value::list(Type::String, vec![s("a=1"), s("b=2")]))
        );
        let r = formatlist(&[s("%s"), l, Value::tuple(vec![n("1")])]);
        assert!(r.is_err());
        let r = formatlist(&[s("%s"), Value::Unknown(Type::list(Type::String))]);
        assert_eq!(r.ok(), Some(Value::Unknown(Type::list(Type::String))));
        let r = formatlist(&[s("hello")]);
        assert_eq!(r.ok(), Some(Value::list(Type::String, vec![s("hello")])));
        let r = formatlist(&[
            s("%s"),
            Value::tuple(vec![s("a"), Value::Unknown(Type::String)]),
        ]);
        assert_eq!(
            r.ok(),
            Some(Value::list(
                Type::String,
                vec![s("a"), Value::Unknown(Type::String)]
            ))
        );
    }
}
