//! Evaluation of a compiled program against one request.

use base64::Engine as _;
use fnhcl_base::{Diagnostic, Severity, Span};
use fnhcl_syntax::ast::Expr;
use fnhcl_value::{Key, Number, Type, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::api::{
    DesiredResource, Discard, DiscardKind, DiscardReason, Fatal, LocalValue, Output, Request,
    Selector, SelectorMatch,
};
use crate::checks::{SelectField, check_select_value, ready_state, type_name};
use crate::compile::{
    Case, Child, Collection, Composite, CompositeKind, Cond, ContextBlock, ExportValue, Group,
    Instance, Item, Module, Names, Params, PathStep, Program, Ready, Requirement, Resource, Scope,
    Switch, items_at,
};
use crate::exprs::{self, Invoke, Vars};
use crate::refs;
use crate::render::{COLLECTION_BASE_NAME_ANNOTATION, COLLECTION_INDEX_ANNOTATION};
use crate::unify;
use fnhcl_expr::Limits;

/// Nested user-function calls allowed (upstream: the 100th call fails).
const MAX_INVOKE_DEPTH: usize = 100;
/// User-function calls in one evaluation (recursion that is not deep but
/// wide, like a naive Fibonacci, must not run for hours).
const MAX_INVOKE_CALLS: u64 = 200_000;
/// Nested forcing of locals (a chain `a = b + 1, b = c + 1, ...`).
const MAX_LOCAL_DEPTH: usize = 1000;
/// Members of one resource collection.
const MAX_COLLECTION_SIZE: usize = 100_000;
/// Entries listed after `unknown values:`.
const MAX_UNKNOWN_REFS: usize = 100;

/// A fatal stop: the error diagnostics (first one is the headline).
type Stop = Vec<Diagnostic>;
type Res<T> = Result<T, Stop>;

/// Evaluates `program` against `request` with the default [`Limits`]
/// (`max_steps` counts every expression of the request together).
pub fn evaluate(program: &Program, request: &Request) -> Result<Output, Fatal> {
    evaluate_with_limits(program, request, &Limits::default())
}

/// Evaluates `program` against `request` within `limits`: `max_steps` is a
/// budget for the whole request; exceeding it, or a nesting or result-size
/// limit anywhere (even in a local), makes the evaluation fail.
pub fn evaluate_with_limits(
    program: &Program,
    request: &Request,
    limits: &Limits,
) -> Result<Output, Fatal> {
    run(program, request, limits, None)
}

/// [`evaluate_with_limits`] that also records the value of every local it
/// computes (an editor's live preview): block-scoped locals once per
/// instance, in evaluation order. The root program's top-level locals are
/// all computed, used or not.
pub fn evaluate_traced(
    program: &Program,
    request: &Request,
    limits: &Limits,
) -> (Result<Output, Fatal>, Vec<LocalValue>) {
    let trace = RefCell::new(Vec::new());
    let result = run(program, request, limits, Some(&trace));
    (result, trace.into_inner())
}

fn run(
    program: &Program,
    request: &Request,
    limits: &Limits,
    trace: Option<&RefCell<Vec<LocalValue>>>,
) -> Result<Output, Fatal> {
    let mut ctx = Ctx::new(program, request, limits.clone());
    ctx.trace = trace;
    let root_module = &program.modules[0];
    let root = Frame::instance(&ctx, root_module, 0, Value::null());
    let top = Frame::locals(&root, &root_module.top);
    if trace.is_some()
        && let Some(f) = &top
        && let FrameVars::Locals { scope, cells } = &f.vars
    {
        for i in 0..scope.locals.len() {
            f.force(scope, cells, i);
        }
    }
    let mut w = Walk {
        ctx: &ctx,
        out: Builder::default(),
        rt: 0,
        prefix: Arc::from(""),
    };
    let mut result = w.items(top.as_ref().unwrap_or(&root), &root_module.items);
    if let Some(limit) = ctx.budget.exceeded() {
        result = Err(vec![limit]);
    }
    let warnings = ctx.take_warnings();
    match result.and_then(|()| w.out.finish(program)) {
        Ok(mut out) => {
            out.warnings = finish_warnings(warnings, program);
            out.sources = program.sources.clone();
            Ok(out)
        }
        Err(mut errs) => {
            errs.extend(warnings);
            Err(Fatal::new(errs, program.sources.clone()))
        }
    }
}

/// Deduplicates (severity, range, summary) and sorts by file and position.
fn finish_warnings(mut ws: Vec<Diagnostic>, program: &Program) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    ws.retain(|d| seen.insert((d.severity, d.primary.or(d.context), d.summary.clone())));
    ws.sort_by_cached_key(|d| {
        let sev = match d.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
        };
        let span = d.primary.or(d.context);
        let file = span.map(|s| program.sources.get(s.file).name.clone());
        (sev, file, span.map(|s| s.start))
    });
    ws
}

// ---------------------------------------------------------------------
// Evaluation state and variable frames
// ---------------------------------------------------------------------

struct Ctx<'p> {
    program: &'p Program,
    /// Where computed locals are recorded ([`evaluate_traced`]).
    trace: Option<&'p RefCell<Vec<LocalValue>>>,
    request: &'p Request,
    req: Value,
    /// `req.resource` and `req.connection` (looked up for every resource).
    req_resource: Value,
    req_connection: Value,
    /// Observed collection members by base name: `(index annotation, name)`
    /// sorted by the annotation as a string (upstream §3.2).
    members: HashMap<String, Vec<(String, String)>>,
    warnings: RefCell<Vec<Diagnostic>>,
    invoke_depth: Cell<usize>,
    invoke_calls: Cell<u64>,
    local_depth: Cell<usize>,
    budget: exprs::Budget,
    /// Module instances met so far (index 0: the root program).
    insts: RefCell<Vec<InstState>>,
    /// (parent instance, instance declaration id) → instance.
    inst_keys: RefCell<HashMap<(usize, usize), usize>>,
    /// (instance, switch id) → the chosen branch.
    choices: RefCell<HashMap<(usize, usize), Slot<Choice>>>,
    /// (instance, switch id) → the value of `switch.<name>`.
    switch_values: RefCell<HashMap<(usize, usize), Slot<Value>>>,
}

/// A lazily computed, memoised value; `Busy` while it is being computed
/// (meeting it again is a dependency cycle).
#[derive(Clone)]
enum Slot<T> {
    Empty,
    Busy,
    Done(T),
}

/// One instance of a module in this request.
struct InstState {
    module: usize,
    /// Crossplane name prefix: `""` for the root, `logs-` for instance
    /// `logs`, `outer-inner-` nested (D28).
    prefix: Arc<str>,
    /// The parent instance and this instance's declaration id there
    /// (`usize::MAX` for the root).
    parent: usize,
    decl: usize,
    status: Slot<Status>,
    /// `req` as the module sees it (resource names without the prefix);
    /// unused for the root, which sees `Ctx::req`.
    req: Option<Value>,
    /// `module.<name>` (every export).
    exports: Slot<Value>,
    /// `module.<name>.<export>`, one by one.
    export_values: HashMap<Arc<str>, Slot<Value>>,
}

/// Whether an instance is evaluated.
#[derive(Clone)]
enum Status {
    /// Evaluated, with these parameter values (`param`).
    Active(Value),
    /// Its condition (or an enclosing group's, or switch's) is false.
    Off,
    /// A condition it depends on is incomplete.
    Incomplete(Vec<Diagnostic>),
    /// An error that stops the evaluation.
    Failed(Vec<Diagnostic>),
}

/// The branch a switch takes.
#[derive(Clone)]
enum Choice {
    Case(usize),
    NoCase,
    /// The condition of this case is incomplete.
    Incomplete(usize, Vec<Diagnostic>),
    Failed(Vec<Diagnostic>),
}

/// The outcome of reaching a place in a module (see [`Ctx::with_site`]).
enum Site<R> {
    Reached(R),
    Off,
    Incomplete,
}

impl<'p> Ctx<'p> {
    fn new(program: &'p Program, request: &'p Request, limits: Limits) -> Ctx<'p> {
        let mut members: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for (name, o) in &request.observed {
            if let Some(base) = annotation(&o.body, COLLECTION_BASE_NAME_ANNOTATION)
                && !base.is_empty()
            {
                let idx = annotation(&o.body, COLLECTION_INDEX_ANNOTATION).unwrap_or_default();
                members.entry(base).or_default().push((idx, name.clone()));
            }
        }
        for v in members.values_mut() {
            v.sort();
        }
        let req = build_req(request, &members);
        let root = InstState {
            module: 0,
            prefix: Arc::from(""),
            parent: usize::MAX,
            decl: usize::MAX,
            status: Slot::Done(Status::Active(Value::null())),
            req: None,
            exports: Slot::Done(Value::empty_object()),
            export_values: HashMap::new(),
        };
        let field = |name: &str| {
            req.as_entries()
                .and_then(|r| r.get(name))
                .cloned()
                .unwrap_or_else(Value::null)
        };
        Ctx {
            program,
            trace: None,
            request,
            req_resource: field("resource"),
            req_connection: field("connection"),
            req,
            members,
            warnings: RefCell::new(Vec::new()),
            invoke_depth: Cell::new(0),
            invoke_calls: Cell::new(0),
            local_depth: Cell::new(0),
            budget: exprs::Budget::new(limits),
            insts: RefCell::new(vec![root]),
            inst_keys: RefCell::new(HashMap::new()),
            choices: RefCell::new(HashMap::new()),
            switch_values: RefCell::new(HashMap::new()),
        }
    }

    fn warn(&self, diags: impl IntoIterator<Item = Diagnostic>) {
        let mut w = self.warnings.borrow_mut();
        for d in diags {
            w.push(d.downgraded());
        }
    }

    fn take_warnings(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.warnings.borrow_mut())
    }

    /// `req.<field>.<name>`: the cleaned body or connection details built
    /// once for `req`.
    fn req_entry(field: &Value, name: &str) -> Value {
        field
            .as_entries()
            .and_then(|m| m.get(name))
            .cloned()
            .unwrap_or_else(Value::null)
    }

    fn observed_body(&self, name: &str) -> Value {
        Self::req_entry(&self.req_resource, name)
    }

    fn observed_connection(&self, name: &str) -> Value {
        Self::req_entry(&self.req_connection, name)
    }
}

