//! What a reference path leads to: the attributes of `req`, `self` and
//! `each`, the names of declared blocks, and the schema fields of the XR
//! and of composed resources.

use fnhcl_base::FileId;
use fnhcl_schema::Field;

use crate::cursor::{BodyOf, Cursor, traversal_ending};
use crate::lex::{T, Token, closes_string, tokenize_expr};
use crate::program::{FileInfo, Program};
use crate::{Snapshot, completion::CompletionKind, docs};

pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) kind: CompletionKind,
    pub(crate) detail: Option<String>,
    pub(crate) doc: Option<String>,
}

fn member(name: &str, kind: CompletionKind, detail: Option<String>, doc: Option<&str>) -> Member {
    Member {
        name: name.to_owned(),
        kind,
        detail,
        doc: doc.map(str::to_owned),
    }
}

/// The schema field at `path` of a body.
pub(crate) fn field_at<'s>(
    snap: &'s Snapshot,
    body: &BodyOf,
    path: &[String],
) -> Option<Field<'s>> {
    let path: Vec<&str> = path.iter().map(String::as_str).collect();
    match body {
        BodyOf::Resource(Some(v), Some(k)) => {
            snap.options().schemas.as_ref()?.get(v, k)?.field(&path)
        }
        BodyOf::Resource(..) => None,
        BodyOf::CompositeStatus => snap.options().composite_schema.as_ref()?.field(&path),
        BodyOf::CompositeConnection => None,
    }
}

/// The fields of an object schema.
fn fields(f: &Field<'_>) -> Vec<Member> {
    f.property_names()
        .into_iter()
        .filter_map(|name| {
            let c = f.child(name)?;
            Some(member(
                name,
                CompletionKind::Field,
                Some(c.type_name()),
                c.description(),
            ))
        })
        .collect()
}

/// The resource-like block around the cursor.
fn enclosing_resource(c: &Cursor<'_>, file: &FileInfo<'_>) -> Option<usize> {
    file.enclosing(c.word_start).into_iter().rev().find(|&i| {
        matches!(
            file.outline.blocks[i].ty.as_str(),
            "resource" | "template" | "resources"
        )
    })
}

/// What can follow `path.` at the cursor.
pub(crate) fn members(
    snap: &Snapshot,
    program: &Program<'_>,
    c: &Cursor<'_>,
    file: FileId,
    path: &[String],
) -> Vec<Member> {
    members_at(snap, program, c, file, path, 0)
}

