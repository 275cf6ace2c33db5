//! What of the request a program can read: its *demand*.
//!
//! Crossplane sends every observed resource whole (metadata with managed
//! fields, spec, status), while a program usually reads a few fields of
//! each. [`Demand`] is computed once per program from the static part of
//! every `req.*` and `self.resource.*` reference, so that the caller
//! converts only those parts of the request into values (issue 18: "views
//! over the decoded request, converted ... only where they are read").
//!
//! Invariant: a program cannot tell a request converted under its demand
//! from one converted whole. Every reference keeps, at the end of its
//! static path (attribute names and literal string keys), the whole value
//! found there; whatever is done with that value afterwards (passing it to
//! a function, iterating it, indexing it with a computed key) sees it
//! complete. An object on the way to such a value holds only the demanded
//! keys, but a program can only step through it, never see it. Where a
//! demanded key is missing (an error, or a `try`), the caller keeps that
//! whole object, so "did you mean" suggestions name the same keys.
//! Programs with modules demand everything (module instances see their own
//! views of `req`).
//!
//! One visible difference, on purpose: the request depth limit
//! (`fnhcl-crossplane`) applies to what is converted, so data nested too
//! deep in a part the program never reads no longer fails the run.

use std::collections::BTreeMap;

use fnhcl_syntax::ast::{Expr, ExprKind};
use fnhcl_value::{Key, Value};

use crate::{ObservedResource, Request};

/// A set of paths into an object: the whole value, or some of its keys
/// with what is demanded below each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Paths {
    /// The whole value.
    All,
    /// Only these keys (an empty map: nothing).
    Keys(BTreeMap<Key, Paths>),
}

impl Default for Paths {
    fn default() -> Paths {
        Paths::Keys(BTreeMap::new())
    }
}

impl Paths {
    /// Whether the whole value is demanded.
    pub fn is_all(&self) -> bool {
        matches!(self, Paths::All)
    }

    /// Whether nothing is demanded.
    pub fn is_empty(&self) -> bool {
        matches!(self, Paths::Keys(k) if k.is_empty())
    }

    /// Adds one path: the keys in order, then the whole value there.
    pub fn add<'s>(&mut self, keys: impl Iterator<Item = &'s str>) {
        let mut node = self;
        for k in keys {
            match node {
                Paths::All => return,
                Paths::Keys(map) => node = map.entry(Key::from(k)).or_default(),
            }
        }
        *node = Paths::All;
    }
}

/// What of the request a program reads. [`Demand::everything`] converts
/// the request whole.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demand {
    /// `req.composite` (the observed composite's body).
    pub composite: Paths,
    /// Every observed resource's body (`self.resource`, `req.resources`,
    /// `req.resource` with a computed name). Holds `metadata.annotations`
    /// when the evaluator reads collection membership
    /// (`Demand::add_membership`).
    pub observed_all: Paths,
    /// One observed resource's body, by name (`req.resource.NAME`),
    /// `observed_all` included (kept so as references are added, so a
    /// request looks a name up and unions nothing).
    pub observed: BTreeMap<String, Paths>,
    /// `req.context`, by top-level key.
    pub context: Paths,
    /// `req.extra_resources`, by requirement name (lists are kept whole).
    pub extra_resources: Paths,
}

impl Demand {
    /// The whole request.
    pub fn everything() -> Demand {
        Demand {
            composite: Paths::All,
            observed_all: Paths::All,
            observed: BTreeMap::new(),
            context: Paths::All,
            extra_resources: Paths::All,
        }
    }

    /// Nothing: what a program that reads nothing of the request (and has
    /// no collections) demands.
    pub fn nothing() -> Demand {
        Demand {
            composite: Paths::default(),
            observed_all: Paths::default(),
            observed: BTreeMap::new(),
            context: Paths::default(),
            extra_resources: Paths::default(),
        }
    }

    /// Whether the whole request is demanded.
    pub fn is_everything(&self) -> bool {
        self.composite.is_all()
            && self.observed_all.is_all()
            && self.context.is_all()
            && self.extra_resources.is_all()
    }

    /// What is demanded of the observed resource `name`'s body.
    pub fn observed_paths(&self, name: &str) -> &Paths {
        self.observed.get(name).unwrap_or(&self.observed_all)
    }

