//! Data-driven evaluator tests: every directory under `tests/cases/` is one
//! case with the program (`main.hcl`, several `*.hcl`, `input.txtar`, or a
//! `program` file naming a repository file that is the case's `main.hcl`:
//! the Go function-hcl's examples are stored once, under
//! `tests/render/upstream`),
//! the request (`request.yaml`, optional) and the full expected result
//! (`expected.yaml`), read by `fnhcl_cases::eval_case` (which the
//! differential tester of `fnhcl-bench` shares). `FNHCL_BLESS=1` rewrites
//! the expectations (review the diff against the spec before committing).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap};
use fnhcl_eval::{ObservedResource, Output, Request, SelectorMatch};
use fnhcl_value::{Value, from_serde_json};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Map, Value as Json};

fn main() {
    let args = Arguments::from_args();
    let trials = fnhcl_cases::eval_case::eval_case_dirs()
        .into_iter()
        .map(|dir| Trial::test(fnhcl_cases::case_name(&dir), move || run_case(&dir)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn run_case(dir: &Path) -> Result<(), Failed> {
    let case = fnhcl_cases::eval_case::load(dir)?;
    let mut sources = SourceMap::new();
    for (name, text) in case.files {
        sources.add(name, text);
    }
    let sources = Arc::new(sources);
    let request = match &case.request {
        Some(text) => parse_request(&load_yaml(text)?)?,
        None => Request::default(),
    };
    // A big stack, as the server gives evaluation threads.
    let actual = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || run_program(sources, &request))
        .map_err(|e| format!("spawn: {e}"))?
        .join()
        .map_err(|_| Failed::from("evaluation panicked"))?;
    // Compared by meaning: the expectation is read and written again.
    fnhcl_cases::check_or_bless_with(&case.expected, &emit_yaml(&actual), |text| {
        Ok(emit_yaml(&load_yaml(text)?))
    })?;
    Ok(())
}

fn run_program(sources: Arc<SourceMap>, request: &Request) -> Json {
    let program = match fnhcl_eval::compile(sources.clone()) {
        Ok(p) => p,
        Err(diags) => {
            let fatal = render_fatal(&diags, &sources);
            return json_obj(vec![
                ("fatal", Json::String(fatal)),
                ("errors", diag_list(&diags, &sources)),
            ]);
        }
    };
    let limits = fnhcl_eval::Limits::default();
    let result_of = |r: Result<Output, fnhcl_eval::Fatal>| match r {
        Ok(out) => output_json(&out),
        Err(f) => json_obj(vec![
            ("fatal", Json::String(f.message())),
            ("errors", diag_list(&f.diagnostics, &f.sources)),
        ]),
    };
    let run = |request: &Request, tree_walk: bool| {
        let (r, steps) = fnhcl_eval::evaluate_for_comparison(&program, request, &limits, tree_walk);
        (result_of(r), steps)
    };
    let result = |request: &Request| run(request, false).0;
    let (whole, steps) = run(request, false);
    // The compiled expressions against the tree walk of their ASTs: the
    // same output (values, diagnostics with their spans) and steps.
    let (tree, tree_steps) = run(request, true);
    if (&tree, tree_steps) != (&whole, steps) {
        return json_obj(vec![
            ("compiled", whole),
            ("compiled steps", Json::from(steps)),
            ("tree walk", tree),
            ("tree walk steps", Json::from(tree_steps)),
        ]);
    }
    // The program cannot tell the request converted under its demand
    // (only what it reads) from the whole one.
    let projected = result(&program.demand().project(request));
    if projected != whole {
        return json_obj(vec![
            ("whole request", whole),
            ("request converted under the program's demand", projected),
        ]);
    }
    whole
}

fn render_fatal(diags: &[Diagnostic], sources: &SourceMap) -> String {
    fnhcl_eval::fatal_message(diags, sources)
}

fn diag_line(d: &Diagnostic, sources: &SourceMap) -> String {
    let mut s = d.to_hcl_string(sources);
    for l in &d.labels {
        s.push_str(&format!(" [{}: {}]", sources.range_text(l.span), l.message));
    }
    s
}

fn diag_list(diags: &[Diagnostic], sources: &SourceMap) -> Json {
    Json::Array(
        diags
            .iter()
            .map(|d| Json::String(diag_line(d, sources)))
            .collect(),
    )
}

fn output_json(out: &Output) -> Json {
    let mut m: Vec<(&str, Json)> = Vec::new();
    let resources: Vec<Json> = out
        .resources
        .iter()
        .map(|r| {
            let mut o = vec![("name", Json::String(r.name.clone()))];
            if let Some(ready) = r.ready {
                o.push(("ready", Json::String(ready.as_str().to_owned())));
            }
            if r.kept {
                o.push(("kept", Json::Bool(true)));
            }
            if !r.depends_on.is_empty() {
                let deps = r.depends_on.iter().map(|d| {
                    Json::String(match &d.target {
                        fnhcl_eval::DependencyTarget::Resource(n) => {
                            format!("{}: resource {n}", d.name)
                        }
                        fnhcl_eval::DependencyTarget::Collection(n) => {
                            format!("{}: collection {n}", d.name)
                        }
                        fnhcl_eval::DependencyTarget::Instance(p) => {
                            format!("{}: instance {p}", d.name)
                        }
                    })
                });
                o.push(("depends_on", Json::Array(deps.collect())));
            }
            o.push(("body", value_to_json(&r.body)));
            json_obj(o)
        })
        .collect();
    if !resources.is_empty() {
        m.push(("resources", Json::Array(resources)));
    }
    if let Some(s) = &out.composite_status {
        m.push(("status", value_to_json(s)));
    }
    if !out.composite_connection.is_empty() {
        m.push((
            "connection",
            Json::Object(
                out.composite_connection
                    .iter()
                    .map(|(k, v)| (k.clone(), Json::String(String::from_utf8_lossy(v).into())))
                    .collect(),
            ),
        ));
    }
    if !out.context.is_empty() {
        m.push((
            "context",
            Json::Object(
                out.context
                    .iter()
                    .map(|(k, v)| (k.clone(), value_to_json(v)))
                    .collect(),
            ),
        ));
    }
    if !out.requirements.is_empty() {
        let mut reqs = Map::new();
        for (name, s) in &out.requirements {
            let mut o = vec![
                ("apiVersion", Json::String(s.api_version.clone())),
                ("kind", Json::String(s.kind.clone())),
            ];
            if let Some(ns) = &s.namespace {
                o.push(("namespace", Json::String(ns.clone())));
            }
            match &s.matches {
                SelectorMatch::Name(n) => o.push(("matchName", Json::String(n.clone()))),
                SelectorMatch::Labels(l) => o.push((
                    "matchLabels",
                    Json::Object(
                        l.iter()
                            .map(|(k, v)| (k.clone(), Json::String(v.clone())))
                            .collect(),
                    ),
                )),
            }
            reqs.insert(name.clone(), json_obj(o));
        }
        m.push(("requirements", Json::Object(reqs)));
    }
    if !out.discards.is_empty() {
        m.push((
            "discards",
            Json::Array(
                out.discards
                    .iter()
                    .map(|d| Json::String(format!("{}: {}", d.reason.as_str(), d.message())))
                    .collect(),
            ),
        ));
    }
    if !out.warnings.is_empty() {
        m.push(("warnings", diag_list(&out.warnings, &out.sources)));
    }
    if !out.conditions.is_empty() {
        m.push((
            "conditions",
            Json::Array(
                out.conditions
                    .iter()
                    .map(|c| Json::String(format!("{c:?}")))
                    .collect(),
            ),
        ));
    }
    if !out.results.is_empty() {
        m.push((
            "results",
            Json::Array(
                out.results
                    .iter()
                    .map(|r| Json::String(format!("{r:?}")))
                    .collect(),
            ),
        ));
    }
    if let Some(r) = out.composite_ready {
        m.push(("composite_ready", Json::String(r.as_str().to_owned())));
    }
    if !out.gating.is_empty() {
        m.push((
            "not_ready_because",
            Json::Array(out.gating.iter().cloned().map(Json::String).collect()),
        ));
    }
    let fr = fnhcl_eval::fully_resolved(out);
    m.push(("fully_resolved", Json::String(fr.message)));
    json_obj(m)
}

fn json_obj(items: Vec<(&str, Json)>) -> Json {
    Json::Object(items.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
}

// ---- request ----

fn parse_request(j: &Json) -> Result<Request, Failed> {
    let mut r = Request::default();
    let Json::Object(m) = j else {
        return Ok(r);
    };
    for (k, v) in m {
        match k.as_str() {
            "composite" => r.composite = Some(from_serde_json(v)),
            "composite_connection" => r.composite_connection = bytes_map(v),
            "context" => {
                if let Json::Object(c) = v {
                    r.context = c
                        .iter()
                        .map(|(k, v)| (k.clone(), from_serde_json(v)))
                        .collect();
                }
            }
            "observed" => {
                if let Json::Object(o) = v {
                    for (name, res) in o {
                        let body = res
                            .get("body")
                            .map(from_serde_json)
                            .unwrap_or_else(Value::empty_object);
                        let connection_details =
                            res.get("connection").map(bytes_map).unwrap_or_default();
                        r.observed.insert(
                            name.clone(),
                            ObservedResource {
                                body,
                                connection_details,
                            },
                        );
                    }
                }
            }
            "extra_resources" => {
                if let Json::Object(o) = v {
                    for (name, items) in o {
                        let items = match items {
                            Json::Array(a) => Some(a.iter().map(from_serde_json).collect()),
                            _ => None,
                        };
                        r.extra_resources.insert(name.clone(), items);
                    }
                }
            }
            other => return Err(format!("unknown request key {other}").into()),
        }
    }
    Ok(r)
}

fn bytes_map(v: &Json) -> BTreeMap<String, Vec<u8>> {
    match v {
        Json::Object(m) => m
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().unwrap_or_default().as_bytes().to_vec(),
                )
            })
            .collect(),
        _ => BTreeMap::new(),
    }
}

