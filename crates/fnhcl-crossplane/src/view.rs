//! A `RunFunctionRequest` read from its protobuf bytes, without prost's
//! message (docs/notes/request-wire.md).
//!
//! [`RequestView::new`] checks the whole request in one pass (every wire
//! type, length and string, as prost's decoder would) and records where
//! each part is: the meta's tag and capabilities, the observed and desired
//! states' resources (sorted by name), the input, the context, the
//! required resources and schemas, as byte ranges of the request. Nothing
//! is allocated per `Struct` node: a part is decoded into our
//! [`fnhcl_value::Value`]s only when the program demands it
//! ([`crate::request::eval_request_view`]), and the response writer copies
//! what it passes through as the request's bytes
//! ([`crate::response::success_bytes_view`]).
//!
//! The view only takes requests in the form every encoder writes (each
//! singular field once, each map key once above the `Struct`s, one kind per
//! `Value`, no groups, nesting well under prost's limit). Anything else is
//! [`Unusual`]: the caller decodes the bytes with prost (which gives the
//! error text when they are bad) and views prost's re-encoding of the
//! message, so such a request means what prost reads it to mean.

use fnhcl_value::{Key, ObjMap, Value, key_eq};
use function_sdk_rust::proto::v1::Capability;

use crate::convert::{MAX_DEPTH, TooDeep, number_from_f64};
use crate::wire::{FIXED64, LEN, VARINT};

/// The bytes are not in the form [`RequestView`] reads, or are not a
/// request at all: decode them with prost instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unusual;

/// Messages nested deeper than this are left to prost (whose own limit is
/// 100 nested messages: a request it rejects for depth is rejected with
/// its error).
pub const MAX_MESSAGES: usize = 60;

/// Reads protobuf fields front to back.
#[derive(Clone, Copy)]
pub(crate) struct Rd<'a> {
    pub(crate) buf: &'a [u8],
}

impl<'a> Rd<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Rd<'a> {
        Rd { buf }
    }

    /// A varint; one byte (nearly every tag and length) without a call.
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, Unusual> {
        if let Some((&b, rest)) = self.buf.split_first()
            && b < 0x80
        {
            self.buf = rest;
            return Ok(u64::from(b));
        }
        self.long_varint()
    }

    /// A varint of more than one byte (or none: an error).
    #[inline(never)]
    fn long_varint(&mut self) -> Result<u64, Unusual> {
        let mut v = 0u64;
        for i in 0..10 {
            let (&b, rest) = self.buf.split_first().ok_or(Unusual)?;
            self.buf = rest;
            // The tenth byte holds one bit: more is not a varint to prost.
            if i == 9 && b > 1 {
                return Err(Unusual);
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(Unusual)
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], Unusual> {
        let n = usize::try_from(n).map_err(|_| Unusual)?;
        if n > self.buf.len() {
            return Err(Unusual);
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// The next field's tag and wire type, `None` at the end. A key of one
    /// byte (tags up to 15) is read without a call.
    #[inline(always)]
    pub(crate) fn field(&mut self) -> Result<Option<(u64, u32)>, Unusual> {
        let Some((&b, rest)) = self.buf.split_first() else {
            return Ok(None);
        };
        if b < 0x80 {
            // Tag 0 is no field.
            if b < 8 {
                return Err(Unusual);
            }
            self.buf = rest;
            return Ok(Some((u64::from(b >> 3), u32::from(b & 7))));
        }
        self.long_field().map(Some)
    }

    /// A field key of more than one byte.
    #[inline(never)]
    fn long_field(&mut self) -> Result<(u64, u32), Unusual> {
        let key = self.long_varint()?;
        let tag = key >> 3;
        if tag == 0 || tag > u64::from(u32::MAX >> 3) {
            return Err(Unusual);
        }
        Ok((tag, (key & 7) as u32))
    }

    /// A length-delimited field's bytes; a length of one or two bytes
    /// (below 16 KiB) is read without a call.
    #[inline(always)]
    fn len(&mut self, wire: u32) -> Result<&'a [u8], Unusual> {
        if wire != LEN {
            return Err(Unusual);
        }
        let (head, rest) = split_len(self.buf).ok_or(Unusual)?;
        self.buf = rest;
        Ok(head)
    }

    fn str(&mut self, wire: u32) -> Result<&'a str, Unusual> {
        std::str::from_utf8(self.len(wire)?).map_err(|_| Unusual)
    }

    /// Checks a string field without making it a `str` (the checking
    /// pass): ASCII, nearly every key and value, is checked a word at a
    /// time, with less per-call work than `from_utf8`; anything else is
    /// left to `from_utf8`. The same strings are rejected.
    #[inline(always)]
    fn utf8(&mut self, wire: u32) -> Result<(), Unusual> {
        if utf8(self.len(wire)?) {
            Ok(())
        } else {
            Err(Unusual)
        }
    }

    fn int(&mut self, wire: u32) -> Result<u64, Unusual> {
        if wire != VARINT {
            return Err(Unusual);
        }
        self.varint()
    }

    fn fixed64(&mut self, wire: u32) -> Result<[u8; 8], Unusual> {
        if wire != FIXED64 {
            return Err(Unusual);
        }
        let mut x = [0; 8];
        x.copy_from_slice(self.take(8)?);
        Ok(x)
    }

    /// Skips an unknown field (groups are left to prost).
    fn skip(&mut self, wire: u32) -> Result<(), Unusual> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.len(wire).map(drop),
            5 => self.take(4).map(drop),
            _ => Err(Unusual),
        }
    }
}

