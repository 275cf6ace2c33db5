//! Schema validation of what the function emits (input field
//! `schemaValidation`; see `docs/schema-validation.md`).
//!
//! When Crossplane advertises `CAPABILITY_REQUIRED_SCHEMAS`, the response
//! asks for the OpenAPI schema of every kind it emits (and of the XR), one
//! selector per kind. Crossplane answers on the next call of the same
//! reconcile with `required_schemas`; then every desired body and the
//! composite status are validated against them. Asking never holds anything
//! back: the first response emits everything as it would without schemas.
//! Without the capability nothing is asked and nothing is validated, so
//! there is no extra round trip.
//!
//! Schemas arrive with every request; each is compiled once and cached by a
//! hash of its content.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex, PoisonError};

use fnhcl_eval::{FieldStep, Output};
use fnhcl_schema::{PathSegment, Schema, Violation, ViolationKind};
use fnhcl_value::Value;
use function_sdk_rust::proto::v1::{
    Capability, Requirements, Result as FnResult, RunFunctionRequest, RunFunctionResponse,
    SchemaSelector, Severity, Target,
};
use pbjson_types::Struct;
use pbjson_types::value::Kind;

use crate::cache::Lru;
use crate::input::SchemaValidation;

/// The `reason` of the Warning results that report violations.
pub const REASON: &str = "SchemaViolation";
/// Violations reported per resource; the rest are counted in one line.
pub const MAX_PER_RESOURCE: usize = 10;
/// Compiled schemas kept by default.
pub const DEFAULT_CACHE_ENTRIES: usize = 256;
/// Default budget of the compiled schemas kept: 64 MiB of estimated memory
/// ([`Schema::estimated_bytes`]; a large provider CRD's schema is a few
/// MiB compiled).
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;

/// The requirement key for a kind: `Kind.version.group` (`Bucket.v1beta1.s3.aws.upbound.io`,
/// `ConfigMap.v1` for the core group), kubectl's fully qualified form.
pub fn requirement_key(api_version: &str, kind: &str) -> String {
    match api_version.split_once('/') {
        Some((group, version)) => format!("{kind}.{version}.{group}"),
        None => format!("{kind}.{api_version}"),
    }
}

/// Compiled schemas by content hash, bounded by entries and by estimated
/// bytes (the least recently used dropped first; a schema over the whole
/// budget is compiled for each request). A schema that does not compile is
/// cached as its error (reported once per response as a warning).
pub struct SchemaCache {
    lru: Mutex<Lru<u64, Arc<Result<Schema, String>>>>,
    hits: std::sync::atomic::AtomicU64,
    misses: std::sync::atomic::AtomicU64,
}

impl Default for SchemaCache {
    fn default() -> SchemaCache {
        SchemaCache::new(DEFAULT_CACHE_ENTRIES, DEFAULT_CACHE_BYTES)
    }
}

impl SchemaCache {
    /// A cache of at most `max_entries` schemas and `max_bytes` of their
    /// estimated memory.
    pub fn new(max_entries: usize, max_bytes: usize) -> SchemaCache {
        SchemaCache {
            lru: Mutex::new(Lru::new(max_entries, max_bytes)),
            hits: Default::default(),
            misses: Default::default(),
        }
    }

    /// Size, bounds and counters.
    pub fn stats(&self) -> crate::CacheStats {
        use std::sync::atomic::Ordering::Relaxed;
        let lru = self.lru.lock().unwrap_or_else(PoisonError::into_inner);
        crate::CacheStats {
            entries: lru.len(),
            bytes: lru.bytes(),
            max_entries: lru.max_entries(),
            max_bytes: lru.max_bytes(),
            hits: self.hits.load(Relaxed),
            misses: self.misses.load(Relaxed),
            evictions: lru.evictions(),
        }
    }

    /// Compiled schemas held.
    pub fn len(&self) -> usize {
        self.lru
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, schema: &Struct) -> Arc<Result<Schema, String>> {
        let key = content_hash(schema);
        if let Some(s) = self
            .lru
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            self.hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            return s.clone();
        }
        self.misses
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Compiled outside the lock: other requests go on meanwhile.
        let json = crate::convert::struct_to_json(schema);
        let compiled = Arc::new(Schema::compile(&json).map_err(|e| e.message));
        let weight = match &*compiled {
            Ok(schema) => schema.estimated_bytes(),
            Err(message) => message.len(),
        };
        self.lru
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, compiled.clone(), weight);
        compiled
    }
}

