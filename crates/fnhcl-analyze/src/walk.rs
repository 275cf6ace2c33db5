//! The analyser's own checks: a walk over every block and expression of
//! the program (see the crate docs for what it looks for).
//!
//! Size: one walk over every block and expression of a program, each check a
//! method it calls in the walk's order.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use fnhcl_base::{Diagnostic, Span};
use fnhcl_syntax::ast::{Block, Body, Expr, ExprKind, Ident, ObjectKey, Structure, TemplatePart};

use fnhcl_value::{Type, Value};

use crate::{Options, codes};
use fnhcl_schema::Schema;

/// The attributes of `req`: upstream's eight (§3.2), `credentials` (D38)
/// and `watched` (D39).
const REQ_KEYS: &[&str] = &[
    "composite",
    "composite_connection",
    "resource",
    "connection",
    "resources",
    "connections",
    "context",
    "extra_resources",
    "credentials",
    "watched",
];

/// Top-level fields of a Kubernetes object.
const OBJECT_FIELDS: &[&str] = &["apiVersion", "kind", "metadata", "spec", "status"];

/// Fields of `metadata` (ObjectMeta; `managedFields` is removed from
/// everything the program sees).
const METADATA_FIELDS: &[&str] = &[
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
];

/// The requirement under which Crossplane sends a WatchOperation's watched
/// resource (D36, D39).
pub(crate) const WATCHED_RESOURCE_REQUIREMENT: &str = fnhcl_eval::WATCHED_RESOURCE;

const MAX_DEPTH: usize = 256;

/// Evaluation budget for constant sub-expressions of one program.
const MAX_CONST_STEPS: u64 = 10_000_000;

/// `dirs[i]` is the directory of `bodies[i]`'s file (a module's, or `""`
/// for the root program).
pub(crate) fn check(bodies: &[&Body], dirs: &[String], options: &Options) -> Vec<Diagnostic> {
    let mut w = Walker {
        composite_schema: options.composite_schema.clone(),
        diags: Vec::new(),
        frames: Vec::new(),
        resources: BTreeSet::new(),
        collections: BTreeSet::new(),
        requirements: options
            .bootstrap_requirements
            .iter()
            .cloned()
            .chain([WATCHED_RESOURCE_REQUIREMENT.to_owned()])
            .collect(),
        namespaced_composite: options.namespaced_composite,
        each_alias: None,
        dir: String::new(),
        imports: imports(bodies, dirs),
        param_aliases: HashMap::new(),
        in_function: false,
        const_steps: 0,
    };
    for b in bodies {
        w.collect_names(b, 0);
    }
    let top_locals: Vec<&Block> = bodies
        .iter()
        .flat_map(|b| blocks(b).filter(|b| &*b.ident.name == "locals"))
        .collect();
    // Callers before the modules they instantiate (shallower directories
    // first), so a module's parameters are known when its files are read.
    let mut order: Vec<usize> = (0..bodies.len()).collect();
    order.sort_by_key(|&i| {
        (
            dirs.get(i)
                .map_or(0, |d| d.matches('/').count() + usize::from(!d.is_empty())),
            i,
        )
    });
    w.with_scope(&top_locals, |w| {
        for i in order {
            w.dir = dirs.get(i).cloned().unwrap_or_default();
            for blk in blocks(bodies[i]) {
                if &*blk.ident.name != "locals" {
                    w.block(blk, 1);
                }
            }
        }
    });
    w.diags
}

/// `dir` joined with the relative path `rel` (`./` and `..` resolved).
fn join_dir(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for p in rel.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    parts.join("/")
}

/// Every `import "path" { as = "alias" }`: (importing directory, alias)
/// to the imported directory.
fn imports(bodies: &[&Body], dirs: &[String]) -> HashMap<(String, String), String> {
    let mut out = HashMap::new();
    for (b, dir) in bodies.iter().zip(dirs) {
        for blk in blocks(b).filter(|b| &*b.ident.name == "import") {
            let Some(path) = blk.labels.first().map(|l| l.value.as_str()) else {
                continue;
            };
            let target = join_dir(dir, path);
            let alias = blk
                .body
                .items
                .iter()
                .find_map(|s| match s {
                    Structure::Attribute(a) if &*a.name.name == "as" => {
                        literal_string(&a.expr).map(str::to_owned)
                    }
                    _ => None,
                })
                .unwrap_or_else(|| target.rsplit('/').next().unwrap_or("").to_owned());
            out.insert((dir.clone(), alias), target);
        }
    }
    out
}

fn blocks(b: &Body) -> impl Iterator<Item = &Block> {
    b.items.iter().filter_map(|s| match s {
        Structure::Block(b) => Some(b),
        Structure::Attribute(_) => None,
    })
}

