//! Generated compositions for benchmarks and the load test.
//!
//! [`composition`] builds a program of `n` resources, each a realistic body
//! with locals, templates and a few function calls; every odd resource
//! reads its own observed status, and [`request`] supplies that observed
//! state so the whole program is complete.

use std::collections::HashMap;
use std::fmt::Write as _;

use fnhcl_crossplane::convert::json_to_struct;

// `fn-hcl`'s allocator (see docs/benchmarks.md and fnhcl-cli's main.rs:
// the system allocator, which is mimalloc's through its `override`
// feature), declared once here for every benchmark, example and binary of
// this crate (they all link this library), so they measure what the
// server runs.
#[cfg(not(feature = "count-alloc"))]
#[global_allocator]
static GLOBAL: std::alloc::System = std::alloc::System;
#[cfg(not(feature = "count-alloc"))]
#[used]
static LINK_MIMALLOC: &(dyn std::alloc::GlobalAlloc + Sync) = &mimalloc::MiMalloc;
// With the `count-alloc` feature, the system allocator behind a counter
// of live and peak bytes (`--bench memory` reports per-part numbers with
// it); mimalloc is then not linked, so `malloc` is glibc's (and
// `valgrind --tool=dhat` sees every allocation).
#[cfg(feature = "count-alloc")]
#[global_allocator]
static GLOBAL: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

#[cfg(feature = "count-alloc")]
pub mod alloc_count;

pub mod difftest;
use fnhcl_crossplane::proto::{Resource, RunFunctionRequest, State};
use serde_json::json;

/// The HCL program (one file) for `n` resources.
pub fn composition(n: usize) -> String {
    let mut s = String::new();
    s.push_str(
        r#"locals {
  params = req.composite.spec.parameters
  region = params.region
  prefix = "${req.composite.metadata.name}-${params.env}"
  tags   = merge({ owner = "platform", env = params.env }, params.tags)
}

"#,
    );
    for i in 0..n {
        let observed = i % 2 == 1;
        let _ = write!(
            s,
            r#"resource bucket-{i} {{
  locals {{
    name  = "${{prefix}}-bucket-{i}"
    index = {i}
  }}
  body = {{
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {{
      name = name
      labels = {{
        "app.kubernetes.io/name" = lower(name)
        "example.com/index"      = format("%03d", index)
      }}
      annotations = {{
        "example.com/zone" = "${{region}}${{index % 2 == 0 ? "a" : "b"}}"
      }}
    }}
    spec = {{
      forProvider = {{
        region = region
        tags   = merge(tags, {{ Name = upper(name) }})
"#
        );
        if observed {
            s.push_str("        arnCopy = self.resource.status.atProvider.arn\n");
        }
        s.push_str("      }\n    }\n  }\n");
        if observed {
            let _ = write!(
                s,
                r#"  composite status {{
    body = {{
      buckets = {{
        "bucket-{i}" = self.resource.status.atProvider.arn
      }}
    }}
  }}
"#
            );
        }
        s.push_str("}\n\n");
    }
    s
}

/// One bucket body of [`modular_composition`] / [`flat_composition`]:
/// `idx` is the instance's index expression (`param.idx` in the module, a
/// literal when written flat).
fn module_bucket(s: &mut String, name: &str, idx: &str, r: usize) {
    let _ = write!(
        s,
        r#"resource {name} {{
  body = {{
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {{
      name = "${{prefix}}-${{{idx}}}-{r}"
      labels = {{
        "app.kubernetes.io/name" = lower("${{prefix}}-{r}")
        "example.com/index"      = format("%03d", {idx})
      }}
    }}
    spec = {{
      forProvider = {{
        region = region
        tags   = merge(tags, {{ Name = upper("${{prefix}}-${{{idx}}}-{r}") }})
      }}
    }}
  }}
}}

"#
    );
}

const MODULE_LOCALS: &str = r#"locals {
  params = req.composite.spec.parameters
  region = params.region
  prefix = "${req.composite.metadata.name}-${params.env}"
  tags   = merge({ owner = "platform", env = params.env }, params.tags)
}

"#;