    /// `request` with only what this demand reads: what converting the
    /// request under the demand gives (`fnhcl-crossplane` converts
    /// protobuf data that way directly; its tests compare the two).
    pub fn project(&self, request: &Request) -> Request {
        let observed = request
            .observed
            .iter()
            .map(|(name, o)| {
                let body = project_value(&o.body, self.observed_paths(name));
                let connection_details = o.connection_details.clone();
                (
                    name.clone(),
                    ObservedResource {
                        body,
                        connection_details,
                    },
                )
            })
            .collect();
        let context = match &self.context {
            Paths::Keys(keys) if keys.keys().all(|k| request.context.contains_key(&**k)) => request
                .context
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), project_value(v, keys.get(k.as_str())?))))
                .collect(),
            _ => request.context.clone(),
        };
        let extra_resources = match &self.extra_resources {
            Paths::Keys(keys)
                if keys
                    .keys()
                    .all(|k| request.extra_resources.contains_key(&**k)) =>
            {
                request
                    .extra_resources
                    .iter()
                    .filter(|(k, _)| keys.contains_key(k.as_str()))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            }
            _ => request.extra_resources.clone(),
        };
        Request {
            composite: request
                .composite
                .as_ref()
                .map(|c| project_value(c, &self.composite)),
            composite_connection: request.composite_connection.clone(),
            credentials: request.credentials.clone(),
            observed,
            context,
            extra_resources,
        }
    }

    /// Adds the reference `expr` (a traversal whose root is `root`).
    pub(crate) fn add_reference(&mut self, root: &str, expr: &Expr) {
        let steps = static_steps(expr);
        let keys = || steps.iter().skip(1).map(String::as_str);
        match (root, steps.first().map(String::as_str)) {
            ("req", None) => *self = Demand::everything(),
            ("req", Some("composite")) => self.composite.add(keys()),
            ("req", Some("context")) => self.context.add(keys()),
            ("req", Some("extra_resources")) => self.extra_resources.add(keys().take(1)),
            ("req", Some("watched")) => self
                .extra_resources
                .add(std::iter::once(crate::WATCHED_RESOURCE)),
            ("req", Some("resource")) => match steps.get(1) {
                Some(name) => self
                    .observed
                    .entry(name.clone())
                    .or_insert_with(|| self.observed_all.clone())
                    .add(steps.iter().skip(2).map(String::as_str)),
                None => self.add_observed_all(std::iter::empty()),
            },
            ("req", Some("resources")) => self.add_observed_all(std::iter::empty()),
            // Connection details are not converted lazily; members' are
            // found by their annotations.
            ("req", Some("connections")) => self.add_membership(),
            ("req", Some("connection" | "composite_connection" | "credentials")) => {}
            // Anything else under `req` is a compile error; stay safe.
            ("req", Some(_)) => *self = Demand::everything(),
            ("self", Some("resource")) => self.add_observed_all(keys()),
            _ => {}
        }
    }

    /// Every observed resource's whole body (`on_incomplete = "keep"`
    /// re-emits observed objects, D41).
    pub(crate) fn add_observed_bodies(&mut self) {
        self.observed_all = Paths::All;
        for p in self.observed.values_mut() {
            *p = Paths::All;
        }
    }

    /// Adds what collection membership is read from: every observed
    /// resource's `metadata.annotations` (the collection's base name and
    /// the member's index). The evaluator reads it for a program with
    /// collections (their members, and D12 for groups that hold them) and
    /// for `req.connections` (members' details by base name); without
    /// either, membership is nowhere to be seen (`req.resources` and `req`
    /// itself demand the bodies whole).
    pub(crate) fn add_membership(&mut self) {
        self.add_observed_all(["metadata", "annotations"].into_iter());
    }

    /// Adds a path of every observed resource's body, to the named ones
    /// too.
    fn add_observed_all<'s>(&mut self, keys: impl Iterator<Item = &'s str> + Clone) {
        for p in self.observed.values_mut() {
            p.add(keys.clone());
        }
        self.observed_all.add(keys);
    }
}

/// `v` with only what `paths` demands; an object missing a demanded key
/// stays whole (see the module invariant).
fn project_value(v: &Value, paths: &Paths) -> Value {
    let (Paths::Keys(keys), Value::Object(entries)) = (paths, v) else {
        return v.clone();
    };
    if keys.keys().any(|k| !entries.contains_key(&**k)) {
        return v.clone();
    }
    Value::object(
        keys.iter()
            .filter_map(|(k, sub)| {
                let (key, value) = entries.get_key_value(&**k)?;
                Some((key.clone(), project_value(value, sub)))
            })
            .collect(),
    )
}

