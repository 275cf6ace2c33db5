//! Standard padded base64, with Go's decoding rules and error offsets.

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard padded base64.
pub(crate) fn base64_encode(b: &[u8]) -> String {
    let mut out = String::with_capacity(b.len().div_ceil(3) * 4);
    for chunk in b.chunks(3) {
        let n = match chunk.len() {
            3 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8 | chunk[2] as u32,
            2 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8,
            _ => (chunk[0] as u32) << 16,
        };
        let sym = |shift: u32| B64[((n >> shift) & 63) as usize] as char;
        out.push(sym(18));
        out.push(sym(12));
        out.push(if chunk.len() > 1 { sym(6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(0) } else { '=' });
    }
    out
}

fn b64_value(c: u8) -> Option<u32> {
    match c {
        b'A'..=b'Z' => Some((c - b'A') as u32),
        b'a'..=b'z' => Some((c - b'a') as u32 + 26),
        b'0'..=b'9' => Some((c - b'0') as u32 + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Go's `base64.StdEncoding.DecodeString`: padding required, `\r` and
/// `\n` ignored, unused trailing bits ignored. `Err` carries the offset
/// Go reports in its `CorruptInputError`.
pub(crate) fn base64_decode(s: &str) -> Result<Vec<u8>, usize> {
    let src = s.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0usize;
    loop {
        let mut vals = [0u32; 4];
        let mut j = 0usize;
        let mut dlen = 4usize;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = b64_value(c) {
                vals[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            // Padding.
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                return Err(si);
            }
            dlen = j;
            break;
        }
        let n = vals[0] << 18 | vals[1] << 12 | vals[2] << 6 | vals[3];
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        match dlen {
            4 => out.extend_from_slice(&bytes),
            3 => out.extend_from_slice(&bytes[..2]),
            2 => out.push(bytes[0]),
            _ => {}
        }
        if dlen < 4 {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_like_go() {
        assert_eq!(base64_encode(b"Hello World"), "SGVsbG8gV29ybGQ=");
        assert_eq!(
            base64_decode("SGVsbG8gV29ybGQ=").ok(),
            Some(b"Hello World".to_vec())
        );
        assert_eq!(base64_decode("SGVs\nbG8=").ok(), Some(b"Hello".to_vec()));
        assert_eq!(base64_decode("<invalid base64>"), Err(0));
        assert_eq!(base64_decode("SGVsbG8"), Err(4));
        assert_eq!(base64_decode("SGVsbG8=x"), Err(8));
        assert_eq!(base64_decode("").ok(), Some(Vec::new()));
        assert!(base64_decode("this-is-an-invalid-base64-data").is_err());
    }
}
