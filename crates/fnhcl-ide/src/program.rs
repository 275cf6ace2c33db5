//! What the whole program declares (resources, collections, requirements,
//! user functions, locals), read from every file's [`Outline`], so that a
//! file that does not parse still contributes its names.

use fnhcl_base::FileId;

use crate::Snapshot;
use crate::lex::{T, Token, closes_string, literal_string, opens_sequence, opens_string, tokenize};
use crate::walk::{AttrDecl, BlockDecl, Outline};

pub(crate) struct FileInfo<'s> {
    pub(crate) id: FileId,
    pub(crate) text: &'s str,
    pub(crate) outline: std::sync::Arc<Outline>,
}

pub(crate) struct Program<'s> {
    pub(crate) files: Vec<FileInfo<'s>>,
}

/// A local or an argument in scope.
pub(crate) struct Binding<'p> {
    pub(crate) name: &'p str,
    pub(crate) is_arg: bool,
    /// The defining expression (a local) or the description (an argument).
    pub(crate) text: String,
}

/// A user function and its arguments `(name, description, optional)`.
pub(crate) struct UserFn {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) args: Vec<(String, Option<String>, bool)>,
}

impl<'s> Program<'s> {
    /// The files of the module `file` belongs to (the root program, or
    /// an imported module directory: each has its own names).
    pub(crate) fn new(snap: &'s Snapshot, file: FileId) -> Program<'s> {
        let sources = snap.sources();
        let mut files: Vec<(FileInfo<'s>, &str)> = sources
            .files()
            .filter(|(_, f)| f.name.ends_with(".hcl"))
            .map(|(id, f)| {
                let info = FileInfo {
                    id,
                    text: &f.text,
                    outline: snap.outline(id),
                };
                (info, f.name.as_str())
            })
            .collect();
        let dirs = module_dirs(files.iter().map(|(f, _)| &*f.outline));
        let module_of = |name: &str| {
            let dir = name.rsplit_once('/').map_or("", |(d, _)| d);
            dirs.iter()
                .filter(|m| dir == m.as_str() || dir.starts_with(&format!("{m}/")))
                .max_by_key(|m| m.len())
                .cloned()
                .unwrap_or_default()
        };
        let here = module_of(&sources.get(file).name);
        files.retain(|(_, name)| module_of(name) == here);
        Program {
            files: files.into_iter().map(|(f, _)| f).collect(),
        }
    }

    pub(crate) fn file(&self, id: FileId) -> Option<&FileInfo<'s>> {
        self.files.iter().find(|f| f.id == id)
    }

    /// Blocks of type `ty` that declare something program-wide (not the
    /// `resource` references of an `export`).
    pub(crate) fn decls(&self, ty: &str) -> Vec<(&FileInfo<'s>, &BlockDecl)> {
        let mut out = Vec::new();
        for f in &self.files {
            for b in &f.outline.blocks {
                if b.ty == ty && !b.chain.iter().any(|c| c == "export") && !b.labels.is_empty() {
                    out.push((f, b));
                }
            }
        }
        out
    }

    /// The first label of each [`Program::decls`], deduplicated.
    pub(crate) fn names(&self, ty: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .decls(ty)
            .into_iter()
            .map(|(_, b)| b.labels[0].0.clone())
            .collect();
        names.sort();
        names.dedup();
        names
    }

    pub(crate) fn decl(&self, ty: &str, name: &str) -> Option<(&FileInfo<'s>, &BlockDecl)> {
        self.decls(ty)
            .into_iter()
            .find(|(_, b)| b.labels[0].0 == name)
    }

    /// The file and outline index of the block `ty "name"`.
    pub(crate) fn decl_index(&self, ty: &str, name: &str) -> Option<(FileId, usize)> {
        self.files.iter().find_map(|f| {
            let i = f
                .outline
                .blocks
                .iter()
                .position(|b| b.ty == ty && b.labels.first().is_some_and(|l| l.0 == name))?;
            Some((f.id, i))
        })
    }

    /// The case names of the switch at block `i` of `file`.
    pub(crate) fn cases(&self, file: FileId, i: usize) -> Vec<String> {
        let Some(f) = self.file(file) else {
            return Vec::new();
        };
        f.outline
            .blocks
            .iter()
            .filter(|b| b.parent == Some(i) && b.ty == "case")
            .filter_map(|b| Some(b.labels.first()?.0.clone()))
            .collect()
    }

    /// The program of the module instance `instance` uses (`module "A"
    /// "instance"`, A an import's alias or a directory).
    pub(crate) fn module_of_instance(
        &self,
        snap: &'s Snapshot,
        instance: &str,
    ) -> Option<Program<'s>> {
        let (_, m) = self
            .decls("module")
            .into_iter()
            .find(|(_, b)| b.labels.get(1).is_some_and(|l| l.0 == instance))?;
        let target = m.labels[0].0.as_str();
        let dir = if target.contains('/') {
            clean_dir(target)
        } else {
            self.files.iter().find_map(|f| {
                f.outline.blocks.iter().enumerate().find_map(|(i, b)| {
                    let path = clean_dir(&b.labels.first()?.0);
                    let alias = f.attr(i, "as").map_or_else(
                        || path.rsplit('/').next().unwrap_or("").to_owned(),
                        |a| f.value(a).trim().trim_matches('"').to_owned(),
                    );
                    (b.ty == "import" && alias == target).then_some(path)
                })
            })?
        };
        let prefix = format!("{dir}/");
        snap.sources()
            .files()
            .filter(|(_, f)| f.name.starts_with(&prefix) && f.name.ends_with(".hcl"))
            .map(|(id, _)| Program::new(snap, id))
            .find(|p| {
                p.files
                    .iter()
                    .all(|f| snap.sources().get(f.id).name.starts_with(&prefix))
            })
    }

