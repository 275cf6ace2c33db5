//! Modules and switches (D24-D31): instance state, `req` as an instance
//! sees it, parameters, exports and the value of `switch.<name>`.

use fnhcl_base::Diagnostic;
use fnhcl_value::{Key, Type, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::ctx::{Choice, Ctx, InstState, Site, Slot, Status};
use super::frame::{Frame, guard_stack};
use super::values::{key, obj};
use super::walk::{CondResult, eval_condition};
use crate::checks::type_name;
use crate::compile::{
    Case, ExportValue, Instance, Item, Module, Params, PathStep, Switch, items_at,
};

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

    pub(super) fn prefix_of(&self, rt: usize) -> Arc<str> {
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
    pub(super) fn child(&self, parent: usize, decl: usize) -> Option<usize> {
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
    pub(super) fn req_of(&self, rt: usize) -> Value {
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
    pub(super) fn status_at(&self, rt: usize, inst: &Instance, frame: &Frame<'_>) -> Status {
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
    pub(super) fn status(&self, rt: usize) -> Status {
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
    pub(super) fn choice_at(&self, rt: usize, sw: &Switch, frame: &Frame<'_>) -> Choice {
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
    pub(super) fn instance_export(&self, parent: usize, decl: usize, export: &str) -> Value {
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
    pub(super) fn instance_exports(&self, parent: usize, decl: usize) -> Value {
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
    pub(super) fn switch_value(&self, rt: usize, id: usize) -> Value {
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