impl<'p> Ctx<'p> {
    /// Calls user function `name` of `module` (functions are per module).
    fn invoke_in(&self, module: &'p Module, name: &str, args: Value) -> Result<Value, String> {
        let depth = self.invoke_depth.get() + 1;
        if depth >= MAX_INVOKE_DEPTH {
            return Err(depth_message());
        }
        let calls = self.invoke_calls.get() + 1;
        self.invoke_calls.set(calls);
        if calls > MAX_INVOKE_CALLS {
            return Err(calls_message());
        }
        let Some(f) = module.functions.get(name) else {
            return Err(format!("user function '{name}' not found"));
        };
        if !args.is_known() {
            return Ok(Value::dynamic_unknown());
        }
        if args.is_null() {
            return Err("argument must not be null".to_owned());
        }
        let Some(given) = args.as_entries() else {
            return Err(format!(
                "arguments to user function '{name}' is not an object, found {}",
                args.type_of()
            ));
        };
        for k in given.keys() {
            if !f.args.iter().any(|a| a.name == *k) {
                return Err(format!("function: \"{name}\" has no argument \"{k}\""));
            }
        }
        let mut vars: BTreeMap<Key, Value> = BTreeMap::new();
        for a in &f.args {
            match (given.get(&a.name), &a.default) {
                (Some(v), _) => {
                    vars.insert(a.name.clone(), v.clone());
                }
                (None, Some(d)) => {
                    vars.insert(a.name.clone(), d.clone());
                }
                (None, None) => {
                    return Err(format!(
                        "function: \"{name}\", argument \"{}\" expected but not supplied",
                        a.name
                    ));
                }
            }
        }
        self.invoke_depth.set(depth);
        let args_frame = Frame {
            ctx: self,
            parent: None,
            module,
            vars: FrameVars::Args(vars),
        };
        let locals = Frame::locals(&args_frame, &f.scope);
        let frame = locals.as_ref().unwrap_or(&args_frame);
        let (v, diags) = guard_stack(|| exprs::eval(&f.body, frame, frame, &self.budget));
        self.invoke_depth.set(depth - 1);
        let (errors, warnings): (Vec<_>, Vec<_>) = diags.into_iter().partition(|d| d.is_error());
        self.warn(warnings);
        if let Some(first) = errors.first() {
            // A limit error deep down is passed up as it is, not wrapped
            // once per nesting level.
            for limit in [depth_message(), calls_message()] {
                if errors
                    .iter()
                    .any(|d| d.detail.contains(&limit) || d.summary.contains(&limit))
                {
                    return Err(limit);
                }
            }
            let mut msg = first.to_hcl_string(&self.program.sources);
            if errors.len() > 1 {
                msg.push_str(&format!(", and {} other diagnostic(s)", errors.len() - 1));
            }
            return Err(msg);
        }
        Ok(v)
    }
}

/// Runs `f` on a fresh stack segment when little stack is left: user
/// functions and chains of locals recurse through the expression
/// evaluator, and 100 nested calls need several MiB in debug builds.
fn guard_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(1024 * 1024, 8 * 1024 * 1024, f)
}

fn calls_message() -> String {
    format!("user function calls: more than {MAX_INVOKE_CALLS} calls in one evaluation")
}

fn depth_message() -> String {
    format!("user function calls: max depth {MAX_INVOKE_DEPTH} exceeded")
}

enum LocalCell {
    Pending,
    InProgress,
    Done(Value),
}

enum FrameVars<'a> {
    /// One named variable (`req`, `self`, `each`).
    Named(&'static str, Value),
    /// A scope's locals, evaluated on first use.
    Locals {
        scope: &'a Scope,
        cells: RefCell<Vec<LocalCell>>,
    },
    /// A user function's arguments.
    Args(BTreeMap<Key, Value>),
    /// The base of a module instance: `req` (module-local), `param`,
    /// `module.<instance>` and `switch.<name>`.
    Instance { rt: usize, param: Value },
}

struct Frame<'a> {
    ctx: &'a Ctx<'a>,
    parent: Option<&'a Frame<'a>>,
    /// The module whose code is evaluated (its user functions).
    module: &'a Module,
    vars: FrameVars<'a>,
}

impl<'a> Frame<'a> {
    fn named(parent: &'a Frame<'a>, name: &'static str, v: Value) -> Frame<'a> {
        Frame {
            ctx: parent.ctx,
            parent: Some(parent),
            module: parent.module,
            vars: FrameVars::Named(name, v),
        }
    }

    /// The base frame of module instance `rt`.
    fn instance(ctx: &'a Ctx<'a>, module: &'a Module, rt: usize, param: Value) -> Frame<'a> {
        Frame {
            ctx,
            parent: None,
            module,
            vars: FrameVars::Instance { rt, param },
        }
    }

    /// A locals frame, or `None` for a scope without locals.
    fn locals(parent: &'a Frame<'a>, scope: &'a Scope) -> Option<Frame<'a>> {
        if scope.is_empty() {
            return None;
        }
        Some(Frame {
            ctx: parent.ctx,
            parent: Some(parent),
            module: parent.module,
            vars: FrameVars::Locals {
                scope,
                cells: RefCell::new(scope.locals.iter().map(|_| LocalCell::Pending).collect()),
            },
        })
    }

    fn eval(&self, e: &Expr) -> (Value, Vec<Diagnostic>) {
        exprs::eval(e, self, self, &self.ctx.budget)
    }

    fn force(&self, scope: &Scope, cells: &RefCell<Vec<LocalCell>>, i: usize) -> Value {
        match cells.borrow().get(i) {
            Some(LocalCell::Done(v)) => return v.clone(),
            Some(LocalCell::InProgress) => {
                // Cycles are rejected at compile time; this is a safety net.
                let l = &scope.locals[i];
                self.ctx.warn([Diagnostic::error(
                    format!("cycle found: {} → {}", l.name, l.name),
                    "",
                )
                .with_span(l.expr.span)]);
                return Value::dynamic_unknown();
            }
            Some(LocalCell::Pending) => {}
            None => return Value::dynamic_unknown(),
        }
        let local = &scope.locals[i];
        let depth = self.ctx.local_depth.get() + 1;
        let v = if depth > MAX_LOCAL_DEPTH {
            self.ctx.warn([Diagnostic::error(
                "locals nested too deeply",
                format!("more than {MAX_LOCAL_DEPTH} locals depend on each other in a chain"),
            )
            .with_span(local.expr.span)]);
            Value::dynamic_unknown()
        } else {
            cells.borrow_mut()[i] = LocalCell::InProgress;
            self.ctx.local_depth.set(depth);
            let (v, diags) = guard_stack(|| self.eval(&local.expr));
            self.ctx.local_depth.set(depth - 1);
            // Errors in locals are not fatal: the local becomes unknown and
            // the errors become warnings (upstream §3.4).
            self.ctx.warn(diags);
            v
        };
        if let Some(trace) = self.ctx.trace {
            trace.borrow_mut().push(LocalValue {
                name: local.name.to_string(),
                span: local.expr.span,
                value: v.clone(),
            });
        }
        cells.borrow_mut()[i] = LocalCell::Done(v.clone());
        v
    }
}

impl Vars for Frame<'_> {
    fn get(&self, name: &str) -> Option<Value> {
        let mut f = Some(self);
        while let Some(fr) = f {
            match &fr.vars {
                FrameVars::Named(n, v) => {
                    if *n == name {
                        return Some(v.clone());
                    }
                }
                FrameVars::Locals { scope, cells } => {
                    if let Some(i) = scope.find(name) {
                        return Some(fr.force(scope, cells, i));
                    }
                }
                FrameVars::Args(args) => {
                    if let Some(v) = args.get(name) {
                        return Some(v.clone());
                    }
                }
                FrameVars::Instance { rt, param } => {
                    if name == "req" {
                        // Module-local views are built on first use.
                        return Some(fr.ctx.req_of(*rt));
                    }
                    if name == "param" {
                        return Some(param.clone());
                    }
                    if let Some(rest) = name.strip_prefix("module.") {
                        return Some(match rest.split_once('.') {
                            Some((inst, export)) => {
                                let id = *fr.module.instance_ids.get(inst)?;
                                fr.ctx.instance_export(*rt, id, export)
                            }
                            None => {
                                let id = *fr.module.instance_ids.get(rest)?;
                                fr.ctx.instance_exports(*rt, id)
                            }
                        });
                    }
                    if let Some(sw) = name.strip_prefix("switch.") {
                        let id = *fr.module.switch_ids.get(sw)?;
                        return Some(fr.ctx.switch_value(*rt, id));
                    }
                    return None;
                }
            }
            f = fr.parent;
        }
        None
    }
}

impl Invoke for Frame<'_> {
    fn invoke(&self, name: &str, args: Value) -> Result<Value, String> {
        self.ctx.invoke_in(self.module, name, args)
    }
}

// ---------------------------------------------------------------------
// req
// ---------------------------------------------------------------------

/// Keys of the objects built for every resource (`self`, `each`): shared,
/// so building those objects allocates no key.
static COMMON_KEYS: std::sync::LazyLock<[Key; 8]> = std::sync::LazyLock::new(|| {
    [
        "name",
        "resource",
        "connection",
        "key",
        "value",
        "basename",
        "resources",
        "connections",
    ]
    .map(Key::from)
});

fn key(s: &str) -> Key {
    match COMMON_KEYS.iter().find(|k| &***k == s) {
        Some(k) => k.clone(),
        None => Key::from(s),
    }
}

fn obj<'k>(items: impl IntoIterator<Item = (&'k str, Value)>) -> Value {
    Value::object(items.into_iter().map(|(k, v)| (key(k), v)).collect())
}

