//! Per-request evaluation state ([`Ctx`]): memoised instance, switch and
//! local slots, warnings, observed-resource lookups and user-function
//! calls.

use fnhcl_base::Diagnostic;
use fnhcl_value::{Key, Value};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::frame::{Frame, FrameVars, calls_message, depth_message, guard_stack};
use super::req::build_req;
use super::values::annotation;
use super::{MAX_INVOKE_CALLS, MAX_INVOKE_DEPTH};
use crate::api::{LocalValue, Request};
use crate::compile::{Module, Program};
use crate::exprs;
use crate::render::{COLLECTION_BASE_NAME_ANNOTATION, COLLECTION_INDEX_ANNOTATION};
use fnhcl_expr::Limits;

pub(super) struct Ctx<'p> {
    pub(super) program: &'p Program,
    /// Where computed locals are recorded ([`evaluate_traced`]).
    pub(super) trace: Option<&'p RefCell<Vec<LocalValue>>>,
    pub(super) request: &'p Request,
    pub(super) req: Value,
    /// `req.resource` and `req.connection` (looked up for every resource).
    req_resource: Value,
    req_connection: Value,
    /// Observed collection members by base name: `(index annotation, name)`
    /// sorted by the annotation as a string (upstream §3.2).
    pub(super) members: HashMap<String, Vec<(String, String)>>,
    pub(super) warnings: RefCell<Vec<Diagnostic>>,
    invoke_depth: Cell<usize>,
    invoke_calls: Cell<u64>,
    pub(super) local_depth: Cell<usize>,
    pub(super) budget: exprs::Budget,
    /// Module instances met so far (index 0: the root program).
    pub(super) insts: RefCell<Vec<InstState>>,
    /// (parent instance, instance declaration id) → instance.
    pub(super) inst_keys: RefCell<HashMap<(usize, usize), usize>>,
    /// (instance, switch id) → the chosen branch.
    pub(super) choices: RefCell<HashMap<(usize, usize), Slot<Choice>>>,
    /// (instance, switch id) → the value of `switch.<name>`.
    pub(super) switch_values: RefCell<HashMap<(usize, usize), Slot<Value>>>,
}

/// A lazily computed, memoised value; `Busy` while it is being computed
/// (meeting it again is a dependency cycle).
#[derive(Clone)]
pub(super) enum Slot<T> {
    Empty,
    Busy,
    Done(T),
}

/// One instance of a module in this request.
pub(super) struct InstState {
    pub(super) module: usize,
    /// Crossplane name prefix: `""` for the root, `logs-` for instance
    /// `logs`, `outer-inner-` nested (D28).
    pub(super) prefix: Arc<str>,
    /// The parent instance and this instance's declaration id there
    /// (`usize::MAX` for the root).
    pub(super) parent: usize,
    pub(super) decl: usize,
    pub(super) status: Slot<Status>,
    /// `req` as the module sees it (resource names without the prefix);
    /// unused for the root, which sees `Ctx::req`.
    pub(super) req: Option<Value>,
    /// `module.<name>` (every export).
    pub(super) exports: Slot<Value>,
    /// `module.<name>.<export>`, one by one.
    pub(super) export_values: HashMap<Arc<str>, Slot<Value>>,
}

/// Whether an instance is evaluated.
#[derive(Clone)]
pub(super) enum Status {
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
pub(super) enum Choice {
    Case(usize),
    NoCase,
    /// The condition of this case is incomplete.
    Incomplete(usize, Vec<Diagnostic>),
    Failed(Vec<Diagnostic>),
}

/// The outcome of reaching a place in a module (see [`Ctx::with_site`]).
pub(super) enum Site<R> {
    Reached(R),
    Off,
    Incomplete,
}

impl<'p> Ctx<'p> {
    pub(super) fn new(program: &'p Program, request: &'p Request, limits: Limits) -> Ctx<'p> {
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

    #[inline]
    pub(super) fn warn(&self, diags: impl IntoIterator<Item = Diagnostic>) {
        let diags = diags.into_iter();
        // Most expressions give none: no borrow, no loop, no call.
        if diags.size_hint().1 == Some(0) {
            return;
        }
        self.warn_each(diags);
    }

    /// [`Self::warn`] of some diagnostics.
    #[inline(never)]
    fn warn_each(&self, diags: impl Iterator<Item = Diagnostic>) {
        let mut w = self.warnings.borrow_mut();
        for d in diags {
            w.push(d.downgraded());
        }
    }

    pub(super) fn take_warnings(&self) -> Vec<Diagnostic> {
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

    pub(super) fn observed_body(&self, name: &str) -> Value {
        Self::req_entry(&self.req_resource, name)
    }

    pub(super) fn observed_connection(&self, name: &str) -> Value {
        Self::req_entry(&self.req_connection, name)
    }
}

impl<'p> Ctx<'p> {
    /// Calls user function `name` of `module` (functions are per module).
    pub(super) fn invoke_in(
        &self,
        module: &'p Module,
        name: &str,
        args: Value,
    ) -> Result<Value, String> {
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
