//! Reading a `RunFunctionRequest`'s bytes. prost is built without its
//! recursion limit (100 nested messages, about 31 object levels of a
//! `Struct`; Go's protobuf, which Crossplane encodes with, reads 10,000).
//! Its decoding and dropping recurse once per nested message, so before
//! prost reads a request, [`nesting_within`] bounds how deeply its messages
//! nest, in one pass and without recursion, and a request nested deeper
//! than [`MAX_MESSAGE_NESTING`] is refused. What a program may read of the
//! data is then bounded by the conversion's own limit
//! ([`crate::convert::MAX_DEPTH`] object levels).

use prost::Message as _;

use crate::proto::RunFunctionRequest;

/// Messages nested deeper than this are refused before prost reads them:
/// the limit of Go's protobuf (`protowire.DefaultRecursionLimit`), so
/// every request Crossplane can encode is read. 10,000 levels of prost's
/// decoding (and of dropping the message) fit the server's threads' stacks
/// (`fnhcl_crossplane::THREAD_STACK_BYTES`).
pub const MAX_MESSAGE_NESTING: usize = 10_000;

/// Decodes a request whose messages nest at most [`MAX_MESSAGE_NESTING`]
/// deep; the error names the problem.
pub fn decode_request(bytes: &[u8]) -> Result<RunFunctionRequest, String> {
    decode_within(bytes, MAX_MESSAGE_NESTING)
}

/// Decodes a request whose messages nest at most `max` deep.
fn decode_within(bytes: &[u8], max: usize) -> Result<RunFunctionRequest, String> {
    if !nesting_within(bytes, max) {
        return Err(format!(
            "failed to decode Protobuf message: messages are nested deeper than {max} levels"
        ));
    }
    RunFunctionRequest::decode(bytes).map_err(|e| e.to_string())
}

/// Whether the messages of a protobuf text nest at most `max` deep: an
/// upper bound found without knowing the message types, since every
/// length-delimited field that reads as fields is counted as a message
/// (a string that happens to read so is counted too), and each group
/// (wire types 3 and 4, which prost skips recursively) as one level. A
/// field that does not read as fields ends its text's counting there.
/// Each byte is looked at once; the open fields are kept on a stack.
pub fn nesting_within(bytes: &[u8], max: usize) -> bool {
    /// A length-delimited field being read: what to go back to after it.
    struct Outer {
        end: usize,
        depth: usize,
        groups: usize,
    }
    let mut outer: Vec<Outer> = Vec::new();
    // The field numbers of the open groups, of every open field.
    let mut groups: Vec<u64> = Vec::new();
    // Where the text being read ends, how deep it is, and how many groups
    // were open when it began.
    let (mut end, mut depth, mut base) = (bytes.len(), 0, 0);
    let mut pos = 0;
    loop {
        let read = pos < end
            && match varint(bytes, &mut pos, end) {
                Some(key) if key >> 3 != 0 => match key & 7 {
                    0 => varint(bytes, &mut pos, end).is_some(),
                    1 => skip(&mut pos, 8, end),
                    5 => skip(&mut pos, 4, end),
                    2 => match varint(bytes, &mut pos, end)
                        .and_then(|len| usize::try_from(len).ok())
                        .and_then(|len| pos.checked_add(len))
                    {
                        Some(field_end) if field_end <= end => {
                            outer.push(Outer {
                                end,
                                depth,
                                groups: base,
                            });
                            (end, depth, base) = (field_end, depth + 1, groups.len());
                            true
                        }
                        _ => false,
                    },
                    3 => {
                        groups.push(key >> 3);
                        depth += 1;
                        true
                    }
                    4 if groups.len() > base && groups.last() == Some(&(key >> 3)) => {
                        groups.pop();
                        depth -= 1;
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
        if depth > max {
            return false;
        }
        if !read {
            // The text ends, or does not read as fields: go on after it.
            let Some(o) = outer.pop() else {
                return true;
            };
            groups.truncate(base);
            pos = end;
            (end, depth, base) = (o.end, o.depth, o.groups);
        }
    }
}

/// Reads a varint at `pos` (before `end`), moving past it.
fn varint(bytes: &[u8], pos: &mut usize, end: usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*pos).filter(|_| *pos < end)?;
        *pos += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(value);
        }
    }
    None
}

