//! Renderer behaviour, driven by a fake function whose input says what to
//! return. (The real function's output is covered by the render cases in
//! `tests/render/`.)
//!
//! Size: unit tests only, one per behaviour of the renderer.

use std::cell::RefCell;

use function_sdk_rust::proto::v1::{
    Condition, Ready, Requirements, Resource, ResourceSelector, Result as PbResult,
    RunFunctionRequest, RunFunctionResponse, Severity, State, Status, resource_selector,
};
use function_sdk_rust::resource::{json_to_struct, struct_to_json};
use serde_json::{Map, Value, json};

use crate::{
    CrossplaneVersion, RenderError, RenderInputs, RenderOptions, RenderOutput, Source, render,
};

const XR: &str =
    "apiVersion: example.com/v1\nkind: XThing\nmetadata:\n  name: thing-1\nspec:\n  region: eu\n";

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The fake function: reads instructions from its input.
fn fake(req: &RunFunctionRequest) -> RunFunctionResponse {
    let input = req
        .input
        .as_ref()
        .map(struct_to_json)
        .unwrap_or(Value::Null);
    let mut desired = req.desired.clone().unwrap_or_default();
    let mut rsp = RunFunctionResponse {
        context: req.context.clone(),
        ..RunFunctionResponse::default()
    };
    if let Some(Value::Object(res)) = input.get("resources") {
        for (k, v) in res {
            desired.resources.insert(
                k.clone(),
                Resource {
                    resource: Some(json_to_struct(&obj(v.clone()))),
                    ..Resource::default()
                },
            );
        }
    }
    if let Some(Value::Object(ready)) = input.get("ready") {
        for (k, v) in ready {
            if let Some(r) = desired.resources.get_mut(k) {
                r.ready = if v == &json!(true) {
                    Ready::True as i32
                } else {
                    Ready::False as i32
                };
            }
        }
    }
    if let Some(status) = input.get("status") {
        desired.composite = Some(Resource {
            resource: Some(json_to_struct(&obj(json!({ "status": status })))),
            ready: match input.get("compositeReady") {
                Some(Value::Bool(true)) => Ready::True as i32,
                Some(Value::Bool(false)) => Ready::False as i32,
                _ => Ready::Unspecified as i32,
            },
            ..Resource::default()
        });
    }
    if let Some(Value::Object(reqs)) = input.get("require") {
        let mut r = Requirements::default();
        for (name, sel) in reqs {
            let selector = ResourceSelector {
                api_version: sel["apiVersion"].as_str().unwrap_or_default().to_owned(),
                kind: sel["kind"].as_str().unwrap_or_default().to_owned(),
                namespace: None,
                r#match: match (sel.get("matchName"), sel.get("matchLabels")) {
                    (Some(Value::String(n)), _) => {
                        Some(resource_selector::Match::MatchName(n.clone()))
                    }
                    (_, Some(Value::Object(l))) => Some(resource_selector::Match::MatchLabels(
                        function_sdk_rust::proto::v1::MatchLabels {
                            labels: l
                                .iter()
                                .map(|(k, v)| {
                                    (k.clone(), v.as_str().unwrap_or_default().to_owned())
                                })
                                .collect(),
                        },
                    )),
                    _ => None,
                },
            };
            if input.get("useResources") == Some(&json!(true)) {
                r.resources.insert(name.clone(), selector);
            } else {
                r.extra_resources.insert(name.clone(), selector);
            }
            // Report what arrived, as a context key.
            let got = req
                .extra_resources
                .get(name)
                .or_else(|| req.required_resources.get(name))
                .map(|rs| {
                    Value::Array(
                        rs.items
                            .iter()
                            .map(|i| {
                                i.resource
                                    .as_ref()
                                    .map(struct_to_json)
                                    .and_then(|v| v.pointer("/metadata/name").cloned())
                                    .unwrap_or(Value::Null)
                            })
                            .collect(),
                    )
                });
            let ctx = rsp.context.get_or_insert_default();
            let mut m = struct_to_json(ctx);
            if let Value::Object(m) = &mut m {
                m.insert(format!("got-{name}"), got.unwrap_or(Value::Null));
                *ctx = json_to_struct(m);
            }
        }
        if input.get("unstable") == Some(&json!(true)) {
            // Different every call: never stabilises.
            let n = req.context.as_ref().map_or(0, |c| c.fields.len());
            r.extra_resources.insert(
                format!("x{n}"),
                ResourceSelector {
                    api_version: "v1".into(),
                    kind: "ConfigMap".into(),
                    namespace: None,
                    r#match: None,
                },
            );
            let ctx = rsp.context.get_or_insert_default();
            ctx.fields.insert(
                format!("k{n}"),
                pbjson_types::Value {
                    kind: Some(pbjson_types::value::Kind::BoolValue(true)),
                },
            );
        }
        rsp.requirements = Some(r);
    }
    if let Some(Value::Object(set)) = input.get("context") {
        let ctx = rsp.context.get_or_insert_default();
        let mut m = struct_to_json(ctx);
        if let Value::Object(m) = &mut m {
            for (k, v) in set {
                m.insert(k.clone(), v.clone());
            }
            *ctx = json_to_struct(m);
        }
    }
    if input.get("clearContext") == Some(&json!(true)) {
        rsp.context = Some(pbjson_types::Struct::default());
    }
    if let Some(Value::Array(conds)) = input.get("conditions") {
        for c in conds {
            rsp.conditions.push(Condition {
                r#type: c["type"].as_str().unwrap_or_default().to_owned(),
                status: match c["status"].as_str() {
                    Some("True") => Status::ConditionTrue as i32,
                    Some("False") => Status::ConditionFalse as i32,
                    _ => Status::ConditionUnknown as i32,
                },
                reason: c["reason"].as_str().unwrap_or_default().to_owned(),
                message: c.get("message").and_then(Value::as_str).map(str::to_owned),
                target: None,
            });
        }
    }
    if let Some(Value::Array(results)) = input.get("results") {
        for r in results {
            rsp.results.push(PbResult {
                severity: match r["severity"].as_str() {
                    Some("Fatal") => Severity::Fatal as i32,
                    Some("Warning") => Severity::Warning as i32,
                    _ => Severity::Normal as i32,
                },
                message: r["message"].as_str().unwrap_or_default().to_owned(),
                reason: None,
                target: None,
            });
        }
    }
    rsp.desired = Some(State {
        composite: desired.composite,
        resources: desired.resources,
    });
    rsp
}

