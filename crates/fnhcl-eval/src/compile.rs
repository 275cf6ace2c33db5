//! Compilation: parse every file, check every block against its schema and
//! every reference against its scope, once. The result is an immutable
//! block tree ([`Program`]) that evaluation walks.

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap, Span};
use fnhcl_syntax::ast::{Attribute, Block, Body, Expr, ExprKind, ObjectItem, ObjectKey, Structure};
use fnhcl_value::Value;

use crate::exprs;
use crate::graph;
use crate::layout::{self, Layout};
use crate::refs::{self, literal_string};
use crate::schema::{self, BodySchema, Content};

/// A compiled program: immutable, `Send + Sync`, cheap to share.
pub struct Program {
    pub(crate) sources: Arc<SourceMap>,
    /// `modules[0]` is the root program; the others are the imported
    /// module directories (D24).
    pub(crate) modules: Vec<Module>,
    /// Warnings about the program (unused parameters and exports).
    lints: Vec<Diagnostic>,
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

    /// The module directories the program imports (empty without modules).
    pub fn module_dirs(&self) -> Vec<&str> {
        self.modules[1..].iter().map(|m| m.dir.as_str()).collect()
    }
}

/// One module: the root program or an imported directory (D24).
pub(crate) struct Module {
    /// The directory (`modules/bucket`); empty for the root.
    pub dir: String,
    pub top: Scope,
    pub items: Vec<Item>,
    pub functions: HashMap<Arc<str>, Function>,
    pub params: Vec<Param>,
    pub exports: Vec<Export>,
    /// Every `module` block by id: where it sits (the path to the item
    /// list holding it) and its index there.
    pub instances: Vec<(Vec<PathStep>, usize)>,
    pub instance_ids: HashMap<String, usize>,
    /// Every `switch` block by id, as `instances`.
    pub switches: Vec<(Vec<PathStep>, usize)>,
    pub switch_ids: HashMap<String, usize>,
    /// Everything the module can emit, relative to its instance prefix.
    pub names: Names,
    /// Instances created (transitively) by one instance of this module.
    pub instance_count: usize,
}

/// One step from a module's top-level items to nested items.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PathStep {
    /// Into the group at this item index.
    Group(usize),
    /// Into case `.1` of the switch at item index `.0`.
    Case(usize, usize),
}

/// The items at the end of `path` (static navigation, no evaluation).
pub(crate) fn items_at<'m>(items: &'m [Item], path: &[PathStep]) -> Option<&'m [Item]> {
    let mut cur = items;
    for step in path {
        cur = match *step {
            PathStep::Group(i) => match cur.get(i)? {
                Item::Group(g) => &g.items,
                _ => return None,
            },
            PathStep::Case(i, c) => match cur.get(i)? {
                Item::Switch(sw) => &sw.cases.get(c)?.items,
                _ => return None,
            },
        };
    }
    Some(cur)
}

/// Crossplane names a block can emit, relative to the enclosing module
/// (nested instances contribute `<instance>-<name>`), with the block that
/// declares each.
#[derive(Clone, Default)]
pub(crate) struct Names {
    pub resources: Vec<(String, Span)>,
    /// Collection base names (members are found by their annotation).
    pub collections: Vec<(String, Span)>,
}

impl Names {
    fn extend(&mut self, other: &Names) {
        self.resources.extend(other.resources.iter().cloned());
        self.collections.extend(other.collections.iter().cloned());
    }
}

/// `param "name" { default = ... }` (D27).
pub(crate) struct Param {
    pub name: Arc<str>,
    pub default: Option<Value>,
    pub span: Span,
}

/// One exported name (D29).
pub(crate) struct Export {
    pub name: Arc<str>,
    pub span: Span,
    pub value: ExportValue,
}

pub(crate) enum ExportValue {
    Expr(Expr),
    /// The observed body of the module's resource with this local name.
    Resource(String),
}

/// `module "alias" "name" { ... }` (D26).
pub(crate) struct Instance {
    pub id: usize,
    pub name: String,
    pub header: Span,
    /// Index of the instantiated module in [`Program::modules`].
    pub module: usize,
    pub condition: Option<Cond>,
    pub params: Params,
    /// What the instance can emit, relative to the enclosing module.
    pub names: Names,
}

pub(crate) enum Params {
    /// `region = ...` attributes.
    Named(Vec<(Arc<str>, Expr)>),
    /// `params = { ... }`.
    Object(Expr),
}

/// `switch "name" { case "a" { ... } default { ... } }` (D30).
pub(crate) struct Switch {
    pub id: usize,
    pub name: String,
    pub header: Span,
    pub cases: Vec<Case>,
    /// The names every branch exports (empty when none does).
    pub export_names: Vec<Arc<str>>,
    pub names: Names,
}

pub(crate) struct Case {
    /// The case name, `default` for the default branch.
    pub name: String,
    /// `None` for `default`.
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub items: Vec<Item>,
    pub exports: Vec<Export>,
}

/// The locals of one scope (all `locals` blocks of a block, merged).
#[derive(Default)]
pub(crate) struct Scope {
    pub locals: Vec<Local>,
    pub index: HashMap<Arc<str>, usize>,
}

impl Scope {
    pub(crate) fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }

    /// The index of local `name` (a linear scan for the usual small scopes,
    /// hashing only for large ones).
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        if self.locals.len() <= 12 {
            self.locals.iter().position(|l| &*l.name == name)
        } else {
            self.index.get(name).copied()
        }
    }
}

pub(crate) struct Local {
    pub name: Arc<str>,
    pub expr: Expr,
}

/// A `condition = ...` attribute.
pub(crate) struct Cond {
    pub expr: Expr,
    /// The whole attribute (discard records point here).
    pub span: Span,
}

pub(crate) enum Item {
    Group(Group),
    Resource(Resource),
    Collection(Collection),
    Composite(Composite),
    Context(ContextBlock),
    Requirement(Requirement),
    Module(Instance),
    Switch(Switch),
}

/// Blocks nested in a resource, template or collection.
pub(crate) enum Child {
    Composite(Composite),
    Context(ContextBlock),
    Ready(Ready),
}

pub(crate) struct Group {
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub items: Vec<Item>,
    /// What the group can emit (for the fail-safe, D12).
    pub names: Names,
}

pub(crate) struct Resource {
    pub name: String,
    pub header: Span,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub body: Expr,
    pub children: Vec<Child>,
}

pub(crate) struct Collection {
    pub base: String,
    pub header: Span,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub for_each: Expr,
    pub name: Option<Expr>,
    pub children: Vec<Child>,
    pub template: Template,
}

pub(crate) struct Template {
    pub header: Span,
    pub scope: Scope,
    pub body: Expr,
    pub children: Vec<Child>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompositeKind {
    Status,
    Connection,
}

pub(crate) struct Composite {
    pub kind: CompositeKind,
    pub scope: Scope,
    pub body: Expr,
}

pub(crate) struct ContextBlock {
    pub scope: Scope,
    pub key: Expr,
    pub value: Expr,
}

pub(crate) struct Ready {
    pub scope: Scope,
    pub value: Expr,
}

pub(crate) struct Requirement {
    pub name: String,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub select: Select,
}

pub(crate) struct Select {
    pub header: Span,
    pub api_version: Expr,
    pub kind: Expr,
    pub match_name: Option<Expr>,
    pub match_labels: Option<Expr>,
}

pub(crate) struct Function {
    pub name: Arc<str>,
    pub args: Vec<Arg>,
    pub scope: Scope,
    pub body: Expr,
}

pub(crate) struct Arg {
    pub name: Arc<str>,
    pub default: Option<Value>,
}

/// Compiles the files of `sources` into a program. Every problem found is
/// returned (errors only); warnings do not exist at this stage.
pub fn compile(sources: Arc<SourceMap>) -> Result<Program, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut bodies = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for (id, file) in sources.files() {
        let (body, d) = fnhcl_syntax::parse_file(&sources, id);
        diags.extend(d);
        bodies.push(body);
        names.push(file.name.as_str());
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let layout = layout::layout(&sources, &names, &bodies, &mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
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
    for &m in &layout.order {
        let files: Vec<&Body> = layout.modules[m]
            .files
            .iter()
            .map(|&f| &bodies[f])
            .collect();
        let mut c = Compiler::new(&layout, m, &compiled);
        let module = c.module(&files);
        diags.extend(c.diags);
        param_uses.extend(c.param_uses.into_iter().map(|p| (m, p)));
        export_reads.extend(c.export_reads);
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
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let mut modules = Vec::with_capacity(compiled.len());
    for m in compiled {
        match m {
            Some(m) => modules.push(m),
            None => {
                return Err(vec![Diagnostic::error(
                    "internal error: a module was not compiled",
                    "",
                )]);
            }
        }
    }
    let lints = lints(&modules, &instantiated, &param_uses, &export_reads);
    Ok(Program {
        sources,
        modules,
        lints,
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
                    .with_span(e.span),
                );
            }
        }
    }
    lints
}

/// True if `body` declares a block of type `ty` where items may appear.
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

/// Most module instances one program may create (nested ones included).
const MAX_INSTANCES: usize = 10_000;

/// What a user function accepts (for static `invoke` checks).
struct Sig {
    /// `(name, required)`.
    args: Vec<(String, bool)>,
}

/// What the expressions of one module may read beyond locals: parameters,
/// instances and their exports, switches (static view, D27-D31).
#[derive(Default)]
struct ModEnv {
    /// Declared parameters (`None`: the module declares none).
    params: Option<Vec<String>>,
    /// Instance name → the export names of its module (`None` when the
    /// module could not be resolved: no checks then).
    instances: Vec<(String, Option<Vec<String>>, Option<usize>)>,
    /// Switch name → (case names, export names).
    switches: Vec<(String, Vec<String>, Vec<String>)>,
    declares_instances: bool,
    declares_switches: bool,
}

/// Names visible in a scope (static view of the runtime frames).
#[derive(Clone)]
struct Env {
    req: bool,
    self_keys: Option<&'static [&'static str]>,
    each: bool,
    /// Locals and function arguments.
    names: Vec<Arc<str>>,
    /// Module-level names (`None` inside user functions).
    module: Option<Arc<ModEnv>>,
}