/// [`members`], `depth` locals deep in aliases.
fn members_at(
    snap: &Snapshot,
    program: &Program<'_>,
    c: &Cursor<'_>,
    file: FileId,
    path: &[String],
    depth: usize,
) -> Vec<Member> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    let names = |ty: &str, what: &str| -> Vec<Member> {
        program
            .names(ty)
            .iter()
            .map(|n| member(n, CompletionKind::Field, Some(what.to_owned()), None))
            .collect()
    };
    match p.as_slice() {
        ["req"] => docs::REQ
            .iter()
            .map(|(n, d)| member(n, CompletionKind::Field, None, Some(d)))
            .collect(),
        ["req", "composite", rest @ ..] => match &snap.options().composite_schema {
            Some(s) => {
                let mut out = s.field(rest).map(|f| fields(&f)).unwrap_or_default();
                if rest.is_empty() {
                    // The envelope every object has, whatever the XRD lists.
                    for n in ["apiVersion", "kind", "metadata"] {
                        if !out.iter().any(|m| m.name == n) {
                            let doc = s.field(&[n]).and_then(|f| f.description());
                            out.push(member(n, CompletionKind::Field, None, doc));
                        }
                    }
                }
                out
            }
            None if rest.is_empty() => ["apiVersion", "kind", "metadata", "spec", "status"]
                .iter()
                .map(|n| member(n, CompletionKind::Field, None, None))
                .collect(),
            None => Vec::new(),
        },
        ["req", "resource" | "connection"] => names("resource", "resource"),
        ["req", "resources" | "connections"] => names("resources", "collection"),
        ["req", "extra_resources"] => names("requirement", "requirement"),
        ["req", "resource", name, rest @ ..] => {
            let Some((f, _)) = program.decl("resource", name) else {
                return Vec::new();
            };
            let Some(i) =
                f.outline.blocks.iter().position(|b| {
                    b.ty == "resource" && b.labels.first().is_some_and(|l| l.0 == *name)
                })
            else {
                return Vec::new();
            };
            let (v, k) = f.body_kind(i);
            let rest: Vec<String> = rest.iter().map(|s| (*s).to_owned()).collect();
            field_at(snap, &BodyOf::Resource(v, k), &rest)
                .map(|f| fields(&f))
                .unwrap_or_default()
        }
        ["self"] => docs::self_attrs(&c.chain())
            .iter()
            .map(|(n, d)| member(n, CompletionKind::Field, None, Some(d)))
            .collect(),
        ["self", "resource", rest @ ..] => {
            let Some(file) = program.file(file) else {
                return Vec::new();
            };
            let Some(i) = enclosing_resource(c, file) else {
                return Vec::new();
            };
            let (v, k) = file.body_kind(i);
            let rest: Vec<String> = rest.iter().map(|s| (*s).to_owned()).collect();
            field_at(snap, &BodyOf::Resource(v, k), &rest)
                .map(|f| fields(&f))
                .unwrap_or_default()
        }
        ["each"] if c.chain().contains(&"resources") => docs::EACH
            .iter()
            .map(|(n, d)| member(n, CompletionKind::Field, None, Some(d)))
            .collect(),
        ["param"] => names("param", "parameter"),
        ["switch"] => names("switch", "switch"),
        ["switch", name] => {
            let mut out: Vec<Member> = docs::SWITCH
                .iter()
                .map(|(n, d)| member(n, CompletionKind::Field, None, Some(d)))
                .collect();
            if let Some((f, i)) = program.decl_index("switch", name) {
                out.extend(program.exports(Some((f, i))).iter().map(|n| {
                    member(
                        n,
                        CompletionKind::Field,
                        Some("export of the chosen branch".to_owned()),
                        None,
                    )
                }));
            }
            out
        }
        ["switch", name, "case"] => match program.decl_index("switch", name) {
            Some((f, i)) => program
                .cases(f, i)
                .iter()
                .map(|n| member(n, CompletionKind::Field, Some("case".to_owned()), None))
                .collect(),
            None => Vec::new(),
        },
        ["switch", _, "case", _] => vec![member(
            "evaluated",
            CompletionKind::Field,
            None,
            Some("True when this case is the one chosen."),
        )],
        ["module", instance] => match program.module_of_instance(snap, instance) {
            Some(m) => m
                .exports(None)
                .iter()
                .map(|n| member(n, CompletionKind::Field, Some("export".to_owned()), None))
                .collect(),
            None => Vec::new(),
        },
        ["module"] => {
            let mut out: Vec<Member> = program
                .decls("module")
                .into_iter()
                .filter_map(|(_, b)| b.labels.get(1))
                .map(|l| {
                    member(
                        &l.0,
                        CompletionKind::Field,
                        Some("module instance".to_owned()),
                        None,
                    )
                })
                .collect();
            out.sort_by(|a, b| a.name.cmp(&b.name));
            out.dedup_by(|a, b| a.name == b.name);
            out
        }
        [root, rest @ ..] if depth < 4 => {
            // A local that is an alias of a path (`spec = req.composite.spec`)
            // or an object literal: what its value has.
            let Some(b) = program
                .bindings_at(file, c.word_start)
                .into_iter()
                .find(|b| b.name == *root && !b.is_arg)
            else {
                return Vec::new();
            };
            let value = b.text.as_str();
            let tokens = tokenize_expr(value);
            if let Some(mut target) = alias_of(value, &tokens) {
                target.extend(rest.iter().map(|s| (*s).to_owned()));
                return members_at(snap, program, c, file, &target, depth + 1);
            }
            match tokens.first() {
                Some(t) if rest.is_empty() && t.kind == T::OBrace => {
                    crate::program::object_keys(value, &tokens, t.start, u32::MAX)
                        .iter()
                        .map(|k| member(k, CompletionKind::Field, None, None))
                        .collect()
                }
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// The path an expression is, when it is only a static traversal.
pub(crate) fn alias_of(text: &str, tokens: &[Token]) -> Option<Vec<String>> {
    let simple = tokens.first()?.kind == T::Ident
        && tokens.iter().all(|t| {
            matches!(
                t.kind,
                T::Ident | T::NumberLit | T::Dot | T::OBrack | T::CBrack | T::OQuote | T::QuotedLit
            ) || closes_string(t)
        });
    if !simple {
        return None;
    }
    traversal_ending(text, tokens, tokens.len() - 1)
}
