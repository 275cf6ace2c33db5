//! The response builder writes protobuf bytes straight from the evaluator's
//! output and the request's bytes (`response::success_bytes_view`,
//! `response::fatal_bytes_view`; `success_bytes` and `fatal_bytes` of an
//! SDK message). They must decode (with prost and with
//! `wire::decode_response`) to the SDK message the reference builder
//! (`response::success` + `schemas::apply`, `response::fatal`) builds, and
//! be as long as prost's encoding of it: on every render case's request and
//! on random outputs merged into random earlier steps' state. Where every
//! map passed through has at most one entry, the bytes are the reference's
//! (what the request passes through is copied in the request's order).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fnhcl_crossplane::input::{HclInput, SchemaValidation};
use fnhcl_crossplane::proto::{
    Capability, RequestMeta, Resource, RunFunctionRequest, RunFunctionResponse, State,
};
use fnhcl_crossplane::{request, response, schemas, wire};
use fnhcl_eval::{DesiredResource, Output, ReadyState, Selector, SelectorMatch};
use fnhcl_value::{Key, Number, ObjMap, Type, Value};
use pbjson_types::value::Kind;
use pbjson_types::{ListValue, Struct, Value as PbValue};
use prost::Message as _;

#[path = "support/realistic.rs"]
mod realistic;
use realistic::outcome_of;

const TTL: Duration = Duration::from_secs(60);

/// The reference: the SDK message, schema additions applied.
fn reference(
    req: &RunFunctionRequest,
    output: &Output,
    policy: SchemaValidation,
    cache: &schemas::SchemaCache,
) -> Result<RunFunctionResponse, String> {
    let mut rsp = response::success(req, TTL, output)?;
    schemas::apply(req, policy, output, cache, &mut rsp)?;
    Ok(rsp)
}

/// The builder, as `Function::run` uses it.
fn built(
    req: &RunFunctionRequest,
    output: &Output,
    policy: SchemaValidation,
    cache: &schemas::SchemaCache,
) -> Result<(wire::Encoded, usize), String> {
    let additions = schemas::check(req, policy, output, cache)
        .map_err(|m| response::conversion_error(output).unwrap_or(m))?;
    // A small buffer to start with: growing it is tested too.
    response::success_bytes(req, TTL, output, &additions, 16)
}

/// Whether every `Struct` and map of the request passed through has at most
/// one entry (then the bytes copied are in sorted order too).
fn single_entry_maps(req: &RunFunctionRequest) -> bool {
    fn value_ok(v: &PbValue) -> bool {
        match &v.kind {
            Some(Kind::StructValue(s)) => struct_ok(s),
            Some(Kind::ListValue(l)) => l.values.iter().all(value_ok),
            _ => true,
        }
    }
    fn struct_ok(s: &Struct) -> bool {
        s.fields.len() <= 1 && s.fields.values().all(value_ok)
    }
    fn resource_ok(r: &Resource) -> bool {
        r.connection_details.len() <= 1 && r.resource.as_ref().is_none_or(struct_ok)
    }
    req.context.as_ref().is_none_or(struct_ok)
        && req.desired.as_ref().is_none_or(|d| {
            d.composite.as_ref().is_none_or(resource_ok) && d.resources.values().all(resource_ok)
        })
}

/// Both agree: the same message, the same length, the same error.
fn compare(req: &RunFunctionRequest, output: &Output, policy: SchemaValidation, what: &str) {
    let cache = schemas::SchemaCache::default();
    match (
        reference(req, output, policy, &cache),
        built(req, output, policy, &cache),
    ) {
        (Ok(old), Ok((bytes, warnings))) => {
            if single_entry_maps(req) {
                assert_eq!(
                    bytes.as_slice(),
                    wire::encode_response(&old).as_slice(),
                    "{what}: the reference's bytes"
                );
            }
            assert_eq!(bytes.len(), old.encoded_len(), "{what}: prost's length");
            let decoded = RunFunctionResponse::decode(bytes.as_slice());
            // prost stops at 100 nested messages; deeper values are
            // compared through our decoder only.
            if let Ok(decoded) = decoded {
                assert_eq!(decoded, old, "{what}: prost decodes the reference");
            }
            assert_eq!(
                wire::decode_response(bytes.as_slice()).expect("decodes"),
                old,
                "{what}: decode_response"
            );
            assert_eq!(warnings, old.results.len(), "{what}: warnings");
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "{what}: the same error"),
        (a, b) => panic!(
            "{what}: reference {:?}, builder {:?}",
            a.map(|_| ()),
            b.map(|_| ())
        ),
    }
}

