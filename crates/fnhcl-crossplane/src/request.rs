//! RunFunctionRequest -> the evaluator's [`Request`] (upstream §3.2, D6, D19).
//!
//! The evaluator shapes `req.*` itself (collections by annotation, base64
//! connection details, managed fields removed); this module only converts
//! protobuf data to values.

use std::collections::{BTreeMap, HashMap};

use fnhcl_eval::{Demand, ObservedResource, Paths, Request};
use fnhcl_value::Value;
use function_sdk_rust::proto::v1::{Resource, RunFunctionRequest, credentials};
use pbjson_types::Struct;
use pbjson_types::value::Kind;

use crate::convert::{MAX_DEPTH, TooDeep, object_from_struct_within, value_from_pb_within};

/// A resource's body, converted where `paths` demands (failing where it
/// nests `max` levels deep, see [`value_from_pb_within`]).
fn body(r: &Resource, paths: &Paths, max: usize) -> Result<Value, TooDeep> {
    match &r.resource {
        Some(s) => project_struct(s, paths, 0, max),
        None => Ok(Value::empty_object()),
    }
}

/// `s` as an object holding only what `paths` demands, each demanded
/// value whole (see [`fnhcl_eval::Demand`] for why the program cannot tell).
/// Depths count as in [`crate::convert::object_from_struct`], so the
/// result is the whole conversion with undemanded keys left out.
fn project_struct(s: &Struct, paths: &Paths, depth: usize, max: usize) -> Result<Value, TooDeep> {
    let Paths::Keys(keys) = paths else {
        return object_from_struct_within(s, depth, max);
    };
    let mut attrs = Vec::with_capacity(keys.len());
    for (k, sub) in keys {
        let Some(v) = s.fields.get(&**k) else {
            // A demanded key that is not there: an error or a `try` will
            // look at this object, so it has all its keys, as without a
            // demand ("did you mean" names the same keys).
            return object_from_struct_within(s, depth, max);
        };
        let value = match (&v.kind, sub) {
            (Some(Kind::StructValue(inner)), Paths::Keys(_)) => {
                if depth.saturating_add(1) >= max {
                    return Err(TooDeep);
                }
                if depth >= MAX_DEPTH {
                    Value::null()
                } else {
                    project_struct(inner, sub, depth + 1, max)?
                }
            }
            _ => value_from_pb_within(v, depth, max)?,
        };
        attrs.push((k.clone(), value));
    }
    Ok(Value::object(attrs.into_iter().collect()))
}

/// Whether every key `paths` names is in `present` (or the whole is
/// demanded): then only those keys need converting.
fn all_present(paths: &Paths, mut present: impl FnMut(&str) -> bool) -> bool {
    match paths {
        Paths::All => true,
        Paths::Keys(keys) => keys.keys().all(|k| present(k)),
    }
}

