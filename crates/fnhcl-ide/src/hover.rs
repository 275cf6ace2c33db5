//! Hover: what the name under the cursor is. A body key: its CRD field
//! (type, description); a block type or attribute: its description; a
//! built-in call: signature and description; a reference: the local's
//! defining expression, the argument, `each`/`self`/`req` attributes, the
//! XR field of a `req.composite` path, the block a `req.resource.X` names.

use fnhcl_base::Span;

use crate::cursor::Cursor;
use crate::lex::{T, Token, closes_string, opens_string, tokenize, tokenize_expr};
use crate::members::field_at;
use crate::program::Program;
use crate::walk::{Entry, Kind};
use crate::{FilePosition, Snapshot, docs};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    /// The word hovered.
    pub span: Span,
    /// Markdown.
    pub markdown: String,
}

pub fn hover(snap: &Snapshot, pos: FilePosition) -> Option<Hover> {
    let file = snap.sources().get(pos.file);
    let text = &*file.text;
    let tokens = tokenize(text);
    let Some(t) = tokens
        .iter()
        .find(|t| t.kind == T::Ident && t.start <= pos.offset && pos.offset <= t.end)
        .copied()
    else {
        return invoked_function(snap, pos, &tokens);
    };
    let c = Cursor::new(text, t.end);
    if c.word_start != t.start || c.in_comment {
        return None;
    }
    let name = t.text(text);
    let next = tokens
        .iter()
        .find(|n| n.start >= t.end && n.kind != T::Comment);
    let markdown = describe(
        snap,
        &c,
        pos,
        name,
        next.map(|n| (n.kind, n.start == t.end)),
    )?;
    Some(Hover {
        span: Span::new(pos.file, t.start as usize, t.end as usize),
        markdown,
    })
}

/// The user function named by the string of `invoke("name", ...)`.
fn invoked_function(snap: &Snapshot, pos: FilePosition, tokens: &[Token]) -> Option<Hover> {
    let text = &*snap.sources().get(pos.file).text;
    let t = tokens
        .iter()
        .find(|t| t.kind == T::QuotedLit && t.start <= pos.offset && pos.offset <= t.end)?;
    let c = Cursor::new(text, t.start);
    let n = c.frames.len();
    if n < 2 || c.top().kind != Kind::Str {
        return None;
    }
    let Kind::Paren {
        func: Some(f),
        commas: 0,
        ..
    } = &c.frames[n - 2].kind
    else {
        return None;
    };
    if f != "invoke" {
        return None;
    }
    let name = t.text(text);
    let uf = Program::new(snap, pos.file)
        .functions()
        .into_iter()
        .find(|u| u.name == name)?;
    let mut markdown = format!("**function** `{name}`");
    for (arg, description, optional) in &uf.args {
        let opt = if *optional { " (optional)" } else { "" };
        markdown.push_str(&format!("\n- `{arg}`{opt}"));
        if let Some(d) = description {
            markdown.push_str(&format!(": {d}"));
        }
    }
    if let Some(d) = &uf.description {
        markdown.push_str("\n\n");
        markdown.push_str(d);
    }
    Some(Hover {
        span: Span::new(pos.file, t.start as usize, t.end as usize),
        markdown,
    })
}

/// A schema field as markdown: `title`, type, description.
fn field_markdown(title: &str, f: &fnhcl_schema::Field<'_>) -> String {
    let req = if f.required() { " (required)" } else { "" };
    let mut s = format!("**{title}**: `{}`{req}", f.type_name());
    if let Some(d) = f.description() {
        s.push_str("\n\n");
        s.push_str(d);
    }
    s
}

