//! What names mean: every definition the editor can navigate to (locals,
//! function arguments, `for` variables, resources, collections, user
//! functions, requirements, module parameters, instances and switches)
//! and every use of one, across the files of a program.
//!
//! Scoping mirrors the evaluator's (`fnhcl-eval` `src/compile/`): top-level
//! locals are shared by every file of a module (the root program or one
//! imported directory); the locals of a block are visible in that block
//! and the blocks nested in it; a user function sees only its arguments
//! and its own locals. `self` belongs to the innermost enclosing
//! `resource`, `resources` or `template` block, `each` to the innermost
//! `resources` block (in its `name`, `body` and `template` only).

use std::collections::HashMap;

use fnhcl_base::{FileId, Span};
use fnhcl_syntax::ast::{Block, Body, Expr, ExprKind, Structure};
use fnhcl_syntax::visit::{Visitor, each_block, literal_text, walk_expr};

use crate::{FilePosition, Snapshot};

/// What a definition is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    /// An attribute of a `locals` block.
    Local,
    /// An `arg` block of a user function.
    Arg,
    /// A variable bound by a `for` expression or directive.
    ForVar,
    /// A `resource` block (its label).
    Resource,
    /// A `resources` block (its label).
    Collection,
    /// A `function` block (its label).
    Function,
    /// A `requirement` block (its label), read as `req.extra_resources.X`.
    Requirement,
    /// A module's `param` block, read as `param.X`.
    Param,
    /// A module instance (`module "alias" "X"`), read as `module.X`.
    Instance,
    /// A `switch` block, read as `switch.X`.
    Switch,
}

/// One definition.
#[derive(Clone, Debug)]
pub struct Def {
    pub kind: DefKind,
    pub name: String,
    /// The name itself (without quotes for a quoted label).
    pub span: Span,
    /// The whole attribute or block.
    pub full: Span,
    /// The scope frame it lives in (for locals, args and `for` variables).
    frame: usize,
    module: usize,
}

/// What a position refers to beyond definitions: `each` and `self`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// `each` in a `resources` block: its `for_each` attribute (or the
    /// block's header when it has none).
    Each(Span),
    /// `self` in a block: that block's header.
    SelfOf(Span),
}

/// What is at a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    /// The name of definition `def`.
    Def(usize),
    /// A use of definition `def`, at `span`.
    Ref(usize, Span),
    /// `each` or `self`, at `span`.
    Special(Special, Span),
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    parent: Option<usize>,
    /// A function's frame: lookups stop here.
    barrier: bool,
}

/// Every definition and every resolved use of a program.
#[derive(Debug, Default)]
pub struct Index {
    pub defs: Vec<Def>,
    /// `(use, definition)`, in walk order.
    pub refs: Vec<(Span, usize)>,
    pub specials: Vec<(Span, Special)>,
    frames: Vec<Frame>,
}

impl Index {
    pub fn build(snapshot: &Snapshot) -> Index {
        let mut b = Builder::default();
        let files: Vec<(FileId, &Body)> = snapshot
            .sources()
            .files()
            .map(|(id, _)| (id, &snapshot.parse(id).0))
            .collect();
        let modules = module_of_files(snapshot, &files);
        let module_count = modules.iter().copied().max().map_or(0, |m| m + 1);
        for m in 0..module_count {
            let bodies: Vec<&Body> = files
                .iter()
                .zip(&modules)
                .filter(|(_, fm)| **fm == m)
                .map(|((_, body), _)| *body)
                .collect();
            b.module(m, &bodies);
        }
        b.index
    }

    /// What is at `pos` (the innermost thing whose span holds it; a
    /// position just after a name counts as on it).
    pub fn at(&self, pos: FilePosition) -> Option<Hit> {
        let holds = |s: &Span| s.file == pos.file && s.start <= pos.offset && pos.offset <= s.end;
        if let Some((i, _)) = self.defs.iter().enumerate().find(|(_, d)| holds(&d.span)) {
            return Some(Hit::Def(i));
        }
        if let Some((s, d)) = self.refs.iter().find(|(s, _)| holds(s)) {
            return Some(Hit::Ref(*d, *s));
        }
        self.specials
            .iter()
            .find(|(s, _)| holds(s))
            .map(|(s, sp)| Hit::Special(*sp, *s))
    }