    /// The names exported by the `export` blocks directly in block `within`
    /// of `file` (a switch: through its `case`/`default` blocks), or at the
    /// top level of the program when `within` is `None` (a module).
    pub(crate) fn exports(&self, within: Option<(FileId, usize)>) -> Vec<String> {
        let mut out = Vec::new();
        for f in &self.files {
            for (i, b) in f.outline.blocks.iter().enumerate() {
                let placed = match within {
                    None => b.chain.is_empty(),
                    Some((file, w)) => {
                        f.id == file
                            && b.parent
                                .is_some_and(|p| p == w || f.outline.blocks[p].parent == Some(w))
                    }
                };
                if b.ty != "export" || !placed {
                    continue;
                }
                out.extend(
                    f.outline
                        .attrs
                        .iter()
                        .filter(|a| a.block == Some(i))
                        .map(|a| a.name.clone()),
                );
                // `resource "bucket" { as = "b" }`: exported as b (or bucket).
                for (r, rb) in f.outline.blocks.iter().enumerate() {
                    if rb.ty == "resource" && rb.parent == Some(i) {
                        match f.attr(r, "as") {
                            Some(a) => out.push(f.value(a).trim().trim_matches('"').to_owned()),
                            None => out.extend(rb.labels.first().map(|l| l.0.clone())),
                        }
                    }
                }
            }
        }
        out.retain(|n| !n.is_empty());
        out.sort();
        out.dedup();
        out
    }