fn describe(
    snap: &Snapshot,
    c: &Cursor<'_>,
    pos: FilePosition,
    name: &str,
    next: Option<(T, bool)>,
) -> Option<String> {
    let top = c.top();
    let assigned = matches!(next, Some((T::Equal | T::Colon, _)));
    if matches!(top.entry, Entry::Start) && matches!(top.kind, Kind::Body { .. } | Kind::Object) {
        if let Some((body, mut path)) = c.body_at(&c.frames) {
            path.push(name.to_owned());
            let f = field_at(snap, &body, &path)?;
            return Some(field_markdown(name, &f));
        }
        if !matches!(top.kind, Kind::Body { .. }) {
            return None;
        }
        let chain = c.chain();
        if assigned {
            let block = chain.last().copied().unwrap_or("");
            if block == "locals" {
                // The local's own name: what it is defined as.
                let program = Program::new(snap, pos.file);
                let b = program
                    .bindings_at(pos.file, c.word_start)
                    .into_iter()
                    .find(|b| b.name == name && !b.is_arg)?;
                return Some(local_markdown(snap, name, &b.text));
            }
            return docs::attribute(block, name).map(|d| format!("**{name}** (attribute)\n\n{d}"));
        }
        return docs::block(name).map(|d| format!("**{name}** (block)\n\n{d}"));
    }
    if matches!(top.kind, Kind::Body { .. } | Kind::Object)
        && !matches!(top.entry, Entry::Value { .. })
    {
        return None;
    }
    if let Some((T::OParen, true)) = next {
        let f = fnhcl_functions::registry().get(name)?;
        return Some(format!(
            "```hcl\n{}\n```\n\n{}",
            f.signature(),
            f.description
        ));
    }
    let mut path = c.path_before_word().unwrap_or_default();
    path.push(name.to_owned());
    reference(snap, c, pos, &path)
}

