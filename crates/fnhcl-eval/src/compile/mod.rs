//! Compilation: parse every file, check every block against its schema and
//! every reference against its scope, once. The result is an immutable
//! block tree ([`Program`]) that evaluation walks.
//!
//! Here: [`Program`] and the entry point [`compile`] (with its lints).
//! The pieces: `types` (the compiled block tree), `env` (the compiler's
//! state and name environments), `scopes` (locals, cycles, reference
//! checks), `functions` (user functions and calls), `blocks` and
//! `composite` (block bodies), `modules`, `params`, `instances` and
//! `switch` (D24-D31).

mod blocks;
mod composite;
mod depends;
mod env;
mod fill;
mod functions;
mod instances;
mod modules;
mod params;
mod scopes;
mod switch;
mod types;

pub(crate) use blocks::{key_span, object_key_name};
pub(crate) use types::{
    Case, Child, Collection, Composite, CompositeKind, Cond, ContextBlock, Dep, DepKind, Export,
    ExportValue, Group, Instance, Item, Module, Names, Params, PathStep, Ready, Requirement,
    Resource, Scope, Switch, items_at,
};

use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap, codes};
use fnhcl_syntax::ast::{Body, Structure};

use crate::layout;
use crate::refs;
use env::Compiler;

/// A compiled program: immutable, `Send + Sync`, cheap to share.
pub struct Program {
    pub(crate) sources: Arc<SourceMap>,
    /// `modules[0]` is the root program; the others are the imported
    /// module directories (D24).
    pub(crate) modules: Vec<Module>,
    /// Warnings about the program (unused parameters and exports).
    lints: Vec<Diagnostic>,
    /// What of the request the program reads.
    demand: crate::Demand,
    /// Whether any file declares a `composite connection` block (D37).
    declares_connection: bool,
    /// What of the program only a composition has (D39), in source order.
    composite_uses: Vec<crate::CompositeUse>,
    /// The program has an `output` block or reads `req.watched` (D39).
    operation_marks: bool,
    /// The program reads `req.watched` (D39).
    reads_watched: bool,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("files", &self.sources.len())
            .field("modules", &self.modules.len())
            .field("items", &self.modules[0].items.len())
            .finish()
    }
}

impl Program {
    /// The program's sources.
    pub fn sources(&self) -> &Arc<SourceMap> {
        &self.sources
    }

    /// Warnings that do not stop the program: parameters a module never
    /// reads, exports nobody reads.
    pub fn lints(&self) -> &[Diagnostic] {
        &self.lints
    }

    /// What of the request the program can read: convert only that
    /// ([`crate::Demand`]).
    pub fn demand(&self) -> &crate::Demand {
        &self.demand
    }

    /// Whether the program declares a `composite connection` block
    /// anywhere (in any module, under any group, resource or switch),
    /// whether or not a run reaches it: on a Crossplane 2 XR the
    /// connection Secret (D37) is composed exactly when it does.
    pub fn declares_composite_connection(&self) -> bool {
        self.declares_connection
    }

    /// What of the program only a composition has (D39): `composite` and
    /// `ready` blocks, references to the observed composite and composed
    /// resources. In an operation each of them is an error.
    pub fn composite_uses(&self) -> &[crate::CompositeUse] {
        &self.composite_uses
    }

    /// Whether the program is written for an operation (D39): it has an
    /// `output` block or reads `req.watched`.
    pub fn is_operation_program(&self) -> bool {
        self.operation_marks
    }

    /// Whether the program reads `req.watched` (D39).
    pub fn reads_watched(&self) -> bool {
        self.reads_watched
    }

    /// The module directories the program imports (empty without modules).
    pub fn module_dirs(&self) -> Vec<&str> {
        self.modules[1..].iter().map(|m| m.dir.as_str()).collect()
    }
}

/// Compiles the files of `sources` into a program. Every problem found is
/// returned (errors only); warnings do not exist at this stage.
pub fn compile(sources: Arc<SourceMap>) -> Result<Program, Vec<Diagnostic>> {
    compile_interruptible(sources, None).map_err(|e| match e {
        NotCompiled::Diagnostics(d) => d,
        // Without an interrupt a compile is never stopped.
        NotCompiled::Interrupted => Vec::new(),
    })
}

/// Why [`compile_interruptible`] gave no program.
#[derive(Debug)]
pub enum NotCompiled {
    /// The program's problems (errors only).
    Diagnostics(Vec<Diagnostic>),
    /// The interrupt said stop ([`COMPILE_INTERRUPTED_DETAIL`] says so to
    /// users).
    Interrupted,
}