/// Whether `b` is ASCII. Keys and most string values are at most 32
/// bytes: those are tested as two overlapping words (`<[u8]>::is_ascii`
/// is a call that lines its reads up first: ~45 instructions for a key);
/// longer ones by `is_ascii`.
#[inline(always)]
fn ascii(b: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let n = b.len();
    let word = |at: usize| {
        b.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(HIGH, u64::from_le_bytes)
    };
    let half = |at: usize| {
        b.get(at..at + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map_or(0x8080_8080, u32::from_le_bytes)
    };
    match n {
        0..4 => b.iter().all(|c| *c < 0x80),
        4..8 => (half(0) | half(n - 4)) & 0x8080_8080 == 0,
        8..=16 => (word(0) | word(n - 8)) & HIGH == 0,
        17..=32 => (word(0) | word(8) | word(n - 16) | word(n - 8)) & HIGH == 0,
        _ => b.is_ascii(),
    }
}

/// Whether `b` is UTF-8: ASCII (nearly every key and value) a word at a
/// time, anything else by `from_utf8`.
#[inline(always)]
fn utf8(b: &[u8]) -> bool {
    ascii(b) || std::str::from_utf8(b).is_ok()
}

/// Sets `slot` once: a second occurrence of a singular field is prost's
/// merge, left to prost.
fn once<T>(slot: &mut Option<T>, v: T) -> Result<(), Unusual> {
    if slot.replace(v).is_some() {
        return Err(Unusual);
    }
    Ok(())
}

/// Sorts map entries by key and rejects a key given twice.
fn sort_unique<T>(entries: &mut [(&str, T)]) -> Result<(), Unusual> {
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    if entries.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(Unusual);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Checking `Struct`s (what prost's decoder would reject, or read other than
// the view does).

/// Checks a `Struct` message at `depth` nested messages: in the usual
/// form ([`usual_struct`]) in one quick pass, anything else field by field
/// ([`exact_struct`]).
fn check_struct(b: &[u8], depth: usize, limit: usize) -> Result<(), Unusual> {
    if usual_struct(b, depth, limit) {
        return Ok(());
    }
    exact_struct(b, depth, limit)
}

/// Checks a `Struct` message at `depth` nested messages, field by field:
/// fields in any order, unknown ones skipped, lengths of any size; an
/// entry's key or value given twice, or a `Value` of two kinds, is
/// [`Unusual`] (left to prost).
fn exact_struct(b: &[u8], depth: usize, limit: usize) -> Result<(), Unusual> {
    if depth > limit {
        return Err(Unusual);
    }
    let mut r = Rd::new(b);
    while let Some((tag, wire)) = r.field()? {
        if tag != 1 {
            r.skip(wire)?;
            continue;
        }
        let mut e = Rd::new(r.len(wire)?);
        let (mut key, mut value) = (false, false);
        while let Some((tag, wire)) = e.field()? {
            match tag {
                1 => {
                    e.utf8(wire)?;
                    if std::mem::replace(&mut key, true) {
                        return Err(Unusual);
                    }
                }
                2 => {
                    check_value(e.len(wire)?, depth + 1, limit)?;
                    if std::mem::replace(&mut value, true) {
                        return Err(Unusual);
                    }
                }
                _ => e.skip(wire)?,
            }
        }
    }
    Ok(())
}

/// Checks a `Value` message: one kind at most.
fn check_value(b: &[u8], depth: usize, limit: usize) -> Result<(), Unusual> {
    if depth > limit {
        return Err(Unusual);
    }
    let mut r = Rd::new(b);
    let mut kinds = 0;
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 | 4 => drop(r.int(wire)?),
            2 => drop(r.fixed64(wire)?),
            3 => r.utf8(wire)?,
            5 => exact_struct(r.len(wire)?, depth + 1, limit)?,
            6 => {
                let mut l = Rd::new(r.len(wire)?);
                while let Some((tag, wire)) = l.field()? {
                    match tag {
                        1 => check_value(l.len(wire)?, depth + 2, limit)?,
                        _ => l.skip(wire)?,
                    }
                }
            }
            _ => {
                r.skip(wire)?;
                continue;
            }
        }
        kinds += 1;
    }
    if kinds > 1 {
        return Err(Unusual);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The usual form, checked in one quick pass: what Crossplane (Go's
// protobuf) and prost write. A `Struct` is its entries (field 1), each a
// key (field 1) then a `Value` (field 2); a `Value` is one field; a
// `ListValue` its items (field 1). Nothing else is in them. These
// functions answer true only for bytes the exact checks
// ([`exact_struct`], [`check_value`]) take; false means "not the usual
// form" (the exact checks then decide), never "bad".

/// The payload of a length-delimited field (its length first) and what
/// follows it; lengths of one and two bytes (below 16 KiB) without a call.
#[inline(always)]
fn split_len(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let (n, rest) = match b {
        [x, rest @ ..] if *x < 0x80 => (usize::from(*x), rest),
        [x, y, rest @ ..] if *y < 0x80 => (usize::from(x & 0x7f) | usize::from(*y) << 7, rest),
        _ => {
            let mut r = Rd::new(b);
            let n = usize::try_from(r.long_varint().ok()?).ok()?;
            (n, r.buf)
        }
    };
    (n <= rest.len()).then(|| rest.split_at(n))
}

/// Whether `b` is a `Struct` message at `depth` nested messages in the
/// usual form, every string UTF-8 and every message within `limit`.
fn usual_struct(mut b: &[u8], depth: usize, limit: usize) -> bool {
    if depth > limit {
        return false;
    }
    while let [0x0a, rest @ ..] = b {
        // An entry of under 128 bytes (nearly every one): its three
        // lengths are one byte each and add up.
        if let [e, 0x0a, k, rest @ ..] = rest
            && *e < 0x80
            && usize::from(*e) <= rest.len() + 2
            && let Some((key, [0x12, v, rest @ ..])) = rest.split_at_checked(usize::from(*k))
            && usize::from(*e) == usize::from(*k) + usize::from(*v) + 4
        {
            let (value, rest) = rest.split_at(usize::from(*v));
            b = rest;
            if !(utf8(key) && usual_value(value, depth + 1, limit)) {
                return false;
            }
            continue;
        }
        let Some((entry, rest)) = split_len(rest) else {
            return false;
        };
        b = rest;
        let Some((key, value)) = usual_entry(entry) else {
            return false;
        };
        if !(utf8(key) && usual_value(value, depth + 1, limit)) {
            return false;
        }
    }
    b.is_empty()
}

/// Whether `v` is a `Value` message at `depth` in the usual form: one
/// leaf (a string, a number, a bool of 0 or 1, a null of one byte), an
/// empty `Struct` (nearly every value of `managedFields`) or a usual
/// `Struct` or `ListValue`; within `limit` also for a container's
/// message, so `depth` below it.
#[inline(always)]
fn usual_value(v: &[u8], depth: usize, limit: usize) -> bool {
    if depth >= limit {
        return false;
    }
    match v {
        [0x11, rest @ ..] => rest.len() == 8,
        [0x20, b] => *b <= 1,
        [0x08, b] => *b < 0x80,
        [0x1a, rest @ ..] => matches!(split_len(rest), Some((s, [])) if utf8(s)),
        [0x2a, 0] => true,
        [0x2a, rest @ ..] => {
            matches!(split_len(rest), Some((s, [])) if usual_struct(s, depth + 1, limit))
        }
        [0x32, rest @ ..] => {
            matches!(split_len(rest), Some((l, [])) if usual_list(l, depth + 1, limit))
        }
        _ => false,
    }
}

/// Whether `b` is a `ListValue` message at `depth` in the usual form.
fn usual_list(mut b: &[u8], depth: usize, limit: usize) -> bool {
    while let [0x0a, rest @ ..] = b {
        let Some((item, rest)) = split_len(rest) else {
            return false;
        };
        b = rest;
        if !usual_value(item, depth + 1, limit) {
            return false;
        }
    }
    b.is_empty()
}

// ---------------------------------------------------------------------------
// The view.

/// A `Resource` of the request.
#[derive(Clone, Debug, Default)]
pub struct ResourceView<'a> {
    /// The whole `Resource` message.
    pub raw: &'a [u8],
    /// Its `resource` (a `Struct` message), if set.
    pub body: Option<&'a [u8]>,
    /// Its connection details, sorted by key.
    pub connection: Vec<(&'a str, &'a [u8])>,
    pub ready: i32,
}

/// A `State` of the request.
#[derive(Clone, Debug, Default)]
pub struct StateView<'a> {
    /// The whole `State` message.
    pub raw: &'a [u8],
    pub composite: Option<ResourceView<'a>>,
    /// The composed resources, sorted by name.
    pub resources: Vec<(&'a str, ResourceView<'a>)>,
}

/// A `RunFunctionRequest` as the byte ranges of its parts (see the module
/// documentation).
#[derive(Clone, Debug, Default)]
pub struct RequestView<'a> {
    /// The request's bytes.
    pub bytes: &'a [u8],
    /// `meta.tag`.
    pub tag: &'a str,
    /// `meta.capabilities`.
    pub capabilities: Vec<i32>,
    pub observed: Option<StateView<'a>>,
    pub desired: Option<StateView<'a>>,
    /// The input `Struct` message.
    pub input: Option<&'a [u8]>,
    /// Whether `input` is the `known_input` given to
    /// [`RequestView::read_known`] (byte for byte): its caller then has it
    /// decoded already and need not compare the bytes again.
    pub input_known: bool,
    /// The context `Struct` message.
    pub context: Option<&'a [u8]>,
    /// `extra_resources` (legacy), sorted by name.
    pub extra_resources: Vec<(&'a str, Vec<ResourceView<'a>>)>,
    /// `required_resources`, sorted by name.
    pub required_resources: Vec<(&'a str, Vec<ResourceView<'a>>)>,
    /// `required_schemas`: each `Schema`'s `openapi_v3` `Struct` message
    /// (`None` when unset), sorted by key.
    pub required_schemas: Vec<(&'a str, Option<&'a [u8]>)>,
}

fn resource(b: &[u8], depth: usize, limit: usize) -> Result<ResourceView<'_>, Unusual> {
    let mut r = Rd::new(b);
    let mut body = None;
    let mut connection = Vec::new();
    let mut ready = None;
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 => {
                let s = r.len(wire)?;
                check_struct(s, depth + 1, limit)?;
                once(&mut body, s)?;
            }
            2 => {
                let mut e = Rd::new(r.len(wire)?);
                let (mut key, mut value) = (None, None);
                while let Some((tag, wire)) = e.field()? {
                    match tag {
                        1 => once(&mut key, e.str(wire)?)?,
                        2 => once(&mut value, e.len(wire)?)?,
                        _ => e.skip(wire)?,
                    }
                }
                connection.push((key.unwrap_or(""), value.unwrap_or(&[])));
            }
            // prost reads an enum's varint as `i32`, truncating.
            3 => once(&mut ready, r.int(wire)? as i32)?,
            _ => r.skip(wire)?,
        }
    }
    sort_unique(&mut connection)?;
    Ok(ResourceView {
        raw: b,
        body,
        connection,
        ready: ready.unwrap_or(0),
    })
}

