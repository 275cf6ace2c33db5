//! The differential tester against the Go function-hcl: programs (the
//! evaluator's conformance cases and generated ones) turned into
//! `RunFunctionRequest`s, and the two functions' responses compared after
//! the deliberate differences of `docs/differences-from-go.md`, each
//! undone by a named normalisation ([`NORMALISATIONS`]); nothing else is
//! normalised. `tests/go_oracle.rs` sends the requests to both servers.
//!
//! Size: test tooling only (the `go_oracle` test and the benchmarks): the
//! program generator and the comparison after the documented normalisations are
//! one tool.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use base64::Engine as _;
use fnhcl_crossplane::proto::{RunFunctionRequest, RunFunctionResponse};
use serde_json::{Map, Value, json};

/// One program with the request data it runs against.
#[derive(Clone, Debug)]
pub struct Program {
    pub name: String,
    /// The txtar bundle (`-- main.hcl --` …).
    pub hcl: String,
    /// The request without its input (protojson).
    pub request: Value,
}

impl Program {
    /// The request both functions get.
    pub fn run_function_request(&self) -> Result<RunFunctionRequest, String> {
        let mut r = self.request.clone();
        r["meta"] = json!({"tag": self.name});
        r["input"] = json!({
            "apiVersion": "function-hcl/v1",
            "kind": "HclInput",
            "hcl": self.hcl,
        });
        serde_json::from_value(r).map_err(|e| format!("{}: not a request: {e}", self.name))
    }
}

/// The named normalisations, each with the decision it undoes.
pub const NORMALISATIONS: &[(&str, &str)] = &[
    (
        "D21-normal-results",
        "Go's SEVERITY_NORMAL results are dropped (we emit none)",
    ),
    (
        "Go-grpc-error",
        "Go v0.2.0 returns a failed evaluation as a gRPC error (code Unknown); we answer a Fatal result: the two agree when both fail",
    ),
    (
        "D9-warning-summary",
        "the Warning result summarising HCL's warnings is not compared, nor the HclDiagnostics condition's status that follows it: Go's lists warnings raised inside `try()` and again at each evaluation of an expression, and leaves out those of group conditions and of unused locals (which we never evaluate, \"Locals are lazy\"); ours lists each once, named as D9 names them",
    ),
    (
        "D32-readiness-gating",
        "our `desired.composite.ready = READY_FALSE` when a block is missing from the run (reported by a Warning result) is removed: Go leaves the composite's readiness unset",
    ),
    (
        "D7-collection-index",
        "the collection-index annotations of each collection compare as a set: Go numbers the members of a map in its random map order, we in sorted key order",
    ),
    (
        "D9-error-wording",
        "when both fail, the Fatal messages are not compared: ours carry our own positions, names and hints (`did you mean`), and the evaluator's cases check their wording",
    ),
    (
        "D10-discard-wording",
        "Warning results compare by the source range they start with (our discard records add the errors and unknown references Go leaves out)",
    ),
    (
        "D20-condition-messages",
        "the FullyResolved and HclDiagnostics conditions compare by type, status and reason: their messages summarise the warnings (D10)",
    ),
    (
        "D12-fail-safe",
        "where we stop with the fail-safe Fatal (an observed resource could not be evaluated) and Go answers, Go's answer must lack that observed resource; the case is counted, not compared further",
    ),
    (
        "D16-incomplete-requirement",
        "a requirement whose selector we found incomplete (our Warning: `discarded requirement NAME`) is removed from Go's requirements, which still carry it",
    ),
];

