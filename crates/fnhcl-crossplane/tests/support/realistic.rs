//! Realistic requests, byte edits of them, and the check that a request
//! read from its bytes means what prost reads, shared by the
//! `request_bytes` fuzz target (`fuzz/fuzz_targets/request_bytes.rs`,
//! which includes this file) and `tests/wire.rs`: a program reading what
//! the request readers project (the composite by parts, observed resources
//! by name, collection membership, connection details, the context, extra
//! resources, the desired state passed through), and requests for it as
//! prost encodes them.

use std::collections::HashMap;

use fnhcl_crossplane::proto::{
    Resource, Resources, RunFunctionRequest, RunFunctionResponse, State,
};
use fnhcl_crossplane::wire::{self, Encoded, RevWriter, SdkWriter};
use fnhcl_crossplane::{Function, Outcome};
use prost::Message as _;
use serde_json::json;

const PROGRAM: &str = r#"
locals {
  params = req.composite.spec.parameters
  name   = req.composite.metadata.name
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {
      name   = "${name}-bucket"
      labels = try(req.composite.metadata.labels, {})
    }
    spec = {
      forProvider = {
        region = try(params.region, "us-east-1")
        arn    = try(self.resource.status.atProvider.arn, "pending")
        tags   = merge({ owner = "platform" }, try(params.tags, {}))
      }
    }
  }
  ready {
    value = try(self.resource.status.ready, false) ? "READY_TRUE" : "READY_FALSE"
  }
  composite connection {
    body = { user = try(self.connection.username, "none") }
  }
}

resources pool {
  for_each = try(params.pools, {})
  template {
    body = {
      apiVersion = "example.com/v1"
      kind       = "Pool"
      spec       = { size = each.value.size, seen = try(self.resource.status.id, "none") }
    }
  }
  composite status {
    body = { pools = length(self.resources) }
  }
}

composite status {
  body = {
    arn         = try(req.resource.bucket.status.atProvider.arn, null)
    contextKeys = keys(try(req.context, {}))
    conns       = try(req.connections, {})
    extra       = { for k, v in try(req.extra_resources, {}) : k => length(v) }
    whole       = try(req.composite.status, {})
  }
}

context {
  key   = "example.com/seen"
  value = { name = name, env = try(req.context["example.com/env"], "none") }
}
"#;

fn st(v: serde_json::Value) -> Option<pbjson_types::Struct> {
    fnhcl_crossplane::convert::json_to_struct(&v)
}

fn resource(body: serde_json::Value, conn: &[(&str, &[u8])]) -> Resource {
    Resource {
        resource: st(body),
        connection_details: conn
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.to_vec()))
            .collect(),
        ready: 0,
    }
}

/// `managedFields` as the API server writes them: nested `f:` objects,
/// most of them empty.
fn managed_fields() -> serde_json::Value {
    json!([{
        "apiVersion": "example.com/v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:team": {}}},
                     "f:spec": {"f:parameters": {".": {}, "f:region": {}, "f:pools": {}}}},
        "manager": "kubectl",
        "operation": "Update",
        "time": "2026-11-29T00:00:00Z"
    }])
}

fn member(base: &str, index: &str, id: &str) -> Resource {
    resource(
        json!({
            "apiVersion": "example.com/v1",
            "kind": "Pool",
            "metadata": {"name": format!("{base}-{index}"), "annotations": {
                "hcl.fn.crossplane.io/collection-base-name": base,
                "hcl.fn.crossplane.io/collection-index": index,
            }},
            "status": {"id": id}
        }),
        &[("k", id.as_bytes())],
    )
}

fn input() -> Option<pbjson_types::Struct> {
    st(json!({
        "apiVersion": "fn-hcl.crossplane.io/v1beta1",
        "kind": "HclInput",
        "hcl": PROGRAM,
    }))
}

/// `req`'s protobuf bytes as prost writes them, but with every map's
/// entries in key order (prost writes a `HashMap`'s order, which changes
/// from one process to the next), so that an edit at a place is the same
/// edit in every run.
fn encode(req: &RunFunctionRequest) -> Vec<u8> {
    let mut w = RevWriter::default();
    let mut s = SdkWriter::default();
    let mut extra: Vec<_> = req.extra_resources.iter().collect();
    extra.sort_unstable_by_key(|(k, _)| k.as_str());
    for (k, r) in extra.into_iter().rev() {
        w.message(6, |w| {
            w.message(2, |w| {
                for item in r.items.iter().rev() {
                    w.message(1, |w| s.resource(w, item));
                }
            });
            w.string(1, k);
        });
    }
    if let Some(c) = &req.context {
        w.message(5, |w| s.structure(w, c));
    }
    if let Some(i) = &req.input {
        w.message(4, |w| s.structure(w, i));
    }
    if let Some(d) = &req.desired {
        w.message(3, |w| s.state(w, d));
    }
    if let Some(o) = &req.observed {
        w.message(2, |w| s.state(w, o));
    }
    let bytes = w.finish().into_vec();
    assert_eq!(
        RunFunctionRequest::decode(bytes.as_slice()).as_ref(),
        Ok(req),
        "the request's bytes decode to it"
    );
    bytes
}