fn state(b: &[u8], limit: usize) -> Result<StateView<'_>, Unusual> {
    let mut r = Rd::new(b);
    let mut composite = None;
    let mut resources = Vec::new();
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 => once(&mut composite, resource(r.len(wire)?, 2, limit)?)?,
            2 => {
                let mut e = Rd::new(r.len(wire)?);
                let (mut key, mut value) = (None, None);
                while let Some((tag, wire)) = e.field()? {
                    match tag {
                        1 => once(&mut key, e.str(wire)?)?,
                        2 => once(&mut value, resource(e.len(wire)?, 3, limit)?)?,
                        _ => e.skip(wire)?,
                    }
                }
                resources.push((key.unwrap_or(""), value.unwrap_or_default()));
            }
            _ => r.skip(wire)?,
        }
    }
    sort_unique(&mut resources)?;
    Ok(StateView {
        raw: b,
        composite,
        resources,
    })
}

/// A `map<string, Resources>` entry.
fn resources_entry(b: &[u8], limit: usize) -> Result<(&str, Vec<ResourceView<'_>>), Unusual> {
    let mut e = Rd::new(b);
    let (mut key, mut value) = (None, None);
    while let Some((tag, wire)) = e.field()? {
        match tag {
            1 => once(&mut key, e.str(wire)?)?,
            2 => {
                let mut r = Rd::new(e.len(wire)?);
                let mut items = Vec::new();
                while let Some((tag, wire)) = r.field()? {
                    match tag {
                        1 => items.push(resource(r.len(wire)?, 3, limit)?),
                        _ => r.skip(wire)?,
                    }
                }
                once(&mut value, items)?;
            }
            _ => e.skip(wire)?,
        }
    }
    Ok((key.unwrap_or(""), value.unwrap_or_default()))
}

