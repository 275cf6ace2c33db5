//! Encoding functions: base64decode base64encode base64gzip csvdecode
//! textdecodebase64 textencodebase64 urlencode.

use fnhcl_value::{Key, Type, Value};

use crate::args::str_arg;
use crate::base64::{base64_decode, base64_encode};
use crate::charsets;
use crate::error::CallError;
use crate::limits::check_len;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "base64decode",
            "Decodes a string containing a base64 sequence.",
        )
        .param(Param::new("str", Type::String).allow_marked())
        .returns(Type::String)
        .implement(|a| {
            let marked = a[0].is_marked_deep();
            let s = str_arg(a, 0)?;
            let Ok(bytes) = base64_decode(s) else {
                let shown = if marked {
                    "(sensitive value)".to_owned()
                } else {
                    crate::quote::go_quote(s)
                };
                return Err(CallError::new(format!(
                    "failed to decode base64 data {shown}"
                )));
            };
            let out = String::from_utf8(bytes).map_err(|_| {
                CallError::new("the result of decoding the provided string is not valid UTF-8")
            })?;
            Ok(crate::limits::cty_string(out).mark_if(marked))
        }),
    );
    r.add(
        FuncDef::new("base64encode", "Encodes a string to a base64 sequence.")
            .param(Param::new("str", Type::String))
            .returns(Type::String)
            .implement(|a| {
                let s = str_arg(a, 0)?;
                check_len(s.len() / 3 * 4 + 4)?;
                Ok(crate::limits::cty_string(base64_encode(s.as_bytes())))
            }),
    );
    r.add(
        FuncDef::new(
            "base64gzip",
            "Compresses the given string with gzip and then encodes the result to base64.",
        )
        .param(Param::new("str", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let gz = crate::gzip::gzip(s.as_bytes());
            check_len(gz.len() / 3 * 4 + 4)?;
            Ok(crate::limits::cty_string(base64_encode(&gz)))
        }),
    );
    r.add(
        FuncDef::new("urlencode", "Applies URL encoding to a given string.")
            .param(Param::new("str", Type::String))
            .returns(Type::String)
            .implement(|a| {
                let s = str_arg(a, 0)?;
                check_len(s.len().saturating_mul(3))?;
                Ok(crate::limits::cty_string(query_escape(s)))
            }),
    );
    r.add(
        FuncDef::new(
            "textencodebase64",
            "Encodes the given string using the given character encoding and returns the result as base64.",
        )
        .param(Param::new("string", Type::String))
        .param(Param::new("encoding", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let (name, cs) = charset_arg(a)?;
            let bytes = charsets::encode(cs, s).ok_or_else(|| {
                CallError::arg(
                    0,
                    format!(
                        "the given string contains characters that cannot be represented in {name}"
                    ),
                )
            })?;
            check_len(bytes.len() / 3 * 4 + 4)?;
            Ok(crate::limits::cty_string(base64_encode(&bytes)))
        }),
    );
    r.add(
        FuncDef::new(
            "textdecodebase64",
            "Decodes a base64 string holding text in the given character encoding.",
        )
        .param(Param::new("source", Type::String))
        .param(Param::new("encoding", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let (name, cs) = charset_arg(a)?;
            let bytes = base64_decode(s).map_err(|off| {
                CallError::arg(
                    0,
                    format!("the given value is has an invalid base64 symbol at offset {off}"),
                )
            })?;
            let text = charsets::decode(cs, &bytes).ok_or_else(|| {
                CallError::arg(
                    0,
                    format!("the given string contains symbols that are not defined for {name}"),
                )
            })?;
            check_len(text.len())?;
            Ok(crate::limits::cty_string(text))
        }),
    );
    r.add(
        FuncDef::new(
            "csvdecode",
            "Decodes a string containing CSV-formatted data and produces a list of maps representing that data.",
        )
        .param(Param::new("str", Type::String))
        .returns_with("list(object(...)) (from the header line)", |a| {
            if !a[0].is_known() {
                return Ok(Type::Dynamic);
            }
            let headers = csv_headers(str_arg(a, 0)?).map_err(CallError::new)?;
            Ok(Type::list(csv_row_type(&headers)))
        })
        .implement(|a| csv_decode(str_arg(a, 0)?).map_err(CallError::new)),
    );
}

fn charset_arg(a: &[Value]) -> Result<(&'static str, charsets::Charset), CallError> {
    let name = str_arg(a, 1)?;
    charsets::lookup(name).ok_or_else(|| {
        CallError::arg(
            1,
            format!(
                "{} is not a supported IANA encoding name or alias in this Terraform version",
                crate::quote::go_quote(name)
            ),
        )
    })
}

/// Go's `url.QueryEscape`.
pub(crate) fn query_escape(s: &str) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => {
                out.push('%');
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------
// CSV (Go's encoding/csv with default settings)

struct CsvReader<'a> {
    src: &'a [u8],
    pos: usize,
    line: usize,
    fields_per_record: usize,
}