/// A hash of a Struct that does not depend on map order (protobuf maps
/// arrive in any order). A change of a `description` text that keeps its
/// length is not seen: descriptions do not take part in validation.
fn content_hash(s: &Struct) -> u64 {
    // One multiply-rotate step per value, strings through foldhash: a
    // schema is hashed on every request that carries it.
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    fn mix(h: u64, x: u64) -> u64 {
        (h ^ x).wrapping_mul(K).rotate_left(29)
    }
    fn text(state: &foldhash::fast::FixedState, s: &str) -> u64 {
        state.hash_one(s)
    }
    fn hash_struct(s: &Struct, state: &foldhash::fast::FixedState) -> u64 {
        // Entries combine by addition, so their order does not matter.
        let mut sum: u64 = s.fields.len() as u64;
        for (k, v) in &s.fields {
            sum = sum.wrapping_add(match (k.as_str(), &v.kind) {
                // Descriptions are most of a CRD schema's text and do not
                // change what validation does: their length stands in.
                ("description", Some(Kind::StringValue(d))) => mix(7, d.len() as u64),
                _ => mix(text(state, k), hash_value(v, state)),
            });
        }
        sum
    }
    fn hash_value(v: &pbjson_types::Value, state: &foldhash::fast::FixedState) -> u64 {
        match &v.kind {
            None | Some(Kind::NullValue(_)) => 1,
            Some(Kind::BoolValue(b)) => mix(2, u64::from(*b)),
            Some(Kind::NumberValue(n)) => mix(3, n.to_bits()),
            Some(Kind::StringValue(s)) => mix(4, text(state, s)),
            Some(Kind::StructValue(s)) => mix(5, hash_struct(s, state)),
            Some(Kind::ListValue(l)) => {
                l.values.iter().fold(6, |h, e| mix(h, hash_value(e, state)))
            }
        }
    }
    hash_struct(s, &foldhash::fast::FixedState::with_seed(0x5eed))
}

fn has_capability(req: &RunFunctionRequest) -> bool {
    req.meta.as_ref().is_some_and(|m| {
        m.capabilities
            .contains(&(Capability::RequiredSchemas as i32))
    })
}

fn str_field<'a>(body: &'a Value, key: &str) -> Option<&'a str> {
    match body.unmarked() {
        Value::Object(o) => o.get(key).and_then(Value::as_str),
        _ => None,
    }
}

fn xr_kind(req: &RunFunctionRequest) -> Option<(String, String)> {
    let body = req
        .observed
        .as_ref()?
        .composite
        .as_ref()?
        .resource
        .as_ref()?;
    let s = |k: &str| match body.fields.get(k).and_then(|v| v.kind.as_ref()) {
        Some(Kind::StringValue(s)) if !s.is_empty() => Some(s.clone()),
        _ => None,
    };
    Some((s("apiVersion")?, s("kind")?))
}

/// The schema Crossplane supplied for a kind: `None` when it was not asked
/// for yet, or Crossplane found no schema (an empty message: skipped).
fn supplied<'r>(req: &'r RunFunctionRequest, api_version: &str, kind: &str) -> Option<&'r Struct> {
    req.required_schemas
        .get(&requirement_key(api_version, kind))?
        .openapi_v3
        .as_ref()
        .filter(|s| !s.fields.is_empty())
}

/// What schema validation adds to a response: the schemas asked for (in
/// `requirements.schemas`, by requirement key) and Warning results (after
/// the function's own).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Additions {
    pub schemas: BTreeMap<String, SchemaSelector>,
    pub results: Vec<FnResult>,
}

/// [`check`]'s additions made to `rsp`.
pub fn apply(
    req: &RunFunctionRequest,
    policy: SchemaValidation,
    output: &Output,
    cache: &SchemaCache,
    rsp: &mut RunFunctionResponse,
) -> Result<(), String> {
    let additions = check(req, policy, output, cache)?;
    if !additions.schemas.is_empty() {
        rsp.requirements
            .get_or_insert_with(Requirements::default)
            .schemas
            .extend(additions.schemas);
    }
    rsp.results.extend(additions.results);
    Ok(())
}

