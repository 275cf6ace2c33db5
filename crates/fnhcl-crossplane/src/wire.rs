//! The protobuf wire format of `RunFunctionResponse`, written back to front.
//!
//! A length-delimited field's length must precede its payload; writing a
//! message from its last byte to its first, every payload is complete when
//! its length is written, so one pass writes everything and nothing is
//! measured ahead (the codec this replaces recorded every nested length in
//! a planning pass, prost's `encoded_len` walks each subtree once per level
//! above it). Fields are written in reverse tag order, repeated fields and
//! map entries in reverse, so the bytes read front to back are in tag order
//! with every map in sorted key order.
//!
//! The format is protobuf's as prost writes it: proto3 defaults left out,
//! `optional` and oneof fields written when set, a map entry's key or value
//! left out when it is the default. A message with at most one entry per map
//! is byte-identical to prost's encoding; any message decodes (with prost) to
//! the message encoded, and equal messages give the same bytes whatever their
//! `HashMap`s' iteration order.
//!
//! [`RevWriter`] and the encoders of the SDK's types serve both
//! [`crate::response`]'s builder (which writes the evaluator's values and
//! the parts passed through from the request) and `fnhcl-server`'s codec.
//! [`decode_response`] reads the bytes back for callers that want the SDK's
//! message.

use std::collections::HashMap;

use function_sdk_rust::proto::v1::resource_selector::Match;
use function_sdk_rust::proto::v1::{
    Condition, Requirements, Resource, ResourceSelector, ResponseMeta, Result as PbResult,
    RunFunctionResponse, SchemaSelector, State,
};
use pbjson_types::value::Kind;
use pbjson_types::{Duration, ListValue, Struct, Value};

/// Varint wire type.
pub const VARINT: u32 = 0;
/// 64-bit wire type.
pub const FIXED64: u32 = 1;
/// Length-delimited wire type.
pub const LEN: u32 = 2;
/// 32-bit wire type.
const FIXED32: u32 = 5;

/// Bytes of `v` as a varint.
#[inline]
pub fn varint_len(v: u64) -> usize {
    // 7 bits per byte; `| 1` makes zero one byte.
    (70 - (v | 1).leading_zeros() as usize) / 7
}

/// Writes `v` as a varint filling `out` (`varint_len(v)` bytes).
#[inline]
fn put_varint(out: &mut [u8], mut v: u64) {
    let last = out.len() - 1;
    for byte in &mut out[..last] {
        *byte = (v as u8) | 0x80;
        v >>= 7;
    }
    out[last] = v as u8;
}

/// Copies `src` into `dst` (of the same length). Most strings a response
/// holds (keys, names, short values) are at most 32 bytes: those are
/// copied as two overlapping fixed-size pieces, without a call to
/// `memcpy` (which costs more than the copy for so few bytes).
#[inline(always)]
fn copy(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    if n > 32 || dst.len() != n {
        dst.copy_from_slice(src);
    } else if n >= 16 {
        dst[..16].copy_from_slice(&src[..16]);
        dst[n - 16..].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..].copy_from_slice(&src[n - 4..]);
    } else if n > 0 {
        dst[0] = src[0];
        dst[n / 2] = src[n / 2];
        dst[n - 1] = src[n - 1];
    }
}

/// A `Value` message's one field into `out` (exactly its length): the key
/// `value_key`, the length of `value` when `len_delimited`, then `value`.
#[inline(always)]
fn value_field(out: &mut [u8], value_key: u8, value: &[u8], len_delimited: bool) {
    out[0] = value_key;
    let mut at = 1;
    if len_delimited {
        out[1] = value.len() as u8;
        at = 2;
    }
    copy(&mut out[at..], value);
}

/// Encoded protobuf bytes: the tail of a buffer written back to front.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Encoded {
    buf: Vec<u8>,
    start: usize,
}

impl Encoded {
    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.buf[self.start..]
    }

    pub fn len(&self) -> usize {
        self.buf.len() - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The buffer and where the bytes start in it (they run to its end):
    /// the room before them is free for a prefix (the gRPC server's frame
    /// header), without moving them.
    pub fn into_parts(self) -> (Vec<u8>, usize) {
        (self.buf, self.start)
    }

    /// The bytes as a vector of their own length (moves them to the front).
    pub fn into_vec(mut self) -> Vec<u8> {
        self.buf.drain(..self.start);
        self.buf
    }
}