struct LocalDecl {
    name: Arc<str>,
    span: Span,
    used: bool,
    /// The `req.composite` path the local stands for, when its value is
    /// that path (`params = req.composite.spec.parameters`): reads through
    /// it are checked against the XRD as if written in full.
    alias: Option<Vec<AliasStep>>,
}

/// One step of a path a local or `each.value` stands for.
#[derive(Clone)]
enum AliasStep {
    Name(String, Span),
    /// An element of a list (`each.value` over `for_each`).
    Index(Span),
}

impl AliasStep {
    fn step(&self) -> Step<'_> {
        match self {
            AliasStep::Name(n, s) => Step::Name(n, *s),
            AliasStep::Index(s) => Step::Index(*s),
        }
    }
}

struct Walker {
    composite_schema: Option<std::sync::Arc<Schema>>,
    diags: Vec<Diagnostic>,
    /// Locals of the enclosing scopes, innermost last.
    frames: Vec<Vec<LocalDecl>>,
    resources: BTreeSet<String>,
    collections: BTreeSet<String>,
    requirements: BTreeSet<String>,
    /// See [`Options::namespaced_composite`].
    namespaced_composite: bool,
    /// Inside a `resources` block whose `for_each` is a list of the XR: the
    /// path of one element (what `each.value` stands for).
    each_alias: Option<Vec<AliasStep>>,
    /// The directory of the file being read.
    dir: String,
    /// See [`imports`].
    imports: HashMap<(String, String), String>,
    /// (module directory, parameter) to the XR path an instance passes
    /// (`module "net" "main" { cidr = req.composite.spec.cidr }`).
    param_aliases: HashMap<(String, String), Vec<AliasStep>>,
    /// Inside a `function` block (no `req`, `self`, `each` or outer locals).
    in_function: bool,
    /// Evaluation steps spent on constant sub-expressions.
    const_steps: u64,
}

/// One step of a static traversal after its root.
#[derive(Clone, Copy)]
enum Step<'a> {
    /// `.name` or `["name"]`.
    Name(&'a str, Span),
    /// A number/bool/null index.
    Index(Span),
}

impl Walker {
    fn collect_names(&mut self, body: &Body, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        for b in blocks(body) {
            let label = b.labels.first().map(|l| l.value.clone());
            match (&*b.ident.name, label) {
                ("resource", Some(l)) => {
                    self.resources.insert(l);
                }
                ("resources", Some(l)) => {
                    self.collections.insert(l);
                }
                ("requirement", Some(l)) => {
                    self.requirements.insert(l);
                }
                ("group", _) => self.collect_names(&b.body, depth + 1),
                _ => {}
            }
        }
    }

    /// Runs `f` with the locals of `locals_blocks` as a new innermost scope,
    /// then reports the ones nothing used.
    fn with_scope(&mut self, locals_blocks: &[&Block], f: impl FnOnce(&mut Walker)) {
        let mut frame = Vec::new();
        let mut exprs = Vec::new();
        for b in locals_blocks {
            for item in &b.body.items {
                if let Structure::Attribute(a) = item {
                    let name = &*a.name.name;
                    // Duplicates and shadowing are errors the evaluator
                    // reports; the first/outer declaration stays the one
                    // references resolve to.
                    let shadows = matches!(name, "req" | "self" | "each")
                        || frame.iter().any(|l: &LocalDecl| &*l.name == name)
                        || self.frames.iter().flatten().any(|l| &*l.name == name);
                    exprs.push(&a.expr);
                    if shadows {
                        continue;
                    }
                    frame.push(LocalDecl {
                        name: a.name.name.clone(),
                        span: a.name.span,
                        used: false,
                        alias: self.composite_alias(&a.expr),
                    });
                }
            }
        }
        self.frames.push(frame);
        for e in exprs {
            self.expr(e);
        }
        f(self);
        let Some(frame) = self.frames.pop() else {
            return;
        };
        for l in frame {
            if !l.used && !l.name.starts_with('_') {
                self.diags.push(
                    Diagnostic::warning(
                        format!("local \"{}\" is never used", l.name),
                        "remove it, or prefix its name with `_` to keep it",
                    )
                    .with_span(l.span)
                    .with_code(codes::UNUSED_LOCAL),
                );
            }
        }
    }