impl Env {
    fn has(&self, name: &str) -> bool {
        (self.req && name == "req")
            || (self.self_keys.is_some() && name == "self")
            || (self.each && name == "each")
            || (name == "param" && self.module.as_ref().is_some_and(|m| m.params.is_some()))
            || self.names.iter().any(|n| &**n == name)
    }
    fn all_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.names.iter().map(|n| &**n).collect();
        if self.req {
            v.push("req");
        }
        if self.self_keys.is_some() {
            v.push("self");
        }
        if self.each {
            v.push("each");
        }
        if let Some(m) = &self.module {
            if m.params.is_some() {
                v.push("param");
            }
            if m.declares_instances {
                v.push("module");
            }
            if m.declares_switches {
                v.push("switch");
            }
        }
        v
    }
}

/// Terraform functions left out because they read the clock or
/// randomness (D8).
const NOT_HERMETIC: &[&str] = &["timestamp", "plantimestamp", "uuid", "bcrypt"];

/// Terraform functions left out because they read files (D8), besides
/// those whose name starts with `file`.
const NO_FILESYSTEM: &[&str] = &["templatefile", "abspath", "pathexpand"];

/// How many names in scope a "non-existent variable" detail lists.
const MAX_LISTED_NAMES: usize = 10;

/// The detail of "reference to non-existent variable": a targeted hint for
/// Terraform habits (`local.x`, `var.x`, `data.x`, `count.index`,
/// `path.module`, `module.x` without modules), else a did-you-mean, else
/// the names in scope. `attr` is the first attribute after the root.
fn undefined_detail(name: &str, attr: Option<&str>, env: &Env) -> String {
    let attr_or = |placeholder: &'static str| attr.unwrap_or(placeholder);
    let is_local = |n: &str| env.names.iter().any(|x| &**x == n);
    let params = env.module.as_ref().and_then(|m| m.params.as_deref());
    match name {
        "local" => {
            let n = attr_or("name");
            if attr.is_none() {
                "locals are referenced by their bare name (`name`, not `local.name`); there is no `local` object".to_owned()
            } else if attr.is_some_and(is_local) {
                format!(
                    "locals are referenced by their bare name: `{n}` (there is no `local.` prefix)"
                )
            } else {
                let mut d = format!(
                    "locals are referenced by their bare name (`{n}`, not `local.{n}`), and no local \"{n}\" is in scope here"
                );
                if let Some(a) = attr
                    && let Some(s) = schema::suggest(a, env.names.iter().map(|x| &**x))
                {
                    d.push_str(&format!("; did you mean \"{s}\"?"));
                }
                d
            }
        }
        "var" => {
            let n = attr_or("name");
            match params {
                Some(ps) if ps.iter().any(|p| p == n) => format!(
                    "function-hcl has no input variables; this module's parameters are read as `param.{n}`"
                ),
                Some(_) => format!(
                    "function-hcl has no input variables: a module reads its parameters as `param.<name>`, and inputs come from the composite resource (`req.composite.spec.{n}`)"
                ),
                None => format!(
                    "function-hcl has no input variables: inputs come from the composite resource, e.g. `req.composite.spec.{n}` (inside a module, `param.<name>`)"
                ),
            }
        }
        "data" => "function-hcl has no data sources: declare a `requirement` block to have Crossplane fetch existing resources, then read them from `req.extra_resources.<requirement name>`".to_owned(),
        "count" => "function-hcl has no `count`: declare a `resources` block with `for_each` and use `each.key` / `each.value` in its `template`".to_owned(),
        "path" => "function-hcl has no filesystem: `path.module`, `path.root` and `path.cwd` do not exist; put the data in the program or read it from the request".to_owned(),
        "module" => "this program declares no module blocks: import a module directory with `import \"<dir>\" {}`, create an instance with `module \"<alias>\" \"<instance>\" { ... }`, then read its exports as `module.<instance>.<export>` (see docs/authoring.md)".to_owned(),
        "switch" => "this program declares no switch blocks: declare `switch \"<name>\" { case \"<case>\" { ... } }` to read `switch.<name>.<attribute>`".to_owned(),
        "param" => "param.<name> reads a parameter of a module, and no `param` block is declared here".to_owned(),
        // Inside a user function (no module environment) only the
        // arguments are visible.
        "req" | "self" | "each" if env.module.is_none() => {
            format!("a user function sees only its arguments; pass the value of {name} as an argument")
        }
        "self" => "self exists only inside resource, resources and template blocks".to_owned(),
        "each" => "each exists only in the name and template of a resources block".to_owned(),
        _ => {
            let all = env.all_names();
            if let Some(s) = schema::suggest(name, all.iter().copied()) {
                format!("did you mean \"{s}\"?")
            } else {
                let mut names: Vec<&str> = all;
                names.sort_unstable();
                names.dedup();
                if names.is_empty() {
                    "no variables are in scope here".to_owned()
                } else if names.len() > MAX_LISTED_NAMES {
                    format!(
                        "in scope here: {}, … ({} more)",
                        names[..MAX_LISTED_NAMES].join(", "),
                        names.len() - MAX_LISTED_NAMES
                    )
                } else {
                    format!("in scope here: {}", names.join(", "))
                }
            }
        }
    }
}

const SELF_RESOURCE: &[&str] = &["name", "resource", "connection"];
const SELF_COLLECTION: &[&str] = &["basename", "resources", "connections"];
const SELF_TEMPLATE: &[&str] = &[
    "basename",
    "resources",
    "connections",
    "name",
    "resource",
    "connection",
];

struct Compiler<'l> {
    sigs: HashMap<String, Sig>,
    diags: Vec<Diagnostic>,
    resources: HashMap<String, Span>,
    collections: HashMap<String, Span>,
    requirements: HashMap<String, Span>,
    instances: HashMap<String, Span>,
    switches: HashMap<String, Span>,
    layout: &'l Layout,
    /// The module being compiled.
    module: usize,
    /// Modules compiled so far (every module this one imports is).
    compiled: &'l [Option<Module>],
    /// Resources named by `export { resource "x" {} }`, checked once every
    /// resource of the module is known.
    exported_resources: Vec<(String, Span)>,
    /// Parameters read (`param.<name>`).
    param_uses: Vec<String>,
    /// Exports read: (module, export), `None` for the whole `module.<i>`.
    export_reads: Vec<(usize, Option<String>)>,
}

/// True if `e` has no variable references and no function calls.
pub(crate) fn is_constant(e: &Expr) -> bool {
    refs::traversals(e).is_empty() && refs::calls(e).is_empty()
}

/// Evaluates a constant expression.
pub(crate) fn eval_constant(e: &Expr) -> (Value, Vec<Diagnostic>) {
    exprs::eval_constant(e)
}

use crate::layout::is_identifier;

fn label(b: &Block) -> (String, Span) {
    b.labels
        .first()
        .map(|l| (l.value.clone(), l.span))
        .unwrap_or_else(|| (String::new(), b.ident.span))
}