impl From<Vec<Diagnostic>> for NotCompiled {
    fn from(d: Vec<Diagnostic>) -> NotCompiled {
        NotCompiled::Diagnostics(d)
    }
}

/// What a run whose compile was stopped is told.
pub const COMPILE_INTERRUPTED_DETAIL: &str = "Compiling the program was stopped: the request was cancelled (its caller went away or its deadline passed).";

/// [`compile`], asking `interrupt` now and then (between files, and every
/// few hundred expressions checked) whether to go on.
pub fn compile_interruptible(
    sources: Arc<SourceMap>,
    interrupt: Option<&fnhcl_expr::Interrupt>,
) -> Result<Program, NotCompiled> {
    compile_files(sources, interrupt, None, None)
}

/// For editors, while files are being typed: compiles with the trees the
/// parser recovered from files with syntax errors. Returns those syntax
/// errors, and the program or the compile's errors outside the files with
/// syntax errors (inside them, they are mostly consequences of the syntax
/// errors). A program compiled this way is for previews, never for a run.
pub fn compile_recovering(
    sources: Arc<SourceMap>,
) -> (Vec<Diagnostic>, Result<Program, Vec<Diagnostic>>) {
    compile_recovering_parsed(sources, Vec::new())
}

/// [`compile_recovering`] of files parsed already: `parsed[i]` is what
/// `fnhcl_syntax::parse_file` gave for the `i`-th file of `sources` (files
/// past the end of `parsed` are parsed here).
pub fn compile_recovering_parsed(
    sources: Arc<SourceMap>,
    parsed: Vec<(Body, Vec<Diagnostic>)>,
) -> (Vec<Diagnostic>, Result<Program, Vec<Diagnostic>>) {
    let mut syntax = Vec::new();
    let r = compile_files(sources, None, Some(&mut syntax), Some(parsed)).map_err(|e| match e {
        NotCompiled::Diagnostics(d) => d,
        NotCompiled::Interrupted => Vec::new(),
    });
    (syntax, r)
}

/// Leaves out the diagnostics in `broken` files.
fn outside(diags: &mut Vec<Diagnostic>, broken: &[fnhcl_base::FileId]) {
    if !broken.is_empty() {
        diags.retain(|d| d.primary.is_none_or(|s| !broken.contains(&s.file)));
    }
}

/// [`compile_interruptible`]; with `syntax`, [`compile_recovering`];
/// `parsed`, the files parsed already.
fn compile_files(
    sources: Arc<SourceMap>,
    interrupt: Option<&fnhcl_expr::Interrupt>,
    mut syntax: Option<&mut Vec<Diagnostic>>,
    parsed: Option<Vec<(Body, Vec<Diagnostic>)>>,
) -> Result<Program, NotCompiled> {
    let mut diags = Vec::new();
    let mut bodies = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let mut broken = Vec::new();
    let mut parsed = parsed.unwrap_or_default().into_iter();
    for (id, file) in sources.files() {
        if interrupt.is_some_and(|i| !i.check()) {
            return Err(NotCompiled::Interrupted);
        }
        let (body, d) = parsed
            .next()
            .unwrap_or_else(|| fnhcl_syntax::parse_file(&sources, id));
        match syntax.as_deref_mut() {
            Some(s) if d.iter().any(Diagnostic::is_error) => {
                broken.push(id);
                s.extend(d);
            }
            _ => diags.extend(d),
        }
        bodies.push(body);
        names.push(file.name.as_str());
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags.into());
    }
    let layout = layout::layout(&sources, &names, &bodies, &mut diags);
    outside(&mut diags, &broken);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags.into());
    }
    // `module.<instance>` and `switch.<name>` become variables of their own
    // in the modules that declare instances or switches (D31).
    for m in &layout.modules {
        let mut roots = Vec::new();
        let declares = |ty: &str| m.files.iter().any(|&f| declares_block(&bodies[f], ty, 0));
        if declares("module") {
            roots.push("module");
        }
        if declares("switch") {
            roots.push("switch");
        }
        if !roots.is_empty() {
            for &f in &m.files {
                refs::rewrite_body(&mut bodies[f], &roots);
            }
        }
    }
    let mut compiled: Vec<Option<Module>> = (0..layout.modules.len()).map(|_| None).collect();
    let mut param_uses: Vec<(usize, String)> = Vec::new();
    let mut export_reads: Vec<(usize, Option<String>)> = Vec::new();
    let mut instantiated: Vec<usize> = Vec::new();
    let mut demand = crate::Demand::everything();
    let mut composite_uses = Vec::new();
    let mut operation_marks = false;
    let mut reads_watched = false;
    for &m in &layout.order {
        let files: Vec<&Body> = layout.modules[m]
            .files
            .iter()
            .map(|&f| &bodies[f])
            .collect();
        let mut c = Compiler::new(&layout, m, &compiled, interrupt);
        let module = c.module(&files);
        if c.stopped {
            return Err(NotCompiled::Interrupted);
        }
        diags.extend(c.diags);
        composite_uses.extend(c.composite_uses);
        operation_marks |= c.operation_marks;
        reads_watched |= c.reads_watched;
        param_uses.extend(c.param_uses.into_iter().map(|p| (m, p)));
        export_reads.extend(c.export_reads);
        // Module instances see views of `req` of their own: a program with
        // modules converts the whole request.
        if m == 0 && layout.modules.len() == 1 {
            demand = c.demand;
            if !c.collections.is_empty() {
                demand.add_membership();
            }
        }
        if let Some(module) = &module {
            for (path, idx) in &module.instances {
                if let Some(Item::Module(i)) =
                    items_at(&module.items, path).and_then(|x| x.get(*idx))
                {
                    instantiated.push(i.module);
                }
            }
        }
        compiled[m] = module;
    }
    outside(&mut diags, &broken);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags.into());
    }
    let mut modules = Vec::with_capacity(compiled.len());
    for m in compiled {
        match m {
            Some(m) => modules.push(m),
            // What failed to compile was in a file with syntax errors.
            None if !broken.is_empty() => return Err(diags.into()),
            None => {
                return Err(NotCompiled::from(vec![
                    Diagnostic::error("internal error: a module was not compiled", "")
                        .with_code(codes::PROGRAM),
                ]));
            }
        }
    }
    let declares_connection = bodies.iter().any(|b| declares_connection(b, 0));
    composite_uses.sort_by_key(|u: &crate::CompositeUse| u.span);
    // Every expression moves from the parse tree into what was compiled
    // from it (the tree is not needed any more).
    if let Err(d) = fill::fill(&mut modules, &mut bodies) {
        return Err(vec![d].into());
    }
    let lints = lints(&modules, &instantiated, &param_uses, &export_reads);
    Ok(Program {
        sources,
        modules,
        lints,
        demand,
        declares_connection,
        composite_uses,
        operation_marks,
        reads_watched,
    })
}