/// A `map<string, Schema>` entry.
fn schema_entry(b: &[u8], limit: usize) -> Result<(&str, Option<&[u8]>), Unusual> {
    let mut e = Rd::new(b);
    let (mut key, mut value) = (None, None);
    while let Some((tag, wire)) = e.field()? {
        match tag {
            1 => once(&mut key, e.str(wire)?)?,
            2 => {
                let mut r = Rd::new(e.len(wire)?);
                let mut openapi = None;
                while let Some((tag, wire)) = r.field()? {
                    match tag {
                        1 => {
                            let s = r.len(wire)?;
                            check_struct(s, 3, limit)?;
                            once(&mut openapi, s)?;
                        }
                        _ => r.skip(wire)?,
                    }
                }
                once(&mut value, openapi)?;
            }
            _ => e.skip(wire)?,
        }
    }
    Ok((key.unwrap_or(""), value.flatten()))
}

fn meta(b: &[u8]) -> Result<(&str, Vec<i32>), Unusual> {
    let mut r = Rd::new(b);
    let mut tag_text = None;
    let mut capabilities = Vec::new();
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 => once(&mut tag_text, r.str(wire)?)?,
            2 if wire == LEN => {
                let mut p = Rd::new(r.len(wire)?);
                while !p.buf.is_empty() {
                    capabilities.push(p.varint()? as i32);
                }
            }
            2 => capabilities.push(r.int(wire)? as i32),
            _ => r.skip(wire)?,
        }
    }
    Ok((tag_text.unwrap_or(""), capabilities))
}

impl<'a> RequestView<'a> {
    /// Reads `bytes` as a `RunFunctionRequest` (see the module
    /// documentation for what is [`Unusual`]).
    pub fn new(bytes: &'a [u8]) -> Result<RequestView<'a>, Unusual> {
        RequestView::read(bytes, MAX_MESSAGES)
    }

    /// [`RequestView::new`] with another limit of nested messages.
    pub fn read(bytes: &'a [u8], limit: usize) -> Result<RequestView<'a>, Unusual> {
        RequestView::read_known(bytes, limit, None)
    }

    /// [`RequestView::read`] where an input whose bytes are `known_input`
    /// is not checked again: the caller passes the input of a request a
    /// view (or prost) took before, which is taken again in any request
    /// (the input is always at the same depth). A server's calls carry
    /// the same input, program text and all, call after call.
    pub fn read_known(
        bytes: &'a [u8],
        limit: usize,
        known_input: Option<&[u8]>,
    ) -> Result<RequestView<'a>, Unusual> {
        let mut r = Rd::new(bytes);
        let mut v = RequestView {
            bytes,
            ..RequestView::default()
        };
        let mut meta_seen = None;
        while let Some((tag, wire)) = r.field()? {
            match tag {
                1 => {
                    let (t, c) = meta(r.len(wire)?)?;
                    once(&mut meta_seen, ())?;
                    v.tag = t;
                    v.capabilities = c;
                }
                2 => once(&mut v.observed, state(r.len(wire)?, limit)?)?,
                3 => once(&mut v.desired, state(r.len(wire)?, limit)?)?,
                4 | 5 => {
                    let s = r.len(wire)?;
                    let known = tag == 4 && known_input == Some(s);
                    if known {
                        v.input_known = true;
                    } else {
                        check_struct(s, 1, limit)?;
                    }
                    once(
                        if tag == 4 {
                            &mut v.input
                        } else {
                            &mut v.context
                        },
                        s,
                    )?;
                }
                6 => v
                    .extra_resources
                    .push(resources_entry(r.len(wire)?, limit)?),
                8 => v
                    .required_resources
                    .push(resources_entry(r.len(wire)?, limit)?),
                // Credentials are not read: prost checks them.
                7 => {
                    use prost::Message as _;
                    let entry = r.len(wire)?;
                    let mut e = Rd::new(entry);
                    while let Some((tag, wire)) = e.field()? {
                        match tag {
                            1 => e.utf8(wire)?,
                            2 => {
                                function_sdk_rust::proto::v1::Credentials::decode(e.len(wire)?)
                                    .map_err(|_| Unusual)?;
                            }
                            _ => e.skip(wire)?,
                        }
                    }
                }
                9 => v.required_schemas.push(schema_entry(r.len(wire)?, limit)?),
                _ => r.skip(wire)?,
            }
        }
        sort_unique(&mut v.extra_resources)?;
        sort_unique(&mut v.required_resources)?;
        sort_unique(&mut v.required_schemas)?;
        Ok(v)
    }

    /// The observed composite's body (a `Struct` message).
    pub fn xr_body(&self) -> Option<&'a [u8]> {
        self.observed.as_ref()?.composite.as_ref()?.body
    }

    /// Whether the request has no observed composed resources.
    pub fn no_observed(&self) -> bool {
        self.observed
            .as_ref()
            .is_none_or(|o| o.resources.is_empty())
    }

    pub fn has_capability(&self, c: Capability) -> bool {
        self.capabilities.contains(&(c as i32))
    }
}

// ---------------------------------------------------------------------------
// Reading checked `Struct`s and `Value`s. The view has checked every byte
// these read, so the readers' errors cannot happen; they end the read.

/// A `Struct`'s entries (key, `Value` message), sorted by key, the last of
/// equal keys kept (prost's map: the last entry wins).
pub fn entries(s: &[u8]) -> Vec<(&str, &[u8])> {
    let mut out = Vec::new();
    entries_into(s, &mut out);
    out
}

