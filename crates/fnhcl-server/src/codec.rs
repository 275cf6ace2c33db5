//! RunFunction's gRPC codec: requests are decoded by prost; responses are
//! encoded here, so that
//!
//! - **the same response gives the same bytes**: protobuf maps (every
//!   `google.protobuf.Struct`, `desired.resources`, connection details,
//!   requirements, match labels) are written in sorted key order, where
//!   prost writes the SDK types' `HashMap`s in their (per-map random)
//!   iteration order;
//! - **each nested message's length is computed once**: prost's
//!   `encoded_len` of a message walks its whole subtree, and encoding calls
//!   it again at every nesting level (a `Struct` inside a `Value` inside a
//!   `Struct` ... is measured once per level above it). Here one pass over
//!   the message records every length-delimited part's length in the order
//!   the writing pass needs them, with each map's entries sorted once, and
//!   the writing pass reads them back in sequence.
//!
//! The wire format is protobuf's: fields in tag order, proto3 defaults left
//! out, `optional` and oneof fields written when set, a map entry's key or
//! value left out when it is the default (as prost does). A message with at
//! most one entry per map is byte-identical to prost's encoding; any
//! message decodes (with prost) to the message encoded.

use std::collections::HashMap;

use bytes::BufMut;
use function_sdk_rust::proto::v1::resource_selector::Match;
use function_sdk_rust::proto::v1::{
    Condition, MatchLabels, Requirements, Resource, ResourceSelector, ResponseMeta,
    Result as PbResult, RunFunctionRequest, RunFunctionResponse, SchemaSelector, State,
};
use pbjson_types::value::Kind;
use pbjson_types::{Duration, ListValue, Struct, Value};
use tonic::Status;
use tonic::codec::{BufferSettings, Codec, EncodeBuf, Encoder};
use tonic_prost::{ProstCodec, ProstDecoder};

/// Varint wire type.
const VARINT: u32 = 0;
/// 64-bit wire type.
const FIXED64: u32 = 1;
/// Length-delimited wire type.
const LEN: u32 = 2;

/// Bytes of `v` as a varint.
fn varint_len(v: u64) -> usize {
    // 7 bits per byte; `| 1` makes zero one byte.
    (70 - (v | 1).leading_zeros() as usize) / 7
}

/// Bytes of a field's key (every tag here is below 16: one byte, but
/// computed in general).
fn key_len(tag: u32) -> usize {
    varint_len(u64::from(tag << 3))
}

/// Bytes of a length-delimited field whose payload is `n` bytes.
fn len_field(tag: u32, n: usize) -> usize {
    key_len(tag) + varint_len(n as u64) + n
}

/// Bytes of a varint field.
fn varint_field(tag: u32, v: u64) -> usize {
    key_len(tag) + varint_len(v)
}

/// Protobuf's `int32`/`int64`/enum wire value: sign-extended to 64 bits.
fn int_wire(v: i64) -> u64 {
    v as u64
}

/// The lengths and sorted map entries of one response, in the order the
/// writing pass visits them. Every length-delimited part (a nested message,
/// a map entry) takes the next slot of `lens`; every map takes the next
/// `len()` entries of the list for its value type.
#[derive(Default)]
struct Plan<'a> {
    lens: Vec<usize>,
    fields: Vec<(&'a str, &'a Value)>,
    resources: Vec<(&'a str, &'a Resource)>,
    details: Vec<(&'a str, &'a [u8])>,
    selectors: Vec<(&'a str, &'a ResourceSelector)>,
    schemas: Vec<(&'a str, &'a SchemaSelector)>,
    labels: Vec<(&'a str, &'a str)>,
}