    pub(crate) fn functions(&self) -> Vec<UserFn> {
        let mut out = Vec::new();
        for f in &self.files {
            for (i, b) in f.outline.blocks.iter().enumerate() {
                if b.ty != "function" || !b.chain.is_empty() || b.labels.is_empty() {
                    continue;
                }
                let args = f
                    .outline
                    .blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| a.ty == "arg" && a.parent == Some(i) && !a.labels.is_empty())
                    .map(|(ai, a)| {
                        (
                            a.labels[0].0.clone(),
                            f.string_attr(ai, "description"),
                            f.attr(ai, "default").is_some(),
                        )
                    })
                    .collect();
                out.push(UserFn {
                    name: b.labels[0].0.clone(),
                    description: f.string_attr(i, "description"),
                    args,
                });
            }
        }
        out
    }

    /// The locals and arguments visible at `offset` of `file`: a function
    /// sees its arguments and its own locals; elsewhere, top-level locals of
    /// every file and the locals of the blocks around the cursor.
    pub(crate) fn bindings_at(&self, file: FileId, offset: u32) -> Vec<Binding<'_>> {
        let Some(here) = self.file(file) else {
            return Vec::new();
        };
        let around = here.enclosing(offset);
        let function = around
            .iter()
            .copied()
            .find(|&i| here.outline.blocks[i].ty == "function");
        let mut out = Vec::new();
        for f in &self.files {
            for a in &f.outline.attrs {
                let Some(bi) = a.block else { continue };
                let lb = &f.outline.blocks[bi];
                if lb.ty != "locals" {
                    continue;
                }
                let visible = match (function, lb.parent) {
                    (Some(func), Some(p)) => f.id == file && p == func,
                    (Some(_), None) => false,
                    (None, None) => true,
                    (None, Some(p)) => {
                        f.id == file && around.contains(&p) && f.outline.blocks[p].ty != "function"
                    }
                };
                if visible {
                    out.push(f.binding(a));
                }
            }
        }
        if let Some(func) = function {
            for (ai, b) in here.outline.blocks.iter().enumerate() {
                if b.ty == "arg" && b.parent == Some(func) && !b.labels.is_empty() {
                    let name = &b.labels[0].0;
                    out.push(Binding {
                        name,
                        is_arg: true,
                        text: here.string_attr(ai, "description").unwrap_or_default(),
                    });
                }
            }
        }
        out
    }
}

/// The module directories the program imports: `import "dir"` and
/// `module "dir" "name"` labels that are paths (normalised: no `./`, no
/// trailing `/`).
/// An import path as a directory name (`./modules/x/` → `modules/x`).
fn clean_dir(p: &str) -> String {
    p.trim_start_matches("./").trim_end_matches('/').to_owned()
}

fn module_dirs<'o>(outlines: impl Iterator<Item = &'o Outline>) -> Vec<String> {
    let mut dirs = Vec::new();
    for o in outlines {
        for b in &o.blocks {
            let path = match (b.ty.as_str(), b.labels.as_slice()) {
                ("import", [p, ..]) => &p.0,
                ("module", [p, _, ..]) if p.0.contains('/') => &p.0,
                _ => continue,
            };
            let p = path.trim_start_matches("./").trim_end_matches('/');
            if !p.is_empty() && !p.starts_with('/') && !p.contains("..") {
                dirs.push(p.to_owned());
            }
        }
    }
    dirs.sort();
    dirs.dedup();
    dirs
}