/// A buffer written from its end towards its start. Every method prepends;
/// a message is written last field first, its payload before its length.
pub struct RevWriter {
    /// Initialised bytes; the written ones are `buf[start..]`.
    buf: Vec<u8>,
    start: usize,
}

impl Default for RevWriter {
    fn default() -> RevWriter {
        RevWriter::with_capacity(1024)
    }
}

impl RevWriter {
    pub fn with_capacity(n: usize) -> RevWriter {
        RevWriter {
            buf: vec![0; n],
            start: n,
        }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.buf.len() - self.start
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn finish(self) -> Encoded {
        Encoded {
            buf: self.buf,
            start: self.start,
        }
    }

    /// A bigger buffer with the written bytes at its end and room for at
    /// least `n` more.
    #[cold]
    fn grow(&mut self, n: usize) {
        let used = self.len();
        let cap = (self.buf.len() * 2).max(used + n).max(64);
        let mut buf = vec![0; cap];
        buf[cap - used..].copy_from_slice(&self.buf[self.start..]);
        self.buf = buf;
        self.start = cap - used;
    }

    /// Claims the `n` bytes before what is written; returns where they start.
    #[inline]
    fn room(&mut self, n: usize) -> usize {
        if self.start < n {
            self.grow(n);
        }
        self.start -= n;
        self.start
    }

    /// Claims the `n` bytes before what is written and returns them, to
    /// be filled front to back.
    #[inline(always)]
    pub(crate) fn claim(&mut self, n: usize) -> &mut [u8] {
        let at = self.room(n);
        &mut self.buf[at..at + n]
    }

    /// A `Struct` entry (map field 1: key field 1, `Value` field 2) whose
    /// `Value` is the one field `value_key` followed by `value` (its length
    /// first when `value_key` is length-delimited), written in one piece
    /// when every length in it fits in one byte: the bytes
    /// [`RevWriter::message`], [`RevWriter::string`] and
    /// [`RevWriter::len_prefix`] write field by field. False, with nothing
    /// written, when a length does not fit.
    #[inline(always)]
    pub(crate) fn small_entry(&mut self, key: &[u8], value_key: u8, value: &[u8]) -> bool {
        let len_delimited = u32::from(value_key) & 7 == LEN;
        let inner = 1 + usize::from(len_delimited) + value.len();
        let key_part = if key.is_empty() { 0 } else { 2 + key.len() };
        let entry = key_part + 2 + inner;
        if entry >= 0x80 {
            return false;
        }
        let out = self.claim(2 + entry);
        out[0] = (1 << 3 | LEN) as u8;
        out[1] = entry as u8;
        let mut at = 2;
        if !key.is_empty() {
            out[2] = (1 << 3 | LEN) as u8;
            out[3] = key.len() as u8;
            copy(&mut out[4..4 + key.len()], key);
            at = key_part + 2;
        }
        out[at] = (2 << 3 | LEN) as u8;
        out[at + 1] = inner as u8;
        value_field(&mut out[at + 2..], value_key, value, len_delimited);
        true
    }

    /// A `ListValue` item (field 1) holding the `Value` of
    /// [`RevWriter::small_entry`], in one piece when it is under 128 bytes;
    /// false, with nothing written, when it is not.
    #[inline(always)]
    pub(crate) fn small_item(&mut self, value_key: u8, value: &[u8]) -> bool {
        let len_delimited = u32::from(value_key) & 7 == LEN;
        let inner = 1 + usize::from(len_delimited) + value.len();
        if inner >= 0x80 {
            return false;
        }
        let out = self.claim(2 + inner);
        out[0] = (1 << 3 | LEN) as u8;
        out[1] = inner as u8;
        value_field(&mut out[2..], value_key, value, len_delimited);
        true
    }

    /// The `Value` of [`RevWriter::small_entry`] on its own, written field
    /// by field (any length).
    #[inline(always)]
    pub(crate) fn value_field(&mut self, value_key: u8, value: &[u8]) {
        copy(self.claim(value.len()), value);
        if u32::from(value_key) & 7 == LEN {
            self.varint(value.len() as u64);
        }
        self.varint(u64::from(value_key));
    }

    pub fn put_slice(&mut self, b: &[u8]) {
        self.claim(b.len()).copy_from_slice(b);
    }

    #[inline]
    pub fn varint(&mut self, v: u64) {
        put_varint(self.claim(varint_len(v)), v);
    }

    pub fn key(&mut self, tag: u32, wire: u32) {
        self.varint(u64::from(tag << 3 | wire));
    }

    /// The key of a length-delimited field `tag` and the length `n`, in
    /// front of its payload (written already). Always inlined: called
    /// once per message and string, an outlined call cost more than the
    /// two stores of the common case.
    #[inline(always)]
    pub(crate) fn len_prefix(&mut self, tag: u32, n: usize) {
        let key = u64::from(tag << 3 | LEN);
        // Nearly every prefix is one byte of key and one of length.
        if key < 0x80 && n < 0x80 {
            let at = self.room(2);
            if let Some([k, l]) = self.buf.get_mut(at..at + 2) {
                *k = key as u8;
                *l = n as u8;
            }
            return;
        }
        let (kl, nl) = (varint_len(key), varint_len(n as u64));
        let at = self.room(kl + nl);
        put_varint(&mut self.buf[at..at + kl], key);
        put_varint(&mut self.buf[at + kl..at + kl + nl], n as u64);
    }

    /// A length-delimited field holding `b` (always inlined: a call
    /// saved and restored more registers than the common case uses).
    #[inline(always)]
    pub fn bytes_field(&mut self, tag: u32, b: &[u8]) {
        copy(self.claim(b.len()), b);
        self.len_prefix(tag, b.len());
    }

    /// A string field, left out when empty.
    #[inline(always)]
    pub fn string(&mut self, tag: u32, s: &str) {
        if !s.is_empty() {
            self.bytes_field(tag, s.as_bytes());
        }
    }

    /// An `int32`/`int64`/enum field (sign-extended, as protobuf does).
    #[inline]
    pub fn int_field(&mut self, tag: u32, v: i64) {
        self.varint(v as u64);
        self.key(tag, VARINT);
    }

    /// An `int32` or enum field, left out when zero.
    pub fn int32(&mut self, tag: u32, v: i32) {
        if v != 0 {
            self.int_field(tag, v.into());
        }
    }

    #[inline]
    pub fn double_field(&mut self, tag: u32, v: f64) {
        self.put_slice(&v.to_le_bytes());
        self.key(tag, FIXED64);
    }

    /// A nested message field: `body` writes its fields (last first).
    #[inline]
    pub fn message(&mut self, tag: u32, body: impl FnOnce(&mut Self)) {
        let end = self.len();
        body(self);
        let n = self.len() - end;
        self.len_prefix(tag, n);
    }

    /// [`RevWriter::message`] whose body can fail (the bytes are then
    /// unusable).
    #[inline]
    pub fn try_message<E>(
        &mut self,
        tag: u32,
        body: impl FnOnce(&mut Self) -> Result<(), E>,
    ) -> Result<(), E> {
        let end = self.len();
        body(self)?;
        let n = self.len() - end;
        self.len_prefix(tag, n);
        Ok(())
    }
}

/// `map`'s entries sorted by key.
fn sorted<V>(map: &HashMap<String, V>) -> Vec<(&str, &V)> {
    let mut v: Vec<(&str, &V)> = map.iter().map(|(k, v)| (k.as_str(), v)).collect();
    v.sort_unstable_by(|a, b| a.0.cmp(b.0));
    v
}

// What a map entry's value is when prost leaves it out.
fn resource_is_default(r: &Resource) -> bool {
    r.resource.is_none() && r.connection_details.is_empty() && r.ready == 0
}
fn selector_is_default(s: &ResourceSelector) -> bool {
    s.api_version.is_empty() && s.kind.is_empty() && s.namespace.is_none() && s.r#match.is_none()
}
fn schema_is_default(s: &SchemaSelector) -> bool {
    s.api_version.is_empty() && s.kind.is_empty()
}

/// Writes the SDK's messages. Sorting a `Struct`'s fields uses one stack of
/// entries for the whole walk (no allocation per map once it has grown).
#[derive(Default)]
pub struct SdkWriter<'a> {
    fields: Vec<(&'a str, &'a Value)>,
}