/// Appends `map`'s entries to `out`, sorted by key; returns where they
/// start.
fn push_sorted<'a, V, T>(
    map: &'a HashMap<String, V>,
    out: &mut Vec<(&'a str, T)>,
    view: impl Fn(&'a V) -> T,
) -> usize {
    let start = out.len();
    out.extend(map.iter().map(|(k, v)| (k.as_str(), view(v))));
    out[start..].sort_unstable_by(|a, b| a.0.cmp(b.0));
    start
}

// What a map entry's value is when prost leaves it out.
fn value_is_default(v: &Value) -> bool {
    v.kind.is_none()
}
fn resource_is_default(r: &Resource) -> bool {
    r.resource.is_none() && r.connection_details.is_empty() && r.ready == 0
}
fn selector_is_default(s: &ResourceSelector) -> bool {
    s.api_version.is_empty() && s.kind.is_empty() && s.namespace.is_none() && s.r#match.is_none()
}
fn schema_is_default(s: &SchemaSelector) -> bool {
    s.api_version.is_empty() && s.kind.is_empty()
}

/// Bytes of a string field, left out when empty.
fn string_len(tag: u32, s: &str) -> usize {
    if s.is_empty() {
        0
    } else {
        len_field(tag, s.len())
    }
}

/// Bytes of an enum or int32 field, left out when zero.
fn int32_len(tag: u32, v: i32) -> usize {
    if v == 0 {
        0
    } else {
        varint_field(tag, int_wire(v.into()))
    }
}

impl<'a> Plan<'a> {
    /// Reserves the next slot, measures the body, records its length.
    fn nested(&mut self, body: impl FnOnce(&mut Self) -> usize) -> usize {
        let slot = self.lens.len();
        self.lens.push(0);
        let n = body(self);
        self.lens[slot] = n;
        n
    }

    /// Bytes of a nested message field `tag`.
    fn message(&mut self, tag: u32, body: impl FnOnce(&mut Self) -> usize) -> usize {
        let n = self.nested(body);
        len_field(tag, n)
    }

    fn response(&mut self, r: &'a RunFunctionResponse) -> usize {
        let mut n = 0;
        if let Some(meta) = &r.meta {
            n += self.message(1, |p| p.meta(meta));
        }
        if let Some(desired) = &r.desired {
            n += self.message(2, |p| p.state(desired));
        }
        for result in &r.results {
            n += self.message(3, |_| result_len(result));
        }
        if let Some(context) = &r.context {
            n += self.message(4, |p| p.structure(context));
        }
        if let Some(requirements) = &r.requirements {
            n += self.message(5, |p| p.requirements(requirements));
        }
        for condition in &r.conditions {
            n += self.message(6, |_| condition_len(condition));
        }
        if let Some(output) = &r.output {
            n += self.message(7, |p| p.structure(output));
        }
        n
    }

    fn meta(&mut self, m: &'a ResponseMeta) -> usize {
        let mut n = string_len(1, &m.tag);
        if let Some(ttl) = &m.ttl {
            n += self.message(2, |_| duration_len(ttl));
        }
        n
    }

    fn state(&mut self, s: &'a State) -> usize {
        let mut n = 0;
        if let Some(composite) = &s.composite {
            n += self.message(1, |p| p.resource(composite));
        }
        let start = push_sorted(&s.resources, &mut self.resources, |v| v);
        for i in start..start + s.resources.len() {
            let (key, value) = self.resources[i];
            n += self.message(2, |p| {
                let mut e = string_len(1, key);
                if !resource_is_default(value) {
                    e += p.message(2, |p| p.resource(value));
                }
                e
            });
        }
        n
    }

    fn resource(&mut self, r: &'a Resource) -> usize {
        let mut n = 0;
        if let Some(body) = &r.resource {
            n += self.message(1, |p| p.structure(body));
        }
        let start = push_sorted(&r.connection_details, &mut self.details, |v| v.as_slice());
        for i in start..start + r.connection_details.len() {
            let (key, value) = self.details[i];
            n += self.message(2, |_| {
                string_len(1, key)
                    + if value.is_empty() {
                        0
                    } else {
                        len_field(2, value.len())
                    }
            });
        }
        n + int32_len(3, r.ready)
    }

    fn structure(&mut self, s: &'a Struct) -> usize {
        let mut n = 0;
        let start = push_sorted(&s.fields, &mut self.fields, |v| v);
        for i in start..start + s.fields.len() {
            let (key, value) = self.fields[i];
            n += self.message(1, |p| {
                let mut e = string_len(1, key);
                if !value_is_default(value) {
                    e += p.message(2, |p| p.value(value));
                }
                e
            });
        }
        n
    }

    fn value(&mut self, v: &'a Value) -> usize {
        match &v.kind {
            None => 0,
            Some(Kind::NullValue(x)) => varint_field(1, int_wire((*x).into())),
            Some(Kind::NumberValue(_)) => key_len(2) + 8,
            Some(Kind::StringValue(s)) => len_field(3, s.len()),
            Some(Kind::BoolValue(b)) => varint_field(4, u64::from(*b)),
            Some(Kind::StructValue(s)) => self.message(5, |p| p.structure(s)),
            Some(Kind::ListValue(l)) => self.message(6, |p| p.list(l)),
        }
    }

    fn list(&mut self, l: &'a ListValue) -> usize {
        let mut n = 0;
        for v in &l.values {
            n += self.message(1, |p| p.value(v));
        }
        n
    }

    fn requirements(&mut self, r: &'a Requirements) -> usize {
        let mut n = self.selector_map(1, &r.extra_resources);
        n += self.selector_map(2, &r.resources);
        let start = push_sorted(&r.schemas, &mut self.schemas, |v| v);
        for i in start..start + r.schemas.len() {
            let (key, value) = self.schemas[i];
            n += self.message(3, |p| {
                let mut e = string_len(1, key);
                if !schema_is_default(value) {
                    e += p.message(2, |_| schema_len(value));
                }
                e
            });
        }
        n
    }

    fn selector_map(&mut self, tag: u32, map: &'a HashMap<String, ResourceSelector>) -> usize {
        let mut n = 0;
        let start = push_sorted(map, &mut self.selectors, |v| v);
        for i in start..start + map.len() {
            let (key, value) = self.selectors[i];
            n += self.message(tag, |p| {
                let mut e = string_len(1, key);
                if !selector_is_default(value) {
                    e += p.message(2, |p| p.selector(value));
                }
                e
            });
        }
        n
    }

    fn selector(&mut self, s: &'a ResourceSelector) -> usize {
        let mut n = string_len(1, &s.api_version) + string_len(2, &s.kind);
        match &s.r#match {
            None => {}
            Some(Match::MatchName(name)) => n += len_field(3, name.len()),
            Some(Match::MatchLabels(labels)) => n += self.message(4, |p| p.labels(labels)),
        }
        if let Some(ns) = &s.namespace {
            n += len_field(5, ns.len());
        }
        n
    }

    fn labels(&mut self, m: &'a MatchLabels) -> usize {
        let mut n = 0;
        let start = push_sorted(&m.labels, &mut self.labels, |v| v.as_str());
        for i in start..start + m.labels.len() {
            let (key, value) = self.labels[i];
            n += self.message(1, |_| string_len(1, key) + string_len(2, value));
        }
        n
    }
}