/// Asks for the schemas of what `output` emits and validates what was
/// supplied. With policy `Fatal`, the first violation is returned as the
/// fatal message.
pub fn check(
    req: &RunFunctionRequest,
    policy: SchemaValidation,
    output: &Output,
    cache: &SchemaCache,
) -> Result<Additions, String> {
    let mut additions = Additions::default();
    if policy == SchemaValidation::Off || !has_capability(req) {
        return Ok(additions);
    }
    // One selector per distinct kind, the XR's included.
    let xr = xr_kind(req);
    let mut distinct: Vec<(&str, &str)> = Vec::new();
    if let Some((a, k)) = &xr {
        distinct.push((a, k));
    }
    // Each resource's kind, read once.
    let typed: Vec<Option<(&str, &str)>> = output
        .resources
        .iter()
        .map(|r| {
            Some((
                str_field(&r.body, "apiVersion")?,
                str_field(&r.body, "kind")?,
            ))
        })
        .collect();
    for &(a, k) in typed.iter().flatten() {
        if !distinct.contains(&(a, k)) {
            distinct.push((a, k));
        }
    }
    let kinds: BTreeMap<String, SchemaSelector> = distinct
        .iter()
        .map(|(a, k)| {
            let sel = SchemaSelector {
                api_version: (*a).to_owned(),
                kind: (*k).to_owned(),
            };
            (requirement_key(a, k), sel)
        })
        .collect();
    additions.schemas = kinds;

    let mut messages: Vec<String> = Vec::new();
    let mut broken: BTreeMap<String, String> = BTreeMap::new();
    let sources = &output.sources;
    type Seen<'a> = Vec<(&'a str, &'a str, Option<Arc<Result<Schema, String>>>)>;
    let mut seen: Seen<'_> = Vec::new();
    let mut locator = fnhcl_eval::Locator::new(sources);
    for (r, &(api_version, kind)) in output
        .resources
        .iter()
        .zip(&typed)
        .filter_map(|(r, t)| Some((r, t.as_ref()?)))
    {
        // Each kind's schema is looked up and hashed once per request.
        let compiled = match seen
            .iter()
            .find(|(a, k, _)| *a == api_version && *k == kind)
        {
            Some((_, _, c)) => c.clone(),
            None => {
                let c = supplied(req, api_version, kind).map(|s| cache.get(s));
                seen.push((api_version, kind, c.clone()));
                c
            }
        };
        let Some(compiled) = compiled else {
            continue;
        };
        let schema = match &*compiled {
            Ok(s) => s,
            Err(e) => {
                broken.insert(format!("{api_version} {kind}"), e.clone());
                continue;
            }
        };
        let violations = schema.validate(&r.body);
        if violations.is_empty() {
            continue;
        }
        let what = format!("resource {:?}, {api_version} {kind}", r.name);
        for v in violations.iter().take(MAX_PER_RESOURCE) {
            let steps = field_steps(&v.path);
            let at = locator
                .resource_field(r.span, &steps)
                .map(|l| pick(&l, &v.kind))
                .unwrap_or(r.span);
            messages.push(format!("{}: {v} ({what})", sources.range_text(at)));
        }
        if violations.len() > MAX_PER_RESOURCE {
            messages.push(format!(
                "{}: {} more schema violation(s) ({what})",
                sources.range_text(r.span),
                violations.len() - MAX_PER_RESOURCE
            ));
        }
    }

    if let (Some(status), Some((api_version, kind))) = (&output.composite_status, &xr)
        && let Some(schema) = supplied(req, api_version, kind)
    {
        match &*cache.get(schema) {
            Ok(schema) => {
                for v in status_violations(schema, api_version, kind, status)
                    .iter()
                    .take(MAX_PER_RESOURCE)
                {
                    let steps = field_steps(&v.path[1..]);
                    let at = locator
                        .composite_field("status", &steps)
                        .map(|l| pick(&l, &v.kind));
                    let range = at.map_or_else(|| "<nil>".to_owned(), |s| sources.range_text(s));
                    messages.push(format!(
                        "{range}: {v} (composite status, {api_version} {kind})"
                    ));
                }
            }
            Err(e) => {
                broken.insert(format!("{api_version} {kind}"), e.clone());
            }
        }
    }

    for (what, e) in broken {
        additions.results.push(FnResult {
            severity: Severity::Warning as i32,
            message: format!("the schema Crossplane supplied for {what} cannot be used: {e}"),
            reason: Some(REASON.to_owned()),
            target: Some(Target::Composite as i32),
        });
    }
    if messages.is_empty() {
        return Ok(additions);
    }
    if policy == SchemaValidation::Fatal {
        let mut m = messages[0].clone();
        if messages.len() > 1 {
            m.push_str(&format!(
                ", and {} other schema violation(s)",
                messages.len() - 1
            ));
        }
        return Err(m);
    }
    for message in messages {
        additions.results.push(FnResult {
            severity: Severity::Warning as i32,
            message,
            reason: Some(REASON.to_owned()),
            target: Some(Target::Composite as i32),
        });
    }
    Ok(additions)
}

/// Violations of the composite status this function writes. Crossplane
/// merges it with what is there (and other steps write parts of it), so a
/// required field we do not write is not a violation.
fn status_violations(
    schema: &Schema,
    api_version: &str,
    kind: &str,
    status: &Value,
) -> Vec<Violation> {
    let xr = fnhcl_value::ObjMap::from_sorted_iter([
        ("apiVersion".into(), Value::String(api_version.into())),
        ("kind".into(), Value::String(kind.into())),
        ("status".into(), status.clone()),
    ]);
    schema
        .validate(&Value::Object(xr))
        .into_iter()
        .filter(|v| {
            v.kind != ViolationKind::Required
                && matches!(v.path.first(), Some(PathSegment::Key(k)) if k == "status")
        })
        .collect()
}