/// Unused parameters and exports of the modules that are instantiated.
fn lints(
    modules: &[Module],
    instantiated: &[usize],
    param_uses: &[(usize, String)],
    export_reads: &[(usize, Option<String>)],
) -> Vec<Diagnostic> {
    let mut lints = Vec::new();
    for (m, module) in modules.iter().enumerate().skip(1) {
        if !instantiated.contains(&m) {
            continue;
        }
        for p in &module.params {
            if !param_uses.iter().any(|(um, n)| *um == m && *n == *p.name) {
                lints.push(
                    Diagnostic::warning(
                        format!("param \"{}\" is never used", p.name),
                        format!("module \"{}\" never reads param.{}", module.dir, p.name),
                    )
                    .with_code(codes::UNUSED_PARAMETER)
                    .with_span(p.span),
                );
            }
        }
        if export_reads.iter().any(|(em, e)| *em == m && e.is_none()) {
            continue;
        }
        for e in &module.exports {
            if !export_reads
                .iter()
                .any(|(em, n)| *em == m && n.as_deref() == Some(&*e.name))
            {
                lints.push(
                    Diagnostic::warning(
                        format!("export \"{}\" is never used", e.name),
                        format!(
                            "no instance of module \"{}\" is read as module.<instance>.{}",
                            module.dir, e.name
                        ),
                    )
                    .with_code(codes::UNUSED_EXPORT)
                    .with_span(e.span),
                );
            }
        }
    }
    lints
}

/// True if `body` declares a block of type `ty` where items may appear.
/// Whether `body` holds a `composite "connection"` block at any depth.
fn declares_connection(body: &Body, depth: usize) -> bool {
    depth <= 64
        && body.items.iter().any(|s| match s {
            Structure::Block(b) => {
                (&*b.ident.name == "composite"
                    && b.labels.first().is_some_and(|l| l.value == "connection"))
                    || declares_connection(&b.body, depth + 1)
            }
            _ => false,
        })
}

fn declares_block(body: &Body, ty: &str, depth: usize) -> bool {
    if depth > 64 {
        return false;
    }
    body.items.iter().any(|s| match s {
        Structure::Block(b) if &*b.ident.name == ty => true,
        Structure::Block(b) => {
            matches!(&*b.ident.name, "group" | "switch" | "case" | "default")
                && declares_block(&b.body, ty, depth + 1)
        }
        _ => false,
    })
}
