//! Dependencies between composed resources (D40): creation order (a
//! resource that is not observed yet is held back until everything it
//! `depends_on` is observed and ready) and deletion order (a Usage per
//! dependent and dependency, once both exist, so that Crossplane deletes
//! the dependent first).
//!
//! This runs on the evaluator's output with the request's observed objects
//! as Crossplane sent them (readiness reads their whole status, which the
//! program itself may not read).

use std::collections::{BTreeSet, HashMap};

use fnhcl_eval::{
    Dependency, DependencyTarget, DesiredResource, Discard, DiscardKind, DiscardReason, Output,
    ReadyState,
};
use function_sdk_rust::proto::v1::RunFunctionRequest;
use serde_json::{Value as Json, json};

use crate::convert::struct_to_json;

/// The observed objects, converted when first asked for.
struct Observed<'r> {
    req: &'r RunFunctionRequest,
    cache: HashMap<String, Option<Json>>,
}

impl Observed<'_> {
    fn get(&mut self, name: &str) -> Option<&Json> {
        let req = self.req;
        self.cache
            .entry(name.to_owned())
            .or_insert_with(|| {
                req.observed
                    .as_ref()?
                    .resources
                    .get(name)?
                    .resource
                    .as_ref()
                    .map(struct_to_json)
            })
            .as_ref()
    }
}

/// Whether resource `name` is observed and ready: its `ready` block says
/// so this run; without one, D34's rules (`autoReady: true`) or its
/// observed `Ready` condition do.
fn ready(
    name: &str,
    emitted: Option<&DesiredResource>,
    observed: &mut Observed<'_>,
    auto_ready: bool,
) -> bool {
    let Some(o) = observed.get(name) else {
        return false;
    };
    match emitted.and_then(|r| r.ready) {
        Some(r) => r == ReadyState::True,
        None if auto_ready => crate::ready::is_ready(o),
        None => crate::ready::condition_is_true(o, "Ready"),
    }
}

/// A run's resources by name and by collection: what a dependency stands
/// for is found without a search through every resource.
struct Index<'o> {
    /// Each name with its resource's place in the output, sorted by name
    /// (a module instance's resources share its name as a prefix).
    names: Vec<(&'o str, usize)>,
    collections: HashMap<&'o str, Vec<usize>>,
    resources: &'o [DesiredResource],
}

impl<'o> Index<'o> {
    fn new(resources: &'o [DesiredResource]) -> Index<'o> {
        let mut names: Vec<(&str, usize)> = resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.name.as_str(), i))
            .collect();
        names.sort_unstable();
        let mut collections: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, r) in resources.iter().enumerate() {
            if let Some(c) = &r.collection {
                collections.entry(c.as_str()).or_default().push(i);
            }
        }
        Index {
            names,
            collections,
            resources,
        }
    }

    /// The resource named `name`.
    fn named(&self, name: &str) -> Option<&'o DesiredResource> {
        let at = self.names.partition_point(|(n, _)| *n < name);
        match self.names.get(at) {
            Some((n, i)) if *n == name => Some(&self.resources[*i]),
            _ => None,
        }
    }

    /// The resources of this run a dependency stands for, in output order.
    fn members(&self, target: &DependencyTarget) -> Vec<&'o DesiredResource> {
        let at = |places: &[usize]| places.iter().map(|&i| &self.resources[i]).collect();
        match target {
            DependencyTarget::Resource(n) => self.named(n).into_iter().collect(),
            DependencyTarget::Collection(base) => self
                .collections
                .get(base.as_str())
                .map_or_else(Vec::new, |p| at(p)),
            DependencyTarget::Instance(prefix) => {
                let from = self.names.partition_point(|(n, _)| *n < prefix.as_str());
                let mut places: Vec<usize> = self.names[from..]
                    .iter()
                    .take_while(|(n, _)| n.starts_with(prefix.as_str()))
                    .map(|(_, i)| *i)
                    .collect();
                places.sort_unstable();
                at(&places)
            }
        }
    }
}

/// Whether everything `d` stands for exists and is ready.
fn satisfied(
    d: &Dependency,
    output: &Output,
    index: &Index<'_>,
    observed: &mut Observed<'_>,
    auto_ready: bool,
) -> bool {
    match &d.target {
        DependencyTarget::Resource(n) => ready(n, index.named(n), observed, auto_ready),
        DependencyTarget::Collection(key) | DependencyTarget::Instance(key) => {
            let unfinished = match &d.target {
                DependencyTarget::Instance(prefix) => output
                    .unfinished
                    .range(prefix.clone()..)
                    .next()
                    .is_some_and(|u| u.starts_with(prefix.as_str())),
                _ => output.unfinished.contains(key),
            };
            !unfinished
                && index
                    .members(&d.target)
                    .into_iter()
                    .all(|r| ready(&r.name, Some(r), observed, auto_ready))
        }
    }
}

