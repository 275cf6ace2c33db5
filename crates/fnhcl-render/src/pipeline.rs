//! Running the Composition's pipeline: one RunFunctionRequest per step (and
//! per requirements iteration), state carried from step to step exactly as
//! `crossplane render` carries it.

use std::collections::HashMap;

use base64::Engine as _;
use function_sdk_rust::proto::v1::{
    Capability, CredentialData, Credentials, Ready, RequestMeta, Requirements, Resource,
    ResourceSelector, Resources, RunFunctionRequest, RunFunctionResponse, Severity, State, Status,
    credentials, resource_selector,
};
use function_sdk_rust::resource::{json_to_struct, struct_to_json};
use pbjson_types::Struct;
use serde_json::{Map, Value};

use crate::error::RenderError;
use crate::fields::{get_at, str_at};
use crate::frames;
use crate::inputs::{Loaded, RenderOptions};

/// Requirements are re-answered at most this many times per step.
pub const MAX_REQUIREMENTS_ITERATIONS: usize = 5;

/// The function under test: a request in, a response out. Implemented for
/// every `Fn(&RunFunctionRequest) -> RunFunctionResponse`, so
/// `fnhcl_crossplane::run` can be passed directly.
pub trait Function {
    fn run(&self, request: &RunFunctionRequest) -> RunFunctionResponse;
}

impl<F> Function for F
where
    F: Fn(&RunFunctionRequest) -> RunFunctionResponse,
{
    fn run(&self, request: &RunFunctionRequest) -> RunFunctionResponse {
        self(request)
    }
}

/// A condition a step returned, as render records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RecordedCondition {
    pub kind: String,
    pub status: &'static str,
    pub reason: String,
    pub message: String,
}

/// A non-fatal result, with the step that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RecordedResult {
    pub step: String,
    pub severity: &'static str,
    pub message: String,
}

/// What the pipeline belongs to: a Composition (with an observed XR) or an
/// Operation (no composite, D39); they differ in what requests carry and
/// in how errors are worded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    Composition,
    Operation,
}

impl Owner {
    /// Wraps an error of the whole render, as the CLI words it.
    fn wrap(self, e: RenderError) -> RenderError {
        match self {
            Owner::Composition => e.wrap("cannot render composite resource"),
            Owner::Operation => e,
        }
    }

    fn step_error(self, step: &str, cause: &str) -> RenderError {
        match self {
            Owner::Composition => {
                RenderError::new(format!("cannot run pipeline step {step:?}: {cause}"))
                    .wrap("cannot render composite resource")
            }
            Owner::Operation => RenderError::new(format!(
                "cannot run operation pipeline step {step:?}: {cause}"
            )),
        }
    }
}

pub(crate) struct PipelineOutcome {
    pub desired: State,
    pub context: Option<Struct>,
    pub steps_run: usize,
    pub conditions: Vec<RecordedCondition>,
    pub results: Vec<RecordedResult>,
    pub warnings: Vec<String>,
    /// Every request sent, in order (for tests and debugging).
    pub requests: Vec<RunFunctionRequest>,
    /// Each step's `output` (operations, D39), in pipeline order.
    pub outputs: Vec<(String, Struct)>,
}

#[derive(Debug, PartialEq, Eq)]
enum StepKind {
    /// Runs in-process.
    Ours,
    /// `function-auto-ready`, emulated.
    AutoReady,
    /// Another function: cannot run here.
    Foreign,
}

fn is_hcl_input(input: Option<&Value>) -> bool {
    let Some(Value::Object(m)) = input else {
        return false;
    };
    str_at(m, &["kind"]) == Some("HclInput")
        || str_at(m, &["apiVersion"])
            .is_some_and(|a| a.starts_with("function-hcl") || a.starts_with("hcl.fn."))
}

/// The repository part of a package reference, without registry, tag or
/// digest: `xpkg.upbound.io/crossplane-contrib/function-hcl:v0.2.0` →
/// `function-hcl`.
fn package_repo(pkg: &str) -> &str {
    let last = pkg.rsplit('/').next().unwrap_or(pkg);
    last.split(['@', ':']).next().unwrap_or(last)
}