/// A txtar program whose `instances * per` resources come from `instances`
/// instances of one module (`modules/buckets`), each declaring `per`
/// buckets. Crossplane names: `b<i>-bucket-<r>`.
pub fn modular_composition(instances: usize, per: usize) -> String {
    let mut s = String::from("-- main.hcl --\nimport \"modules/buckets\" {}\n\n");
    for i in 0..instances {
        let _ = write!(s, "module \"buckets\" \"b{i}\" {{\n  idx = {i}\n}}\n\n");
    }
    s.push_str("-- modules/buckets/main.hcl --\nparam \"idx\" {}\n\n");
    s.push_str(MODULE_LOCALS);
    for r in 0..per {
        module_bucket(&mut s, &format!("bucket-{r}"), "param.idx", r);
    }
    s
}

/// The same resources as [`modular_composition`], written flat in one
/// file (same bodies, the index as a literal, same Crossplane names).
pub fn flat_composition(instances: usize, per: usize) -> String {
    let mut s = String::from("-- main.hcl --\n");
    s.push_str(MODULE_LOCALS);
    for i in 0..instances {
        for r in 0..per {
            module_bucket(&mut s, &format!("b{i}-bucket-{r}"), &i.to_string(), r);
        }
    }
    s
}

/// A program of about `lines` lines spread over `files` txtar members
/// (for the parse + check benchmark).
pub fn large_txtar(files: usize, resources_per_file: usize) -> String {
    let mut out = String::new();
    for f in 0..files {
        let _ = writeln!(out, "-- file{f:02}.hcl --");
        let body = composition(resources_per_file);
        // Rename resources so names stay unique across files, and keep the
        // top-level locals only in the first file.
        let body = body.replace("resource bucket-", &format!("resource f{f}-bucket-"));
        let body = if f == 0 {
            body
        } else {
            body.split_once("\n\n")
                .map(|x| x.1.to_owned())
                .unwrap_or(body)
        };
        out.push_str(&body);
    }
    out
}

/// The function input object holding `hcl`.
pub fn input_json(hcl: &str) -> serde_json::Value {
    json!({
        "apiVersion": "hcl.fn.crossplane.io/v1beta1",
        "kind": "HclInput",
        "hcl": hcl,
    })
}

fn resource(v: serde_json::Value) -> Resource {
    Resource {
        resource: json_to_struct(&v),
        ..Resource::default()
    }
}

/// A RunFunctionRequest for [`composition`]`(n)` with observed state for
/// every odd resource. `hcl` is the program text (so callers can vary it to
/// defeat the program cache).
pub fn request(n: usize, hcl: &str) -> RunFunctionRequest {
    let xr = json!({
        "apiVersion": "example.com/v1",
        "kind": "XBuckets",
        "metadata": {"name": "demo-x7k2p"},
        "spec": {"parameters": {
            "region": "eu-west-1",
            "env": "prod",
            "tags": {"team": "storage", "cost-center": "1234"},
        }},
    });
    let mut observed = HashMap::new();
    for i in (1..n).step_by(2) {
        observed.insert(
            format!("bucket-{i}"),
            resource(json!({
                "apiVersion": "s3.aws.upbound.io/v1beta1",
                "kind": "Bucket",
                "metadata": {"name": format!("demo-x7k2p-prod-bucket-{i}")},
                "status": {"atProvider": {"arn": format!("arn:aws:s3:::demo-x7k2p-prod-bucket-{i}")}},
            })),
        );
    }
    observed_request(xr, observed, hcl)
}