enum CsvErr {
    Eof,
    Parse { line: usize, msg: &'static str },
}

const ERR_BARE_QUOTE: &str = "bare \" in non-quoted-field";
const ERR_QUOTE: &str = "extraneous or missing \" in quoted-field";
const ERR_FIELD_COUNT: &str = "wrong number of fields";

impl<'a> CsvReader<'a> {
    fn new(s: &'a str) -> CsvReader<'a> {
        CsvReader {
            src: s.as_bytes(),
            pos: 0,
            line: 0,
            fields_per_record: 0,
        }
    }

    /// One line including its `\n` (with `\r\n` normalised to `\n` and a
    /// final `\r` at EOF dropped); `None` at EOF.
    fn read_line(&mut self) -> Option<Vec<u8>> {
        if self.pos >= self.src.len() {
            return None;
        }
        let rest = &self.src[self.pos..];
        let (mut line, at_eof) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (rest[..=i].to_vec(), false),
            None => (rest.to_vec(), true),
        };
        self.pos += line.len();
        if at_eof && line.last() == Some(&b'\r') {
            line.pop();
        }
        self.line += 1;
        let n = line.len();
        if n >= 2 && line[n - 2] == b'\r' && line[n - 1] == b'\n' {
            line.truncate(n - 2);
            line.push(b'\n');
        }
        Some(line)
    }

    fn read_record(&mut self) -> Result<Vec<String>, CsvErr> {
        let mut line = loop {
            match self.read_line() {
                None => return Err(CsvErr::Eof),
                Some(l) if l == b"\n" || l.is_empty() => continue,
                Some(l) => break l,
            }
        };
        let rec_line = self.line;
        // Go's position line: advanced only by non-empty continuation lines.
        let mut pos_line = rec_line;
        let mut fields: Vec<Vec<u8>> = Vec::new();
        let mut cur: &[u8];
        let mut owned = std::mem::take(&mut line);
        let mut at = 0usize;
        'fields: loop {
            cur = &owned[at..];
            if cur.first() != Some(&b'"') {
                let i = cur.iter().position(|&b| b == b',');
                let field = match i {
                    Some(i) => &cur[..i],
                    None => &cur[..cur.len() - usize::from(cur.last() == Some(&b'\n'))],
                };
                if field.contains(&b'"') {
                    return Err(CsvErr::Parse {
                        line: self.line,
                        msg: ERR_BARE_QUOTE,
                    });
                }
                fields.push(field.to_vec());
                match i {
                    Some(i) => {
                        at += i + 1;
                        continue 'fields;
                    }
                    None => break 'fields,
                }
            }
            // Quoted field.
            at += 1;
            let mut field = Vec::new();
            loop {
                cur = &owned[at..];
                if let Some(i) = cur.iter().position(|&b| b == b'"') {
                    field.extend_from_slice(&cur[..i]);
                    at += i + 1;
                    let next = owned.get(at).copied();
                    match next {
                        Some(b'"') => {
                            field.push(b'"');
                            at += 1;
                        }
                        Some(b',') => {
                            at += 1;
                            fields.push(field);
                            continue 'fields;
                        }
                        None | Some(b'\n') if at + usize::from(next.is_some()) == owned.len() => {
                            fields.push(field);
                            break 'fields;
                        }
                        _ => {
                            return Err(CsvErr::Parse {
                                line: self.line,
                                msg: ERR_QUOTE,
                            });
                        }
                    }
                } else if !cur.is_empty() {
                    field.extend_from_slice(cur);
                    match self.read_line() {
                        Some(l) => {
                            if !l.is_empty() {
                                pos_line += 1;
                            }
                            owned = l;
                            at = 0;
                        }
                        None => {
                            // EOF inside a quoted field.
                            return Err(CsvErr::Parse {
                                line: pos_line,
                                msg: ERR_QUOTE,
                            });
                        }
                    }
                } else {
                    return Err(CsvErr::Parse {
                        line: pos_line,
                        msg: ERR_QUOTE,
                    });
                }
            }
        }
        let out: Vec<String> = fields
            .into_iter()
            .map(|f| String::from_utf8_lossy(&f).into_owned())
            .collect();
        if self.fields_per_record > 0 {
            if out.len() != self.fields_per_record {
                return Err(CsvErr::Parse {
                    line: rec_line,
                    msg: ERR_FIELD_COUNT,
                });
            }
        } else {
            self.fields_per_record = out.len();
        }
        Ok(out)
    }
}

fn csv_error(e: CsvErr) -> String {
    match e {
        CsvErr::Eof => "missing header line".into(),
        CsvErr::Parse { line, msg } => format!("CSV parse error on line {line}: {msg}"),
    }
}