fn classify(
    fn_name: &str,
    input: Option<&Value>,
    loaded: &Loaded,
    opts: &RenderOptions,
) -> Result<StepKind, String> {
    if opts.function_names.iter().any(|n| n == fn_name) {
        return Ok(StepKind::Ours);
    }
    if let Some(fns) = &loaded.functions {
        let Some(f) = fns
            .iter()
            .find(|f| str_at(f, &["metadata", "name"]) == Some(fn_name))
        else {
            return Err(format!(
                "unknown Function {fn_name:?} - does it exist in your Functions file?"
            ));
        };
        let repo = package_repo(str_at(f, &["spec", "package"]).unwrap_or_default());
        if repo.contains("function-hcl") || is_hcl_input(input) {
            return Ok(StepKind::Ours);
        }
        if repo.ends_with("auto-ready") {
            return Ok(StepKind::AutoReady);
        }
        return Ok(StepKind::Foreign);
    }
    if is_hcl_input(input) {
        return Ok(StepKind::Ours);
    }
    if fn_name.ends_with("auto-ready") {
        return Ok(StepKind::AutoReady);
    }
    Ok(StepKind::Foreign)
}

fn resource_of(m: &Map<String, Value>) -> Resource {
    Resource {
        resource: Some(json_to_struct(m)),
        ..Resource::default()
    }
}

fn labels_of(m: &Map<String, Value>) -> Option<&Map<String, Value>> {
    get_at(m, &["metadata", "labels"]).and_then(Value::as_object)
}

/// Answers one selector from the pool (§2.3 of the render notes).
fn answer(sel: &ResourceSelector, pool: &[&Map<String, Value>], opts: &RenderOptions) -> Resources {
    // D36: a selector that names a namespace sees only that namespace's
    // objects, as Crossplane 2 reads them (`crossplane render` 2.2 ignores
    // the namespace); without one, every namespace, as `crossplane render`.
    let candidates = pool.iter().filter(|r| {
        str_at(r, &["apiVersion"]) == Some(sel.api_version.as_str())
            && str_at(r, &["kind"]) == Some(sel.kind.as_str())
            && sel
                .namespace
                .as_deref()
                .is_none_or(|ns| str_at(r, &["metadata", "namespace"]).unwrap_or_default() == ns)
    });
    let items: Vec<Resource> = match &sel.r#match {
        Some(resource_selector::Match::MatchName(name)) => candidates
            .filter(|r| str_at(r, &["metadata", "name"]) == Some(name.as_str()))
            .take(1)
            .map(|r| resource_of(r))
            .collect(),
        Some(resource_selector::Match::MatchLabels(want)) => candidates
            .filter(|r| {
                let have = labels_of(r);
                want.labels.iter().all(|(k, v)| {
                    have.and_then(|h| h.get(k)).and_then(Value::as_str) == Some(v.as_str())
                })
            })
            .map(|r| resource_of(r))
            .collect(),
        None if opts.version.match_all_selectors() => candidates.map(|r| resource_of(r)).collect(),
        // Older releases compared the (empty) name: nothing matched.
        None => candidates
            .filter(|r| str_at(r, &["metadata", "name"]) == Some(""))
            .take(1)
            .map(|r| resource_of(r))
            .collect(),
    };
    Resources { items }
}

fn answer_all(
    reqs: &HashMap<String, ResourceSelector>,
    pool: &[&Map<String, Value>],
    opts: &RenderOptions,
) -> HashMap<String, Resources> {
    reqs.iter()
        .map(|(k, sel)| (k.clone(), answer(sel, pool, opts)))
        .collect()
}