/// Holds back the resources whose dependencies are not ready, and adds
/// the Usages of the dependencies that exist. Composition runs only.
pub fn apply(
    req: &RunFunctionRequest,
    output: &mut Output,
    auto_ready: bool,
) -> Result<(), String> {
    if output.resources.iter().all(|r| r.depends_on.is_empty()) {
        return Ok(());
    }
    let mut observed = Observed {
        req,
        cache: HashMap::new(),
    };
    let is_observed = |name: &str| {
        req.observed
            .as_ref()
            .is_some_and(|o| o.resources.contains_key(name))
    };
    // Creation: a dependent not observed yet waits. An observed one never
    // does (holding it back would delete it).
    let index = Index::new(&output.resources);
    let mut held: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, r) in output.resources.iter().enumerate() {
        if r.depends_on.is_empty() || is_observed(&r.name) {
            continue;
        }
        let waiting: Vec<String> = r
            .depends_on
            .iter()
            .filter(|d| !satisfied(d, output, &index, &mut observed, auto_ready))
            .map(|d| d.name.clone())
            .collect();
        if !waiting.is_empty() {
            held.push((i, waiting));
        }
    }
    let mut waiting_for: HashMap<usize, Vec<String>> = held.into_iter().collect();
    let mut discards: Vec<(usize, Discard)> = Vec::with_capacity(waiting_for.len());
    let mut kept = Vec::with_capacity(output.resources.len() - waiting_for.len());
    for (i, r) in std::mem::take(&mut output.resources)
        .into_iter()
        .enumerate()
    {
        let Some(waiting) = waiting_for.remove(&i) else {
            kept.push(r);
            continue;
        };
        if !r.optional {
            output.gating.push(r.name.clone());
        }
        if let Some(c) = &r.collection {
            output.unfinished.insert(c.clone());
        }
        discards.push((
            i,
            Discard {
                kind: DiscardKind::Resource,
                reason: DiscardReason::HeldBack,
                name: r.name.clone(),
                span: Some(r.span),
                range: output.sources.range_text(r.span),
                context: vec![format!("waiting for {}", waiting.join(", "))],
            },
        ));
    }
    output.resources = kept;
    output.discards = merged_by_span(std::mem::take(&mut output.discards), discards);
    // Deletion: a Usage for each pair that exists.
    let usages = usages(req, output, &mut observed)?;
    output.resources.extend(usages);
    Ok(())
}

/// The discards of held-back resources (with their places in the output)
/// put among the others in the order of the resources they stand for:
/// each before the first discard of a later span; of one span (the
/// members of a collection), the last resource's first.
fn merged_by_span(existing: Vec<Discard>, mut held: Vec<(usize, Discard)>) -> Vec<Discard> {
    held.sort_by(|(i, a), (j, b)| a.span.cmp(&b.span).then(j.cmp(i)));
    let mut held = held.into_iter().map(|(_, d)| d).peekable();
    let mut out = Vec::with_capacity(existing.len() + held.len());
    for d in existing {
        if let Some(s) = d.span {
            while let Some(h) = held.next_if(|h| h.span.is_some_and(|hs| s > hs)) {
                out.push(h);
            }
        }
        out.push(d);
    }
    out.extend(held);
    out
}

/// The Usage API of this request's Crossplane and composite: namespaced
/// `Usage` for a namespaced XR, `ClusterUsage` on Crossplane 2 otherwise,
/// the legacy `Usage` on Crossplane 1.
fn usage_kind(req: &RunFunctionRequest) -> (&'static str, &'static str, Option<String>) {
    let xr = req
        .observed
        .as_ref()
        .and_then(|o| o.composite.as_ref())
        .and_then(|c| c.resource.as_ref())
        .map(struct_to_json);
    let namespace = xr
        .as_ref()
        .and_then(|x| x.pointer("/metadata/namespace"))
        .and_then(Json::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    let v2 = req
        .meta
        .as_ref()
        .is_some_and(|m| !m.capabilities.is_empty());
    match namespace {
        Some(ns) => ("protection.crossplane.io/v1beta1", "Usage", Some(ns)),
        None if v2 => ("protection.crossplane.io/v1beta1", "ClusterUsage", None),
        None => ("apiextensions.crossplane.io/v1beta1", "Usage", None),
    }
}

fn reference(o: &Json) -> Json {
    json!({
        "apiVersion": o.get("apiVersion").cloned().unwrap_or(Json::Null),
        "kind": o.get("kind").cloned().unwrap_or(Json::Null),
        "resourceRef": {"name": o.pointer("/metadata/name").cloned().unwrap_or(Json::Null)},
    })
}

/// One Usage per (dependent, dependency) pair of resources that are both
/// observed, named `usage-<dependent>-<dependency>`.
fn usages(
    req: &RunFunctionRequest,
    output: &Output,
    observed: &mut Observed<'_>,
) -> Result<Vec<DesiredResource>, String> {
    let (api_version, kind, namespace) = usage_kind(req);
    let index = Index::new(&output.resources);
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for r in &output.resources {
        let Some(by) = observed.get(&r.name).map(reference) else {
            continue;
        };
        for d in &r.depends_on {
            for dep in index.members(&d.target) {
                let Some(of) = observed.get(&dep.name).map(reference) else {
                    continue;
                };
                let name = format!("usage-{}-{}", r.name, dep.name);
                if !seen.insert(name.clone()) {
                    continue;
                }
                if index.named(&name).is_some() {
                    return Err(format!(
                        "resource name {name:?} is taken by the Usage that protects {:?} while {:?} uses it (depends_on): rename the resource",
                        dep.name, r.name
                    ));
                }
                let mut body = json!({
                    "apiVersion": api_version,
                    "kind": kind,
                    "spec": {"of": of, "by": by, "replayDeletion": true},
                });
                if let Some(ns) = &namespace {
                    body["metadata"] = json!({"namespace": ns});
                }
                // A Usage protects once it exists.
                let ready = observed.get(&name).map(|_| ReadyState::True);
                out.push(DesiredResource {
                    name,
                    body: fnhcl_value::from_serde_json(&body),
                    ready,
                    span: r.span,
                    depends_on: Vec::new(),
                    collection: None,
                    optional: true,
                    kept: false,
                });
            }
        }
    }
    Ok(out)
}
