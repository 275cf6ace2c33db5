//! JSON text ↔ [`Value`], with cty's JSON semantics.
//!
//! - [`from_json_text`]: exact numbers (`99999999999999999999` stays
//!   exact, parsed as cty's `ParseNumberVal`), objects → cty objects,
//!   arrays → tuples, `null` → untyped null (decision D6); nesting is
//!   limited to [`MAX_JSON_DEPTH`].
//! - [`to_json_text`]: compact JSON as cty's `json.Marshal` and Terraform's
//!   `jsonencode` write it: keys sorted, numbers in exact decimal form,
//!   strings escaped like Go's `encoding/json` (`<`, `>`, `&`, U+2028,
//!   U+2029 as `\u003c` ...), marks stripped, unknown values and infinities
//!   rejected.
//! - [`to_cty_json_text`]: the same text as `jsonencode` itself produces
//!   it (a marked value is an error, an infinity is written `+Inf`).
//! - [`from_serde_json`] / [`to_serde_json`]: the same mapping on
//!   `serde_json::Value` (numbers via `f64` on output).
//!
//! Size: the whole reader and the sparse one must give the same errors at the
//! same places, so they are kept side by side; the last ~330 lines are unit
//! tests.

use std::sync::Arc;

use crate::{Key, Number, ObjMap, Value};

/// Maximum nesting of arrays/objects accepted by [`from_json_text`].
pub const MAX_JSON_DEPTH: usize = 512;

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    /// Buffers kept from one text to the next (see [`Scratch`]).
    scratch: crate::intern::Lent<Scratch>,
    keys: crate::intern::ThreadCache,
}

/// What a reader keeps between texts, per thread: the buffers of the
/// objects and arrays being read (empty between texts, with the capacity
/// the largest text needed, instead of growing again for each line of a
/// stream). Short keys read before are shared through the thread's
/// [`crate::intern::ThreadCache`] (the objects of an array and the lines of
/// a stream repeat the same keys).
#[derive(Default)]
struct Scratch {
    /// The members of the objects being read, innermost last (one buffer
    /// for all of them: each object's are moved out into a slice of its
    /// exact size, instead of each growing its own).
    members: Vec<(Key, Value)>,
    /// The same for the elements of arrays.
    elements: Vec<Value>,
}

/// The most entries a [`Scratch`] buffer keeps between texts (~200 KiB of
/// members).
const KEPT_CAPACITY: usize = 4096;

thread_local! {
    static SCRATCH: std::cell::Cell<Option<Scratch>> = const { std::cell::Cell::new(None) };
}

