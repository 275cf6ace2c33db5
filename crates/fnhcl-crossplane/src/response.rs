//! Evaluator output -> RunFunctionResponse (upstream §5, D17–D22).
//!
//! [`success_bytes`] and [`fatal_bytes`] write the response's protobuf
//! bytes directly ([`crate::wire`]): the evaluator's values, and the parts
//! passed through from the request (earlier steps' desired state, the
//! context) with ours merged in while writing, with no intermediate
//! message. [`success`] and [`fatal`] build the same response as the SDK's
//! types: the reference the builder is tested against (`tests/wire.rs`:
//! prost decodes the bytes to the message they build).

use std::collections::HashMap;
use std::time::Duration;

use fnhcl_eval::{ConditionText, DesiredResource, Output, ReadyState, Selector, SelectorMatch};
use function_sdk_rust::proto::v1::{
    Capability, Condition, MatchLabels, Ready, Requirements, Resource, ResourceSelector,
    ResponseMeta, Result as FnResult, RunFunctionRequest, RunFunctionResponse, Severity, State,
    Status, Target, resource_selector,
};
use pbjson_types::value::Kind;
use pbjson_types::{Struct, Value as PbValue};

use crate::convert::{MAX_DEPTH, value_to_pb, value_to_struct};
use crate::schemas::Additions;
use crate::view::{self, RequestView};
use crate::wire::{self, Encoded, RevWriter, SdkWriter};
use fnhcl_value::{ObjMap, Value};

/// Condition type reporting whether every block could be evaluated.
pub const CONDITION_FULLY_RESOLVED: &str = "FullyResolved";
/// Condition type summarising HCL warnings.
pub const CONDITION_HCL_DIAGNOSTICS: &str = "HclDiagnostics";

fn meta(req: &RunFunctionRequest, ttl: Duration) -> ResponseMeta {
    meta_tag(req.meta.as_ref().map_or("", |m| m.tag.as_str()), ttl)
}

fn meta_tag(tag: &str, ttl: Duration) -> ResponseMeta {
    ResponseMeta {
        tag: tag.to_owned(),
        ttl: Some(pbjson_types::Duration {
            seconds: i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX),
            nanos: ttl.subsec_nanos() as i32,
        }),
    }
}

fn fatal_result(message: String) -> FnResult {
    FnResult {
        severity: Severity::Fatal as i32,
        message,
        reason: None,
        target: Some(Target::Composite as i32),
    }
}

/// The response every outcome starts from: `meta` (tag echoed, TTL), and
/// the incoming desired state and context passed through (upstream §5.9).
pub fn base_response(req: &RunFunctionRequest, ttl: Duration) -> RunFunctionResponse {
    RunFunctionResponse {
        meta: Some(meta(req, ttl)),
        desired: req.desired.clone(),
        context: req.context.clone(),
        ..Default::default()
    }
}

/// A fatal response: one Fatal result, desired and context passed through,
/// no conditions or requirements (upstream §5.9, D21).
pub fn fatal(req: &RunFunctionRequest, ttl: Duration, message: String) -> RunFunctionResponse {
    let mut rsp = base_response(req, ttl);
    rsp.results.push(fatal_result(message));
    rsp
}

/// [`fatal`]'s response as bytes.
pub fn fatal_bytes(req: &RunFunctionRequest, ttl: Duration, message: String) -> Encoded {
    let mut w = RevWriter::default();
    let mut sdk = SdkWriter::default();
    if let Some(context) = &req.context {
        w.message(4, |w| sdk.structure(w, context));
    }
    w.message(3, |w| wire::write_result(w, &fatal_result(message)));
    if let Some(desired) = &req.desired {
        w.message(2, |w| sdk.state(w, desired));
    }
    w.message(1, |w| wire::write_meta(w, &meta(req, ttl)));
    w.finish()
}

/// [`fatal_bytes`] of a request read from its bytes: the desired state and
/// the context are copied as the request's bytes.
pub fn fatal_bytes_view(req: &RequestView<'_>, ttl: Duration, message: String) -> Encoded {
    let mut w = RevWriter::default();
    if let Some(context) = req.context {
        w.bytes_field(4, context);
    }
    w.message(3, |w| wire::write_result(w, &fatal_result(message)));
    if let Some(desired) = &req.desired {
        w.bytes_field(2, desired.raw);
    }
    w.message(1, |w| wire::write_meta(w, &meta_tag(req.tag, ttl)));
    w.finish()
}

