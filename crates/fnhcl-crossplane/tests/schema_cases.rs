//! Data-driven runtime cases for schema validation: every directory under
//! `tests/schema_cases/` is one reconcile as Crossplane runs it.
//!
//! - `request.yaml`: the first RunFunctionRequest (protojson, as YAML).
//! - `schemas.yaml` (optional): a list of CRD/XRD/OpenAPI files, relative
//!   to the case. When present, the harness answers the response's
//!   `requirements.schemas` from them as Crossplane does (an empty schema
//!   for a kind they do not define) and calls the function again, up to
//!   five times, until the requirements stop changing or a result is fatal.
//! - `expected.yaml`: the final response, with `desired` reduced to the
//!   names of the desired resources (bodies are the evaluator's business),
//!   and `calls`: how many calls the reconcile took.
//!
//! `FNHCL_BLESS=1` rewrites the expectations.

use std::collections::HashMap;
use std::path::Path;

use fnhcl_crossplane::Function;
use fnhcl_crossplane::proto::{RunFunctionRequest, RunFunctionResponse, Schema};
use fnhcl_schema::SchemaSet;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Value as Json, json};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schema_cases");
    let trials = fnhcl_cases::discover(&root, Path::is_dir)
        .into_iter()
        .map(|dir| Trial::test(fnhcl_cases::case_name(&dir), move || run_case(&dir)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

fn read(path: &Path) -> Result<String, Failed> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()).into())
}

fn load_schemas(dir: &Path) -> Result<Option<SchemaSet>, Failed> {
    let path = dir.join("schemas.yaml");
    if !path.is_file() {
        return Ok(None);
    }
    let list = parse_one(&read(&path)?)?;
    let mut set = SchemaSet::new();
    for file in list.as_array().ok_or("schemas.yaml: want a list")? {
        let file = file.as_str().ok_or("schemas.yaml: want file names")?;
        let p = dir.join(file);
        set.load_text(file, &read(&p)?).map_err(|e| e.to_string())?;
    }
    Ok(Some(set))
}

/// The response as compared: `desired.resources` reduced to their names.
fn summary(rsp: &RunFunctionResponse, calls: usize) -> Result<Json, Failed> {
    let mut json = serde_json::to_value(rsp).map_err(|e| e.to_string())?;
    if let Some(resources) = json
        .pointer_mut("/desired/resources")
        .and_then(Json::as_object_mut)
    {
        let mut names: Vec<String> = resources.keys().cloned().collect();
        names.sort();
        json["desired"]["resources"] = json!(names);
    }
    json["calls"] = json!(calls);
    Ok(json)
}

fn run_case(dir: &Path) -> Result<(), Failed> {
    let request: RunFunctionRequest =
        serde_json::from_value(parse_one(&read(&dir.join("request.yaml"))?)?)
            .map_err(|e| format!("request.yaml: {e}"))?;
    let schemas = load_schemas(dir)?;
    let function = Function::default();
    let mut req = request.clone();
    let mut rsp = function.run(&req);
    let mut calls = 1;
    if let Some(set) = &schemas {
        let mut previous = None;
        let fatal = |r: &RunFunctionResponse| {
            r.results
                .iter()
                .any(|x| x.severity == fnhcl_crossplane::proto::Severity::Fatal as i32)
        };
        // As Crossplane: stop at a fatal result or when the requirements
        // stop changing.
        while !fatal(&rsp) && rsp.requirements != previous && calls < 5 {
            previous = rsp.requirements.clone();
            let wanted = rsp
                .requirements
                .as_ref()
                .map(|r| r.schemas.clone())
                .unwrap_or_default();
            req.required_schemas = wanted
                .iter()
                .map(|(key, sel)| {
                    let openapi_v3 = set
                        .raw(&sel.api_version, &sel.kind)
                        .and_then(fnhcl_crossplane::convert::json_to_struct);
                    (key.clone(), Schema { openapi_v3 })
                })
                .collect::<HashMap<_, _>>();
            rsp = function.run(&req);
            calls += 1;
        }
    }
    // The same request gives the same response.
    assert_eq!(function.run(&req), rsp, "a second run differs");
    let actual = summary(&rsp, calls)?;
    // Compared by meaning: the expectation is read and written again.
    let expected_path = dir.join("expected.yaml");
    fnhcl_cases::check_or_bless_with(&expected_path, &to_yaml(&actual), |text| {
        Ok(to_yaml(&parse_one(text)?))
    })?;
    Ok(())
}

fn parse_one(text: &str) -> Result<serde_json::Value, String> {
    fnhcl_yaml::load_first(text)
        .map(Option::unwrap_or_default)
        .map_err(|e| e.to_string())
}

fn to_yaml(v: &serde_json::Value) -> String {
    fnhcl_yaml::to_yaml(v).expect("a response is not that deep")
}