impl Drop for Parser<'_> {
    /// Empties the buffers before they go back to the thread's slot
    /// (`Lent`): what an error left behind is dropped here; the capacity
    /// stays, up to a bound (one huge text must not pin its buffers for
    /// the thread's life).
    fn drop(&mut self) {
        let Scratch { members, elements } = &mut *self.scratch;
        members.clear();
        elements.clear();
        if members.capacity() > KEPT_CAPACITY {
            *members = Vec::new();
        }
        if elements.capacity() > KEPT_CAPACITY {
            *elements = Vec::new();
        }
    }
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            s: text,
            b: text.as_bytes(),
            i: 0,
            scratch: crate::intern::Lent::from_slot(&SCRATCH),
            keys: crate::intern::ThreadCache::take(),
        }
    }

    /// `v`, the text's value, when nothing but blanks follows it.
    fn end(mut self, v: Value) -> Result<Value, String> {
        self.ws();
        if self.i != self.b.len() {
            return self.err("extraneous data after JSON value");
        }
        Ok(v)
    }

    fn err<T>(&self, msg: &str) -> Result<T, String> {
        // 1-based line/column for humans.
        let before = &self.s[..self.i.min(self.s.len())];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rfind('\n')
            .map_or(before.len(), |p| before.len() - p - 1)
            + 1;
        Err(format!("{msg} at line {line}, column {col}"))
    }

    /// Steps over blanks. Compact text (what programs write) has none
    /// between tokens, so the usual call looks at one byte above the space
    /// and returns.
    #[inline(always)]
    fn ws(&mut self) {
        if self.b.get(self.i).is_some_and(|&c| c <= b' ') {
            self.ws_run();
        }
    }

    fn ws_run(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        self.ws();
        let Some(&c) = self.b.get(self.i) else {
            return self.err("unexpected end of JSON input");
        };
        match c {
            b'{' => self.object(depth, |p, _, _, d| p.value(d).map(Some)),
            b'[' => self.array(depth, |p, d| p.value(d)),
            b'"' => Ok(Value::string(self.string()?)),
            b't' => self.word("true", Value::TRUE),
            b'f' => self.word("false", Value::FALSE),
            b'n' => self.word("null", Value::null()),
            b'-' | b'0'..=b'9' => self.number(),
            _ => self.err("invalid character in JSON"),
        }
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Result<bool, String> {
        self.err(&format!(
            "JSON nested more than {MAX_JSON_DEPTH} levels deep"
        ))
    }

    /// Steps over an array's `[` or an object's `{` at `depth` (refused
    /// past [`MAX_JSON_DEPTH`]) and the blanks after it; true, with `close`
    /// stepped over too, when the container is empty.
    #[inline(always)]
    fn open(&mut self, depth: usize, close: u8) -> Result<bool, String> {
        if depth >= MAX_JSON_DEPTH {
            return self.too_deep();
        }
        self.i += 1;
        self.ws();
        if self.b.get(self.i) == Some(&close) {
            self.i += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// An object (at its `{`); `member(parser, key, base, depth)` reads
    /// each member's value, or only checks it and gives `None` to leave
    /// the member out (the members read so far are
    /// `parser.members[base..]`).
    #[inline]
    fn object(
        &mut self,
        depth: usize,
        mut member: impl FnMut(&mut Self, &str, usize, usize) -> Result<Option<Value>, String>,
    ) -> Result<Value, String> {
        if self.open(depth, b'}')? {
            return Ok(Value::empty_object());
        }
        // Collected, then sorted once (inserting one by one into
        // the sorted map would be quadratic on large objects).
        let base = self.scratch.members.len();
        loop {
            self.ws();
            if self.b.get(self.i) != Some(&b'"') {
                return self.err("expected string for object key");
            }
            let text = match self.plain_string() {
                Some(text) => std::borrow::Cow::Borrowed(text),
                None => std::borrow::Cow::Owned(self.escaped_string()?),
            };
            self.ws();
            if self.b.get(self.i) != Some(&b':') {
                return self.err("expected ':' after object key");
            }
            self.i += 1;
            if let Some(v) = member(self, &text, base, depth + 1)? {
                let k = self.key(text);
                // Later duplicates win, as in cty (and in `collect`).
                self.scratch.members.push((k, v));
            }
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::object(ObjMap::drain_from(
                        &mut self.scratch.members,
                        base,
                    )));
                }
                _ => return self.err("expected ',' or '}' in object"),
            }
        }
    }

    /// A value as [`Self::value`] reads it, but an object with only the
    /// members named in `names` ([`Self::object_only`]).
    fn value_only(&mut self, depth: usize, names: &[Key]) -> Result<Value, String> {
        self.ws();
        if self.b.get(self.i) == Some(&b'{') {
            self.object_only(depth, names)
        } else {
            self.value(depth)
        }
    }

    /// An array (at its `[`); `element(parser, depth)` reads each element.
    #[inline]
    fn array(
        &mut self,
        depth: usize,
        mut element: impl FnMut(&mut Self, usize) -> Result<Value, String>,
    ) -> Result<Value, String> {
        if self.open(depth, b']')? {
            return Ok(Value::tuple(Vec::new()));
        }
        let base = self.scratch.elements.len();
        loop {
            let v = element(self, depth + 1)?;
            self.scratch.elements.push(v);
            self.ws();
            match self.b.get(self.i) {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::tuple(self.scratch.elements.drain(base..).collect()));
                }
                _ => return self.err("expected ',' or ']' in array"),
            }
        }
    }

    /// An object (at its `{`) of which only the members named in `names`
    /// (sorted by bytes) are read: the others are checked as
    /// [`Self::skip`] checks them (the same errors at the same places as
    /// [`Self::value`]) and left out, their keys not even shared.
    fn object_only(&mut self, depth: usize, names: &[Key]) -> Result<Value, String> {
        self.object(depth, |p, k, _, d| {
            // A few names (the usual case) are compared in turn, lengths
            // first; many are searched.
            let wanted = if names.len() <= 8 {
                names
                    .iter()
                    .any(|n| crate::key_eq(n.as_bytes(), k.as_bytes()))
            } else {
                names
                    .binary_search_by(|n| n.as_bytes().cmp(k.as_bytes()))
                    .is_ok()
            };
            if wanted {
                p.value(d).map(Some)
            } else {
                p.skip(d).map(|()| None)
            }
        })
    }

    /// Checks a value as [`Self::value`] reads it (the same errors at the
    /// same places) without building it.
    #[inline(always)]
    fn skip(&mut self, depth: usize) -> Result<(), String> {
        self.ws();
        match self.b.get(self.i) {
            Some(b'"') => self.skip_string(),
            Some(b'{' | b'[') => self.skip_nested(depth),
            _ => self.skip_scalar(),
        }
    }

    /// A value that is not an object or an array, or the error at its
    /// first byte.
    #[inline(always)]
    fn skip_scalar(&mut self) -> Result<(), String> {
        let Some(&c) = self.b.get(self.i) else {
            return self.err("unexpected end of JSON input");
        };
        match c {
            b'"' => self.skip_string(),
            b't' => self.word("true", Value::TRUE).map(drop),
            b'f' => self.word("false", Value::FALSE).map(drop),
            b'n' => self.word("null", Value::null()).map(drop),
            b'-' | b'0'..=b'9' => self.skip_number(),
            _ => self.err("invalid character in JSON"),
        }
    }

    /// [`Self::skip`] of an object or array (at its `{` or `[`): one loop
    /// over the values inside, whatever their nesting, with a bit per open
    /// container (an object or not) instead of a call per value.
    #[inline(never)]
    fn skip_nested(&mut self, depth: usize) -> Result<(), String> {
        const BITS: usize = u64::BITS as usize;
        let mut objects = [0u64; MAX_JSON_DEPTH.div_ceil(BITS)];
        let mut open = 0usize;
        loop {
            // At a value (blanks skipped).
            match self.b.get(self.i) {
                Some(&c @ (b'{' | b'[')) => {
                    let object = c == b'{';
                    if !self.open(depth + open, if object { b'}' } else { b']' })? {
                        let bit = 1u64 << (open % BITS);
                        if object {
                            objects[open / BITS] |= bit;
                            self.member_key()?;
                        } else {
                            objects[open / BITS] &= !bit;
                        }
                        open += 1;
                        self.ws();
                        continue;
                    }
                }
                _ => self.skip_scalar()?,
            }
            // After a value: close the containers that end here, or step
            // to the next value of the innermost.
            loop {
                let Some(inner) = open.checked_sub(1) else {
                    return Ok(());
                };
                let object = objects[inner / BITS] >> (inner % BITS) & 1 == 1;
                self.ws();
                match self.b.get(self.i) {
                    Some(b',') => {
                        self.i += 1;
                        if object {
                            self.member_key()?;
                        }
                        self.ws();
                        break;
                    }
                    Some(b'}') if object => self.i += 1,
                    Some(b']') if !object => self.i += 1,
                    _ if object => return self.err("expected ',' or '}' in object"),
                    _ => return self.err("expected ',' or ']' in array"),
                }
                open = inner;
            }
        }
    }

    /// An object member's key and its `:`, checked.
    #[inline(always)]
    fn member_key(&mut self) -> Result<(), String> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return self.err("expected string for object key");
        }
        self.skip_string()?;
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return self.err("expected ':' after object key");
        }
        self.i += 1;
        Ok(())
    }

    /// [`Self::string`] without building it: the escapes are only
    /// checked, from one to the next (a JSON document inside a string has
    /// one every few bytes). Anything wrong is found again by
    /// [`Self::unescape`], from the start, for its error and place.
    #[inline(always)]
    fn skip_string(&mut self) -> Result<(), String> {
        let b = self.b;
        let mut j = self.i + 1; // after the opening quote
        loop {
            j = crate::scan::plain_end(b, j);
            match b.get(j) {
                Some(b'"') => {
                    self.i = j + 1;
                    return Ok(());
                }
                Some(b'\\') => match b.get(j + 1) {
                    Some(&e) if simple_escape(e).is_some() => j += 2,
                    Some(b'u')
                        if b.get(j + 2..j + 6)
                            .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)) =>
                    {
                        j += 6;
                    }
                    _ => return self.bad_string(),
                },
                _ => return self.bad_string(),
            }
        }
    }

    /// The error of a string [`Self::skip_string`] found wrong (at its
    /// opening quote).
    #[cold]
    #[inline(never)]
    fn bad_string(&mut self) -> Result<(), String> {
        self.i += 1;
        self.unescape(&mut Unbuilt)
    }

    /// [`Self::number`] without building it: a short integer is always
    /// in range; anything else is parsed for the check.
    fn skip_number(&mut self) -> Result<(), String> {
        let start = self.i;
        let b = &self.b[start..];
        let neg = usize::from(b[0] == b'-');
        let digits = b[neg..].iter().take_while(|c| c.is_ascii_digit()).count();
        let end = neg + digits;
        let short = (1..=18).contains(&digits)
            && (digits == 1 || b[neg] != b'0')
            && !matches!(b.get(end), Some(b'.' | b'e' | b'E'));
        if short {
            self.i = start + end;
            return Ok(());
        }
        self.number().map(drop)
    }

    fn word(&mut self, w: &str, v: Value) -> Result<Value, String> {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("invalid literal in JSON")
        }
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while p.i < p.b.len() && p.b[p.i].is_ascii_digit() {
                p.i += 1;
            }
            p.i - s
        };
        if self.b[self.i] == b'-' {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.err("invalid number in JSON"),
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return self.err("invalid number in JSON");
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return self.err("invalid number in JSON");
            }
        }
        let text = &self.s[start..self.i];
        match Number::parse(text) {
            Some(n) => Ok(Value::Number(n)),
            None => {
                self.i = start;
                self.err("number out of range in JSON")
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let Some(h) = self.s.get(self.i..self.i + 4) else {
            return self.err("invalid \\u escape in JSON string");
        };
        let Ok(v) = u32::from_str_radix(h, 16) else {
            return self.err("invalid \\u escape in JSON string");
        };
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return self.err("invalid \\u escape in JSON string");
        }
        self.i += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<Arc<str>, String> {
        match self.plain_string() {
            Some(text) => Ok(Arc::from(text)),
            None => self.escaped_string().map(Arc::from),
        }
    }

    /// An object key's text as a key: a text without escapes (borrowed)
    /// shared with the same key read before when it is short (the objects
    /// of an array repeat the same few keys; values repeat far less, and
    /// looking them up costs about what it saves).
    fn key(&mut self, text: std::borrow::Cow<'_, str>) -> Key {
        match text {
            std::borrow::Cow::Borrowed(text) => self.keys.get(text),
            std::borrow::Cow::Owned(text) => Key::from(text),
        }
    }

    /// The text of the string at the opening quote when it has no escape
    /// (most have none: taken straight from the text, instead of a growing
    /// `String` copied again into the `Arc`), stepping over it; else
    /// `None`, after the opening quote.
    #[inline(always)]
    fn plain_string(&mut self) -> Option<&'a str> {
        self.i += 1; // opening quote
        let start = self.i;
        let end = crate::scan::plain_end(self.b, start);
        if self.b.get(end) == Some(&b'"') {
            self.i = end + 1;
            return Some(&self.s[start..end]);
        }
        None
    }

    /// The rest of [`Self::string`] (after the opening quote) when it holds
    /// an escape or ends badly.
    fn escaped_string(&mut self) -> Result<String, String> {
        let mut out = Vec::new();
        let b = self.b;
        let mut j = self.i;
        loop {
            // The runs between escapes copied a word at a time, the
            // one-character escapes decoded here (a JSON document inside a
            // string has one every few bytes); anything else (`\u`, the
            // closing quote missing, an error) goes to the generic loop
            // from where it is, which gives the same errors at the same
            // places.
            j = crate::scan::copy_plain(b, j, &mut out);
            let c = match (b.get(j), b.get(j + 1)) {
                (Some(b'"'), _) => {
                    self.i = j + 1;
                    break;
                }
                (Some(b'\\'), Some(&e)) => simple_escape(e),
                _ => None,
            };
            let Some(c) = c else {
                self.i = j;
                self.unescape(&mut out)?;
                break;
            };
            out.push(c);
            j += 2;
        }
        // Runs of the text cut at ASCII bytes, ASCII bytes and whole
        // encoded characters: UTF-8 (checked again, not assumed).
        String::from_utf8(out).or_else(|_| self.err("invalid UTF-8 in JSON string"))
    }

    /// Reads a string's text after its opening quote up to and including
    /// its closing one, giving `out` the runs and escaped characters: the
    /// reader builds the string, [`Self::skip`] only checks it
    /// ([`Unbuilt`]), with the same errors at the same places.
    fn unescape(&mut self, out: &mut impl Unescaped) -> Result<(), String> {
        loop {
            let start = self.i;
            self.i = crate::scan::plain_end(self.b, start);
            out.run(&self.s[start..self.i]);
            match self.b.get(self.i) {
                None => return self.err("unterminated JSON string"),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.i += 1;
                    let Some(&e) = self.b.get(self.i) else {
                        return self.err("unterminated JSON string");
                    };
                    self.i += 1;
                    match e {
                        b'u' => {
                            let hi = self.hex4()?;
                            let c = if (0xD800..0xDC00).contains(&hi) {
                                // Surrogate pair; a lone surrogate becomes
                                // U+FFFD, as Go's decoder does.
                                if self.s[self.i..].starts_with("\\u") {
                                    let save = self.i;
                                    self.i += 2;
                                    let lo = self.hex4()?;
                                    if (0xDC00..0xE000).contains(&lo) {
                                        char::from_u32(
                                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00),
                                        )
                                    } else {
                                        self.i = save;
                                        None
                                    }
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(hi)
                            };
                            out.char(c.unwrap_or('\u{FFFD}'));
                        }
                        _ => match simple_escape(e) {
                            Some(c) => out.char(char::from(c)),
                            None => {
                                self.i -= 1;
                                return self.err("invalid escape in JSON string");
                            }
                        },
                    }
                }
                Some(_) => return self.err("invalid control character in JSON string"),
            }
        }
    }
}