impl FileInfo<'_> {
    /// Indices of the blocks whose body contains `offset`, outermost first.
    pub(crate) fn enclosing(&self, offset: u32) -> Vec<usize> {
        self.outline
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| {
                // An unclosed block reaches the end of the file, cursor included.
                b.start < offset && (offset < b.end || b.end as usize == self.text.len())
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The text of an attribute's value.
    pub(crate) fn value(&self, a: &AttrDecl) -> &str {
        self.text
            .get(a.value_start as usize..a.value_end as usize)
            .unwrap_or("")
    }

    pub(crate) fn attr(&self, block: usize, name: &str) -> Option<&AttrDecl> {
        self.outline
            .attrs
            .iter()
            .find(|a| a.block == Some(block) && a.name == name)
    }

    /// An attribute's value when it is a plain string literal.
    pub(crate) fn string_attr(&self, block: usize, name: &str) -> Option<String> {
        let a = self.attr(block, name)?;
        let v = self
            .text
            .get(a.value_start as usize..a.value_end as usize)?
            .trim();
        let inner = v.strip_prefix('"')?.strip_suffix('"')?;
        (!inner.contains("${")).then(|| inner.replace("\\\"", "\""))
    }

    fn binding<'a>(&'a self, a: &'a AttrDecl) -> Binding<'a> {
        Binding {
            name: &a.name,
            is_arg: false,
            text: self
                .text
                .get(a.value_start as usize..a.value_end as usize)
                .unwrap_or("")
                .trim()
                .to_owned(),
        }
    }

    /// `apiVersion` and `kind` of the body of a resource-like block: its
    /// `body` attribute, its `body { }` block, or its `template`'s.
    pub(crate) fn body_kind(&self, block: usize) -> (Option<String>, Option<String>) {
        if let Some(a) = self.attr(block, "body") {
            return object_kind(self.text, a.value_start, a.value_end);
        }
        let blocks = &self.outline.blocks;
        for (i, b) in blocks.iter().enumerate() {
            if b.parent == Some(block) && b.ty == "body" {
                let (v, k) = (
                    self.string_attr(i, "apiVersion"),
                    self.string_attr(i, "kind"),
                );
                return (v, k);
            }
            if b.parent == Some(block) && b.ty == "template" {
                return self.body_kind(i);
            }
        }
        (None, None)
    }
}

/// `apiVersion` and `kind` written as string literals at the top of the
/// object that starts in `text[start..end]`.
pub(crate) fn object_kind(text: &str, start: u32, end: u32) -> (Option<String>, Option<String>) {
    let Some(part) = text.get(start as usize..end as usize) else {
        return (None, None);
    };
    let tokens = tokenize(part);
    (
        top_string(part, &tokens, "apiVersion"),
        top_string(part, &tokens, "kind"),
    )
}

/// The names written at depth 1 of the block body or object whose `{` is
/// at `open` (`name =` or `name {` at the start of an entry), but the one
/// at `skip` (the word being typed).
pub(crate) fn object_keys(text: &str, tokens: &[Token], open: u32, skip: u32) -> Vec<String> {
    let Some(first) = tokens.iter().position(|t| t.start == open) else {
        return Vec::new();
    };
    if tokens[first].kind != T::OBrace {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate().skip(first) {
        match t.kind {
            T::OBrace | T::OBrack | T::OParen => depth += 1,
            k if opens_sequence(k) || opens_string(k) => depth += 1,
            T::CBrace | T::CBrack | T::CParen | T::TemplateSeqEnd => {
                depth -= 1;
                if depth <= 0 {
                    break;
                }
            }
            _ if closes_string(t) => depth -= 1,
            T::Ident if depth == 1 && t.start != skip => {
                let starts_entry = matches!(tokens[i - 1].kind, T::Newline | T::OBrace | T::Comma);
                let assigned = tokens
                    .get(i + 1)
                    .is_some_and(|n| matches!(n.kind, T::Equal | T::Colon));
                if starts_entry && assigned {
                    out.push(t.text(text).to_owned());
                }
            }
            _ => {}
        }
    }
    out
}

/// The literal string value of key `name` at depth 1 of the first object
/// in `tokens`.
fn top_string(text: &str, tokens: &[Token], name: &str) -> Option<String> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            T::OBrace | T::OBrack | T::OParen => depth += 1,
            k if opens_sequence(k) => depth += 1,
            T::CBrace | T::CBrack | T::CParen | T::TemplateSeqEnd => {
                depth -= 1;
                if depth <= 0 {
                    return None;
                }
            }
            T::Ident if depth == 1 && t.text(text) == name => {
                let value = tokens.get(i + 2..)?;
                if !matches!(tokens[i + 1].kind, T::Equal | T::Colon) {
                    continue;
                }
                let end = value.iter().position(closes_string)?;
                if let Some(s) = literal_string(text, &value[..=end]) {
                    return Some(s);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_kind_reads_the_top_level_literals_only() {
        let t = "{\n  apiVersion = \"s3/v1\"\n  spec = { kind = \"no\" }\n  kind: \"Bucket\"\n}";
        assert_eq!(
            object_kind(t, 0, t.len() as u32),
            (Some("s3/v1".into()), Some("Bucket".into()))
        );
        assert_eq!(object_kind("{ kind = x }", 0, 12), (None, None));
    }
}
