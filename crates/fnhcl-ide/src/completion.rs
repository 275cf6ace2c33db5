//! Completion at a position: block types and attributes, references
//! (`req.`, `self.`, `each.`, locals, arguments), built-in and user
//! functions, `apiVersion`/`kind` values and body fields from the CRDs, XR
//! fields from the XRD. Works on the text as typed: the cursor's context
//! comes from a token scan ([`crate::cursor`]) and the program's names from
//! every file's outline ([`crate::program`]), neither of which needs the
//! file to parse.

use fnhcl_base::Span;

use crate::cursor::{BodyOf, Cursor};
use crate::program::Program;
use crate::walk::{Entry, Kind};
use crate::{FilePosition, Snapshot, docs, members};

/// One proposal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    /// A short line next to the label (a signature, a type).
    pub detail: Option<String>,
    /// Markdown.
    pub documentation: Option<String>,
    /// The text that replaces [`CompletionItem::replace`].
    pub insert_text: String,
    /// The same as a snippet (`upper(${1})`), for clients that take them.
    pub snippet: Option<String>,
    /// The partial word being replaced (empty at the cursor if none).
    pub replace: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A block type.
    Block,
    /// An attribute of a block.
    Attribute,
    /// A field of an object (schema) or an attribute of a reference.
    Field,
    /// A local, an argument, `req`, `self`, `each`.
    Variable,
    Function,
    /// A literal value (`"s3.aws.upbound.io/v1beta1"`, `status`).
    Value,
    /// `true`, `false`, `null`.
    Keyword,
}

/// What to propose at `pos`; empty when nothing fits.
pub fn complete(snap: &Snapshot, pos: FilePosition) -> Vec<CompletionItem> {
    let file = snap.sources().get(pos.file);
    let c = Cursor::new(&file.text, pos.offset);
    if c.in_comment {
        return Vec::new();
    }
    let program = Program::new(snap, pos.file);
    let mut ctx = Ctx {
        snap,
        program: &program,
        c: &c,
        pos,
        out: Vec::new(),
    };
    ctx.run();
    ctx.out
}

struct Ctx<'a> {
    snap: &'a Snapshot,
    program: &'a Program<'a>,
    c: &'a Cursor<'a>,
    pos: FilePosition,
    out: Vec<CompletionItem>,
}