fn fatal_matches(req: &RunFunctionRequest, what: &str) {
    let old = response::fatal(req, TTL, "boom".to_owned());
    let new = response::fatal_bytes(req, TTL, "boom".to_owned());
    assert_eq!(
        new.as_slice(),
        wire::encode_response(&old).as_slice(),
        "{what}: fatal"
    );
    let bytes = req.encode_to_vec();
    let view = fnhcl_crossplane::view::RequestView::read(&bytes, usize::MAX).expect("view");
    let new = response::fatal_bytes_view(&view, TTL, "boom".to_owned());
    assert_eq!(new.len(), old.encoded_len(), "{what}: fatal's length");
    assert_eq!(
        wire::decode_response(new.as_slice()).expect("decodes"),
        old,
        "{what}: fatal from the request's bytes"
    );
}

/// The evaluator's output for an inline-program request, if it has one.
fn evaluate(req: &RunFunctionRequest) -> Option<(Output, SchemaValidation)> {
    let input = HclInput::decode(req.input.as_ref()).ok()?;
    input.check().ok()?;
    let mut sources = fnhcl_base::SourceMap::new();
    fnhcl_base::txtar::load_into(&mut sources, &input.hcl).ok()?;
    let program = fnhcl_eval::compile(Arc::new(sources)).ok()?;
    let eval_req = request::eval_request_for(req, program.demand());
    // Read from the request's bytes: the same values.
    let bytes = req.encode_to_vec();
    let view = fnhcl_crossplane::view::RequestView::new(&bytes).expect("view");
    let from_bytes =
        request::eval_request_view(&view, program.demand(), usize::MAX).expect("converts");
    assert_eq!(format!("{from_bytes:?}"), format!("{eval_req:?}"));
    let limits = fnhcl_crossplane::Limits::default().eval;
    let output = fnhcl_eval::evaluate_with_limits(&program, &eval_req, &limits).ok()?;
    Some((output, input.schema_validation))
}