/// A few realistic requests, as prost encodes them (maps sorted).
pub(crate) fn bases() -> Vec<Vec<u8>> {
    let composite = json!({
        "apiVersion": "example.com/v1",
        "kind": "XBucket",
        "metadata": {"name": "demo", "labels": {"team": "a"}, "managedFields": managed_fields(),
                     "annotations": {"note": "x"}},
        "spec": {"parameters": {"region": "eu-west-1", "tags": {"env": "dev"},
                                "pools": {"a": {"size": 1}, "b": {"size": 2.5}}}},
        "status": {"conditions": [{"type": "Ready", "status": "False"}], "n": null, "ok": true}
    });
    let mut full = RunFunctionRequest {
        observed: Some(State {
            composite: Some(resource(composite.clone(), &[("password", b"s3cr3t")])),
            resources: HashMap::from([
                (
                    "bucket".to_owned(),
                    resource(
                        json!({"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
                               "metadata": {"name": "demo-bucket", "managedFields": managed_fields()},
                               "status": {"ready": true, "atProvider": {"arn": "arn:aws:s3:::demo"}}}),
                        &[("username", b"admin")],
                    ),
                ),
                ("pool-a".to_owned(), member("pool", "sa", "id-a")),
                ("pool-b".to_owned(), member("pool", "sb", "id-b")),
            ]),
        }),
        desired: Some(State {
            composite: Some(resource(
                json!({"status": {"fromBefore": [1, 2, {"x": "y"}]}}),
                &[],
            )),
            resources: HashMap::from([(
                "earlier".to_owned(),
                resource(json!({"kind": "Earlier", "spec": {"a": 1}}), &[]),
            )]),
        }),
        input: input(),
        context: st(json!({"example.com/env": "prod", "other": {"deep": [true, null]}})),
        extra_resources: HashMap::from([(
            "cfg".to_owned(),
            Resources {
                items: vec![resource(json!({"kind": "Config", "data": {"a": "b"}}), &[])],
            },
        )]),
        ..RunFunctionRequest::default()
    };
    let mut out = vec![encode(&full)];
    // No observed resources yet (the first reconcile), no context.
    if let Some(o) = full.observed.as_mut() {
        o.resources.clear();
    }
    full.context = None;
    out.push(encode(&full));
    // Only the composite and the program.
    let small = RunFunctionRequest {
        observed: Some(State {
            composite: Some(resource(composite, &[])),
            ..State::default()
        }),
        input: input(),
        ..RunFunctionRequest::default()
    };
    out.push(encode(&small));
    out
}

/// `script` applied to `base`, four bytes an edit: what, where (two
/// bytes), a byte.
pub(crate) fn edit(base: &[u8], script: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    for e in script.chunks_exact(4) {
        let at = usize::from(u16::from_le_bytes([e[1], e[2]])) % (b.len() + 1);
        match e[0] % 6 {
            0 if at < b.len() => b[at] = e[3],
            1 => b.insert(at, e[3]),
            2 if at < b.len() => {
                b.remove(at);
            }
            3 if at < b.len() => b[at] ^= 1 << (e[3] % 8),
            4 => b.truncate(at),
            // A run of bytes given again right after itself (a field or
            // map entry twice, when the run is one).
            5 => {
                let end = (at + usize::from(e[3])).min(b.len());
                let run = b[at..end].to_vec();
                b.splice(end..end, run);
            }
            _ => {}
        }
    }
    b
}

/// A response's message and error text, to compare two runs.
pub(crate) fn outcome_of(o: &Outcome<Encoded>) -> (RunFunctionResponse, Option<String>) {
    let rsp = wire::decode_response(o.response.as_slice()).expect("the response decodes");
    (rsp, o.error.clone())
}

/// Runs `bytes` as the server does (`Function::run_bytes`) and checks the
/// outcome against prost's reading of them: the response to the message
/// prost decodes, or a Fatal result with prost's error. Whether prost
/// decoded them, and whether the run succeeded.
pub(crate) fn check_as_prost_reads(f: &Function, bytes: &[u8], case: usize) -> (bool, bool) {
    let got = f.run_bytes(bytes, None);
    let decoded = match RunFunctionRequest::decode(bytes) {
        Ok(decoded) => {
            let want = f.run_encoded_with(&decoded, None);
            assert_eq!(outcome_of(&got), outcome_of(&want), "case {case}");
            true
        }
        Err(e) => {
            assert_eq!(
                got.error,
                Some(format!("invalid request: {e}")),
                "case {case}"
            );
            false
        }
    };
    (decoded, got.error.is_none())
}