/// A `requirements.requiredResources[]` entry of a pipeline step (v2).
fn bootstrap_selector(m: &Map<String, Value>) -> Option<(String, ResourceSelector)> {
    let name = str_at(m, &["requirementName"])?.to_owned();
    let r#match = if let Some(n) = str_at(m, &["name"]) {
        Some(resource_selector::Match::MatchName(n.to_owned()))
    } else if let Some(Value::Object(labels)) = m.get("matchLabels") {
        Some(resource_selector::Match::MatchLabels(
            function_sdk_rust::proto::v1::MatchLabels {
                labels: labels
                    .iter()
                    .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_owned())))
                    .collect(),
            },
        ))
    } else {
        None
    };
    Some((
        name,
        ResourceSelector {
            api_version: str_at(m, &["apiVersion"]).unwrap_or_default().to_owned(),
            kind: str_at(m, &["kind"]).unwrap_or_default().to_owned(),
            namespace: str_at(m, &["namespace"]).map(str::to_owned),
            r#match,
        },
    ))
}

fn step_credentials(
    step: &Map<String, Value>,
    loaded: &Loaded,
) -> Result<HashMap<String, Credentials>, String> {
    let mut out = HashMap::new();
    let Some(Value::Array(creds)) = step.get("credentials") else {
        return Ok(out);
    };
    for c in creds {
        let Some(c) = c.as_object() else { continue };
        if str_at(c, &["source"]) != Some("Secret") {
            continue;
        }
        let Some(sname) = str_at(c, &["secretRef", "name"]) else {
            continue;
        };
        let sns = str_at(c, &["secretRef", "namespace"]).unwrap_or_default();
        let secret = loaded.secrets.iter().find(|s| {
            str_at(s, &["metadata", "name"]) == Some(sname)
                && str_at(s, &["metadata", "namespace"]).unwrap_or_default() == sns
        });
        let Some(secret) = secret else {
            return Err(format!(
                "cannot get credentials from secret {sname:?}: secret {sname:?} not found"
            ));
        };
        let mut data = HashMap::new();
        if let Some(Value::Object(d)) = secret.get("data") {
            for (k, v) in d {
                let text = v.as_str().unwrap_or_default();
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(text.trim())
                    .map_err(|e| format!("cannot decode secret {sname:?} key {k:?}: {e}"))?;
                data.insert(k.clone(), bytes);
            }
        }
        let name = str_at(c, &["name"]).unwrap_or_default().to_owned();
        out.insert(
            name,
            Credentials {
                source: Some(credentials::Source::CredentialData(CredentialData { data })),
            },
        );
    }
    Ok(out)
}

fn status_text(s: i32) -> &'static str {
    match Status::try_from(s) {
        Ok(Status::ConditionTrue) => "True",
        Ok(Status::ConditionFalse) => "False",
        _ => "Unknown",
    }
}

fn severity_text(s: i32) -> &'static str {
    match Severity::try_from(s) {
        Ok(Severity::Fatal) => "SEVERITY_FATAL",
        Ok(Severity::Warning) => "SEVERITY_WARNING",
        Ok(Severity::Normal) => "SEVERITY_NORMAL",
        _ => "SEVERITY_UNSPECIFIED",
    }
}

fn observed_ready(m: &Map<String, Value>) -> bool {
    let Some(Value::Array(conds)) = get_at(m, &["status", "conditions"]) else {
        return false;
    };
    conds.iter().any(|c| {
        c.get("type").and_then(Value::as_str) == Some("Ready")
            && c.get("status").and_then(Value::as_str) == Some("True")
    })
}