/// A string annotation of an object body.
fn annotation(body: &Value, name: &str) -> Option<String> {
    body.as_entries()?
        .get("metadata")?
        .as_entries()?
        .get("annotations")?
        .as_entries()?
        .get(name)?
        .as_str()
        .map(str::to_owned)
}

/// The body without `metadata.managedFields`.
fn clean(body: &Value) -> Value {
    let Some(top) = body.as_entries() else {
        return body.clone();
    };
    let Some(meta) = top.get("metadata").and_then(Value::as_entries) else {
        return body.clone();
    };
    if !meta.contains_key("managedFields") {
        return body.clone();
    }
    let mut meta = meta.clone();
    meta.remove("managedFields");
    let mut top = top.clone();
    top.insert(key("metadata"), Value::object(meta));
    Value::object(top)
}

/// Connection details as an object of base64 strings; null when empty.
fn connection_value(details: &BTreeMap<String, Vec<u8>>) -> Value {
    if details.is_empty() {
        return Value::null();
    }
    Value::object(
        details
            .iter()
            .map(|(k, v)| {
                (
                    key(k),
                    Value::string(base64::engine::general_purpose::STANDARD.encode(v)),
                )
            })
            .collect(),
    )
}

fn build_req(r: &Request, members: &HashMap<String, Vec<(String, String)>>) -> Value {
    let context = Value::object(r.context.iter().map(|(k, v)| (key(k), v.clone())).collect());
    let composite = r
        .composite
        .as_ref()
        .map(clean)
        .unwrap_or_else(Value::empty_object);
    let mut resource = BTreeMap::new();
    let mut connection = BTreeMap::new();
    for (name, o) in &r.observed {
        resource.insert(key(name), clean(&o.body));
        connection.insert(key(name), connection_value(&o.connection_details));
    }
    let mut resources = BTreeMap::new();
    let mut connections = BTreeMap::new();
    for (base, list) in members {
        let mut bodies = Vec::new();
        let mut conns = Vec::new();
        for (_, name) in list {
            if let (Some(b), Some(c)) = (resource.get(name.as_str()), connection.get(name.as_str()))
            {
                bodies.push(b.clone());
                conns.push(c.clone());
            }
        }
        resources.insert(key(base), Value::tuple(bodies));
        connections.insert(key(base), Value::tuple(conns));
    }
    let mut extra = BTreeMap::new();
    for (name, items) in &r.extra_resources {
        if let Some(items) = items {
            extra.insert(key(name), Value::tuple(items.iter().map(clean).collect()));
        }
    }
    obj([
        ("context", context),
        ("composite", composite),
        (
            "composite_connection",
            connection_value(&r.composite_connection),
        ),
        ("resource", Value::object(resource)),
        ("connection", Value::object(connection)),
        ("resources", Value::object(resources)),
        ("connections", Value::object(connections)),
        ("extra_resources", Value::object(extra)),
    ])
}

// ---------------------------------------------------------------------
// The walk over blocks
// ---------------------------------------------------------------------

#[derive(Default)]
struct Builder {
    resources: Vec<DesiredResource>,
    /// Index of each emitted resource by name (a fast hash: names are
    /// the program's and the request's, looked up once per resource).
    names: HashMap<String, usize, foldhash::fast::FixedState>,
    status: Vec<(Value, Span)>,
    connection: Vec<(BTreeMap<String, Vec<u8>>, Span)>,
    context: Vec<(Value, Span)>,
    requirements: BTreeMap<String, Selector>,
    discards: Vec<Discard>,
}

impl Builder {
    fn finish(self, program: &Program) -> Res<Output> {
        let status = unify_all(&self.status, "unify composite status", program)?;
        let context = unify_all(&self.context, "unify context", program)?;
        let context = context
            .as_ref()
            .and_then(Value::as_entries)
            .map(|m| m.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
            .unwrap_or_default();
        let mut connection: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut sources: BTreeMap<String, Span> = BTreeMap::new();
        for (c, span) in &self.connection {
            for (k, v) in c {
                match connection.get(k) {
                    Some(old) if old != v => {
                        let mut d = Diagnostic::error(
                            format!("unify composite connection: values for key {k} not equal"),
                            "two blocks set different values at the same place",
                        )
                        .with_span(*span);
                        if let Some(first) = sources.get(k) {
                            d = d.with_label(*first, "first set here");
                        }
                        return Err(vec![d]);
                    }
                    Some(_) => {}
                    None => {
                        connection.insert(k.clone(), v.clone());
                        sources.insert(k.clone(), *span);
                    }
                }
            }
        }
        Ok(Output {
            resources: self.resources,
            composite_status: status,
            composite_connection: connection,
            context,
            requirements: self.requirements,
            discards: self.discards,
            warnings: Vec::new(),
            sources: program.sources.clone(),
        })
    }
}

/// Merges contributions in order; a conflict names both contributions.
fn unify_all(parts: &[(Value, Span)], what: &str, _program: &Program) -> Res<Option<Value>> {
    let mut acc: Option<Value> = None;
    for (i, (v, span)) in parts.iter().enumerate() {
        let Some(old) = acc.as_mut() else {
            acc = Some(v.clone());
            continue;
        };
        if let Err(c) = unify::merge_into(old, v) {
            let mut d = Diagnostic::error(
                format!("{what}: {}", c.message()),
                "two blocks set different values at the same place",
            )
            .with_span(*span);
            if let Some((_, first)) = parts[..i]
                .iter()
                .find(|(p, _)| unify::has_path(p, c.path()))
            {
                d = d.with_label(*first, "conflicting value set here");
            }
            return Err(vec![d]);
        }
    }
    Ok(acc)
}

enum CondResult {
    True,
    False,
    Incomplete(Vec<Diagnostic>),
}

struct Walk<'c> {
    ctx: &'c Ctx<'c>,
    out: Builder,
    /// The module instance being walked and its name prefix.
    rt: usize,
    prefix: Arc<str>,
}

fn has_errors(d: &[Diagnostic]) -> bool {
    d.iter().any(Diagnostic::is_error)
}

fn incomplete(v: &Value, d: &[Diagnostic]) -> bool {
    has_errors(d) || !v.is_wholly_known()
}

impl<'c> Walk<'c> {
    fn range(&self, span: Option<Span>) -> String {
        span.map(|s| self.ctx.program.sources.range_text(s))
            .unwrap_or_else(|| "<nil>".to_owned())
    }

    /// The `unknown values:` list for the traversals of `exprs` (§4.3).
    fn unknown_refs(&self, frame: &Frame<'_>, exprs: &[&Expr]) -> Vec<String> {
        let mut out = Vec::new();
        for e in exprs {
            for t in refs::traversals(e) {
                let (v, _) = frame.eval(t.expr);
                let text = self.ctx.program.sources.slice(t.expr.span).to_owned();
                unknown_paths(&v, &mut text.clone(), &mut out, 0);
                if out.len() >= MAX_UNKNOWN_REFS {
                    out.truncate(MAX_UNKNOWN_REFS);
                    out.push("...".to_owned());
                    return out;
                }
            }
        }
        out
    }

    /// Context lines for a discard or a fatal error: one per error, then the
    /// unknown references.
    fn explain(&self, frame: &Frame<'_>, diags: &[Diagnostic], exprs: &[&Expr]) -> Vec<String> {
        let sources = &self.ctx.program.sources;
        let travs: Vec<Span> = exprs
            .iter()
            .flat_map(|e| refs::traversals(e))
            .map(|t| t.expr.span)
            .collect();
        let mut lines = Vec::new();
        for d in diags.iter().filter(|d| d.is_error()) {
            // As HCL: a failing traversal is shown whole
            // (`self.resource.status.atProvider.arn`), other failing
            // expressions as themselves.
            let within = |s: &Span| {
                d.primary
                    .is_some_and(|p| p.file == s.file && s.start <= p.start && p.end <= s.end)
            };
            let text = travs
                .iter()
                .find(|s| within(s))
                .map(|s| sources.slice(*s).to_owned())
                .or_else(|| d.expr_text.clone())
                .or_else(|| d.context.map(|s| sources.slice(s).to_owned()));
            let rendered = d.to_hcl_string(sources);
            lines.push(match text {
                Some(t) if !t.is_empty() => format!("{t}, {rendered}"),
                _ => rendered,
            });
        }
        let unknown = self.unknown_refs(frame, exprs);
        if !unknown.is_empty() {
            lines.push(format!("unknown values: {}", unknown.join(", ")));
        }
        lines
    }

    fn discard(
        &mut self,
        frame: &Frame<'_>,
        kind: DiscardKind,
        reason: DiscardReason,
        name: &str,
        span: Option<Span>,
        diags: Vec<Diagnostic>,
        exprs: &[&Expr],
    ) {
        let context = if reason == DiscardReason::Incomplete {
            self.explain(frame, &diags, exprs)
        } else {
            Vec::new()
        };
        self.ctx.warn(diags);
        self.out.discards.push(Discard {
            kind,
            reason,
            name: name.to_owned(),
            span,
            range: self.range(span),
            context,
        });
    }

    fn condition(
        &mut self,
        frame: &Frame<'_>,
        cond: &Cond,
        what: impl FnOnce() -> String,
    ) -> Res<CondResult> {
        eval_condition(frame, cond, what)
    }

    fn items(&mut self, frame: &Frame<'_>, items: &[Item]) -> Res<()> {
        for it in items {
            match it {
                Item::Group(g) => guard_stack(|| self.group(frame, g))?,
                Item::Resource(r) => self.resource(frame, r)?,
                Item::Collection(c) => self.collection(frame, c)?,
                Item::Composite(c) => self.composite(frame, c)?,
                Item::Context(c) => self.context(frame, c)?,
                Item::Requirement(r) => self.requirement(frame, r)?,
                Item::Module(i) => guard_stack(|| self.instance(frame, i))?,
                Item::Switch(sw) => guard_stack(|| self.switch(frame, sw))?,
            }
        }
        Ok(())
    }