/// Kubernetes object metadata as the API server returns it: labels,
/// annotations, owner reference, finalizers and `managedFields` (three
/// field managers), about 3 KB as JSON.
fn live_metadata(name: &str, kind: &str, i: usize) -> serde_json::Value {
    let fields = json!({
        "f:metadata": {
            "f:annotations": {".": {}, "f:crossplane.io/composition-resource-name": {}, "f:crossplane.io/external-name": {}},
            "f:finalizers": {".": {}, "v:\"finalizer.managedresource.crossplane.io\"": {}},
            "f:labels": {".": {}, "f:crossplane.io/claim-name": {}, "f:crossplane.io/claim-namespace": {}, "f:crossplane.io/composite": {}},
            "f:ownerReferences": {".": {}, "k:{\"uid\":\"0b3c6c8e-6d3e-4d0c-9d55-1f0f3d7c9a11\"}": {}},
        },
        "f:spec": {".": {}, "f:deletionPolicy": {}, "f:forProvider": {".": {}, "f:region": {}, "f:tags": {".": {}, "f:Name": {}, "f:env": {}, "f:owner": {}}}, "f:managementPolicies": {}, "f:providerConfigRef": {".": {}, "f:name": {}}},
    });
    let status_fields = json!({
        "f:status": {".": {}, "f:atProvider": {".": {}, "f:arn": {}, "f:bucketDomainName": {}, "f:bucketRegionalDomainName": {}, "f:hostedZoneId": {}, "f:id": {}, "f:region": {}, "f:tags": {}, "f:tagsAll": {}}, "f:conditions": {".": {}, "k:{\"type\":\"Ready\"}": {".": {}, "f:lastTransitionTime": {}, "f:reason": {}, "f:status": {}, "f:type": {}}, "k:{\"type\":\"Synced\"}": {".": {}, "f:lastTransitionTime": {}, "f:reason": {}, "f:status": {}, "f:type": {}}}},
    });
    json!({
        "name": name,
        "uid": format!("7f1c{i:04}-5b2e-4c8a-9e3d-2a6f8b1c0d{i:02}"),
        "resourceVersion": format!("{}", 184_223 + i),
        "generation": 2,
        "creationTimestamp": "2026-11-20T09:14:03Z",
        "labels": {
            "crossplane.io/claim-name": "demo",
            "crossplane.io/claim-namespace": "team-storage",
            "crossplane.io/composite": "demo-x7k2p",
        },
        "annotations": {
            "crossplane.io/composition-resource-name": format!("{}-{i}", kind.to_lowercase()),
            "crossplane.io/external-name": name,
            "crossplane.io/external-create-pending": "2026-11-20T09:14:04Z",
            "crossplane.io/external-create-succeeded": "2026-11-20T09:14:07Z",
        },
        "finalizers": ["finalizer.managedresource.crossplane.io"],
        "ownerReferences": [{
            "apiVersion": "example.com/v1",
            "kind": "XBuckets",
            "name": "demo-x7k2p",
            "uid": "0b3c6c8e-6d3e-4d0c-9d55-1f0f3d7c9a11",
            "controller": true,
            "blockOwnerDeletion": true,
        }],
        "managedFields": [
            {"apiVersion": "s3.aws.upbound.io/v1beta1", "fieldsType": "FieldsV1", "fieldsV1": fields, "manager": "apiextensions.crossplane.io/composed/1f2e3d4c5b6a", "operation": "Apply", "time": "2026-11-20T09:14:03Z"},
            {"apiVersion": "s3.aws.upbound.io/v1beta1", "fieldsType": "FieldsV1", "fieldsV1": status_fields, "manager": "provider-aws-s3", "operation": "Update", "subresource": "status", "time": "2026-11-20T09:15:41Z"},
            {"apiVersion": "s3.aws.upbound.io/v1beta1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:annotations": {"f:crossplane.io/external-create-pending": {}, "f:crossplane.io/external-create-succeeded": {}}}}, "manager": "provider-aws-s3", "operation": "Update", "time": "2026-11-20T09:14:07Z"},
        ],
    })
}

/// Ready and Synced conditions as a provider writes them.
fn live_conditions() -> serde_json::Value {
    json!([
        {"type": "Ready", "status": "True", "reason": "Available", "lastTransitionTime": "2026-11-20T09:15:41Z", "observedGeneration": 2},
        {"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": "2026-11-20T09:14:07Z", "observedGeneration": 2},
        {"type": "LastAsyncOperation", "status": "True", "reason": "Success", "lastTransitionTime": "2026-11-20T09:15:40Z"},
    ])
}

