//! Where the merged `composite connection` details go (D37): the legacy
//! connection details field for Crossplane 1 ("legacy") XRs, a composed
//! Secret for Crossplane 2 ("modern") XRs, whose connection details
//! Crossplane 2 ignores.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use fnhcl_eval::{DiscardKind, DiscardReason, Output};
use function_sdk_rust::proto::v1::{
    Ready, Resource, Result as FnResult, RunFunctionRequest, Severity, State, Target,
};
use pbjson_types::Struct;
use pbjson_types::value::Kind;
use serde_json::{Map, Value as Json, json};

use crate::convert::{json_to_struct, struct_to_json};

/// The Crossplane resource name of the composed connection Secret.
pub const SECRET_RESOURCE: &str = "connection-secret";

/// The Secret type Crossplane uses for connection details.
pub const SECRET_TYPE: &str = "connection.crossplane.io/v1alpha1";

/// What the program and its input say about connection details.
#[derive(Clone, Copy, Debug)]
pub struct Policy {
    /// The input's `connectionSecret` (D37; default on).
    pub secret: bool,
    /// The program declares a `composite connection` block.
    pub declared: bool,
}

fn field<'a>(s: &'a Struct, path: &[&str]) -> Option<&'a Kind> {
    let (last, init) = path.split_last()?;
    let mut cur = s;
    for k in init {
        match cur.fields.get(*k)?.kind.as_ref()? {
            Kind::StructValue(inner) => cur = inner,
            _ => return None,
        }
    }
    cur.fields.get(*last)?.kind.as_ref()
}

fn string_at<'a>(s: &'a Struct, path: &[&str]) -> Option<&'a str> {
    match field(s, path)? {
        Kind::StringValue(v) if !v.is_empty() => Some(v),
        _ => None,
    }
}

/// A Crossplane 2 XR: namespaced, or with the `spec.crossplane` object
/// under which Crossplane 2 keeps its own fields.
pub fn is_modern(xr: &Struct) -> bool {
    string_at(xr, &["metadata", "namespace"]).is_some()
        || matches!(
            field(xr, &["spec", "crossplane"]),
            Some(Kind::StructValue(_))
        )
}

fn warning(message: String) -> FnResult {
    FnResult {
        severity: Severity::Warning as i32,
        message,
        reason: Some("ConnectionDetails".to_owned()),
        target: Some(Target::Composite as i32),
    }
}

/// Puts the run's connection details where the XR's Crossplane reads them:
/// `desired`'s composite (legacy XRs, or `connectionSecret: Off`) or the
/// `connection-secret` resource (modern XRs). Warnings go to `results`.
pub fn apply(
    req: &RunFunctionRequest,
    output: &Output,
    policy: Policy,
    desired: &mut State,
    results: &mut Vec<FnResult>,
) -> Result<(), String> {
    let empty = Struct::default();
    let xr = req
        .observed
        .as_ref()
        .and_then(|o| o.composite.as_ref())
        .and_then(|c| c.resource.as_ref())
        .unwrap_or(&empty);
    let xr_name = string_at(xr, &["metadata", "name"]).unwrap_or_default();
    if !is_modern(xr) || !policy.secret {
        if policy.declared && is_modern(xr) {
            results.push(warning(format!(
                "connectionSecret is Off: Crossplane 2 ignores the connection details of composite {xr_name:?}, so they reach no Secret"
            )));
        }
        if !output.composite_connection.is_empty() {
            let composite = desired.composite.get_or_insert_with(Resource::default);
            for (k, v) in &output.composite_connection {
                composite.connection_details.insert(k.clone(), v.clone());
            }
        }
        return Ok(());
    }
    if !policy.declared {
        return Ok(());
    }
    if output.resources.iter().any(|r| r.name == SECRET_RESOURCE) {
        return Err(format!(
            "resource name {SECRET_RESOURCE:?} is taken by the composite's connection Secret: this program has composite connection blocks, so on a Crossplane 2 composite their details are composed as that resource; rename the resource, or set connectionSecret: Off"
        ));
    }
    let namespace = string_at(xr, &["spec", "writeConnectionSecretToRef", "namespace"])
        .or_else(|| string_at(xr, &["metadata", "namespace"]));
    let Some(namespace) = namespace else {
        results.push(warning(format!(
            "the connection details of cluster-scoped composite {xr_name:?} are not written: Crossplane 2 ignores a composite's connection details, and their Secret needs a namespace; set spec.writeConnectionSecretToRef.namespace"
        )));
        return Ok(());
    };
    let name = match string_at(xr, &["spec", "writeConnectionSecretToRef", "name"]) {
        Some(n) => n.to_owned(),
        None => format!("{xr_name}-connection"),
    };
    // An earlier step's Secret (D17): its keys stay, ours replace theirs.
    let mut data = match desired
        .resources
        .get(SECRET_RESOURCE)
        .and_then(|r| r.resource.as_ref())
        .map(struct_to_json)
    {
        Some(Json::Object(mut earlier)) => match earlier.remove("data") {
            Some(Json::Object(d)) => d,
            _ => Map::new(),
        },
        _ => Map::new(),
    };
    for (k, v) in &output.composite_connection {
        data.insert(k.clone(), Json::String(STANDARD.encode(v)));
    }
    let observed = req
        .observed
        .as_ref()
        .and_then(|o| o.resources.get(SECRET_RESOURCE))
        .and_then(|r| r.resource.as_ref());
    // The fail-safe: a key this run cannot compute keeps its observed value.
    let incomplete = output.discards.iter().any(|d| {
        d.kind == DiscardKind::CompositeConnection && d.reason == DiscardReason::Incomplete
    });
    if let (Some(seen), true) = (observed, incomplete)
        && let Some(Json::Object(old)) = struct_to_json(seen).get("data")
    {
        for (k, v) in old {
            data.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let mut body = json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": namespace},
        "type": SECRET_TYPE,
    });
    if !data.is_empty() {
        body["data"] = Json::Object(data);
    }
    let body = json_to_struct(&body).ok_or("internal error: the connection Secret")?;
    // A Secret has no Ready condition: it is ready once it exists.
    let ready = if observed.is_some() {
        Ready::True
    } else {
        Ready::Unspecified
    };
    desired.resources.insert(
        SECRET_RESOURCE.to_owned(),
        Resource {
            resource: Some(body),
            connection_details: Default::default(),
            ready: ready as i32,
        },
    );
    Ok(())
}