impl Compiler<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn content<'a>(&mut self, b: &'a Block, s: &BodySchema, body_block: bool) -> Content<'a> {
        schema::content(&b.body, Some(b.open_brace), s, body_block, &mut self.diags)
    }

    // ---- scopes and references ----

    /// Builds the scope of `blocks` (all `locals` blocks of one block) on
    /// top of `parent`: duplicate names, shadowing, references, cycles.
    fn scope(&mut self, blocks: &[&Block], parent: &Env) -> (Scope, Env) {
        let mut scope = Scope::default();
        let mut spans: Vec<Span> = Vec::new();
        for b in blocks {
            for item in &b.body.items {
                match item {
                    Structure::Attribute(a) => {
                        let name = a.name.name.clone();
                        if let Some(&i) = scope.index.get(&name) {
                            self.err(
                                Diagnostic::error(
                                    format!("local \"{name}\": duplicate local declaration"),
                                    "the locals blocks of one scope share their names; rename one of them",
                                )
                                .with_span(a.name.span)
                                .with_label(spans[i], "first declared here"),
                            );
                            continue;
                        }
                        if let Some(m) = &parent.module
                            && ((&*name == "module" && m.declares_instances)
                                || (&*name == "switch" && m.declares_switches)
                                || (&*name == "param" && m.params.is_some()))
                        {
                            self.err(
                                Diagnostic::error(
                                    format!("local \"{name}\" hides the module's {name} references"),
                                    format!("this module declares {name} blocks, so {name}.<name> refers to them; rename the local"),
                                )
                                .with_span(a.name.span),
                            );
                            continue;
                        }
                        if parent.has(&name) {
                            self.err(
                                Diagnostic::error(
                                    format!("attempt to shadow variable \"{name}\""),
                                    "an enclosing scope already has a variable of this name; rename this local",
                                )
                                    .with_span(a.name.span),
                            );
                            continue;
                        }
                        scope.index.insert(name.clone(), scope.locals.len());
                        spans.push(a.name.span);
                        scope.locals.push(Local {
                            name,
                            expr: a.expr.clone(),
                        });
                    }
                    Structure::Block(inner) => self.err(
                        Diagnostic::error(
                            format!("Unexpected \"{}\" block", inner.ident.name),
                            "Blocks are not allowed here.",
                        )
                        .with_span(inner.ident.span),
                    ),
                }
            }
        }
        let mut env = parent.clone();
        env.names
            .extend(scope.locals.iter().map(|l| l.name.clone()));
        for l in &scope.locals {
            self.check_expr(&l.expr, &env);
        }
        self.cycles(&scope, &spans);
        (scope, env)
    }

    /// Reports every dependency cycle among the locals of one scope.
    fn cycles(&mut self, scope: &Scope, spans: &[Span]) {
        let n = scope.locals.len();
        let deps: Vec<Vec<usize>> = scope
            .locals
            .iter()
            .map(|l| {
                let mut d: Vec<usize> = refs::traversals(&l.expr)
                    .iter()
                    .filter_map(|t| scope.index.get(&t.root.name).copied())
                    .collect();
                d.dedup();
                d
            })
            .collect();
        let mut reported = vec![false; n];
        let mut found = Vec::new();
        graph::depth_first(
            n,
            |node, i| deps[node].get(i).copied(),
            |members, _, _| {
                if members.iter().any(|m| reported[*m]) {
                    return;
                }
                for m in members {
                    reported[*m] = true;
                }
                // The edge closing the cycle leads back to its first member.
                let dep = members[0];
                let mut names: Vec<&str> =
                    members.iter().map(|m| &*scope.locals[*m].name).collect();
                names.push(&scope.locals[dep].name);
                // Blame the reference that starts the cycle: in the first
                // member's expression, its reference to the second (itself
                // for a local that reads itself).
                let next = &*scope.locals[members[1 % members.len()]].name;
                let at = refs::traversals(&scope.locals[dep].expr)
                    .iter()
                    .find(|t| &*t.root.name == next)
                    .map_or(scope.locals[dep].expr.span, |t| t.root.span);
                let mut d = Diagnostic::error(
                    format!("cycle found: {}", names.join(" → ")),
                    "each of these locals needs the value of the next one",
                )
                .with_span(at);
                for m in members {
                    d = d.with_label(
                        spans[*m],
                        format!("\"{}\" is part of the cycle", scope.locals[*m].name),
                    );
                }
                found.push(d);
            },
        );
        self.diags.extend(found);
    }

    /// Checks references and `invoke` calls of one expression (D23).
    fn check_expr(&mut self, e: &Expr, env: &Env) {
        for t in refs::traversals(e) {
            let name = &*t.root.name;
            if self.check_module_ref(&t, env) {
                continue;
            }
            if !env.has(name) {
                let detail = undefined_detail(name, t.first_attr.map(|a| &*a.name), env);
                self.err(
                    Diagnostic::error(
                        format!("reference to non-existent variable \"{name}\""),
                        detail,
                    )
                    .with_span(t.root.span),
                );
                continue;
            }
            let Some(attr) = t.first_attr else { continue };
            if name == "self"
                && let Some(keys) = env.self_keys
                && !keys.contains(&&*attr.name)
            {
                let mut detail = format!(
                    "self has no attribute \"{}\" here; it has: {}",
                    attr.name,
                    keys.join(", ")
                );
                if let Some(s) = schema::suggest(&attr.name, keys.iter().copied()) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(
                        format!("invalid self reference \"self.{}\"", attr.name),
                        detail,
                    )
                    .with_span(attr.span),
                );
            }
            if name == "each" && env.each && attr.name.as_ref() != "key" && &*attr.name != "value" {
                self.err(
                    Diagnostic::error(
                        format!("invalid each reference \"each.{}\"", attr.name),
                        match schema::suggest(&attr.name, ["key", "value"].into_iter()) {
                            _ if &*attr.name == "index" => "each has only key and value; for a list, each.key is the element's index".to_owned(),
                            Some(s) => format!("each has only key and value; did you mean \"{s}\"?"),
                            None => "each has only key and value".to_owned(),
                        },
                    )
                    .with_span(attr.span),
                );
            }
        }
        for call in refs::calls(e) {
            self.check_function_name(call);
            self.check_invoke(call);
        }
    }

    /// A call of a function that does not exist can never succeed: report
    /// it now rather than deferring the block forever (D23).
    fn check_function_name(&mut self, call: &Expr) {
        let ExprKind::FuncCall { name, .. } = &call.kind else {
            return;
        };
        let fname = &*name.name;
        if fname.contains("::") || fnhcl_functions::exists(fname) {
            return;
        }
        let reg = fnhcl_functions::registry();
        let detail = if self.sigs.contains_key(fname) {
            format!(
                "\"{fname}\" is a user function: call it with invoke(\"{fname}\", {{ <argument> = <value>, ... }})"
            )
        } else if NO_FILESYSTEM.contains(&fname) || fname.starts_with("file") {
            format!("\"{fname}\" is not available: function-hcl has no filesystem")
        } else {
            let mut d = if NOT_HERMETIC.contains(&fname) {
                format!(
                    "\"{fname}\" is not available: evaluation is hermetic (the same request always gives the same response)"
                )
            } else {
                format!("there is no built-in function \"{fname}\"")
            };
            if let Some(s) = schema::suggest(fname, reg.iter().map(|f| f.name)) {
                d.push_str(&format!("; did you mean \"{s}\"?"));
            }
            d
        };
        self.err(
            Diagnostic::error(format!("call to unknown function \"{fname}\""), detail)
                .with_span(name.span),
        );
    }

    fn check_invoke(&mut self, call: &Expr) {
        let ExprKind::FuncCall {
            name,
            args,
            expand_final,
        } = &call.kind
        else {
            return;
        };
        if &*name.name != "invoke" {
            return;
        }
        if args.len() != 2 {
            // The first extra argument, or the closing parenthesis where
            // one is missing (as HCL's arity errors).
            let subject = match args.get(2) {
                Some(extra) => extra.span,
                None => Span::new(
                    call.span.file,
                    (call.span.end as usize).saturating_sub(1),
                    call.span.end as usize,
                ),
            };
            self.err(
                Diagnostic::error(
                    "user function invocation has incorrect number of arguments",
                    format!(
                        "invoke takes 2 arguments, the function name and an object of arguments; got {}",
                        args.len()
                    ),
                )
                .with_span(subject),
            );
            return;
        }
        let Some(fname) = literal_string(&args[0]).filter(|_| !*expand_final) else {
            self.err(
                Diagnostic::error("user function invocation is not via a static string", "")
                    .with_span(args[0].span),
            );
            return;
        };
        let Some(sig) = self.sigs.get(&fname) else {
            let detail = match schema::suggest(&fname, self.sigs.keys().map(|k| k.as_str())) {
                Some(s) => format!("did you mean \"{s}\"?"),
                None if self.sigs.is_empty() => {
                    "the program declares no function blocks".to_owned()
                }
                None => {
                    let mut names: Vec<&str> = self.sigs.keys().map(String::as_str).collect();
                    names.sort_unstable();
                    format!("declared functions: {}", names.join(", "))
                }
            };
            self.err(
                Diagnostic::error(
                    format!("invoke called on unknown function \"{fname}\""),
                    detail,
                )
                .with_span(args[0].span),
            );
            return;
        };
        // Argument names, when the object's keys are all static.
        let ExprKind::Object(items) = &args[1].kind else {
            return;
        };
        let mut keys = Vec::new();
        for it in items {
            match object_key_name(it) {
                Some(k) => keys.push((k, key_span(it))),
                None => return,
            }
        }
        let mut found = Vec::new();
        for (k, span) in &keys {
            if !sig.args.iter().any(|(a, _)| a == k) {
                found.push(
                    Diagnostic::error(format!("function: \"{fname}\" has no argument \"{k}\""), {
                        let names: Vec<&str> = sig.args.iter().map(|(a, _)| a.as_str()).collect();
                        match schema::suggest(k, names.iter().copied()) {
                            Some(s) => format!("did you mean \"{s}\"?"),
                            None => format!("the function's arguments are: {}", names.join(", ")),
                        }
                    })
                    .with_span(*span),
                );
            }
        }
        for (a, required) in &sig.args {
            if *required && !keys.iter().any(|(k, _)| k == a) {
                found.push(
                    Diagnostic::error(
                        format!(
                            "function: \"{fname}\", argument \"{a}\" expected but not supplied"
                        ),
                        "the argument has no default, so every invoke must set it",
                    )
                    .with_span(args[1].span),
                );
            }
        }
        self.diags.extend(found);
    }

    // ---- user functions ----

    fn function_signature(&mut self, b: &Block, seen: &mut HashMap<String, Span>) {
        let (name, span) = label(b);
        if let Some(first) = seen.get(&name) {
            let first = *first;
            self.err(
                Diagnostic::error(
                    format!("duplicate function declaration \"{name}\""),
                    "function names must be unique in the program",
                )
                .with_span(b.header_span())
                .with_label(first, "first declared here"),
            );
            return;
        }
        seen.insert(name.clone(), b.header_span());
        if !is_identifier(&name) {
            self.err(
                Diagnostic::error(
                    format!("function \"{name}\" : name must be an identifier"),
                    "",
                )
                .with_span(span),
            );
        }
        let mut args = Vec::new();
        for item in &b.body.items {
            if let Structure::Block(a) = item
                && &*a.ident.name == "arg"
                && a.labels.len() == 1
            {
                let required =
                    !a.body.items.iter().any(
                        |i| matches!(i, Structure::Attribute(at) if &*at.name.name == "default"),
                    );
                args.push((a.labels[0].value.clone(), required));
            }
        }
        self.sigs.insert(name, Sig { args });
    }

    fn function(&mut self, b: &Block) -> Option<Function> {
        let (name, _) = label(b);
        let content = self.content(b, &schema::FUNCTION, false);
        if let Some(d) = content.attr("description") {
            self.constant_string(&d.expr, || {
                format!("function {name} : description is not a constant string")
            });
        }
        let mut args: Vec<Arg> = Vec::new();
        let mut arg_spans: Vec<Span> = Vec::new();
        for a in content.blocks_of("arg") {
            let (aname, aspan) = label(a);
            if !is_identifier(&aname) {
                self.err(
                    Diagnostic::error(
                        format!(
                            "function \"{name}\", arg \"{aname}\" : name must be an identifier"
                        ),
                        "",
                    )
                    .with_span(aspan),
                );
            }
            let ac = self.content(a, &schema::ARG, false);
            if let Some(d) = ac.attr("description") {
                self.constant_string(&d.expr, || {
                    format!(
                        "function \"{name}\", arg \"{aname}\" : description is not a constant string"
                    )
                });
            }
            let mut default = None;
            if let Some(d) = ac.attr("default") {
                let msg =
                    format!("function \"{name}\", args \"{aname}\": default is not a constant");
                if is_constant(&d.expr) {
                    let (v, ds) = eval_constant(&d.expr);
                    if ds.iter().any(Diagnostic::is_error) || !v.is_wholly_known() {
                        self.err(Diagnostic::error(msg, "").with_span(d.expr.span));
                    } else {
                        default = Some(v);
                    }
                } else {
                    self.err(Diagnostic::error(msg, "").with_span(d.expr.span));
                }
            }
            if let Some(i) = args.iter().position(|x| *x.name == *aname) {
                self.err(
                    Diagnostic::error(
                        format!(
                            "function \"{name}\": duplicate definition of argument \"{aname}\""
                        ),
                        "argument names must be unique in a function",
                    )
                    .with_span(a.header_span())
                    .with_label(arg_spans[i], "first declared here"),
                );
                continue;
            }
            arg_spans.push(a.header_span());
            args.push(Arg {
                name: aname.into(),
                default,
            });
        }
        let env = Env {
            req: false,
            self_keys: None,
            each: false,
            names: args.iter().map(|a| a.name.clone()).collect(),
            module: None,
        };
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, &env);
        let body = content.attr("body")?;
        self.check_expr(&body.expr, &env);
        Some(Function {
            name: name.into(),
            args,
            scope,
            body: body.expr.clone(),
        })
    }

    fn constant_string(&mut self, e: &Expr, msg: impl FnOnce() -> String) {
        if literal_string(e).is_none() {
            self.err(Diagnostic::error(msg(), "").with_span(e.span));
        }
    }

    // ---- blocks ----

    /// The items of a top-level or group body.
    fn items(&mut self, content: &Content<'_>, env: &Env) -> Vec<Item> {
        let mut items = Vec::new();
        for b in &content.blocks {
            let item = match &*b.ident.name {
                "group" => self.group(b, env).map(Item::Group),
                "resource" => self.resource(b, env).map(Item::Resource),
                "resources" => self.collection(b, env).map(Item::Collection),
                "composite" => self.composite(b, env).map(Item::Composite),
                "context" => self.context(b, env).map(Item::Context),
                "requirement" => self.requirement(b, env).map(Item::Requirement),
                "module" => self.instance(b, env).map(Item::Module),
                "switch" => self.switch(b, env).map(Item::Switch),
                // locals (already in the scope), functions, imports,
                // params and exports (compiled by the module)
                _ => None,
            };
            items.extend(item);
        }
        items
    }

    fn condition(&mut self, content: &Content<'_>, env: &Env) -> Option<Cond> {
        content.attr("condition").map(|a| {
            self.check_expr(&a.expr, env);
            Cond {
                expr: a.expr.clone(),
                span: a.span,
            }
        })
    }

    fn group(&mut self, b: &Block, env: &Env) -> Option<Group> {
        let content = self.content(b, &schema::GROUP, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let condition = self.condition(&content, &env);
        let items = self.items(&content, &env);
        let names = names_of(&items);
        Some(Group {
            condition,
            scope,
            items,
            names,
        })
    }

    /// The body of a resource-like block: `body = ...` or `body { ... }`.
    fn body_expr(&mut self, content: &Content<'_>) -> Option<Expr> {
        let attr = content.attr("body");
        let blocks: Vec<&Block> = content.blocks_of("body").collect();
        if let (Some(a), Some(b)) = (attr, blocks.first()) {
            self.err(
                Diagnostic::error(
                    "body defined twice",
                    "write the body either as an attribute (body = {...}) or as a block (body {...}), not both",
                )
                .with_span(b.ident.span)
                .with_label(a.name.span, "body attribute here"),
            );
            return None;
        }
        if blocks.len() > 1 {
            self.err(
                Diagnostic::error("body defined twice", "only one body block is allowed")
                    .with_span(blocks[1].ident.span)
                    .with_label(blocks[0].ident.span, "first body block here"),
            );
            return None;
        }
        if let Some(a) = attr {
            return Some(a.expr.clone());
        }
        let b = blocks.first()?;
        Some(self.block_as_object(b))
    }

    /// `body { a = 1 }` as the object expression `{ a = 1 }` (D4).
    fn block_as_object(&mut self, b: &Block) -> Expr {
        let mut items = Vec::new();
        for item in &b.body.items {
            match item {
                Structure::Attribute(a) => items.push(attr_item(a)),
                Structure::Block(inner) => self.err(
                    Diagnostic::error(
                        format!("Unexpected \"{}\" block", inner.ident.name),
                        format!(
                            "Blocks are not allowed in a body block; write {} = {{ ... }} instead.",
                            inner.ident.name
                        ),
                    )
                    .with_span(inner.ident.span),
                ),
            }
        }
        Expr {
            kind: ExprKind::Object(items),
            span: b.body.span,
        }
    }

    fn children(&mut self, content: &Content<'_>, env: &Env, owner: &str) -> Vec<Child> {
        let mut out = Vec::new();
        for b in &content.blocks {
            match &*b.ident.name {
                "composite" => out.extend(self.composite(b, env).map(Child::Composite)),
                "context" => out.extend(self.context(b, env).map(Child::Context)),
                "ready" => out.extend(self.ready(b, env, owner).map(Child::Ready)),
                _ => {}
            }
        }
        out
    }

    fn resource(&mut self, b: &Block, env: &Env) -> Option<Resource> {
        let (name, _) = label(b);
        self.unique(&name, b, Namespace::Resource);
        let content = self.content(b, &schema::RESOURCE, true);
        let mut env = env.clone();
        env.self_keys = Some(SELF_RESOURCE);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, &env);
        let condition = self.condition(&content, &env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        let children = self.children(&content, &env, &name);
        Some(Resource {
            name,
            header: b.header_span(),
            condition,
            scope,
            body: body?,
            children,
        })
    }

    fn collection(&mut self, b: &Block, env: &Env) -> Option<Collection> {
        let (base, _) = label(b);
        self.unique(&base, b, Namespace::Collection);
        let content = self.content(b, &schema::RESOURCES, true);
        let mut env = env.clone();
        env.self_keys = Some(SELF_COLLECTION);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, &env);
        let condition = self.condition(&content, &env);
        let for_each = content.attr("for_each").map(|a| {
            self.check_expr(&a.expr, &env);
            a.expr.clone()
        });
        let mut each_env = env.clone();
        each_env.each = true;
        let name = content.attr("name").map(|a| {
            self.check_expr(&a.expr, &each_env);
            a.expr.clone()
        });
        let children = self.children(&content, &env, &base);
        let templates: Vec<&Block> = content.blocks_of("template").collect();
        let has_body = content.attr("body").is_some() || content.blocks_of("body").next().is_some();
        let mut tenv = each_env.clone();
        tenv.self_keys = Some(SELF_TEMPLATE);
        let template = match templates.as_slice() {
            // The language spec's shorthand: `body` directly in `resources`
            // is a template with just that body.
            [] if has_body => self.body_expr(&content).map(|body| {
                self.check_expr(&body, &tenv);
                Template {
                    header: b.header_span(),
                    scope: Scope::default(),
                    body,
                    children: Vec::new(),
                }
            }),
            [] => {
                self.err(
                    Diagnostic::error(
                        format!("no template block for resource collection {base}"),
                        "",
                    )
                    .with_span(b.header_span()),
                );
                None
            }
            [t, ..] if has_body => {
                self.err(
                    Diagnostic::error(
                        format!("both body and template in resource collection {base}"),
                        "write the body inside the template block",
                    )
                    .with_span(t.header_span()),
                );
                None
            }
            [t, rest @ ..] => {
                if let Some(second) = rest.first() {
                    self.err(
                        Diagnostic::error(
                            format!("multiple template blocks for resource collection {base}"),
                            "",
                        )
                        .with_span(second.header_span())
                        .with_label(t.header_span(), "first template here"),
                    );
                }
                self.template(t, &tenv, &base)
            }
        };
        Some(Collection {
            base,
            header: b.header_span(),
            condition,
            scope,
            for_each: for_each?,
            name,
            children,
            template: template?,
        })
    }

    fn template(&mut self, b: &Block, env: &Env, base: &str) -> Option<Template> {
        let content = self.content(b, &schema::TEMPLATE, true);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        let children = self.children(&content, &env, base);
        Some(Template {
            header: b.header_span(),
            scope,
            body: body?,
            children,
        })
    }

    fn composite(&mut self, b: &Block, env: &Env) -> Option<Composite> {
        let (what, span) = label(b);
        let kind = match what.as_str() {
            "status" => Some(CompositeKind::Status),
            "connection" => Some(CompositeKind::Connection),
            _ => {
                let mut detail = "must be \"status\" or \"connection\"".to_owned();
                if let Some(s) = schema::suggest(&what, ["status", "connection"].into_iter()) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("invalid composite label: {what}"), detail)
                        .with_span(span),
                );
                None
            }
        };
        let content = self.content(b, &schema::COMPOSITE, true);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        Some(Composite {
            kind: kind?,
            scope,
            body: body?,
        })
    }

    fn context(&mut self, b: &Block, env: &Env) -> Option<ContextBlock> {
        let content = self.content(b, &schema::CONTEXT, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let key = content.attr("key").map(|a| a.expr.clone());
        let value = content.attr("value").map(|a| a.expr.clone());
        for e in key.iter().chain(value.iter()) {
            self.check_expr(e, &env);
        }
        Some(ContextBlock {
            scope,
            key: key?,
            value: value?,
        })
    }

    fn ready(&mut self, b: &Block, env: &Env, owner: &str) -> Option<Ready> {
        let content = self.content(b, &schema::READY, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let value = content.attr("value").map(|a| a.expr.clone());
        if let Some(v) = &value {
            self.check_expr(v, &env);
            if is_constant(v) {
                let (val, ds) = eval_constant(v);
                if !ds.iter().any(Diagnostic::is_error)
                    && val.is_wholly_known()
                    && let Err(d) = crate::checks::ready_state(&val, owner, v.span)
                {
                    self.err(d);
                }
            }
        }
        Some(Ready {
            scope,
            value: value?,
        })
    }

    fn requirement(&mut self, b: &Block, env: &Env) -> Option<Requirement> {
        let (name, _) = label(b);
        self.unique(&name, b, Namespace::Requirement);
        let content = self.content(b, &schema::REQUIREMENT, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let condition = self.condition(&content, &env);
        let selects: Vec<&Block> = content.blocks_of("select").collect();
        let sb = match selects.as_slice() {
            [] => {
                self.err(
                    Diagnostic::error(
                        format!("no select block in requirement \"{name}\""),
                        "a requirement needs one select { ... } block",
                    )
                    .with_span(b.header_span()),
                );
                return None;
            }
            [s, rest @ ..] => {
                if let Some(second) = rest.first() {
                    self.err(
                        Diagnostic::error(
                            format!("multiple select blocks in requirement \"{name}\""),
                            "a requirement has exactly one select block",
                        )
                        .with_span(second.header_span())
                        .with_label(s.header_span(), "first select here"),
                    );
                }
                *s
            }
        };
        let sc = self.content(sb, &schema::SELECT, false);
        let get = |n: &str| sc.attr(n).map(|a| a.expr.clone());
        let (api_version, kind, match_name, match_labels) = (
            get("apiVersion"),
            get("kind"),
            get("matchName"),
            get("matchLabels"),
        );
        match (&match_name, &match_labels) {
            (Some(_), Some(_)) => self.err(
                Diagnostic::error(
                    format!(
                        "requirement selector of \"{name}\" has both matchName and matchLabels"
                    ),
                    "select by name or by labels, not both",
                )
                .with_span(sb.header_span()),
            ),
            (None, None) => self.err(
                Diagnostic::error(
                    format!(
                        "requirement selector of \"{name}\" has neither matchName nor matchLabels"
                    ),
                    "set matchName or matchLabels",
                )
                .with_span(sb.header_span()),
            ),
            _ => {}
        }
        for (field, e) in [
            (crate::checks::SelectField::ApiVersion, &api_version),
            (crate::checks::SelectField::Kind, &kind),
            (crate::checks::SelectField::MatchName, &match_name),
            (crate::checks::SelectField::MatchLabels, &match_labels),
        ] {
            let Some(e) = e else { continue };
            self.check_expr(e, &env);
            if is_constant(e) {
                let (v, ds) = eval_constant(e);
                if !ds.iter().any(Diagnostic::is_error)
                    && v.is_wholly_known()
                    && let Err(d) = crate::checks::check_select_value(field, &v, &name, e.span)
                {
                    self.err(d);
                }
            }
        }
        Some(Requirement {
            name,
            condition,
            scope,
            select: Select {
                header: sb.header_span(),
                api_version: api_version?,
                kind: kind?,
                match_name,
                match_labels,
            },
        })
    }

    /// Duplicate names of resources, collections and requirements (D15).
    fn unique(&mut self, name: &str, b: &Block, ns: Namespace) {
        let span = b.header_span();
        let (map, what) = match ns {
            Namespace::Resource => (&mut self.resources, "resource"),
            Namespace::Collection => (&mut self.collections, "resource collection"),
            Namespace::Requirement => (&mut self.requirements, "requirement"),
        };
        if let Some(first) = map.get(name).copied() {
            self.diags.push(
                Diagnostic::error(
                    format!("duplicate {what} \"{name}\""),
                    format!("a {what} named \"{name}\" is already defined"),
                )
                .with_span(span)
                .with_label(first, "first defined here"),
            );
        } else {
            map.insert(name.to_owned(), span);
        }
    }
}

#[derive(Clone, Copy)]
enum Namespace {
    Resource,
    Collection,
    Requirement,
}

fn attr_item(a: &Attribute) -> ObjectItem {
    ObjectItem {
        key: ObjectKey::Ident(a.name.clone()),
        value: a.expr.clone(),
    }
}

/// The static name of an object constructor key (`a = ...`, `"a" = ...`).
pub(crate) fn object_key_name(it: &ObjectItem) -> Option<String> {
    match &it.key {
        ObjectKey::Ident(i) => Some(i.name.to_string()),
        ObjectKey::Expr(e) => literal_string(e),
    }
}

/// The span of an object item's key (the offending step when the key is
/// not an accepted name).
pub(crate) fn key_span(it: &ObjectItem) -> Span {
    match &it.key {
        ObjectKey::Ident(i) => i.span,
        ObjectKey::Expr(e) => e.span,
    }
}

/// What `items` can emit, relative to the enclosing module.
fn names_of(items: &[Item]) -> Names {
    let mut out = Names::default();
    for it in items {
        match it {
            Item::Group(g) => out.extend(&g.names),
            Item::Resource(r) => out.resources.push((r.name.clone(), r.header)),
            Item::Collection(c) => out.collections.push((c.base.clone(), c.header)),
            Item::Module(i) => out.extend(&i.names),
            Item::Switch(sw) => out.extend(&sw.names),
            _ => {}
        }
    }
    out
}

// ---- modules, parameters, exports and switch (D24-D31) ----

impl<'l> Compiler<'l> {
    fn new(layout: &'l Layout, module: usize, compiled: &'l [Option<Module>]) -> Compiler<'l> {
        Compiler {
            sigs: HashMap::new(),
            diags: Vec::new(),
            resources: HashMap::new(),
            collections: HashMap::new(),
            requirements: HashMap::new(),
            instances: HashMap::new(),
            switches: HashMap::new(),
            layout,
            module,
            compiled,
            exported_resources: Vec::new(),
            param_uses: Vec::new(),
            export_reads: Vec::new(),
        }
    }

    fn is_root(&self) -> bool {
        self.module == 0
    }

    /// Compiles the files of one module.
    fn module(&mut self, files: &[&Body]) -> Option<Module> {
        let mut contents = Vec::new();
        for body in files {
            contents.push(schema::content(
                body,
                None,
                &schema::TOP,
                false,
                &mut self.diags,
            ));
        }
        // Function signatures first (an `invoke` may name a function
        // defined later or in another file).
        let mut fn_blocks = Vec::new();
        for content in &contents {
            fn_blocks.extend(content.blocks_of("function"));
        }
        let mut seen_fns: HashMap<String, Span> = HashMap::new();
        for b in &fn_blocks {
            self.function_signature(b, &mut seen_fns);
        }
        let mut functions = HashMap::new();
        for b in &fn_blocks {
            if let Some(f) = self.function(b) {
                functions.entry(f.name.clone()).or_insert(f);
            }
        }
        let mut param_blocks = Vec::new();
        for content in &contents {
            param_blocks.extend(content.blocks_of("param"));
        }
        let params = self.params(&param_blocks);
        let mod_env = self.mod_env(files, &params, !param_blocks.is_empty());
        let top_env = Env {
            req: true,
            self_keys: None,
            each: false,
            names: Vec::new(),
            module: Some(Arc::new(mod_env)),
        };
        // The top-level scope: every file's locals blocks together.
        let mut local_blocks = Vec::new();
        for content in &contents {
            local_blocks.extend(content.blocks_of("locals"));
        }
        let (top, env) = self.scope(&local_blocks, &top_env);
        let mut items = Vec::new();
        for content in &contents {
            items.extend(self.items(content, &env));
        }
        let mut export_blocks = Vec::new();
        for content in &contents {
            export_blocks.extend(content.blocks_of("export"));
        }
        if self.is_root()
            && let Some(b) = export_blocks.first()
        {
            self.err(
                Diagnostic::error(
                    "export block outside a module",
                    "export blocks belong in a module directory that another program imports",
                )
                .with_span(b.ident.span),
            );
        }
        let mut seen = HashMap::new();
        let exports = self.exports(&export_blocks, &env, &mut seen);
        self.check_exported_resources();
        // Ids and positions of instances and switches.
        let mut instances = Vec::new();
        let mut switches = Vec::new();
        index_items(
            &mut items,
            &mut Vec::new(),
            &mut instances,
            &mut switches,
            0,
        );
        let instance_ids = instance_names(&items, &instances);
        let switch_ids = switch_names(&items, &switches);
        let names = names_of(&items);
        self.check_prefixed_duplicates(&names);
        let mut instance_count = 0usize;
        for (path, idx) in &instances {
            if let Some(Item::Module(inst)) = items_at(&items, path).and_then(|i| i.get(*idx)) {
                let inner = self
                    .compiled
                    .get(inst.module)
                    .and_then(Option::as_ref)
                    .map_or(0, |m| m.instance_count);
                instance_count = instance_count.saturating_add(1 + inner);
                if instance_count > MAX_INSTANCES {
                    self.err(
                        Diagnostic::error(
                            format!("too many module instances (more than {MAX_INSTANCES})"),
                            "nested module instances multiply; this program would create more than the limit",
                        )
                        .with_span(inst.header),
                    );
                    break;
                }
            }
        }
        Some(Module {
            dir: self.layout.modules[self.module].dir.clone(),
            top,
            items,
            functions,
            params,
            exports,
            instances,
            instance_ids,
            switches,
            switch_ids,
            names,
            instance_count,
        })
    }

    /// The static view of the module's parameters, instances and switches.
    fn mod_env(&mut self, files: &[&Body], params: &[Param], has_params: bool) -> ModEnv {
        let mut env = ModEnv {
            params: has_params.then(|| params.iter().map(|p| p.name.to_string()).collect()),
            ..ModEnv::default()
        };
        for body in files {
            self.scan(body, &mut env, 0);
        }
        env
    }

    fn scan(&self, body: &Body, env: &mut ModEnv, depth: usize) {
        if depth > 64 {
            return;
        }
        for s in &body.items {
            let Structure::Block(b) = s else { continue };
            match &*b.ident.name {
                "module" if b.labels.len() == 2 => {
                    env.declares_instances = true;
                    let target = self.resolve_module(&b.labels[0].value);
                    let exports = target
                        .and_then(|m| self.compiled.get(m).and_then(Option::as_ref))
                        .map(|m| m.exports.iter().map(|e| e.name.to_string()).collect());
                    env.instances
                        .push((b.labels[1].value.clone(), exports, target));
                }
                "switch" if b.labels.len() == 1 => {
                    env.declares_switches = true;
                    let mut cases = Vec::new();
                    let mut exports: Vec<String> = Vec::new();
                    for cs in &b.body.items {
                        let Structure::Block(c) = cs else { continue };
                        let name = match (&*c.ident.name, c.labels.first()) {
                            ("case", Some(l)) => l.value.clone(),
                            ("default", None) => "default".to_owned(),
                            _ => continue,
                        };
                        cases.push(name);
                        for x in &c.body.items {
                            let Structure::Block(e) = x else { continue };
                            if &*e.ident.name != "export" {
                                continue;
                            }
                            for it in &e.body.items {
                                let n = match it {
                                    Structure::Attribute(a) => a.name.name.to_string(),
                                    Structure::Block(r) => export_resource_name(r),
                                };
                                if !exports.contains(&n) {
                                    exports.push(n);
                                }
                            }
                        }
                        self.scan(&c.body, env, depth + 1);
                    }
                    env.switches
                        .push((b.labels[0].value.clone(), cases, exports));
                }
                "group" => self.scan(&b.body, env, depth + 1),
                _ => {}
            }
        }
    }

    /// The module a `module` block's first label names, if any.
    fn resolve_module(&self, label: &str) -> Option<usize> {
        let src = &self.layout.modules[self.module];
        if layout::is_path_label(label) {
            let path = layout::normalize_path(label).ok()?;
            return src.by_path.get(&path).copied();
        }
        src.aliases.get(label).map(|(m, _)| *m)
    }

    fn params(&mut self, blocks: &[&Block]) -> Vec<Param> {
        let mut out: Vec<Param> = Vec::new();
        let mut spans: Vec<Span> = Vec::new();
        for b in blocks {
            let (name, span) = label(b);
            if self.is_root() {
                self.err(
                    Diagnostic::error(
                        format!("param \"{name}\" outside a module"),
                        "param blocks belong in a module directory that another program imports",
                    )
                    .with_span(b.ident.span),
                );
                continue;
            }
            if !is_param_name(&name) {
                self.err(
                    Diagnostic::error(
                        format!("invalid parameter name \"{name}\""),
                        "a parameter name must be an identifier of letters, digits and _",
                    )
                    .with_span(span),
                );
            } else if name == "condition" || name == "params" {
                self.err(
                    Diagnostic::error(
                        format!("parameter name \"{name}\" is reserved"),
                        "condition and params are attributes of every module block",
                    )
                    .with_span(span),
                );
            }
            let content = self.content(b, &schema::PARAM, false);
            if let Some(d) = content.attr("description") {
                self.constant_string(&d.expr, || {
                    format!("param \"{name}\": description is not a constant string")
                });
            }
            let mut default = None;
            if let Some(d) = content.attr("default") {
                let msg = format!("param \"{name}\": default is not a constant");
                if is_constant(&d.expr) {
                    let (v, ds) = eval_constant(&d.expr);
                    if ds.iter().any(Diagnostic::is_error) || !v.is_wholly_known() {
                        self.err(Diagnostic::error(msg, "").with_span(d.expr.span));
                    } else {
                        default = Some(v);
                    }
                } else {
                    self.err(
                        Diagnostic::error(
                            msg,
                            "a default may not refer to variables or call functions",
                        )
                        .with_span(d.expr.span),
                    );
                }
            }
            if let Some(i) = out.iter().position(|p| *p.name == *name) {
                self.err(
                    Diagnostic::error(format!("duplicate parameter \"{name}\""), "")
                        .with_span(b.header_span())
                        .with_label(spans[i], "first declared here"),
                );
                continue;
            }
            spans.push(b.header_span());
            out.push(Param {
                name: name.into(),
                default,
                span: b.header_span(),
            });
        }
        out
    }

    /// `export` blocks (module top level or a switch case).
    fn exports(
        &mut self,
        blocks: &[&Block],
        env: &Env,
        seen: &mut HashMap<String, Span>,
    ) -> Vec<Export> {
        let mut out = Vec::new();
        for b in blocks {
            schema::check_labels(b, &[], &mut self.diags);
            for item in &b.body.items {
                let (name, span, value) = match item {
                    Structure::Attribute(a) => {
                        self.check_expr(&a.expr, env);
                        (
                            a.name.name.to_string(),
                            a.span,
                            ExportValue::Expr(a.expr.clone()),
                        )
                    }
                    Structure::Block(r) => {
                        if &*r.ident.name != "resource" {
                            self.err(
                                Diagnostic::error(
                                    format!("Unsupported block type \"{}\" in export", r.ident.name),
                                    "an export block holds name = value attributes and resource \"name\" { as = \"alias\" } blocks",
                                )
                                .with_span(r.ident.span),
                            );
                            continue;
                        }
                        if !schema::check_labels(r, &["name"], &mut self.diags) {
                            continue;
                        }
                        let content = self.content(r, &schema::EXPORT_RESOURCE, false);
                        if let Some(a) = content.attr("as")
                            && literal_string(&a.expr).is_none()
                        {
                            self.err(
                                Diagnostic::error(
                                    "export alias is not a constant string",
                                    "write as = \"name\"",
                                )
                                .with_span(a.expr.span),
                            );
                            continue;
                        }
                        let local = r.labels[0].value.clone();
                        self.exported_resources
                            .push((local.clone(), r.labels[0].span));
                        (
                            export_resource_name(r),
                            r.header_span(),
                            ExportValue::Resource(local),
                        )
                    }
                };
                if !is_param_name(&name) {
                    self.err(
                        Diagnostic::error(
                            format!("invalid export name \"{name}\""),
                            "an export name must be an identifier of letters, digits and _",
                        )
                        .with_span(span),
                    );
                    continue;
                }
                if let Some(first) = seen.get(&name) {
                    self.err(
                        Diagnostic::error(
                            format!("export \"{name}\" defined twice"),
                            "every exported name must be unique in its module (or switch branch)",
                        )
                        .with_span(span)
                        .with_label(*first, "first exported here"),
                    );
                    continue;
                }
                seen.insert(name.clone(), span);
                out.push(Export {
                    name: name.into(),
                    span,
                    value,
                });
            }
        }
        out
    }

    fn check_exported_resources(&mut self) {
        for (name, span) in std::mem::take(&mut self.exported_resources) {
            if self.resources.contains_key(&name) {
                continue;
            }
            let mut detail = format!("this module declares no resource \"{name}\"");
            if let Some(s) = schema::suggest(&name, self.resources.keys().map(String::as_str)) {
                detail.push_str(&format!("; did you mean \"{s}\"?"));
            }
            self.err(
                Diagnostic::error(format!("export of unknown resource \"{name}\""), detail)
                    .with_span(span),
            );
        }
    }

    /// Two blocks whose Crossplane names collide once instance prefixes are
    /// added (`resource "logs-bucket"` next to instance `logs` with
    /// resource `bucket`), D15.
    fn check_prefixed_duplicates(&mut self, names: &Names) {
        let mut found = Vec::new();
        let from_instance = |s: &Span| self.instances.values().any(|h| h == s);
        for list in [&names.resources, &names.collections] {
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for (n, span) in list {
                match seen.get(n.as_str()) {
                    // Two blocks of this module (`unique` reported it), or
                    // two instances of one name (reported as such).
                    Some(first) if from_instance(first) == from_instance(span) => {}
                    Some(first) if first != span => {
                        let d = Diagnostic::error(
                            format!("duplicate resource \"{n}\""),
                            "two blocks produce a resource with this crossplane name (module instances prefix their resources with <instance>-)",
                        )
                        .with_span(*span)
                        .with_label(*first, "first defined here");
                        found.push(d);
                    }
                    Some(_) => {}
                    None => {
                        seen.insert(n, *span);
                    }
                }
            }
        }
        self.diags.extend(found);
    }

    fn instance(&mut self, b: &Block, env: &Env) -> Option<Instance> {
        let source = b.labels[0].value.clone();
        let name = b.labels[1].value.clone();
        let header = b.header_span();
        if !is_param_name(&name) {
            self.err(
                Diagnostic::error(
                    format!("invalid module instance name \"{name}\""),
                    "an instance name must be an identifier of letters, digits and _ (it is read as module.<name>)",
                )
                .with_span(b.labels[1].span),
            );
        }
        if let Some(first) = self.instances.get(&name) {
            self.err(
                Diagnostic::error(
                    format!("duplicate module instance \"{name}\""),
                    "instance names must be unique in a module",
                )
                .with_span(header)
                .with_label(*first, "first defined here"),
            );
        } else {
            self.instances.insert(name.clone(), header);
        }
        let target = self.resolve_module(&source);
        if target.is_none() {
            let src = &self.layout.modules[self.module];
            let mut detail = if layout::is_path_label(&source) {
                format!("no module directory \"{source}\"")
            } else {
                format!(
                    "no import has the alias \"{source}\"; import the directory first: import \"modules/{source}\" {{ as = \"{source}\" }}"
                )
            };
            if let Some(s) = schema::suggest(&source, src.aliases.keys().map(String::as_str)) {
                detail.push_str(&format!(" (did you mean \"{s}\"?)"));
            }
            self.err(
                Diagnostic::error(format!("unknown module \"{source}\""), detail)
                    .with_span(b.labels[0].span),
            );
        }
        let callee = target.and_then(|m| self.compiled.get(m).and_then(Option::as_ref));
        let mut condition = None;
        let mut object: Option<&Attribute> = None;
        let mut named: Vec<&Attribute> = Vec::new();
        for item in &b.body.items {
            match item {
                Structure::Attribute(a) => match &*a.name.name {
                    "condition" => {
                        self.check_expr(&a.expr, env);
                        condition = Some(Cond {
                            expr: a.expr.clone(),
                            span: a.span,
                        });
                    }
                    "params" => object = Some(a),
                    _ => named.push(a),
                },
                Structure::Block(inner) => self.err(
                    Diagnostic::error(
                        format!("Unexpected \"{}\" block", inner.ident.name),
                        "a module block sets parameters as attributes (name = value) and may have a condition",
                    )
                    .with_span(inner.ident.span),
                ),
            }
        }
        if let (Some(o), Some(first)) = (object, named.first()) {
            self.err(
                Diagnostic::error(
                    format!("module instance \"{name}\" mixes params with named parameters"),
                    "set parameters either all at once with params = { ... } or one by one as attributes, not both",
                )
                .with_span(o.name.span)
                .with_label(first.name.span, "named parameter here"),
            );
        }
        // Parameter names, where they are static.
        let given: Option<Vec<(String, Span)>> = match object {
            Some(o) => match &o.expr.kind {
                ExprKind::Object(items) => items
                    .iter()
                    .map(|it| object_key_name(it).map(|k| (k, key_span(it))))
                    .collect(),
                _ => None,
            },
            None => Some(
                named
                    .iter()
                    .map(|a| (a.name.name.to_string(), a.name.span))
                    .collect(),
            ),
        };
        if let (Some(callee), Some(given)) = (callee, &given) {
            for (k, span) in given {
                if !callee.params.iter().any(|p| *p.name == **k) {
                    let mut detail =
                        format!("module \"{}\" declares no parameter \"{k}\"", callee.dir);
                    if let Some(s) = schema::suggest(k, callee.params.iter().map(|p| &*p.name)) {
                        detail.push_str(&format!("; did you mean \"{s}\"?"));
                    } else if !callee.params.is_empty() {
                        let names: Vec<&str> = callee.params.iter().map(|p| &*p.name).collect();
                        detail.push_str(&format!("; its parameters are: {}", names.join(", ")));
                    }
                    self.err(
                        Diagnostic::error(
                            format!("module instance \"{name}\": unknown parameter \"{k}\""),
                            detail,
                        )
                        .with_span(*span),
                    );
                }
            }
            for p in &callee.params {
                if p.default.is_none() && !given.iter().any(|(k, _)| **k == *p.name) {
                    self.err(
                        Diagnostic::error(
                            format!(
                                "module instance \"{name}\": missing required parameter \"{}\"",
                                p.name
                            ),
                            format!(
                                "module \"{}\" declares param \"{}\" without a default",
                                callee.dir, p.name
                            ),
                        )
                        .with_span(header),
                    );
                }
            }
        }
        let self_ref = format!("module.{name}");
        let check_param =
            |c: &mut Self, e: &Expr| {
                c.check_expr(e, env);
                for t in refs::traversals(e) {
                    // `module.<name>` or, rewritten with its export,
                    // `module.<name>.<export>`.
                    let root = &*t.root.name;
                    if root == self_ref
                        || root
                            .strip_prefix(self_ref.as_str())
                            .is_some_and(|rest| rest.starts_with('.'))
                    {
                        c.err(
                        Diagnostic::error(
                            format!(
                                "module instance \"{name}\" reads its own exports in its parameters"
                            ),
                            "an instance's parameters cannot depend on what the instance exports",
                        )
                        .with_span(name_step(t.root.span, "module.", &name)),
                    );
                    }
                }
            };
        let params = match object {
            Some(o) => {
                check_param(self, &o.expr);
                Params::Object(o.expr.clone())
            }
            None => {
                let mut list = Vec::new();
                for a in &named {
                    check_param(self, &a.expr);
                    list.push((a.name.name.clone(), a.expr.clone()));
                }
                Params::Named(list)
            }
        };
        let module = target?;
        let mut names = Names::default();
        if let Some(callee) = callee {
            for (n, _) in &callee.names.resources {
                names.resources.push((format!("{name}-{n}"), header));
            }
            for (n, _) in &callee.names.collections {
                names.collections.push((format!("{name}-{n}"), header));
            }
        }
        Some(Instance {
            id: 0,
            name,
            header,
            module,
            condition,
            params,
            names,
        })
    }

    fn switch(&mut self, b: &Block, env: &Env) -> Option<Switch> {
        let (name, span) = label(b);
        let header = b.header_span();
        if !is_param_name(&name) {
            self.err(
                Diagnostic::error(
                    format!("invalid switch name \"{name}\""),
                    "a switch name must be an identifier of letters, digits and _ (it is read as switch.<name>)",
                )
                .with_span(span),
            );
        }
        if let Some(first) = self.switches.get(&name) {
            self.err(
                Diagnostic::error(
                    format!("duplicate switch \"{name}\""),
                    "switch names must be unique in a module",
                )
                .with_span(header)
                .with_label(*first, "first defined here"),
            );
        } else {
            self.switches.insert(name.clone(), header);
        }
        let content = self.content(b, &schema::SWITCH, false);
        let mut cases: Vec<Case> = Vec::new();
        let mut case_spans: Vec<Span> = Vec::new();
        let mut default_at: Option<Span> = None;
        let mut failed = false;
        for cb in &content.blocks {
            let is_default = &*cb.ident.name == "default";
            let (cname, cspan) = if is_default {
                ("default".to_owned(), cb.ident.span)
            } else {
                label(cb)
            };
            if let Some(d) = default_at {
                self.err(
                    Diagnostic::error(
                        format!("default must be the last branch of switch \"{name}\""),
                        "cases after default could never be chosen",
                    )
                    .with_span(cb.header_span())
                    .with_label(d, "default here"),
                );
                failed = true;
            }
            if is_default {
                default_at = Some(cb.header_span());
            } else if cname == "default" {
                self.err(
                    Diagnostic::error(
                        "a case cannot be named \"default\"",
                        "write the default branch as default { ... }",
                    )
                    .with_span(cspan),
                );
                failed = true;
            } else if !is_param_name(&cname) {
                self.err(
                    Diagnostic::error(
                        format!("invalid case name \"{cname}\""),
                        "a case name must be an identifier of letters, digits and _ (it is read as switch.<name>.case.<case>)",
                    )
                    .with_span(cspan),
                );
                failed = true;
            }
            if let Some(i) = cases.iter().position(|c| c.name == cname) {
                self.err(
                    Diagnostic::error(
                        format!("switch \"{name}\" has two branches named \"{cname}\""),
                        "case names must be unique in a switch",
                    )
                    .with_span(cb.header_span())
                    .with_label(case_spans[i], "first defined here"),
                );
                failed = true;
                continue;
            }
            let schema = if is_default {
                &schema::DEFAULT
            } else {
                &schema::CASE
            };
            let cc = self.content(cb, schema, false);
            let locals: Vec<&Block> = cc.blocks_of("locals").collect();
            let (scope, cenv) = self.scope(&locals, env);
            let condition = self.condition(&cc, env);
            let items = self.items(&cc, &cenv);
            let export_blocks: Vec<&Block> = cc.blocks_of("export").collect();
            let mut seen = HashMap::new();
            let exports = self.exports(&export_blocks, &cenv, &mut seen);
            case_spans.push(cb.header_span());
            cases.push(Case {
                name: cname,
                condition,
                scope,
                items,
                exports,
            });
        }
        // Exports: every branch the same names, and a default (D30).
        let mut export_names: Vec<Arc<str>> = Vec::new();
        if let Some(first) = cases.iter().position(|c| !c.exports.is_empty()) {
            let mut want: Vec<Arc<str>> = cases[first]
                .exports
                .iter()
                .map(|e| e.name.clone())
                .collect();
            want.sort();
            if default_at.is_none() {
                self.err(
                    Diagnostic::error(
                        format!("switch \"{name}\" exports values but has no default branch"),
                        "when a switch exports, a default branch must export the same names so the values are always defined",
                    )
                    .with_span(header),
                );
                failed = true;
            }
            for (i, c) in cases.iter().enumerate() {
                let mut have: Vec<Arc<str>> = c.exports.iter().map(|e| e.name.clone()).collect();
                have.sort();
                if have == want {
                    continue;
                }
                let missing: Vec<&str> = want
                    .iter()
                    .filter(|w| !have.contains(w))
                    .map(|w| &**w)
                    .collect();
                let extra: Vec<&str> = have
                    .iter()
                    .filter(|h| !want.contains(h))
                    .map(|h| &**h)
                    .collect();
                let mut parts = Vec::new();
                if !missing.is_empty() {
                    parts.push(format!("missing {}", missing.join(", ")));
                }
                if !extra.is_empty() {
                    parts.push(format!("extra {}", extra.join(", ")));
                }
                self.diags.push(
                    Diagnostic::error(
                        format!(
                            "branch \"{}\" of switch \"{name}\" exports different names than branch \"{}\" ({})",
                            c.name,
                            cases[first].name,
                            parts.join("; ")
                        ),
                        "every branch of a switch that exports must export the same names",
                    )
                    .with_span(case_spans[i])
                    .with_label(case_spans[first], "compared with this branch"),
                );
                failed = true;
            }
            export_names = want;
        }
        let mut names = Names::default();
        for c in &cases {
            names.extend(&names_of(&c.items));
        }
        if failed {
            return None;
        }
        Some(Switch {
            id: 0,
            name,
            header,
            cases,
            export_names,
            names,
        })
    }

    /// `module.<instance>.<export>`, `switch.<name>.<field>` and
    /// `param.<name>` references (D27, D29, D30).
    fn check_module_ref(&mut self, t: &refs::Traversal<'_>, env: &Env) -> bool {
        let name = &*t.root.name;
        let Some(menv) = env.module.clone() else {
            if name.starts_with("module.") || name.starts_with("switch.") {
                self.err(
                    Diagnostic::error(
                        format!("reference to non-existent variable \"{name}\""),
                        "module instances and switches cannot be read inside a user function; pass the value as an argument",
                    )
                    .with_span(t.root.span),
                );
                return true;
            }
            return false;
        };
        let steps = refs::attr_steps(t.expr);
        if let Some(rest) = name.strip_prefix("module.") {
            let (inst, export) = match rest.split_once('.') {
                Some((i, e)) => (i, Some(e)),
                None => (rest, None),
            };
            let Some((_, exports, target)) = menv.instances.iter().find(|(n, _, _)| n == inst)
            else {
                let mut detail =
                    format!("no module block declares an instance \"{inst}\" in this module");
                if let Some(s) =
                    schema::suggest(inst, menv.instances.iter().map(|(n, _, _)| n.as_str()))
                {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("unknown module instance \"{inst}\""), detail)
                        .with_span(name_step(t.root.span, "module.", inst)),
                );
                return true;
            };
            // The export: part of the variable (`module.a.b`), or the
            // first step after `module.a`.
            let export = match export {
                Some(e) => {
                    let end = t.root.span.end as usize;
                    Some((
                        e,
                        Span::new(t.root.span.file, end.saturating_sub(e.len()), end),
                    ))
                }
                None => steps.first().map(|s| (&*s.name, s.span)),
            };
            if let Some(m) = target {
                self.export_reads
                    .push((*m, export.map(|(e, _)| e.to_owned())));
            }
            if let (Some(exports), Some((export, span))) = (exports, export)
                && !exports.iter().any(|e| e == export)
            {
                let mut detail = format!("module instance \"{inst}\" exports no \"{export}\"");
                if let Some(s) = schema::suggest(export, exports.iter().map(String::as_str)) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                } else if !exports.is_empty() {
                    detail.push_str(&format!("; it exports: {}", exports.join(", ")));
                } else {
                    detail.push_str("; it exports nothing");
                }
                self.err(
                    Diagnostic::error(format!("unknown export \"{export}\""), detail)
                        .with_span(span),
                );
            }
            return true;
        }
        if let Some(sw) = name.strip_prefix("switch.") {
            let Some((_, cases, exports)) = menv.switches.iter().find(|(n, _, _)| n == sw) else {
                let mut detail = format!("no switch named \"{sw}\" in this module");
                if let Some(s) =
                    schema::suggest(sw, menv.switches.iter().map(|(n, _, _)| n.as_str()))
                {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("unknown switch \"{sw}\""), detail)
                        .with_span(name_step(t.root.span, "switch.", sw)),
                );
                return true;
            };
            let Some(first) = steps.first() else {
                return true;
            };
            let field = &*first.name;
            if field == "case" {
                if let Some(c) = steps.get(1)
                    && !cases.iter().any(|x| *x == *c.name)
                {
                    let mut detail = format!("switch \"{sw}\" has no branch \"{}\"", c.name);
                    if let Some(s) = schema::suggest(&c.name, cases.iter().map(String::as_str)) {
                        detail.push_str(&format!("; did you mean \"{s}\"?"));
                    }
                    self.err(
                        Diagnostic::error(format!("unknown case \"{}\"", c.name), detail)
                            .with_span(c.span),
                    );
                } else if let Some(e) = steps.get(2)
                    && &*e.name != "evaluated"
                {
                    self.err(
                        Diagnostic::error(
                            format!("unsupported attribute \"{}\" of a switch case", e.name),
                            "a case has only the attribute \"evaluated\"",
                        )
                        .with_span(e.span),
                    );
                }
                return true;
            }
            if field != "evaluated" && field != "branches" && !exports.iter().any(|e| e == field) {
                let mut known: Vec<&str> = vec!["evaluated", "branches", "case"];
                known.extend(exports.iter().map(String::as_str));
                let mut detail = format!("switch \"{sw}\" has no attribute or export \"{field}\"");
                if let Some(s) = schema::suggest(field, known.iter().copied()) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                } else {
                    detail.push_str(&format!("; it has: {}", known.join(", ")));
                }
                self.err(
                    Diagnostic::error(format!("unknown switch attribute \"{field}\""), detail)
                        .with_span(first.span),
                );
            }
            return true;
        }
        if name == "param"
            && let Some(params) = &menv.params
            && !env.names.iter().any(|n| &**n == "param")
        {
            match steps.first() {
                Some(first) => self.param_uses.push(first.name.to_string()),
                // `param` as a whole reads every parameter.
                None => self.param_uses.extend(params.iter().cloned()),
            }
            if let Some(first) = steps.first()
                && !params.iter().any(|p| *p == *first.name)
            {
                let mut detail = format!("this module declares no param \"{}\"", first.name);
                if let Some(s) = schema::suggest(&first.name, params.iter().map(String::as_str)) {
                    detail.push_str(&format!("; did you mean \"{s}\"?"));
                }
                self.err(
                    Diagnostic::error(format!("unknown parameter \"{}\"", first.name), detail)
                        .with_span(first.span),
                );
            }
            return true;
        }
        if (name == "module" && menv.declares_instances)
            || (name == "switch" && menv.declares_switches)
        {
            self.err(
                Diagnostic::error(
                    format!("{name} must be followed by a name"),
                    format!("write {name}.<name>.<attribute>"),
                )
                .with_span(t.root.span),
            );
            return true;
        }
        false
    }
}