/// [`request`] with observed objects the size Crossplane really sends:
/// the XR and every odd bucket as a live Kubernetes object (metadata with
/// managed fields, spec with the provider's defaults, status with
/// `atProvider` and conditions), about 6 KB of JSON each, of which the
/// program reads a few fields.
pub fn live_request(n: usize, hcl: &str) -> RunFunctionRequest {
    let xr = json!({
        "apiVersion": "example.com/v1",
        "kind": "XBuckets",
        "metadata": live_metadata("demo-x7k2p", "XBuckets", 0),
        "spec": {
            "parameters": {
                "region": "eu-west-1",
                "env": "prod",
                "tags": {"team": "storage", "cost-center": "1234"},
            },
            "compositionRef": {"name": "xbuckets.example.com"},
            "compositionRevisionRef": {"name": "xbuckets.example.com-8d2f1c3"},
            "compositionUpdatePolicy": "Automatic",
            "claimRef": {"apiVersion": "example.com/v1", "kind": "Buckets", "name": "demo", "namespace": "team-storage"},
            "resourceRefs": (1..n).step_by(2).map(|i| json!({"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket", "name": format!("demo-x7k2p-prod-bucket-{i}")})).collect::<Vec<_>>(),
        },
        "status": {"conditions": live_conditions()},
    });
    let mut observed = HashMap::new();
    for i in (1..n).step_by(2) {
        let name = format!("demo-x7k2p-prod-bucket-{i}");
        let arn = format!("arn:aws:s3:::{name}");
        let tags = json!({"Name": name.to_uppercase(), "env": "prod", "owner": "platform", "team": "storage", "cost-center": "1234", "crossplane-kind": "bucket.s3.aws.upbound.io", "crossplane-name": name, "crossplane-providerconfig": "default"});
        observed.insert(
            format!("bucket-{i}"),
            resource(json!({
                "apiVersion": "s3.aws.upbound.io/v1beta1",
                "kind": "Bucket",
                "metadata": live_metadata(&name, "Bucket", i),
                "spec": {
                    "deletionPolicy": "Delete",
                    "forProvider": {"region": "eu-west-1", "tags": tags},
                    "initProvider": {},
                    "managementPolicies": ["*"],
                    "providerConfigRef": {"name": "default"},
                },
                "status": {
                    "atProvider": {
                        "arn": arn,
                        "bucketDomainName": format!("{name}.s3.amazonaws.com"),
                        "bucketRegionalDomainName": format!("{name}.s3.eu-west-1.amazonaws.com"),
                        "forceDestroy": false,
                        "hostedZoneId": "Z1BKCTXD74EZPE",
                        "id": name,
                        "objectLockEnabled": false,
                        "policy": "",
                        "region": "eu-west-1",
                        "requestPayer": "BucketOwner",
                        "tags": tags,
                        "tagsAll": tags,
                    },
                    "conditions": live_conditions(),
                },
            })),
        );
    }
    observed_request(xr, observed, hcl)
}

/// A request observing the XR `xr` and the composed resources `observed`,
/// running the program `hcl`.
fn observed_request(
    xr: serde_json::Value,
    observed: HashMap<String, Resource>,
    hcl: &str,
) -> RunFunctionRequest {
    RunFunctionRequest {
        observed: Some(State {
            composite: Some(resource(xr)),
            resources: observed,
        }),
        input: json_to_struct(&input_json(hcl)),
        ..RunFunctionRequest::default()
    }
}

/// Makes `req` a call of a Crossplane that supplies schemas
/// (`CAPABILITY_REQUIRED_SCHEMAS`, and in `required_schemas` the upjet S3
/// Bucket CRD's `v1beta1` schema), so every desired Bucket is validated.
pub fn supply_bucket_schema(req: &mut RunFunctionRequest) {
    use fnhcl_crossplane::proto::{Capability, RequestMeta, Schema};
    let mut set = fnhcl_schema::SchemaSet::new();
    set.load_text(
        "s3.aws.upbound.io_buckets.yaml",
        include_str!("../../fnhcl-schema/tests/data/crds/s3.aws.upbound.io_buckets.yaml"),
    )
    .expect("bucket CRD");
    let raw = set
        .raw("s3.aws.upbound.io/v1beta1", "Bucket")
        .expect("Bucket v1beta1");
    req.meta = Some(RequestMeta {
        tag: String::new(),
        capabilities: vec![Capability::RequiredSchemas as i32],
    });
    req.required_schemas.insert(
        fnhcl_crossplane::schemas::requirement_key("s3.aws.upbound.io/v1beta1", "Bucket"),
        Schema {
            openapi_v3: json_to_struct(raw),
        },
    );
}