fn duration_len(d: &Duration) -> usize {
    let mut n = 0;
    if d.seconds != 0 {
        n += varint_field(1, int_wire(d.seconds));
    }
    n + int32_len(2, d.nanos)
}

fn result_len(r: &PbResult) -> usize {
    let mut n = int32_len(1, r.severity) + string_len(2, &r.message);
    if let Some(reason) = &r.reason {
        n += len_field(3, reason.len());
    }
    if let Some(target) = r.target {
        n += varint_field(4, int_wire(target.into()));
    }
    n
}

fn condition_len(c: &Condition) -> usize {
    let mut n = string_len(1, &c.r#type) + int32_len(2, c.status) + string_len(3, &c.reason);
    if let Some(message) = &c.message {
        n += len_field(4, message.len());
    }
    if let Some(target) = c.target {
        n += varint_field(5, int_wire(target.into()));
    }
    n
}

fn schema_len(s: &SchemaSelector) -> usize {
    string_len(1, &s.api_version) + string_len(2, &s.kind)
}

/// The writing pass: the same walk as [`Plan`]'s, reading its lengths and
/// sorted entries in sequence.
struct Writer<'p, 'a, B> {
    plan: &'p Plan<'a>,
    lens: usize,
    fields: usize,
    resources: usize,
    details: usize,
    selectors: usize,
    schemas: usize,
    labels: usize,
    buf: &'p mut B,
}

/// The next `n` entries of one of the plan's lists.
fn take<'p, T>(list: &'p [T], cursor: &mut usize, n: usize) -> &'p [T] {
    let start = *cursor;
    *cursor += n;
    &list[start..start + n]
}