    /// D36: on a namespaced composite, a selection by name without a
    /// namespace finds only a cluster-scoped object.
    fn select_namespace(&mut self, select: &Block) {
        let attr = |n: &str| {
            select.body.items.iter().find_map(|s| match s {
                Structure::Attribute(a) if &*a.name.name == n => Some(a),
                _ => None,
            })
        };
        if attr("namespace").is_some() {
            return;
        }
        let Some(name) = attr("matchName") else {
            return;
        };
        self.diags.push(
            Diagnostic::warning(
                "requirement selects by name without a namespace on a namespaced composite",
                "Crossplane 2 then looks for a cluster-scoped object of that name, and a namespaced one (a ConfigMap, a Secret) is never found: set `namespace`, for example `namespace = req.composite.metadata.namespace`",
            )
            .with_span(name.name.span)
            .with_code(codes::UNNAMESPACED_REQUIREMENT),
        );
    }

    /// Constant values of a `composite connection` body must be base64
    /// text, or the block is discarded on every request.
    fn connection_values(&mut self, b: &Block) {
        let items: Vec<(&str, &Expr)> = b
            .body
            .items
            .iter()
            .flat_map(|s| match s {
                Structure::Attribute(a) if &*a.name.name == "body" => match &a.expr.kind {
                    ExprKind::Object(items) => items
                        .iter()
                        .filter_map(|it| {
                            let key = match &it.key {
                                fnhcl_syntax::ast::ObjectKey::Ident(i) => &*i.name,
                                fnhcl_syntax::ast::ObjectKey::Expr(e) => literal_string(e)?,
                            };
                            Some((key, &it.value))
                        })
                        .collect(),
                    _ => Vec::new(),
                },
                Structure::Block(body) if &*body.ident.name == "body" => body
                    .body
                    .items
                    .iter()
                    .filter_map(|s| match s {
                        Structure::Attribute(a) => Some((&*a.name.name, &a.expr)),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        for (key, e) in items {
            let Some(text) = constant_value(e).and_then(|v| v.as_str().map(str::to_owned)) else {
                continue;
            };
            if fnhcl_eval::decode_base64(&text).is_none() {
                self.diags.push(
                    Diagnostic::warning(
                        format!("connection detail \"{key}\" is not base64"),
                        "connection details are base64 text, so the block is discarded on every request: wrap the value in base64encode(...)",
                    )
                    .with_span(e.span)
                    .with_code(codes::CONNECTION_NOT_BASE64),
                );
            }
        }
    }

    fn block(&mut self, b: &Block, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let locals: Vec<&Block> = blocks(&b.body)
            .filter(|c| &*c.ident.name == "locals")
            .collect();
        let is_function = &*b.ident.name == "function";
        if &*b.ident.name == "select" && self.namespaced_composite {
            self.select_namespace(b);
        }
        if &*b.ident.name == "composite"
            && b.labels.first().is_some_and(|l| l.value == "connection")
        {
            self.connection_values(b);
        }
        let saved_frames = if is_function {
            Some(std::mem::take(&mut self.frames))
        } else {
            None
        };
        let was_in_function = self.in_function;
        self.in_function |= is_function;
        if is_function {
            // The arguments are the function's outermost scope.
            let mut args: Vec<LocalDecl> = Vec::new();
            for a in blocks(&b.body).filter(|c| &*c.ident.name == "arg") {
                if let Some(l) = a.labels.first()
                    && !args.iter().any(|x| *x.name == *l.value)
                {
                    args.push(LocalDecl {
                        name: Arc::from(l.value.as_str()),
                        span: l.span,
                        used: false,
                        alias: None,
                    });
                }
            }
            self.frames.push(args);
        }
        if &*b.ident.name == "module" {
            self.instance_parameters(b);
        }
        let saved_each = self.each_alias.take();
        if &*b.ident.name == "resources" {
            self.each_alias = b.body.items.iter().find_map(|s| match s {
                Structure::Attribute(a) if &*a.name.name == "for_each" => {
                    let mut path = self.composite_alias(&a.expr)?;
                    path.push(AliasStep::Index(a.expr.span));
                    Some(path)
                }
                _ => None,
            });
        } else {
            self.each_alias = saved_each.clone();
        }
        self.with_scope(&locals, |w| {
            for item in &b.body.items {
                match item {
                    Structure::Attribute(a) => {
                        w.expr(&a.expr);
                        w.attribute_type(&b.ident.name, &a.name.name, &a.expr);
                    }
                    Structure::Block(c) => match &*c.ident.name {
                        "locals" => {}
                        // Argument defaults are constants (checked by the evaluator).
                        "arg" if is_function => {}
                        _ => w.block(c, depth + 1),
                    },
                }
            }
        });
        if is_function && let Some(args) = self.frames.pop() {
            let fname = b.labels.first().map_or("", |l| l.value.as_str());
            for a in args
                .into_iter()
                .filter(|a| !a.used && !a.name.starts_with('_'))
            {
                self.diags.push(
                    Diagnostic::warning(
                        format!(
                            "argument \"{}\" of function \"{fname}\" is never used",
                            a.name
                        ),
                        "remove it, or prefix its name with `_` to keep it",
                    )
                    .with_span(a.span)
                    .with_code(codes::UNUSED_ARGUMENT),
                );
            }
        }
        self.in_function = was_in_function;
        self.each_alias = saved_each;
        if let Some(frames) = saved_frames {
            self.frames = frames;
        }
    }

    fn expr(&mut self, e: &Expr) {
        for t in fnhcl_syntax::visit::traversals(e) {
            let mut steps = Vec::new();
            let Some(root) = decompose(t, &mut steps, 0) else {
                continue;
            };
            steps.reverse();
            if self.mark_used(&root.name) {
                // Through a local that stands for an XR path.
                if !self.in_function
                    && !steps.is_empty()
                    && let Some(alias) = self.alias_of(&root.name)
                {
                    let mut full: Vec<Step<'_>> = alias.iter().map(AliasStep::step).collect();
                    full.extend(steps.iter().cloned());
                    self.req(&full);
                }
                continue;
            }
            // `param.<p>` that an instance sets to a path of the XR.
            if &*root.name == "param"
                && !self.in_function
                && steps.len() > 1
                && let Some(Step::Name(p, _)) = steps.first()
                && let Some(alias) = self
                    .param_aliases
                    .get(&(self.dir.clone(), (*p).to_owned()))
                    .cloned()
            {
                let mut full: Vec<Step<'_>> = alias.iter().map(AliasStep::step).collect();
                full.extend(steps[1..].iter().cloned());
                self.req(&full);
                continue;
            }
            // `each.value` over a list of the XR: an element of it.
            if &*root.name == "each"
                && !self.in_function
                && let (Some(Step::Name("value", _)), Some(alias)) =
                    (steps.first(), self.each_alias.clone())
                && steps.len() > 1
            {
                let mut full: Vec<Step<'_>> = alias.iter().map(AliasStep::step).collect();
                full.extend(steps[1..].iter().cloned());
                self.req(&full);
                continue;
            }
            if self.in_function {
                continue;
            }
            match &*root.name {
                "req" => self.req(&steps),
                "self" => {
                    if let Some(Step::Name("resource", _)) = steps.first() {
                        self.object_fields(&steps[1..], "self.resource", false);
                    }
                }
                _ => {}
            }
        }
        let mut calls = Vec::new();
        collect_calls(e, &mut calls);
        let mut unknown_call = false;
        for (name, args, expand, span) in calls {
            let nargs = args.len();
            // Calls already reported (unknown function, wrong arity) would
            // be reported again by evaluating the expression.
            unknown_call |= match fnhcl_functions::registry().get(&name.name) {
                None => true,
                Some(def) => !expand && def.check_arity(nargs).is_err(),
            };
            self.call(name, args, expand, span);
        }
        if !unknown_call {
            self.constants(e, 0);
        }
    }

    /// A constant `condition` must be a bool and a constant `for_each` a
    /// collection, or the block fails on every request.
    fn attribute_type(&mut self, block: &str, attr: &str, e: &Expr) {
        let want = match (block, attr) {
            ("group" | "resource" | "resources" | "requirement", "condition") => "bool",
            ("resources", "for_each") => "collection",
            _ => return,
        };
        let Some(v) = constant_value(e) else {
            return;
        };
        let ok = match v.unmarked() {
            Value::Bool(_) | Value::Null(Type::Bool) => want == "bool",
            Value::List(_) | Value::Set(_) | Value::Map(_) | Value::Tuple(_) | Value::Object(_) => {
                want == "collection"
            }
            _ => false,
        };
        if ok {
            return;
        }
        let got = match v.unmarked() {
            Value::Null(Type::Dynamic) => "null".to_owned(),
            other => other.type_of().to_string(),
        };
        let detail = if want == "bool" {
            format!("the condition must be a bool, got {got}")
        } else {
            format!("for_each must be a list, tuple, set, map or object, got {got}")
        };
        self.diags.push(
            Diagnostic::error(format!("invalid {attr} value"), detail)
                .with_span(e.span)
                .with_code(codes::WRONG_TYPE),
        );
    }

    /// Evaluates every maximal sub-expression that has no variables (and
    /// no `invoke`): an error there happens on every request. Arguments of
    /// `try`/`can` are left alone (their errors are the point).
    fn constants(&mut self, e: &Expr, depth: usize) {
        if depth > MAX_DEPTH || self.const_steps > MAX_CONST_STEPS {
            return;
        }
        match &e.kind {
            ExprKind::Null
            | ExprKind::Bool(_)
            | ExprKind::Number(_)
            | ExprKind::Variable(_)
            | ExprKind::SplatItem => return,
            ExprKind::Template(t)
                if t.parts
                    .iter()
                    .all(|p| matches!(p, TemplatePart::Literal(_))) =>
            {
                return;
            }
            _ => {}
        }
        if fnhcl_syntax::visit::traversals(e).is_empty() && !calls_invoke(e) {
            let out = evaluate_without_variables(e);
            self.const_steps += out.steps;
            if let Some(d) = out.diagnostics.into_iter().find(Diagnostic::is_error) {
                let span = d.primary.unwrap_or(e.span);
                self.diags.push(
                    Diagnostic::error(d.summary, d.detail)
                        .with_span(span)
                        .with_code(codes::ALWAYS_FAILS),
                );
            }
            return;
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::FuncCall { name, args, .. } if !matches!(&*name.name, "try" | "can") => {
                for a in args {
                    self.constants(a, d);
                }
            }
            ExprKind::Tuple(items) => items.iter().for_each(|i| self.constants(i, d)),
            ExprKind::Object(items) => {
                for it in items {
                    if let ObjectKey::Expr(k) = &it.key {
                        self.constants(k, d);
                    }
                    self.constants(&it.value, d);
                }
            }
            ExprKind::GetAttr(src, _) => self.constants(src, d),
            ExprKind::Index(src, k) => {
                self.constants(src, d);
                self.constants(k, d);
            }
            ExprKind::Splat { source, .. } => self.constants(source, d),
            ExprKind::Conditional {
                cond,
                then,
                otherwise,
            } => {
                self.constants(cond, d);
                self.constants(then, d);
                self.constants(otherwise, d);
            }
            ExprKind::Unary(_, x) | ExprKind::Parens(x) => self.constants(x, d),
            ExprKind::Binary(_, a, b) => {
                self.constants(a, d);
                self.constants(b, d);
            }
            ExprKind::For(f) => {
                self.constants(&f.collection, d);
                if let Some(k) = &f.key_expr {
                    self.constants(k, d);
                }
                self.constants(&f.value_expr, d);
                if let Some(c) = &f.cond {
                    self.constants(c, d);
                }
            }
            ExprKind::Template(t) => {
                for p in &t.parts {
                    if let TemplatePart::Interpolation(x) = p {
                        self.constants(x, d);
                    }
                }
            }
            _ => {}
        }
    }

    /// Marks the innermost local called `name` as used; true if there is one.
    fn mark_used(&mut self, name: &str) -> bool {
        for frame in self.frames.iter_mut().rev() {
            if let Some(l) = frame.iter_mut().find(|l| &*l.name == name) {
                l.used = true;
                return true;
            }
        }
        false
    }

    /// Records the XR paths a module instance passes as parameters.
    fn instance_parameters(&mut self, b: &Block) {
        let Some(source) = b.labels.first().map(|l| l.value.as_str()) else {
            return;
        };
        let target = if source.contains('/') {
            join_dir(&self.dir, source)
        } else {
            match self.imports.get(&(self.dir.clone(), source.to_owned())) {
                Some(t) => t.clone(),
                None => return,
            }
        };
        for s in &b.body.items {
            let Structure::Attribute(a) = s else { continue };
            if matches!(
                &*a.name.name,
                "condition" | "optional" | "depends_on" | "on_incomplete" | "params"
            ) {
                continue;
            }
            if let Some(alias) = self.composite_alias(&a.expr) {
                self.param_aliases
                    .insert((target.clone(), a.name.name.to_string()), alias);
            }
        }
    }

    /// The `req.composite` path `e` stands for: `req.composite` followed by
    /// names, or a local that stands for one followed by names.
    fn composite_alias(&self, e: &Expr) -> Option<Vec<AliasStep>> {
        let mut steps = Vec::new();
        let root = decompose(e, &mut steps, 0)?;
        steps.reverse();
        let names: Vec<AliasStep> = steps
            .iter()
            .map(|s| match s {
                Step::Name(n, span) => Some(AliasStep::Name((*n).to_owned(), *span)),
                Step::Index(_) => None,
            })
            .collect::<Option<_>>()?;
        if &*root.name == "req" {
            return matches!(names.first(), Some(AliasStep::Name(k, _)) if k == "composite")
                .then_some(names);
        }
        if &*root.name == "param" {
            let Some(AliasStep::Name(p, _)) = names.first() else {
                return None;
            };
            let mut base = self
                .param_aliases
                .get(&(self.dir.clone(), p.clone()))?
                .clone();
            base.extend(names.into_iter().skip(1));
            return Some(base);
        }
        let mut base = self.alias_of(&root.name)?;
        base.extend(names);
        Some(base)
    }

    /// The `req.composite` path local `name` stands for, if any.
    fn alias_of(&self, name: &str) -> Option<Vec<AliasStep>> {
        self.frames
            .iter()
            .rev()
            .find_map(|f| f.iter().find(|l| &*l.name == name))
            .and_then(|l| l.alias.clone())
    }

    fn error(&mut self, code: &'static str, summary: String, detail: String, span: Span) {
        self.diags.push(
            Diagnostic::error(summary, detail)
                .with_span(span)
                .with_code(code),
        );
    }

    /// A reference to an observed resource this program does not declare:
    /// a typo, or a resource of another pipeline step.
    fn undeclared(&mut self, code: &'static str, summary: &str, detail: String, span: Span) {
        self.diags.push(
            Diagnostic::warning(
                summary,
                format!("{detail}; fine if another pipeline step composes it"),
            )
            .with_span(span)
            .with_code(code),
        );
    }

    fn req(&mut self, steps: &[Step<'_>]) {
        let Some(first) = steps.first() else {
            return;
        };
        let (key, span) = match first {
            Step::Name(k, s) => (*k, *s),
            Step::Index(s) => {
                self.error(
                    codes::UNKNOWN_REQ_ATTRIBUTE,
                    "invalid index expression on \"req\"".to_owned(),
                    format!("req is an object; use one of: {}", REQ_KEYS.join(", ")),
                    *s,
                );
                return;
            }
        };
        if !REQ_KEYS.contains(&key) {
            self.error(
                codes::UNKNOWN_REQ_ATTRIBUTE,
                format!("no such attribute \"{key}\" in req"),
                with_suggestion(
                    format!("req has: {}", REQ_KEYS.join(", ")),
                    key,
                    REQ_KEYS.iter().copied(),
                ),
                span,
            );
            return;
        }
        let name = match steps.get(1) {
            Some(Step::Name(n, s)) => Some((*n, *s)),
            _ => None,
        };
        match key {
            "composite" => match self.composite_schema.take() {
                Some(schema) => {
                    self.composite_fields(&schema, &steps[1..]);
                    self.composite_schema = Some(schema);
                }
                None => self.object_fields(&steps[1..], "req.composite", true),
            },
            "resource" | "connection" => {
                if let Some((n, s)) = name {
                    if !self.resources.contains(n) {
                        let known: Vec<&str> = self.resources.iter().map(String::as_str).collect();
                        let detail = if known.is_empty() {
                            "the program declares no resource blocks".to_owned()
                        } else {
                            with_suggestion(
                                format!("declared resources are {}", known.join(", ")),
                                n,
                                known.iter().copied(),
                            )
                        };
                        self.undeclared(
                            codes::UNDECLARED_RESOURCE,
                            &format!("invalid resource name reference \"{n}\""),
                            detail,
                            s,
                        );
                    } else if key == "resource" {
                        self.object_fields(&steps[2..], &format!("req.resource.{n}"), false);
                    }
                }
            }
            "extra_resources" => {
                if let Some((n, s)) = name
                    && !self.requirements.contains(n)
                {
                    let known: Vec<&str> = self
                        .requirements
                        .iter()
                        .map(String::as_str)
                        .filter(|n| *n != WATCHED_RESOURCE_REQUIREMENT)
                        .collect();
                    let detail = if known.is_empty() {
                        "the program declares no requirement blocks".to_owned()
                    } else {
                        with_suggestion(
                            format!("declared requirements are {}", known.join(", ")),
                            n,
                            known.iter().copied(),
                        )
                    };
                    self.diags.push(
                        Diagnostic::warning(
                            format!("no requirement named \"{n}\""),
                            format!(
                                "{detail}; Crossplane only sends the extra resources this step requires, so the value will stay unknown"
                            ),
                        )
                        .with_span(s)
                        .with_code(codes::UNDECLARED_REQUIREMENT),
                    );
                }
            }
            "resources" | "connections" => {
                if let Some((n, s)) = name
                    && !self.collections.contains(n)
                {
                    let known: Vec<&str> = self.collections.iter().map(String::as_str).collect();
                    let detail = if known.is_empty() {
                        "the program declares no resources blocks".to_owned()
                    } else {
                        with_suggestion(
                            format!("declared resource collections are {}", known.join(", ")),
                            n,
                            known.iter().copied(),
                        )
                    };
                    self.undeclared(
                        codes::UNDECLARED_COLLECTION,
                        &format!("invalid resource collection name reference \"{n}\""),
                        detail,
                        s,
                    );
                }
            }
            _ => {}
        }
    }

    /// Checks the first steps into a Kubernetes object (`<path>.<field>`,
    /// `<path>.metadata.<field>`) against the well-known field names. The
    /// top level is only checked for composite resources (`top_level`):
    /// composed resources may be of any kind (a ConfigMap has `data`).
    fn object_fields(&mut self, steps: &[Step<'_>], path: &str, top_level: bool) {
        let Some(Step::Name(field, span)) = steps.first() else {
            return;
        };
        if top_level && !OBJECT_FIELDS.contains(field) {
            self.suspicious(path, field, *span, OBJECT_FIELDS);
            return;
        }
        if *field == "metadata"
            && let Some(Step::Name(m, span)) = steps.get(1)
            && !METADATA_FIELDS.contains(m)
        {
            self.suspicious(&format!("{path}.metadata"), m, *span, METADATA_FIELDS);
        }
    }

    /// Checks a path under `req.composite` against the XRD's schema.
    fn composite_fields(&mut self, schema: &Schema, steps: &[Step<'_>]) {
        match steps.first() {
            Some(Step::Name("apiVersion" | "kind", _)) => return,
            Some(Step::Name("metadata", _)) => {
                return self.object_fields(steps, "req.composite", false);
            }
            _ => {}
        }
        let Some(mut node) = schema.field(&[]) else {
            return;
        };
        let mut path = "req.composite".to_owned();
        for step in steps {
            if node.preserves_unknown() {
                return;
            }
            let next = match step {
                Step::Name(n, _) => node.child(n),
                Step::Index(_) => node.child("*"),
            };
            node = match (next, step) {
                (Some(f), _) => f,
                (None, Step::Name(n, span)) => {
                    let declared = node.property_names();
                    if declared.is_empty() {
                        // An object that takes any field.
                        return;
                    }
                    let mut known: Vec<&str> = declared;
                    if path == "req.composite" {
                        known.extend(["apiVersion", "kind", "metadata"]);
                    }
                    let detail = with_suggestion(
                        format!(
                            "the composite resource definition declares: {}; the value will stay unknown",
                            known.join(", ")
                        ),
                        n,
                        known.iter().copied(),
                    );
                    self.diags.push(
                        Diagnostic::warning(
                            format!("{path} has no field \"{n}\" in the XRD schema"),
                            detail,
                        )
                        .with_span(*span)
                        .with_code(codes::NOT_IN_SCHEMA),
                    );
                    return;
                }
                (None, Step::Index(_)) => return,
            };
            match step {
                Step::Name(n, _) => {
                    path.push('.');
                    path.push_str(n);
                }
                Step::Index(_) => path.push_str("[*]"),
            }
        }
    }

    fn suspicious(&mut self, path: &str, field: &str, span: Span, known: &[&str]) {
        let (summary, detail) = if field == "managedFields" {
            (
                format!("{path}.{field} is never available"),
                "managedFields is removed from every object the program sees".to_owned(),
            )
        } else {
            (
                format!("{path}.{field} is not a field Kubernetes objects have"),
                with_suggestion(
                    "it will stay unknown and defer the block that uses it".to_owned(),
                    field,
                    known.iter().copied(),
                ),
            )
        };
        self.diags.push(
            Diagnostic::warning(summary, detail)
                .with_span(span)
                .with_code(codes::SUSPICIOUS_FIELD),
        );
    }

    fn call(&mut self, name: &Ident, args: &[Expr], expand: bool, span: Span) {
        let registry = fnhcl_functions::registry();
        let Some(def) = registry.get(&name.name) else {
            let detail = with_suggestion(
                format!("there is no function named \"{}\"", name.name),
                &name.name,
                registry.iter().map(|f| f.name),
            );
            self.error(
                codes::UNKNOWN_FUNCTION,
                format!("call to unknown function \"{}\"", name.name),
                detail,
                name.span,
            );
            return;
        };
        // `invoke` arity is checked by the evaluator, with its own message.
        if expand || &*name.name == "invoke" {
            return;
        }
        // A constant argument the parameter's type cannot take fails on
        // every request (`cidrsubnet(cidr, "eight", n)`); a call made only
        // of constants is evaluated whole (`constants`).
        let constants: Vec<Option<Value>> = args.iter().map(constant_value).collect();
        let whole = constants.iter().all(Option::is_some);
        for (i, (arg, v)) in args.iter().zip(constants).enumerate() {
            if whole {
                break;
            }
            let Some(param) = def.params.get(i).or(def.variadic.as_ref()) else {
                break;
            };
            if matches!(param.ty, Type::Dynamic) {
                continue;
            }
            let Some(v) = v else {
                continue;
            };
            if v.is_null() || !v.is_wholly_known() {
                continue;
            }
            if let Err(e) = fnhcl_value::convert(&v, &param.ty) {
                self.diags.push(
                    Diagnostic::error(
                        format!(
                            "invalid value for the \"{}\" parameter of {}",
                            param.name, name.name
                        ),
                        format!(
                            "{e}; this argument is a constant, so the call fails on every request"
                        ),
                    )
                    .with_span(arg.span)
                    .with_code(codes::WRONG_TYPE),
                );
            }
        }
        if let Err((summary, detail)) = def.check_arity(args.len()) {
            // As at run time: the first extra argument, or the closing
            // parenthesis where an argument is missing.
            let subject = match args.get(def.params.len()) {
                Some(extra) => extra.span,
                None => Span {
                    file: span.file,
                    start: span.end.saturating_sub(1),
                    end: span.end,
                },
            };
            self.error(
                codes::WRONG_ARITY,
                format!("{summary} for \"{}\"", name.name),
                detail,
                subject,
            );
        }
    }
}

/// Splits a static traversal into its root and steps (pushed innermost
/// first: reverse them for source order).
fn decompose<'a>(e: &'a Expr, steps: &mut Vec<Step<'a>>, depth: usize) -> Option<&'a Ident> {
    if depth > MAX_DEPTH {
        return None;
    }
    match &e.kind {
        ExprKind::Variable(i) => Some(i),
        ExprKind::GetAttr(src, name) => {
            steps.push(Step::Name(&name.name, name.span));
            decompose(src, steps, depth + 1)
        }
        ExprKind::Index(src, key) => {
            match literal_string(key) {
                Some(s) => steps.push(Step::Name(s, key.span)),
                None => steps.push(Step::Index(key.span)),
            }
            decompose(src, steps, depth + 1)
        }
        _ => None,
    }
}

fn literal_string(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Template(t) if !t.heredoc => match t.parts.as_slice() {
            [TemplatePart::Literal(s)] => Some(s),
            _ => None,
        },
        _ => None,
    }
}

type Call<'a> = (&'a Ident, &'a [Expr], bool, Span);

/// Every function call in `e` (outer calls first), by the shared walk.
fn collect_calls<'a>(e: &'a Expr, out: &mut Vec<Call<'a>>) {
    struct Calls<'o, 'a>(&'o mut Vec<Call<'a>>);
    impl<'a> fnhcl_syntax::visit::Visitor<'a> for Calls<'_, 'a> {
        fn enter(&mut self, e: &'a Expr) -> bool {
            if let ExprKind::FuncCall {
                name,
                args,
                expand_final,
            } = &e.kind
            {
                self.0.push((name, args, *expand_final, e.span));
            }
            true
        }
    }
    fnhcl_syntax::visit::walk_expr(&mut Calls(out), e);
}

/// Appends ` (did you mean "x"?)` when a candidate is close to `name`.
pub(crate) fn with_suggestion<'c>(
    mut detail: String,
    name: &str,
    candidates: impl Iterator<Item = &'c str>,
) -> String {
    let best = candidates
        .filter_map(|c| Some((fnhcl_base::edit_distance(name, c, usize::MAX)?, c)))
        .filter(|(d, c)| *d > 0 && *d <= (c.chars().count() / 3).max(2))
        .min();
    if let Some((_, c)) = best {
        detail.push_str(&format!(" (did you mean \"{c}\"?)"));
    }
    detail
}

/// Evaluates `e` with no variables (functions on, default limits).
fn evaluate_without_variables(e: &Expr) -> fnhcl_expr::Evaluated {
    let limits = fnhcl_expr::Limits::default();
    let ctx = fnhcl_expr::EvalContext {
        vars: &fnhcl_expr::NoVariables,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    fnhcl_expr::evaluate(e, &ctx)
}

/// The value of an expression without variables, calls of unknown
/// functions or `invoke`, when it evaluates without errors.
fn constant_value(e: &Expr) -> Option<Value> {
    if !fnhcl_syntax::visit::traversals(e).is_empty() {
        return None;
    }
    let mut calls = Vec::new();
    collect_calls(e, &mut calls);
    if calls
        .iter()
        .any(|(n, ..)| &*n.name == "invoke" || fnhcl_functions::registry().get(&n.name).is_none())
    {
        return None;
    }
    let out = evaluate_without_variables(e);
    (!out.has_errors() && out.value.is_wholly_known()).then_some(out.value)
}

fn calls_invoke(e: &Expr) -> bool {
    let mut calls = Vec::new();
    collect_calls(e, &mut calls);
    calls.iter().any(|(name, ..)| &*name.name == "invoke")
}
