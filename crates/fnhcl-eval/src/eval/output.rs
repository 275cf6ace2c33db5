//! The desired state being built ([`Builder`]) and the merging of
//! contributions ([`unify_all`]).

use fnhcl_base::{Diagnostic, Span};
use fnhcl_value::Value;
use std::collections::{BTreeMap, HashMap};

use super::Res;
use crate::api::{DesiredResource, Discard, Output, Selector};
use crate::compile::Program;
use crate::unify;

#[derive(Default)]
pub(super) struct Builder {
    pub(super) resources: Vec<DesiredResource>,
    /// Index of each emitted resource by name (a fast hash: names are
    /// the program's and the request's, looked up once per resource).
    pub(super) names: HashMap<String, usize, foldhash::fast::FixedState>,
    pub(super) status: Vec<(Value, Span)>,
    pub(super) connection: Vec<(BTreeMap<String, Vec<u8>>, Span)>,
    pub(super) context: Vec<(Value, Span)>,
    pub(super) requirements: BTreeMap<String, Selector>,
    pub(super) discards: Vec<Discard>,
}

impl Builder {
    /// A builder with room for `resources` resources (the root module's
    /// items: the usual program emits about one resource per item), so
    /// the usual run does not grow the list and the name index.
    pub(super) fn with_capacity(resources: usize) -> Builder {
        Builder {
            resources: Vec::with_capacity(resources),
            names: HashMap::with_capacity_and_hasher(resources, Default::default()),
            ..Builder::default()
        }
    }

    pub(super) fn finish(self, program: &Program) -> Res<Output> {
        let status = unify_all(&self.status, "unify composite status", program)?;
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
            context,
            requirements: self.requirements,
            discards: self.discards,
            warnings: Vec::new(),
            sources: program.sources.clone(),
        })
    }
}

/// Merges contributions in order; a conflict names both contributions.
fn unify_all(parts: &[(Value, Span)], what: &str, _program: &Program) -> Res<Option<Value>> {
    let mut acc: Option<Value> = None;
    for (i, (v, span)) in parts.iter().enumerate() {
        let Some(old) = acc.as_mut() else {
            acc = Some(v.clone());
            continue;
        };
        if let Err(c) = unify::merge_into(old, v) {
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
    Ok(acc)
}