impl<'a, B: BufMut> Writer<'_, 'a, B> {
    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.put_u8((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.put_u8(v as u8);
    }

    fn key(&mut self, tag: u32, wire: u32) {
        self.varint(u64::from(tag << 3 | wire));
    }

    fn bytes_field(&mut self, tag: u32, b: &[u8]) {
        self.key(tag, LEN);
        self.varint(b.len() as u64);
        self.buf.put_slice(b);
    }

    fn string(&mut self, tag: u32, s: &str) {
        if !s.is_empty() {
            self.bytes_field(tag, s.as_bytes());
        }
    }

    fn int_field(&mut self, tag: u32, v: i64) {
        self.key(tag, VARINT);
        self.varint(int_wire(v));
    }

    fn int32(&mut self, tag: u32, v: i32) {
        if v != 0 {
            self.int_field(tag, v.into());
        }
    }

    /// A nested message: its key, the length the plan recorded, its body.
    fn message(&mut self, tag: u32, body: impl FnOnce(&mut Self)) {
        let n = self.plan.lens[self.lens];
        self.lens += 1;
        self.key(tag, LEN);
        self.varint(n as u64);
        body(self);
    }

    fn response(&mut self, r: &'a RunFunctionResponse) {
        if let Some(meta) = &r.meta {
            self.message(1, |w| w.meta(meta));
        }
        if let Some(desired) = &r.desired {
            self.message(2, |w| w.state(desired));
        }
        for result in &r.results {
            self.message(3, |w| w.result(result));
        }
        if let Some(context) = &r.context {
            self.message(4, |w| w.structure(context));
        }
        if let Some(requirements) = &r.requirements {
            self.message(5, |w| w.requirements(requirements));
        }
        for condition in &r.conditions {
            self.message(6, |w| w.condition(condition));
        }
        if let Some(output) = &r.output {
            self.message(7, |w| w.structure(output));
        }
    }

    fn meta(&mut self, m: &'a ResponseMeta) {
        self.string(1, &m.tag);
        if let Some(ttl) = &m.ttl {
            self.message(2, |w| {
                if ttl.seconds != 0 {
                    w.int_field(1, ttl.seconds);
                }
                w.int32(2, ttl.nanos);
            });
        }
    }

    fn state(&mut self, s: &'a State) {
        if let Some(composite) = &s.composite {
            self.message(1, |w| w.resource(composite));
        }
        let plan = self.plan;
        for &(key, value) in take(&plan.resources, &mut self.resources, s.resources.len()) {
            self.message(2, |w| {
                w.string(1, key);
                if !resource_is_default(value) {
                    w.message(2, |w| w.resource(value));
                }
            });
        }
    }

    fn resource(&mut self, r: &'a Resource) {
        if let Some(body) = &r.resource {
            self.message(1, |w| w.structure(body));
        }
        let plan = self.plan;
        for &(key, value) in take(&plan.details, &mut self.details, r.connection_details.len()) {
            self.message(2, |w| {
                w.string(1, key);
                if !value.is_empty() {
                    w.bytes_field(2, value);
                }
            });
        }
        self.int32(3, r.ready);
    }

    fn structure(&mut self, s: &'a Struct) {
        let plan = self.plan;
        for &(key, value) in take(&plan.fields, &mut self.fields, s.fields.len()) {
            self.message(1, |w| {
                w.string(1, key);
                if !value_is_default(value) {
                    w.message(2, |w| w.value(value));
                }
            });
        }
    }

    fn value(&mut self, v: &'a Value) {
        match &v.kind {
            None => {}
            Some(Kind::NullValue(x)) => self.int_field(1, (*x).into()),
            Some(Kind::NumberValue(x)) => {
                self.key(2, FIXED64);
                self.buf.put_f64_le(*x);
            }
            Some(Kind::StringValue(s)) => self.bytes_field(3, s.as_bytes()),
            Some(Kind::BoolValue(b)) => {
                self.key(4, VARINT);
                self.varint(u64::from(*b));
            }
            Some(Kind::StructValue(s)) => self.message(5, |w| w.structure(s)),
            Some(Kind::ListValue(l)) => self.message(6, |w| {
                for v in &l.values {
                    w.message(1, |w| w.value(v));
                }
            }),
        }
    }

    fn result(&mut self, r: &PbResult) {
        self.int32(1, r.severity);
        self.string(2, &r.message);
        if let Some(reason) = &r.reason {
            self.bytes_field(3, reason.as_bytes());
        }
        if let Some(target) = r.target {
            self.int_field(4, target.into());
        }
    }

    fn condition(&mut self, c: &Condition) {
        self.string(1, &c.r#type);
        self.int32(2, c.status);
        self.string(3, &c.reason);
        if let Some(message) = &c.message {
            self.bytes_field(4, message.as_bytes());
        }
        if let Some(target) = c.target {
            self.int_field(5, target.into());
        }
    }

    fn requirements(&mut self, r: &'a Requirements) {
        self.selector_map(1, r.extra_resources.len());
        self.selector_map(2, r.resources.len());
        let plan = self.plan;
        for &(key, value) in take(&plan.schemas, &mut self.schemas, r.schemas.len()) {
            self.message(3, |w| {
                w.string(1, key);
                if !schema_is_default(value) {
                    w.message(2, |w| {
                        w.string(1, &value.api_version);
                        w.string(2, &value.kind);
                    });
                }
            });
        }
    }

    fn selector_map(&mut self, tag: u32, len: usize) {
        let plan = self.plan;
        for &(key, value) in take(&plan.selectors, &mut self.selectors, len) {
            self.message(tag, |w| {
                w.string(1, key);
                if !selector_is_default(value) {
                    w.message(2, |w| w.selector(value));
                }
            });
        }
    }

    fn selector(&mut self, s: &'a ResourceSelector) {
        self.string(1, &s.api_version);
        self.string(2, &s.kind);
        match &s.r#match {
            None => {}
            Some(Match::MatchName(name)) => self.bytes_field(3, name.as_bytes()),
            Some(Match::MatchLabels(labels)) => self.message(4, |w| {
                let plan = w.plan;
                for &(key, value) in take(&plan.labels, &mut w.labels, labels.labels.len()) {
                    w.message(1, |w| {
                        w.string(1, key);
                        w.string(2, value);
                    });
                }
            }),
        }
        if let Some(ns) = &s.namespace {
            self.bytes_field(5, ns.as_bytes());
        }
    }
}