/// A checked `Struct` entry's key (its bytes) and `Value` message (of
/// each, the last given; empty when not given). The usual entry, a key of
/// under 128 bytes then the value and nothing else, is read without a
/// loop over its fields.
#[inline(always)]
fn entry_parts(entry: &[u8]) -> (&[u8], &[u8]) {
    usual_entry(entry).unwrap_or_else(|| entry_fields(entry))
}

/// The key and `Value` message of a `Struct` entry of the usual form: the
/// key (field 1), then the value (field 2), nothing else. `None` for any
/// other form (nothing checked): the checking pass's [`usual_struct`]
/// then leaves the entry to the exact checks, the readers to
/// [`entry_fields`].
#[inline(always)]
fn usual_entry(entry: &[u8]) -> Option<(&[u8], &[u8])> {
    let (key, rest) = split_len(entry.strip_prefix(&[0x0a])?)?;
    match split_len(rest.strip_prefix(&[0x12])?)? {
        (value, []) => Some((key, value)),
        _ => None,
    }
}

/// [`entry_parts`] of any entry: its fields read one by one.
#[inline(never)]
fn entry_fields(entry: &[u8]) -> (&[u8], &[u8]) {
    let mut e = Rd::new(entry);
    let (mut key, mut value): (&[u8], &[u8]) = (&[], &[]);
    while let Ok(Some((tag, wire))) = e.field() {
        let Ok(b) = (if wire == LEN {
            e.len(wire)
        } else {
            e.skip(wire).map(|()| &[][..])
        }) else {
            break;
        };
        match tag {
            1 => key = b,
            2 => value = b,
            _ => {}
        }
    }
    (key, value)
}

/// A `Struct`'s entries (key's bytes, `Value` message) in the order of
/// the bytes, equal keys included (the last one counts). The keys are not
/// made `str`s again (the view checked them): comparing bytes is enough to
/// find a key.
pub fn fields_into<'a>(s: &'a [u8], out: &mut Vec<(&'a [u8], &'a [u8])>) {
    out.extend(ones(s).map(entry_parts));
}

/// A `Struct`'s entries (key, `Value` message) in the order of the bytes,
/// equal keys included (the last one counts).
pub fn raw_entries_into<'a>(s: &'a [u8], out: &mut Vec<(&'a str, &'a [u8])>) {
    out.extend(ones(s).map(|entry| {
        let (key, value) = entry_parts(entry);
        (std::str::from_utf8(key).unwrap_or(""), value)
    }));
}

/// [`entries`] appended to `out` (sorted from where it was).
pub fn entries_into<'a>(s: &'a [u8], out: &mut Vec<(&'a str, &'a [u8])>) {
    let start = out.len();
    raw_entries_into(s, out);
    let part = &mut out[start..];
    if part.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    // Stable: of equal keys, the last entry is kept (moved onto the first).
    part.sort_by(|a, b| a.0.cmp(b.0));
    let mut kept = 0;
    for i in 0..part.len() {
        if kept > 0 && part[kept - 1].0 == part[i].0 {
            part[kept - 1].1 = part[i].1;
        } else {
            part[kept] = part[i];
            kept += 1;
        }
    }
    out.truncate(start + kept);
}

/// The value of `key` in a `Struct` message (the last entry of that key).
pub fn get<'a>(s: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let [found] = get_all(s, [key]);
    found
}

/// The values of `keys` (distinct) in a `Struct` message (of each, the
/// last entry of that key), in one pass over its entries.
pub fn get_all<'a, const N: usize>(s: &'a [u8], keys: [&str; N]) -> [Option<&'a [u8]>; N] {
    let mut found = [None; N];
    find_keys(s, &keys.map(str::as_bytes), &mut found);
    found
}

/// The values of `keys` (distinct) in a `Struct` message (of each, the
/// last entry of that key) into `found` (as many slots as keys), in one
/// pass over its entries.
pub fn find_keys<'a>(s: &'a [u8], keys: &[&[u8]], found: &mut [Option<&'a [u8]>]) {
    for entry in ones(s) {
        let (k, value) = entry_parts(entry);
        for (slot, key) in found.iter_mut().zip(keys) {
            if key_eq(k, key) {
                *slot = Some(value);
                break;
            }
        }
    }
}

/// The last field `tag` of a message, if it is length-delimited (only the
/// top level is read; nothing is checked).
pub fn top_level_field(message: &[u8], tag: u64) -> Option<&[u8]> {
    let mut found = None;
    let mut r = Rd::new(message);
    while let Ok(Some((t, wire))) = r.field() {
        if wire == LEN {
            let b = r.len(wire).ok()?;
            if t == tag {
                found = Some(b);
            }
        } else if r.skip(wire).is_err() {
            return None;
        }
    }
    found
}

/// The one kind of a checked `Value` message.
#[derive(Clone, Copy, Debug)]
pub enum Kind<'a> {
    None,
    Null,
    Number(f64),
    String(&'a str),
    Bool(bool),
    /// A `Struct` message.
    Struct(&'a [u8]),
    /// A `ListValue` message.
    List(&'a [u8]),
}

/// The kind of a `Value` message.
pub fn kind(v: &[u8]) -> Kind<'_> {
    // The usual message: one string, `Struct` or list field of under 128
    // bytes and nothing else, read without the loop.
    if let [key, n, rest @ ..] = v
        && *n < 0x80
        && usize::from(*n) == rest.len()
    {
        match key {
            0x1a => return std::str::from_utf8(rest).map_or(Kind::None, Kind::String),
            0x2a => return Kind::Struct(rest),
            0x32 => return Kind::List(rest),
            _ => {}
        }
    }
    let mut r = Rd::new(v);
    let mut kind = Kind::None;
    while let Ok(Some((tag, wire))) = r.field() {
        let k = match tag {
            1 => r.int(wire).map(|_| Kind::Null),
            2 => r.fixed64(wire).map(|x| Kind::Number(f64::from_le_bytes(x))),
            3 => r.str(wire).map(Kind::String),
            4 => r.int(wire).map(|b| Kind::Bool(b != 0)),
            5 => r.len(wire).map(Kind::Struct),
            6 => r.len(wire).map(Kind::List),
            _ => {
                if r.skip(wire).is_err() {
                    break;
                }
                continue;
            }
        };
        match k {
            Ok(k) => kind = k,
            Err(Unusual) => break,
        }
    }
    kind
}

/// A `ListValue`'s items (`Value` messages).
pub fn items(l: &[u8]) -> Ones<'_> {
    ones(l)
}