/// Expression-heavy benchmark cases, as (name, expression), evaluated by
/// `fnhcl_expr` with the variables of [`expr_vars`]: `xs` (the numbers
/// 0..10,000) and `names` (10,000 strings `bucket-<i>`). (`range` itself
/// stops at 1,024 values, as cty's does.) Every case must evaluate without
/// errors (checked by `tests/fixtures.rs`).
pub const EXPR_CASES: &[(&str, &str)] = &[
    ("for_tuple_10k", "[for x in xs : x * 2 + 1]"),
    (
        "for_object_10k",
        r#"{for i, n in names : n => { index = i, even = i % 2 == 0 }}"#,
    ),
    ("for_filter_10k", "length([for x in xs : x if x % 3 == 0])"),
    (
        "merge_in_loop_10k",
        r#"[for x in xs : merge({ a = x, b = "x" }, { c = x + 1 }, { d = [x] })]"#,
    ),
    (
        "flatten_in_loop_10k",
        r#"length(flatten([for n in names : [n, upper(n)]]))"#,
    ),
    (
        "format_in_loop_10k",
        r#"join(",", [for x in xs : format("bucket-%s-%05d", "prod", x)])"#,
    ),
    (
        "regex_in_loop_10k",
        r#"[for n in names : regex("^([a-z]+)-([0-9]+)$", n)]"#,
    ),
    (
        "regexall_replace_1k",
        r#"[for x in slice(xs, 0, 1000) : replace(join(" ", regexall("[0-9]+", "a${x}b${x * 7}c${x * 13}")), "/[13579]/", "o")]"#,
    ),
];

/// The variables of [`EXPR_CASES`].
pub fn expr_vars() -> std::collections::BTreeMap<String, fnhcl_value::Value> {
    use fnhcl_value::Value;
    let n = 10_000;
    let mut vars = std::collections::BTreeMap::new();
    vars.insert(
        "xs".to_owned(),
        Value::tuple((0..n).map(Value::int).collect()),
    );
    vars.insert(
        "names".to_owned(),
        Value::tuple(
            (0..n)
                .map(|i| Value::string(format!("bucket-{i}")))
                .collect(),
        ),
    );
    vars
}

/// function-starlark's bucket workload: `n` S3 buckets, each a name from
/// the XR and the XR's region (the program of its benchmark, written in
/// HCL). Runs against [`request`]`(n, ..)` (whose XR has the region).
pub fn bucket_composition(n: usize) -> String {
    let mut s = String::from(
        r#"locals {
  region = req.composite.spec.parameters.region
  prefix = req.composite.metadata.name
}

"#,
    );
    for i in 0..n {
        let _ = write!(
            s,
            r#"resource bucket-{i} {{
  body = {{
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {{
      name = "${{prefix}}-bucket-{i}"
    }}
    spec = {{
      forProvider = {{
        region = region
      }}
    }}
  }}
}}

"#
        );
    }
    s
}

/// A heavy program: one resource whose body needs `rows * 1,024` elements
/// computed (`rows` = 100 takes ~0.25 s of evaluation on the benchmark
/// machine). For the fairness load test and the lanes' tests.
pub fn heavy_composition(rows: usize) -> String {
    format!(
        r#"locals {{
  grid = [for a in range({rows}) : [for b in range(1024) : a * b + 1]]
}}

resource heavy {{
  body = {{
    apiVersion = "example.com/v1"
    kind       = "Heavy"
    spec = {{
      total = length(flatten(grid))
    }}
  }}
}}
"#
    )
}

/// Sets field `key` of the observed composite of a request made by
/// [`request`] to `kind`.
pub fn set_composite_field(
    req: &mut RunFunctionRequest,
    key: &str,
    kind: pbjson_types::value::Kind,
) {
    let xr = req
        .observed
        .as_mut()
        .and_then(|o| o.composite.as_mut())
        .and_then(|c| c.resource.as_mut())
        .expect("the request has an observed composite");
    xr.fields
        .insert(key.to_owned(), pbjson_types::Value { kind: Some(kind) });
}

/// A `Struct` nesting `{"a": {"a": ...}}` `depth` levels (build and drop
/// it on a big stack: prost's types drop recursively).
pub fn deep_struct(depth: usize) -> pbjson_types::Struct {
    let mut s = pbjson_types::Struct::default();
    for _ in 0..depth {
        let mut outer = pbjson_types::Struct::default();
        outer.fields.insert(
            "a".to_owned(),
            pbjson_types::Value {
                kind: Some(pbjson_types::value::Kind::StructValue(s)),
            },
        );
        s = outer;
    }
    s
}

/// What the server does with one call's bytes: prost decodes the request,
/// the function runs it, prost encodes the response.
pub fn serve_bytes(f: &fnhcl_crossplane::Function, bytes: &[u8]) -> Vec<u8> {
    use prost::Message as _;
    let req = RunFunctionRequest::decode(bytes).unwrap_or_default();
    f.run(&req).encode_to_vec()
}