/// The span of `name` in a variable `<prefix><name>...` spanning `root`
/// (`module.logs.arn`, `switch.tier`), so a diagnostic points at the step
/// that is wrong; the whole span when the text does not fit (spaces
/// around the dot).
fn name_step(root: Span, prefix: &str, name: &str) -> Span {
    let start = root.start as usize + prefix.len();
    let end = start + name.len();
    if end > root.end as usize {
        return root;
    }
    Span::new(root.file, start, end)
}

/// The exported name of `export { resource "x" { as = "y" } }`.
fn export_resource_name(r: &Block) -> String {
    for it in &r.body.items {
        if let Structure::Attribute(a) = it
            && &*a.name.name == "as"
            && let Some(s) = literal_string(&a.expr)
        {
            return s;
        }
    }
    r.labels
        .first()
        .map(|l| l.value.clone())
        .unwrap_or_default()
}

/// Identifiers usable after a dot: letters, digits and `_` (no `-`, which
/// would read as a subtraction).
fn is_param_name(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Assigns ids to instances and switches and records where they are.
fn index_items(
    items: &mut [Item],
    path: &mut Vec<PathStep>,
    instances: &mut Vec<(Vec<PathStep>, usize)>,
    switches: &mut Vec<(Vec<PathStep>, usize)>,
    depth: usize,
) {
    if depth > 256 {
        return;
    }
    for (i, it) in items.iter_mut().enumerate() {
        match it {
            Item::Group(g) => {
                path.push(PathStep::Group(i));
                index_items(&mut g.items, path, instances, switches, depth + 1);
                path.pop();
            }
            Item::Module(inst) => {
                inst.id = instances.len();
                instances.push((path.clone(), i));
            }
            Item::Switch(sw) => {
                sw.id = switches.len();
                switches.push((path.clone(), i));
                for (ci, c) in sw.cases.iter_mut().enumerate() {
                    path.push(PathStep::Case(i, ci));
                    index_items(&mut c.items, path, instances, switches, depth + 1);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

fn instance_names(items: &[Item], list: &[(Vec<PathStep>, usize)]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for (id, (path, idx)) in list.iter().enumerate() {
        if let Some(Item::Module(inst)) = items_at(items, path).and_then(|i| i.get(*idx)) {
            out.entry(inst.name.clone()).or_insert(id);
        }
    }
    out
}

fn switch_names(items: &[Item], list: &[(Vec<PathStep>, usize)]) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for (id, (path, idx)) in list.iter().enumerate() {
        if let Some(Item::Switch(sw)) = items_at(items, path).and_then(|i| i.get(*idx)) {
            out.entry(sw.name.clone()).or_insert(id);
        }
    }
    out
}
