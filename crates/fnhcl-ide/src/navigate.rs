//! Go to definition, find references and rename, over [`Index`].

use fnhcl_base::Span;

use crate::resolve::{DefKind, Hit, Index, Special};
use crate::{FilePosition, Snapshot, TextEdit};

/// Where what is at `pos` is defined: a local's attribute name, an `arg`
/// label, a `for` variable, a resource/collection/function label, the
/// `for_each` attribute for `each`, the enclosing block's header for
/// `self`. Empty when nothing navigable is there.
pub fn definition(snapshot: &Snapshot, pos: FilePosition) -> Vec<Span> {
    let index = snapshot.index();
    match index.at(pos) {
        Some(Hit::Def(d) | Hit::Ref(d, _)) => vec![index.defs[d].span],
        Some(Hit::Special(Special::Each(s) | Special::SelfOf(s), _)) => vec![s],
        None => Vec::new(),
    }
}

/// Every use of what is at `pos`, in every file of the program, and its
/// definition when `include_declaration`.
pub fn references(snapshot: &Snapshot, pos: FilePosition, include_declaration: bool) -> Vec<Span> {
    let index = snapshot.index();
    let mut out: Vec<Span> = match index.at(pos) {
        Some(Hit::Def(d) | Hit::Ref(d, _)) => {
            let mut v: Vec<Span> = index.uses(d).collect();
            if include_declaration {
                v.push(index.defs[d].span);
            }
            v
        }
        Some(Hit::Special(sp, _)) => {
            let mut v: Vec<Span> = index
                .specials
                .iter()
                .filter(|(_, x)| *x == sp)
                .map(|(s, _)| *s)
                .collect();
            if include_declaration {
                let (Special::Each(s) | Special::SelfOf(s)) = sp;
                v.push(s);
            }
            v
        }
        None => Vec::new(),
    };
    out.sort_by_key(|s| (s.file.0, s.start));
    out.dedup();
    out
}

/// The name a rename at `pos` would change, or why nothing can be renamed
/// there.
pub fn prepare_rename(snapshot: &Snapshot, pos: FilePosition) -> Result<Span, String> {
    let index = snapshot.index();
    let (def, span) = renameable(index, pos)?;
    let _ = def;
    Ok(span)
}

/// The edits that rename what is at `pos` to `new_name` everywhere: the
/// definition and every use. Fails when the name is not an identifier or
/// is already taken in the definition's scope.
pub fn rename(
    snapshot: &Snapshot,
    pos: FilePosition,
    new_name: &str,
) -> Result<Vec<TextEdit>, String> {
    let index = snapshot.index();
    let (def, _) = renameable(index, pos)?;
    let d = &index.defs[def];
    if !is_identifier(new_name) {
        return Err(format!(
            "\"{new_name}\" is not a valid name (letters, digits, _ and -, not starting with a digit or -)"
        ));
    }
    if new_name == d.name {
        return Ok(Vec::new());
    }
    if let Some(clash) = clash(index, def, new_name) {
        return Err(clash);
    }
    let mut spans: Vec<Span> = index.uses(def).collect();
    spans.push(d.span);
    spans.sort_by_key(|s| (s.file.0, s.start));
    spans.dedup();
    Ok(spans
        .into_iter()
        .map(|span| TextEdit {
            span,
            new_text: new_name.to_owned(),
        })
        .collect())
}

fn renameable(index: &Index, pos: FilePosition) -> Result<(usize, Span), String> {
    let (def, span) = match index.at(pos) {
        Some(Hit::Def(d)) => (d, index.defs[d].span),
        Some(Hit::Ref(d, s)) => (d, s),
        Some(Hit::Special(..)) => return Err("each and self cannot be renamed".to_owned()),
        None => {
            return Err(
                "nothing to rename here: only locals, for variables, resources, collections, requirements and user functions can be renamed"
                    .to_owned(),
            );
        }
    };
    match index.defs[def].kind {
        DefKind::Arg => {
            return Err(
                "function arguments cannot be renamed (invoke calls name them in objects)"
                    .to_owned(),
            );
        }
        DefKind::Param | DefKind::Instance | DefKind::Switch => {
            return Err("module parameters, instances and switches cannot be renamed (other modules and Crossplane names depend on them)".to_owned());
        }
        _ => {}
    }
    Ok((def, span))
}

/// Why `new_name` cannot be given to `def`, if it cannot.
fn clash(index: &Index, def: usize, new_name: &str) -> Option<String> {
    let d = &index.defs[def];
    let module = index.module_of(def);
    match d.kind {
        DefKind::Local | DefKind::ForVar | DefKind::Arg => {
            if matches!(
                new_name,
                "req" | "self" | "each" | "param" | "module" | "switch"
            ) {
                return Some(format!("\"{new_name}\" is a reserved name"));
            }
            let frame = index.frame_of(def);
            index
                .defs
                .iter()
                .enumerate()
                .find(|(i, o)| {
                    *i != def
                        && o.name == new_name
                        && (matches!(o.kind, DefKind::Local | DefKind::Arg)
                            || (o.kind == DefKind::ForVar && d.kind != DefKind::ForVar))
                        && index.module_of(*i) == module
                        && index.related_frames(frame, index.frame_of(*i))
                })
                .map(|_| format!("\"{new_name}\" is already a variable in this scope"))
        }
        kind => index
            .defs
            .iter()
            .enumerate()
            .find(|(i, o)| {
                *i != def && o.kind == kind && o.name == new_name && index.module_of(*i) == module
            })
            .map(|_| {
                let what = match kind {
                    DefKind::Resource => "resource",
                    DefKind::Collection => "resources collection",
                    DefKind::Requirement => "requirement",
                    _ => "function",
                };
                format!("a {what} named \"{new_name}\" already exists")
            }),
    }
}

/// HCL's identifiers, as the evaluator checks names.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
#[path = "navigate_tests.rs"]
pub(crate) mod tests;
