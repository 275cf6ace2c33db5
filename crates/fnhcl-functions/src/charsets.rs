//! Character sets for `textencodebase64`/`textdecodebase64`, looked up as
//! Terraform does with Go's `ianaindex.IANA` (IANA names and aliases,
//! case-insensitive; messages use the IANA name Go reports, e.g.
//! `ISO_8859-1:1987`).
//!
//! The names and the single-byte charsets' tables are Go's: `charsets.txt`
//! is written by `scripts/gen-charsets` (a Go program, run on demand),
//! which lists `ianaindex`'s names and runs `golang.org/x/text`'s decoders
//! over every byte (so bytes Go leaves undefined are undefined here too).
//! UTF-16 is handled here; the multi-byte East Asian charsets use
//! `encoding_rs`.

use std::collections::HashMap;
use std::sync::LazyLock;

/// An encoding Terraform accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Charset {
    Utf8,
    Utf16 {
        big_endian: bool,
        bom: bool,
    },
    /// A single-byte charset: the character of each byte (`UNDEF` when
    /// undefined). 128 entries for bytes 0x80.. (ASCII below), or 256.
    SingleByte(&'static [u16]),
    Whatwg(&'static encoding_rs::Encoding),
}

const UNDEF: u16 = 0xFFFF;

/// The IANA name and charset for `name`, if supported.
pub(crate) fn lookup(name: &str) -> Option<(&'static str, Charset)> {
    let tables = &*TABLES;
    let canon = *tables
        .aliases
        .get(name.trim().to_ascii_lowercase().as_str())?;
    let cs = match canon {
        "UTF-8" => Charset::Utf8,
        "UTF-16" => Charset::Utf16 {
            big_endian: true,
            bom: true,
        },
        "UTF-16BE" => Charset::Utf16 {
            big_endian: true,
            bom: false,
        },
        "UTF-16LE" => Charset::Utf16 {
            big_endian: false,
            bom: false,
        },
        "Shift_JIS" => Charset::Whatwg(encoding_rs::SHIFT_JIS),
        "Extended_UNIX_Code_Packed_Format_for_Japanese" => Charset::Whatwg(encoding_rs::EUC_JP),
        "ISO-2022-JP" => Charset::Whatwg(encoding_rs::ISO_2022_JP),
        "EUC-KR" => Charset::Whatwg(encoding_rs::EUC_KR),
        "GBK" => Charset::Whatwg(encoding_rs::GBK),
        "GB18030" => Charset::Whatwg(encoding_rs::GB18030),
        "Big5" => Charset::Whatwg(encoding_rs::BIG5),
        _ => Charset::SingleByte(tables.single_byte.get(canon)?),
    };
    Some((canon, cs))
}

/// Encodes `s`; `None` if it has a character the charset cannot represent.
pub(crate) fn encode(cs: Charset, s: &str) -> Option<Vec<u8>> {
    match cs {
        Charset::Utf8 => Some(s.as_bytes().to_vec()),
        Charset::Utf16 { big_endian, bom } => {
            let mut out = Vec::with_capacity(s.len() * 2 + 2);
            let mut push = |u: u16| {
                if big_endian {
                    out.extend_from_slice(&u.to_be_bytes());
                } else {
                    out.extend_from_slice(&u.to_le_bytes());
                }
            };
            if bom {
                push(0xFEFF);
            }
            for u in s.encode_utf16() {
                push(u);
            }
            Some(out)
        }
        Charset::SingleByte(table) => s
            .chars()
            .map(|c| {
                let offset = 256 - table.len();
                if offset > 0 && c.is_ascii() {
                    return Some(c as u8);
                }
                table
                    .iter()
                    .position(|&u| u != UNDEF && u as u32 == c as u32)
                    .map(|i| (i + offset) as u8)
            })
            .collect(),
        Charset::Whatwg(enc) => {
            let (bytes, _, unmappable) = enc.encode(s);
            (!unmappable).then(|| bytes.into_owned())
        }
    }
}

/// Decodes `b`; `None` if it is malformed or decodes to U+FFFD.
pub(crate) fn decode(cs: Charset, b: &[u8]) -> Option<String> {
    let out = match cs {
        Charset::Utf8 => String::from_utf8(b.to_vec()).ok()?,
        Charset::Utf16 { big_endian, bom } => {
            let (mut be, mut body) = (big_endian, b);
            if bom && b.len() >= 2 {
                match (b[0], b[1]) {
                    (0xFE, 0xFF) => body = &b[2..],
                    (0xFF, 0xFE) => {
                        be = false;
                        body = &b[2..];
                    }
                    _ => {}
                }
            }
            if body.len() % 2 != 0 {
                return None;
            }
            let units = body.chunks_exact(2).map(|p| {
                if be {
                    u16::from_be_bytes([p[0], p[1]])
                } else {
                    u16::from_le_bytes([p[0], p[1]])
                }
            });
            char::decode_utf16(units)
                .collect::<Result<String, _>>()
                .ok()?
        }
        Charset::SingleByte(table) => {
            let offset = 256 - table.len();
            b.iter()
                .map(|&x| {
                    if (x as usize) < offset {
                        return Some(x as char);
                    }
                    match table[x as usize - offset] {
                        UNDEF => None,
                        u => char::from_u32(u as u32),
                    }
                })
                .collect::<Option<String>>()?
        }
        Charset::Whatwg(enc) => enc
            .decode_without_bom_handling_and_without_replacement(b)?
            .into_owned(),
    };
    (!out.contains('\u{FFFD}')).then_some(out)
}

/// `charsets.txt`, read once.
struct Tables {
    /// Lower-case IANA name or alias to the IANA name Go reports.
    aliases: HashMap<&'static str, &'static str>,
    /// The single-byte charsets' tables by IANA name.
    single_byte: HashMap<&'static str, Vec<u16>>,
}

static TABLES: LazyLock<Tables> = LazyLock::new(|| parse(include_str!("charsets.txt")));

/// Reads `charsets.txt`: `alias <alias> <name>` and `table <name> <first
/// byte> <characters>` lines (hex; `-` is undefined). The text is part of
/// the binary, so a malformed line is a bug (a test reads it).
fn parse(text: &'static str) -> Tables {
    let mut tables = Tables {
        aliases: HashMap::new(),
        single_byte: HashMap::new(),
    };
    let hex = |s: &str| u16::from_str_radix(s, 16).expect("charsets.txt: hex");
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let mut words = line.split(' ');
        match (words.next(), words.next(), words.next()) {
            (Some("alias"), Some(alias), Some(name)) => {
                tables.aliases.insert(alias, name);
            }
            (Some("table"), Some(name), Some(first)) => {
                let table: Vec<u16> = words
                    .map(|w| if w == "-" { UNDEF } else { hex(w) })
                    .collect();
                assert_eq!(
                    hex(first) as usize + table.len(),
                    256,
                    "charsets.txt: {name}"
                );
                tables.single_byte.insert(name, table);
            }
            _ => panic!("charsets.txt: {line}"),
        }
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generated_tables_are_read_whole() {
        let t = &*TABLES;
        assert_eq!(t.aliases.len(), 226);
        assert_eq!(t.single_byte.len(), 45);
        // Every name Go reports is one we implement, but HZ-GB-2312.
        for (alias, name) in &t.aliases {
            assert_eq!(lookup(alias).is_some(), *name != "HZ-GB-2312", "{alias}");
        }
        let (name, cs) = lookup(" Latin1 ").expect("latin1");
        assert_eq!(name, "ISO_8859-1:1987");
        assert!(matches!(cs, Charset::SingleByte(t) if t.len() == 128));
    }
}