#[test]
fn render_cases_build_the_reference_bytes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render");
    let mut cases = fnhcl_testkit::discover_cases(&root.join("upstream"));
    cases.extend(fnhcl_testkit::discover_cases(&root.join("cases")));
    assert!(cases.len() > 20, "render cases found: {}", cases.len());
    let compared = Mutex::new(0usize);
    let function = |req: &RunFunctionRequest| {
        fatal_matches(req, "render request");
        if let Some((output, policy)) = evaluate(req) {
            compare(req, &output, policy, "render request");
            *compared.lock().expect("count") += 1;
        }
        fnhcl_crossplane::run(req)
    };
    for case in &cases {
        let _ = fnhcl_testkit::case::render_case(case, &function);
    }
    let compared = compared.into_inner().expect("count");
    assert!(compared >= cases.len() / 2, "compared {compared}");
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
    /// Keys from a small alphabet, so that ours and theirs collide.
    fn key(&mut self) -> String {
        ["a", "b", "status", "spec", "", "z", "é", "a.b"][self.below(8) as usize].to_owned()
    }
    fn text(&mut self) -> String {
        let n = self.below(6) as usize;
        (0..n)
            .map(|_| ['x', 'y', 'é', '"', '\u{1F600}'][self.below(5) as usize])
            .collect()
    }
    fn ours(&mut self, depth: u32, unknowns: bool) -> Value {
        let pick = if depth == 0 {
            self.below(5)
        } else {
            self.below(10)
        };
        match pick {
            0 => Value::null(),
            1 => Value::Bool(self.chance(50)),
            2 => match self.below(3) {
                0 => Value::int(self.next() as i64 >> 20),
                1 => Value::number(Number::parse("0.1").expect("number")),
                _ => Value::number(Number::parse("-1e300").expect("number")),
            },
            3 => Value::string(self.text()),
            4 if unknowns && self.chance(5) => Value::dynamic_unknown(),
            4 => Value::string(""),
            5 | 6 => Value::object(self.entries(depth, unknowns)),
            7 => Value::map(Type::Dynamic, self.entries(depth, unknowns)),
            8 => Value::Marked(Arc::new(self.ours(depth - 1, unknowns))),
            _ => {
                let items = (0..self.below(4))
                    .map(|_| self.ours(depth - 1, unknowns))
                    .collect();
                if self.chance(50) {
                    Value::tuple(items)
                } else {
                    Value::list(Type::Dynamic, items)
                }
            }
        }
    }
    fn entries(&mut self, depth: u32, unknowns: bool) -> ObjMap {
        (0..self.below(4))
            .map(|_| (Key::from(self.key()), self.ours(depth - 1, unknowns)))
            .collect()
    }
    fn theirs(&mut self, depth: u32) -> PbValue {
        let pick = if depth == 0 {
            self.below(4)
        } else {
            self.below(7)
        };
        let kind = match pick {
            0 => Kind::NullValue(0),
            1 => Kind::NumberValue(self.below(100) as f64 / 4.0),
            2 => Kind::StringValue(self.text()),
            3 => Kind::BoolValue(self.chance(50)),
            4 | 5 => Kind::StructValue(self.structure(depth - 1)),
            _ => Kind::ListValue(ListValue {
                values: (0..self.below(3)).map(|_| self.theirs(depth - 1)).collect(),
            }),
        };
        PbValue { kind: Some(kind) }
    }
    fn structure(&mut self, depth: u32) -> Struct {
        Struct {
            fields: (0..self.below(4))
                .map(|_| (self.key(), self.theirs(depth)))
                .collect(),
        }
    }
    fn details(&mut self) -> HashMap<String, Vec<u8>> {
        (0..self.below(3))
            .map(|_| (self.key(), self.text().into_bytes()))
            .collect()
    }
}

fn resource_names() -> [&'static str; 4] {
    ["bucket", "role", "", "zone"]
}

