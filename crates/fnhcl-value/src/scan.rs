//! Finding the bytes of a JSON string that need attention (a quote, a
//! backslash, a control character) eight bytes at a time: the readers and
//! writers of JSON text copy the runs between them whole.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A mask with the high bit set in every byte of `w` that is zero, exact
/// up to and including the lowest such byte (a borrow can only mark bytes
/// above a real match, so the lowest mark is always right).
#[inline]
fn zero_bytes(w: u64) -> u64 {
    w.wrapping_sub(ONES) & !w & HIGHS
}

/// The lowest-marked byte's index in `w` (little-endian order).
#[inline]
fn first(mask: u64) -> usize {
    (mask.trailing_zeros() / 8) as usize
}

/// Bytes that end a plain run of a JSON string: `"`, `\` and the control
/// characters below U+0020.
#[inline]
fn special(w: u64) -> u64 {
    zero_bytes(w ^ (ONES * u64::from(b'"')))
        | zero_bytes(w ^ (ONES * u64::from(b'\\')))
        // Bytes below 0x20: subtracting 0x20 borrows into the high bit,
        // and a byte of 0x80 or more is excluded by `!w`.
        | (w.wrapping_sub(ONES * 0x20) & !w & HIGHS)
}

/// Bytes an HTML-safe writer also escapes: `<`, `>`, `&`, and 0xE2 (the
/// first byte of U+2028 and U+2029; the caller looks at what follows).
#[inline]
fn html(w: u64) -> u64 {
    zero_bytes(w ^ (ONES * u64::from(b'<')))
        | zero_bytes(w ^ (ONES * u64::from(b'>')))
        | zero_bytes(w ^ (ONES * u64::from(b'&')))
        | zero_bytes(w ^ (ONES * 0xE2))
}

#[inline]
fn is_special(b: u8, html_safe: bool) -> bool {
    matches!(b, b'"' | b'\\') || b < 0x20 || (html_safe && matches!(b, b'<' | b'>' | b'&' | 0xE2))
}

/// The index of the first `"`, `\` or control character in `b` at or
/// after `from` (`b.len()` when there is none): [`plain_prefix`] for a
/// reader, inlined into its string loops (most strings are short, and end
/// in the first word read).
#[inline(always)]
pub fn plain_end(b: &[u8], mut from: usize) -> usize {
    while let Some(word) = b.get(from..from + 8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let m = special(u64::from_le_bytes(bytes));
        if m != 0 {
            return from + first(m);
        }
        from += 8;
    }
    while from < b.len() && !is_special(b[from], false) {
        from += 1;
    }
    from
}

/// [`plain_end`] that also appends the run `b[from..end]` to `out`, a word
/// at a time (a fixed-size copy the compiler writes as one store, then
/// cut back to the run's end, instead of a `memcpy` call per short run).
#[inline(always)]
pub fn copy_plain(b: &[u8], mut from: usize, out: &mut Vec<u8>) -> usize {
    while let Some(word) = b.get(from..from + 8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        out.extend_from_slice(&bytes);
        let m = special(u64::from_le_bytes(bytes));
        if m != 0 {
            let n = first(m);
            out.truncate(out.len() - 8 + n);
            return from + n;
        }
        from += 8;
    }
    let end = plain_end(b, from);
    out.extend_from_slice(&b[from..end]);
    end
}

/// The length of the longest prefix of `b` with no `"`, `\` or control
/// character (and, when `html_safe`, no `<`, `>`, `&` or 0xE2 byte).
pub fn plain_prefix(b: &[u8], html_safe: bool) -> usize {
    let mut i = 0;
    let mut chunks = b.chunks_exact(8);
    for chunk in &mut chunks {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let w = u64::from_le_bytes(bytes);
        let mut m = special(w);
        if html_safe {
            m |= html(w);
        }
        if m != 0 {
            return i + first(m);
        }
        i += 8;
    }
    for &c in chunks.remainder() {
        if is_special(c, html_safe) {
            return i;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slow(b: &[u8], html_safe: bool) -> usize {
        b.iter()
            .position(|&c| is_special(c, html_safe))
            .unwrap_or(b.len())
    }

    #[test]
    fn agrees_with_a_byte_loop() {
        // Every byte value at every position of strings up to 19 bytes,
        // over backgrounds of plain ASCII and of multi-byte text.
        for background in [b'a', 0x80, 0xFF, b' ', 0x21, 0x1F + 1] {
            for len in 0..20 {
                for pos in 0..len.max(1) {
                    for v in 0..=255u8 {
                        let mut b = vec![background; len];
                        if pos < len {
                            b[pos] = v;
                        }
                        assert_eq!(plain_end(&b, 0), slow(&b, false), "{b:?}");
                        for from in 0..=b.len() {
                            let end = from + slow(&b[from..], false);
                            assert_eq!(plain_end(&b, from), end);
                            let mut out = vec![7u8];
                            assert_eq!(copy_plain(&b, from, &mut out), end);
                            assert_eq!(out[1..], b[from..end], "{b:?} {from}");
                        }
                        for html_safe in [false, true] {
                            assert_eq!(
                                plain_prefix(&b, html_safe),
                                slow(&b, html_safe),
                                "{b:?} html={html_safe}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn two_specials_in_one_word() {
        let b = b"abc\x01\"defghij";
        assert_eq!(plain_prefix(b, false), 3);
        let b = b"ab\x00\x00cdefgh";
        assert_eq!(plain_prefix(b, false), 2);
    }
}