fn field_steps(path: &[PathSegment]) -> Vec<FieldStep<'_>> {
    path.iter()
        .map(|p| match p {
            PathSegment::Key(k) => FieldStep::Key(k),
            PathSegment::Index(i) => FieldStep::Index(*i),
        })
        .collect()
}

/// An unknown field is reported at its key; anything else at the value.
fn pick(l: &fnhcl_eval::Location, kind: &ViolationKind) -> fnhcl_base::Span {
    match kind {
        ViolationKind::UnknownField { .. } => l.for_key(),
        _ => l.value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::json_to_struct;

    fn schema(json: serde_json::Value) -> Struct {
        json_to_struct(&json).expect("object")
    }

    #[test]
    fn content_hash_ignores_map_order_and_sees_changes() {
        let a = schema(serde_json::json!({"type": "object", "properties": {
            "tier": {"type": "string", "enum": ["small", "large"]},
            "size": {"type": "integer", "description": "how big"}}}));
        // The same content, maps built in another order.
        let mut b = Struct::default();
        for (k, v) in a
            .fields
            .iter()
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .rev()
        {
            b.fields.insert(k.clone(), v.clone());
        }
        assert_eq!(content_hash(&a), content_hash(&b));
        let changed = schema(serde_json::json!({"type": "object", "properties": {
            "tier": {"type": "string", "enum": ["small", "large", "huge"]},
            "size": {"type": "integer", "description": "how big"}}}));
        assert_ne!(content_hash(&a), content_hash(&changed));
        let retyped = schema(serde_json::json!({"type": "object", "properties": {
            "tier": {"type": "string", "enum": ["small", "large"]},
            "size": {"type": "number", "description": "how big"}}}));
        assert_ne!(content_hash(&a), content_hash(&retyped));
    }

    #[test]
    fn a_schema_is_compiled_once_and_kept() {
        let cache = SchemaCache::default();
        let s = schema(serde_json::json!({"type": "object"}));
        let first = cache.get(&s);
        let again = cache.get(&s);
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(cache.len(), 1);
        let broken = schema(serde_json::json!({"type": "string", "pattern": "("}));
        assert!(cache.get(&broken).is_err());
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn the_cache_is_bounded_by_estimated_bytes() {
        let props: serde_json::Map<String, serde_json::Value> = (0..500)
            .map(|i| {
                let p = serde_json::json!({"type": "string", "description": "a field", "enum": ["a", "b"]});
                (format!("field{i}"), p)
            })
            .collect();
        let big = schema(serde_json::json!({"type": "object", "properties": props}));
        let cache = SchemaCache::new(16, 1 << 30);
        let kept = cache.get(&big);
        let weight = cache.stats().bytes;
        let compiled = kept.as_ref().as_ref().expect("compiles");
        assert_eq!(weight, compiled.estimated_bytes());
        // 500 nodes with their names, enums and descriptions.
        assert!(weight > 500 * 100, "{weight}");
        assert!(Arc::ptr_eq(&kept, &cache.get(&big)));
        assert_eq!((cache.stats().hits, cache.stats().misses), (1, 1));

        // Over the whole budget: compiled for each request, never kept.
        let cache = SchemaCache::new(16, weight - 1);
        let first = cache.get(&big);
        assert!(!Arc::ptr_eq(&first, &cache.get(&big)));
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.bytes, stats.misses), (0, 0, 2));

        // Room for two of three: the least recently used goes.
        let cache = SchemaCache::new(16, 2 * weight + weight / 2);
        let other = |n: usize| {
            let mut v = serde_json::to_value(&props).expect("json");
            v[format!("extra{n}")] = serde_json::json!({"type": "integer"});
            schema(serde_json::json!({"type": "object", "properties": v}))
        };
        for n in 0..3 {
            cache.get(&other(n));
        }
        let stats = cache.stats();
        assert_eq!((stats.entries, stats.evictions), (2, 1), "{stats:?}");
        assert!(stats.bytes <= stats.max_bytes);
    }

    #[test]
    fn requirement_keys_are_kubectl_style() {
        assert_eq!(
            requirement_key("s3.aws.upbound.io/v1beta1", "Bucket"),
            "Bucket.v1beta1.s3.aws.upbound.io"
        );
        assert_eq!(requirement_key("v1", "ConfigMap"), "ConfigMap.v1");
    }
}