fn has_required_resources_capability(req: &RunFunctionRequest) -> bool {
    req.meta.as_ref().is_some_and(|m| {
        m.capabilities
            .contains(&(Capability::RequiredResources as i32))
    })
}

fn ready_value(r: Option<ReadyState>) -> i32 {
    match r {
        None | Some(ReadyState::Unspecified) => Ready::Unspecified as i32,
        Some(ReadyState::True) => Ready::True as i32,
        Some(ReadyState::False) => Ready::False as i32,
    }
}

fn selector(s: &Selector) -> ResourceSelector {
    ResourceSelector {
        api_version: s.api_version.clone(),
        kind: s.kind.clone(),
        namespace: None,
        r#match: Some(match &s.matches {
            SelectorMatch::Name(n) => resource_selector::Match::MatchName(n.clone()),
            SelectorMatch::Labels(l) => resource_selector::Match::MatchLabels(MatchLabels {
                labels: l.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            }),
        }),
    }
}

fn condition(type_: &str, c: &ConditionText) -> Condition {
    Condition {
        r#type: type_.to_owned(),
        status: if c.status {
            Status::ConditionTrue as i32
        } else {
            Status::ConditionFalse as i32
        },
        reason: c.reason.to_owned(),
        message: Some(c.message.clone()),
        target: Some(Target::Composite as i32),
    }
}

/// The fields of [`condition`]'s message, written as [`wire::condition`]
/// writes them, without building the message (its three strings).
fn condition_fields(w: &mut RevWriter, type_: &str, c: &ConditionText) {
    w.int_field(5, i64::from(Target::Composite as i32));
    w.bytes_field(4, c.message.as_bytes());
    w.string(3, c.reason);
    let status = if c.status {
        Status::ConditionTrue
    } else {
        Status::ConditionFalse
    };
    w.int32(2, status as i32);
    w.string(1, type_);
}

/// Merges `ours` into `theirs`: objects merge recursively, anything else in
/// `ours` replaces what was there (D17: earlier steps' data is kept unless
/// this function writes the same leaf).
pub fn merge_struct(theirs: &mut Struct, ours: Struct) {
    for (k, v) in ours.fields {
        match (theirs.fields.get_mut(&k), v.kind) {
            (
                Some(PbValue {
                    kind: Some(Kind::StructValue(existing)),
                }),
                Some(Kind::StructValue(new)),
            ) => merge_struct(existing, new),
            (_, kind) => {
                theirs.fields.insert(k, PbValue { kind });
            }
        }
    }
}