    /// The uses of definition `def`.
    pub fn uses(&self, def: usize) -> impl Iterator<Item = Span> + '_ {
        self.refs
            .iter()
            .filter(move |(_, d)| *d == def)
            .map(|(s, _)| *s)
    }

    /// True if frames `a` and `b` are the same or one encloses the other
    /// (a name in one would clash with or shadow a name in the other).
    pub(crate) fn related_frames(&self, a: usize, b: usize) -> bool {
        self.encloses(a, b) || self.encloses(b, a)
    }

    fn encloses(&self, outer: usize, mut inner: usize) -> bool {
        loop {
            if inner == outer {
                return true;
            }
            match self.frames.get(inner).and_then(|f| f.parent) {
                Some(p) => inner = p,
                None => return false,
            }
        }
    }

    pub(crate) fn frame_of(&self, def: usize) -> usize {
        self.defs[def].frame
    }

    pub(crate) fn module_of(&self, def: usize) -> usize {
        self.defs[def].module
    }
}

/// Which module each file belongs to: the deepest directory some `import`
/// or `module` block names that holds it (0: the root program).
fn module_of_files(snapshot: &Snapshot, files: &[(FileId, &Body)]) -> Vec<usize> {
    let mut dirs: Vec<String> = files
        .iter()
        .flat_map(|(_, body)| fnhcl_eval::imported_dirs(body))
        .map(|d| d.path)
        .collect();
    dirs.sort();
    dirs.dedup();
    files
        .iter()
        .map(|(id, _)| {
            let name = &snapshot.sources().get(*id).name;
            dirs.iter()
                .enumerate()
                .filter(|(_, d)| {
                    name.strip_prefix(d.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
                })
                .max_by_key(|(_, d)| d.len())
                .map_or(0, |(i, _)| i + 1)
        })
        .collect()
}

/// The span of a label's value (inside the quotes of a quoted label).
pub(crate) fn label_value_span(l: &fnhcl_syntax::ast::BlockLabel) -> Span {
    if l.quoted && l.span.end >= l.span.start + 2 {
        Span {
            file: l.span.file,
            start: l.span.start + 1,
            end: l.span.end - 1,
        }
    } else {
        l.span
    }
}

/// The contents of a one-line string literal (`"name"`), with its span
/// inside the quotes.
pub(crate) fn string_literal(e: &Expr) -> Option<(String, Span)> {
    let ExprKind::Template(t) = &e.kind else {
        return None;
    };
    if t.heredoc {
        return None;
    }
    let text = literal_text(t)?;
    // Only when the source is exactly the quoted text (no escapes), so the
    // span inside the quotes is the name.
    if e.span.end < e.span.start + 2 || (e.span.end - e.span.start - 2) as usize != text.len() {
        return None;
    }
    Some((
        text,
        Span {
            file: e.span.file,
            start: e.span.start + 1,
            end: e.span.end - 1,
        },
    ))
}

#[derive(Clone, Copy, Default)]
struct Ctx {
    frame: Option<usize>,
    self_of: Option<Span>,
    each: Option<Span>,
    module: usize,
}

#[derive(Default)]
struct Builder {
    index: Index,
    /// Names of each frame.
    names: Vec<HashMap<String, usize>>,
    /// Per module: resources, collections, functions by name.
    globals: HashMap<(usize, DefKind, String), usize>,
    /// `for` variables in scope, innermost last.
    bound: Vec<(String, usize)>,
}

impl Builder {
    fn frame(&mut self, parent: Option<usize>, barrier: bool) -> usize {
        self.index.frames.push(Frame { parent, barrier });
        self.names.push(HashMap::new());
        self.index.frames.len() - 1
    }

    fn def(&mut self, kind: DefKind, name: &str, span: Span, full: Span, ctx: Ctx) -> usize {
        self.index.defs.push(Def {
            kind,
            name: name.to_owned(),
            span,
            full,
            frame: ctx.frame.unwrap_or(0),
            module: ctx.module,
        });
        let id = self.index.defs.len() - 1;
        match kind {
            DefKind::Local | DefKind::Arg => {
                if let Some(f) = ctx.frame {
                    self.names[f].entry(name.to_owned()).or_insert(id);
                }
            }
            DefKind::ForVar => {}
            _ => {
                self.globals
                    .entry((ctx.module, kind, name.to_owned()))
                    .or_insert(id);
            }
        }
        id
    }

    /// Registers the attributes of the `locals` blocks directly in `body`.
    fn locals_of(&mut self, body: &Body, ctx: Ctx) {
        for s in &body.items {
            if let Structure::Block(b) = s
                && &*b.ident.name == "locals"
            {
                for s in &b.body.items {
                    if let Structure::Attribute(a) = s {
                        self.def(DefKind::Local, &a.name.name, a.name.span, a.span, ctx);
                    }
                }
            }
        }
    }

    fn module(&mut self, module: usize, bodies: &[&Body]) {
        let top = self.frame(None, false);
        let ctx = Ctx {
            frame: Some(top),
            module,
            ..Ctx::default()
        };
        for body in bodies {
            self.locals_of(body, ctx);
            each_block(body, &mut |b: &Block| {
                let (kind, label) = match &*b.ident.name {
                    "resource" => (DefKind::Resource, 0),
                    "resources" => (DefKind::Collection, 0),
                    "function" => (DefKind::Function, 0),
                    "requirement" => (DefKind::Requirement, 0),
                    "param" => (DefKind::Param, 0),
                    "module" => (DefKind::Instance, 1),
                    "switch" => (DefKind::Switch, 0),
                    _ => return,
                };
                if let Some(l) = b.labels.get(label) {
                    self.def(kind, &l.value, label_value_span(l), b.span, ctx);
                }
            });
        }
        for body in bodies {
            self.body(body, ctx);
        }
    }

    fn body(&mut self, body: &Body, ctx: Ctx) {
        for s in &body.items {
            match s {
                Structure::Attribute(a) => self.expr(&a.expr, ctx),
                Structure::Block(b) => self.block(b, ctx),
            }
        }
    }

    /// `depends_on = ["vpc", "subnets"]` (D40): each name is a use of the
    /// resource, collection or module instance of that name.
    fn depends_on(&mut self, b: &Block, ctx: Ctx) {
        for s in &b.body.items {
            let Structure::Attribute(a) = s else { continue };
            if &*a.name.name != "depends_on" {
                continue;
            }
            let ExprKind::Tuple(items) = &a.expr.kind else {
                continue;
            };
            for e in items {
                let Some((name, span)) = string_literal(e) else {
                    continue;
                };
                let def = [DefKind::Resource, DefKind::Collection, DefKind::Instance]
                    .into_iter()
                    .find_map(|k| self.global(ctx, k, &name));
                if let Some(d) = def {
                    self.index.refs.push((span, d));
                }
            }
        }
    }

    fn block(&mut self, b: &Block, ctx: Ctx) {
        let mut ctx = ctx;
        let mut each_here = None;
        if matches!(&*b.ident.name, "resource" | "resources" | "module") {
            self.depends_on(b, ctx);
        }
        match &*b.ident.name {
            // Its attributes were registered by the enclosing block.
            "locals" => {
                for s in &b.body.items {
                    if let Structure::Attribute(a) = s {
                        self.expr(&a.expr, ctx);
                    }
                }
                return;
            }
            "function" => {
                // Nothing outside is visible in a function (nor clashes).
                let f = self.frame(None, true);
                ctx = Ctx {
                    frame: Some(f),
                    self_of: None,
                    each: None,
                    module: ctx.module,
                };
                for s in &b.body.items {
                    if let Structure::Block(a) = s
                        && &*a.ident.name == "arg"
                        && let Some(l) = a.labels.first()
                    {
                        self.def(DefKind::Arg, &l.value, label_value_span(l), a.span, ctx);
                    }
                }
                self.locals_of(&b.body, ctx);
                self.body(&b.body, ctx);
                return;
            }
            "export" => {
                for s in &b.body.items {
                    if let Structure::Block(r) = s
                        && &*r.ident.name == "resource"
                        && let Some(l) = r.labels.first()
                        && let Some(&d) =
                            self.globals
                                .get(&(ctx.module, DefKind::Resource, l.value.clone()))
                    {
                        self.index.refs.push((label_value_span(l), d));
                    }
                }
            }
            "resource" | "template" => ctx.self_of = Some(b.header_span()),
            "resources" => {
                ctx.self_of = Some(b.header_span());
                let for_each = b.body.items.iter().find_map(|s| match s {
                    Structure::Attribute(a) if &*a.name.name == "for_each" => Some(a.name.span),
                    _ => None,
                });
                each_here = Some(for_each.unwrap_or_else(|| b.header_span()));
                // Its locals, for_each, condition and other blocks do not
                // see `each` (as in the evaluator).
                ctx.each = None;
            }
            _ => {}
        }
        let has_locals = b
            .body
            .items
            .iter()
            .any(|s| matches!(s, Structure::Block(l) if &*l.ident.name == "locals"));
        if has_locals {
            let f = self.frame(ctx.frame, false);
            ctx.frame = Some(f);
            self.locals_of(&b.body, ctx);
        }
        match each_here {
            None => self.body(&b.body, ctx),
            Some(each) => {
                let with_each = Ctx {
                    each: Some(each),
                    ..ctx
                };
                for item in &b.body.items {
                    match item {
                        Structure::Attribute(a) if matches!(&*a.name.name, "name" | "body") => {
                            self.expr(&a.expr, with_each)
                        }
                        Structure::Attribute(a) => self.expr(&a.expr, ctx),
                        Structure::Block(t) if &*t.ident.name == "template" => {
                            self.block(t, with_each)
                        }
                        Structure::Block(t) => self.block(t, ctx),
                    }
                }
            }
        }
    }

    fn lookup(&self, name: &str, ctx: Ctx) -> Option<usize> {
        if let Some((_, d)) = self.bound.iter().rev().find(|(n, _)| n == name) {
            return Some(*d);
        }
        let mut f = ctx.frame;
        while let Some(i) = f {
            if let Some(&d) = self.names[i].get(name) {
                return Some(d);
            }
            if self.index.frames[i].barrier {
                return None;
            }
            f = self.index.frames[i].parent;
        }
        None
    }

    fn global(&self, ctx: Ctx, kind: DefKind, name: &str) -> Option<usize> {
        self.globals
            .get(&(ctx.module, kind, name.to_owned()))
            .copied()
    }

    /// `req.resource.X` and friends: a use of resource or collection X.
    fn req_ref(&mut self, source: &Expr, name: &str, span: Span, ctx: Ctx) {
        let ExprKind::GetAttr(root, kind) = &source.kind else {
            return;
        };
        if !matches!(&root.kind, ExprKind::Variable(v) if &*v.name == "req") {
            return;
        }
        let def_kind = match &*kind.name {
            "resource" | "connection" => DefKind::Resource,
            "resources" | "connections" => DefKind::Collection,
            "extra_resources" => DefKind::Requirement,
            _ => return,
        };
        if let Some(d) = self.global(ctx, def_kind, name) {
            self.index.refs.push((span, d));
        }
    }

    /// `param.X`, `module.X`, `switch.X`: a module's parameter, instance or
    /// switch (unless a local of that name hides them).
    fn module_ref(&mut self, source: &Expr, name: &str, span: Span, ctx: Ctx) {
        let ExprKind::Variable(root) = &source.kind else {
            return;
        };
        let kind = match &*root.name {
            "param" => DefKind::Param,
            "module" => DefKind::Instance,
            "switch" => DefKind::Switch,
            _ => return,
        };
        if self.lookup(&root.name, ctx).is_none()
            && let Some(d) = self.global(ctx, kind, name)
        {
            self.index.refs.push((span, d));
        }
    }

    fn bind(&mut self, var: &fnhcl_syntax::ast::Ident, ctx: Ctx) {
        let d = self.def(DefKind::ForVar, &var.name, var.span, var.span, ctx);
        self.bound.push((var.name.to_string(), d));
    }

    fn expr(&mut self, e: &Expr, ctx: Ctx) {
        walk_expr(&mut Uses { b: self, ctx }, e);
    }
}

/// The uses of names in one expression, in the scope `ctx`.
struct Uses<'b> {
    b: &'b mut Builder,
    ctx: Ctx,
}