/// Writes `response` into `buf` along `plan` (made from `response`).
fn write<'a, B: BufMut>(plan: &Plan<'a>, response: &'a RunFunctionResponse, buf: &mut B) {
    let mut w = Writer {
        plan,
        lens: 0,
        fields: 0,
        resources: 0,
        details: 0,
        selectors: 0,
        schemas: 0,
        labels: 0,
        buf,
    };
    w.response(response);
}

/// `response` encoded with maps in sorted key order.
pub fn response_bytes(response: &RunFunctionResponse) -> Vec<u8> {
    let mut plan = Plan::default();
    let len = plan.response(response);
    let mut out = Vec::with_capacity(len);
    write(&plan, response, &mut out);
    debug_assert_eq!(out.len(), len);
    out
}

/// RunFunction's codec: prost decodes the request, [`encode_response`]
/// encodes the response.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunFunctionCodec;

/// Encodes a [`RunFunctionResponse`] with [`encode_response`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ResponseEncoder;

impl Encoder for ResponseEncoder {
    type Item = RunFunctionResponse;
    type Error = Status;

    fn encode(&mut self, item: RunFunctionResponse, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        let mut plan = Plan::default();
        let len = plan.response(&item);
        buf.reserve(len);
        write(&plan, &item, buf);
        Ok(())
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

impl Codec for RunFunctionCodec {
    type Encode = RunFunctionResponse;
    type Decode = RunFunctionRequest;
    type Encoder = ResponseEncoder;
    type Decoder = ProstDecoder<RunFunctionRequest>;

    fn encoder(&mut self) -> ResponseEncoder {
        ResponseEncoder
    }

    fn decoder(&mut self) -> ProstDecoder<RunFunctionRequest> {
        ProstCodec::<RunFunctionResponse, RunFunctionRequest>::raw_decoder(BufferSettings::default())
    }
}
