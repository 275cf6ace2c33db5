//! Evaluator output -> RunFunctionResponse (upstream §5, D17–D22), as the
//! SDK's message: earlier steps' desired state and the context passed
//! through, ours merged in.

use std::collections::HashMap;
use std::time::Duration;

use fnhcl_eval::{ConditionText, Output, ReadyState, Selector, SelectorMatch};
use function_sdk_rust::proto::v1::{
    Capability, Condition, MatchLabels, Ready, Requirements, Resource, ResourceSelector,
    ResponseMeta, Result as FnResult, RunFunctionRequest, RunFunctionResponse, Severity, State,
    Status, Target, resource_selector,
};
use pbjson_types::value::Kind;
use pbjson_types::{Struct, Value as PbValue};

use crate::convert::{value_to_pb, value_to_struct};

/// Condition type reporting whether every block could be evaluated.
pub const CONDITION_FULLY_RESOLVED: &str = "FullyResolved";
/// Condition type summarising HCL warnings.
pub const CONDITION_HCL_DIAGNOSTICS: &str = "HclDiagnostics";

fn meta(req: &RunFunctionRequest, ttl: Duration) -> ResponseMeta {
    meta_tag(req.meta.as_ref().map_or("", |m| m.tag.as_str()), ttl)
}

fn meta_tag(tag: &str, ttl: Duration) -> ResponseMeta {
    ResponseMeta {
        tag: tag.to_owned(),
        ttl: Some(pbjson_types::Duration {
            seconds: i64::try_from(ttl.as_secs()).unwrap_or(i64::MAX),
            nanos: ttl.subsec_nanos() as i32,
        }),
    }
}

fn fatal_result(message: String) -> FnResult {
    FnResult {
        severity: Severity::Fatal as i32,
        message,
        reason: None,
        target: Some(Target::Composite as i32),
    }
}

/// The response every outcome starts from: `meta` (tag echoed, TTL), and
/// the incoming desired state and context passed through (upstream §5.9).
pub fn base_response(req: &RunFunctionRequest, ttl: Duration) -> RunFunctionResponse {
    RunFunctionResponse {
        meta: Some(meta(req, ttl)),
        desired: req.desired.clone(),
        context: req.context.clone(),
        ..Default::default()
    }
}

/// A fatal response: one Fatal result, desired and context passed through,
/// no conditions or requirements (upstream §5.9, D21).
pub fn fatal(req: &RunFunctionRequest, ttl: Duration, message: String) -> RunFunctionResponse {
    let mut rsp = base_response(req, ttl);
    rsp.results.push(fatal_result(message));
    rsp
}

fn has_required_resources_capability(req: &RunFunctionRequest) -> bool {
    req.meta.as_ref().is_some_and(|m| {
        m.capabilities
            .contains(&(Capability::RequiredResources as i32))
    })
}

fn ready_value(r: Option<ReadyState>) -> i32 {
    match r {
        None | Some(ReadyState::Unspecified) => Ready::Unspecified as i32,
        Some(ReadyState::True) => Ready::True as i32,
        Some(ReadyState::False) => Ready::False as i32,
    }
}

fn selector(s: &Selector) -> ResourceSelector {
    ResourceSelector {
        api_version: s.api_version.clone(),
        kind: s.kind.clone(),
        namespace: s.namespace.clone(),
        r#match: Some(match &s.matches {
            SelectorMatch::Name(n) => resource_selector::Match::MatchName(n.clone()),
            SelectorMatch::Labels(l) => resource_selector::Match::MatchLabels(MatchLabels {
                labels: l.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            }),
        }),
    }
}

fn target(t: fnhcl_eval::Target) -> i32 {
    match t {
        fnhcl_eval::Target::Composite => Target::Composite as i32,
        fnhcl_eval::Target::CompositeAndClaim => Target::CompositeAndClaim as i32,
    }
}

fn condition(type_: &str, c: &ConditionText) -> Condition {
    Condition {
        r#type: type_.to_owned(),
        status: if c.status {
            Status::ConditionTrue as i32
        } else {
            Status::ConditionFalse as i32
        },
        reason: c.reason.to_owned(),
        message: Some(c.message.clone()),
        target: Some(Target::Composite as i32),
    }
}

/// Merges `ours` into `theirs`: objects merge recursively, anything else in
/// `ours` replaces what was there (D17: earlier steps' data is kept unless
/// this function writes the same leaf).
pub fn merge_struct(theirs: &mut Struct, ours: Struct) {
    for (k, v) in ours.fields {
        match (theirs.fields.get_mut(&k), v.kind) {
            (
                Some(PbValue {
                    kind: Some(Kind::StructValue(existing)),
                }),
                Some(Kind::StructValue(new)),
            ) => merge_struct(existing, new),
            (_, kind) => {
                theirs.fields.insert(k, PbValue { kind });
            }
        }
    }
}