/// Builds the success response (upstream §5.1–§5.8 with D17–D21) as the
/// SDK's message: the reference [`success_bytes`] is tested against.
/// Errors are conversion failures, reported as a fatal result by the caller.
pub fn success(
    req: &RunFunctionRequest,
    ttl: Duration,
    output: &Output,
) -> Result<RunFunctionResponse, String> {
    let mut rsp = base_response(req, ttl);
    let desired = rsp.desired.get_or_insert_with(State::default);

    // D17: earlier steps' resources are kept; ours replace same-named ones.
    for r in &output.resources {
        let body = value_to_struct(&r.body)
            .map_err(|e| format!("unable to convert resource body to struct: {}: {e}", r.name))?;
        desired.resources.insert(
            r.name.clone(),
            Resource {
                resource: Some(body),
                connection_details: HashMap::new(),
                ready: ready_value(r.ready),
            },
        );
    }

    // D17: status and connection details merge into the incoming composite.
    if let Some(status) = &output.composite_status {
        let status = value_to_struct(status)
            .map_err(|e| format!("unable to convert composite status: {e}"))?;
        let composite = desired.composite.get_or_insert_with(Resource::default);
        let body = composite.resource.get_or_insert_with(Struct::default);
        let mut wrapper = Struct::default();
        wrapper.fields.insert(
            "status".to_owned(),
            PbValue {
                kind: Some(Kind::StructValue(status)),
            },
        );
        merge_struct(body, wrapper);
    }
    if !output.composite_connection.is_empty() {
        let composite = desired.composite.get_or_insert_with(Resource::default);
        for (k, v) in &output.composite_connection {
            composite.connection_details.insert(k.clone(), v.clone());
        }
    }

    // D18: each key replaces the same top-level key; others pass through.
    if !output.context.is_empty() {
        let ctx = rsp.context.get_or_insert_with(Struct::default);
        for (k, v) in &output.context {
            let v = value_to_pb(v).map_err(|e| format!("cannot convert context {k:?}: {e}"))?;
            ctx.fields.insert(k.clone(), v);
        }
    }

    // D19: the requirements field Crossplane understands.
    if !output.requirements.is_empty() {
        let selectors: HashMap<String, ResourceSelector> = output
            .requirements
            .iter()
            .map(|(k, s)| (k.clone(), selector(s)))
            .collect();
        let mut reqs = Requirements::default();
        if has_required_resources_capability(req) {
            reqs.resources = selectors;
        } else {
            reqs.extra_resources = selectors;
        }
        rsp.requirements = Some(reqs);
    }

    // D21: one Warning per reported discard, then the warnings summary.
    for d in output.reported_discards() {
        rsp.results.push(FnResult {
            severity: Severity::Warning as i32,
            message: d.message(),
            reason: Some(d.reason.as_str().to_owned()),
            target: Some(Target::Composite as i32),
        });
    }
    let (diag_condition, diag_result) = fnhcl_eval::hcl_diagnostics(output);
    if let Some(message) = diag_result {
        rsp.results.push(FnResult {
            severity: Severity::Warning as i32,
            message,
            reason: Some(CONDITION_HCL_DIAGNOSTICS.to_owned()),
            target: Some(Target::Composite as i32),
        });
    }

    // D20: conditions with upstream's type, status and reason values.
    rsp.conditions = vec![
        condition(
            CONDITION_FULLY_RESOLVED,
            &fnhcl_eval::fully_resolved(output),
        ),
        condition(CONDITION_HCL_DIAGNOSTICS, &diag_condition),
    ];
    Ok(rsp)
}

/// A value of ours could not be written (an unknown value, too deep, not
/// an object where one is needed). The bytes are then unusable; the error
/// and its text are found by [`conversion_error`].
struct Failed;

/// The entries of an object or map value, marks removed.
fn object_entries(v: &Value) -> Option<&ObjMap> {
    match v.unmarked() {
        Value::Object(attrs) => Some(attrs),
        Value::Map(m) => Some(&m.items),
        _ => None,
    }
}

/// The fields of a protobuf `Value` for one of our values at `depth`:
/// exactly what [`crate::convert::value_to_pb`] converts it to.
fn our_value(w: &mut RevWriter, v: &Value, depth: usize) -> Result<(), Failed> {
    if depth > MAX_DEPTH {
        return Err(Failed);
    }
    match v {
        Value::Marked(inner) => return our_value(w, inner, depth),
        Value::Unknown(_) => return Err(Failed),
        Value::Null(_) | Value::Bool(_) | Value::Number(_) | Value::String(_) => {
            leaf_value(w, v);
        }
        Value::List(c) | Value::Set(c) => {
            return w.try_message(6, |w| our_list(w, &c.items, depth));
        }
        Value::Tuple(items) => return w.try_message(6, |w| our_list(w, items, depth)),
        Value::Map(m) => return w.try_message(5, |w| our_fields(w, &m.items, depth)),
        Value::Object(attrs) => return w.try_message(5, |w| our_fields(w, attrs, depth)),
    }
    Ok(())
}

/// The fields of a protobuf `Value` for a string, number, bool or null
/// (what [`our_value`] writes for them; it checks their depth first);
/// false, with nothing written, for anything else. Written in the loops
/// over entries and items: most values are leaves, and a call per leaf
/// (with its registers saved and restored) cost more than writing it.
/// (Objects and tuples taken in the loops too, with one call instead of
/// three, cost more: +3 k instructions a 10-resource run.)
#[inline(always)]
fn leaf_value(w: &mut RevWriter, v: &Value) -> bool {
    leaf(v, Field(w))
}

