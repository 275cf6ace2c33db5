//! RunFunction's response encoding (`fnhcl_server::codec`): it decodes with
//! prost to the message encoded (the render cases' responses and random
//! messages), equal messages give the same bytes whatever their maps'
//! iteration order, and a message with at most one entry per map is
//! byte-identical to prost's encoding.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use fnhcl_server::codec::response_bytes;
use function_sdk_rust::proto::v1::resource_selector::Match;
use function_sdk_rust::proto::v1::{
    Condition, MatchLabels, Requirements, Resource, ResourceSelector, ResponseMeta,
    Result as PbResult, RunFunctionRequest, RunFunctionResponse, SchemaSelector, State,
};
use pbjson_types::value::Kind;
use pbjson_types::{Duration, ListValue, Struct, Value};
use prost::Message as _;

/// Decodes `bytes` as a response (the test fails on an error).
fn decode(bytes: &[u8]) -> RunFunctionResponse {
    RunFunctionResponse::decode(bytes).expect("the encoding decodes")
}

/// Every map of `rsp` rebuilt (a new hasher, entries inserted in reverse
/// order): an equal message whose maps iterate in another order.
fn reshuffled(rsp: &RunFunctionResponse) -> RunFunctionResponse {
    fn map<V>(m: &HashMap<String, V>, f: impl Fn(&V) -> V) -> HashMap<String, V> {
        let mut entries: Vec<(&String, &V)> = m.iter().collect();
        entries.reverse();
        entries
            .into_iter()
            .map(|(k, v)| (k.clone(), f(v)))
            .collect()
    }
    fn structure(s: &Struct) -> Struct {
        Struct {
            fields: map(&s.fields, value),
        }
    }
    fn value(v: &Value) -> Value {
        let kind = match &v.kind {
            Some(Kind::StructValue(s)) => Some(Kind::StructValue(structure(s))),
            Some(Kind::ListValue(l)) => Some(Kind::ListValue(ListValue {
                values: l.values.iter().map(value).collect(),
            })),
            other => other.clone(),
        };
        Value { kind }
    }
    fn resource(r: &Resource) -> Resource {
        Resource {
            resource: r.resource.as_ref().map(structure),
            connection_details: map(&r.connection_details, Clone::clone),
            ready: r.ready,
        }
    }
    fn selector(s: &ResourceSelector) -> ResourceSelector {
        let mut s = s.clone();
        if let Some(Match::MatchLabels(l)) = &mut s.r#match {
            l.labels = map(&l.labels, Clone::clone);
        }
        s
    }
    RunFunctionResponse {
        meta: rsp.meta.clone(),
        desired: rsp.desired.as_ref().map(|d| State {
            composite: d.composite.as_ref().map(resource),
            resources: map(&d.resources, resource),
        }),
        results: rsp.results.clone(),
        context: rsp.context.as_ref().map(structure),
        requirements: rsp.requirements.as_ref().map(|r| Requirements {
            extra_resources: map(&r.extra_resources, selector),
            resources: map(&r.resources, selector),
            schemas: map(&r.schemas, Clone::clone),
        }),
        conditions: rsp.conditions.clone(),
        output: rsp.output.as_ref().map(structure),
    }
}

/// The properties every response must have.
fn check(rsp: &RunFunctionResponse, what: &str) {
    let ours = response_bytes(rsp);
    let theirs = rsp.encode_to_vec();
    assert_eq!(ours.len(), theirs.len(), "{what}: same length as prost's");
    assert_eq!(&decode(&ours), rsp, "{what}: decodes to the message");
    assert_eq!(decode(&ours), decode(&theirs), "{what}: as prost's does");
    assert_eq!(
        &fnhcl_crossplane::wire::decode_response(&ours).expect("decodes"),
        rsp,
        "{what}: our decoder reads it"
    );
    assert_eq!(
        response_bytes(&reshuffled(rsp)),
        ours,
        "{what}: equal messages, same bytes"
    );
}