impl<'a> SdkWriter<'a> {
    /// The fields of a `Struct`, in sorted key order.
    pub fn structure(&mut self, w: &mut RevWriter, s: &'a Struct) {
        let start = self.fields.len();
        self.fields
            .extend(s.fields.iter().map(|(k, v)| (k.as_str(), v)));
        self.fields[start..].sort_unstable_by(|a, b| a.0.cmp(b.0));
        for i in (start..self.fields.len()).rev() {
            let (key, value) = self.fields[i];
            self.field(w, key, value);
        }
        self.fields.truncate(start);
    }

    /// One `Struct` entry (field 1 of `Struct`).
    pub fn field(&mut self, w: &mut RevWriter, key: &str, value: &'a Value) {
        w.message(1, |w| {
            if value.kind.is_some() {
                w.message(2, |w| self.value(w, value));
            }
            w.string(1, key);
        });
    }

    /// The fields of a `Value`.
    pub fn value(&mut self, w: &mut RevWriter, v: &'a Value) {
        match &v.kind {
            None => {}
            Some(Kind::NullValue(x)) => w.int_field(1, (*x).into()),
            Some(Kind::NumberValue(x)) => w.double_field(2, *x),
            Some(Kind::StringValue(s)) => w.bytes_field(3, s.as_bytes()),
            Some(Kind::BoolValue(b)) => w.int_field(4, i64::from(*b)),
            Some(Kind::StructValue(s)) => w.message(5, |w| self.structure(w, s)),
            Some(Kind::ListValue(l)) => w.message(6, |w| self.list(w, l)),
        }
    }

