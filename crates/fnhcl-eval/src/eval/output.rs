//! The desired state being built ([`Builder`]) and the merging of
//! contributions ([`unify_all`]).

use fnhcl_base::{Diagnostic, Span};
use fnhcl_value::Value;
use std::collections::{BTreeMap, HashMap};

use super::Res;
use crate::api::{
    DesiredResource, Discard, Output, ReadyState, Selector, UserCondition, UserResult,
};
use crate::compile::Program;
use crate::unify;

#[derive(Default)]
pub(super) struct Builder {
    pub(super) resources: Vec<DesiredResource>,
    /// Which names were emitted (looked up once per resource).
    pub(super) names: NameIndex,
    pub(super) status: Vec<(Value, Span)>,
    /// `output` blocks (D39).
    pub(super) output: Vec<(Value, Span)>,
    pub(super) connection: Vec<(BTreeMap<String, Vec<u8>>, Span)>,
    pub(super) context: Vec<(Value, Span)>,
    pub(super) requirements: BTreeMap<String, Selector>,
    pub(super) discards: Vec<Discard>,
    /// `composite ready` (D33), with the block that set it.
    pub(super) composite_ready: Option<(ReadyState, Span)>,
    /// Missing blocks that gate readiness (D32).
    pub(super) gating: Vec<String>,
    /// See [`Output::unfinished`].
    pub(super) unfinished: std::collections::BTreeSet<String>,
    /// `composite condition` blocks, with the block that set each (D35).
    pub(super) conditions: Vec<(UserCondition, Span)>,
    /// Non-fatal `result` blocks (D35).
    pub(super) results: Vec<UserResult>,
}

/// The emitted resources' names, without a copy of each: a name's 64-bit
/// hash (a fixed fast hash: names are the program's and the request's)
/// gives the first resource emitted with that hash, and a hit is confirmed
/// against that resource's name. Another name with the same hash (which
/// practically never happens) is found by a scan of the resources.
#[derive(Default)]
pub(super) struct NameIndex {
    by_hash: HashMap<u64, usize, foldhash::fast::FixedState>,
}

impl NameIndex {
    fn with_capacity(n: usize) -> NameIndex {
        NameIndex {
            by_hash: HashMap::with_capacity_and_hasher(n, Default::default()),
        }
    }

    fn hash(name: &str) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::default().hash_one(name)
    }

    /// The index of the resource called `name` among `resources`.
    pub(super) fn find(&self, name: &str, resources: &[DesiredResource]) -> Option<usize> {
        match self.by_hash.get(&Self::hash(name)) {
            None => None,
            Some(&i) if resources.get(i).is_some_and(|r| r.name == name) => Some(i),
            Some(_) => resources.iter().position(|r| r.name == name),
        }
    }

    /// Records that resource `idx` is called `name` (not emitted before).
    pub(super) fn insert(&mut self, name: &str, idx: usize) {
        self.by_hash.entry(Self::hash(name)).or_insert(idx);
    }
}

impl Builder {
    /// A builder with room for `resources` resources (the root module's
    /// items: the usual program emits about one resource per item), so
    /// the usual run does not grow the list and the name index.
    pub(super) fn with_capacity(resources: usize) -> Builder {
        Builder {
            resources: Vec::with_capacity(resources),
            names: NameIndex::with_capacity(resources),
            ..Builder::default()
        }
    }

    pub(super) fn finish(self, program: &Program) -> Res<Output> {
        let status = unify_all(&self.status, "unify composite status", program)?;
        let operation_output = unify_all(&self.output, "unify output", program)?;
        let context = unify_all(&self.context, "unify context", program)?;
        let context = context
            .as_ref()
            .and_then(Value::as_entries)
            .map(|m| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
            .unwrap_or_default();
        let mut connection: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut sources: BTreeMap<String, Span> = BTreeMap::new();
        for (c, span) in &self.connection {
            for (k, v) in c {
                match connection.get(k) {
                    Some(old) if old != v => {
                        let mut d = Diagnostic::error(
                            format!("unify composite connection: values for key {k} not equal"),
                            "two blocks set different values at the same place",
                        )
                        .with_span(*span);
                        if let Some(first) = sources.get(k) {
                            d = d.with_label(*first, "first set here");
                        }
                        return Err(vec![d]);
                    }
                    Some(_) => {}
                    None => {
                        connection.insert(k.clone(), v.clone());
                        sources.insert(k.clone(), *span);
                    }
                }
            }
        }
        Ok(Output {
            resources: self.resources,
            composite_status: status,
            composite_connection: connection,
            operation_output,
            context,
            requirements: self.requirements,
            discards: self.discards,
            composite_ready: self.composite_ready.map(|(r, _)| r),
            gating: self.gating,
            unfinished: self.unfinished,
            conditions: self.conditions.into_iter().map(|(c, _)| c).collect(),
            results: self.results,
            warnings: Vec::new(),
            sources: program.sources.clone(),
        })
    }
}

/// Merges contributions in order; a conflict names both contributions.
fn unify_all(parts: &[(Value, Span)], what: &str, _program: &Program) -> Res<Option<Value>> {
    let mut acc: Option<unify::Merged> = None;
    for (i, (v, span)) in parts.iter().enumerate() {
        let Some(old) = acc.as_mut() else {
            acc = Some(unify::Merged::new(v));
            continue;
        };
        if let Err(c) = old.merge(v) {
            let mut d = Diagnostic::error(
                format!("{what}: {}", c.message()),
                "two blocks set different values at the same place",
            )
            .with_span(*span);
            if let Some((_, first)) = parts[..i]
                .iter()
                .find(|(p, _)| unify::has_path(p, c.path()))
            {
                d = d.with_label(*first, "conflicting value set here");
            }
            return Err(vec![d]);
        }
    }
    Ok(acc.map(unify::Merged::finish))
}

#[cfg(test)]
mod tests {
    use super::NameIndex;
    use crate::api::DesiredResource;
    use fnhcl_base::{FileId, Span};
    use fnhcl_value::Value;

    fn resource(name: &str) -> DesiredResource {
        DesiredResource {
            name: name.to_owned(),
            body: Value::empty_object(),
            ready: None,
            span: Span {
                file: FileId(0),
                start: 0,
                end: 0,
            },
            depends_on: Vec::new(),
            collection: None,
            optional: false,
            kept: false,
        }
    }

    #[test]
    fn names_are_found_by_hash_and_confirmed() {
        let rs = vec![resource("a"), resource("b")];
        let mut ix = NameIndex::with_capacity(2);
        ix.insert("a", 0);
        ix.insert("b", 1);
        assert_eq!(ix.find("a", &rs), Some(0));
        assert_eq!(ix.find("b", &rs), Some(1));
        assert_eq!(ix.find("c", &rs), None);
    }

    #[test]
    fn a_name_sharing_a_hash_is_found_by_the_scan() {
        // "b"'s hash made to point at "a" (as a collision would): the hit
        // is not confirmed, and the scan finds "b" where it is.
        let rs = vec![resource("a"), resource("b")];
        let mut ix = NameIndex::with_capacity(2);
        ix.by_hash.insert(NameIndex::hash("b"), 0);
        assert_eq!(ix.find("b", &rs), Some(1));
        ix.insert("b", 1);
        assert_eq!(ix.find("b", &rs), Some(1));
        assert_eq!(ix.find("a", &rs), None);
    }
}