impl Visitor<'_> for Uses<'_> {
    fn enter(&mut self, e: &Expr) -> bool {
        let (b, ctx) = (&mut *self.b, self.ctx);
        match &e.kind {
            ExprKind::Variable(v) => match &*v.name {
                "each" if b.lookup("each", ctx).is_none() => {
                    if let Some(s) = ctx.each {
                        b.index.specials.push((v.span, Special::Each(s)));
                    }
                }
                "self" if b.lookup("self", ctx).is_none() => {
                    if let Some(s) = ctx.self_of {
                        b.index.specials.push((v.span, Special::SelfOf(s)));
                    }
                }
                name => {
                    if let Some(d) = b.lookup(name, ctx) {
                        b.index.refs.push((v.span, d));
                    }
                }
            },
            ExprKind::GetAttr(src, name) => {
                b.req_ref(src, &name.name, name.span, ctx);
                b.module_ref(src, &name.name, name.span, ctx);
            }
            ExprKind::Index(src, key) => {
                if let Some((name, span)) = string_literal(key) {
                    b.req_ref(src, &name, span, ctx);
                }
            }
            ExprKind::FuncCall { name, args, .. } => {
                if &*name.name == "invoke"
                    && let Some((target, span)) = args.first().and_then(string_literal)
                    && let Some(d) = b.global(ctx, DefKind::Function, &target)
                {
                    b.index.refs.push((span, d));
                }
            }
            _ => {}
        }
        true
    }

    fn bind(&mut self, var: &fnhcl_syntax::ast::Ident) {
        self.b.bind(var, self.ctx);
    }

    fn unbind(&mut self, n: usize) {
        let bound = &mut self.b.bound;
        bound.truncate(bound.len().saturating_sub(n));
    }
}