fn reference(
    snap: &Snapshot,
    c: &Cursor<'_>,
    pos: FilePosition,
    path: &[String],
) -> Option<String> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    let program = Program::new(snap, pos.file);
    let block_of = |ty: &str, n: &str, what: &str| -> Option<String> {
        let (f, b) = program.decl(ty, n)?;
        let file = snap.sources().get(f.id);
        let line = file.line_col(b.start).line;
        let mut s = format!("**{what}** `{n}` ({}:{})", file.name, line);
        if ty == "resource"
            && let Some(i) = f.outline.blocks.iter().position(|x| x.start == b.start)
            && let (Some(v), Some(k)) = f.body_kind(i)
        {
            s.push_str(&format!("\n\n`{v}` `{k}`"));
        }
        Some(s)
    };
    match p.as_slice() {
        ["req"] => Some("**req**: the request (observed composite and composed resources, context, extra resources)".to_owned()),
        ["req", k] => docs::REQ
            .iter()
            .find(|(n, _)| n == k)
            .map(|(n, d)| format!("**req.{n}**\n\n{d}")),
        ["req", "composite", rest @ ..] => {
            let f = snap.options().composite_schema.as_ref()?.field(rest)?;
            Some(field_markdown(&format!("req.composite.{}", rest.join(".")), &f))
        }
        ["req", "resource" | "connection", n] => block_of("resource", n, "resource"),
        ["req", "resource", n, rest @ ..] => {
            // The observed resource has the schema of the kind its body names.
            let (f, b) = program.decl("resource", n)?;
            let i = f.outline.blocks.iter().position(|x| x.start == b.start)?;
            let (v, k) = f.body_kind(i);
            let rest: Vec<String> = rest.iter().map(|s| (*s).to_owned()).collect();
            let field = field_at(snap, &crate::cursor::BodyOf::Resource(v, k), &rest)?;
            Some(field_markdown(&format!("req.resource.{n}.{}", rest.join(".")), &field))
        }
        ["req", "resources" | "connections", n] => block_of("resources", n, "collection"),
        ["req", "extra_resources", n] => block_of("requirement", n, "requirement"),
        ["param", n] => {
            let mut s = block_of("param", n, "parameter")?;
            let (f, b) = program.decl("param", n)?;
            let i = f.outline.blocks.iter().position(|x| x.start == b.start)?;
            if let Some(d) = f.string_attr(i, "description") {
                s.push_str("\n\n");
                s.push_str(&d);
            }
            Some(s)
        }
        ["module", n] => {
            // `module "<source>" "<n>"`: where, of what, and its exports.
            let (f, b) = program
                .decls("module")
                .into_iter()
                .find(|(_, b)| b.labels.get(1).is_some_and(|l| l.0 == *n))?;
            let file = snap.sources().get(f.id);
            let line = file.line_col(b.start).line;
            let source = &b.labels[0].0;
            let mut s = format!(
                "**module instance** `{n}` of `{source}` ({}:{line})",
                file.name
            );
            let exports = program
                .module_of_instance(snap, n)
                .map(|m| m.exports(None))
                .unwrap_or_default();
            if !exports.is_empty() {
                s.push_str(&format!("

exports: `{}`", exports.join("`, `")));
            }
            Some(s)
        }
        ["switch", n] => {
            let (f, b) = program.decl("switch", n)?;
            let i = f.outline.blocks.iter().position(|x| x.start == b.start)?;
            let file = snap.sources().get(f.id);
            let line = file.line_col(b.start).line;
            let mut s = format!("**switch** `{n}` ({}:{line})", file.name);
            let mut branches: Vec<String> = program
                .cases(f.id, i)
                .into_iter()
                .map(|c| format!("`{c}`"))
                .collect();
            if f.outline
                .blocks
                .iter()
                .any(|x| x.parent == Some(i) && x.ty == "default")
            {
                branches.push("`default`".to_owned());
            }
            if !branches.is_empty() {
                s.push_str(&format!("

branches: {}", branches.join(", ")));
            }
            let exports = program.exports(Some((f.id, i)));
            if !exports.is_empty() {
                s.push_str(&format!("

exports: `{}`", exports.join("`, `")));
            }
            Some(s)
        }
        ["self", k] => docs::self_attrs(&c.chain())
            .iter()
            .find(|(n, _)| n == k)
            .map(|(n, d)| format!("**self.{n}**\n\n{d}")),
        ["each", k] => docs::EACH
            .iter()
            .find(|(n, _)| n == k)
            .map(|(n, d)| format!("**each.{n}**\n\n{d}")),
        ["each"] => Some("**each**: the element of `for_each` (`each.key`, `each.value`)".to_owned()),
        ["self"] => Some("**self**: this resource or collection".to_owned()),
        [n] => {
            let b = program
                .bindings_at(pos.file, c.word_start)
                .into_iter()
                .find(|b| b.name == *n)?;
            Some(if b.is_arg {
                let mut s = format!("**argument** `{n}`");
                if !b.text.is_empty() {
                    s.push_str("\n\n");
                    s.push_str(&b.text);
                }
                s
            } else {
                local_markdown(snap, n, &b.text)
            })
        }
        _ => None,
    }
}

/// A local: its defining expression and, when the expression tells, its type.
fn local_markdown(snap: &Snapshot, name: &str, value: &str) -> String {
    let mut s = format!("**local** `{name}`");
    if let Some(t) = type_hint(snap, value) {
        s.push_str(&format!(": `{t}`"));
    }
    s.push_str(&format!("\n\n```hcl\n{name} = {value}\n```"));
    s
}

/// The type of an expression where its text alone tells: a literal, an
/// object or tuple constructor, or a path into the XR's schema.
fn type_hint(snap: &Snapshot, value: &str) -> Option<String> {
    let tokens = tokenize_expr(value);
    let kinds: Vec<T> = tokens.iter().map(|t| t.kind).collect();
    let first = tokens.first()?;
    match kinds.as_slice() {
        [T::NumberLit] => return Some("number".to_owned()),
        [T::Ident] if matches!(first.text(value), "true" | "false") => {
            return Some("bool".to_owned());
        }
        [k, ..] if opens_string(*k) && one_string(&tokens) => return Some("string".to_owned()),
        [T::OBrace, ..] if kinds.last() == Some(&T::CBrace) => {
            return Some("object".to_owned());
        }
        [T::OBrack, ..] if kinds.last() == Some(&T::CBrack) => {
            return Some("tuple".to_owned());
        }
        _ => {}
    }
    let path = crate::members::alias_of(value, &tokens)?;
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    match p.as_slice() {
        ["req", "composite", rest @ ..] => Some(
            snap.options()
                .composite_schema
                .as_ref()?
                .field(rest)?
                .type_name(),
        ),
        _ => None,
    }
}

/// True if the tokens are one string, interpolations included.
fn one_string(tokens: &[Token]) -> bool {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate() {
        if opens_string(t.kind) {
            depth += 1;
        } else if closes_string(t) {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + 1 == tokens.len();
            }
        }
    }
    false
}