/// The byte a one-character JSON escape `\e` stands for (`\u` is not
/// one): the table the skip, the reader and the generic loop share.
#[inline(always)]
fn simple_escape(e: u8) -> Option<u8> {
    Some(match e {
        b'"' | b'\\' | b'/' => e,
        b'b' => 0x08,
        b'f' => 0x0C,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// Where [`Parser::unescape`] puts a string's text.
trait Unescaped {
    fn run(&mut self, s: &str);
    fn char(&mut self, c: char);
}

impl Unescaped for Vec<u8> {
    #[inline(always)]
    fn run(&mut self, s: &str) {
        self.extend_from_slice(s.as_bytes());
    }
    #[inline(always)]
    fn char(&mut self, c: char) {
        self.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    }
}

/// A string checked and stepped over, not kept.
struct Unbuilt;

impl Unescaped for Unbuilt {
    #[inline(always)]
    fn run(&mut self, _: &str) {}
    #[inline(always)]
    fn char(&mut self, _: char) {}
}

/// Parses JSON text into a value (objects → objects, arrays → tuples,
/// `null` → untyped null, numbers exact).
pub fn from_json_text(text: &str) -> Result<Value, String> {
    let mut p = Parser::new(text);
    let v = p.value(0)?;
    p.end(v)
}

/// How much of a member [`from_json_text_sparse`] reads.
#[derive(Clone, Debug, PartialEq)]
pub enum Keep {
    /// Checked, not built: reads as `null`.
    Nothing,
    /// Read whole.
    All,
    /// When it is an object, only its members of these names (sorted by
    /// bytes, as [`Key`]s order): the others are checked and left out of
    /// the object. Any other value is read whole.
    Members(std::sync::Arc<[Key]>),
    /// When it is an array, each of its elements as [`Keep::Members`]
    /// reads it. Any other value is read whole.
    Elements(std::sync::Arc<[Key]>),
}

/// [`from_json_text`] of a text whose members under the top-level member
/// `nested` (when it is an object) are not all needed: each member `k` of
/// it is read as `keep(read, k)` says (`read`: the top-level members read
/// before it, in text order); what is not read is checked as
/// [`from_json_text`] checks it, with the same errors. (A reader wanting a
/// few of many variables, or a few attributes of a large one, skips
/// building the rest.)
pub fn from_json_text_sparse(
    text: &str,
    nested: &str,
    keep: &mut dyn FnMut(&[(Key, Value)], &str) -> Keep,
) -> Result<Value, String> {
    let mut p = Parser::new(text);
    p.ws();
    let v = if p.b.get(p.i) == Some(&b'{') {
        p.object(0, |p, k, _, d| {
            p.ws();
            if k != nested || p.b.get(p.i) != Some(&b'{') {
                return p.value(d).map(Some);
            }
            // The top-level members read so far are all below this
            // object's.
            p.object(d, |p, k, base, d| {
                let v = match keep(&p.scratch.members[..base], k) {
                    Keep::All => p.value(d),
                    Keep::Nothing => p.skip(d).map(|()| Value::null()),
                    Keep::Members(names) => p.value_only(d, &names),
                    Keep::Elements(names) => {
                        p.ws();
                        if p.b.get(p.i) == Some(&b'[') {
                            p.array(d, |p, d| p.value_only(d, &names))
                        } else {
                            p.value(d)
                        }
                    }
                };
                v.map(Some)
            })
            .map(Some)
        })?
    } else {
        p.value(0)?
    };
    p.end(v)
}

/// Go `encoding/json` string escaping (HTML-safe, as `json.Marshal`).
pub fn write_json_string(out: &mut String, s: &str) {
    write_str(out, s, true);
}

/// JSON string escaping without the HTML-safe escapes of `<`, `>`, `&`,
/// U+2028 and U+2029 (for display: `fn-hcl eval`, the jsonl protocol).
pub fn write_json_string_plain(out: &mut String, s: &str) {
    write_str(out, s, false);
}

fn write_str(out: &mut String, s: &str, html_safe: bool) {
    out.push('"');
    let mut rest = s;
    loop {
        // Runs without anything to escape are copied whole.
        let n = crate::scan::plain_prefix(rest.as_bytes(), html_safe);
        out.push_str(&rest[..n]);
        rest = &rest[n..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        rest = &rest[c.len_utf8()..];
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' if html_safe => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `n`'s text (its `Display`): a whole number that its precision holds
/// (what `Display` writes with `{v}`) by hand, without a `String` of its
/// own; zero and anything else through `Display`.
fn write_number(out: &mut String, n: &Number) {
    if let Some(i) = n.to_i64()
        && i != 0
        && i != i64::MIN
        && 64 - i.unsigned_abs().leading_zeros() <= n.precision()
    {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut m = i.unsigned_abs();
        while m > 0 {
            at -= 1;
            digits[at] = b'0' + (m % 10) as u8;
            m /= 10;
        }
        if i < 0 {
            out.push('-');
        }
        for &d in &digits[at..] {
            out.push(char::from(d));
        }
        return;
    }
    let _ = std::fmt::Write::write_fmt(out, format_args!("{n}"));
}

const MAX_OUT_DEPTH: usize = 1024;

/// How the writer treats what JSON text cannot hold.
#[derive(Clone, Copy)]
struct Style {
    /// HTML-safe string escapes (see [`write_json_string`]).
    html: bool,
    /// cty's `json.Marshal` (see [`to_cty_json_text`]) rather than output
    /// for documents: a marked value is an error, an infinity is written
    /// as its text, and nesting is not limited.
    cty: bool,
}

fn write_value(v: &Value, out: &mut String, depth: usize, style: Style) -> Result<(), String> {
    if depth > MAX_OUT_DEPTH && !style.cty {
        return Err("value is nested too deeply to serialize as JSON".into());
    }
    let d = depth + 1;
    let html = style.html;
    match v {
        Value::Marked(_) if style.cty => {
            Err("value has marks, so it cannot be serialized as JSON".into())
        }
        Value::Marked(inner) => write_value(inner, out, depth, style),
        Value::Null(_) => {
            out.push_str("null");
            Ok(())
        }
        Value::Unknown(_) => Err("value is not known".into()),
        Value::Bool(b) => {
            out.push_str(if *b { "true" } else { "false" });
            Ok(())
        }
        Value::Number(n) => {
            if n.is_infinite() && !style.cty {
                return Err("cannot serialize infinity as JSON".into());
            }
            write_number(out, n);
            Ok(())
        }
        Value::String(s) => {
            write_str(out, s, html);
            Ok(())
        }
        Value::List(c) | Value::Set(c) => write_seq(c.items.iter(), out, d, style),
        Value::Tuple(items) => write_seq(items.iter(), out, d, style),
        Value::Map(m) => write_obj(m.items.iter(), out, d, style),
        Value::Object(attrs) => write_obj(attrs.iter(), out, d, style),
    }
}

fn write_seq<'a>(
    items: impl Iterator<Item = &'a Value>,
    out: &mut String,
    depth: usize,
    style: Style,
) -> Result<(), String> {
    out.push('[');
    for (i, v) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_value(v, out, depth, style)?;
    }
    out.push(']');
    Ok(())
}

fn write_obj<'a>(
    items: impl Iterator<Item = (&'a Key, &'a Value)>,
    out: &mut String,
    depth: usize,
    style: Style,
) -> Result<(), String> {
    out.push('{');
    for (i, (k, v)) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, k, style.html);
        out.push(':');
        write_value(v, out, depth, style)?;
    }
    out.push('}');
    Ok(())
}

/// Compact cty JSON text of a value (Terraform's `jsonencode`).
pub fn to_json_text(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_value(
        v,
        &mut out,
        0,
        Style {
            html: true,
            cty: false,
        },
    )?;
    Ok(out)
}

/// cty's `json.Marshal(v, v.Type())`, as Terraform's `jsonencode` and
/// `format`'s `%#v` write it: as [`to_json_text`], except that a marked
/// value anywhere is an error ("value has marks ..."), an infinity is
/// written as its text (`+Inf`, as cty does), and nesting is not limited.
pub fn to_cty_json_text(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_value(
        v,
        &mut out,
        0,
        Style {
            html: true,
            cty: true,
        },
    )?;
    Ok(out)
}

/// Like [`to_json_text`], without the HTML-safe escapes (see
/// [`write_json_string_plain`]), for display.
pub fn to_json_text_plain(v: &Value) -> Result<String, String> {
    let mut out = String::new();
    write_value(
        v,
        &mut out,
        0,
        Style {
            html: false,
            cty: false,
        },
    )?;
    Ok(out)
}

/// `serde_json::Value` → value (numbers: exact for integers, shortest
/// decimal for floats; arrays → tuples; objects → objects; null →
/// untyped null). Recursion is bounded by [`MAX_JSON_DEPTH`]: deeper
/// structures become null.
pub fn from_serde_json(j: &serde_json::Value) -> Value {
    from_serde_depth(j, 0)
}

fn from_serde_depth(j: &serde_json::Value, depth: usize) -> Value {
    use serde_json::Value as J;
    if depth > MAX_JSON_DEPTH {
        return Value::null();
    }
    match j {
        J::Null => Value::null(),
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => {
            let num = if let Some(i) = n.as_i64() {
                Some(Number::from_i64(i))
            } else if let Some(u) = n.as_u64() {
                Some(Number::from_u64(u))
            } else {
                Number::parse(&n.to_string()).or_else(|| n.as_f64().and_then(Number::from_f64))
            };
            num.map_or_else(Value::null, Value::Number)
        }
        J::String(s) => Value::string(s.as_str()),
        J::Array(a) => Value::tuple(a.iter().map(|x| from_serde_depth(x, depth + 1)).collect()),
        J::Object(o) => Value::object(
            o.iter()
                .map(|(k, v)| (Key::from(k.as_str()), from_serde_depth(v, depth + 1)))
                .collect(),
        ),
    }
}

/// Value → `serde_json::Value` (numbers as `i64`/`u64` when integral and in
/// range, else nearest `f64`); `None` if the value contains an unknown or
/// an infinity. Marks are stripped.
pub fn to_serde_json(v: &Value) -> Option<serde_json::Value> {
    to_serde_depth(v, 0)
}

fn to_serde_depth(v: &Value, depth: usize) -> Option<serde_json::Value> {
    use serde_json::Value as J;
    if depth > MAX_OUT_DEPTH {
        return None;
    }
    let d = depth + 1;
    Some(match v {
        Value::Marked(inner) => return to_serde_depth(inner, depth),
        Value::Null(_) => J::Null,
        Value::Unknown(_) => return None,
        Value::Bool(b) => J::Bool(*b),
        Value::Number(n) => {
            if n.is_infinite() {
                return None;
            }
            if let Some(i) = n.to_i64() {
                J::Number(i.into())
            } else if let Some(u) = n.to_u64() {
                J::Number(u.into())
            } else {
                J::Number(serde_json::Number::from_f64(n.to_f64())?)
            }
        }
        Value::String(s) => J::String(s.to_string()),
        Value::List(c) | Value::Set(c) => J::Array(
            c.items
                .iter()
                .map(|x| to_serde_depth(x, d))
                .collect::<Option<_>>()?,
        ),
        Value::Tuple(items) => J::Array(
            items
                .iter()
                .map(|x| to_serde_depth(x, d))
                .collect::<Option<_>>()?,
        ),
        Value::Map(m) => J::Object(
            m.items
                .iter()
                .map(|(k, x)| Some((k.to_string(), to_serde_depth(x, d)?)))
                .collect::<Option<_>>()?,
        ),
        Value::Object(attrs) => J::Object(
            attrs
                .iter()
                .map(|(k, x)| Some((k.to_string(), to_serde_depth(x, d)?)))
                .collect::<Option<_>>()?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a failed read leaves in the thread's buffers does not reach
    /// the next read, and keys shared from earlier texts read right.
    #[test]
    fn a_read_after_a_failed_one_starts_clean() {
        for bad in [r#"{"a":[1,{"b":2,"c":"#, r#"[[1,2],[3,"#, r#"{"k":{"x":1}"#] {
            assert!(from_json_text(bad).is_err(), "{bad}");
            let v = from_json_text(r#"{"k":[{"x":1}],"z":[]}"#).unwrap();
            assert_eq!(
                to_json_text(&v).unwrap(),
                r#"{"k":[{"x":1}],"z":[]}"#,
                "after {bad}"
            );
        }
        // A text bigger than the buffers keep works, and so does the next.
        let big = format!("[{}0]", "[1],".repeat(3 * KEPT_CAPACITY));
        assert!(from_json_text(&big).is_ok());
        assert_eq!(
            to_json_text(&from_json_text("[[1],[2]]").unwrap()).unwrap(),
            "[[1],[2]]"
        );
        let first = from_json_text(r#"{"metadata":1}"#).unwrap();
        let again = from_json_text(r#"{"metadata":2,"metadatb":3}"#).unwrap();
        let keys = |v: &Value| match v {
            Value::Object(m) => m.keys().map(|k| k.to_string()).collect::<Vec<_>>(),
            _ => Vec::new(),
        };
        assert_eq!(keys(&first), ["metadata"]);
        assert_eq!(keys(&again), ["metadata", "metadatb"]);
    }

    /// The sparse reader answers as the whole reader: the same errors
    /// (texts and places) for every truncation and one-byte change of a
    /// line, and the same value with the skipped members as `null`.
    #[test]
    fn sparse_reading_checks_what_it_skips() {
        let line = r#" {"id":"a","expr":"x.y","vars":{"x":{"y":[1,-2.5e3,"s\n",true]},"skip":{"a":[0,12,-0,1e2,"t\u00e9",null,false,{}],"b":[],"e":"q\"r\\s\/\b\f\n\r\t\ud83d\ude00\ud800x\u0041"},"z":-123456789012345678901,"l":[{"n":1,"m":[2]},3,{"y":"s","q":{"r":null}},[]],"w":"q"} } "#;
        let keep_x = &mut |read: &[(Key, Value)], k: &str| {
            assert!(read.iter().any(|(n, _)| &**n == "expr"));
            if k == "x" { Keep::All } else { Keep::Nothing }
        };
        let Ok(Value::Object(whole)) = from_json_text(line) else {
            panic!("parses")
        };
        let Ok(Value::Object(sparse)) = from_json_text_sparse(line, "vars", keep_x) else {
            panic!("parses")
        };
        let (Some(Value::Object(wv)), Some(Value::Object(sv))) =
            (whole.get("vars"), sparse.get("vars"))
        else {
            panic!("vars")
        };
        assert_eq!(wv.len(), sv.len());
        for (k, v) in wv.iter() {
            let want = if &**k == "x" {
                v.clone()
            } else {
                Value::null()
            };
            assert_eq!(sv.get(k), Some(&want), "{k}");
        }
        assert_eq!(whole.get("expr"), sparse.get("expr"));
        let bytes = line.as_bytes();
        let replacements = b"{}[]\",:01-.eE+tfnu\\ xZ\n";
        let mut variants: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
        for i in 0..bytes.len() {
            for &r in replacements {
                let mut v = bytes.to_vec();
                v[i] = r;
                variants.push(v);
            }
            let mut v = bytes.to_vec();
            v.remove(i);
            variants.push(v);
        }
        for v in variants {
            let Ok(text) = std::str::from_utf8(&v) else {
                continue;
            };
            let whole = from_json_text(text).map(|_| ());
            let none = from_json_text_sparse(text, "vars", &mut |_, _| Keep::Nothing).map(|_| ());
            let all = from_json_text_sparse(text, "vars", &mut |_, _| Keep::All).map(|_| ());
            let some = from_json_text_sparse(text, "vars", &mut |_, _| {
                Keep::Members([Key::from("a"), Key::from("y")].into())
            })
            .map(|_| ());
            assert_eq!(whole, none, "{text}");
            assert_eq!(whole, all, "{text}");
            let each = from_json_text_sparse(text, "vars", &mut |_, _| {
                Keep::Elements([Key::from("n"), Key::from("y")].into())
            })
            .map(|_| ());
            assert_eq!(whole, some, "{text}");
            assert_eq!(whole, each, "{text}");
        }
    }

    /// `Keep::Members` reads an object variable as the whole reader does
    /// with the other members left out (repeated names: the last wins;
    /// escaped names compared by their text) and any other value whole;
    /// `Keep::Elements` does so for each element of an array.
    #[test]
    fn members_reading_keeps_only_the_names() {
        let line = r#"{"expr":"e","vars":{"t":{"b":1,"a":[1,{"x":2}],"c":"s","a":3,"d\u0061":4,"da":{"q":[]},"zz":null},"u":[1,{"a":2,"b":[{"a":3}]},[{"a":4}],{"zz":5,"da":6,"b":7}],"w":{},"s":"a"}}"#;
        // A few names (compared in turn) and many (searched).
        let few = ["a", "da", "zz", "zzz"];
        let many = [
            "0", "a", "a0", "b0", "c0", "d", "da", "db", "zz", "zzz", "~",
        ];
        for list in [&few[..], &many[..]] {
            let names: std::sync::Arc<[Key]> = list.iter().map(|&n| Key::from(n)).collect();
            let Ok(Value::Object(whole)) = from_json_text(line) else {
                panic!("parses")
            };
            let Ok(Value::Object(some)) =
                from_json_text_sparse(line, "vars", &mut |_, _| Keep::Members(names.clone()))
            else {
                panic!("parses")
            };
            let (Some(Value::Object(wv)), Some(Value::Object(sv))) =
                (whole.get("vars"), some.get("vars"))
            else {
                panic!("vars")
            };
            // An object with the names' members only; anything else as is.
            let only = |v: &Value| match v {
                Value::Object(m) => Value::object(
                    m.iter()
                        .filter(|(n, _)| names.contains(n))
                        .map(|(n, v)| (n.clone(), v.clone()))
                        .collect(),
                ),
                other => other.clone(),
            };
            assert_eq!(wv.len(), sv.len());
            for (k, v) in wv.iter() {
                assert_eq!(sv.get(k), Some(&only(v)), "{k}");
            }
            // Each object element of an array, the same way.
            let Ok(Value::Object(each)) =
                from_json_text_sparse(line, "vars", &mut |_, _| Keep::Elements(names.clone()))
            else {
                panic!("parses")
            };
            let Some(Value::Object(ev)) = each.get("vars") else {
                panic!("vars")
            };
            for (k, v) in wv.iter() {
                let want = match v {
                    Value::Tuple(items) => Value::tuple(items.iter().map(only).collect()),
                    other => other.clone(),
                };
                assert_eq!(ev.get(k), Some(&want), "{k}");
            }
            let t = sv.get("t").and_then(Value::as_entries).expect("object");
            assert_eq!(
                t.keys().map(|k| &**k).collect::<Vec<_>>(),
                ["a", "da", "zz"]
            );
            assert_eq!(t.get("a"), Some(&Value::int(3)));
        }
    }

    /// Strings with escapes, read or skipped, read as `serde_json` reads
    /// them.
    #[test]
    fn escaped_strings_read_as_serde_json_reads_them() {
        let texts = [
            r#""a\"b\\c\/d\be\ff\ng\rh\ti""#,
            r#""\\\\""#,
            r#""x\\""#,
            r#""\"\"""#,
            r#""\\""#,
            r#""é\n漢字\t""#,
            r#""{\"rows\": [{\"id\": \"r0000\", \"w\": 1}]}""#,
            r#""\u00e9\n\ud83d\ude00\t""#,
            r#""a\u0041\\u0041""#,
        ];
        for t in texts {
            let want: String = serde_json::from_str(t).expect("serde_json reads it");
            assert_eq!(from_json_text(t), Ok(Value::string(want.as_str())), "{t}");
            // And inside an object that is read or skipped.
            let doc = format!(r#"{{"k":{t},"skip":{t}}}"#);
            let Ok(Value::Object(m)) = from_json_text(&doc) else {
                panic!("{doc}")
            };
            assert_eq!(m.get("k"), Some(&Value::string(want.as_str())), "{doc}");
        }
        for bad in [r#""a\x""#, "\"a\\", "\"a\\\"", "\"a\u{1}\\n\"", r#""\u12""#] {
            assert!(from_json_text(bad).is_err(), "{bad}");
        }
    }

    /// Strings are escaped as Go's `encoding/json` escapes them (a
    /// character at a time, here), whatever falls where in the writer's
    /// eight-byte words: every ASCII character, the characters led by
    /// 0xE2 (U+2028 and U+2029 escaped when HTML-safe, `€` and `†` not),
    /// other multi-byte ones, at every offset of strings of up to 20 bytes.
    #[test]
    fn strings_written_as_go_escapes_them() {
        // Go's rule as its documentation states it: the quote, the
        // backslash and three controls by name, the other controls (and,
        // HTML-safe, `<>&` and the two separators) by code point.
        fn reference(s: &str, html: bool) -> String {
            const NAMED: [(char, char); 5] = [
                ('"', '"'),
                ('\\', '\\'),
                ('\n', 'n'),
                ('\r', 'r'),
                ('\t', 't'),
            ];
            let mut out = String::from("\"");
            for c in s.chars() {
                if let Some(&(_, name)) = NAMED.iter().find(|(raw, _)| *raw == c) {
                    out.extend(['\\', name]);
                } else if c < ' ' || (html && "<>&\u{2028}\u{2029}".contains(c)) {
                    out += &format!("\\u{:04x}", u32::from(c));
                } else {
                    out.push(c);
                }
            }
            out + "\""
        }
        let mut specials: Vec<char> = (0u8..128).map(char::from).collect();
        specials.extend(['\u{2028}', '\u{2029}', '€', '†', 'é', '漢', '😀']);
        for c in specials {
            for before in 0..12 {
                for after in [0, 1, 7, 9] {
                    let s = format!("{}{c}{}", "a".repeat(before), "é".repeat(after));
                    for html in [true, false] {
                        let mut out = String::from("x");
                        if html {
                            write_json_string(&mut out, &s);
                        } else {
                            write_json_string_plain(&mut out, &s);
                        }
                        assert_eq!(out[1..], reference(&s, html), "{s:?} html={html}");
                    }
                }
            }
        }
        assert_eq!(
            to_json_text(&Value::string("<a>\u{2028}")).as_deref(),
            Ok(r#""\u003ca\u003e\u2028""#)
        );
    }

    /// Numbers are written as their `Display` writes them.
    #[test]
    fn numbers_written_as_displayed() {
        let texts = [
            "0",
            "-0",
            "1",
            "-1",
            "7",
            "10",
            "-10",
            "123456789",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "1.5",
            "-2.25e-3",
            "1e300",
            "123456789012345678901234567890",
            "0.1",
        ];
        let mut nums: Vec<Number> = texts.iter().filter_map(|t| Number::parse(t)).collect();
        nums.push(Number::from_f64(0.1).expect("finite"));
        nums.push(Number::from_f64(-3.0).expect("finite"));
        nums.push(Number::from_f64(1e20).expect("finite"));
        nums.push(Number::from_f64(2f64.powi(60)).expect("finite"));
        for n in nums {
            let mut out = String::new();
            write_number(&mut out, &n);
            assert_eq!(out, n.to_string());
        }
    }

    /// A skipped variable is refused past the nesting limit exactly where
    /// the whole reader refuses it, whatever mix of objects and arrays
    /// (the skip keeps one bit per open container) and whatever follows;
    /// the line's own object and `vars` are two of the levels.
    #[test]
    fn skipped_nesting_meets_the_limit_as_read() {
        for levels in [MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1] {
            for pattern in [0usize, 1, 2, 3, 5] {
                let object = |n: usize| pattern != 0 && (n / pattern).is_multiple_of(2);
                let mut v = String::new();
                for n in 0..levels {
                    v.push_str(if object(n) { "{\"k\":" } else { "[" });
                }
                v.push_str("true");
                for n in (0..levels).rev() {
                    v.push_str(if object(n) { ",\"z\":[]}" } else { ",{}]" });
                }
                for tail in ["", ",\"w\":1", ",\"w\"", "]"] {
                    let line = format!(r#"{{"expr":"e","vars":{{"deep":{v}{tail}}}}}"#);
                    let whole = from_json_text(&line).map(|_| ());
                    let skipped =
                        from_json_text_sparse(&line, "vars", &mut |_, _| Keep::Nothing).map(|_| ());
                    assert_eq!(whole, skipped, "{levels} {pattern} {tail:?}");
                    assert_eq!(
                        whole.is_ok(),
                        // The innermost container's empty sibling is one
                        // level deeper than the container.
                        levels <= MAX_JSON_DEPTH - 3 && (tail.is_empty() || tail == ",\"w\":1"),
                        "{levels} {pattern} {tail:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn sparse_reading_of_other_shapes() {
        for text in [
            "[1,2]",
            "\"s\"",
            "{\"vars\":[1]}",
            "{}",
            "{\"vars\":{}}",
            "  7 ",
        ] {
            assert_eq!(
                from_json_text(text),
                from_json_text_sparse(text, "vars", &mut |_, _| Keep::Nothing),
                "{text}"
            );
        }
    }
}