    fn list(&mut self, w: &mut RevWriter, l: &'a ListValue) {
        for v in l.values.iter().rev() {
            w.message(1, |w| self.value(w, v));
        }
    }

    /// The fields of a `Resource`.
    pub fn resource(&mut self, w: &mut RevWriter, r: &'a Resource) {
        w.int32(3, r.ready);
        connection_details(
            w,
            sorted(&r.connection_details)
                .into_iter()
                .map(|(k, v)| (k, v.as_slice())),
        );
        if let Some(body) = &r.resource {
            w.message(1, |w| self.structure(w, body));
        }
    }

    /// One `desired.resources` entry (field 2 of `State`).
    pub fn resource_entry(&mut self, w: &mut RevWriter, name: &str, r: &'a Resource) {
        w.message(2, |w| {
            if !resource_is_default(r) {
                w.message(2, |w| self.resource(w, r));
            }
            w.string(1, name);
        });
    }

    /// The fields of a `State`.
    pub fn state(&mut self, w: &mut RevWriter, s: &'a State) {
        for (name, r) in sorted(&s.resources).into_iter().rev() {
            self.resource_entry(w, name, r);
        }
        if let Some(composite) = &s.composite {
            w.message(1, |w| self.resource(w, composite));
        }
    }

    fn response(&mut self, w: &mut RevWriter, r: &'a RunFunctionResponse) {
        if let Some(output) = &r.output {
            w.message(7, |w| self.structure(w, output));
        }
        for c in r.conditions.iter().rev() {
            w.message(6, |w| condition(w, c));
        }
        if let Some(requirements) = &r.requirements {
            w.message(5, |w| write_requirements(w, requirements));
        }
        if let Some(context) = &r.context {
            w.message(4, |w| self.structure(w, context));
        }
        for result in r.results.iter().rev() {
            w.message(3, |w| write_result(w, result));
        }
        if let Some(desired) = &r.desired {
            w.message(2, |w| self.state(w, desired));
        }
        if let Some(meta) = &r.meta {
            w.message(1, |w| write_meta(w, meta));
        }
    }
}

/// Connection details entries (field 2 of `Resource`), given sorted.
pub fn connection_details<'a>(
    w: &mut RevWriter,
    sorted: impl DoubleEndedIterator<Item = (&'a str, &'a [u8])>,
) {
    for (key, value) in sorted.rev() {
        w.message(2, |w| {
            if !value.is_empty() {
                w.bytes_field(2, value);
            }
            w.string(1, key);
        });
    }
}

/// The fields of a `ResponseMeta`.
pub fn write_meta(w: &mut RevWriter, m: &ResponseMeta) {
    if let Some(ttl) = &m.ttl {
        w.message(2, |w| write_duration(w, ttl));
    }
    w.string(1, &m.tag);
}