/// The responses of every render case (the function's real output:
/// resources, status, context, requirements, results, conditions).
#[test]
fn render_case_responses_round_trip_and_are_byte_stable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render");
    let mut cases = fnhcl_testkit::discover_cases(&root.join("upstream"));
    cases.extend(fnhcl_testkit::discover_cases(&root.join("cases")));
    assert!(cases.len() > 20, "render cases found: {}", cases.len());
    let responses = Mutex::new(Vec::new());
    let function = |req: &RunFunctionRequest| {
        let rsp = fnhcl_crossplane::run(req);
        responses.lock().expect("responses").push(rsp.clone());
        rsp
    };
    for case in &cases {
        let _ = fnhcl_testkit::case::render_case(case, &function);
    }
    let responses = responses.into_inner().expect("responses");
    assert!(responses.len() >= cases.len() / 2, "{}", responses.len());
    let mut multi_entry = 0;
    for (i, rsp) in responses.iter().enumerate() {
        check(rsp, &format!("render response {i}"));
        if rsp.desired.as_ref().is_some_and(|d| d.resources.len() > 1) {
            multi_entry += 1;
        }
    }
    assert!(
        multi_entry > 5,
        "responses with several resources: {multi_entry}"
    );
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn int(&mut self) -> i32 {
        // Zero, small, negative (ten bytes on the wire) and big values.
        match self.below(4) {
            0 => 0,
            1 => self.below(5) as i32,
            2 => -(self.below(1000) as i32) - 1,
            _ => self.next() as i32,
        }
    }
    fn string(&mut self) -> String {
        let n = match self.below(10) {
            0 => 0,
            9 => 130 + self.below(200) as usize,
            _ => 1 + self.below(12) as usize,
        };
        (0..n)
            .map(|_| ['a', 'b', 'z', '-', '.', 'é', '\u{1F600}'][self.below(7) as usize])
            .collect()
    }
    fn opt_string(&mut self) -> Option<String> {
        self.chance(50).then(|| self.string())
    }
    fn map<V>(&mut self, most: u64, mut f: impl FnMut(&mut Rng) -> V) -> HashMap<String, V> {
        let n = self.below(most + 1);
        (0..n).map(|_| (self.string(), f(self))).collect()
    }
    fn value(&mut self, depth: u32) -> Value {
        let pick = if depth == 0 {
            self.below(5)
        } else {
            self.below(7)
        };
        let kind = match pick {
            0 => None,
            1 => Some(Kind::NullValue(if self.chance(80) {
                0
            } else {
                self.int()
            })),
            2 => Some(Kind::NumberValue(match self.below(4) {
                0 => 0.0,
                1 => -0.5,
                2 => 1e300,
                _ => self.next() as f64 / 3.0,
            })),
            3 => Some(Kind::StringValue(self.string())),
            4 => Some(Kind::BoolValue(self.chance(50))),
            5 => Some(Kind::StructValue(self.structure(depth - 1))),
            _ => Some(Kind::ListValue(ListValue {
                values: (0..self.below(5)).map(|_| self.value(depth - 1)).collect(),
            })),
        };
        Value { kind }
    }
    fn structure(&mut self, depth: u32) -> Struct {
        Struct {
            fields: self.map(6, |r| r.value(depth)),
        }
    }
    fn resource(&mut self) -> Resource {
        Resource {
            resource: self.chance(80).then(|| self.structure(3)),
            connection_details: self.map(3, |r| r.string().into_bytes()),
            ready: self.int(),
        }
    }
    fn selector(&mut self) -> ResourceSelector {
        ResourceSelector {
            api_version: self.string(),
            kind: self.string(),
            namespace: self.opt_string(),
            r#match: match self.below(3) {
                0 => None,
                1 => Some(Match::MatchName(self.string())),
                _ => Some(Match::MatchLabels(MatchLabels {
                    labels: self.map(3, Rng::string),
                })),
            },
        }
    }
    fn response(&mut self) -> RunFunctionResponse {
        RunFunctionResponse {
            meta: self.chance(80).then(|| ResponseMeta {
                tag: self.string(),
                ttl: self.chance(70).then(|| Duration {
                    seconds: if self.chance(20) {
                        -(self.below(100) as i64)
                    } else {
                        self.below(1 << 40) as i64
                    },
                    nanos: self.int(),
                }),
            }),
            desired: self.chance(80).then(|| State {
                composite: self.chance(80).then(|| self.resource()),
                resources: self.map(5, Rng::resource),
            }),
            results: (0..self.below(3))
                .map(|_| PbResult {
                    severity: self.int(),
                    message: self.string(),
                    reason: self.opt_string(),
                    target: self.chance(50).then(|| self.int()),
                })
                .collect(),
            context: self.chance(60).then(|| self.structure(2)),
            requirements: self.chance(50).then(|| Requirements {
                extra_resources: self.map(2, Rng::selector),
                resources: self.map(3, Rng::selector),
                schemas: self.map(2, |r| SchemaSelector {
                    api_version: r.string(),
                    kind: r.string(),
                }),
            }),
            conditions: (0..self.below(3))
                .map(|_| Condition {
                    r#type: self.string(),
                    status: self.int(),
                    reason: self.string(),
                    message: self.opt_string(),
                    target: self.chance(50).then(|| self.int()),
                })
                .collect(),
            output: self.chance(30).then(|| self.structure(2)),
        }
    }
}

