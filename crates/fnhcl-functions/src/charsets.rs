//! Character sets for `textencodebase64`/`textdecodebase64`, looked up by
//! IANA name or alias (case-insensitive) as Terraform does with Go's
//! `ianaindex`. Multi-byte and WHATWG single-byte encodings come from
//! `encoding_rs`; UTF-16 (the variants Go supports), ISO-8859-1 and the
//! IBM PC code pages 437 and 850 are handled here.

/// An encoding Terraform accepts.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Charset {
    Utf16 {
        big_endian: bool,
        bom: bool,
    },
    Latin1,
    /// An 8-bit code page: ASCII below 0x80, the table above.
    CodePage(&'static [u16; 128]),
    Whatwg(&'static encoding_rs::Encoding),
}

/// The IANA name and charset for `name`, if supported.
pub(crate) fn lookup(name: &str) -> Option<(&'static str, Charset)> {
    use encoding_rs as e;
    let n = name.trim().to_ascii_lowercase();
    let w = Charset::Whatwg;
    Some(match n.as_str() {
        "utf-8" | "csutf8" | "utf8" => ("UTF-8", w(e::UTF_8)),
        "utf-16le" | "csutf16le" => (
            "UTF-16LE",
            Charset::Utf16 {
                big_endian: false,
                bom: false,
            },
        ),
        "utf-16be" | "csutf16be" => (
            "UTF-16BE",
            Charset::Utf16 {
                big_endian: true,
                bom: false,
            },
        ),
        "utf-16" | "csutf16" => (
            "UTF-16",
            Charset::Utf16 {
                big_endian: true,
                bom: true,
            },
        ),
        "iso-8859-1" | "iso_8859-1:1987" | "iso-ir-100" | "iso_8859-1" | "latin1" | "l1"
        | "ibm819" | "cp819" | "csisolatin1" => ("ISO-8859-1", Charset::Latin1),
        "ibm437" | "cp437" | "437" | "cspc8codepage437" => ("IBM437", Charset::CodePage(&CP437)),
        "ibm850" | "cp850" | "850" | "cspc850multilingual" => ("IBM850", Charset::CodePage(&CP850)),
        "ibm866" | "cp866" | "866" | "csibm866" => ("IBM866", w(e::IBM866)),
        "iso-8859-2" | "iso_8859-2" | "iso_8859-2:1987" | "iso-ir-101" | "latin2" | "l2"
        | "csisolatin2" => ("ISO-8859-2", w(e::ISO_8859_2)),
        "iso-8859-3" | "iso_8859-3" | "iso_8859-3:1988" | "iso-ir-109" | "latin3" | "l3"
        | "csisolatin3" => ("ISO-8859-3", w(e::ISO_8859_3)),
        "iso-8859-4" | "iso_8859-4" | "iso_8859-4:1988" | "iso-ir-110" | "latin4" | "l4"
        | "csisolatin4" => ("ISO-8859-4", w(e::ISO_8859_4)),
        "iso-8859-5" | "iso_8859-5" | "iso_8859-5:1988" | "iso-ir-144" | "cyrillic"
        | "csisolatincyrillic" => ("ISO-8859-5", w(e::ISO_8859_5)),
        "iso-8859-6" | "iso_8859-6" | "iso_8859-6:1987" | "iso-ir-127" | "ecma-114"
        | "asmo-708" | "arabic" | "csisolatinarabic" => ("ISO-8859-6", w(e::ISO_8859_6)),
        "iso-8859-7" | "iso_8859-7" | "iso_8859-7:1987" | "iso-ir-126" | "elot_928"
        | "ecma-118" | "greek" | "greek8" | "csisolatingreek" => ("ISO-8859-7", w(e::ISO_8859_7)),
        "iso-8859-8" | "iso_8859-8" | "iso_8859-8:1988" | "iso-ir-138" | "hebrew"
        | "csisolatinhebrew" => ("ISO-8859-8", w(e::ISO_8859_8)),
        "iso-8859-10" | "iso_8859-10:1992" | "iso-ir-157" | "l6" | "latin6" | "csisolatin6" => {
            ("ISO-8859-10", w(e::ISO_8859_10))
        }
        "iso-8859-13" | "csiso885913" => ("ISO-8859-13", w(e::ISO_8859_13)),
        "iso-8859-14" | "iso_8859-14" | "iso_8859-14:1998" | "iso-ir-199" | "latin8" | "l8"
        | "iso-celtic" | "csiso885914" => ("ISO-8859-14", w(e::ISO_8859_14)),
        "iso-8859-15" | "iso_8859-15" | "latin-9" | "csiso885915" => {
            ("ISO-8859-15", w(e::ISO_8859_15))
        }
        "iso-8859-16" | "iso_8859-16" | "iso_8859-16:2001" | "iso-ir-226" | "latin10" | "l10"
        | "csiso885916" => ("ISO-8859-16", w(e::ISO_8859_16)),
        "koi8-r" | "cskoi8r" => ("KOI8-R", w(e::KOI8_R)),
        "koi8-u" | "cskoi8u" => ("KOI8-U", w(e::KOI8_U)),
        "macintosh" | "mac" | "csmacintosh" => ("macintosh", w(e::MACINTOSH)),
        "windows-874" | "cswindows874" => ("windows-874", w(e::WINDOWS_874)),
        "windows-1250" | "cswindows1250" => ("windows-1250", w(e::WINDOWS_1250)),
        "windows-1251" | "cswindows1251" => ("windows-1251", w(e::WINDOWS_1251)),
        "windows-1252" | "cswindows1252" => ("windows-1252", w(e::WINDOWS_1252)),
        "windows-1253" | "cswindows1253" => ("windows-1253", w(e::WINDOWS_1253)),
        "windows-1254" | "cswindows1254" => ("windows-1254", w(e::WINDOWS_1254)),
        "windows-1255" | "cswindows1255" => ("windows-1255", w(e::WINDOWS_1255)),
        "windows-1256" | "cswindows1256" => ("windows-1256", w(e::WINDOWS_1256)),
        "windows-1257" | "cswindows1257" => ("windows-1257", w(e::WINDOWS_1257)),
        "windows-1258" | "cswindows1258" => ("windows-1258", w(e::WINDOWS_1258)),
        "shift_jis" | "ms_kanji" | "csshiftjis" => ("Shift_JIS", w(e::SHIFT_JIS)),
        "euc-jp" | "extended_unix_code_packed_format_for_japanese" | "cseucpkdfmtjapanese" => {
            ("EUC-JP", w(e::EUC_JP))
        }
        "iso-2022-jp" | "csiso2022jp" => ("ISO-2022-JP", w(e::ISO_2022_JP)),
        "euc-kr" | "cseuckr" => ("EUC-KR", w(e::EUC_KR)),
        "gbk" | "cp936" | "ms936" | "windows-936" | "csgbk" => ("GBK", w(e::GBK)),
        "gb18030" | "csgb18030" => ("GB18030", w(e::GB18030)),
        "big5" | "csbig5" => ("Big5", w(e::BIG5)),
        _ => return None,
    })
}

/// Encodes `s`; `None` if it has a character the charset cannot represent.
pub(crate) fn encode(cs: Charset, s: &str) -> Option<Vec<u8>> {
    match cs {
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
        Charset::Latin1 => s.chars().map(|c| u8::try_from(c as u32).ok()).collect(),
        Charset::CodePage(table) => s
            .chars()
            .map(|c| {
                if c.is_ascii() {
                    Some(c as u8)
                } else {
                    table
                        .iter()
                        .position(|&u| u as u32 == c as u32)
                        .map(|i| 0x80 + i as u8)
                }
            })
            .collect(),
        Charset::Whatwg(enc) => {
            if enc == encoding_rs::UTF_8 {
                return Some(s.as_bytes().to_vec());
            }
            let (bytes, _, unmappable) = enc.encode(s);
            (!unmappable).then(|| bytes.into_owned())
        }
    }
}

/// Decodes `b`; `None` if it is malformed or decodes to U+FFFD.
pub(crate) fn decode(cs: Charset, b: &[u8]) -> Option<String> {
    let out = match cs {
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
        Charset::Latin1 => b.iter().map(|&x| x as char).collect(),
        Charset::CodePage(table) => b
            .iter()
            .map(|&x| {
                if x < 0x80 {
                    Some(x as char)
                } else {
                    char::from_u32(table[(x - 0x80) as usize] as u32)
                }
            })
            .collect::<Option<String>>()?,
        Charset::Whatwg(enc) => enc
            .decode_without_bom_handling_and_without_replacement(b)?
            .into_owned(),
    };
    (!out.contains('\u{FFFD}')).then_some(out)
}

/// IBM code page 437, bytes 0x80..=0xFF (generated from the Unicode
/// mapping table).
static CP437: [u16; 128] = [
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF,
    0x00EE, 0x00EC, 0x00C4, 0x00C5, 0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
    0x00FF, 0x00D6, 0x00DC, 0x00A2, 0x00A3, 0x00A5, 0x20A7, 0x0192, 0x00E1, 0x00ED, 0x00F3, 0x00FA,
    0x00F1, 0x00D1, 0x00AA, 0x00BA, 0x00BF, 0x2310, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557,
    0x255D, 0x255C, 0x255B, 0x2510, 0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F,
    0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567, 0x2568, 0x2564, 0x2565, 0x2559,
    0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
    0x03B1, 0x00DF, 0x0393, 0x03C0, 0x03A3, 0x03C3, 0x00B5, 0x03C4, 0x03A6, 0x0398, 0x03A9, 0x03B4,
    0x221E, 0x03C6, 0x03B5, 0x2229, 0x2261, 0x00B1, 0x2265, 0x2264, 0x2320, 0x2321, 0x00F7, 0x2248,
    0x00B0, 0x2219, 0x00B7, 0x221A, 0x207F, 0x00B2, 0x25A0, 0x00A0,
];

/// IBM code page 850, bytes 0x80..=0xFF.
static CP850: [u16; 128] = [
    0x00C7, 0x00FC, 0x00E9, 0x00E2, 0x00E4, 0x00E0, 0x00E5, 0x00E7, 0x00EA, 0x00EB, 0x00E8, 0x00EF,
    0x00EE, 0x00EC, 0x00C4, 0x00C5, 0x00C9, 0x00E6, 0x00C6, 0x00F4, 0x00F6, 0x00F2, 0x00FB, 0x00F9,
    0x00FF, 0x00D6, 0x00DC, 0x00F8, 0x00A3, 0x00D8, 0x00D7, 0x0192, 0x00E1, 0x00ED, 0x00F3, 0x00FA,
    0x00F1, 0x00D1, 0x00AA, 0x00BA, 0x00BF, 0x00AE, 0x00AC, 0x00BD, 0x00BC, 0x00A1, 0x00AB, 0x00BB,
    0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x00C1, 0x00C2, 0x00C0, 0x00A9, 0x2563, 0x2551, 0x2557,
    0x255D, 0x00A2, 0x00A5, 0x2510, 0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x00E3, 0x00C3,
    0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x00A4, 0x00F0, 0x00D0, 0x00CA, 0x00CB,
    0x00C8, 0x0131, 0x00CD, 0x00CE, 0x00CF, 0x2518, 0x250C, 0x2588, 0x2584, 0x00A6, 0x00CC, 0x2580,
    0x00D3, 0x00DF, 0x00D4, 0x00D2, 0x00F5, 0x00D5, 0x00B5, 0x00FE, 0x00DE, 0x00DA, 0x00DB, 0x00D9,
    0x00FD, 0x00DD, 0x00AF, 0x00B4, 0x00AD, 0x00B1, 0x2017, 0x00BE, 0x00B6, 0x00A7, 0x00F7, 0x00B8,
    0x00B0, 0x00A8, 0x00B7, 0x00B9, 0x00B3, 0x00B2, 0x25A0, 0x00A0,
];