fn csv_headers(s: &str) -> Result<Vec<String>, String> {
    let mut r = CsvReader::new(s);
    let headers = r.read_record().map_err(csv_error)?;
    let mut seen = std::collections::BTreeSet::new();
    for h in &headers {
        if !seen.insert(h.as_str()) {
            return Err(format!(
                "duplicate column name {}",
                crate::quote::go_quote(h)
            ));
        }
    }
    Ok(headers)
}

fn csv_row_type(headers: &[String]) -> Type {
    Type::object(
        headers
            .iter()
            .map(|h| (Key::from(crate::limits::nfc(h).as_ref()), Type::String))
            .collect(),
    )
}

fn csv_decode(s: &str) -> Result<Value, String> {
    let headers = csv_headers(s)?;
    let mut r = CsvReader::new(s);
    r.fields_per_record = headers.len();
    r.read_record().map_err(csv_error)?;
    let mut rows = Vec::new();
    loop {
        match r.read_record() {
            Err(CsvErr::Eof) => break,
            Err(e) => return Err(csv_error(e)),
            Ok(cols) => {
                let attrs: fnhcl_value::ObjMap = headers
                    .iter()
                    .zip(cols)
                    .map(|(h, c)| {
                        (
                            Key::from(crate::limits::nfc(h).as_ref()),
                            crate::limits::cty_string(c),
                        )
                    })
                    .collect();
                rows.push(Value::object(attrs));
            }
        }
    }
    Ok(Value::list(csv_row_type(&headers), rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gzip_like_go() {
        let gz = crate::gzip::gzip(b"test");
        assert_eq!(
            base64_encode(&gz),
            "H4sIAAAAAAAA/ypJLS4BAAAA//8BAAD//wx+f9gEAAAA"
        );
    }

    #[test]
    fn urlencode_like_go() {
        assert_eq!(query_escape("Hello World!"), "Hello+World%21");
        assert_eq!(query_escape("a.b~c*d"), "a.b~c%2Ad");
        assert_eq!(query_escape("☃"), "%E2%98%83");
    }

    #[test]
    fn csv_like_go() {
        let v = csv_decode("a,b,c\n1,2,3\n4,5,6").ok();
        assert_eq!(
            v.as_ref().and_then(|v| v.as_seq()).map(<[Value]>::len),
            Some(2)
        );
        let v = csv_decode("name,note\n\"Smith, J\",\"said \"\"hi\"\"\"").ok();
        let row = v
            .as_ref()
            .and_then(|v| v.as_seq())
            .and_then(|s| s.first().cloned());
        assert_eq!(
            row.as_ref()
                .and_then(|r| r.as_entries())
                .and_then(|e| e.get("note"))
                .and_then(|n| n.as_str()),
            Some("said \"hi\"")
        );
        let v = csv_decode("a\r\n\"multi\r\nline\"\r\n\r\n").ok();
        let row = v
            .as_ref()
            .and_then(|v| v.as_seq())
            .and_then(|s| s.first().cloned());
        assert_eq!(
            row.as_ref()
                .and_then(|r| r.as_entries())
                .and_then(|e| e.get("a"))
                .and_then(|n| n.as_str()),
            Some("multi\nline")
        );
        assert_eq!(
            csv_decode("a,b\n1").err().as_deref(),
            Some("CSV parse error on line 2: wrong number of fields")
        );
        assert_eq!(csv_decode("").err().as_deref(), Some("missing header line"));
        assert!(csv_decode("a,a\n1,2").is_err());
        assert!(csv_decode("a\nx\"y").is_err());
        assert!(csv_decode("a\n\"xy").is_err());
        assert!(csv_decode("a\n\"x\"y").is_err());
        assert_eq!(
            csv_decode("a,b").ok(),
            Some(Value::list(csv_row_type(&["a".into(), "b".into()]), vec![]))
        );
    }

    #[test]
    fn charsets_like_terraform() {
        let (name, cs) = charsets::lookup("UTF-16LE").unwrap_or(("", charsets::Charset::Utf8));
        assert_eq!(name, "UTF-16LE");
        assert_eq!(
            base64_encode(&charsets::encode(cs, "test").unwrap_or_default()),
            "dABlAHMAdAA="
        );
        let (name, cs) = charsets::lookup("cp437").unwrap_or(("", charsets::Charset::Utf8));
        assert_eq!(name, "IBM437");
        assert!(charsets::encode(cs, "🤔").is_none());
        assert_eq!(charsets::encode(cs, "é").as_deref(), Some(&[0x82u8][..]));
        let (_, cs) = charsets::lookup("CP936").unwrap_or(("", charsets::Charset::Utf8));
        assert_eq!(charsets::encode(cs, "abc").as_deref(), Some(&b"abc"[..]));
        assert!(charsets::lookup("NOT-EXISTS").is_none());
        let (_, cs) = charsets::lookup("utf-8").unwrap_or(("", charsets::Charset::Utf8));
        assert!(charsets::decode(cs, &[0xff]).is_none());
    }
}