fn sorted_bytes(m: &HashMap<String, Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
    m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// Whether `s` nests objects/lists deeper than `max` levels (iteratively,
/// so arbitrarily deep data cannot overflow the stack).
pub fn struct_too_deep(s: &Struct, max: usize) -> bool {
    values_too_deep(s.fields.values().map(|v| (v, 1)).collect(), max)
}

/// Whether the parts of `s` that `paths` demands nest deeper than `max`
/// levels: what converting `s` under `paths` would cut off. What is not
/// converted cannot be cut off.
fn demanded_too_deep(s: &Struct, paths: &Paths, max: usize) -> bool {
    let mut whole: Vec<(&pbjson_types::Value, usize)> = Vec::new();
    let mut objects: Vec<(&Struct, &Paths, usize)> = vec![(s, paths, 1)];
    while let Some((s, paths, depth)) = objects.pop() {
        let Paths::Keys(keys) = paths else {
            whole.extend(s.fields.values().map(|v| (v, depth)));
            continue;
        };
        // One lookup per demanded key (hashing is most of this walk).
        let found: Option<Vec<_>> = keys
            .iter()
            .map(|(k, sub)| s.fields.get(&**k).map(|v| (v, sub)))
            .collect();
        let Some(found) = found else {
            // Converted whole (see `project_struct`).
            whole.extend(s.fields.values().map(|v| (v, depth)));
            continue;
        };
        for (v, sub) in found {
            match (&v.kind, sub) {
                (Some(Kind::StructValue(inner)), Paths::Keys(_)) => {
                    if depth >= max {
                        return true;
                    }
                    objects.push((inner, sub, depth + 1));
                }
                _ => whole.push((v, depth)),
            }
        }
    }
    values_too_deep(whole, max)
}

/// Whether any of the values (each with its depth) nests deeper than `max`.
fn values_too_deep(mut stack: Vec<(&pbjson_types::Value, usize)>, max: usize) -> bool {
    while let Some((v, depth)) = stack.pop() {
        match &v.kind {
            Some(Kind::StructValue(s)) => {
                if depth >= max {
                    return true;
                }
                stack.extend(s.fields.values().map(|v| (v, depth + 1)));
            }
            Some(Kind::ListValue(l)) => {
                if depth >= max {
                    return true;
                }
                stack.extend(l.values.iter().map(|v| (v, depth + 1)));
            }
            _ => {}
        }
    }
    false
}

/// The first part of the request whose data nests deeper than `max`
/// levels (the conversion to values would cut it off), as a phrase.
pub fn too_deep(req: &RunFunctionRequest, max: usize) -> Option<String> {
    too_deep_for(req, &Demand::everything(), max)
}

/// [`too_deep`] of what `demand` converts ([`eval_request_for`]).
pub fn too_deep_for(req: &RunFunctionRequest, demand: &Demand, max: usize) -> Option<String> {
    let deep = |r: &Resource, paths: &Paths| {
        r.resource
            .as_ref()
            .is_some_and(|s| demanded_too_deep(s, paths, max))
    };
    if let Some(o) = &req.observed {
        if o.composite
            .as_ref()
            .is_some_and(|r| deep(r, &demand.composite))
        {
            return Some("the observed composite resource".to_owned());
        }
        let mut names: Vec<&String> = o
            .resources
            .iter()
            .filter(|(n, r)| deep(r, demand.observed_paths(n)))
            .map(|(n, _)| n)
            .collect();
        names.sort();
        if let Some(n) = names.first() {
            return Some(format!("observed resource {n:?}"));
        }
    }
    if req
        .context
        .as_ref()
        .is_some_and(|c| demanded_too_deep(c, &demand.context, max))
    {
        return Some("the context".to_owned());
    }
    // The first name in order (the maps' iteration order is random).
    req.extra_resources
        .iter()
        .chain(&req.required_resources)
        .filter(|(_, rs)| rs.items.iter().any(|r| deep(r, &Paths::All)))
        .map(|(name, _)| name)
        .min()
        .map(|name| format!("required resource {name:?}"))
}

/// Builds the evaluator's request data from a RunFunctionRequest, whole.
pub fn eval_request(req: &RunFunctionRequest) -> Request {
    eval_request_for(req, &Demand::everything())
}

/// Builds the evaluator's request data from a RunFunctionRequest,
/// converting only what `demand` (the program's) says it can read.
pub fn eval_request_for(req: &RunFunctionRequest, demand: &Demand) -> Request {
    // Nothing is over a limit of `usize::MAX` levels.
    eval_request_within(req, demand, usize::MAX).unwrap_or_default()
}

/// [`eval_request_for`], or, when what it converts nests deeper than `max`
/// levels, the part of the request that does, as [`too_deep_for`] names
/// it (the same part when several do): one walk where checking first
/// walked the demanded data twice.
pub fn eval_request_within(
    req: &RunFunctionRequest,
    demand: &Demand,
    max: usize,
) -> Result<Request, String> {
    let observed = req.observed.as_ref();
    let xr = observed.and_then(|o| o.composite.as_ref());
    let composite = xr
        .map(|r| body(r, &demand.composite, max))
        .transpose()
        .map_err(|TooDeep| "the observed composite resource".to_owned())?;
    let composite_connection = xr
        .map(|r| sorted_bytes(&r.connection_details))
        .unwrap_or_default();
    let mut observed_resources = BTreeMap::new();
    // The first name in order, as `too_deep_for`.
    let mut deep: Option<&String> = None;
    for (name, r) in observed.map(|o| &o.resources).into_iter().flatten() {
        match body(r, demand.observed_paths(name), max) {
            Ok(body) => {
                observed_resources.insert(
                    name.clone(),
                    ObservedResource {
                        body,
                        connection_details: sorted_bytes(&r.connection_details),
                    },
                );
            }
            Err(TooDeep) => {
                if deep.is_none_or(|d| name < d) {
                    deep = Some(name);
                }
            }
        }
    }
    if let Some(name) = deep {
        return Err(format!("observed resource {name:?}"));
    }
    let context = match &req.context {
        None => BTreeMap::new(),
        Some(c) => {
            let wanted = |k: &str| match &demand.context {
                Paths::All => Some(&Paths::All),
                Paths::Keys(keys) => keys.get(k),
            };
            let whole = !all_present(&demand.context, |k| c.fields.contains_key(k));
            let mut context = BTreeMap::new();
            for (k, v) in &c.fields {
                let Some(paths) = (if whole { Some(&Paths::All) } else { wanted(k) }) else {
                    continue;
                };
                let value = match (&v.kind, paths) {
                    (Some(Kind::StructValue(s)), Paths::Keys(_)) => {
                        if 1 >= max {
                            Err(TooDeep)
                        } else {
                            project_struct(s, paths, 1, max)
                        }
                    }
                    _ => value_from_pb_within(v, 0, max),
                };
                let value = value.map_err(|TooDeep| "the context".to_owned())?;
                context.insert(k.clone(), value);
            }
            context
        }
    };
    // D19: required_resources (current Crossplane) and the legacy
    // extra_resources field; a name in both takes required_resources.
    let extra_whole = !all_present(&demand.extra_resources, |k| {
        req.extra_resources.contains_key(k) || req.required_resources.contains_key(k)
    });
    let mut extra_resources = BTreeMap::new();
    // The first name in order, as `too_deep_for`.
    let mut deep: Option<&String> = None;
    for (name, rs) in req
        .extra_resources
        .iter()
        .chain(req.required_resources.iter())
    {
        let mut too_deep = || {
            if deep.is_none_or(|d| name < d) {
                deep = Some(name);
            }
        };
        let wanted = extra_whole
            || match &demand.extra_resources {
                Paths::All => true,
                Paths::Keys(keys) => keys.contains_key(name.as_str()),
            };
        if wanted {
            let items: Result<Vec<_>, TooDeep> =
                rs.items.iter().map(|r| body(r, &Paths::All, max)).collect();
            match items {
                Ok(items) => {
                    extra_resources.insert(name.clone(), Some(items));
                }
                Err(TooDeep) => too_deep(),
            }
        } else if max != usize::MAX
            && rs
                .items
                .iter()
                .any(|r| r.resource.as_ref().is_some_and(|s| struct_too_deep(s, max)))
        {
            // Not converted, but checked as before.
            too_deep();
        }
    }
    if let Some(name) = deep {
        return Err(format!("required resource {name:?}"));
    }
    let credentials = req
        .credentials
        .iter()
        .filter_map(|(name, c)| {
            let credentials::Source::CredentialData(d) = c.source.as_ref()?;
            Some((name.clone(), sorted_bytes(&d.data)))
        })
        .collect();
    Ok(Request {
        composite,
        composite_connection,
        credentials,
        observed: observed_resources,
        context,
        extra_resources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::json_to_struct;
    use function_sdk_rust::proto::v1::{Resources, State};

    fn res(json: serde_json::Value) -> Resource {
        Resource {
            resource: json_to_struct(&json),
            ..Default::default()
        }
    }

    #[test]
    fn maps_observed_state_context_and_requirements() {
        let mut xr = res(serde_json::json!({"metadata": {"name": "x"}, "spec": {"n": 1}}));
        xr.connection_details.insert("pw".into(), b"hi".to_vec());
        let mut observed = State {
            composite: Some(xr),
            ..Default::default()
        };
        let mut member = res(serde_json::json!({"kind": "A"}));
        member.connection_details.insert("k".into(), vec![1, 2]);
        observed.resources.insert("a".into(), member);
        let mut req = RunFunctionRequest {
            observed: Some(observed),
            context: json_to_struct(&serde_json::json!({"k": {"v": [1]}})),
            ..Default::default()
        };
        req.required_resources
            .insert("none".into(), Resources::default());
        req.extra_resources.insert(
            "legacy".into(),
            Resources {
                items: vec![res(serde_json::json!({"kind": "B"}))],
            },
        );
        req.extra_resources.insert(
            "none".into(),
            Resources {
                items: vec![res(serde_json::json!({"kind": "stale"}))],
            },
        );
        let r = eval_request(&req);
        let xr = r.composite.expect("composite");
        assert!(xr.as_entries().expect("object").contains_key("spec"));
        assert_eq!(r.composite_connection["pw"], b"hi".to_vec());
        assert_eq!(r.observed["a"].connection_details["k"], vec![1, 2]);
        assert!(matches!(r.context["k"], Value::Object(_)));
        assert_eq!(
            r.extra_resources["none"].as_deref().map(<[_]>::len),
            Some(0)
        );
        assert_eq!(
            r.extra_resources["legacy"].as_deref().map(<[_]>::len),
            Some(1)
        );
        assert!(!r.extra_resources.contains_key("other"));
    }

    /// Converting protobuf data under a program's demand gives what the
    /// evaluator's own projection of the whole conversion gives
    /// (`fnhcl_eval::Demand::project`, which the evaluator's cases check
    /// against the whole request for every case).
    #[test]
    fn conversion_under_a_demand_is_the_projection_of_the_whole() {
        let live = serde_json::json!({
            "apiVersion": "v1", "kind": "X",
            "metadata": {"name": "n", "annotations": {"a": "b"}, "managedFields": [{"f": {"x": 1}}]},
            "spec": {"p": {"region": "eu", "tags": {"k": "v"}, "list": [{"a": 1}, {"b": 2}]}, "q": null, "s": "str"},
            "status": {"atProvider": {"arn": "arn:x", "id": "i"}, "conditions": [{"type": "Ready"}]},
        });
        let mut observed = State {
            composite: Some(res(live.clone())),
            ..Default::default()
        };
        observed.resources.insert("a".into(), res(live.clone()));
        observed.resources.insert("b".into(), res(live));
        let mut req = RunFunctionRequest {
            observed: Some(observed),
            context: json_to_struct(
                &serde_json::json!({"env": {"x": {"y": 1}, "z": 2}, "other": 3}),
            ),
            ..Default::default()
        };
        req.required_resources.insert(
            "vpcs".into(),
            Resources {
                items: vec![res(serde_json::json!({"kind": "V", "spec": {"c": 1}}))],
            },
        );
        req.extra_resources
            .insert("old".into(), Resources::default());
        let programs = [
            "x = req.composite.spec.p.region",
            "x = req.composite.spec.p.list[0].a\ny = req.composite.status",
            "x = req.composite.spec.q.deeper\ny = req.composite.spec.s.deeper",
            "x = req.composite.spec.p.regoin",
            "x = req.resource.a.status.atProvider.arn\ny = req.context.env.x",
            "x = req.context.missing",
            "x = req.extra_resources.vpcs[0].spec",
            "x = req.extra_resources.nope",
            "x = req.composite[k].p\ny = req.resource",
            "x = req",
        ];
        let whole = eval_request(&req);
        for text in programs {
            let mut sm = fnhcl_base::SourceMap::new();
            sm.add("main.hcl", format!("locals {{\n{text}\nk = \"spec\"\n}}\n"));
            let program = fnhcl_eval::compile(std::sync::Arc::new(sm)).expect(text);
            let demand = program.demand();
            let direct = eval_request_for(&req, demand);
            let projected = demand.project(&whole);
            assert_eq!(format!("{direct:?}"), format!("{projected:?}"), "{text}");
        }
        // Something is left out, or the test would not show anything.
        let mut sm = fnhcl_base::SourceMap::new();
        sm.add("main.hcl", format!("locals {{\n{}\n}}\n", programs[0]));
        let program = fnhcl_eval::compile(std::sync::Arc::new(sm)).expect("program");
        let direct = eval_request_for(&req, program.demand());
        assert_ne!(format!("{direct:?}"), format!("{whole:?}"));
        assert!(direct.context.is_empty());
        let spec = direct.composite.expect("composite");
        let spec = spec.as_entries().expect("object");
        assert_eq!(spec.keys().map(|k| &**k).collect::<Vec<_>>(), ["spec"]);
    }

    /// Only what is converted can be cut off by the depth limit: deep data
    /// the program never reads does not fail the run.
    #[test]
    fn depth_is_checked_where_the_demand_converts() {
        let mut deep = serde_json::json!({"end": 1});
        for _ in 0..10 {
            deep = serde_json::json!({ "d": deep });
        }
        let xr = res(serde_json::json!({"metadata": {"name": "x"}, "spec": {"deep": deep}}));
        let req = RunFunctionRequest {
            observed: Some(State {
                composite: Some(xr),
                ..Default::default()
            }),
            ..Default::default()
        };
        let demand_of = |text: &str| {
            let mut sm = fnhcl_base::SourceMap::new();
            sm.add("main.hcl", format!("locals {{\n{text}\n}}\n"));
            let program = fnhcl_eval::compile(std::sync::Arc::new(sm)).expect(text);
            program.demand().clone()
        };
        let what = Some("the observed composite resource".to_owned());
        assert_eq!(too_deep(&req, 5), what);
        assert_eq!(
            too_deep_for(&req, &demand_of("x = req.composite.metadata.name"), 5),
            None
        );
        assert_eq!(
            too_deep_for(&req, &demand_of("x = req.composite.spec.deep.d"), 5),
            what
        );
        assert_eq!(
            too_deep_for(
                &req,
                &demand_of("x = req.composite.spec.deep.d.d.d.d.d.d"),
                5
            ),
            what
        );
        assert_eq!(
            too_deep_for(&req, &demand_of("x = req.composite.spec.nope"), 5),
            what
        );
        assert_eq!(
            too_deep_for(&req, &demand_of("x = req.composite.spec.deep.d"), 50),
            None
        );
    }

    /// The depth check folded into the conversion
    /// ([`eval_request_within`]) names the part [`too_deep_for`] names,
    /// under every demand and limit, and converts what
    /// [`eval_request_for`] converts when nothing is too deep.
    #[test]
    fn the_conversion_checks_depth_as_too_deep_for() {
        fn nest(depth: usize, list: bool) -> serde_json::Value {
            let mut v = serde_json::json!({"end": 1});
            for _ in 0..depth {
                v = if list {
                    serde_json::json!([v])
                } else {
                    serde_json::json!({ "d": v })
                };
            }
            v
        }
        let programs = [
            "x = 1",
            "x = req.composite.spec.a.d.d",
            "x = req.composite.spec.nope",
            "x = req.resource.r1.spec.a\ny = req.resource.r2.spec",
            "x = req.context.k.d.d\ny = req.context.j",
            "x = req.context.missing",
            "x = req.extra_resources.e1[0].spec",
            "x = req",
        ];
        let demands: Vec<Demand> = programs
            .iter()
            .map(|text| {
                let mut sm = fnhcl_base::SourceMap::new();
                sm.add("main.hcl", format!("locals {{\n{text}\n}}\n"));
                let program = fnhcl_eval::compile(std::sync::Arc::new(sm)).expect(text);
                program.demand().clone()
            })
            .collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        let (mut deep, mut fine) = (0, 0);
        for _ in 0..300 {
            let part = |next: &mut dyn FnMut(u64) -> usize| {
                let (a, b) = (next(7), next(2) == 0);
                res(serde_json::json!({"spec": {"a": nest(a, b), "b": nest(next(3), false)}}))
            };
            let mut observed = State {
                composite: Some(part(&mut next)),
                ..Default::default()
            };
            for name in ["r1", "r2", "r3"] {
                if next(2) == 0 {
                    observed.resources.insert(name.into(), part(&mut next));
                }
            }
            let mut req = RunFunctionRequest {
                observed: Some(observed),
                context: json_to_struct(&serde_json::json!({
                    "k": nest(next(7), false), "j": nest(next(4), true), "l": 1,
                })),
                ..Default::default()
            };
            for name in ["e1", "e2"] {
                if next(2) == 0 {
                    req.required_resources.insert(
                        name.into(),
                        Resources {
                            items: vec![part(&mut next)],
                        },
                    );
                }
            }
            if next(2) == 0 {
                req.extra_resources.insert(
                    "e3".into(),
                    Resources {
                        items: vec![part(&mut next)],
                    },
                );
            }
            for demand in &demands {
                for max in [0, 1, 2, 3, 4, 6, 9, 200] {
                    let folded = eval_request_within(&req, demand, max);
                    assert_eq!(
                        folded.as_ref().err(),
                        too_deep_for(&req, demand, max).as_ref(),
                        "max {max}"
                    );
                    if let Ok(converted) = folded {
                        fine += 1;
                        assert_eq!(
                            format!("{converted:?}"),
                            format!("{:?}", eval_request_for(&req, demand))
                        );
                    } else {
                        deep += 1;
                    }
                }
            }
        }
        assert!(deep > 1000 && fine > 1000, "deep {deep}, fine {fine}");
    }

    #[test]
    fn empty_request() {
        let r = eval_request(&RunFunctionRequest::default());
        assert!(r.composite.is_none());
        assert!(r.observed.is_empty());
        assert!(r.context.is_empty());
    }

    #[test]
    fn the_too_deep_required_resource_named_is_the_first_by_name() {
        // Many maps, each with its own iteration order: the name must not
        // depend on it.
        let nested = res(serde_json::json!({"a": {"b": {"c": {"d": 1}}}}));
        for round in 0..32 {
            let mut req = RunFunctionRequest::default();
            for name in ["m", "c", "x", "a", "q"] {
                let rs = Resources {
                    items: vec![nested.clone()],
                };
                if round % 2 == 0 {
                    req.required_resources.insert(name.to_owned(), rs);
                } else {
                    req.extra_resources.insert(name.to_owned(), rs);
                }
            }
            let want = Some("required resource \"a\"".to_owned());
            assert_eq!(too_deep_for(&req, &Demand::everything(), 3), want);
            let got = eval_request_within(&req, &Demand::everything(), 3).err();
            assert_eq!(got, want);
        }
    }
}