/// Whether every map in `rsp` has at most one entry (then prost's order is
/// the only order).
fn single_entry_maps(rsp: &RunFunctionResponse) -> bool {
    let bytes = rsp.encode_to_vec();
    // Prost's encoding of a reshuffled copy is the same when no map has a
    // choice of order; checking the maps directly would repeat the walk.
    let all_small = |r: &RunFunctionResponse| {
        fn s(st: &Struct) -> bool {
            st.fields.len() <= 1
                && st.fields.values().all(|v| match &v.kind {
                    Some(Kind::StructValue(x)) => s(x),
                    Some(Kind::ListValue(l)) => l.values.iter().all(|v| match &v.kind {
                        Some(Kind::StructValue(x)) => s(x),
                        Some(Kind::ListValue(_)) => false,
                        _ => true,
                    }),
                    _ => true,
                })
        }
        fn res(x: &Resource) -> bool {
            x.connection_details.len() <= 1 && x.resource.as_ref().is_none_or(s)
        }
        r.context.as_ref().is_none_or(s)
            && r.output.as_ref().is_none_or(s)
            && r.desired.as_ref().is_none_or(|d| {
                d.resources.len() <= 1
                    && d.composite.as_ref().is_none_or(res)
                    && d.resources.values().all(res)
            })
            && r.requirements.as_ref().is_none_or(|q| {
                q.extra_resources.len() <= 1
                    && q.resources.len() <= 1
                    && q.schemas.len() <= 1
                    && q.extra_resources
                        .values()
                        .chain(q.resources.values())
                        .all(|sel| match &sel.r#match {
                            Some(Match::MatchLabels(l)) => l.labels.len() <= 1,
                            _ => true,
                        })
            })
    };
    !bytes.is_empty() && all_small(rsp)
}

#[test]
fn random_responses_round_trip_and_are_byte_stable() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut prost_unstable = 0;
    let mut identical = 0;
    for i in 0..3000 {
        let rsp = rng.response();
        check(&rsp, &format!("random response {i}"));
        if rsp.encode_to_vec() != reshuffled(&rsp).encode_to_vec() {
            prost_unstable += 1;
        }
        if single_entry_maps(&rsp) {
            assert_eq!(
                response_bytes(&rsp),
                rsp.encode_to_vec(),
                "random response {i}: no map order to choose, prost's bytes"
            );
            identical += 1;
        }
    }
    // The generator exercises both kinds: the checks above can fail.
    assert!(
        prost_unstable > 100,
        "prost order-dependent: {prost_unstable}"
    );
    assert!(identical > 100, "compared byte for byte: {identical}");
}

#[test]
fn an_empty_response_is_empty() {
    assert!(response_bytes(&RunFunctionResponse::default()).is_empty());
    let rsp = RunFunctionResponse {
        context: Some(Struct::default()),
        ..RunFunctionResponse::default()
    };
    assert_eq!(response_bytes(&rsp), vec![0x22, 0]);
}
