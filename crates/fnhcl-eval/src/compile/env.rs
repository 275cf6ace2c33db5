//! The compiler's state ([`Compiler`]), the name environments of a
//! module and a scope ([`ModEnv`], [`Env`]) and the messages for
//! undefined names.

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, Span};
use fnhcl_expr::Compiled;
use fnhcl_syntax::ast::{Block, Expr};
use fnhcl_value::Value;

use super::types::Module;
use crate::exprs;
use crate::layout::Layout;
use crate::refs;
use crate::schema;
use crate::slots::{self, Slot};

/// Expressions checked between two calls of a compile's interrupt.
pub(super) const CHECKS_PER_INTERRUPT: u32 = 256;

/// Most module instances one program may create (nested ones included).
pub(super) const MAX_INSTANCES: usize = 10_000;

/// What a user function accepts (for static `invoke` checks).
pub(super) struct Sig {
    /// `(name, required)`.
    pub(super) args: Vec<(String, bool)>,
}

/// What the expressions of one module may read beyond locals: parameters,
/// instances and their exports, switches (static view, D27-D31).
#[derive(Default)]
pub(super) struct ModEnv {
    /// Declared parameters (`None`: the module declares none).
    pub(super) params: Option<Vec<String>>,
    /// Instance name → the export names of its module (`None` when the
    /// module could not be resolved: no checks then).
    pub(super) instances: Vec<(String, Option<Vec<String>>, Option<usize>)>,
    /// Switch name → (case names, export names).
    pub(super) switches: Vec<(String, Vec<String>, Vec<String>)>,
    pub(super) declares_instances: bool,
    pub(super) declares_switches: bool,
}

/// Names visible in a scope (static view of the runtime frames).
#[derive(Clone)]
pub(super) struct Env {
    pub(super) req: bool,
    pub(super) self_keys: Option<&'static [&'static str]>,
    pub(super) each: bool,
    /// Locals and function arguments, innermost scope first.
    pub(super) bound: Option<Arc<Bound>>,
    /// Module-level names (`None` inside user functions).
    pub(super) module: Option<Arc<ModEnv>>,
}

/// The locals (or function arguments) one scope declares, and the
/// enclosing scopes' (shared: a nested scope's environment costs only its
/// own names, and a name is found by hashing, not by a search through
/// every name in scope).
pub(super) struct Bound {
    /// Each name → its slot (`None`: a function argument, or a local
    /// beyond what a slot encodes).
    index: HashMap<Arc<str>, Option<u32>>,
    /// The names in the order declared (messages list them).
    order: Vec<Arc<str>>,
    outer: Option<Arc<Bound>>,
}

impl Env {
    /// This environment with `names` declared in a scope of their own
    /// (innermost), each with the slot `slot` gives its index.
    pub(super) fn with_names(
        &self,
        names: &[Arc<str>],
        slot: impl Fn(usize) -> Option<u32>,
    ) -> Env {
        if names.is_empty() {
            return self.clone();
        }
        let index = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), slot(i)))
            .collect();
        Env {
            bound: Some(Arc::new(Bound {
                index,
                order: names.to_vec(),
                outer: self.bound.clone(),
            })),
            ..self.clone()
        }
    }

    /// The binding of local or argument `name`: its slot, `None` for an
    /// argument (the innermost scope declaring it decides).
    fn binding(&self, name: &str) -> Option<Option<u32>> {
        let mut b = self.bound.as_deref();
        while let Some(scope) = b {
            if let Some(slot) = scope.index.get(name) {
                return Some(*slot);
            }
            b = scope.outer.as_deref();
        }
        None
    }

    /// Whether a local or argument `name` is in scope.
    pub(super) fn is_bound(&self, name: &str) -> bool {
        self.binding(name).is_some()
    }

    /// The locals and arguments in scope, outermost scope first.
    pub(super) fn bound_names(&self) -> Vec<&str> {
        let mut scopes = Vec::new();
        let mut b = self.bound.as_deref();
        while let Some(scope) = b {
            scopes.push(scope);
            b = scope.outer.as_deref();
        }
        scopes
            .iter()
            .rev()
            .flat_map(|s| s.order.iter().map(|n| &**n))
            .collect()
    }

    /// `e` compiled for evaluation in this scope, its root variables
    /// resolved to slots where the scope binds them.
    /// The result is pending (`fnhcl_expr::Compiled::with_slots_pending`):
    /// `compile` moves the expression in from the parse tree once every
    /// module is compiled (`fill.rs`). `e` must be an attribute's
    /// expression.
    pub(super) fn compile(&self, e: &Expr) -> Compiled {
        Compiled::with_slots_pending(e, &|name| self.slot(name))
    }

    /// [`Self::compile`] of an expression the caller owns (a block body
    /// turned into an object): no copy of the tree.
    pub(super) fn compile_owned(&self, e: Expr) -> Compiled {
        Compiled::with_slots(e, &|name| self.slot(name))
    }

    /// [`Self::compile`] of a body: the attribute's expression (pending),
    /// or the object built from a body block (owned).
    pub(super) fn compile_cow(&self, e: std::borrow::Cow<'_, Expr>) -> Compiled {
        match e {
            std::borrow::Cow::Borrowed(e) => self.compile(e),
            std::borrow::Cow::Owned(e) => self.compile_owned(e),
        }
    }

    /// The slot of root variable `name` here (see `crate::slots`). The
    /// `self` and `each` frames are nearer than any local of an enclosing
    /// scope (their own scopes cannot declare the names); a local comes
    /// before the instance base's `req` and `param`.
    fn slot(&self, name: &str) -> Option<u32> {
        match name {
            "self" if self.self_keys.is_some() => return slots::encode(Slot::Named),
            "each" if self.each => return slots::encode(Slot::Named),
            _ => {}
        }
        if let Some(slot) = self.binding(name) {
            // `None`: a function argument.
            return slot;
        }
        let base = match name {
            "req" => self.req,
            "param" => self.module.as_ref().is_some_and(|m| m.params.is_some()),
            _ => false,
        };
        if base {
            slots::encode(Slot::Base)
        } else {
            None
        }
    }

    pub(super) fn has(&self, name: &str) -> bool {
        (self.req && name == "req")
            || (self.self_keys.is_some() && name == "self")
            || (self.each && name == "each")
            || (name == "param" && self.module.as_ref().is_some_and(|m| m.params.is_some()))
            || self.is_bound(name)
    }
    fn all_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.bound_names();
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
pub(super) const NOT_HERMETIC: &[&str] = &["timestamp", "plantimestamp", "uuid", "bcrypt"];