/// The static steps of a traversal after its root: attribute names and
/// literal string keys, up to the first other step (a number index, a
/// computed key), where the whole value is read.
fn static_steps(expr: &Expr) -> Vec<String> {
    let mut rev: Vec<String> = Vec::new();
    let mut cur = expr;
    // Walking from the outside in, a step that is not static cuts off
    // everything after it (outside it).
    loop {
        match &cur.kind {
            ExprKind::GetAttr(inner, name) => {
                rev.push(name.name.to_string());
                cur = inner;
            }
            ExprKind::Index(inner, key) => {
                match crate::refs::literal_string(key) {
                    Some(s) => rev.push(s),
                    None => rev.clear(),
                }
                cur = inner;
            }
            ExprKind::Variable(_) => break,
            // Not a traversal: demand the root whole.
            _ => {
                rev.clear();
                break;
            }
        }
    }
    rev.reverse();
    rev
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expr(src: &str) -> Expr {
        let mut sm = fnhcl_base::SourceMap::new();
        let id = sm.add("t.hcl", format!("x = {src}\n"));
        let (body, diags) = fnhcl_syntax::parse_file(&sm, id);
        assert!(diags.is_empty(), "{diags:?}");
        let Some(fnhcl_syntax::ast::Structure::Attribute(a)) = body.items.into_iter().next() else {
            panic!("attribute");
        };
        a.expr
    }

    fn demand(refs: &[&str]) -> Demand {
        let mut d = Demand::nothing();
        for r in refs {
            let e = expr(r);
            let root = r.split(['.', '[']).next().expect("root");
            d.add_reference(root, &e);
        }
        d
    }

    fn keys(p: &Paths) -> Vec<&str> {
        match p {
            Paths::All => vec!["*"],
            Paths::Keys(k) => k.keys().map(|k| &**k).collect(),
        }
    }

    #[test]
    fn static_paths_keep_the_value_at_their_end() {
        let d = demand(&[
            "req.composite.spec.parameters.region",
            "req.composite.metadata[\"name\"]",
            "req.composite.spec.items[0].name",
        ]);
        assert_eq!(keys(&d.composite), ["metadata", "spec"]);
        let Paths::Keys(top) = &d.composite else {
            panic!()
        };
        assert_eq!(keys(&top["metadata"]), ["name"]);
        let Paths::Keys(spec) = &top["spec"] else {
            panic!()
        };
        assert!(
            spec["items"].is_all(),
            "a number index reads the list whole"
        );
        assert_eq!(keys(&spec["parameters"]), ["region"]);
    }

    #[test]
    fn computed_keys_and_bare_roots_read_everything_below() {
        let d = demand(&["req.composite.spec[local.k].x", "req.context"]);
        let Paths::Keys(top) = &d.composite else {
            panic!()
        };
        assert!(top["spec"].is_all());
        assert!(d.context.is_all());
        assert!(!d.is_everything());
        assert!(demand(&["req"]).is_everything());
        assert!(demand(&["req.unknown.x"]).is_everything());
    }

    #[test]
    fn observed_resources_by_name_and_through_self() {
        let d = demand(&[
            "self.resource.status.atProvider.arn",
            "req.resource.db.spec",
            "req.extra_resources.vpcs[0].spec",
        ]);
        assert_eq!(keys(d.observed_paths("db")), ["spec", "status"]);
        assert_eq!(keys(d.observed_paths("other")), ["status"]);
        // A path of every resource added after a named one reaches it too.
        let later = demand(&["req.resource.db.spec", "self.resource.status"]);
        assert_eq!(keys(later.observed_paths("db")), ["spec", "status"]);
        // Membership: the annotations of every observed resource, named
        // ones included.
        let members = demand(&["req.resource.db.spec", "req.connections.buckets"]);
        for name in ["db", "other"] {
            let Paths::Keys(top) = members.observed_paths(name) else {
                panic!()
            };
            assert_eq!(keys(&top["metadata"]), ["annotations"], "{name}");
        }
        assert_eq!(
            keys(demand(&["req.connection.db"]).observed_paths("db")),
            Vec::<&str>::new()
        );
        let whole = demand(&["req.resource.db.spec", "req.resources.all"]);
        assert!(whole.observed_paths("db").is_all());
        assert_eq!(keys(&d.extra_resources), ["vpcs"]);
        assert!(demand(&["req.resource"]).observed_all.is_all());
        assert!(demand(&["req.resources.buckets"]).observed_all.is_all());
    }
}