fn random_case(rng: &mut Rng) -> (RunFunctionRequest, Output) {
    let unknowns = rng.chance(20);
    let mut req = RunFunctionRequest::default();
    if rng.chance(70) {
        let mut capabilities = Vec::new();
        if rng.chance(50) {
            capabilities.push(Capability::RequiredResources as i32);
        }
        req.meta = Some(RequestMeta {
            tag: rng.text(),
            capabilities,
        });
    }
    if rng.chance(70) {
        let mut desired = State::default();
        if rng.chance(70) {
            let mut body = rng.structure(3);
            if rng.chance(50) {
                body.fields.insert(
                    "status".to_owned(),
                    PbValue {
                        kind: Some(Kind::StructValue(rng.structure(3))),
                    },
                );
            }
            desired.composite = Some(Resource {
                resource: rng.chance(80).then_some(body),
                connection_details: rng.details(),
                ready: rng.below(3) as i32,
            });
        }
        for name in resource_names() {
            if rng.chance(40) {
                desired.resources.insert(
                    name.to_owned(),
                    Resource {
                        resource: rng.chance(90).then(|| rng.structure(3)),
                        connection_details: rng.details(),
                        ready: rng.below(3) as i32,
                    },
                );
            }
        }
        req.desired = Some(desired);
    }
    if rng.chance(50) {
        req.context = Some(rng.structure(3));
    }
    let mut output = Output {
        resources: Vec::new(),
        composite_status: None,
        composite_connection: BTreeMap::new(),
        context: BTreeMap::new(),
        requirements: BTreeMap::new(),
        discards: Vec::new(),
        warnings: Vec::new(),
        sources: Arc::new(fnhcl_base::SourceMap::new()),
    };
    for name in resource_names() {
        if rng.chance(40) {
            let body = if rng.chance(95) {
                Value::object(rng.entries(4, unknowns))
            } else {
                rng.ours(2, unknowns)
            };
            output.resources.push(DesiredResource {
                name: name.to_owned(),
                body,
                ready: [None, Some(ReadyState::True), Some(ReadyState::False)]
                    [rng.below(3) as usize],
                span: fnhcl_base::Span {
                    file: fnhcl_base::FileId(0),
                    start: 0,
                    end: 0,
                },
            });
        }
    }
    // Evaluation order is not name order.
    if rng.chance(50) {
        output.resources.reverse();
    }
    if rng.chance(60) {
        output.composite_status = Some(if rng.chance(90) {
            Value::object(rng.entries(4, unknowns))
        } else {
            rng.ours(2, unknowns)
        });
    }
    for _ in 0..rng.below(3) {
        output
            .composite_connection
            .insert(rng.key(), rng.text().into_bytes());
    }
    for _ in 0..rng.below(3) {
        let v = rng.ours(3, unknowns);
        output.context.insert(rng.key(), v);
    }
    for _ in 0..rng.below(3) {
        let matches = if rng.chance(50) {
            SelectorMatch::Name(rng.text())
        } else {
            SelectorMatch::Labels((0..rng.below(3)).map(|_| (rng.key(), rng.text())).collect())
        };
        output.requirements.insert(
            rng.key(),
            Selector {
                api_version: rng.text(),
                kind: rng.text(),
                matches,
            },
        );
    }
    (req, output)
}

#[test]
fn random_outputs_build_the_reference_bytes() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut failed) = (0, 0);
    for i in 0..3000 {
        let (req, output) = random_case(&mut rng);
        let what = format!("random case {i}");
        compare(&req, &output, SchemaValidation::Off, &what);
        fatal_matches(&req, &what);
        if response::conversion_error(&output).is_some() {
            failed += 1;
        } else {
            ok += 1;
        }
    }
    // Both outcomes were exercised.
    assert!(ok > 1000 && failed > 100, "ok {ok}, failed {failed}");
}

#[test]
fn depth_limits_are_the_converters() {
    let max = fnhcl_crossplane::convert::MAX_DEPTH;
    // The innermost level an object or a list (the writers take a leaf
    // in each without a call of its own: the depth is checked there too).
    for (depth, list) in [max - 1, max, max + 1]
        .into_iter()
        .flat_map(|d| [(d, false), (d, true)])
    {
        let mut v = Value::int(1);
        for i in 0..depth {
            if list && i == 0 {
                v = Value::tuple(vec![Value::Bool(true), v]);
                continue;
            }
            let mut m = ObjMap::new();
            m.insert(Key::from("a"), v);
            v = Value::object(m);
        }
        let mut req = RunFunctionRequest::default();
        // Theirs nests too: the merge walks both.
        let mut theirs = Struct::default();
        for _ in 0..50 {
            let mut outer = Struct::default();
            outer.fields.insert(
                "a".to_owned(),
                PbValue {
                    kind: Some(Kind::StructValue(theirs)),
                },
            );
            theirs = outer;
        }
        let mut body = Struct::default();
        body.fields.insert(
            "status".to_owned(),
            PbValue {
                kind: Some(Kind::StructValue(theirs)),
            },
        );
        req.desired = Some(State {
            composite: Some(Resource {
                resource: Some(body),
                ..Default::default()
            }),
            ..Default::default()
        });
        let (_, mut output) = random_case(&mut Rng(7));
        output.resources.clear();
        output.context.clear();
        output.composite_status = Some(v.clone());
        compare(
            &req,
            &output,
            SchemaValidation::Off,
            &format!("status {depth} {list}"),
        );
        output.composite_status = None;
        output.context.insert("deep".to_owned(), v);
        compare(
            &req,
            &output,
            SchemaValidation::Off,
            &format!("context {depth} {list}"),
        );
    }
}