/// The fields of a `ListValue` holding the items of a value at `depth`.
fn our_list(w: &mut RevWriter, items: &[Value], depth: usize) -> Result<(), Failed> {
    for v in items.iter().rev() {
        if depth < MAX_DEPTH && leaf(v, SmallItem(w)) {
            continue;
        }
        // An item is at `depth + 1`: a leaf there is within the limit
        // when `depth` is below it (see `our_value`).
        let end = w.len();
        if depth < MAX_DEPTH && leaf_value(w, v) {
            w.len_prefix(1, w.len() - end);
            continue;
        }
        w.try_message(1, |w| our_value(w, v, depth + 1))?;
    }
    Ok(())
}

/// Where [`leaf`] writes a leaf's `Value` field: on its own, field by
/// field ([`Field`]), or in one piece with the `Struct` entry or
/// `ListValue` item that holds it ([`SmallEntry`], [`SmallItem`]).
trait LeafTarget {
    /// Writes the field `value_key` holding `value`; false, with nothing
    /// written, when it does not fit.
    fn put(&mut self, value_key: u8, value: &[u8]) -> bool;
}

struct Field<'w>(&'w mut RevWriter);

impl LeafTarget for Field<'_> {
    #[inline(always)]
    fn put(&mut self, value_key: u8, value: &[u8]) -> bool {
        self.0.value_field(value_key, value);
        true
    }
}

struct SmallEntry<'w, 'k>(&'w mut RevWriter, &'k [u8]);

impl LeafTarget for SmallEntry<'_, '_> {
    #[inline(always)]
    fn put(&mut self, value_key: u8, value: &[u8]) -> bool {
        self.0.small_entry(self.1, value_key, value)
    }
}

struct SmallItem<'w>(&'w mut RevWriter);

impl LeafTarget for SmallItem<'_> {
    #[inline(always)]
    fn put(&mut self, value_key: u8, value: &[u8]) -> bool {
        self.0.small_item(value_key, value)
    }
}

/// The one field of a protobuf `Value` for a string, number, bool or null
/// (`value_to_pb`'s kinds for them), handed to `to`; false, with nothing
/// written, for anything else or when `to` cannot take it. (Each arm
/// passes its own key and payload size, so each is compiled for them.)
#[inline(always)]
fn leaf(v: &Value, mut to: impl LeafTarget) -> bool {
    match v {
        Value::String(s) => to.put(3 << 3 | 2, s.as_bytes()),
        Value::Number(n) => to.put(2 << 3 | 1, &n.to_f64().to_le_bytes()),
        Value::Bool(b) => to.put(4 << 3, &[u8::from(*b)]),
        Value::Null(_) => to.put(1 << 3, &[0]),
        _ => false,
    }
}

/// The fields of a `Struct` holding the entries of a value at `depth`.
fn our_fields(w: &mut RevWriter, entries: &ObjMap, depth: usize) -> Result<(), Failed> {
    for (k, v) in entries.iter().rev() {
        if depth < MAX_DEPTH && leaf(v, SmallEntry(w, k.as_bytes())) {
            continue;
        }
        // As `our_field` writes it, for a leaf (at `depth + 1`).
        let end = w.len();
        if depth < MAX_DEPTH && leaf_value(w, v) {
            w.len_prefix(2, w.len() - end);
            w.string(1, k);
            w.len_prefix(1, w.len() - end);
            continue;
        }
        our_field(w, k, v, depth + 1)?;
    }
    Ok(())
}

/// One `Struct` entry whose value (at `depth`) is ours.
fn our_field(w: &mut RevWriter, key: &str, v: &Value, depth: usize) -> Result<(), Failed> {
    w.try_message(1, |w| {
        w.try_message(2, |w| our_value(w, v, depth))?;
        w.string(1, key);
        Ok(())
    })
}

/// One `Struct` entry passed through: its `Value` message copied.
fn their_field(w: &mut RevWriter, key: &str, value: &[u8]) {
    w.message(1, |w| {
        if !value.is_empty() {
            w.bytes_field(2, value);
        }
        w.string(1, key);
    });
}