pub(crate) fn run(
    loaded: &Loaded,
    opts: &RenderOptions,
    function: &dyn Function,
    owner: Owner,
) -> Result<PipelineOutcome, RenderError> {
    let v = opts.version;
    // An operation's requests have no observed state at all.
    let observed = (owner == Owner::Composition).then(|| State {
        composite: Some(resource_of(&loaded.xr)),
        resources: loaded
            .observed
            .iter()
            .map(|(k, m)| (k.clone(), resource_of(m)))
            .collect(),
    });
    let mut out = PipelineOutcome {
        desired: State::default(),
        context: Some(json_to_struct(&loaded.context)),
        steps_run: 0,
        conditions: Vec::new(),
        results: Vec::new(),
        warnings: Vec::new(),
        requests: Vec::new(),
        outputs: Vec::new(),
    };
    // The requirement pools.
    let mut extra_pool: Vec<&Map<String, Value>> = loaded.extra.iter().collect();
    let mut required_pool: Vec<&Map<String, Value>> = loaded.required.iter().collect();
    if v.v2() {
        extra_pool.extend(loaded.required.iter());
    }
    if v.sorted_pool() {
        let by_name = |a: &&Map<String, Value>, b: &&Map<String, Value>| {
            str_at(a, &["metadata", "name"]).cmp(&str_at(b, &["metadata", "name"]))
        };
        extra_pool.sort_by(by_name);
        required_pool.sort_by(by_name);
    }
    let meta = if v.capabilities() {
        Some(RequestMeta {
            tag: String::new(),
            capabilities: vec![
                Capability::Capabilities as i32,
                Capability::RequiredResources as i32,
                Capability::Credentials as i32,
                Capability::Conditions as i32,
                Capability::RequiredSchemas as i32,
            ],
        })
    } else if !loaded.schemas.is_empty() {
        // Schemas were given for a release that cannot send them: say only
        // that, so functions ask for schemas and nothing else changes.
        Some(RequestMeta {
            tag: String::new(),
            capabilities: vec![Capability::RequiredSchemas as i32],
        })
    } else {
        None
    };
    let answers_schemas = v.capabilities() || !loaded.schemas.is_empty();

    let empty = Vec::new();
    let steps = match get_at(&loaded.composition, &["spec", "pipeline"]) {
        Some(Value::Array(a)) => a,
        _ => &empty,
    };
    for step_value in steps {
        let Some(step) = step_value.as_object() else {
            return Err(owner.wrap(RenderError::new("a pipeline step is not an object")));
        };
        let step_name = str_at(step, &["step"]).unwrap_or_default().to_owned();
        let fn_name = str_at(step, &["functionRef", "name"])
            .unwrap_or_default()
            .to_owned();
        let step_err = |cause: String| owner.step_error(&step_name, &cause);
        let input_value = step.get("input").filter(|i| !i.is_null());
        let kind = classify(&fn_name, input_value, loaded, opts).map_err(step_err)?;
        match kind {
            StepKind::Foreign => {
                let msg = format!(
                    "pipeline step {step_name:?} uses function {fn_name:?}, which cannot run in-process; skipped (its desired resources, context and results are missing from the output)"
                );
                if opts.fail_on_foreign {
                    return Err(step_err(format!(
                        "function {fn_name:?} is not function-hcl and cannot run in-process (--fail-on-foreign)"
                    )));
                }
                out.warnings.push(msg);
                continue;
            }
            StepKind::AutoReady => {
                out.steps_run += 1;
                for (name, res) in out.desired.resources.iter_mut() {
                    let ready = loaded.observed.get(name).is_some_and(observed_ready);
                    if ready {
                        res.ready = Ready::True as i32;
                    }
                }
                continue;
            }
            StepKind::Ours => {}
        }
        let input = match input_value {
            None => None,
            Some(Value::Object(m)) => Some(json_to_struct(m)),
            Some(_) => {
                let what = match owner {
                    Owner::Composition => "Composition",
                    Owner::Operation => "operation",
                };
                return Err(owner.wrap(RenderError::new(format!(
                    "cannot unmarshal input for {what} pipeline step {step_name:?}"
                ))));
            }
        };
        let creds = if v.credentials() {
            // crossplane render fetches credentials before it runs the step:
            // its error names no step.
            step_credentials(step, loaded).map_err(|e| owner.wrap(RenderError::new(e)))?
        } else {
            HashMap::new()
        };
        let mut bootstrap: HashMap<String, Resources> = HashMap::new();
        if v.v2()
            && let Some(Value::Array(reqs)) = get_at(step, &["requirements", "requiredResources"])
        {
            for r in reqs {
                if let Some((name, sel)) = r.as_object().and_then(bootstrap_selector) {
                    bootstrap.insert(name, answer(&sel, &required_pool, opts));
                }
            }
        }
        let mut req = RunFunctionRequest {
            meta: meta.clone(),
            observed: observed.clone(),
            desired: Some(out.desired.clone()),
            input,
            context: out.context.clone(),
            extra_resources: HashMap::new(),
            credentials: creds,
            required_resources: bootstrap.clone(),
            required_schemas: HashMap::new(),
        };
        let mut previous: Option<Requirements> = None;
        let mut iteration = 0usize;
        let rsp = loop {
            out.requests.push(req.clone());
            let rsp = function.run(&req);
            if rsp
                .results
                .iter()
                .any(|r| r.severity == Severity::Fatal as i32)
            {
                break rsp;
            }
            if rsp.requirements == previous {
                break rsp;
            }
            if iteration >= MAX_REQUIREMENTS_ITERATIONS {
                return Err(step_err(format!(
                    "requirements didn't stabilize after the maximum number of iterations ({MAX_REQUIREMENTS_ITERATIONS})"
                )));
            }
            iteration += 1;
            let reqs = rsp.requirements.clone().unwrap_or_default();
            req.extra_resources = answer_all(&reqs.extra_resources, &extra_pool, opts);
            req.required_resources = bootstrap.clone();
            if v.v2() {
                req.required_resources
                    .extend(answer_all(&reqs.resources, &extra_pool, opts));
            }
            if answers_schemas {
                req.required_schemas = crate::schemas::answer(&loaded.schemas, &reqs.schemas);
            }
            req.context = rsp.context.clone();
            previous = rsp.requirements.clone();
        };
        out.steps_run += 1;
        if let Some(o) = &rsp.output {
            out.outputs.push((step_name.clone(), o.clone()));
        }
        out.desired = rsp.desired.clone().unwrap_or_default();
        out.context = rsp.context.clone();
        if v.conditions() {
            for c in &rsp.conditions {
                out.conditions.push(RecordedCondition {
                    kind: c.r#type.clone(),
                    status: status_text(c.status),
                    reason: c.reason.clone(),
                    message: c.message.clone().unwrap_or_default(),
                });
            }
        }
        for r in &rsp.results {
            if r.severity == Severity::Fatal as i32 {
                let mut err = owner.wrap(RenderError::new(format!(
                    "pipeline step {step_name:?} returned a fatal result: {}",
                    r.message
                )));
                err.frames = frames::for_message(&r.message, input_value);
                return Err(err);
            }
            // A block discarded by an evaluation error is a wrong program,
            // never silent: an error with --strict, else a warning.
            if r.reason.as_deref() == Some(EVALUATION_ERROR_REASON) {
                if opts.strict {
                    let mut err = RenderError::new(format!(
                        "pipeline step {step_name:?} has an evaluation error (--strict): {}",
                        r.message
                    ));
                    err.frames = frames::for_message(&r.message, input_value);
                    return Err(owner.wrap(err));
                }
                if !opts.include_function_results {
                    out.warnings
                        .push(format!("pipeline step {step_name:?}: {}", r.message));
                }
            }
            // Schema violations are what the user asked for with
            // --required-schemas/--crds: shown even without -r.
            if !opts.include_function_results
                && r.reason.as_deref() == Some(SCHEMA_VIOLATION_REASON)
            {
                out.warnings
                    .push(format!("pipeline step {step_name:?}: {}", r.message));
            }
            out.results.push(RecordedResult {
                step: step_name.clone(),
                severity: severity_text(r.severity),
                message: r.message.clone(),
            });
        }
    }
    Ok(out)
}

/// The `reason` of function-hcl's results for blocks discarded by an
/// evaluation error.
pub(crate) const EVALUATION_ERROR_REASON: &str = "EvaluationError";

/// The `reason` of function-hcl's schema violation results.
pub(crate) const SCHEMA_VIOLATION_REASON: &str = "SchemaViolation";

/// The JSON form of a Struct (numbers as doubles; integral ones as integers).
pub(crate) fn struct_json(s: &Struct) -> Map<String, Value> {
    match struct_to_json(s) {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}