fn write_duration(w: &mut RevWriter, d: &Duration) {
    w.int32(2, d.nanos);
    if d.seconds != 0 {
        w.int_field(1, d.seconds);
    }
}

/// The fields of a `Result`.
pub fn write_result(w: &mut RevWriter, r: &PbResult) {
    if let Some(target) = r.target {
        w.int_field(4, target.into());
    }
    if let Some(reason) = &r.reason {
        w.bytes_field(3, reason.as_bytes());
    }
    w.string(2, &r.message);
    w.int32(1, r.severity);
}

/// The fields of a `Condition`.
pub fn condition(w: &mut RevWriter, c: &Condition) {
    if let Some(target) = c.target {
        w.int_field(5, target.into());
    }
    if let Some(message) = &c.message {
        w.bytes_field(4, message.as_bytes());
    }
    w.string(3, &c.reason);
    w.int32(2, c.status);
    w.string(1, &c.r#type);
}

/// The fields of a `Requirements`.
pub fn write_requirements(w: &mut RevWriter, r: &Requirements) {
    schema_entries(w, sorted(&r.schemas).into_iter());
    selector_entries(w, 2, sorted(&r.resources).into_iter());
    selector_entries(w, 1, sorted(&r.extra_resources).into_iter());
}

/// `Requirements.schemas` entries (field 3), given sorted.
pub fn schema_entries<'a>(
    w: &mut RevWriter,
    sorted: impl DoubleEndedIterator<Item = (&'a str, &'a SchemaSelector)>,
) {
    for (key, value) in sorted.rev() {
        w.message(3, |w| {
            if !schema_is_default(value) {
                w.message(2, |w| {
                    w.string(2, &value.kind);
                    w.string(1, &value.api_version);
                });
            }
            w.string(1, key);
        });
    }
}

/// Selector map entries (field `tag` of `Requirements`), given sorted.
pub fn selector_entries<'a>(
    w: &mut RevWriter,
    tag: u32,
    sorted: impl DoubleEndedIterator<Item = (&'a str, &'a ResourceSelector)>,
) {
    for (key, value) in sorted.rev() {
        w.message(tag, |w| {
            if !selector_is_default(value) {
                w.message(2, |w| write_selector(w, value));
            }
            w.string(1, key);
        });
    }
}

fn write_selector(w: &mut RevWriter, s: &ResourceSelector) {
    if let Some(ns) = &s.namespace {
        w.bytes_field(5, ns.as_bytes());
    }
    match &s.r#match {
        None => {}
        Some(Match::MatchName(name)) => w.bytes_field(3, name.as_bytes()),
        Some(Match::MatchLabels(labels)) => w.message(4, |w| {
            label_entries(
                w,
                sorted(&labels.labels)
                    .into_iter()
                    .map(|(k, v)| (k, v.as_str())),
            );
        }),
    }
    w.string(2, &s.kind);
    w.string(1, &s.api_version);
}

/// `MatchLabels.labels` entries (field 1), given sorted.
pub fn label_entries<'a>(
    w: &mut RevWriter,
    sorted: impl DoubleEndedIterator<Item = (&'a str, &'a str)>,
) {
    for (key, value) in sorted.rev() {
        w.message(1, |w| {
            w.string(2, value);
            w.string(1, key);
        });
    }
}

/// `response` encoded with maps in sorted key order.
pub fn encode_response(response: &RunFunctionResponse) -> Encoded {
    let mut w = RevWriter::default();
    SdkWriter::default().response(&mut w, response);
    w.finish()
}

/// Bytes that are not a response this module wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "invalid response bytes: {}", self.0)
    }
}

impl std::error::Error for DecodeError {}

fn bad(what: &str) -> DecodeError {
    DecodeError(what.to_owned())
}