/// A program reading the observed composite and the context, writing
/// resources, the composite's status and the context.
const PROGRAM: &str = r#"
locals {
  a = try(req.composite.a, "none")
  c = try(req.context.b, {})
}

resource bucket {
  body = {
    apiVersion = "v1"
    kind       = "K"
    metadata   = { name = "n" }
    spec       = { a = a, c = c }
  }
}

composite status {
  body = { seen = a }
}

context {
  key   = "b"
  value = { from = a }
}
"#;

/// The request bytes of a random case: observed state, an inline program.
fn random_request(rng: &mut Rng) -> RunFunctionRequest {
    let (mut req, _) = random_case(rng);
    let mut observed = State::default();
    if rng.chance(80) {
        observed.composite = Some(Resource {
            resource: Some(rng.structure(3)),
            connection_details: rng.details(),
            ready: 0,
        });
    }
    if rng.chance(50) {
        observed.resources.insert(
            "bucket".to_owned(),
            Resource {
                resource: Some(rng.structure(2)),
                ..Default::default()
            },
        );
    }
    req.observed = Some(observed);
    req.input = fnhcl_crossplane::convert::json_to_struct(&serde_json::json!({
        "apiVersion": "fn-hcl.crossplane.io/v1beta1",
        "kind": "HclInput",
        "hcl": PROGRAM,
    }));
    req
}

/// Counts of [`Tally::run`]'s cases: prost decoded the bytes (`same`:
/// the responses agreed) or refused them (`invalid`: the Fatal result
/// carried its error); the run succeeded.
#[derive(Default, Clone, Copy)]
struct Tally {
    same: usize,
    invalid: usize,
    succeeded: usize,
}

impl Tally {
    /// [`realistic::check_as_prost_reads`], counted.
    fn run(&mut self, f: &fnhcl_crossplane::Function, bytes: &[u8], case: usize) {
        let (decoded, ok) = realistic::check_as_prost_reads(f, bytes, case);
        self.succeeded += usize::from(ok);
        if decoded {
            self.same += 1;
        } else {
            self.invalid += 1;
        }
    }

    /// Each kind of case came more often than given (the cases are not
    /// all of one kind).
    fn assert_over(&self, same: usize, invalid: usize, succeeded: usize) {
        let Tally {
            same: s,
            invalid: i,
            succeeded: ok,
        } = *self;
        assert!(
            s > same && i > invalid && ok > succeeded,
            "same {s}, invalid {i}, succeeded {ok}"
        );
    }
}

/// Requests read from their bytes (`Function::run_bytes`) mean what prost
/// reads them to mean: the SDK message prost decodes, run, gives the same
/// response (and a request prost cannot decode is a Fatal result with
/// prost's error), whatever was done to the bytes: random requests,
/// their bytes mutated (bytes changed, inserted, removed, cut off, a field
/// given twice). Nothing panics.
#[test]
fn request_bytes_read_as_prost_reads_them() {
    let f = fnhcl_crossplane::Function::default();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut tally, mut unchanged) = (Tally::default(), 0);
    for i in 0..1500 {
        let req = random_request(&mut rng);
        let mut bytes = req.encode_to_vec();
        if i % 5 != 0 {
            let n = bytes.len().max(1);
            match rng.below(6) {
                0 => {
                    let at = rng.below(n as u64) as usize;
                    if at < bytes.len() {
                        bytes[at] = rng.next() as u8;
                    }
                }
                1 => {
                    let at = rng.below(n as u64 + 1) as usize;
                    bytes.insert(at.min(bytes.len()), rng.next() as u8);
                }
                2 => {
                    let at = rng.below(n as u64) as usize;
                    if at < bytes.len() {
                        bytes.remove(at);
                    }
                }
                3 => bytes.truncate(rng.below(n as u64) as usize),
                // The whole request twice: every singular field merged,
                // every map entry given twice.
                4 => bytes.extend_from_slice(&bytes.clone()),
                _ => {
                    let at = rng.below(n as u64) as usize;
                    if at < bytes.len() {
                        bytes[at] ^= 1 << rng.below(8);
                    }
                }
            }
        } else {
            unchanged += 1;
        }
        tally.run(&f, &bytes, i);
    }
    assert!(unchanged > 200, "unchanged {unchanged}");
    tally.assert_over(500, 200, 300);
}