/// The response as compared, and the normalisations applied to reach it.
pub fn normalise(resp: &RunFunctionResponse, go: bool) -> (Value, Vec<&'static str>) {
    let mut applied = Vec::new();
    let mut v = serde_json::to_value(resp).unwrap_or(Value::Null);
    if let Some(o) = v.as_object_mut() {
        o.remove("meta");
    }
    // Results: severity, the message's leading source range, or the
    // whole message for a Fatal (prefix removed for Go).
    let mut results: Vec<Value> = Vec::new();
    for r in v
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
    {
        let severity = r.get("severity").and_then(Value::as_str).unwrap_or("");
        let mut message = r
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        match severity {
            "SEVERITY_NORMAL" => {
                if go {
                    push_once(&mut applied, "D21-normal-results");
                }
                continue;
            }
            // D9: not the wording (ours carry our own positions, names
            // and hints; the evaluator's cases check it), only that the
            // run failed.
            "SEVERITY_FATAL" => {
                push_once(&mut applied, "D9-error-wording");
                message = "fatal".to_owned();
            }
            _ if message.starts_with("warnings: [") => {
                push_once(&mut applied, "D9-warning-summary");
                continue;
            }
            _ => {
                message = leading_range(&message).unwrap_or(&message).to_owned();
                push_once(&mut applied, "D10-discard-wording");
            }
        }
        results.push(json!({"severity": severity, "message": message}));
    }
    results.sort_by_key(|r| r.to_string());
    let conditions: Vec<Value> = v
        .get("conditions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut c| {
            if let Some(o) = c.as_object_mut() {
                if o.remove("message").is_some() {
                    push_once(&mut applied, "D20-condition-messages");
                }
                if o.get("type").and_then(Value::as_str) == Some("HclDiagnostics") {
                    o.remove("status");
                }
            }
            c
        })
        .collect();
    collection_indexes(&mut v, &mut applied);
    if !go {
        readiness_gated(&mut v, &mut applied);
    }
    if let Some(o) = v.as_object_mut() {
        o.insert("results".into(), Value::Array(results));
        o.insert("conditions".into(), Value::Array(conditions));
    }
    (strip_empty(v), applied)
}

/// D32: our `desired.composite.ready = READY_FALSE` when a block is
/// missing (we then report it with a Warning result); Go leaves the
/// composite's readiness unset.
fn readiness_gated(v: &mut Value, applied: &mut Vec<&'static str>) {
    let warned = v
        .get("results")
        .and_then(Value::as_array)
        .is_some_and(|rs| {
            rs.iter()
                .any(|r| r.get("severity").and_then(Value::as_str) == Some("SEVERITY_WARNING"))
        });
    let Some(c) = v
        .pointer_mut("/desired/composite")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    if warned && c.get("ready").and_then(Value::as_str) == Some("READY_FALSE") {
        c.remove("ready");
        push_once(applied, "D32-readiness-gating");
        if c.is_empty()
            && let Some(d) = v.pointer_mut("/desired").and_then(Value::as_object_mut)
        {
            d.remove("composite");
        }
    }
}

const INDEX_ANNOTATION: &str = "hcl.fn.crossplane.io/collection-index";

