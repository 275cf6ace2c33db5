//! `depends_on` (D40) and `on_incomplete` (D41) of `resource`,
//! `resources` and `module` blocks: the attributes, and the checks that
//! need every name of the module (unknown names, cycles).

use std::collections::{BTreeMap, HashMap};

use fnhcl_base::{Diagnostic, codes};
use fnhcl_syntax::ast::{Attribute, ExprKind};

use super::env::Compiler;
use super::types::{Dep, DepKind, Policy};
use crate::refs::literal_string;
use crate::schema;

impl Compiler<'_> {
    /// The policy of the block `owner` from its `depends_on` and
    /// `on_incomplete` attributes (each may be absent). Both are constants.
    pub(super) fn policy(
        &mut self,
        owner: &str,
        depends_on: Option<&Attribute>,
        on_incomplete: Option<&Attribute>,
    ) -> Policy {
        let mut policy = Policy::default();
        if let Some(a) = depends_on {
            policy.depends_on = self.depends_on(a);
            if !policy.depends_on.is_empty() {
                self.depends
                    .push((owner.to_owned(), policy.depends_on.clone()));
                // An operation has no observed resources to wait for.
                self.composite_uses.push(crate::CompositeUse {
                    span: a.name.span,
                    what: "depends_on".to_owned(),
                });
            }
        }
        if let Some(a) = on_incomplete {
            match literal_string(&a.expr).as_deref() {
                Some("keep") => {
                    policy.keep = true;
                    self.demand.add_observed_bodies();
                }
                Some("fatal") => {}
                _ => self.err(
                    Diagnostic::error(
                        "on_incomplete must be \"fatal\" or \"keep\"",
                        "\"fatal\" (the default) stops the run when an existing resource cannot be computed; \"keep\" keeps it as it is observed; the value cannot be computed",
                    )
                    .with_span(a.expr.span)
                    .with_code(codes::PROGRAM),
                ),
            }
        }
        policy
    }

    fn depends_on(&mut self, a: &Attribute) -> Vec<Dep> {
        let bad = |detail: &str| {
            Diagnostic::error(
                "depends_on must be a list of block names",
                detail.to_owned(),
            )
            .with_code(codes::PROGRAM)
            .with_span(a.expr.span)
        };
        let ExprKind::Tuple(items) = &a.expr.kind else {
            self.err(bad(
                "write the names of resource, resources or module blocks of this module as strings, e.g. depends_on = [\"vpc\"]",
            ));
            return Vec::new();
        };
        let mut out: Vec<Dep> = Vec::new();
        let mut named = std::collections::HashSet::new();
        for e in items {
            match literal_string(e) {
                Some(name) if !named.insert(name.clone()) => self.err(
                    Diagnostic::error(
                        format!("depends_on names \"{name}\" twice"),
                        "name each block once",
                    )
                    .with_span(e.span)
                    .with_code(codes::PROGRAM),
                ),
                Some(name) => out.push(Dep { name, span: e.span }),
                None => self.err(bad(
                    "each element is a constant string naming a resource, resources or module block",
                )),
            }
        }
        out
    }

    /// What each name of the module's resource, resources and module
    /// blocks is, for the evaluator; and the checks of every `depends_on`
    /// against them: names that exist, no cycle.
    pub(super) fn check_depends(&mut self) -> HashMap<String, DepKind> {
        let mut kinds: HashMap<String, DepKind> = HashMap::new();
        for (names, kind) in [
            (&self.instances, DepKind::Instance),
            (&self.collections, DepKind::Collection),
            (&self.resources, DepKind::Resource),
        ] {
            for n in names.keys() {
                kinds.insert(n.clone(), kind);
            }
        }
        let depends = std::mem::take(&mut self.depends);
        let mut graph: BTreeMap<&str, Vec<&Dep>> = BTreeMap::new();
        for (owner, deps) in &depends {
            for d in deps {
                if kinds.contains_key(&d.name) {
                    graph.entry(owner).or_default().push(d);
                    continue;
                }
                let mut detail =
                    "depends_on names resource, resources and module blocks of the same module"
                        .to_owned();
                if let Some(s) = schema::suggest(&d.name, kinds.keys().map(String::as_str)) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                }
                self.err(
                    Diagnostic::error(
                        format!(
                            "depends_on: no resource, resources or module block named \"{}\"",
                            d.name
                        ),
                        detail,
                    )
                    .with_code(codes::UNKNOWN_DEPENDENCY)
                    .with_span(d.span),
                );
            }
        }
        if let Some(cycle) = find_cycle(&graph) {
            let chain: Vec<&str> = cycle.iter().map(|d| d.name.as_str()).collect();
            let start = cycle.last().map_or("", |d| d.name.as_str());
            let mut d = Diagnostic::error(
                format!("depends_on cycle: {start} → {}", chain.join(" → ")),
                "blocks that wait for each other are never created; remove one of these dependencies",
            )
            .with_span(cycle[0].span)
            .with_code(codes::DEPENDENCY_CYCLE);
            for dep in &cycle[1..] {
                d = d.with_label(dep.span, format!("\"{}\" is part of the cycle", dep.name));
            }
            self.err(d);
        }
        kinds
    }
}

/// A cycle of the dependency graph, as the dependencies along it (the
/// last one leads back to where the first one starts), if there is one.
fn find_cycle<'a>(graph: &BTreeMap<&'a str, Vec<&'a Dep>>) -> Option<Vec<&'a Dep>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    /// Depth-first from `node`; `nodes` are the blocks on the current
    /// path and `edges[k]` leads from `nodes[k]` to `nodes[k + 1]`.
    fn visit<'a>(
        node: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a Dep>>,
        marks: &mut HashMap<&'a str, Mark>,
        nodes: &mut Vec<&'a str>,
        edges: &mut Vec<&'a Dep>,
    ) -> Option<Vec<&'a Dep>> {
        marks.insert(node, Mark::Open);
        nodes.push(node);
        for dep in graph.get(node).into_iter().flatten() {
            let next = dep.name.as_str();
            match marks.get(next) {
                Some(Mark::Open) => {
                    let from = nodes.iter().position(|n| *n == next).unwrap_or(0);
                    let mut cycle: Vec<&Dep> = edges[from..].to_vec();
                    cycle.push(dep);
                    return Some(cycle);
                }
                Some(Mark::Done) => {}
                None => {
                    edges.push(dep);
                    if let Some(c) = visit(next, graph, marks, nodes, edges) {
                        return Some(c);
                    }
                    edges.pop();
                }
            }
        }
        nodes.pop();
        marks.insert(node, Mark::Done);
        None
    }
    let mut marks = HashMap::new();
    for &start in graph.keys() {
        if marks.contains_key(start) {
            continue;
        }
        if let Some(c) = visit(start, graph, &mut marks, &mut Vec::new(), &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}