/// The same for realistic requests (`support/realistic.rs`: a program
/// reading what the readers project, by parts, by name and by collection
/// membership, and requests with observed, desired and extra resources,
/// `managedFields`, connection details and a context), each with one to
/// two random byte edits (8,000 cases, `CASES=n` for more); the
/// `request_bytes` fuzz target does this coverage-guided. The requests as
/// they are succeed, with the composed resources the program makes.
#[test]
fn realistic_requests_edited_read_as_prost_reads_them() {
    let f = fnhcl_crossplane::Function::default();
    let bases = realistic::bases();
    for (i, base) in bases.iter().enumerate() {
        let got = f.run_bytes(base, None);
        assert_eq!(got.error, None, "base {i}");
        let rsp = outcome_of(&got).0;
        let desired = rsp.desired.expect("desired state");
        let mut names: Vec<&str> = desired.resources.keys().map(String::as_str).collect();
        names.sort_unstable();
        // The third request passes no desired resource through.
        let want: &[&str] = if i < 2 {
            &["bucket", "earlier", "pool-a", "pool-b"]
        } else {
            &["bucket", "pool-a", "pool-b"]
        };
        assert_eq!(names, want, "base {i}");
    }
    let mut rng = Rng(0x005e_ed0f_ed17_5eed);
    let mut tally = Tally::default();
    let cases: usize = std::env::var("CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(8000);
    for i in 0..cases {
        let base = &bases[i % bases.len()];
        // Mostly one edit; half of them a byte set to a letter, which
        // keeps most requests valid (a string changed, or a tag, length or
        // number that still reads).
        let mut script = Vec::new();
        for _ in 0..1 + rng.below(3) / 2 {
            let at = (rng.next() as u16).to_le_bytes();
            let (op, val) = if rng.chance(50) {
                (0, b'a' + rng.below(26) as u8)
            } else {
                (rng.next() as u8, rng.next() as u8)
            };
            script.extend_from_slice(&[op, at[0], at[1], val]);
        }
        let bytes = realistic::edit(base, &script);
        tally.run(&f, &bytes, i);
    }
    tally.assert_over(1000, 500, 500);
}

/// The last input's bytes are not checked again, but other bytes are: a
/// request whose input differs from the last one in one byte of its
/// program text (made invalid UTF-8) is refused with prost's error, after
/// and before runs of the valid input.
#[test]
fn an_input_like_the_last_one_is_still_checked() {
    let f = fnhcl_crossplane::Function::default();
    let mut rng = Rng(0x0bad_cafe_f00d_0001);
    let req = random_request(&mut rng);
    let good = req.encode_to_vec();
    let first = f.run_bytes(&good, None);
    let at = good
        .windows(PROGRAM.len())
        .position(|w| w == PROGRAM.as_bytes())
        .expect("the program text is in the request");
    let mut bad = good.clone();
    bad[at + PROGRAM.len() / 2] = 0xff;
    let e = RunFunctionRequest::decode(bad.as_slice()).expect_err("prost refuses it");
    let got = f.run_bytes(&bad, None);
    assert_eq!(got.error, Some(format!("invalid request: {e}")));
    let again = f.run_bytes(&good, None);
    assert_eq!(outcome_of(&again), outcome_of(&first));
    assert_eq!(
        f.run_bytes(&bad, None).error,
        Some(format!("invalid request: {e}"))
    );
}