/// D7: members of a collection over a map take their indexes in Go's
/// random map order; the indexes of each collection compare as a set
/// (kept under `collectionIndexes`), not per member.
fn collection_indexes(v: &mut Value, applied: &mut Vec<&'static str>) {
    let mut sets: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Some(resources) = v
        .pointer_mut("/desired/resources")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for r in resources.values_mut() {
        let Some(ann) = r
            .pointer_mut("/resource/metadata/annotations")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let Some(index) = ann.remove(INDEX_ANNOTATION) else {
            continue;
        };
        let base = ann
            .get("hcl.fn.crossplane.io/collection-base-name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        sets.entry(base)
            .or_default()
            .push(index.as_str().unwrap_or("").to_owned());
    }
    if sets.is_empty() {
        return;
    }
    push_once(applied, "D7-collection-index");
    for s in sets.values_mut() {
        s.sort();
    }
    v["collectionIndexes"] = serde_json::to_value(sets).unwrap_or(Value::Null);
}

fn push_once(v: &mut Vec<&'static str>, n: &'static str) {
    if !v.contains(&n) {
        v.push(n);
    }
}

/// `main.hcl:3,5-10` (or `main.hcl:9,10-14,4`) at the start of a message.
fn leading_range(m: &str) -> Option<&str> {
    let at = m.find(".hcl:")? + ".hcl:".len();
    if m[..at].contains(' ') {
        return None;
    }
    let len = m[at..]
        .find(|c: char| !(c.is_ascii_digit() || c == ',' || c == '-'))
        .unwrap_or(m.len() - at);
    (len > 0).then(|| &m[..at + len])
}

/// Empty objects, lists, strings and nulls removed, recursively (protojson
/// writes defaults inconsistently between the two SDKs' encoders).
fn strip_empty(v: Value) -> Value {
    match v {
        Value::Object(o) => Value::Object(
            o.into_iter()
                .map(|(k, v)| (k, strip_empty(v)))
                .filter(|(_, v)| !is_empty(v))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(strip_empty).collect()),
        other => other,
    }
}

fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(o) => o.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// What comparing one program's two responses found.
#[derive(Debug)]
pub enum Verdict {
    /// The same after the normalisations listed.
    Same(Vec<&'static str>),
    /// A documented difference that ends the comparison (its name).
    Documented(&'static str),
    /// A divergence: the normalised responses, Go's then ours.
    Differs(String),
}

/// Compares Go's response with ours for `program`.
pub fn compare(program: &Program, go: &RunFunctionResponse, ours: &RunFunctionResponse) -> Verdict {
    let (mut g, mut applied) = normalise(go, true);
    let (o, applied_ours) = normalise(ours, false);
    for a in applied_ours {
        push_once(&mut applied, a);
    }
    if g == o {
        return Verdict::Same(applied);
    }
    let raw_ours = serde_json::to_value(ours).unwrap_or(Value::Null);
    if omitted_requirements(&mut g, &raw_ours) {
        push_once(&mut applied, "D16-incomplete-requirement");
        if g == o {
            return Verdict::Same(applied);
        }
    }
    if let Some(name) = fail_safe(program, &raw_ours, &g) {
        return Verdict::Documented(name);
    }
    let mut fields: Vec<String> = Vec::new();
    let keys: std::collections::BTreeSet<&String> = g
        .as_object()
        .into_iter()
        .flatten()
        .chain(o.as_object().into_iter().flatten())
        .map(|(k, _)| k)
        .collect();
    for k in keys {
        if g.get(k) != o.get(k) {
            fields.push(k.clone());
        }
    }
    Verdict::Differs(format!(
        "differs in: {}\nGo:   {}\nours: {}",
        fields.join(", "),
        serde_json::to_string(&g).unwrap_or_default(),
        serde_json::to_string(&o).unwrap_or_default()
    ))
}

/// D16: Go's requirements that we left out because their selector was
/// incomplete (our Warning says `discarded requirement NAME`) are removed
/// from Go's answer; whether any was.
fn omitted_requirements(go: &mut Value, raw_ours: &Value) -> bool {
    let discarded: Vec<String> = raw_ours
        .get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("message").and_then(Value::as_str))
        .filter_map(|m| {
            let rest = m.split("discarded requirement ").nth(1)?;
            Some(rest.split(['\n', ' ']).next()?.to_owned())
        })
        .collect();
    let Some(reqs) = go
        .pointer_mut("/requirements/extraResources")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let before = reqs.len();
    reqs.retain(|k, _| !discarded.contains(k));
    let changed = reqs.len() != before;
    if reqs.is_empty()
        && let Some(o) = go.as_object_mut()
    {
        o.remove("requirements");
    }
    changed
}

/// D12: ours is the fail-safe Fatal for an observed resource that Go's
/// desired state leaves out.
fn fail_safe(program: &Program, ours: &Value, go: &Value) -> Option<&'static str> {
    let results = ours.get("results")?.as_array()?;
    let msg = results.iter().find_map(|r| {
        (r.get("severity")?.as_str()? == "SEVERITY_FATAL")
            .then(|| r.get("message")?.as_str())
            .flatten()
    })?;
    let name = msg
        .split("existing resource ")
        .nth(1)?
        .split(' ')
        .next()?
        .trim_matches('"');
    let observed = program
        .request
        .pointer("/observed/resources")?
        .as_object()?;
    let in_go = go
        .pointer("/desired/resources")
        .and_then(Value::as_object)
        .is_some_and(|d| d.contains_key(name));
    (observed.contains_key(name) && !in_go).then_some("D12-fail-safe")
}

// ---------------------------------------------------------------------
// Programs from the evaluator's cases.

/// An evaluator case (`crates/fnhcl-eval/tests/cases/<name>`, read by
/// `fnhcl_cases::eval_case`) as a program: its files as one txtar bundle.
pub fn eval_case(dir: &Path) -> Result<Program, String> {
    let case = fnhcl_cases::eval_case::load(dir)?;
    let mut hcl = String::new();
    for (name, text) in &case.files {
        let _ = writeln!(hcl, "-- {name} --");
        hcl.push_str(text);
        if !text.ends_with('\n') {
            hcl.push('\n');
        }
    }
    let data = match &case.request {
        Some(t) => fnhcl_yaml::load_first(t)
            .map_err(|e| format!("{}/request.yaml: {e}", dir.display()))?
            .unwrap_or_default(),
        None => Value::Null,
    };
    Ok(Program {
        name: case.name,
        hcl,
        request: request_from_case_data(&data),
    })
}

fn b64(s: &str) -> String {
    base64::engine::general_purpose::STANDARD.encode(s)
}

fn connection(v: Option<&Value>) -> Value {
    let mut out = Map::new();
    for (k, v) in v.and_then(Value::as_object).into_iter().flatten() {
        out.insert(k.clone(), json!(b64(v.as_str().unwrap_or_default())));
    }
    Value::Object(out)
}

/// `request.yaml`'s data (see the cases' README) as a protojson request.
fn request_from_case_data(data: &Value) -> Value {
    let composite = data.get("composite").cloned().unwrap_or_else(
        || json!({"apiVersion": "example.com/v1", "kind": "XR", "metadata": {"name": "xr"}}),
    );
    let mut resources = Map::new();
    for (k, v) in data
        .get("observed")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        resources.insert(
            k.clone(),
            json!({"resource": v.get("body").cloned().unwrap_or(json!({})),
                   "connectionDetails": connection(v.get("connection"))}),
        );
    }
    let mut req = json!({
        "observed": {
            "composite": {"resource": composite,
                          "connectionDetails": connection(data.get("composite_connection"))},
            "resources": resources,
        },
    });
    if let Some(c) = data.get("context").filter(|c| c.is_object()) {
        req["context"] = c.clone();
    }
    let mut extra = Map::new();
    for (k, v) in data
        .get("extra_resources")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(items) = v.as_array() {
            let items: Vec<Value> = items.iter().map(|b| json!({"resource": b})).collect();
            extra.insert(k.clone(), json!({"items": items}));
        }
    }
    if !extra.is_empty() {
        req["extraResources"] = Value::Object(extra);
    }
    req
}