fn value_to_json(v: &Value) -> Json {
    match v.unmarked() {
        Value::Null(_) => Json::Null,
        Value::Unknown(_) => Json::String("<unknown>".into()),
        Value::Bool(b) => Json::Bool(*b),
        Value::Number(n) => match n.to_i64() {
            Some(i) if n.is_integer() => Json::from(i),
            _ => serde_json::Number::from_f64(n.to_f64())
                .map(Json::Number)
                .unwrap_or(Json::Null),
        },
        Value::String(s) => Json::String(s.to_string()),
        other => {
            if let Some(items) = other.as_seq() {
                Json::Array(items.iter().map(value_to_json).collect())
            } else if let Some(m) = other.as_entries() {
                Json::Object(
                    m.iter()
                        .map(|(k, v)| (k.to_string(), value_to_json(v)))
                        .collect(),
                )
            } else {
                Json::Null
            }
        }
    }
}

// ---- YAML ----

fn load_yaml(text: &str) -> Result<Json, String> {
    fnhcl_yaml::load_first(text)
        .map(Option::unwrap_or_default)
        .map_err(|e| format!("yaml: {e}"))
}

fn emit_yaml(j: &Json) -> String {
    fnhcl_yaml::to_yaml(j).unwrap_or_else(|_| format!("{j:#}"))
}