impl Ctx<'_> {
    fn replace(&self) -> Span {
        Span::new(
            self.pos.file,
            self.c.word_start as usize,
            self.c.offset as usize,
        )
    }

    /// Replaces the text typed since the string's opening quote.
    fn replace_in_string(&self) -> Span {
        let open = self.c.top().open as usize + 1;
        Span::new(
            self.pos.file,
            open.min(self.c.offset as usize),
            self.c.offset as usize,
        )
    }

    fn item(
        &mut self,
        label: &str,
        kind: CompletionKind,
        detail: Option<String>,
        doc: Option<String>,
    ) {
        self.out.push(CompletionItem {
            label: label.to_owned(),
            kind,
            detail,
            documentation: doc,
            insert_text: label.to_owned(),
            snippet: None,
            replace: self.replace(),
        });
    }

    fn run(&mut self) {
        let c = self.c;
        let n = c.frames.len();
        match &c.top().kind {
            Kind::Str => self.in_string(),
            Kind::Body { .. } => match &c.top().entry {
                Entry::Start => {
                    if let Some((body, path)) = c.body_at(&c.frames) {
                        self.body_fields(&body, &path);
                    } else {
                        self.block_contents();
                    }
                }
                Entry::Header { name, labels } if name == "composite" && labels.is_empty() => {
                    for (l, d) in docs::COMPOSITE_LABELS {
                        self.item(l, CompletionKind::Value, None, Some((*d).to_owned()));
                    }
                }
                Entry::Header { .. } => {}
                Entry::Value { name } => {
                    let name = name.clone();
                    self.value(&name, n);
                }
            },
            Kind::Object => match &c.top().entry {
                Entry::Start => {
                    if let Some((body, path)) = c.body_at(&c.frames) {
                        self.body_fields(&body, &path);
                    }
                }
                Entry::Header { .. } => {}
                Entry::Value { name } => {
                    let name = name.clone();
                    self.value(&name, n);
                }
            },
            _ => self.expression(),
        }
    }

    /// The value of attribute or key `name` of the top frame.
    fn value(&mut self, name: &str, n: usize) {
        if matches!(name, "apiVersion" | "kind")
            && self.c.path_before_word().is_none()
            && let Some(v) = self.kind_target(&self.c.frames[..n])
        {
            let values = self.kind_values(name, v.as_deref());
            for (val, doc) in values {
                let quoted = format!("\"{val}\"");
                self.item(&quoted, CompletionKind::Value, None, doc);
            }
        }
        if self.in_ready_value(name, &self.c.frames[..n]) && self.c.path_before_word().is_none() {
            for (v, d) in docs::READY_VALUES {
                self.item(
                    &format!("\"{v}\""),
                    CompletionKind::Value,
                    None,
                    Some((*d).to_owned()),
                );
            }
        }
        self.expression();
    }

    /// `value` of a `ready` block.
    fn in_ready_value(&self, name: &str, frames: &[crate::walk::Frame]) -> bool {
        name == "value"
            && matches!(frames.last().map(|f| &f.kind), Some(Kind::Body { ty, .. }) if ty == "ready")
    }

    /// Whether `frames` end in an object whose `apiVersion`/`kind` name a
    /// Kubernetes kind (a resource body, a requirement's `select`); the
    /// `apiVersion` written there, if any.
    fn kind_target(&self, frames: &[crate::walk::Frame]) -> Option<Option<String>> {
        if let Some((BodyOf::Resource(v, _), path)) = self.c.body_at(frames) {
            return path.is_empty().then_some(v);
        }
        let last = frames.last()?;
        match &last.kind {
            Kind::Body { ty, .. } if ty == "select" => {
                let (v, _) =
                    crate::program::object_kind(self.c.text, last.open, self.c.text.len() as u32);
                Some(v)
            }
            _ => None,
        }
    }

    /// `apiVersion` values of the loaded CRDs, or the kinds (of `api_version` if given).
    fn kind_values(&self, name: &str, api_version: Option<&str>) -> Vec<(String, Option<String>)> {
        let Some(set) = &self.snap.options().schemas else {
            return Vec::new();
        };
        let mut out: Vec<(String, Option<String>)> = set
            .kinds()
            .filter(|(v, _)| name == "apiVersion" || api_version.is_none_or(|a| a == *v))
            .map(|(v, k)| {
                if name == "apiVersion" {
                    (v.to_owned(), None)
                } else {
                    (k.to_owned(), Some(format!("`{v}`")))
                }
            })
            .collect();
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    fn in_string(&mut self) {
        let c = self.c;
        let n = c.frames.len();
        if n < 2 {
            return;
        }
        let parent = &c.frames[n - 2];
        let replace = self.replace_in_string();
        let push = |out: &mut Vec<CompletionItem>, label: String, kind, detail, doc| {
            out.push(CompletionItem {
                insert_text: label.clone(),
                label,
                kind,
                detail,
                documentation: doc,
                snippet: None,
                replace,
            })
        };
        match (&parent.kind, &parent.entry) {
            (
                Kind::Paren {
                    func: Some(f),
                    commas: 0,
                    ..
                },
                _,
            ) if f == "invoke" => {
                for uf in self.program.functions() {
                    let args: Vec<&str> = uf.args.iter().map(|a| a.0.as_str()).collect();
                    let detail = format!("{}({{ {} }})", uf.name, args.join(", "));
                    push(
                        &mut self.out,
                        uf.name,
                        CompletionKind::Function,
                        Some(detail),
                        uf.description,
                    );
                }
            }
            // D40: `depends_on = ["…"]` names blocks of this module.
            (Kind::Tuple, _)
                if n >= 3
                    && matches!(&c.frames[n - 3].kind, Kind::Body { ty, .. }
                        if matches!(ty.as_str(), "resource" | "resources" | "module"))
                    && matches!(&c.frames[n - 3].entry, Entry::Value { name } if name == "depends_on") =>
            {
                let mut names: Vec<(String, &str)> = Vec::new();
                for (ty, label, what) in [
                    ("resource", 0, "resource"),
                    ("resources", 0, "resources (collection)"),
                    ("module", 1, "module instance"),
                ] {
                    for (_, b) in self.program.decls(ty) {
                        if let Some((l, _, _)) = b.labels.get(label) {
                            names.push((l.clone(), what));
                        }
                    }
                }
                names.sort();
                names.dedup();
                for (name, what) in names {
                    push(
                        &mut self.out,
                        name,
                        CompletionKind::Value,
                        Some(what.to_owned()),
                        Some("Created only once this block is observed and ready; deleted after it (a Usage).".to_owned()),
                    );
                }
            }
            (Kind::Body { .. }, Entry::Header { name, labels })
                if name == "composite" && labels.is_empty() =>
            {
                for (l, d) in docs::COMPOSITE_LABELS {
                    push(
                        &mut self.out,
                        (*l).to_owned(),
                        CompletionKind::Value,
                        None,
                        Some((*d).to_owned()),
                    );
                }
            }
            (Kind::Body { .. } | Kind::Object, Entry::Value { name }) => {
                if self.in_ready_value(name, &c.frames[..n - 1]) {
                    for (v, d) in docs::READY_VALUES {
                        let doc = Some((*d).to_owned());
                        push(
                            &mut self.out,
                            (*v).to_owned(),
                            CompletionKind::Value,
                            None,
                            doc,
                        );
                    }
                    return;
                }
                if matches!(name.as_str(), "apiVersion" | "kind")
                    && let Some(v) = self.kind_target(&c.frames[..n - 1])
                {
                    for (val, doc) in self.kind_values(name, v.as_deref()) {
                        push(&mut self.out, val, CompletionKind::Value, None, doc);
                    }
                    return;
                }
                let Some((body, mut path)) = c.body_at(&c.frames[..n - 1]) else {
                    return;
                };
                path.push(name.clone());
                for e in members::field_at(self.snap, &body, &path)
                    .map(|f| f.enum_values())
                    .unwrap_or_default()
                {
                    let v = e.trim_matches('"').to_owned();
                    push(&mut self.out, v, CompletionKind::Value, None, None);
                }
            }
            (Kind::Tuple, _) => {
                if let Some(path) = c.path_before_index() {
                    for m in members::members(self.snap, self.program, c, self.pos.file, &path) {
                        push(&mut self.out, m.name, m.kind, m.detail, m.doc);
                    }
                }
            }
            _ => {}
        }
    }

    /// Block types and attributes valid in the block around the cursor.
    fn block_contents(&mut self) {
        let chain = self.c.chain();
        let ty = chain.last().copied().unwrap_or("");
        // `composite LABEL`: the label decides the attributes.
        let composite_label = match self.c.frames.last().map(|f| &f.kind) {
            Some(crate::walk::Kind::Body { ty, labels }) if ty == "composite" => {
                labels.first().cloned()
            }
            _ => None,
        };
        let shape = match (fnhcl_eval::block_shape(&chain), composite_label) {
            (Some(shape), Some(l)) => fnhcl_eval::composite_shape(&l).or(Some(shape)),
            (shape, _) => shape,
        };
        let (attrs, blocks): (Vec<(&str, bool)>, Vec<(&str, Vec<&str>)>) = match shape {
            Some((a, b)) => (
                a.to_vec(),
                b.iter().map(|(t, l)| (*t, l.to_vec())).collect(),
            ),
            None => match ty {
                "module" => {
                    // The instance's module declares the parameters.
                    let attrs = vec![
                        ("condition", false),
                        ("optional", false),
                        ("depends_on", false),
                        ("on_incomplete", false),
                        ("params", false),
                    ];
                    let instance = match self.c.frames.last().map(|f| &f.kind) {
                        Some(crate::walk::Kind::Body { labels, .. }) => labels.get(1).cloned(),
                        _ => None,
                    };
                    let params: Vec<(String, bool)> = instance
                        .and_then(|i| self.program.module_of_instance(self.snap, &i))
                        .map(|m| {
                            m.decls("param")
                                .into_iter()
                                .map(|(f, b)| {
                                    let idx =
                                        f.outline.blocks.iter().position(|x| std::ptr::eq(x, b));
                                    let required =
                                        idx.is_none_or(|i| f.attr(i, "default").is_none());
                                    (b.labels[0].0.clone(), required)
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    let written = self.written_keys();
                    for (p, required) in params {
                        if written.contains(&p) {
                            continue;
                        }
                        let detail = Some(
                            if required {
                                "module parameter (required)"
                            } else {
                                "module parameter"
                            }
                            .to_owned(),
                        );
                        self.item(&p, CompletionKind::Attribute, detail, None);
                        if let Some(last) = self.out.last_mut() {
                            last.snippet = Some(format!("{p} = $0"));
                        }
                    }
                    (attrs, vec![])
                }
                "import" => (vec![("as", false)], vec![]),
                "export" => (vec![], vec![("resource", vec!["name"])]),
                _ => return,
            },
        };
        let written = self.written_keys();
        for (name, required) in attrs {
            if written.iter().any(|w| w == name) {
                continue;
            }
            let doc = docs::attribute(ty, name).map(str::to_owned);
            let detail = Some(
                if required {
                    "required attribute"
                } else {
                    "attribute"
                }
                .to_owned(),
            );
            self.item(name, CompletionKind::Attribute, detail, doc);
            if let Some(last) = self.out.last_mut() {
                last.snippet = Some(format!("{name} = $0"));
            }
        }
        for (name, labels) in blocks {
            let header: String = labels.iter().map(|l| format!(" \"{l}\"")).collect();
            let detail = Some(format!("{name}{header} {{ }}"));
            self.item(
                name,
                CompletionKind::Block,
                detail,
                docs::block(name).map(str::to_owned),
            );
            let snippet_labels: String = labels
                .iter()
                .enumerate()
                .map(|(i, l)| format!(" ${{{}:{l}}}", i + 1))
                .collect();
            if let Some(last) = self.out.last_mut() {
                last.snippet = Some(format!("{name}{snippet_labels} {{\n\t$0\n}}"));
            }
        }
    }

    /// The attributes or keys already written in the block or object
    /// around the cursor (but the word being typed), not proposed again.
    fn written_keys(&self) -> Vec<String> {
        let c = self.c;
        let top = c.top();
        if c.frames.len() < 2 {
            return Vec::new();
        }
        crate::program::object_keys(c.text, &c.tokens, top.open, c.word_start)
    }

    /// Schema fields of a body at `path`.
    fn body_fields(&mut self, body: &BodyOf, path: &[String]) {
        if *body == BodyOf::CompositeConnection {
            let written = self.written_keys();
            for k in &self.snap.options().connection_keys {
                if !written.contains(k) {
                    self.item(
                        k,
                        CompletionKind::Field,
                        Some("connection secret key (XRD)".to_owned()),
                        None,
                    );
                }
            }
            return;
        }
        let Some(field) = members::field_at(self.snap, body, path) else {
            return;
        };
        let written = self.written_keys();
        for name in field.property_names() {
            if written.iter().any(|w| w == name) {
                continue;
            }
            let Some(f) = field.child(name) else { continue };
            let required = if f.required() { ", required" } else { "" };
            let detail = Some(format!("{}{required}", f.type_name()));
            self.item(
                name,
                CompletionKind::Field,
                detail,
                f.description().map(str::to_owned),
            );
            if let Some(last) = self.out.last_mut() {
                last.snippet = Some(format!("{name} = $0"));
            }
        }
    }

    /// An expression: a member after `x.`, an index after `x[`, or any name
    /// in scope.
    fn expression(&mut self) {
        let c = self.c;
        if let Some(path) = c.path_before_word() {
            for m in members::members(self.snap, self.program, c, self.pos.file, &path) {
                self.item(&m.name, m.kind, m.detail, m.doc);
            }
            return;
        }
        if c.top().kind == Kind::Tuple
            && let Some(path) = c.path_before_index()
        {
            for m in members::members(self.snap, self.program, c, self.pos.file, &path) {
                self.item(&format!("\"{}\"", m.name), m.kind, m.detail, m.doc);
            }
            return;
        }
        let after_dot = c
            .tokens
            .iter()
            .rfind(|t| t.end <= c.word_start)
            .is_some_and(|t| t.kind == crate::lex::T::Dot && t.end == c.word_start);
        if !after_dot {
            self.names_in_scope();
        }
    }

    fn names_in_scope(&mut self) {
        let chain = self.c.chain();
        let in_function = chain.first() == Some(&"function");
        if !in_function {
            self.item(
                "req",
                CompletionKind::Variable,
                Some("request".to_owned()),
                Some("The request: the observed composite and composed resources, context, extra resources.".to_owned()),
            );
            if !docs::self_attrs(&chain).is_empty() {
                self.item(
                    "self",
                    CompletionKind::Variable,
                    Some("this block".to_owned()),
                    None,
                );
            }
            if chain.contains(&"resources") {
                self.item(
                    "each",
                    CompletionKind::Variable,
                    Some("for_each element".to_owned()),
                    None,
                );
            }
        }
        // The local being defined is not offered in its own value.
        let defining = match (&self.c.top().kind, &self.c.top().entry) {
            (Kind::Body { ty, .. }, Entry::Value { name }) if ty == "locals" => Some(name.as_str()),
            _ => None,
        };
        for b in self.program.bindings_at(self.pos.file, self.c.word_start) {
            if Some(b.name) == defining {
                continue;
            }
            let (detail, doc) = if b.is_arg {
                ("argument", (!b.text.is_empty()).then(|| b.text.clone()))
            } else {
                (
                    "local",
                    Some(format!("```hcl\n{} = {}\n```", b.name, b.text)),
                )
            };
            self.item(
                b.name,
                CompletionKind::Variable,
                Some(detail.to_owned()),
                doc,
            );
        }
        for f in fnhcl_functions::registry().iter() {
            self.item(
                f.name,
                CompletionKind::Function,
                Some(f.signature()),
                Some(f.description.to_owned()),
            );
            if let Some(last) = self.out.last_mut() {
                last.snippet = Some(format!("{}(${{1}})", f.name));
            }
        }
        for k in ["true", "false", "null"] {
            self.item(k, CompletionKind::Keyword, None, None);
        }
    }
}