/// Terraform functions left out because they read files (D8), besides
/// those whose name starts with `file`.
pub(super) const NO_FILESYSTEM: &[&str] = &["templatefile", "abspath", "pathexpand"];

/// How many names in scope a "non-existent variable" detail lists.
const MAX_LISTED_NAMES: usize = 10;

/// The detail of "reference to non-existent variable": a targeted hint for
/// Terraform habits (`local.x`, `var.x`, `data.x`, `count.index`,
/// `path.module`, `module.x` without modules), else a did-you-mean, else
/// the names in scope. `attr` is the first attribute after the root.
pub(super) fn undefined_detail(name: &str, attr: Option<&str>, env: &Env) -> String {
    let attr_or = |placeholder: &'static str| attr.unwrap_or(placeholder);
    let is_local = |n: &str| env.is_bound(n);
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
                    && let Some(s) = schema::suggest(a, env.bound_names().into_iter())
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

pub(super) const SELF_RESOURCE: &[&str] = &["name", "resource", "connection"];
pub(super) const SELF_COLLECTION: &[&str] = &["basename", "resources", "connections"];
pub(super) const SELF_TEMPLATE: &[&str] = &[
    "basename",
    "resources",
    "connections",
    "name",
    "resource",
    "connection",
];

pub(super) struct Compiler<'l> {
    /// Asked every [`CHECKS_PER_INTERRUPT`] expressions whether to go on.
    pub(super) interrupt: Option<&'l fnhcl_expr::Interrupt>,
    /// Expressions checked so far.
    pub(super) checked: u32,
    /// The interrupt said stop: the compile gives up.
    pub(super) stopped: bool,
    pub(super) sigs: HashMap<String, Sig>,
    pub(super) diags: Vec<Diagnostic>,
    pub(super) resources: HashMap<String, Span>,
    pub(super) collections: HashMap<String, Span>,
    pub(super) requirements: HashMap<String, Span>,
    pub(super) instances: HashMap<String, Span>,
    pub(super) switches: HashMap<String, Span>,
    pub(super) layout: &'l Layout,
    /// The module being compiled.
    pub(super) module: usize,
    /// Modules compiled so far (every module this one imports is).
    pub(super) compiled: &'l [Option<Module>],
    /// Resources named by `export { resource "x" {} }`, checked once every
    /// resource of the module is known.
    pub(super) exported_resources: Vec<(String, Span)>,
    /// Parameters read (`param.<name>`).
    pub(super) param_uses: Vec<String>,
    /// Exports read: (module, export), `None` for the whole `module.<i>`.
    pub(super) export_reads: Vec<(usize, Option<String>)>,
    /// What of the request the module's expressions read.
    pub(super) demand: crate::Demand,
    /// Scope ids given so far (`Scope::id`).
    pub(super) scope_ids: u32,
    /// What only a composition has (D39): composite blocks, `ready`
    /// blocks, `req.composite`, observed resources, `self.resource`.
    pub(super) composite_uses: Vec<crate::CompositeUse>,
    /// The module has an `output` block or reads `req.watched` (D39).
    pub(super) operation_marks: bool,
    /// The module reads `req.watched` (D39).
    pub(super) reads_watched: bool,
    /// Every `depends_on` (D40) with its block's name, checked once all
    /// names are known.
    pub(super) depends: Vec<(String, Vec<super::types::Dep>)>,
}

/// True if `e` has no variable references and no function calls.
pub(crate) fn is_constant(e: &Expr) -> bool {
    let (refs, calls) = refs::traversals_and_calls(e);
    refs.is_empty() && calls.is_empty()
}

/// Evaluates a constant expression.
pub(crate) fn eval_constant(e: &Expr) -> (Value, Vec<Diagnostic>) {
    exprs::eval_constant(e)
}

pub(super) fn label(b: &Block) -> (String, Span) {
    b.labels
        .first()
        .map(|l| (l.value.clone(), l.span))
        .unwrap_or_else(|| (String::new(), b.ident.span))
}