    fn group(&mut self, parent: &Frame<'_>, g: &Group) -> Res<()> {
        let lf = Frame::locals(parent, &g.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        if let Some(c) = &g.condition {
            match self.condition(frame, c, || {
                "unable to evaluate condition for group".to_owned()
            })? {
                CondResult::True => {}
                CondResult::False => {
                    self.discard(
                        frame,
                        DiscardKind::Group,
                        DiscardReason::UserCondition,
                        "",
                        Some(c.span),
                        Vec::new(),
                        &[],
                    );
                    return Ok(());
                }
                CondResult::Incomplete(diags) => {
                    // D12: never drop observed resources silently.
                    let observed = self.observed_in(&g.names);
                    if let Some(first) = observed.first() {
                        return Err(self.condition_fatal(frame, first, "group", c, diags));
                    }
                    self.discard(
                        frame,
                        DiscardKind::Group,
                        DiscardReason::Incomplete,
                        "",
                        Some(c.span),
                        diags,
                        &[&c.expr],
                    );
                    return Ok(());
                }
            }
        }
        self.items(frame, &g.items)
    }

    /// D12: the condition of a block holding an observed resource is
    /// incomplete.
    fn condition_fatal(
        &self,
        frame: &Frame<'_>,
        resource: &str,
        block: &str,
        c: &Cond,
        diags: Vec<Diagnostic>,
    ) -> Stop {
        let unknown = self.unknown_refs(frame, &[&c.expr]);
        let mut out = vec![
            Diagnostic::error(
                format!(
                    "existing resource {resource} could not be evaluated, abort (unknown values: {})",
                    unknown.join(", ")
                ),
                format!(
                    "the condition of its {block} block is incomplete; dropping the resource would make Crossplane delete it"
                ),
            )
            .with_span(c.expr.span),
        ];
        out.extend(diags.into_iter().filter(Diagnostic::is_error));
        out
    }

    /// D12 / upstream §4.5: the body of an observed resource is incomplete.
    fn body_fatal(
        &self,
        frame: &Frame<'_>,
        resource: &str,
        body: &Expr,
        diags: Vec<Diagnostic>,
    ) -> Stop {
        let unknown = self.unknown_refs(frame, &[body]);
        let mut out = vec![
            Diagnostic::error(
                format!(
                    "existing resource {resource} could not be evaluated, abort (unknown values: {})",
                    unknown.join(", ")
                ),
                "the resource exists in the observed state; dropping it would make Crossplane delete it",
            )
            .with_span(body.span),
        ];
        out.extend(diags.into_iter().filter(Diagnostic::is_error));
        out
    }

    fn resource(&mut self, parent: &Frame<'_>, r: &Resource) -> Res<()> {
        let cname = self.cname(&r.name);
        let name = cname.as_str();
        let is_observed = self.ctx.request.observed.contains_key(name);
        let self_v = obj([
            ("name", Value::string(r.name.as_str())),
            ("resource", self.ctx.observed_body(name)),
            ("connection", self.ctx.observed_connection(name)),
        ]);
        let sf = Frame::named(parent, "self", self_v);
        let lf = Frame::locals(&sf, &r.scope);
        let frame = lf.as_ref().unwrap_or(&sf);
        if let Some(c) = &r.condition {
            let what = || format!("unable to evaluate condition for resource {name}");
            match self.condition(frame, c, what)? {
                CondResult::True => {}
                CondResult::False => {
                    self.discard(
                        frame,
                        DiscardKind::Resource,
                        DiscardReason::UserCondition,
                        name,
                        Some(c.span),
                        Vec::new(),
                        &[],
                    );
                    return Ok(());
                }
                CondResult::Incomplete(diags) => {
                    if is_observed {
                        return Err(self.condition_fatal(frame, name, "resource", c, diags));
                    }
                    self.discard(
                        frame,
                        DiscardKind::Resource,
                        DiscardReason::Incomplete,
                        name,
                        Some(c.span),
                        diags,
                        &[&c.expr],
                    );
                    return Ok(());
                }
            }
        }
        let (body, diags) = frame.eval(&r.body);
        if incomplete(&body, &diags) {
            if is_observed {
                return Err(self.body_fatal(frame, name, &r.body, diags));
            }
            self.discard(
                frame,
                DiscardKind::Resource,
                DiscardReason::Incomplete,
                name,
                Some(r.body.span),
                diags,
                &[&r.body],
            );
            return Ok(());
        }
        self.ctx.warn(diags);
        let body = check_body(&body, name, r.body.span)?;
        let idx = self.emit(name, body, r.header)?;
        self.children(frame, &r.children, name, Some(idx))
    }

    fn emit(&mut self, name: &str, body: Value, span: Span) -> Res<usize> {
        if let Some(&i) = self.out.names.get(name) {
            let first = self.out.resources[i].span;
            return Err(vec![
                Diagnostic::error(
                    format!("duplicate resource \"{name}\""),
                    "two blocks produce a resource with this crossplane name",
                )
                .with_span(span)
                .with_label(first, "first produced here"),
            ]);
        }
        let idx = self.out.resources.len();
        self.out.names.insert(name.to_owned(), idx);
        self.out.resources.push(DesiredResource {
            name: name.to_owned(),
            body,
            ready: None,
            span,
        });
        Ok(idx)
    }

    fn children(
        &mut self,
        frame: &Frame<'_>,
        children: &[Child],
        owner: &str,
        idx: Option<usize>,
    ) -> Res<()> {
        for ch in children {
            match ch {
                Child::Composite(c) => self.composite(frame, c)?,
                Child::Context(c) => self.context(frame, c)?,
                Child::Ready(r) => {
                    if let Some(i) = idx {
                        self.ready(frame, r, owner, i)?;
                    }
                }
            }
        }
        Ok(())
    }

    fn collection(&mut self, parent: &Frame<'_>, c: &Collection) -> Res<()> {
        let cbase = self.cname(&c.base);
        let observed_members = self.ctx.members.get(&cbase);
        let (res, conns) = match observed_members {
            Some(list) => (
                Value::tuple(
                    list.iter()
                        .map(|(_, n)| self.ctx.observed_body(n))
                        .collect(),
                ),
                Value::tuple(
                    list.iter()
                        .map(|(_, n)| self.ctx.observed_connection(n))
                        .collect(),
                ),
            ),
            None => (Value::null(), Value::null()),
        };
        let self_items = vec![
            ("basename", Value::string(c.base.as_str())),
            ("resources", res),
            ("connections", conns),
        ];
        let sf = Frame::named(parent, "self", obj(self_items.clone()));
        let lf = Frame::locals(&sf, &c.scope);
        let frame = lf.as_ref().unwrap_or(&sf);
        if let Some(cond) = &c.condition {
            let what = || {
                format!(
                    "unable to evaluate condition for resource collection {}",
                    c.base
                )
            };
            match self.condition(frame, cond, what)? {
                CondResult::True => {}
                CondResult::False => {
                    self.discard(
                        frame,
                        DiscardKind::Resources,
                        DiscardReason::UserCondition,
                        &cbase,
                        Some(cond.span),
                        Vec::new(),
                        &[],
                    );
                    return Ok(());
                }
                CondResult::Incomplete(diags) => {
                    if let Some((_, first)) = observed_members.and_then(|m| m.first()) {
                        return Err(self.condition_fatal(frame, first, "resources", cond, diags));
                    }
                    self.discard(
                        frame,
                        DiscardKind::Resources,
                        DiscardReason::Incomplete,
                        &cbase,
                        Some(cond.span),
                        diags,
                        &[&cond.expr],
                    );
                    return Ok(());
                }
            }
        }
        let iterations = self.iterations(frame, c)?;
        for (i, (k, v)) in iterations.into_iter().enumerate() {
            let each = obj([("key", k.clone()), ("value", v)]);
            let ef = Frame::named(frame, "each", each);
            let local = self.member_name(&ef, c, &k)?;
            let name = self.cname(&local);
            let is_observed = self.ctx.request.observed.contains_key(&name);
            let mut items = self_items.clone();
            items.push(("name", Value::string(local.as_str())));
            // D13: the member's own observed body and connection details.
            items.push(("resource", self.ctx.observed_body(&name)));
            items.push(("connection", self.ctx.observed_connection(&name)));
            let tf = Frame::named(&ef, "self", obj(items));
            let tl = Frame::locals(&tf, &c.template.scope);
            let tframe = tl.as_ref().unwrap_or(&tf);
            let body_expr = &c.template.body;
            let (body, diags) = tframe.eval(body_expr);
            if incomplete(&body, &diags) {
                if is_observed {
                    return Err(self.body_fatal(tframe, &name, body_expr, diags));
                }
                self.discard(
                    tframe,
                    DiscardKind::Resource,
                    DiscardReason::Incomplete,
                    &name,
                    Some(body_expr.span),
                    diags,
                    &[body_expr],
                );
                continue;
            }
            self.ctx.warn(diags);
            let body = check_body(&body, &name, body_expr.span)?;
            let body = add_collection_annotations(&body, &cbase, i).map_err(|m| {
                vec![
                    Diagnostic::error(
                        format!("unable to convert resource body to struct: {name}"),
                        m,
                    )
                    .with_span(body_expr.span),
                ]
            })?;
            let idx = self.emit(&name, body, c.template.header)?;
            self.children(tframe, &c.template.children, &name, Some(idx))?;
        }
        self.children(frame, &c.children, &cbase, None)
    }

    /// The `(each.key, each.value)` pairs of `for_each` (D7 order).
    fn iterations(&mut self, frame: &Frame<'_>, c: &Collection) -> Res<Vec<(Value, Value)>> {
        let (v, diags) = frame.eval(&c.for_each);
        if has_errors(&diags) {
            let mut out = vec![
                Diagnostic::error(
                    format!("unable to evaluate for_each for resource collection {}", c.base),
                    "for_each must be known when the block is evaluated; wrap uncertain data in try(..., [])",
                )
                .with_span(c.for_each.span),
            ];
            out.extend(diags.into_iter().filter(Diagnostic::is_error));
            return Err(out);
        }
        self.ctx.warn(diags);
        let fail = |detail: String| {
            vec![
                Diagnostic::error(
                    format!(
                        "unable to extract iterations for resource collection {}",
                        c.base
                    ),
                    detail,
                )
                .with_span(c.for_each.span),
            ]
        };
        if !v.is_known() {
            let unknown = self.unknown_refs(frame, &[&c.for_each]);
            return Err(fail(format!(
                "for_each is unknown (unknown values: {})",
                unknown.join(", ")
            )));
        }
        let u = v.unmarked();
        let pairs: Vec<(Value, Value)> = match u {
            Value::Null(_) => return Err(fail("for_each is null".to_owned())),
            Value::List(_) | Value::Tuple(_) => u
                .as_seq()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, x)| (Value::Number(Number::from_u64(i as u64)), x.clone()))
                .collect(),
            Value::Set(_) => u
                .as_seq()
                .unwrap_or_default()
                .iter()
                .map(|x| (x.clone(), x.clone()))
                .collect(),
            Value::Map(_) | Value::Object(_) => u
                .as_entries()
                .map(|m| {
                    m.iter()
                        .map(|(k, x)| (Value::string(k.clone()), x.clone()))
                        .collect()
                })
                .unwrap_or_default(),
            other => {
                return Err(fail(format!(
                    "for_each must be a list, tuple, set, map or object, got {}",
                    type_name(other)
                )));
            }
        };
        if pairs.len() > MAX_COLLECTION_SIZE {
            return Err(fail(format!(
                "for_each has {} elements, more than the limit of {MAX_COLLECTION_SIZE}",
                pairs.len()
            )));
        }
        Ok(pairs)
    }

    fn member_name(&mut self, frame: &Frame<'_>, c: &Collection, k: &Value) -> Res<String> {
        let Some(name_expr) = &c.name else {
            // The default `"${self.basename}-${each.key}"`.
            return match key_string(k) {
                Some(s) => Ok(format!("{}-{s}", c.base)),
                None => Err(vec![
                    Diagnostic::error(
                        format!(
                            "unable to evaluate default name expression for resource collection {}",
                            c.base
                        ),
                        format!(
                            "each.key has type {}, which cannot be used in the default name \"${{self.basename}}-${{each.key}}\"; set name explicitly",
                            type_name(k)
                        ),
                    )
                    .with_span(c.header),
                ]),
            };
        };
        let (v, diags) = frame.eval(name_expr);
        if has_errors(&diags) {
            let detail = diags
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.to_hcl_string(&self.ctx.program.sources))
                .unwrap_or_default();
            let mut out = vec![
                Diagnostic::error(
                    format!(
                        "unable to evaluate name expression for resource collection {}",
                        c.base
                    ),
                    detail,
                )
                .with_span(name_expr.span),
            ];
            out.extend(diags.into_iter().filter(Diagnostic::is_error));
            return Err(out);
        }
        self.ctx.warn(diags);
        if !v.is_known() {
            // D14 (upstream panics here).
            let unknown = self.unknown_refs(frame, &[name_expr]);
            return Err(vec![
                Diagnostic::error(
                    format!(
                        "name expression for resource collection {} is unknown",
                        c.base
                    ),
                    format!("unknown values: {}", unknown.join(", ")),
                )
                .with_span(name_expr.span),
            ]);
        }
        match v.as_str() {
            Some(s) => Ok(s.to_owned()),
            None => Err(vec![
                Diagnostic::error(
                    format!(
                        "name produced from evaluating the name expression for collection {} was not a string",
                        c.base
                    ),
                    format!("got {}", type_name(&v)),
                )
                .with_span(name_expr.span),
            ]),
        }
    }

    fn composite(&mut self, parent: &Frame<'_>, c: &Composite) -> Res<()> {
        let lf = Frame::locals(parent, &c.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        let kind = match c.kind {
            CompositeKind::Status => DiscardKind::CompositeStatus,
            CompositeKind::Connection => DiscardKind::CompositeConnection,
        };
        let (v, diags) = frame.eval(&c.body);
        if incomplete(&v, &diags) {
            self.discard(
                frame,
                kind,
                DiscardReason::Incomplete,
                "",
                Some(c.body.span),
                diags,
                &[&c.body],
            );
            return Ok(());
        }
        self.ctx.warn(diags);
        if v.is_null() {
            return Ok(());
        }
        let Some(entries) = v.as_entries() else {
            let what = match c.kind {
                CompositeKind::Status => "composite status",
                CompositeKind::Connection => "composite connection",
            };
            return Err(vec![
                Diagnostic::error(
                    format!("{what} body must be an object"),
                    format!("got {}", type_name(&v)),
                )
                .with_span(c.body.span),
            ]);
        };
        match c.kind {
            CompositeKind::Status => {
                self.out.status.push((v.clone(), c.body.span));
                Ok(())
            }
            CompositeKind::Connection => {
                let mut errors = Vec::new();
                for (k, val) in entries {
                    if val.as_str().is_none() {
                        errors.push(
                            Diagnostic::error(
                                format!(
                                    "connection key \"{k}\" was not a string, got {}",
                                    type_name(val)
                                ),
                                "connection detail values must be base64-encoded strings",
                            )
                            .with_span(c.body.span),
                        );
                    }
                }
                if !errors.is_empty() {
                    return Err(errors);
                }
                let mut decoded = BTreeMap::new();
                let mut bad = false;
                for (k, val) in entries {
                    let s = val.as_str().unwrap_or_default();
                    match decode_base64(s) {
                        Some(bytes) => {
                            decoded.insert(k.to_string(), bytes);
                        }
                        None => {
                            bad = true;
                            let msg = format!("connection secret key \"{k}\" not in base64 format");
                            self.ctx.warn([
                                Diagnostic::warning(msg.clone(), "").with_span(c.body.span)
                            ]);
                            self.out.discards.push(Discard {
                                kind,
                                reason: DiscardReason::BadSecret,
                                name: k.to_string(),
                                span: Some(c.body.span),
                                range: self.range(Some(c.body.span)),
                                context: vec![msg],
                            });
                        }
                    }
                }
                if !bad {
                    self.out.connection.push((decoded, c.body.span));
                }
                Ok(())
            }
        }
    }

    fn context(&mut self, parent: &Frame<'_>, c: &ContextBlock) -> Res<()> {
        let lf = Frame::locals(parent, &c.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        let (k, diags) = frame.eval(&c.key);
        if has_errors(&diags) {
            let first = diags.iter().find(|d| d.is_error());
            let detail = first
                .map(|d| d.to_hcl_string(&self.ctx.program.sources))
                .unwrap_or_default();
            let mut out = vec![
                Diagnostic::error("unable to evaluate context key", detail).with_span(c.key.span),
            ];
            out.extend(diags.into_iter().filter(Diagnostic::is_error));
            return Err(out);
        }
        self.ctx.warn(diags);
        if !k.is_wholly_known() {
            let unknown = self.unknown_refs(frame, &[&c.key]);
            return Err(vec![
                Diagnostic::error(
                    "context key is unknown",
                    format!("unknown values: {}", unknown.join(", ")),
                )
                .with_span(c.key.span),
            ]);
        }
        let Some(key_str) = k.as_str() else {
            return Err(vec![
                Diagnostic::error(
                    format!("context key was not a string, got {}", type_name(&k)),
                    "",
                )
                .with_span(c.key.span),
            ]);
        };
        let (v, diags) = frame.eval(&c.value);
        if incomplete(&v, &diags) {
            self.discard(
                frame,
                DiscardKind::Context,
                DiscardReason::Incomplete,
                "",
                Some(c.value.span),
                diags,
                &[&c.value],
            );
            return Ok(());
        }
        self.ctx.warn(diags);
        self.out.context.push((obj([(key_str, v)]), c.value.span));
        Ok(())
    }

    fn ready(&mut self, parent: &Frame<'_>, r: &Ready, owner: &str, idx: usize) -> Res<()> {
        let lf = Frame::locals(parent, &r.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        let (v, diags) = frame.eval(&r.value);
        if incomplete(&v, &diags) {
            self.discard(
                frame,
                DiscardKind::ResourceReady,
                DiscardReason::Incomplete,
                owner,
                Some(r.value.span),
                diags,
                &[&r.value],
            );
            return Ok(());
        }
        self.ctx.warn(diags);
        let state = ready_state(&v, owner, r.value.span).map_err(|d| vec![d])?;
        self.out.resources[idx].ready = Some(state);
        Ok(())
    }

    fn requirement(&mut self, parent: &Frame<'_>, r: &Requirement) -> Res<()> {
        let rname = self.cname(&r.name);
        let lf = Frame::locals(parent, &r.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        if let Some(c) = &r.condition {
            let what = || format!("unable to evaluate condition for requirement {rname}");
            match self.condition(frame, c, what)? {
                CondResult::True => {}
                CondResult::False => {
                    self.discard(
                        frame,
                        DiscardKind::Requirement,
                        DiscardReason::UserCondition,
                        &rname,
                        Some(c.span),
                        Vec::new(),
                        &[],
                    );
                    return Ok(());
                }
                CondResult::Incomplete(diags) => {
                    self.discard(
                        frame,
                        DiscardKind::Requirement,
                        DiscardReason::Incomplete,
                        &rname,
                        Some(c.span),
                        diags,
                        &[&c.expr],
                    );
                    return Ok(());
                }
            }
        }
        let s = &r.select;
        let mut fields: Vec<(SelectField, &Expr)> = vec![
            (SelectField::ApiVersion, &s.api_version),
            (SelectField::Kind, &s.kind),
        ];
        if let Some(e) = &s.match_name {
            fields.push((SelectField::MatchName, e));
        }
        if let Some(e) = &s.match_labels {
            fields.push((SelectField::MatchLabels, e));
        }
        let mut values = Vec::new();
        let mut all_diags = Vec::new();
        let mut is_incomplete = false;
        for (f, e) in &fields {
            let (v, diags) = frame.eval(e);
            is_incomplete |= incomplete(&v, &diags);
            all_diags.extend(diags);
            values.push((*f, v, e.span));
        }
        if is_incomplete {
            // D16: the requirement is omitted entirely.
            let exprs: Vec<&Expr> = fields.iter().map(|(_, e)| *e).collect();
            self.discard(
                frame,
                DiscardKind::Requirement,
                DiscardReason::Incomplete,
                &rname,
                Some(s.header),
                all_diags,
                &exprs,
            );
            return Ok(());
        }
        self.ctx.warn(all_diags);
        let mut api_version = String::new();
        let mut kind = String::new();
        let mut matches = None;
        for (f, v, span) in values {
            check_select_value(f, &v, &rname, span).map_err(|d| vec![d])?;
            match f {
                SelectField::ApiVersion => api_version = v.as_str().unwrap_or_default().to_owned(),
                SelectField::Kind => kind = v.as_str().unwrap_or_default().to_owned(),
                SelectField::MatchName => {
                    matches = Some(SelectorMatch::Name(
                        v.as_str().unwrap_or_default().to_owned(),
                    ));
                }
                SelectField::MatchLabels => {
                    let labels = v
                        .as_entries()
                        .map(|m| {
                            m.iter()
                                .map(|(k, x)| {
                                    (k.to_string(), x.as_str().unwrap_or_default().to_owned())
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    matches = Some(SelectorMatch::Labels(labels));
                }
            }
        }
        let Some(matches) = matches else {
            return Ok(());
        };
        self.out.requirements.insert(
            rname.clone(),
            Selector {
                api_version,
                kind,
                matches,
            },
        );
        Ok(())
    }
}

/// Evaluates a `condition` attribute.
fn eval_condition(
    frame: &Frame<'_>,
    cond: &Cond,
    what: impl FnOnce() -> String,
) -> Res<CondResult> {
    let (v, diags) = frame.eval(&cond.expr);
    if incomplete(&v, &diags) {
        return Ok(CondResult::Incomplete(diags));
    }
    frame.ctx.warn(diags);
    match v.unmarked() {
        Value::Bool(true) => Ok(CondResult::True),
        Value::Bool(false) => Ok(CondResult::False),
        Value::Null(Type::Bool) => Ok(CondResult::False),
        other => Err(vec![
            Diagnostic::error(
                what(),
                format!("the condition must be a bool, got {}", type_name(other)),
            )
            .with_span(cond.expr.span),
        ]),
    }
}

/// A resource body must be a (known) object.
fn check_body(v: &Value, name: &str, span: Span) -> Res<Value> {
    if v.as_entries().is_some() {
        return Ok(v.clone());
    }
    Err(vec![
        Diagnostic::error(
            format!("unable to convert resource body to struct: {name}"),
            format!("the body must be an object, got {}", type_name(v)),
        )
        .with_span(span),
    ])
}

/// Adds the collection annotations to a member's body (upstream §5.1).
fn add_collection_annotations(body: &Value, base: &str, index: usize) -> Result<Value, String> {
    let top = body.as_entries().cloned().unwrap_or_default();
    let mut meta = match top.get("metadata") {
        None => BTreeMap::new(),
        Some(m) if m.is_null() => BTreeMap::new(),
        Some(m) => match m.as_entries() {
            Some(e) => e.clone(),
            None => {
                return Err(format!(
                    "expected metadata to be an object, got {}",
                    type_name(m)
                ));
            }
        },
    };
    let mut ann = match meta.get("annotations") {
        None => BTreeMap::new(),
        Some(a) if a.is_null() => BTreeMap::new(),
        Some(a) => match a.as_entries() {
            Some(e) => e.clone(),
            None => {
                return Err(format!(
                    "expected metadata.annotations to be an object, got {}",
                    type_name(a)
                ));
            }
        },
    };
    ann.insert(key(COLLECTION_BASE_NAME_ANNOTATION), Value::string(base));
    ann.insert(
        key(COLLECTION_INDEX_ANNOTATION),
        Value::string(format!("s{index:06}")),
    );
    meta.insert(key("annotations"), Value::object(ann));
    let mut top = top;
    top.insert(key("metadata"), Value::object(meta));
    Ok(Value::object(top))
}

/// `each.key` in a template string (`tostring` semantics).
fn key_string(k: &Value) -> Option<String> {
    match k.unmarked() {
        Value::String(s) => Some(s.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Standard padded base64; `\r` and `\n` are ignored (as Go's decoder).
fn decode_base64(s: &str) -> Option<Vec<u8>> {
    let cleaned: String = s.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    base64::engine::general_purpose::STANDARD
        .decode(cleaned.as_bytes())
        .ok()
}

/// Collects `<prefix><path>` for every unknown inside `v` (§4.3).
fn unknown_paths(v: &Value, prefix: &mut String, out: &mut Vec<String>, depth: usize) {
    if out.len() >= MAX_UNKNOWN_REFS || depth > 64 {
        return;
    }
    let v = v.unmarked();
    if !v.is_known() {
        out.push(prefix.clone());
        return;
    }
    let len = prefix.len();
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter() {
                prefix.push('.');
                prefix.push_str(k);
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        Value::Map(m) => {
            for (k, x) in &m.items {
                prefix.push_str(&format!("[{k}]"));
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        Value::List(_) | Value::Tuple(_) => {
            for (i, x) in v.as_seq().unwrap_or_default().iter().enumerate() {
                prefix.push_str(&format!("[{i}]"));
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        Value::Set(c) => {
            for x in &c.items {
                prefix.push_str("<?>");
                unknown_paths(x, prefix, out, depth + 1);
                prefix.truncate(len);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------
// Modules and switches (D24-D31)
// ---------------------------------------------------------------------

fn cycle_diag(what: String) -> Diagnostic {
    Diagnostic::error(
        format!("cycle found: {what} depends on itself"),
        "a module instance's parameters or a switch's conditions read a value that needs them",
    )
}

impl<'p> Ctx<'p> {
    fn module_of(&self, rt: usize) -> &'p Module {
        let m = self.insts.borrow().get(rt).map_or(0, |s| s.module);
        &self.program.modules[m]
    }

    fn prefix_of(&self, rt: usize) -> Arc<str> {
        self.insts
            .borrow()
            .get(rt)
            .map_or_else(|| Arc::from(""), |s| s.prefix.clone())
    }

    /// The instance declaration `decl` of the module of instance `parent`.
    fn declaration(&self, parent: usize, decl: usize) -> Option<&'p Instance> {
        let pm = self.module_of(parent);
        let (path, idx) = pm.instances.get(decl)?;
        match items_at(&pm.items, path)?.get(*idx)? {
            Item::Module(i) => Some(i),
            _ => None,
        }
    }

    /// The switch `id` of the module of instance `rt`, with its path.
    fn switch_decl(&self, rt: usize, id: usize) -> Option<(&'p [PathStep], &'p Switch)> {
        let m = self.module_of(rt);
        let (path, idx) = m.switches.get(id)?;
        match items_at(&m.items, path)?.get(*idx)? {
            Item::Switch(sw) => Some((path.as_slice(), sw)),
            _ => None,
        }
    }

    /// The instance for declaration `decl` inside instance `parent`.
    fn child(&self, parent: usize, decl: usize) -> Option<usize> {
        if let Some(&c) = self.inst_keys.borrow().get(&(parent, decl)) {
            return Some(c);
        }
        let inst = self.declaration(parent, decl)?;
        let prefix: Arc<str> = format!("{}{}-", self.prefix_of(parent), inst.name).into();
        let mut insts = self.insts.borrow_mut();
        let id = insts.len();
        insts.push(InstState {
            module: inst.module,
            prefix,
            parent,
            decl,
            status: Slot::Empty,
            req: None,
            exports: Slot::Empty,
            export_values: HashMap::new(),
        });
        drop(insts);
        self.inst_keys.borrow_mut().insert((parent, decl), id);
        Some(id)
    }

    /// `req` as instance `rt` sees it: observed resources, collections and
    /// extra resources under their module-local names (D28).
    fn req_of(&self, rt: usize) -> Value {
        // The root program sees `req` itself (the common case, read for
        // every `req` reference: no memo lookup).
        if rt == 0 {
            return self.req.clone();
        }
        if let Some(v) = self.insts.borrow().get(rt).and_then(|s| s.req.clone()) {
            return v;
        }
        let prefix = self.prefix_of(rt);
        let Some(top) = self.req.as_entries() else {
            return self.req.clone();
        };
        let mut out = top.clone();
        for field in [
            "resource",
            "connection",
            "resources",
            "connections",
            "extra_resources",
        ] {
            let Some(entries) = top.get(field).and_then(Value::as_entries) else {
                continue;
            };
            let local: BTreeMap<Key, Value> = entries
                .iter()
                .filter_map(|(k, v)| {
                    k.strip_prefix(&*prefix)
                        .filter(|rest| !rest.is_empty())
                        .map(|rest| (key(rest), v.clone()))
                })
                .collect();
            out.insert(key(field), Value::object(local));
        }
        let v = Value::object(out);
        if let Some(s) = self.insts.borrow_mut().get_mut(rt) {
            s.req = Some(v.clone());
        }
        v
    }

    fn set_status(&self, rt: usize, slot: Slot<Status>) {
        if let Some(s) = self.insts.borrow_mut().get_mut(rt) {
            s.status = slot;
        }
    }

    fn status_slot(&self, rt: usize) -> Slot<Status> {
        self.insts
            .borrow()
            .get(rt)
            .map_or(Slot::Empty, |s| s.status.clone())
    }

    /// Whether instance `rt` is evaluated, computed with the frame of the
    /// place that declares it (the walk's own frame).
    fn status_at(&self, rt: usize, inst: &Instance, frame: &Frame<'_>) -> Status {
        match self.status_slot(rt) {
            Slot::Done(s) => return s,
            Slot::Busy => {
                return Status::Incomplete(vec![cycle_diag(format!(
                    "module instance {}",
                    inst.name
                ))]);
            }
            Slot::Empty => {}
        }
        self.set_status(rt, Slot::Busy);
        let s = self.eval_instance(inst, frame);
        self.set_status(rt, Slot::Done(s.clone()));
        s
    }

    /// Whether instance `rt` is evaluated, from anywhere: rebuilds the
    /// frames of the place that declares it.
    fn status(&self, rt: usize) -> Status {
        match self.status_slot(rt) {
            Slot::Done(s) => return s,
            Slot::Busy => return Status::Incomplete(Vec::new()),
            Slot::Empty => {}
        }
        let (parent, decl) = {
            let insts = self.insts.borrow();
            match insts.get(rt) {
                Some(s) => (s.parent, s.decl),
                None => return Status::Incomplete(Vec::new()),
            }
        };
        let Some(inst) = self.declaration(parent, decl) else {
            return Status::Incomplete(Vec::new());
        };
        let path = &self.module_of(parent).instances[decl].0;
        self.set_status(rt, Slot::Busy);
        let s = match self.with_site(parent, path, &mut |frame| self.eval_instance(inst, frame)) {
            Site::Reached(s) => s,
            Site::Off => Status::Off,
            Site::Incomplete => Status::Incomplete(Vec::new()),
        };
        self.set_status(rt, Slot::Done(s.clone()));
        s
    }

    /// The condition and parameters of an instance (D26, D27).
    fn eval_instance(&self, inst: &Instance, frame: &Frame<'_>) -> Status {
        if let Some(c) = &inst.condition {
            let what = || {
                format!(
                    "unable to evaluate condition for module instance {}",
                    inst.name
                )
            };
            match eval_condition(frame, c, what) {
                Err(d) => return Status::Failed(d),
                Ok(CondResult::True) => {}
                Ok(CondResult::False) => return Status::Off,
                Ok(CondResult::Incomplete(d)) => return Status::Incomplete(d),
            }
        }
        let callee = &self.program.modules[inst.module];
        let mut vals: BTreeMap<Key, Value> = BTreeMap::new();
        match &inst.params {
            Params::Named(list) => {
                for (n, e) in list {
                    // Like locals: errors make the value unknown and
                    // become warnings.
                    let (v, d) = frame.eval(e);
                    self.warn(d);
                    vals.insert(n.clone(), v);
                }
            }
            Params::Object(e) => {
                let (v, d) = frame.eval(e);
                self.warn(d);
                let fail = |summary: String, detail: String| {
                    Status::Failed(vec![Diagnostic::error(summary, detail).with_span(e.span)])
                };
                if !v.is_known() {
                    for p in &callee.params {
                        vals.insert(p.name.clone(), Value::dynamic_unknown());
                    }
                } else if v.is_null() {
                    return fail(
                        format!("module instance {}: params is null", inst.name),
                        "params must be an object of parameter values".to_owned(),
                    );
                } else {
                    let Some(entries) = v.unmarked().as_entries() else {
                        return fail(
                            format!("module instance {}: params is not an object", inst.name),
                            format!("got {}", type_name(&v)),
                        );
                    };
                    for (k, x) in entries {
                        if !callee.params.iter().any(|p| p.name == *k) {
                            let mut detail =
                                format!("module \"{}\" declares no parameter \"{k}\"", callee.dir);
                            if let Some(s) =
                                crate::schema::suggest(k, callee.params.iter().map(|p| &*p.name))
                            {
                                detail.push_str(&format!("; did you mean \"{s}\"?"));
                            }
                            return fail(
                                format!(
                                    "module instance \"{}\": unknown parameter \"{k}\"",
                                    inst.name
                                ),
                                detail,
                            );
                        }
                        vals.insert(k.clone(), x.clone());
                    }
                }
            }
        }
        for p in &callee.params {
            if vals.contains_key(&p.name) {
                continue;
            }
            match &p.default {
                Some(d) => {
                    vals.insert(p.name.clone(), d.clone());
                }
                None => {
                    return Status::Failed(vec![
                        Diagnostic::error(
                            format!(
                                "module instance \"{}\": missing required parameter \"{}\"",
                                inst.name, p.name
                            ),
                            format!(
                                "module \"{}\" declares param \"{}\" without a default",
                                callee.dir, p.name
                            ),
                        )
                        .with_span(inst.header),
                    ]);
                }
            }
        }
        Status::Active(Value::object(vals))
    }

    /// Runs `f` with the frame of the place `path` leads to inside instance
    /// `rt` (group locals and conditions, switch branches on the way).
    fn with_site<R>(
        &self,
        rt: usize,
        path: &[PathStep],
        f: &mut dyn FnMut(&Frame<'_>) -> R,
    ) -> Site<R> {
        let params = match self.status(rt) {
            Status::Active(p) => p,
            Status::Off => return Site::Off,
            Status::Incomplete(_) | Status::Failed(_) => return Site::Incomplete,
        };
        let module = self.module_of(rt);
        let base = Frame::instance(self, module, rt, params);
        let top = Frame::locals(&base, &module.top);
        let frame = top.as_ref().unwrap_or(&base);
        guard_stack(|| self.descend(rt, frame, &module.items, path, f))
    }

    fn descend<R>(
        &self,
        rt: usize,
        frame: &Frame<'_>,
        items: &'p [Item],
        path: &[PathStep],
        f: &mut dyn FnMut(&Frame<'_>) -> R,
    ) -> Site<R> {
        let Some((step, rest)) = path.split_first() else {
            return Site::Reached(f(frame));
        };
        match *step {
            PathStep::Group(i) => {
                let Some(Item::Group(g)) = items.get(i) else {
                    return Site::Incomplete;
                };
                let lf = Frame::locals(frame, &g.scope);
                let gf = lf.as_ref().unwrap_or(frame);
                if let Some(c) = &g.condition {
                    match eval_condition(gf, c, String::new) {
                        Ok(CondResult::True) => {}
                        Ok(CondResult::False) => return Site::Off,
                        _ => return Site::Incomplete,
                    }
                }
                guard_stack(|| self.descend(rt, gf, &g.items, rest, f))
            }
            PathStep::Case(i, ci) => {
                let Some(Item::Switch(sw)) = items.get(i) else {
                    return Site::Incomplete;
                };
                match self.choice_at(rt, sw, frame) {
                    Choice::Case(c) if c == ci => {
                        let case = &sw.cases[ci];
                        let lf = Frame::locals(frame, &case.scope);
                        let cf = lf.as_ref().unwrap_or(frame);
                        guard_stack(|| self.descend(rt, cf, &case.items, rest, f))
                    }
                    Choice::Case(_) | Choice::NoCase => Site::Off,
                    Choice::Incomplete(..) | Choice::Failed(_) => Site::Incomplete,
                }
            }
        }
    }

    /// The branch switch `sw` of instance `rt` takes; `frame` is the frame
    /// enclosing the switch.
    fn choice_at(&self, rt: usize, sw: &Switch, frame: &Frame<'_>) -> Choice {
        let k = (rt, sw.id);
        match self.choices.borrow().get(&k) {
            Some(Slot::Done(c)) => return c.clone(),
            Some(Slot::Busy) => {
                return Choice::Incomplete(0, vec![cycle_diag(format!("switch {}", sw.name))]);
            }
            _ => {}
        }
        self.choices.borrow_mut().insert(k, Slot::Busy);
        let mut choice = Choice::NoCase;
        for (i, c) in sw.cases.iter().enumerate() {
            let Some(cond) = &c.condition else {
                choice = Choice::Case(i);
                break;
            };
            let what = || {
                format!(
                    "unable to evaluate condition for case {} of switch {}",
                    c.name, sw.name
                )
            };
            match eval_condition(frame, cond, what) {
                Err(d) => {
                    choice = Choice::Failed(d);
                    break;
                }
                Ok(CondResult::True) => {
                    choice = Choice::Case(i);
                    break;
                }
                Ok(CondResult::False) => {}
                Ok(CondResult::Incomplete(d)) => {
                    choice = Choice::Incomplete(i, d);
                    break;
                }
            }
        }
        self.choices
            .borrow_mut()
            .insert(k, Slot::Done(choice.clone()));
        choice
    }

    /// Evaluates exports in `frame` (errors become warnings and the value
    /// unknown, as for locals); resource exports are observed bodies.
    fn eval_exports(
        &self,
        exports: &[crate::compile::Export],
        frame: &Frame<'_>,
        prefix: &str,
        only: Option<&str>,
    ) -> BTreeMap<Key, Value> {
        let mut out = BTreeMap::new();
        for e in exports {
            if only.is_some_and(|o| o != &*e.name) {
                continue;
            }
            let v = match &e.value {
                ExportValue::Expr(x) => {
                    let (v, d) = frame.eval(x);
                    self.warn(d);
                    v
                }
                ExportValue::Resource(local) => {
                    let cname = format!("{prefix}{local}");
                    if self.request.observed.contains_key(&cname) {
                        self.observed_body(&cname)
                    } else {
                        // Not observed yet: readers defer (D29).
                        Value::dynamic_unknown()
                    }
                }
            };
            out.insert(e.name.clone(), v);
        }
        out
    }

    /// `f` evaluated in the top frame of instance `rt` (its parameters and
    /// locals); null when the instance is not evaluated, unknown while
    /// that is not known.
    fn in_instance(
        &self,
        rt: usize,
        f: impl FnOnce(&'p Module, &Frame<'_>, &str) -> Value,
    ) -> Value {
        match guard_stack(|| self.status(rt)) {
            Status::Active(params) => {
                let module = self.module_of(rt);
                let prefix = self.prefix_of(rt);
                let base = Frame::instance(self, module, rt, params);
                let top = Frame::locals(&base, &module.top);
                f(module, top.as_ref().unwrap_or(&base), &prefix)
            }
            Status::Off => Value::null(),
            Status::Incomplete(_) | Status::Failed(_) => Value::dynamic_unknown(),
        }
    }

    /// `module.<instance>.<export>`: one export, evaluated on its own.
    fn instance_export(&self, parent: usize, decl: usize, export: &str) -> Value {
        let Some(rt) = self.child(parent, decl) else {
            return Value::dynamic_unknown();
        };
        let slot = self
            .insts
            .borrow()
            .get(rt)
            .and_then(|s| s.export_values.get(export).cloned())
            .unwrap_or(Slot::Empty);
        match slot {
            Slot::Done(v) => return v,
            Slot::Busy => {
                if let Some(inst) = self.declaration(parent, decl) {
                    self.warn([cycle_diag(format!(
                        "export {export} of module instance {}",
                        inst.name
                    ))
                    .with_span(inst.header)]);
                }
                return Value::dynamic_unknown();
            }
            Slot::Empty => {}
        }
        let set = |slot: Slot<Value>| {
            if let Some(s) = self.insts.borrow_mut().get_mut(rt) {
                s.export_values.insert(export.into(), slot);
            }
        };
        set(Slot::Busy);
        let v = self.in_instance(rt, |module, frame, prefix| {
            self.eval_exports(&module.exports, frame, prefix, Some(export))
                .into_values()
                .next()
                .unwrap_or_else(Value::dynamic_unknown)
        });
        set(Slot::Done(v.clone()));
        v
    }

    /// `module.<instance>`: the exports of declaration `decl` inside
    /// instance `parent`; null when the instance is not evaluated,
    /// unknown while that is not known.
    fn instance_exports(&self, parent: usize, decl: usize) -> Value {
        let Some(rt) = self.child(parent, decl) else {
            return Value::dynamic_unknown();
        };
        let slot = self
            .insts
            .borrow()
            .get(rt)
            .map_or(Slot::Empty, |s| s.exports.clone());
        match slot {
            Slot::Done(v) => return v,
            Slot::Busy => {
                if let Some(inst) = self.declaration(parent, decl) {
                    self.warn([
                        cycle_diag(format!("module instance {}", inst.name)).with_span(inst.header)
                    ]);
                }
                return Value::dynamic_unknown();
            }
            Slot::Empty => {}
        }
        let set = |slot: Slot<Value>| {
            if let Some(s) = self.insts.borrow_mut().get_mut(rt) {
                s.exports = slot;
            }
        };
        set(Slot::Busy);
        let v = self.in_instance(rt, |module, frame, prefix| {
            Value::object(self.eval_exports(&module.exports, frame, prefix, None))
        });
        set(Slot::Done(v.clone()));
        v
    }

    /// `switch.<name>` of instance `rt` (D30): `evaluated`, `branches`,
    /// `case.<name>.evaluated` and the chosen branch's exports.
    fn switch_value(&self, rt: usize, id: usize) -> Value {
        let k = (rt, id);
        match self.switch_values.borrow().get(&k) {
            Some(Slot::Done(v)) => return v.clone(),
            Some(Slot::Busy) => return Value::dynamic_unknown(),
            _ => {}
        }
        let Some((path, sw)) = self.switch_decl(rt, id) else {
            return Value::dynamic_unknown();
        };
        self.switch_values.borrow_mut().insert(k, Slot::Busy);
        let prefix = self.prefix_of(rt);
        let reached = guard_stack(|| {
            self.with_site(rt, path, &mut |frame| match self.choice_at(rt, sw, frame) {
                Choice::Case(ci) => {
                    let case: &Case = &sw.cases[ci];
                    let lf = Frame::locals(frame, &case.scope);
                    let cf = lf.as_ref().unwrap_or(frame);
                    Some((
                        Some(ci),
                        self.eval_exports(&case.exports, cf, &prefix, None),
                    ))
                }
                Choice::NoCase => Some((None, BTreeMap::new())),
                Choice::Incomplete(..) | Choice::Failed(_) => None,
            })
        });
        let v = match reached {
            Site::Reached(Some((chosen, exports))) => switch_object(sw, chosen, exports),
            Site::Off => switch_object(sw, None, BTreeMap::new()),
            Site::Reached(None) | Site::Incomplete => Value::dynamic_unknown(),
        };
        self.switch_values
            .borrow_mut()
            .insert(k, Slot::Done(v.clone()));
        v
    }
}

/// The value of `switch.<name>`.
fn switch_object(sw: &Switch, chosen: Option<usize>, mut exports: BTreeMap<Key, Value>) -> Value {
    let mut branches = BTreeMap::new();
    let mut cases = BTreeMap::new();
    for (i, c) in sw.cases.iter().enumerate() {
        let on = Value::Bool(chosen == Some(i));
        branches.insert(key(&c.name), on.clone());
        cases.insert(key(&c.name), obj([("evaluated", on)]));
    }
    let evaluated = match chosen {
        Some(i) => Value::string(sw.cases[i].name.as_str()),
        None => Value::Null(Type::String),
    };
    for n in &sw.export_names {
        exports.entry(n.clone()).or_insert_with(Value::null);
    }
    exports.insert(key("evaluated"), evaluated);
    exports.insert(key("branches"), Value::object(branches));
    exports.insert(key("case"), Value::object(cases));
    Value::object(exports)
}

impl Walk<'_> {
    /// The Crossplane name of a module-local name (D28).
    fn cname(&self, local: &str) -> String {
        if self.prefix.is_empty() {
            local.to_owned()
        } else {
            format!("{}{local}", self.prefix)
        }
    }

    /// The observed resources among `names` (for the fail-safe, D12).
    fn observed_in(&self, names: &Names) -> Vec<String> {
        let mut out: Vec<String> = names
            .resources
            .iter()
            .map(|(n, _)| self.cname(n))
            .filter(|n| self.ctx.request.observed.contains_key(n))
            .collect();
        for (b, _) in &names.collections {
            if let Some(list) = self.ctx.members.get(&self.cname(b)) {
                out.extend(list.iter().map(|(_, n)| n.clone()));
            }
        }
        out
    }

    /// A module instance or switch that cannot be evaluated: `cond` (the
    /// instance's condition, the switch case's) is incomplete, or, without
    /// one, a dependency cycle. Fatal if it would drop an observed resource
    /// (D12), otherwise discarded with a warning.
    fn incomplete_block(
        &mut self,
        frame: &Frame<'_>,
        kind: DiscardKind,
        name: &str,
        names: &Names,
        cond: Option<&Cond>,
        header: Span,
        diags: Vec<Diagnostic>,
    ) -> Res<()> {
        // The block's name in the two fatal messages.
        let (what, blocked) = match kind {
            DiscardKind::Switch => ("switch", "switch"),
            _ => ("module", "module instance"),
        };
        if let Some(first) = self.observed_in(names).first() {
            return Err(match cond {
                Some(c) => self.condition_fatal(frame, first, what, c, diags),
                None => {
                    let mut out = vec![
                        Diagnostic::error(
                            format!("existing resource {first} could not be evaluated, abort"),
                            format!("the {blocked} that declares it could not be evaluated; dropping the resource would make Crossplane delete it"),
                        )
                        .with_span(header),
                    ];
                    out.extend(diags.into_iter().filter(Diagnostic::is_error));
                    out
                }
            });
        }
        let (span, exprs): (Span, Vec<&Expr>) = match cond {
            Some(c) => (c.span, vec![&c.expr]),
            None => (header, Vec::new()),
        };
        self.discard(
            frame,
            kind,
            DiscardReason::Incomplete,
            name,
            Some(span),
            diags,
            &exprs,
        );
        Ok(())
    }

    fn instance(&mut self, frame: &Frame<'_>, inst: &Instance) -> Res<()> {
        let name = self.cname(&inst.name);
        let Some(rt) = self.ctx.child(self.rt, inst.id) else {
            return Err(vec![
                Diagnostic::error(
                    format!("internal error: unknown module instance \"{name}\""),
                    "",
                )
                .with_span(inst.header),
            ]);
        };
        match self.ctx.status_at(rt, inst, frame) {
            Status::Active(params) => {
                let module = &self.ctx.program.modules[inst.module];
                let base = Frame::instance(self.ctx, module, rt, params);
                let top = Frame::locals(&base, &module.top);
                let saved = (self.rt, self.prefix.clone());
                self.rt = rt;
                self.prefix = self.ctx.prefix_of(rt);
                let r = self.items(top.as_ref().unwrap_or(&base), &module.items);
                (self.rt, self.prefix) = saved;
                r
            }
            Status::Off => {
                let span = inst.condition.as_ref().map(|c| c.span);
                self.discard(
                    frame,
                    DiscardKind::Module,
                    DiscardReason::UserCondition,
                    &name,
                    span,
                    Vec::new(),
                    &[],
                );
                Ok(())
            }
            Status::Incomplete(diags) => self.incomplete_block(
                frame,
                DiscardKind::Module,
                &name,
                &inst.names,
                inst.condition.as_ref(),
                inst.header,
                diags,
            ),
            Status::Failed(d) => Err(d),
        }
    }

    fn switch(&mut self, frame: &Frame<'_>, sw: &Switch) -> Res<()> {
        let name = self.cname(&sw.name);
        match self.ctx.choice_at(self.rt, sw, frame) {
            Choice::Case(ci) => {
                let case = &sw.cases[ci];
                let lf = Frame::locals(frame, &case.scope);
                self.items(lf.as_ref().unwrap_or(frame), &case.items)
            }
            Choice::NoCase => Ok(()),
            Choice::Incomplete(ci, diags) => self.incomplete_block(
                frame,
                DiscardKind::Switch,
                &name,
                &sw.names,
                sw.cases.get(ci).and_then(|c| c.condition.as_ref()),
                sw.header,
                diags,
            ),
            Choice::Failed(d) => Err(d),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fnhcl_base::SourceMap;

    use crate::{Request, compile, evaluate};

    #[test]
    fn program_is_shared_across_threads() {
        fn is_send_sync<T: Send + Sync>() {}
        is_send_sync::<crate::Program>();
        let mut sm = SourceMap::new();
        sm.add(
            "main.hcl",
            "resources r {\n  for_each = range(20)\n  template {\n    body = { i = each.value }\n  }\n}\n",
        );
        let program = Arc::new(compile(Arc::new(sm)).expect("compiles"));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let p = program.clone();
                std::thread::spawn(move || {
                    let out = evaluate(&p, &Request::default()).expect("evaluates");
                    out.resources
                        .iter()
                        .map(|r| r.name.clone())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let results: Vec<Vec<String>> = handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect();
        assert_eq!(results[0].len(), 20);
        assert_eq!(results[0][0], "r-0");
        assert!(results.iter().all(|r| *r == results[0]));
    }
}