/// The fields of `theirs` (a `Struct` message of the request) with `ours`
/// (values at `depth`) merged in, as [`merge_struct`] merges them: objects
/// merge recursively, anything else of ours replaces theirs. Both are
/// walked in key order, back to front; theirs are copied as their bytes.
fn merged_fields_view(
    w: &mut RevWriter,
    theirs: &[u8],
    ours: &ObjMap,
    depth: usize,
) -> Result<(), Failed> {
    let t = view::entries(theirs);
    let o = ours.as_slice();
    let (mut i, mut j) = (t.len(), o.len());
    while i > 0 || j > 0 {
        if j == 0 || (i > 0 && t[i - 1].0 > &*o[j - 1].0) {
            i -= 1;
            their_field(w, t[i].0, t[i].1);
            continue;
        }
        j -= 1;
        let (key, v) = (&*o[j].0, &o[j].1);
        let mut their_struct = None;
        if i > 0 && t[i - 1].0 == key {
            i -= 1;
            if let view::Kind::Struct(s) = view::kind(t[i].1) {
                their_struct = Some(s);
            }
        }
        match (their_struct, object_entries(v)) {
            (Some(s), Some(entries)) => {
                if depth > MAX_DEPTH {
                    return Err(Failed);
                }
                w.try_message(1, |w| {
                    w.try_message(2, |w| {
                        w.try_message(5, |w| merged_fields_view(w, s, entries, depth + 1))
                    })?;
                    w.string(1, key);
                    Ok(())
                })?;
            }
            _ => our_field(w, key, v, depth)?,
        }
    }
    Ok(())
}

/// The first conversion error of `output`, in the order [`success`]
/// converts: resources, composite status, context.
pub fn conversion_error(output: &Output) -> Option<String> {
    for r in &output.resources {
        if let Err(e) = value_to_struct(&r.body) {
            return Some(format!(
                "unable to convert resource body to struct: {}: {e}",
                r.name
            ));
        }
    }
    if let Some(status) = &output.composite_status
        && let Err(e) = value_to_struct(status)
    {
        return Some(format!("unable to convert composite status: {e}"));
    }
    for (k, v) in &output.context {
        if let Err(e) = value_to_pb(v) {
            return Some(format!("cannot convert context {k:?}: {e}"));
        }
    }
    None
}

/// The success response's bytes, what [`success`] builds and
/// [`crate::schemas::apply`] adds (here given as `additions`) encoded as
/// [`wire::encode_response`] encodes it, written straight from `output`
/// and the request. Returns the bytes and the number of Warning results.
/// Errors are conversion failures, with [`success`]'s texts.
///
/// `capacity` is the buffer to start with (a guess of the response's
/// length: a good one saves growing the buffer; it changes no byte).
pub fn success_bytes(
    req: &RunFunctionRequest,
    ttl: Duration,
    output: &Output,
    additions: &Additions,
    capacity: usize,
) -> Result<(Encoded, usize), String> {
    use prost::Message as _;
    let bytes = req.encode_to_vec();
    let view = RequestView::read(&bytes, usize::MAX).map_err(|view::Unusual| {
        "internal error: prost's encoding of the request is not read".to_owned()
    })?;
    success_bytes_view(&view, ttl, output, additions, capacity)
}

/// [`success_bytes`] of a request read from its bytes: what is passed
/// through (earlier steps' resources, their composite's body and the
/// context where ours does not replace it) is copied as the request's
/// bytes, so the response decodes to [`success`]'s message.
pub fn success_bytes_view(
    req: &RequestView<'_>,
    ttl: Duration,
    output: &Output,
    additions: &Additions,
    capacity: usize,
) -> Result<(Encoded, usize), String> {
    let written = write_success(req, ttl, output, additions, capacity);
    written.map_err(|Failed| {
        conversion_error(output).unwrap_or_else(|| {
            "internal error: a value could not be written but converts".to_owned()
        })
    })
}