/// What the input and the program decide about the response.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// D32 (`readinessGating: On`).
    pub gating: bool,
    /// D34 (`autoReady: true`).
    pub auto_ready: bool,
    /// D37: where connection details go.
    pub connection: crate::connection::Policy,
}

impl Default for Settings {
    /// The input's defaults, for a program without connection blocks.
    fn default() -> Settings {
        Settings {
            gating: true,
            auto_ready: false,
            connection: crate::connection::Policy {
                secret: true,
                declared: false,
            },
        }
    }
}

/// Builds the success response (upstream §5.1–§5.8 with D17–D21, and the
/// composite's and composed resources' readiness of D32–D34, the
/// connection Secret of D37). Errors are
/// conversion failures, reported as a fatal result by the caller.
pub fn success(
    req: &RunFunctionRequest,
    ttl: Duration,
    output: &Output,
    settings: Settings,
) -> Result<RunFunctionResponse, String> {
    let mut rsp = base_response(req, ttl);
    let desired = rsp.desired.get_or_insert_with(State::default);
    let observed = req.observed.as_ref().map(|o| &o.resources);

    // D17: earlier steps' resources are kept; ours replace same-named ones.
    for r in &output.resources {
        let body = value_to_struct(&r.body)
            .map_err(|e| format!("unable to convert resource body to struct: {}: {e}", r.name))?;
        let ready = match r.ready {
            // D34: no `ready` block (or a discarded one).
            None if settings.auto_ready => {
                let seen = observed
                    .and_then(|o| o.get(&r.name))
                    .and_then(|o| o.resource.as_ref());
                match seen {
                    Some(s) if crate::ready::is_ready(&crate::convert::struct_to_json(s)) => {
                        Ready::True as i32
                    }
                    _ => Ready::Unspecified as i32,
                }
            }
            other => ready_value(other),
        };
        desired.resources.insert(
            r.name.clone(),
            Resource {
                resource: Some(body),
                connection_details: HashMap::new(),
                ready,
            },
        );
    }

    // D33, then D32: an explicit `composite ready` wins; else a missing
    // non-optional block makes the composite not ready; else readiness
    // stays as the request had it.
    let composite_ready = match output.composite_ready {
        Some(r) => Some(ready_value(Some(r))),
        None if settings.gating && !output.gating.is_empty() => Some(Ready::False as i32),
        None => None,
    };
    if let Some(r) = composite_ready {
        desired
            .composite
            .get_or_insert_with(Resource::default)
            .ready = r;
    }

    // D17: status and connection details merge into the incoming composite.
    if let Some(status) = &output.composite_status {
        let status = value_to_struct(status)
            .map_err(|e| format!("unable to convert composite status: {e}"))?;
        let composite = desired.composite.get_or_insert_with(Resource::default);
        let body = composite.resource.get_or_insert_with(Struct::default);
        let mut wrapper = Struct::default();
        wrapper.fields.insert(
            "status".to_owned(),
            PbValue {
                kind: Some(Kind::StructValue(status)),
            },
        );
        merge_struct(body, wrapper);
    }
    // D37: the legacy field, or a Secret for Crossplane 2 XRs.
    let mut connection_warnings = Vec::new();
    crate::connection::apply(
        req,
        output,
        settings.connection,
        desired,
        &mut connection_warnings,
    )?;

    context_requirements_results(req, output, &mut rsp)?;
    rsp.results.extend(connection_warnings);
    user_results(output, &mut rsp);

    // D20: conditions with upstream's type, status and reason values;
    // then the program's (D35).
    let (diag_condition, _) = fnhcl_eval::hcl_diagnostics(output);
    rsp.conditions = vec![
        condition(
            CONDITION_FULLY_RESOLVED,
            &fnhcl_eval::fully_resolved(output),
        ),
        condition(CONDITION_HCL_DIAGNOSTICS, &diag_condition),
    ];
    for c in &output.conditions {
        rsp.conditions.push(Condition {
            r#type: c.type_.clone(),
            status: match c.status {
                fnhcl_eval::ConditionStatus::True => Status::ConditionTrue as i32,
                fnhcl_eval::ConditionStatus::False => Status::ConditionFalse as i32,
                fnhcl_eval::ConditionStatus::Unknown => Status::ConditionUnknown as i32,
            },
            reason: c.reason.clone(),
            message: c.message.clone(),
            target: Some(target(c.target)),
        });
    }
    Ok(rsp)
}