/// The payloads of field 1 of a checked message, in the order of the
/// bytes: a `Struct`'s entries, a `ListValue`'s items. Other fields are
/// skipped whatever their wire type, as prost skips them (the checks took
/// them: [`exact_struct`], [`check_value`]); a reader that stopped at an
/// unknown varint or fixed-width field would lose the entries after it.
fn ones(m: &[u8]) -> Ones<'_> {
    Ones(Rd::new(m))
}

/// [`ones`]' iterator (a type of its own, so that its `next` is inlined
/// into the readers' loops: a closure's was a call per entry).
pub struct Ones<'a>(Rd<'a>);

impl<'a> Iterator for Ones<'a> {
    type Item = &'a [u8];

    #[inline(always)]
    fn next(&mut self) -> Option<&'a [u8]> {
        let r = &mut self.0;
        loop {
            let (tag, wire) = r.field().ok()??;
            match r.len(wire) {
                Ok(b) if tag == 1 => return Some(b),
                Ok(_) => {}
                // Not length-delimited (a bad length ends the read: the
                // skip fails too).
                Err(Unusual) => r.skip(wire).ok()?,
            }
        }
    }
}

/// A string-valued entry of a `Struct` message.
pub fn get_str<'a>(s: &'a [u8], key: &str) -> Option<&'a str> {
    match kind(get(s, key)?) {
        Kind::String(s) => Some(s),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Conversion to values: `crate::convert`'s rules, from bytes.

fn over(depth: usize, max: usize) -> bool {
    depth.saturating_add(1) >= max
}

/// The entries of the `Struct`s being converted, one stack for a whole
/// conversion: each object's sorted entries are pushed, read and popped
/// (no vector per object once it has grown).
pub(crate) type Scratch<'a> = Vec<(&'a str, &'a [u8])>;

/// A `Value` message as a cty value (see
/// [`crate::convert::value_from_pb_within`]: the same rules and depths).
pub(crate) fn value_within<'a>(
    v: &'a [u8],
    depth: usize,
    max: usize,
    scratch: &mut Scratch<'a>,
) -> Result<Value, TooDeep> {
    Ok(match kind(v) {
        Kind::None | Kind::Null => Value::null(),
        Kind::Bool(b) => Value::Bool(b),
        Kind::Number(f) => match number_from_f64(f) {
            Some(n) => Value::Number(n),
            None => Value::null(),
        },
        Kind::String(s) => Value::string(fnhcl_value::nfc(s)),
        Kind::Struct(s) => {
            if over(depth, max) {
                return Err(TooDeep);
            }
            if depth >= MAX_DEPTH {
                return Ok(Value::null());
            }
            object_within(s, depth + 1, max, scratch)?
        }
        Kind::List(l) => {
            if over(depth, max) {
                return Err(TooDeep);
            }
            if depth >= MAX_DEPTH {
                return Ok(Value::null());
            }
            let mut out = Vec::new();
            for v in items(l) {
                out.push(value_within(v, depth + 1, max, scratch)?);
            }
            Value::tuple(out)
        }
    })
}

/// A `Struct` message as a cty object (see
/// [`crate::convert::object_from_struct_within`]).
pub(crate) fn object_within<'a>(
    s: &'a [u8],
    depth: usize,
    max: usize,
    scratch: &mut Scratch<'a>,
) -> Result<Value, TooDeep> {
    let start = scratch.len();
    entries_into(s, scratch);
    let end = scratch.len();
    // In key order, unique (`entries_into` sorted them): the object is
    // collected as the values are converted, in one allocation (a range
    // mapped has an exact length `collect` trusts). The values' own
    // entries go above `end` and are gone when they return. After an
    // error the rest are placeholders, and the object is dropped.
    let mut err = None;
    let attrs = ObjMap::from_sorted_iter((start..end).map(|i| {
        let (k, v) = scratch[i];
        let v = match err {
            Some(_) => Value::Bool(false),
            None => value_within(v, depth, max, scratch).unwrap_or_else(|x| {
                err = Some(x);
                Value::Bool(false)
            }),
        };
        (Key::from(k), v)
    }));
    scratch.truncate(start);
    if let Some(x) = err {
        return Err(x);
    }
    Ok(Value::Object(attrs))
}

/// A whole `Struct` message as a cty object.
pub fn object(s: &[u8]) -> Value {
    object_within(s, 0, usize::MAX, &mut Vec::new()).unwrap_or_else(|TooDeep| Value::null())
}