// ---------------------------------------------------------------------
// Generated programs.

/// The generator's choices, from a seeded `fastrand` generator: the same
/// seed gives the same program on every machine (draws are `u64`s, not
/// `usize`s, whose sequence would depend on the pointer width).
pub struct Rng(fastrand::Rng);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    /// 0..n (0 when n is 0)
    pub fn below(&mut self, n: usize) -> usize {
        self.0.u64(..n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The XR's parameters a generated program may read; each is present or
/// absent (then unknown: blocks reading it are deferred) at random.
const PARAMS: &[(&str, &str)] = &[
    ("region", "string"),
    ("env", "string"),
    ("replicas", "number"),
    ("enabled", "bool"),
    ("zones", "list"),
    ("tags", "map"),
];

struct Gen<'a> {
    rng: &'a mut Rng,
    locals: Vec<(String, &'static str)>,
    resources: Vec<String>,
    out: String,
}

impl Gen<'_> {
    /// An expression of `ty` (`string`, `number`, `bool`) from the XR's
    /// parameters, locals, observed status and built-ins.
    fn expr(&mut self, ty: &str, depth: usize) -> String {
        let leaf = depth >= 2 || self.rng.chance(40);
        let locals: Vec<String> = self
            .locals
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect();
        match ty {
            "number" => {
                if leaf {
                    match self.rng.below(4) {
                        0 => format!("{}", self.rng.below(10)),
                        1 => "req.composite.spec.parameters.replicas".to_owned(),
                        2 if !locals.is_empty() => self.rng.pick(&locals).clone(),
                        _ => "length(req.composite.spec.parameters.zones)".to_owned(),
                    }
                } else {
                    let a = self.expr("number", depth + 1);
                    let b = self.expr("number", depth + 1);
                    match self.rng.below(4) {
                        0 => format!("({a} + {b})"),
                        1 => format!("({a} * {b})"),
                        2 => format!("max({a}, {b})"),
                        // No `cond ? a : b` of numbers: HCL 2.24 refines
                        // its unknown result to the range of a and b, and
                        // comparisons against that range become known
                        // ("Refinements" in docs/differences-from-go.md).
                        _ => format!("min({a}, {b})"),
                    }
                }
            }
            "bool" => {
                if leaf {
                    match self.rng.below(4) {
                        0 => "true".to_owned(),
                        1 => "req.composite.spec.parameters.enabled".to_owned(),
                        2 if !locals.is_empty() => self.rng.pick(&locals).clone(),
                        _ => "(req.composite.spec.parameters.env == \"prod\")".to_owned(),
                    }
                } else {
                    let a = self.expr("number", depth + 1);
                    let b = self.expr("number", depth + 1);
                    match self.rng.below(3) {
                        0 => format!("({a} > {b})"),
                        1 => format!("!{}", self.expr("bool", depth + 1)),
                        _ => format!(
                            "({} && {})",
                            self.expr("bool", depth + 1),
                            self.expr("bool", depth + 1)
                        ),
                    }
                }
            }
            _ => {
                if leaf {
                    match self.rng.below(6) {
                        0 => format!("\"v{}\"", self.rng.below(100)),
                        1 => "req.composite.spec.parameters.region".to_owned(),
                        2 => "req.composite.metadata.name".to_owned(),
                        3 if !locals.is_empty() => self.rng.pick(&locals).clone(),
                        4 if !self.resources.is_empty() => {
                            let r = self.rng.pick(&self.resources).clone();
                            format!("req.resource.{r}.status.atProvider.id")
                        }
                        _ => "try(req.composite.spec.parameters.tags.team, \"none\")".to_owned(),
                    }
                } else {
                    match self.rng.below(5) {
                        0 => format!(
                            "\"${{{}}}-${{{}}}\"",
                            self.expr("string", depth + 1),
                            self.expr("number", depth + 1)
                        ),
                        1 => format!("upper({})", self.expr("string", depth + 1)),
                        2 => format!(
                            "join(\"-\", [{}, {}])",
                            self.expr("string", depth + 1),
                            self.expr("string", depth + 1)
                        ),
                        3 => format!(
                            "({} ? {} : {})",
                            self.expr("bool", depth + 1),
                            self.expr("string", depth + 1),
                            self.expr("string", depth + 1)
                        ),
                        _ => format!("format(\"%s-x\", {})", self.expr("string", depth + 1)),
                    }
                }
            }
        }
    }

    fn body(&mut self, name_expr: &str, extra: &str) -> String {
        let region = self.expr("string", 0);
        let size = self.expr("number", 0);
        format!(
            "  body = {{\n    apiVersion = \"example.com/v1\"\n    kind       = \"Thing\"\n    metadata   = {{ name = {name_expr} }}\n    spec = {{\n      forProvider = {{\n        region = {region}\n        size   = {size}\n{extra}      }}\n    }}\n  }}\n"
        )
    }

    fn block(&mut self, i: usize) {
        match self.rng.below(9) {
            0 => {
                let ty = *self.rng.pick(&["string", "number", "bool"]);
                let name = format!("l{i}");
                let e = self.expr(ty, 0);
                let _ = writeln!(self.out, "locals {{\n  {name} = {e}\n}}\n");
                self.locals.push((name, ty));
            }
            1 | 2 => {
                let name = format!("r{i}");
                let cond = if self.rng.chance(30) {
                    format!("  condition = {}\n", self.expr("bool", 0))
                } else {
                    String::new()
                };
                let ready = if self.rng.chance(25) {
                    "  ready {\n    value = \"READY_TRUE\"\n  }\n".to_owned()
                } else {
                    String::new()
                };
                let status = if self.rng.chance(30) {
                    format!(
                        "  composite status {{\n    body = {{ {name} = self.resource.status.atProvider.id }}\n  }}\n"
                    )
                } else {
                    String::new()
                };
                let body = self.body(&format!("\"${{req.composite.metadata.name}}-{name}\""), "");
                let _ = writeln!(
                    self.out,
                    "resource {name} {{\n{cond}{body}{ready}{status}}}\n"
                );
                self.resources.push(name);
            }
            3 => {
                let name = format!("c{i}");
                let each = *self.rng.pick(&[
                    "req.composite.spec.parameters.zones",
                    "req.composite.spec.parameters.tags",
                    "try(req.composite.spec.parameters.zones, [])",
                    "try(req.composite.spec.parameters.tags, {})",
                ]);
                let body = self.body(
                    &format!("\"${{req.composite.metadata.name}}-{name}-${{each.key}}\""),
                    "        zone   = each.value\n",
                );
                let _ = writeln!(
                    self.out,
                    "resources {name} {{\n  for_each = {each}\n  template {{\n{}  }}\n}}\n",
                    body.replace("\n  ", "\n    ")
                        .replacen("  body", "    body", 1)
                );
                for k in ["0", "1", "team", "cost"] {
                    self.resources.push(format!("{name}-{k}"));
                }
            }
            4 => {
                let cond = self.expr("bool", 0);
                let name = format!("g{i}");
                let body = self.body(&format!("\"${{req.composite.metadata.name}}-{name}\""), "");
                let _ = writeln!(
                    self.out,
                    "group {{\n  condition = {cond}\n  resource {name} {{\n{}  }}\n}}\n",
                    body.replace("\n  ", "\n    ")
                        .replacen("  body", "    body", 1)
                );
                self.resources.push(name);
            }
            5 => {
                let ty = *self.rng.pick(&["string", "number", "bool"]);
                let e = self.expr(ty, 0);
                let _ = writeln!(
                    self.out,
                    "composite status {{\n  body = {{ s{i} = {e} }}\n}}\n"
                );
            }
            6 => {
                let e = self.expr("string", 0);
                let _ = writeln!(
                    self.out,
                    "composite connection {{\n  body = {{ k{i} = base64encode({e}) }}\n}}\n"
                );
            }
            7 => {
                let ty = *self.rng.pick(&["string", "number", "bool"]);
                let e = self.expr(ty, 0);
                let _ = writeln!(
                    self.out,
                    "context {{\n  key   = \"example.com/k{i}\"\n  value = {{ v = {e} }}\n}}\n"
                );
            }
            _ => {
                let e = self.expr("string", 0);
                let _ = writeln!(
                    self.out,
                    "requirement q{i} {{\n  select {{\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    matchName  = {e}\n  }}\n}}\n"
                );
            }
        }
    }
}

/// A generated program and its request: blocks of every kind, reading
/// XR parameters that are present or not and observed resources that
/// exist (with or without status) or not.
pub fn generated(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let mut g = Gen {
        rng: &mut rng,
        locals: Vec::new(),
        resources: Vec::new(),
        out: String::new(),
    };
    let n = 2 + g.rng.below(7);
    for i in 0..n {
        g.block(i);
    }
    if g.resources.is_empty() {
        g.block(n); // at least try for a resource
    }
    let hcl = format!("-- main.hcl --\n{}", g.out);
    let resources = g.resources.clone();
    let mut params = Map::new();
    for (p, ty) in PARAMS {
        if !rng.chance(80) {
            continue;
        }
        let v = match *ty {
            "string" => json!(if *p == "env" {
                if rng.chance(50) { "prod" } else { "dev" }
            } else {
                "eu-west-1"
            }),
            "number" => json!(rng.below(4)),
            "bool" => json!(rng.chance(50)),
            "list" => json!(["a", "b"][..rng.below(3)]),
            _ => {
                let mut m = Map::new();
                if rng.chance(70) {
                    m.insert("team".into(), json!("storage"));
                }
                if rng.chance(50) {
                    m.insert("cost".into(), json!("1234"));
                }
                Value::Object(m)
            }
        };
        params.insert((*p).to_owned(), v);
    }
    let mut observed = BTreeMap::new();
    for r in &resources {
        if rng.chance(35) {
            let status = if rng.chance(60) {
                json!({"atProvider": {"id": format!("id-{r}")}})
            } else {
                json!({})
            };
            observed.insert(
                r.clone(),
                json!({"resource": {"apiVersion": "example.com/v1", "kind": "Thing",
                                    "metadata": {"name": format!("x-{r}")}, "status": status}}),
            );
        }
    }
    let request = json!({
        "observed": {
            "composite": {"resource": {
                "apiVersion": "example.com/v1", "kind": "XThing",
                "metadata": {"name": "xt-1"},
                "spec": {"parameters": params},
            }},
            "resources": observed,
        },
    });
    Program {
        name: format!("generated-{seed}"),
        hcl,
        request,
    }
}