/// Reads protobuf fields front to back.
struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn varint(&mut self) -> Result<u64, DecodeError> {
        let mut v = 0u64;
        for i in 0..10 {
            let (&b, rest) = self.buf.split_first().ok_or_else(|| bad("truncated"))?;
            self.buf = rest;
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                return Ok(v);
            }
        }
        Err(bad("varint too long"))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.buf.len() {
            return Err(bad("truncated"));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    /// The next field's tag and wire type, `None` at the end.
    fn field(&mut self) -> Result<Option<(u32, u32)>, DecodeError> {
        if self.buf.is_empty() {
            return Ok(None);
        }
        let key = self.varint()?;
        let tag = u32::try_from(key >> 3).map_err(|_| bad("tag too large"))?;
        Ok(Some((tag, (key & 7) as u32)))
    }

    fn len_delimited(&mut self, wire: u32) -> Result<&'a [u8], DecodeError> {
        if wire != LEN {
            return Err(bad("wrong wire type"));
        }
        let n = self.varint()?;
        self.take(usize::try_from(n).map_err(|_| bad("length too large"))?)
    }

    fn string(&mut self, wire: u32) -> Result<String, DecodeError> {
        let b = self.len_delimited(wire)?;
        String::from_utf8(b.to_vec()).map_err(|_| bad("string is not UTF-8"))
    }

    fn int(&mut self, wire: u32) -> Result<u64, DecodeError> {
        if wire != VARINT {
            return Err(bad("wrong wire type"));
        }
        self.varint()
    }

    fn skip(&mut self, wire: u32) -> Result<(), DecodeError> {
        match wire {
            VARINT => self.varint().map(drop),
            FIXED64 => self.take(8).map(drop),
            LEN => self.len_delimited(wire).map(drop),
            FIXED32 => self.take(4).map(drop),
            _ => Err(bad("unsupported wire type")),
        }
    }
}

fn prost_message<M: prost::Message + Default>(b: &[u8]) -> Result<M, DecodeError> {
    M::decode(b).map_err(|e| DecodeError(e.to_string()))
}

/// Decodes a `RunFunctionResponse`. Unlike prost's decoder this one has no
/// nesting limit of its own (prost stops at 100 nested messages, about 33
/// levels of `Struct`): what the function writes is bounded by its own
/// limits, and the caller's stack must hold it (runs have a big one).
pub fn decode_response(bytes: &[u8]) -> Result<RunFunctionResponse, DecodeError> {
    let mut r = Reader { buf: bytes };
    let mut rsp = RunFunctionResponse::default();
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 => rsp.meta = Some(prost_message::<ResponseMeta>(r.len_delimited(wire)?)?),
            2 => rsp.desired = Some(decode_state(r.len_delimited(wire)?)?),
            3 => rsp.results.push(prost_message(r.len_delimited(wire)?)?),
            4 => rsp.context = Some(decode_struct(r.len_delimited(wire)?)?),
            5 => rsp.requirements = Some(prost_message(r.len_delimited(wire)?)?),
            6 => rsp.conditions.push(prost_message(r.len_delimited(wire)?)?),
            7 => rsp.output = Some(decode_struct(r.len_delimited(wire)?)?),
            _ => r.skip(wire)?,
        }
    }
    Ok(rsp)
}

fn decode_state(b: &[u8]) -> Result<State, DecodeError> {
    let mut r = Reader { buf: b };
    let mut s = State::default();
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 => s.composite = Some(decode_resource(r.len_delimited(wire)?)?),
            2 => {
                let mut e = Reader {
                    buf: r.len_delimited(wire)?,
                };
                let (mut key, mut value) = (String::new(), Resource::default());
                while let Some((tag, wire)) = e.field()? {
                    match tag {
                        1 => key = e.string(wire)?,
                        2 => value = decode_resource(e.len_delimited(wire)?)?,
                        _ => e.skip(wire)?,
                    }
                }
                s.resources.insert(key, value);
            }
            _ => r.skip(wire)?,
        }
    }
    Ok(s)
}

fn decode_resource(b: &[u8]) -> Result<Resource, DecodeError> {
    let mut r = Reader { buf: b };
    let mut res = Resource::default();
    while let Some((tag, wire)) = r.field()? {
        match tag {
            1 => res.resource = Some(decode_struct(r.len_delimited(wire)?)?),
            2 => {
                let mut e = Reader {
                    buf: r.len_delimited(wire)?,
                };
                let (mut key, mut value) = (String::new(), Vec::new());
                while let Some((tag, wire)) = e.field()? {
                    match tag {
                        1 => key = e.string(wire)?,
                        2 => value = e.len_delimited(wire)?.to_vec(),
                        _ => e.skip(wire)?,
                    }
                }
                res.connection_details.insert(key, value);
            }
            3 => res.ready = r.int(wire)? as i32,
            _ => r.skip(wire)?,
        }
    }
    Ok(res)
}