/// Whether a `Struct` nests objects/lists deeper than `max` levels
/// ([`crate::request::struct_too_deep`]).
pub fn struct_too_deep(s: &[u8], max: usize) -> bool {
    // In any order; of equal keys only the last counts (prost's map).
    let values = |s| {
        let mut fields = Vec::new();
        fields_into(s, &mut fields);
        fields.sort_by(|a, b| a.0.cmp(b.0));
        let mut kept: Vec<(&[u8], &[u8])> = Vec::with_capacity(fields.len());
        for (k, v) in fields {
            match kept.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => kept.push((k, v)),
            }
        }
        kept.into_iter().map(|(_, v)| v)
    };
    let mut stack: Vec<(&[u8], usize)> = values(s).map(|v| (v, 1)).collect();
    while let Some((v, depth)) = stack.pop() {
        match kind(v) {
            Kind::Struct(s) => {
                if depth >= max {
                    return true;
                }
                stack.extend(values(s).map(|v| (v, depth + 1)));
            }
            Kind::List(l) => {
                if depth >= max {
                    return true;
                }
                stack.extend(items(l).map(|v| (v, depth + 1)));
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::{json_to_struct, object_from_struct};
    use prost::Message as _;

    fn encoded(json: serde_json::Value) -> Vec<u8> {
        json_to_struct(&json).expect("object").encode_to_vec()
    }

    /// Unknown fields of every wire type between a `Struct`'s entries and a
    /// list's items are skipped, as prost skips them: every reader sees the
    /// entries and items after them (the readers once stopped at the first
    /// unknown field that was not length-delimited).
    #[test]
    fn unknown_fields_between_entries_are_skipped_by_every_reader() {
        // Field 13 as fixed32, field 7 as a varint, field 9 as fixed64,
        // field 15 length-delimited.
        let unknowns: [&[u8]; 4] = [
            &[0x6d, 1, 2, 3, 4],
            &[0x38, 0x96, 0x01],
            &[0x49, 1, 2, 3, 4, 5, 6, 7, 8],
            &[0x7a, 2, 0xff, 0xfe],
        ];
        // A `ListValue` of three `Value`s (bools, field 4), each followed
        // by an unknown field.
        let mut inner = Vec::new();
        for (i, u) in unknowns.iter().take(3).enumerate() {
            inner.extend_from_slice(&[0x0a, 2, 0x20, i as u8]);
            inner.extend_from_slice(u);
        }
        let mut value = vec![0x32, inner.len() as u8];
        value.extend_from_slice(&inner);
        let mut bytes = Vec::new();
        for (i, u) in unknowns.iter().enumerate() {
            bytes.extend(encoded(serde_json::json!({ format!("k{i}"): i })));
            bytes.extend_from_slice(u);
        }
        // An entry whose value is the list with unknown fields.
        let mut entry = vec![0x0a, 4];
        entry.extend_from_slice(b"list");
        entry.extend_from_slice(&[0x12, value.len() as u8]);
        entry.extend_from_slice(&value);
        bytes.extend_from_slice(&[0x0a, entry.len() as u8]);
        bytes.extend_from_slice(&entry);
        bytes.extend(encoded(serde_json::json!({"last": "x"})));
        let prost_struct = pbjson_types::Struct::decode(bytes.as_slice()).expect("decodes");
        check_struct(&bytes, 0, MAX_MESSAGES).expect("checks");
        let keys = ["k0", "k1", "k2", "k3", "last", "list"];
        assert_eq!(
            entries(&bytes).iter().map(|e| e.0).collect::<Vec<_>>(),
            keys
        );
        let mut fields = Vec::new();
        fields_into(&bytes, &mut fields);
        assert_eq!(fields.len(), keys.len());
        assert_eq!(get_str(&bytes, "last"), Some("x"));
        let found = get_all(&bytes, ["k3", "last", "list"]);
        assert!(found.iter().all(Option::is_some), "{found:?}");
        let Some(Kind::List(l)) = found[2].map(kind) else {
            panic!("a list");
        };
        assert_eq!(items(l).count(), 3);
        assert_eq!(
            format!("{:?}", object(&bytes)),
            format!("{:?}", object_from_struct(&prost_struct))
        );
    }

    /// A `Struct` whose keys come twice (two encodings one after the
    /// other: prost merges them, the last of a key counting) reads as prost
    /// reads it: whole, by key, and for its depth.
    #[test]
    fn a_key_given_twice_reads_as_prost_reads_it() {
        let mut bytes = encoded(serde_json::json!({"a": {"x": {"y": 1}}, "b": "first", "c": [1]}));
        bytes.extend(encoded(
            serde_json::json!({"a": 2, "b": "second", "d": null}),
        ));
        let prost_struct = pbjson_types::Struct::decode(bytes.as_slice()).expect("decodes");
        check_struct(&bytes, 0, MAX_MESSAGES).expect("checks");
        assert_eq!(
            format!("{:?}", object(&bytes)),
            format!("{:?}", object_from_struct(&prost_struct))
        );
        assert_eq!(get_str(&bytes, "b"), Some("second"));
        assert!(matches!(get(&bytes, "a").map(kind), Some(Kind::Number(n)) if n == 2.0));
        assert_eq!(
            entries(&bytes).iter().map(|e| e.0).collect::<Vec<_>>(),
            ["a", "b", "c", "d"]
        );
        // `a` nests two levels in the first encoding, none in the last.
        assert!(!struct_too_deep(&bytes, 2));
        assert!(crate::request::struct_too_deep(&prost_struct, 2) == struct_too_deep(&bytes, 2));
        let mut deep = encoded(serde_json::json!({"a": 1}));
        deep.extend(encoded(serde_json::json!({"a": {"x": {"y": 1}}})));
        assert!(struct_too_deep(&deep, 2));
    }

    /// `ascii` answers as `is_ascii` at every length and position of a
    /// byte above 127.
    #[test]
    fn ascii_is_is_ascii() {
        for n in 0..=40usize {
            let plain = vec![b'a'; n];
            assert!(ascii(&plain), "{n}");
            for at in 0..n {
                let mut b = plain.clone();
                b[at] = 0x80 | (at as u8);
                assert!(!ascii(&b), "{n} {at}");
            }
        }
    }

    /// A `Value` the quick pass takes is one `check_value` takes; the
    /// others are left to it.
    #[test]
    fn usual_values_are_values_check_value_takes() {
        let long = [&[0x1a, 0x81, 0x01][..], &[b'x'; 129]].concat();
        let mut cases: Vec<Vec<u8>> = vec![
            vec![0x1a, 0],
            vec![0x1a, 3, b'a', b'b', b'c'],
            vec![0x1a, 2, 0xc3, 0xa9],
            vec![0x1a, 3, b'a', b'b'],
            vec![0x1a, 1, b'a', b'b'],
            vec![0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f],
            vec![0x11, 0, 0, 0],
            vec![0x20, 0],
            vec![0x20, 1],
            vec![0x20, 2],
            vec![0x08, 0],
            vec![0x08],
            vec![0x2a, 0],
            vec![0x32, 0],
            vec![0x2a, 2, 0x0a, 0],
            vec![0x2a, 1, 0x0a],
            long.clone(),
            long[..long.len() - 1].to_vec(),
        ];
        // A length of 0x80 or more is a varint of two bytes: what follows
        // the first byte is not the string.
        let mut tricky = vec![0x1a, 0x81];
        tricky.extend(std::iter::repeat_n(b'x', 0x81));
        cases.push(tricky);
        for v in &cases {
            let checked = check_value(v, 1, MAX_MESSAGES).is_ok();
            if usual_value(v, 1, MAX_MESSAGES) {
                assert!(checked, "{v:?}");
            }
            assert_eq!(
                checked,
                pbjson_types::Value::decode(v.as_slice()).is_ok(),
                "{v:?}"
            );
        }
        let usual: Vec<bool> = cases
            .iter()
            .map(|v| usual_value(v, 1, MAX_MESSAGES))
            .collect();
        assert_eq!(
            usual,
            [
                true, true, true, false, false, true, false, true, true, false, true, false, true,
                true, false, false, true, false, false
            ]
        );
    }

    /// A small xorshift generator: the same cases on every run.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    fn random_json(rng: &mut Rng, depth: usize) -> serde_json::Value {
        use serde_json::json;
        match rng.next(if depth == 0 { 6 } else { 8 }) {
            0 => json!(null),
            1 => json!(rng.next(2) == 1),
            2 => json!(rng.next(1000) as f64 / 7.0),
            3 => json!(["x", "é", "ab\u{1F600}"][rng.next(3)]),
            4 => json!("y".repeat([0, 127, 128, 200, 16_400][rng.next(5)])),
            5 => json!({}),
            6 => (0..rng.next(4))
                .map(|_| random_json(rng, depth - 1))
                .collect(),
            _ => (0..rng.next(5))
                .map(|i| (format!("k{i}"), random_json(rng, depth - 1)))
                .collect(),
        }
    }

    /// The quick pass takes what encoders write (prost here), and of any
    /// bytes only what the exact checks take: every byte of encoded
    /// `Struct`s changed to a few values, every length cut short, every
    /// depth limit around the `Struct`'s depth.
    #[test]
    fn the_quick_pass_takes_only_what_the_exact_checks_take() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut quick = 0;
        for case in 0..300 {
            let json = match random_json(&mut rng, 5) {
                o @ serde_json::Value::Object(_) => o,
                other => serde_json::json!({ "v": other }),
            };
            let bytes = encoded(json);
            assert!(usual_struct(&bytes, 0, MAX_MESSAGES), "{case}");
            // Around its depth, the quick pass may leave a `Struct` to the
            // exact checks (a leaf at the limit), never take one they refuse.
            let mut refused = false;
            for limit in 0..12 {
                if usual_struct(&bytes, 0, limit) {
                    assert!(exact_struct(&bytes, 0, limit).is_ok(), "{case} {limit}");
                } else {
                    refused |= exact_struct(&bytes, 0, limit).is_err();
                }
            }
            assert!(refused || bytes.len() < 3, "{case}");
            if bytes.len() > 2_000 {
                continue;
            }
            let mut variants = Vec::new();
            for at in 0..bytes.len() {
                variants.push(bytes[..at].to_vec());
                for b in [0x00, 0x02, 0x0a, 0x12, 0x7f, 0x80, 0xc3, 0xff] {
                    let mut v = bytes.clone();
                    v[at] = b;
                    variants.push(v);
                }
            }
            for v in &variants {
                if usual_struct(v, 0, MAX_MESSAGES) {
                    quick += 1;
                    assert!(exact_struct(v, 0, MAX_MESSAGES).is_ok(), "{v:?}");
                    assert!(pbjson_types::Struct::decode(v.as_slice()).is_ok(), "{v:?}");
                }
            }
        }
        assert!(quick > 1_000, "{quick}");
    }

    /// What the view leaves to prost: a field given twice, a `Value` with
    /// two kinds, bad bytes.
    #[test]
    fn unusual_requests_are_left_to_prost() {
        use function_sdk_rust::proto::v1::{RequestMeta, RunFunctionRequest};
        let req = RunFunctionRequest {
            meta: Some(RequestMeta {
                tag: "t".into(),
                capabilities: vec![1, 2],
            }),
            context: json_to_struct(&serde_json::json!({"k": 1})),
            ..Default::default()
        };
        let bytes = req.encode_to_vec();
        let view = RequestView::new(&bytes).expect("reads");
        assert_eq!(view.tag, "t");
        assert_eq!(view.capabilities, [1, 2]);
        let mut twice = bytes.clone();
        twice.extend_from_slice(&bytes);
        assert_eq!(RequestView::new(&twice).err(), Some(Unusual));
        // A `Value` with a number and a string (field 5: the context).
        let value = [0x11, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x1a, 1, b'x'];
        let entry = [&[0x0a, 1, b'k', 0x12, value.len() as u8][..], &value].concat();
        let context = [&[0x0a, entry.len() as u8][..], &entry].concat();
        let request = [&[0x2a, context.len() as u8][..], &context].concat();
        assert_eq!(RequestView::new(&request).err(), Some(Unusual));
        assert!(RunFunctionRequest::decode(request.as_slice()).is_ok());
        // An overlong varint (ten bytes, the last above 1) in an unknown
        // field (15): prost refuses it.
        let overlong = [
            0x78, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02,
        ];
        assert!(RunFunctionRequest::decode(&overlong[..]).is_err());
        for bad in [
            &[0x2a, 5, 1][..],
            &[0x0b],
            &[0xff; 11],
            &[0x2a, 2, 0x0a, 0x80],
            &overlong,
        ] {
            assert_eq!(RequestView::new(bad).err(), Some(Unusual), "{bad:?}");
        }
    }
}