/// The first eight bytes of `s` as a big-endian number, zero-padded:
/// where two strings' prefixes differ, they order as the strings do (a
/// shorter string's padding is below the other's byte there, and it is the
/// smaller string); where they are equal, the strings decide.
fn prefix8(s: &str) -> u64 {
    let b = s.as_bytes();
    match b.get(..8).and_then(|p| <[u8; 8]>::try_from(p).ok()) {
        Some(p) => u64::from_be_bytes(p),
        None => b
            .iter()
            .enumerate()
            .fold(0, |acc, (i, c)| acc | u64::from(*c) << (56 - 8 * i)),
    }
}

/// Our resources sorted by name. Each name's first eight bytes are
/// compared as one number, the rest only where those are equal: a
/// comparison of the strings is a `memcmp` call, and sorting 50 names
/// made ~280 of them.
fn by_name(resources: &[DesiredResource]) -> Vec<&DesiredResource> {
    let mut keyed: Vec<(u64, &DesiredResource)> =
        resources.iter().map(|r| (prefix8(&r.name), r)).collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    keyed.into_iter().map(|(_, r)| r).collect()
}

fn write_success(
    req: &RequestView<'_>,
    ttl: Duration,
    output: &Output,
    additions: &Additions,
    capacity: usize,
) -> Result<(Encoded, usize), Failed> {
    let status_wrapper = match &output.composite_status {
        Some(status) => {
            object_entries(status).ok_or(Failed)?;
            Some(ObjMap::from_sorted_iter([(
                "status".into(),
                status.clone(),
            )]))
        }
        None => None,
    };
    let mut w = RevWriter::with_capacity(capacity);
    let their_desired = req.desired.as_ref();

    // D20: conditions with upstream's type, status and reason values.
    let (diag_condition, diag_result) = fnhcl_eval::hcl_diagnostics(output);
    w.message(6, |w| {
        condition_fields(w, CONDITION_HCL_DIAGNOSTICS, &diag_condition);
    });
    w.message(6, |w| {
        condition_fields(
            w,
            CONDITION_FULLY_RESOLVED,
            &fnhcl_eval::fully_resolved(output),
        );
    });

    // D19: the requirements field Crossplane understands; the schemas asked.
    if !output.requirements.is_empty() || !additions.schemas.is_empty() {
        let selectors: Vec<(&str, ResourceSelector)> = output
            .requirements
            .iter()
            .map(|(k, s)| (k.as_str(), selector(s)))
            .collect();
        let tag = if req.has_capability(Capability::RequiredResources) {
            2
        } else {
            1
        };
        w.message(5, |w| {
            wire::schema_entries(w, additions.schemas.iter().map(|(k, v)| (k.as_str(), v)));
            wire::selector_entries(w, tag, selectors.iter().map(|(k, s)| (*k, s)));
        });
    }

    // D18: each key replaces the same top-level key; others pass through.
    if req.context.is_some() || !output.context.is_empty() {
        let t = req.context.map(view::entries).unwrap_or_default();
        let ours: Vec<(&String, &Value)> = output.context.iter().collect();
        w.try_message(4, |w| {
            let (mut i, mut j) = (t.len(), ours.len());
            while i > 0 || j > 0 {
                if j == 0 || (i > 0 && t[i - 1].0 > ours[j - 1].0.as_str()) {
                    i -= 1;
                    their_field(w, t[i].0, t[i].1);
                    continue;
                }
                j -= 1;
                let (key, v) = ours[j];
                if i > 0 && t[i - 1].0 == key {
                    i -= 1;
                }
                our_field(w, key, v, 0)?;
            }
            Ok(())
        })?;
    }

    // D21: one Warning per reported discard, then the warnings summary,
    // then schema validation's.
    let mut results: Vec<FnResult> = output
        .reported_discards()
        .map(|d| FnResult {
            severity: Severity::Warning as i32,
            message: d.message(),
            reason: Some(d.reason.as_str().to_owned()),
            target: Some(Target::Composite as i32),
        })
        .collect();
    if let Some(message) = diag_result {
        results.push(FnResult {
            severity: Severity::Warning as i32,
            message,
            reason: Some(CONDITION_HCL_DIAGNOSTICS.to_owned()),
            target: Some(Target::Composite as i32),
        });
    }
    results.extend(additions.results.iter().cloned());
    for r in results.iter().rev() {
        w.message(3, |w| wire::write_result(w, r));
    }
    let warnings = results
        .iter()
        .filter(|r| r.severity == Severity::Warning as i32)
        .count();

    // D17: earlier steps' resources are kept, ours replace same-named ones;
    // status and connection details merge into the incoming composite.
    w.try_message(2, |w| {
        let ours = by_name(&output.resources);
        // Sorted by name already.
        let t = their_desired.map_or(&[][..], |d| &d.resources[..]);
        let (mut i, mut j) = (t.len(), ours.len());
        while i > 0 || j > 0 {
            if j == 0 || (i > 0 && t[i - 1].0 > ours[j - 1].name.as_str()) {
                i -= 1;
                let (name, r) = (t[i].0, &t[i].1);
                w.message(2, |w| {
                    if !r.raw.is_empty() {
                        w.bytes_field(2, r.raw);
                    }
                    w.string(1, name);
                });
                continue;
            }
            j -= 1;
            let r = ours[j];
            if i > 0 && t[i - 1].0 == r.name {
                i -= 1;
            }
            w.try_message(2, |w| {
                w.try_message(2, |w| {
                    w.int32(3, ready_value(r.ready));
                    let entries = object_entries(&r.body).ok_or(Failed)?;
                    w.try_message(1, |w| our_fields(w, entries, 0))
                })?;
                w.string(1, &r.name);
                Ok(())
            })?;
        }

        let their_composite = their_desired.and_then(|d| d.composite.as_ref());
        if their_composite.is_none()
            && status_wrapper.is_none()
            && output.composite_connection.is_empty()
        {
            return Ok(());
        }
        w.try_message(1, |w| {
            w.int32(3, their_composite.map_or(0, |c| c.ready));
            let mut details: Vec<(&str, &[u8])> = their_composite
                .map(|c| {
                    c.connection
                        .iter()
                        .filter(|(k, _)| !output.composite_connection.contains_key(*k))
                        .copied()
                        .collect()
                })
                .unwrap_or_default();
            details.extend(
                output
                    .composite_connection
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_slice())),
            );
            details.sort_unstable_by(|a, b| a.0.cmp(b.0));
            wire::connection_details(w, details.into_iter());
            let their_body = their_composite.and_then(|c| c.body);
            match (&status_wrapper, their_body) {
                (Some(wrapper), body) => w.try_message(1, |w| {
                    merged_fields_view(w, body.unwrap_or(&[]), wrapper, 0)
                })?,
                (None, Some(body)) => w.bytes_field(1, body),
                (None, None) => {}
            }
            Ok(())
        })
    })?;

    w.message(1, |w| wire::write_meta(w, &meta_tag(req.tag, ttl)));
    Ok((w.finish(), warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::{json_to_struct, struct_to_json};

    /// Sorted as by the names themselves, prefixes shared or not, short
    /// names, names with bytes above 127 or zero.
    #[test]
    fn resources_are_sorted_by_name() {
        let names = [
            "bucket-10",
            "bucket-1",
            "bucket-2",
            "b",
            "",
            "bucket-",
            "bucket-1\0",
            "bucket-1x",
            "bucket",
            "a\u{e9}",
            "a\u{ff}z",
            "a",
            "bucket-100",
            "zz",
            "bucket-0",
        ];
        let resources: Vec<DesiredResource> = names
            .iter()
            .map(|n| DesiredResource {
                name: (*n).to_owned(),
                body: Value::empty_object(),
                ready: None,
                span: fnhcl_base::Span::new(fnhcl_base::FileId(0), 0, 0),
            })
            .collect();
        let mut want: Vec<&str> = names.to_vec();
        want.sort_unstable();
        let got: Vec<&str> = by_name(&resources)
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(got, want);
    }

    /// A leaf entry or list item written in one piece is byte for byte
    /// what the field-by-field writer gives, on both sides of every
    /// one-byte length (the key's, the string's, the value's and the
    /// entry's), and prost reads it back as the value converted.
    #[test]
    fn small_leaves_are_written_as_field_by_field() {
        use prost::Message as _;
        let lens = [
            0, 1, 3, 8, 17, 60, 100, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129,
            300,
        ];
        let mut values = vec![
            Value::null(),
            Value::Bool(true),
            Value::Bool(false),
            Value::int(-3),
            Value::number(fnhcl_value::Number::parse("0.1").expect("number")),
        ];
        values.extend(lens.iter().map(|&n| Value::string("s".repeat(n))));
        values.push(Value::string("é".repeat(61)));
        let (mut small, mut big) = (0, 0);
        for &kl in &lens {
            let key = "k".repeat(kl);
            for v in &values {
                let mut reference = RevWriter::default();
                assert!(our_field(&mut reference, &key, v, 1).is_ok());
                let entries: ObjMap = [(fnhcl_value::Key::from(key.as_str()), v.clone())]
                    .into_iter()
                    .collect();
                let mut w = RevWriter::default();
                let fits = leaf(v, SmallEntry(&mut RevWriter::default(), key.as_bytes()));
                assert!(our_fields(&mut w, &entries, 0).is_ok());
                let (got, want) = (w.finish(), reference.finish());
                assert_eq!(got.as_slice(), want.as_slice(), "key {kl} bytes, {v:?}");
                let decoded = Struct::decode(got.as_slice()).expect("prost reads it");
                let expected = value_to_pb(v).expect("converts");
                assert_eq!(decoded.fields.get(&key), Some(&expected), "key {kl}, {v:?}");
                if fits { small += 1 } else { big += 1 }
            }
        }
        // Both ways were taken.
        assert!(small > 100 && big > 100, "{small} small, {big} not");
        // List items the same way.
        let (mut small_items, mut big_items) = (0, 0);
        for v in &values {
            let mut reference = RevWriter::default();
            assert!(reference.try_message(1, |w| our_value(w, v, 1)).is_ok());
            let mut w = RevWriter::default();
            assert!(our_list(&mut w, std::slice::from_ref(v), 0).is_ok());
            let (got, want) = (w.finish(), reference.finish());
            assert_eq!(got.as_slice(), want.as_slice(), "item {v:?}");
            let decoded = pbjson_types::ListValue::decode(got.as_slice()).expect("prost reads it");
            assert_eq!(decoded.values, [value_to_pb(v).expect("converts")], "{v:?}");
            let fits = leaf(v, SmallItem(&mut RevWriter::default()));
            if fits {
                small_items += 1
            } else {
                big_items += 1
            }
        }
        assert!(
            small_items > 5 && big_items > 2,
            "{small_items} small, {big_items} not"
        );
    }

    #[test]
    fn merge_keeps_their_leaves_and_replaces_ours() {
        let mut theirs =
            json_to_struct(&serde_json::json!({"a": {"x": 1, "y": [1]}, "b": 2})).expect("obj");
        let ours = json_to_struct(&serde_json::json!({"a": {"y": [2], "z": 3}, "c": {"d": 1}}))
            .expect("obj");
        merge_struct(&mut theirs, ours);
        assert_eq!(
            struct_to_json(&theirs),
            serde_json::json!({"a": {"x": 1, "y": [2], "z": 3}, "b": 2, "c": {"d": 1}})
        );
    }

    #[test]
    fn fatal_passes_desired_and_context_through() {
        let req = RunFunctionRequest {
            meta: Some(function_sdk_rust::proto::v1::RequestMeta {
                tag: "t1".into(),
                capabilities: vec![],
            }),
            desired: Some(State::default()),
            context: json_to_struct(&serde_json::json!({"k": 1})),
            ..Default::default()
        };
        let rsp = fatal(&req, Duration::from_secs(60), "boom".into());
        assert_eq!(rsp.desired, req.desired);
        assert_eq!(rsp.context, req.context);
        let meta = rsp.meta.expect("meta");
        assert_eq!(meta.tag, "t1");
        assert_eq!(meta.ttl.expect("ttl").seconds, 60);
        assert_eq!(rsp.results.len(), 1);
        assert_eq!(rsp.results[0].severity, Severity::Fatal as i32);
        assert!(rsp.conditions.is_empty());
    }
}