fn composition(steps: Value) -> String {
    let c = json!({
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": "c"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "example.com/v1", "kind": "XThing"},
            "mode": "Pipeline",
            "pipeline": steps,
        },
    });
    crate::yaml::to_yaml(&c).unwrap()
}

/// A function-hcl step (recognised by its input kind) with instructions.
fn step(name: &str, mut input: Value) -> Value {
    input["apiVersion"] = json!("function-hcl/v1");
    input["kind"] = json!("HclInput");
    json!({"step": name, "functionRef": {"name": "fn-hcl"}, "input": input})
}

fn inputs(steps: Value) -> RenderInputs {
    RenderInputs {
        xr: Some(Source::new("xr.yaml", XR)),
        composition: Some(Source::new("composition.yaml", composition(steps))),
        ..RenderInputs::default()
    }
}

fn opts() -> RenderOptions {
    RenderOptions {
        include_function_results: true,
        include_context: true,
        ..RenderOptions::default()
    }
}

fn run(i: &RenderInputs, o: &RenderOptions) -> Result<RenderOutput, RenderError> {
    render(i, o, &fake)
}

fn doc<'a>(out: &'a RenderOutput, kind: &str) -> &'a Value {
    out.documents
        .iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {:#?}", out.documents))
}

fn conditions(out: &RenderOutput) -> Vec<(String, String, String)> {
    doc(out, "XThing")["status"]["conditions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["type"].as_str().unwrap().to_owned(),
                c["status"].as_str().unwrap().to_owned(),
                c["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn composed_resources_are_decorated_and_sorted() {
    let i = inputs(json!([step(
        "s",
        json!({"resources": {
            "b": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm-b", "labels": {"x": "y"}}},
            "a": {"apiVersion": "v1", "kind": "ConfigMap"},
        }})
    )]));
    let out = run(&i, &opts()).unwrap();
    let yaml = out.to_yaml().unwrap();
    let want = r#"---
apiVersion: example.com/v1
kind: XThing
metadata:
  name: thing-1
status:
  conditions:
  - lastTransitionTime: "2024-01-01T00:00:00Z"
    message: 'Unready resources: a, b'
    reason: Creating
    status: "False"
    type: Ready
---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    crossplane.io/composition-resource-name: a
  generateName: thing-1-
  labels:
    crossplane.io/composite: thing-1
  ownerReferences:
  - apiVersion: example.com/v1
    blockOwnerDeletion: true
    controller: true
    kind: XThing
    name: thing-1
    uid: ""
---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    crossplane.io/composition-resource-name: b
  generateName: thing-1-
  labels:
    crossplane.io/composite: thing-1
    x: "y"
  name: cm-b
  ownerReferences:
  - apiVersion: example.com/v1
    blockOwnerDeletion: true
    controller: true
    kind: XThing
    name: thing-1
    uid: ""
---
apiVersion: render.crossplane.io/v1beta1
fields: null
kind: Context
"#;
    assert_eq!(yaml, want);
    // The request: observed XR as loaded, empty desired, empty context, no meta.
    let req = &out.requests[0];
    assert!(req.meta.is_none());
    assert_eq!(
        struct_to_json(
            req.observed
                .as_ref()
                .unwrap()
                .composite
                .as_ref()
                .unwrap()
                .resource
                .as_ref()
                .unwrap()
        )["spec"],
        json!({"region": "eu"})
    );
    assert_eq!(req.desired, Some(State::default()));
    assert_eq!(req.context, Some(pbjson_types::Struct::default()));
}

#[test]
fn ready_resources_make_the_xr_available_and_conditions_follow() {
    let i = inputs(json!([step(
        "s",
        json!({
            "resources": {"a": {"apiVersion": "v1", "kind": "ConfigMap"}},
            "ready": {"a": true},
            "status": {"x": 1},
            "conditions": [
                {"type": "Custom", "status": "False", "reason": "Why", "message": "m"},
                {"type": "Ready", "status": "False", "reason": "Ignored"},
                {"type": "Synced", "status": "False", "reason": "Ignored"},
            ],
        })
    )]));
    let out = run(&i, &opts()).unwrap();
    assert_eq!(
        conditions(&out),
        vec![
            ("Ready".into(), "True".into(), "Available".into()),
            ("Custom".into(), "False".into(), "Why".into())
        ]
    );
    assert_eq!(doc(&out, "XThing")["status"]["x"], json!(1));
    // Conditions need v1.19+.
    let o = RenderOptions {
        version: "1.18".parse().unwrap(),
        ..opts()
    };
    let out = run(&i, &o).unwrap();
    assert_eq!(conditions(&out).len(), 1);
}

#[test]
fn results_are_kept_in_order_and_fatal_aborts() {
    let i = inputs(json!([
        step(
            "one",
            json!({"results": [{"severity": "Warning", "message": "w1"}, {"severity": "Normal", "message": "n1"}]})
        ),
        step(
            "two",
            json!({"results": [{"severity": "Warning", "message": "w2"}]})
        ),
    ]));
    let out = run(&i, &opts()).unwrap();
    let results: Vec<_> = out
        .documents
        .iter()
        .filter(|d| d["kind"] == "Result")
        .map(|d| {
            (
                d["step"].as_str().unwrap(),
                d["severity"].as_str().unwrap(),
                d["message"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("one", "SEVERITY_WARNING", "w1"),
            ("one", "SEVERITY_NORMAL", "n1"),
            ("two", "SEVERITY_WARNING", "w2")
        ]
    );
    // Without -r no Result documents.
    let o = RenderOptions {
        include_function_results: false,
        ..opts()
    };
    assert!(
        !run(&i, &o)
            .unwrap()
            .documents
            .iter()
            .any(|d| d["kind"] == "Result")
    );

    let mut fatal_input =
        json!({"results": [{"severity": "Fatal", "message": "main.hcl:2,7-10: boom; it broke"}]});
    fatal_input["hcl"] = json!("-- main.hcl --\nlocals {\n  a = b.c\n}\n");
    let i = inputs(json!([step("first", json!({})), step("bad", fatal_input)]));
    let e = run(&i, &opts()).unwrap_err();
    assert_eq!(
        e.message,
        "cannot render composite resource: pipeline step \"bad\" returned a fatal result: main.hcl:2,7-10: boom; it broke"
    );
    let frames = e.frames.unwrap();
    assert!(
        frames.contains("a = b.c") && frames.contains("boom"),
        "{frames}"
    );
}

#[test]
fn requirements_loop_answers_from_extra_resources() {
    let extra = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, labels: {env: prod}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {env: prod}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, labels: {env: dev}}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: a, labels: {env: prod}}\n";
    let mut i = inputs(json!([step(
        "s",
        json!({"require": {
            "prod": {"apiVersion": "v1", "kind": "ConfigMap", "matchLabels": {"env": "prod"}},
            "byname": {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "c"},
            "none": {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "zzz"},
        }})
    )]));
    i.extra_resources = vec![Source::new("extra.yaml", extra)];
    let out = run(&i, &opts()).unwrap();
    assert_eq!(
        out.requests.len(),
        2,
        "called again once the requirements are answered, then stable"
    );
    assert!(out.requests[0].extra_resources.is_empty());
    let fields = &doc(&out, "Context")["fields"];
    // v1.20 keeps file order.
    assert_eq!(fields["got-prod"], json!(["b", "a"]));
    assert_eq!(fields["got-byname"], json!(["c"]));
    assert_eq!(fields["got-none"], json!([]));

    // 2.1+ sorts the pool by name.
    let o = RenderOptions {
        version: "2.1".parse().unwrap(),
        ..opts()
    };
    let out = run(&i, &o).unwrap();
    assert_eq!(
        doc(&out, "Context")["fields"]["got-prod"],
        json!(["a", "b"])
    );
}

#[test]
fn requirements_without_resources_answer_empty() {
    let i = inputs(json!([step(
        "s",
        json!({"require": {
            "cfg": {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "x"},
        }})
    )]));
    let out = run(&i, &opts()).unwrap();
    assert_eq!(out.requests.len(), 2);
    assert_eq!(out.requests[1].extra_resources["cfg"].items.len(), 0);
    assert_eq!(doc(&out, "Context")["fields"]["got-cfg"], json!([]));
}

#[test]
fn v2_required_resources_and_bootstrap() {
    let req_pool = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: boot}\n";
    let mut s = step(
        "s",
        json!({"useResources": true, "require": {
            "r": {"apiVersion": "v1", "kind": "ConfigMap", "matchName": "boot"},
        }}),
    );
    s["requirements"] = json!({"requiredResources": [
        {"requirementName": "pre", "apiVersion": "v1", "kind": "ConfigMap", "name": "boot"}
    ]});
    let mut i = inputs(json!([s]));
    i.required_resources = vec![Source::new("req.yaml", req_pool)];
    let o = RenderOptions {
        version: "2.2".parse().unwrap(),
        ..opts()
    };
    let out = run(&i, &o).unwrap();
    let first = &out.requests[0];
    assert_eq!(first.required_resources["pre"].items.len(), 1);
    assert_eq!(first.meta.as_ref().unwrap().capabilities.len(), 5);
    assert_eq!(doc(&out, "Context")["fields"]["got-r"], json!(["boot"]));
    // v1.20 ignores requirements.resources: the function sees nothing.
    let out = run(&i, &opts()).unwrap();
    assert!(out.requests[0].required_resources.is_empty());
}

#[test]
fn unstable_requirements_fail_after_five_iterations() {
    let i = inputs(json!([step("s", json!({"require": {}, "unstable": true}))]));
    let e = run(&i, &opts()).unwrap_err();
    assert_eq!(
        e.message,
        "cannot render composite resource: cannot run pipeline step \"s\": requirements didn't stabilize after the maximum number of iterations (5)"
    );
}

#[test]
fn context_flows_between_steps_and_from_flags() {
    let mut i = inputs(json!([
        step("one", json!({"context": {"a": 1}})),
        step("two", json!({"context": {"b": "x"}})),
    ]));
    i.context_values = vec![("v".into(), "{\"k\": [1, 2]}".into())];
    i.context_files = vec![("f".into(), Source::new("ctx.json", "\"from-file\""))];
    let out = run(&i, &opts()).unwrap();
    assert_eq!(
        doc(&out, "Context")["fields"],
        json!({"a": 1, "b": "x", "v": {"k": [1, 2]}, "f": "from-file"})
    );
    let first_ctx = struct_to_json(out.requests[0].context.as_ref().unwrap());
    assert_eq!(first_ctx, json!({"v": {"k": [1, 2]}, "f": "from-file"}));
    // Not JSON before 2.2; YAML from 2.2.
    i.context_values = vec![("v".into(), "bare".into())];
    let e = run(&i, &opts()).unwrap_err();
    assert!(e.message.contains("context value for key \"v\""), "{e}");
    let o = RenderOptions {
        version: "2.2".parse().unwrap(),
        ..opts()
    };
    assert_eq!(
        doc(&run(&i, &o).unwrap(), "Context")["fields"]["v"],
        json!("bare")
    );
    // A function that empties the context prints `fields: null`.
    let i = inputs(json!([step("one", json!({"clearContext": true}))]));
    assert_eq!(
        doc(&run(&i, &opts()).unwrap(), "Context")["fields"],
        Value::Null
    );
}

#[test]
fn foreign_steps_are_skipped_or_rejected() {
    let foreign = json!({"step": "templating", "functionRef": {"name": "function-go-templating"},
                         "input": {"apiVersion": "gotemplating.fn.crossplane.io/v1beta1", "kind": "GoTemplate"}});
    let i = inputs(json!([
        step(
            "one",
            json!({"resources": {"a": {"apiVersion": "v1", "kind": "ConfigMap"}}})
        ),
        foreign
    ]));
    let out = run(&i, &opts()).unwrap();
    assert_eq!(out.warnings.len(), 1);
    assert!(
        out.warnings[0].contains("\"templating\"")
            && out.warnings[0].contains("function-go-templating")
    );
    assert!(out.documents.iter().any(|d| d["kind"] == "ConfigMap"));
    let o = RenderOptions {
        fail_on_foreign: true,
        ..opts()
    };
    let e = run(&i, &o).unwrap_err();
    assert!(
        e.message.starts_with(
            "cannot render composite resource: cannot run pipeline step \"templating\""
        ),
        "{e}"
    );
    // Naming the function makes it ours.
    let o = RenderOptions {
        function_names: vec!["function-go-templating".into()],
        ..opts()
    };
    assert!(run(&i, &o).unwrap().warnings.is_empty());
}

#[test]
fn auto_ready_is_emulated() {
    let auto = json!({"step": "ready", "functionRef": {"name": "function-auto-ready"}});
    let mut i = inputs(json!([
        step(
            "one",
            json!({"resources": {
                "a": {"apiVersion": "v1", "kind": "ConfigMap"},
                "b": {"apiVersion": "v1", "kind": "ConfigMap"},
            }})
        ),
        auto,
    ]));
    let observed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: real-a\n  annotations: {crossplane.io/composition-resource-name: a}\nstatus:\n  conditions: [{type: Ready, status: \"True\"}]\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: real-b\n  annotations: {crossplane.io/composition-resource-name: b}\nstatus:\n  conditions: [{type: Ready, status: \"False\"}]\n";
    i.observed = vec![Source::new("observed.yaml", observed)];
    let out = run(&i, &opts()).unwrap();
    assert!(out.warnings.is_empty());
    let xr = doc(&out, "XThing");
    assert_eq!(
        xr["status"]["conditions"][0]["message"],
        json!("Unready resources: b")
    );
    // Observed names are copied onto the composed resources.
    let names: Vec<_> = out
        .documents
        .iter()
        .filter(|d| d["kind"] == "ConfigMap")
        .map(|d| d["metadata"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["real-a", "real-b"]);

    // With a Functions file, the package decides.
    i.functions = Some(vec![Source::new(
        "functions.yaml",
        "apiVersion: pkg.crossplane.io/v1beta1\nkind: Function\nmetadata: {name: fn-hcl}\nspec: {package: xpkg.upbound.io/crossplane-contrib/function-hcl:v0.2.0}\n---\napiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: function-auto-ready}\nspec: {package: xpkg.upbound.io/crossplane-contrib/function-auto-ready:v0.5.0}\n",
    )]);
    let out = run(&i, &opts()).unwrap();
    assert!(out.warnings.is_empty());
    // A step whose function is missing from the Functions file fails.
    i.functions = Some(vec![Source::new(
        "functions.yaml",
        "apiVersion: pkg.crossplane.io/v1\nkind: Function\nmetadata: {name: fn-hcl}\nspec: {package: x/function-hcl:v1}\n",
    )]);
    let e = run(&i, &opts()).unwrap_err();
    assert!(
        e.message.contains(
            "unknown Function \"function-auto-ready\" - does it exist in your Functions file?"
        ),
        "{e}"
    );
}

#[test]
fn v2_generate_name_and_composite_readiness() {
    let i = inputs(json!([step(
        "s",
        json!({
            "resources": {
                "named": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "n"}},
                "unnamed": {"apiVersion": "v1", "kind": "ConfigMap"},
            },
            "status": {},
            "compositeReady": true,
        })
    )]));
    let out = run(&i, &opts()).unwrap();
    let gen_names = |out: &RenderOutput| -> Vec<Value> {
        out.documents
            .iter()
            .filter(|d| d["kind"] == "ConfigMap")
            .map(|d| {
                d["metadata"]
                    .get("generateName")
                    .cloned()
                    .unwrap_or(Value::Null)
            })
            .collect()
    };
    assert_eq!(gen_names(&out), vec![json!("thing-1-"), json!("thing-1-")]);
    assert_eq!(
        conditions(&out)[0].1,
        "False",
        "v1.20 ignores composite readiness"
    );
    let o = RenderOptions {
        version: "2.0".parse().unwrap(),
        ..opts()
    };
    let out = run(&i, &o).unwrap();
    assert_eq!(gen_names(&out), vec![Value::Null, json!("thing-1-")]);
    assert_eq!(
        conditions(&out)[0],
        ("Ready".into(), "True".into(), "Available".into())
    );
}

#[test]
fn full_xr_and_namespaces() {
    let mut i = inputs(json!([step(
        "s",
        json!({"resources": {"a": {"apiVersion": "v1", "kind": "ConfigMap"}}})
    )]));
    let o = RenderOptions {
        include_full_xr: true,
        ..opts()
    };
    let out = run(&i, &o).unwrap();
    let xr = doc(&out, "XThing");
    assert_eq!(xr["spec"], json!({"region": "eu"}));
    assert_eq!(xr["metadata"], json!({"name": "thing-1"}));
    i.xr = Some(Source::new(
        "xr.yaml",
        "apiVersion: example.com/v1\nkind: XThing\nmetadata: {name: thing-1, namespace: team, uid: u-1}\n",
    ));
    let e = run(&i, &o).unwrap_err();
    assert_eq!(e.message, "cannot get composite resource spec");
    let o = RenderOptions {
        version: "2.1".parse().unwrap(),
        ..opts()
    };
    let out = run(&i, &o).unwrap();
    assert_eq!(doc(&out, "XThing")["metadata"]["namespace"], json!("team"));
    let cm = doc(&out, "ConfigMap");
    assert_eq!(cm["metadata"]["namespace"], json!("team"));
    assert_eq!(cm["metadata"]["ownerReferences"][0]["uid"], json!("u-1"));
}

#[test]
fn checks_before_running() {
    let mut i = inputs(json!([]));
    i.xr = Some(Source::new(
        "xr.yaml",
        "apiVersion: example.com/v1\nkind: Other\nmetadata: {name: o}\n",
    ));
    assert_eq!(
        run(&i, &opts()).unwrap_err().message,
        "composition's compositeTypeRef.kind (XThing) does not match XR's kind (Other)"
    );
    i.xr = Some(Source::new(
        "xr.yaml",
        "apiVersion: example.com/v2\nkind: XThing\nmetadata: {name: o}\n",
    ));
    assert_eq!(
        run(&i, &opts()).unwrap_err().message,
        "composition's compositeTypeRef.apiVersion (example.com/v1) does not match XR's apiVersion (example.com/v2)"
    );
    let mut i = inputs(json!([]));
    i.composition = Some(Source::new(
        "c.yaml",
        composition(json!([])).replace("mode: Pipeline", "mode: Resources"),
    ));
    assert_eq!(
        run(&i, &opts()).unwrap_err().message,
        "render only supports Composition Function pipelines: Composition \"c\" must use spec.mode: Pipeline"
    );
    let mut i = inputs(json!([]));
    i.xr = Some(Source::new("xr.yaml", "a: [1,\n"));
    assert!(
        run(&i, &opts())
            .unwrap_err()
            .message
            .starts_with("cannot load composite resource from \"xr.yaml\"")
    );
    // Zero steps: context printed as given.
    let mut i = inputs(json!([]));
    i.context_values = vec![("k".into(), "1".into())];
    assert_eq!(
        doc(&run(&i, &opts()).unwrap(), "Context")["fields"],
        json!({"k": 1})
    );
}

#[test]
fn controller_conflicts_are_errors() {
    let i = inputs(json!([step(
        "s",
        json!({"resources": {"a": {"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "x", "ownerReferences": [{"apiVersion": "v1", "kind": "Other", "name": "o", "uid": "zzz", "controller": true}]}}}})
    )]));
    let e = run(&i, &opts()).unwrap_err();
    assert!(
        e.message
            .starts_with("cannot render composed resource \"a\" metadata:"),
        "{e}"
    );
}

#[test]
fn desired_state_is_passed_verbatim_between_steps() {
    let calls = RefCell::new(Vec::new());
    let f = |req: &RunFunctionRequest| {
        calls
            .borrow_mut()
            .push(req.desired.clone().unwrap_or_default().resources.len());
        fake(req)
    };
    let i = inputs(json!([
        step(
            "one",
            json!({"resources": {"a": {"apiVersion": "v1", "kind": "ConfigMap"}}})
        ),
        step(
            "two",
            json!({"resources": {"b": {"apiVersion": "v1", "kind": "ConfigMap"}}})
        ),
    ]));
    let out = render(&i, &opts(), &f).unwrap();
    assert_eq!(*calls.borrow(), vec![0, 1]);
    assert_eq!(
        out.documents
            .iter()
            .filter(|d| d["kind"] == "ConfigMap")
            .count(),
        2
    );
    let v: CrossplaneVersion = "1.20".parse().unwrap();
    assert_eq!(v, CrossplaneVersion::default());
}

#[test]
fn odd_inputs_are_errors_or_tolerated_never_panics() {
    let odd_steps = [
        json!("not a list"),
        json!([1, "x", null]),
        json!([{"step": 3, "functionRef": "x", "input": [1, 2]}]),
        json!([{"step": "s", "functionRef": {"name": "fn-hcl"}, "input": {"kind": "HclInput", "resources": "nope"}}]),
        json!([step(
            "s",
            json!({"resources": {"a": {"metadata": [1], "kind": "X"}, "b": {"metadata": {"labels": {"n": 1}, "annotations": "x", "ownerReferences": "y"}}}})
        )]),
        json!([step("s", json!({"status": {"conditions": "not a list"}}))]),
        json!([step(
            "s",
            json!({"status": {"conditions": [1, {"type": 2}, {"type": "X"}]}, "conditions": [{"type": "X", "status": "True", "reason": "r"}]})
        )]),
        json!([step(
            "s",
            json!({"results": [{"severity": "Fatal", "message": "main.hcl:999999999999,1-2: x"}], "hcl": 5})
        )]),
        json!([step(
            "s",
            json!({"results": [{"severity": "Fatal", "message": "ü.hcl:1,1-2,9999: ü"}], "hcl": "-- ü.hcl --\nü\n"})
        )]),
    ];
    for steps in odd_steps {
        let i = inputs(steps.clone());
        let r = run(&i, &opts());
        if let Ok(out) = &r {
            // Whatever was produced can be written.
            out.to_yaml().unwrap();
        }
    }
    let odd_docs = [
        "",
        "- a\n- b\n",
        "just a string",
        "kind: 5\n",
        "apiVersion: x\nkind: Composition\nmetadata: [1]\n",
        "a: *unknown\n",
        "? [a]\n: b\n",
        "{",
        "\t- x",
    ];
    for d in odd_docs {
        let mut i = inputs(json!([]));
        i.xr = Some(Source::new("xr.yaml", d));
        assert!(run(&i, &opts()).is_err(), "xr {d:?}");
        let mut i = inputs(json!([]));
        i.composition = Some(Source::new("c.yaml", d));
        assert!(run(&i, &opts()).is_err(), "composition {d:?}");
        let mut i = inputs(json!([]));
        i.observed = vec![Source::new("o.yaml", d)];
        let _ = run(&i, &opts());
    }
}

#[test]
fn credentials_come_from_secrets() {
    let mut s = step("s", json!({}));
    s["credentials"] = json!([
        {"name": "aws", "source": "Secret", "secretRef": {"namespace": "crossplane-system", "name": "aws-creds"}},
        {"name": "other", "source": "None"},
    ]);
    let mut i = inputs(json!([s]));
    i.function_credentials = vec![Source::new(
        "secrets.yaml",
        "apiVersion: v1\nkind: Secret\nmetadata: {name: aws-creds, namespace: crossplane-system}\ndata:\n  key: aGVsbG8=\nstringData:\n  ignored: x\n",
    )];
    let out = run(&i, &opts()).unwrap();
    let creds = &out.requests[0].credentials;
    assert_eq!(creds.len(), 1);
    match &creds["aws"].source {
        Some(function_sdk_rust::proto::v1::credentials::Source::CredentialData(d)) => {
            assert_eq!(d.data["key"], b"hello".to_vec());
            assert!(!d.data.contains_key("ignored"));
        }
        other => panic!("{other:?}"),
    }
    // A missing Secret fails the step; before 1.18 credentials are not sent at all.
    i.function_credentials = Vec::new();
    let e = run(&i, &opts()).unwrap_err();
    assert_eq!(
        e.message,
        "cannot render composite resource: cannot get credentials from secret \"aws-creds\": secret \"aws-creds\" not found"
    );
    let o = RenderOptions {
        version: "1.17".parse().unwrap(),
        ..opts()
    };
    assert!(run(&i, &o).unwrap().requests[0].credentials.is_empty());
}

#[test]
fn composition_selector_must_match() {
    let mut i = inputs(json!([]));
    i.xr = Some(Source::new(
        "xr.yaml",
        "apiVersion: example.com/v1\nkind: XThing\nmetadata: {name: t}\nspec:\n  compositionSelector:\n    matchLabels: {provider: aws}\n",
    ));
    let e = run(&i, &opts()).unwrap_err();
    assert!(e.message.contains("label \"provider\" is missing"), "{e}");
    let labelled = composition(json!([])).replacen(
        "  name: c\n",
        "  name: c\n  labels:\n    provider: aws\n",
        1,
    );
    i.composition = Some(Source::new("c.yaml", labelled));
    assert!(run(&i, &opts()).is_ok());
}