/// The parts a composition's and an operation's response share: the
/// context (D18), the requirements (D19, D36), the discard warnings and
/// the warnings summary (D21).
fn context_requirements_results(
    req: &RunFunctionRequest,
    output: &Output,
    rsp: &mut RunFunctionResponse,
) -> Result<(), String> {
    // D18: each key replaces the same top-level key; others pass through.
    if !output.context.is_empty() {
        let ctx = rsp.context.get_or_insert_with(Struct::default);
        for (k, v) in &output.context {
            let v = value_to_pb(v).map_err(|e| format!("cannot convert context {k:?}: {e}"))?;
            ctx.fields.insert(k.clone(), v);
        }
    }

    // D19: the requirements field Crossplane understands.
    if !output.requirements.is_empty() {
        let selectors: HashMap<String, ResourceSelector> = output
            .requirements
            .iter()
            .map(|(k, s)| (k.clone(), selector(s)))
            .collect();
        let mut reqs = Requirements::default();
        if has_required_resources_capability(req) {
            reqs.resources = selectors;
        } else {
            // D36: the legacy field has no namespace to carry.
            if let Some((name, _)) = output
                .requirements
                .iter()
                .find(|(_, s)| s.namespace.is_some())
            {
                return Err(format!(
                    "requirement {name:?} selects a namespace, and a namespaced requirement needs Crossplane 2.0: this request does not offer the required-resources capability (CAPABILITY_REQUIRED_RESOURCES)"
                ));
            }
            reqs.extra_resources = selectors;
        }
        rsp.requirements = Some(reqs);
    }

    // D21: one Warning per reported discard, then the warnings summary.
    for d in output.reported_discards() {
        rsp.results.push(FnResult {
            severity: Severity::Warning as i32,
            message: d.message(),
            reason: Some(d.reason.as_str().to_owned()),
            target: Some(Target::Composite as i32),
        });
    }
    let (_, diag_result) = fnhcl_eval::hcl_diagnostics(output);
    if let Some(message) = diag_result {
        rsp.results.push(FnResult {
            severity: Severity::Warning as i32,
            message,
            reason: Some(CONDITION_HCL_DIAGNOSTICS.to_owned()),
            target: Some(Target::Composite as i32),
        });
    }

    Ok(())
}

/// The program's results (D35), after the function's own.
fn user_results(output: &Output, rsp: &mut RunFunctionResponse) {
    for r in &output.results {
        rsp.results.push(FnResult {
            severity: match r.severity {
                fnhcl_eval::ResultSeverity::Warning => Severity::Warning as i32,
                _ => Severity::Normal as i32,
            },
            message: r.message.clone(),
            reason: r.reason.clone(),
            target: Some(target(r.target)),
        });
    }
}

/// Builds an operation's response (D39): the objects to apply, the
/// `output`, context, requirements and results; no conditions and no
/// readiness. Errors are reported as a fatal result by the caller.
pub fn operation(
    req: &RunFunctionRequest,
    ttl: Duration,
    output: &Output,
) -> Result<RunFunctionResponse, String> {
    let mut rsp = base_response(req, ttl);
    let desired = rsp.desired.get_or_insert_with(State::default);
    for r in &output.resources {
        let body = value_to_struct(&r.body)
            .map_err(|e| format!("unable to convert resource body to struct: {}: {e}", r.name))?;
        desired.resources.insert(
            r.name.clone(),
            Resource {
                resource: Some(body),
                ..Resource::default()
            },
        );
    }
    if let Some(o) = &output.operation_output {
        rsp.output =
            Some(value_to_struct(o).map_err(|e| format!("unable to convert output: {e}"))?);
    }
    context_requirements_results(req, output, &mut rsp)?;
    user_results(output, &mut rsp);
    Ok(rsp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::{json_to_struct, struct_to_json};

    #[test]
    fn merge_keeps_their_leaves_and_replaces_ours() {
        let mut theirs =
            json_to_struct(&serde_json::json!({"a": {"x": 1, "y": [1]}, "b": 2})).expect("obj");
        let ours = json_to_struct(&serde_json::json!({"a": {"y": [2], "z": 3}, "c": {"d": 1}}))
            .expect("obj");
        merge_struct(&mut theirs, ours);
        assert_eq!(
            struct_to_json(&theirs),
            serde_json::json!({"a": {"x": 1, "y": [2], "z": 3}, "b": 2, "c": {"d": 1}})
        );
    }

    #[test]
    fn fatal_passes_desired_and_context_through() {
        let req = RunFunctionRequest {
            meta: Some(function_sdk_rust::proto::v1::RequestMeta {
                tag: "t1".into(),
                capabilities: vec![],
            }),
            desired: Some(State::default()),
            context: json_to_struct(&serde_json::json!({"k": 1})),
            ..Default::default()
        };
        let rsp = fatal(&req, Duration::from_secs(60), "boom".into());
        assert_eq!(rsp.desired, req.desired);
        assert_eq!(rsp.context, req.context);
        let meta = rsp.meta.expect("meta");
        assert_eq!(meta.tag, "t1");
        assert_eq!(meta.ttl.expect("ttl").seconds, 60);
        assert_eq!(rsp.results.len(), 1);
        assert_eq!(rsp.results[0].severity, Severity::Fatal as i32);
        assert!(rsp.conditions.is_empty());
    }
}