/// Moves `pos` past `n` bytes, if they are there before `end`.
fn skip(pos: &mut usize, n: usize, end: usize) -> bool {
    match pos.checked_add(n) {
        Some(next) if next <= end => {
            *pos = next;
            true
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{Resource, State};
    use pbjson_types::value::Kind;
    use pbjson_types::{Struct, Value};

    /// A request whose composite nests `levels` objects `{"a": {"a": ...}}`.
    fn nested_request(levels: usize) -> RunFunctionRequest {
        let mut s = Struct::default();
        for _ in 0..levels {
            let mut outer = Struct::default();
            outer.fields.insert(
                "a".to_owned(),
                Value {
                    kind: Some(Kind::StructValue(s)),
                },
            );
            s = outer;
        }
        RunFunctionRequest {
            observed: Some(State {
                composite: Some(Resource {
                    resource: Some(s),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// `nested_request(levels).encode_to_vec()`, written back to front in
    /// one pass (prost's encoder works out each level's length again at
    /// every level above it: quadratic in the depth).
    fn nested_request_bytes(levels: usize) -> Vec<u8> {
        fn field(rev: &mut Vec<u8>, tag: u8, len: usize) {
            let mut v = Vec::new();
            let mut n = len;
            while n >= 0x80 {
                v.push((n as u8) | 0x80);
                n >>= 7;
            }
            v.push(n as u8);
            rev.extend(v.iter().rev());
            rev.push(tag);
        }
        // The reversed bytes of the innermost (empty) object, then of each
        // object around it.
        let mut rev: Vec<u8> = Vec::new();
        for _ in 0..levels {
            let object = rev.len();
            field(&mut rev, 0x2a, object); // Value.struct_value
            let value = rev.len();
            field(&mut rev, 0x12, value); // entry.value
            rev.extend_from_slice(&[b'a', 0x01, 0x0a]); // entry.key "a"
            let entry = rev.len();
            field(&mut rev, 0x0a, entry); // Struct.fields
        }
        for tag in [0x0a, 0x0a, 0x12] {
            // Resource.resource, State.composite, RunFunctionRequest.observed
            let len = rev.len();
            field(&mut rev, tag, len);
        }
        rev.reverse();
        rev
    }

    /// Runs `f` on a thread with the server's stack size.
    fn on_server_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        std::thread::Builder::new()
            .stack_size(crate::THREAD_STACK_BYTES)
            .spawn(f)
            .expect("spawn")
            .join()
            .expect("no crash")
    }

    #[test]
    fn nesting_is_bounded_from_above() {
        // observed, composite, resource, then an entry, a value and a
        // struct a level: the bound is the exact nesting here (the key
        // "a" does not read as a field).
        for levels in [0, 1, 5, 40] {
            let bytes = nested_request(levels).encode_to_vec();
            assert_eq!(nested_request_bytes(levels), bytes);
            let exact = 3 + 3 * levels;
            assert!(nesting_within(&bytes, exact), "{levels}");
            assert!(!nesting_within(&bytes, exact - 1), "{levels}");
        }
        // Scalars of every wire type, and a string that does not read as
        // fields, nest nothing.
        let flat = [
            0x08, 0x96, 0x01, // 1: varint
            0x11, 1, 2, 3, 4, 5, 6, 7, 8, // 2: fixed64
            0x1d, 1, 2, 3, 4, // 3: fixed32
            0x22, 0x02, 0xff, 0xff, // 4: bytes that are not fields
        ];
        assert!(nesting_within(&flat, 1));
        assert!(!nesting_within(&flat, 0));
        assert!(nesting_within(&[], 0));
    }

    #[test]
    fn groups_count_as_levels() {
        // Field 1 opening 50 groups, then closing them.
        let mut bytes = vec![0x0b; 50];
        bytes.extend(std::iter::repeat_n(0x0c, 50));
        assert!(nesting_within(&bytes, 50));
        assert!(!nesting_within(&bytes, 49));
        // Unbalanced and mismatched ends stop the count, not the scan.
        assert!(nesting_within(&[0x0c, 0x0b, 0x14], 1));
    }

    #[test]
    fn malformed_texts_are_scanned_without_panicking() {
        let mut seed = 0x2545_f491_u32;
        for len in 0..400 {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    seed.to_le_bytes()[0]
                })
                .collect();
            let _ = nesting_within(&bytes, 8);
            // An unfinished varint, a length past the end.
            let _ = nesting_within(
                &[
                    0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                ],
                8,
            );
        }
    }

    #[test]
    fn requests_as_deep_as_go_reads_are_decoded_and_deeper_ones_refused() {
        on_server_stack(|| {
            // 3,330 object levels: 9,993 nested messages.
            let levels = (MAX_MESSAGE_NESTING - 3) / 3;
            let request = nested_request(levels);
            let bytes = nested_request_bytes(levels);
            let decoded = decode_within(&bytes, MAX_MESSAGE_NESTING).expect("decoded");
            assert_eq!(decoded, request);
            let deeper = nested_request_bytes(levels + 1);
            let err = decode_within(&deeper, MAX_MESSAGE_NESTING).expect_err("refused");
            assert_eq!(
                err,
                "failed to decode Protobuf message: messages are nested deeper than 10000 levels"
            );
        });
    }
}
