//! `depends_on` on a block that may not exist (D40): a dependency whose
//! block has a condition (its own, or a group's, switch branch's or module
//! instance's around it) holds the dependent back for as long as that
//! condition is false.

use std::collections::{BTreeMap, BTreeSet};

use fnhcl_base::{Diagnostic, FileId, SourceMap};
use fnhcl_syntax::ast::{Block, Body, ExprKind, Structure};

use crate::codes;

const MAX_DEPTH: usize = 64;

fn blocks(body: &Body) -> impl Iterator<Item = &Block> {
    body.items.iter().filter_map(|s| match s {
        Structure::Block(b) => Some(b),
        _ => None,
    })
}

fn has_attr(b: &Block, name: &str) -> bool {
    b.body
        .items
        .iter()
        .any(|s| matches!(s, Structure::Attribute(a) if &*a.name.name == name))
}

/// The name `depends_on` knows a block by: a resource's or collection's
/// label, a module instance's second label.
fn block_name(b: &Block) -> Option<&str> {
    let i = match &*b.ident.name {
        "resource" | "resources" => 0,
        "module" => 1,
        _ => return None,
    };
    b.labels.get(i).map(|l| l.value.as_str())
}

/// The names of the blocks that may not be there, in `body`.
fn conditional(body: &Body, inherited: bool, depth: usize, out: &mut BTreeSet<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    for b in blocks(body) {
        let here = inherited || has_attr(b, "condition");
        match &*b.ident.name {
            "group" | "case" | "default" => conditional(&b.body, here, depth + 1, out),
            // A switch's branches are taken one at a time.
            "switch" => conditional(&b.body, true, depth + 1, out),
            _ => {
                if here && let Some(n) = block_name(b) {
                    out.insert(n.to_owned());
                }
            }
        }
    }
}

fn check_body(
    body: &Body,
    conditional: &BTreeSet<String>,
    depth: usize,
    out: &mut Vec<Diagnostic>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for b in blocks(body) {
        if matches!(&*b.ident.name, "group" | "switch" | "case" | "default") {
            check_body(&b.body, conditional, depth + 1, out);
            continue;
        }
        let Some(owner) = block_name(b) else { continue };
        for s in &b.body.items {
            let Structure::Attribute(a) = s else { continue };
            let (true, ExprKind::Tuple(items)) = (&*a.name.name == "depends_on", &a.expr.kind)
            else {
                continue;
            };
            for e in items {
                let Some(name) = fnhcl_syntax::visit::literal_string(e) else {
                    continue;
                };
                if conditional.contains(&name) && name != owner {
                    out.push(
                        Diagnostic::warning(
                            format!("\"{owner}\" depends on \"{name}\", which may not be created"),
                            format!(
                                "\"{name}\" has a condition (its own, or a group's, switch branch's or module instance's around it): while it is false, \"{owner}\" is held back; give both the same condition, or drop the dependency"
                            ),
                        )
                        .with_span(e.span)
                        .with_code(codes::CONDITIONAL_DEPENDENCY),
                    );
                }
            }
        }
    }
}

/// W0613 for every file of `bodies`, with the blocks of the files of the
/// same directory (one module) as the candidates.
pub(crate) fn check(bodies: &[(FileId, &Body)], sources: &SourceMap) -> Vec<Diagnostic> {
    let dir = |f: FileId| {
        let name = &sources.get(f).name;
        name.rsplit_once('/').map_or("", |(d, _)| d).to_owned()
    };
    let mut modules: BTreeMap<String, Vec<&Body>> = BTreeMap::new();
    for (f, b) in bodies {
        modules.entry(dir(*f)).or_default().push(b);
    }
    let mut out = Vec::new();
    for files in modules.values() {
        let mut names = BTreeSet::new();
        for b in files {
            conditional(b, false, 0, &mut names);
        }
        if names.is_empty() {
            continue;
        }
        for b in files {
            check_body(b, &names, 0, &mut out);
        }
    }
    out
}