/// A `Struct` message (nested as deep as the caller's stack holds).
pub fn decode_struct_bytes(b: &[u8]) -> Result<Struct, DecodeError> {
    decode_struct(b)
}

fn decode_struct(b: &[u8]) -> Result<Struct, DecodeError> {
    let mut r = Reader { buf: b };
    let mut s = Struct::default();
    while let Some((tag, wire)) = r.field()? {
        if tag != 1 {
            r.skip(wire)?;
            continue;
        }
        let mut e = Reader {
            buf: r.len_delimited(wire)?,
        };
        let (mut key, mut value) = (String::new(), Value::default());
        while let Some((tag, wire)) = e.field()? {
            match tag {
                1 => key = e.string(wire)?,
                2 => value = decode_value(e.len_delimited(wire)?)?,
                _ => e.skip(wire)?,
            }
        }
        s.fields.insert(key, value);
    }
    Ok(s)
}

fn decode_value(b: &[u8]) -> Result<Value, DecodeError> {
    let mut r = Reader { buf: b };
    let mut kind = None;
    while let Some((tag, wire)) = r.field()? {
        kind = Some(match tag {
            1 => Kind::NullValue(r.int(wire)? as i32),
            2 => {
                if wire != FIXED64 {
                    return Err(bad("wrong wire type"));
                }
                let mut x = [0; 8];
                x.copy_from_slice(r.take(8)?);
                Kind::NumberValue(f64::from_le_bytes(x))
            }
            3 => Kind::StringValue(r.string(wire)?),
            4 => Kind::BoolValue(r.int(wire)? != 0),
            5 => Kind::StructValue(decode_struct(r.len_delimited(wire)?)?),
            6 => {
                let mut l = Reader {
                    buf: r.len_delimited(wire)?,
                };
                let mut values = Vec::new();
                while let Some((tag, wire)) = l.field()? {
                    match tag {
                        1 => values.push(decode_value(l.len_delimited(wire)?)?),
                        _ => l.skip(wire)?,
                    }
                }
                Kind::ListValue(ListValue { values })
            }
            _ => {
                r.skip(wire)?;
                continue;
            }
        });
    }
    Ok(Value { kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length, those copied in pieces and those left to `memcpy`.
    #[test]
    fn bytes_fields_hold_their_bytes_whatever_the_length() {
        for n in 0..=70usize {
            let b: Vec<u8> = (0..n).map(|i| (i * 7 + n) as u8).collect();
            let mut w = RevWriter::with_capacity(4);
            w.bytes_field(3, &b);
            w.bytes_field(1, b"x");
            let mut want = vec![0x0a, 1, b'x', 0x1a, n as u8];
            want.extend_from_slice(&b);
            assert_eq!(w.finish().as_slice(), &want[..], "{n}");
        }
    }

    #[test]
    fn varints_are_written_as_protobuf_does() {
        for v in [0u64, 1, 127, 128, 300, 16_383, 16_384, u64::MAX] {
            let mut w = RevWriter::with_capacity(1);
            w.varint(v);
            let mut expected = Vec::new();
            prost::encoding::encode_varint(v, &mut expected);
            assert_eq!(w.finish().as_slice(), expected.as_slice(), "{v}");
            assert_eq!(varint_len(v), expected.len(), "{v}");
        }
    }

    #[test]
    fn the_buffer_grows_keeping_what_was_written() {
        let mut w = RevWriter::with_capacity(0);
        for i in 0..1000u32 {
            w.put_slice(&i.to_be_bytes());
        }
        let bytes = w.finish().into_vec();
        assert_eq!(bytes.len(), 4000);
        assert_eq!(&bytes[..4], &999u32.to_be_bytes());
        assert_eq!(&bytes[3996..], &0u32.to_be_bytes());
    }

    #[test]
    fn bad_bytes_are_errors() {
        for b in [
            &[0x12u8, 5, 1][..],
            &[0x12, 0x02, 0x12],
            &[0x0b],
            &[0xff; 11],
        ] {
            assert!(decode_response(b).is_err(), "{b:?}");
        }
    }
}
