//! Resources and resource collections in the walk.

use fnhcl_base::{Diagnostic, Span};
use fnhcl_value::{Number, Value};

use super::frame::Frame;
use super::values::{
    add_collection_annotations, check_body, collection_self, each_object, key_string, member_self,
    self_object,
};
use super::walk::{CondResult, Walk, has_errors, incomplete};
use super::{MAX_COLLECTION_SIZE, Res};
use crate::api::{Dependency, DependencyTarget, DesiredResource, DiscardKind, DiscardReason};
use crate::checks::type_name;
use crate::compile::{Child, Collection, DepKind, Resource};

/// What a resource carries besides its body (D32, D40).
pub(super) struct Meta {
    pub(super) depends_on: Vec<Dependency>,
    pub(super) collection: Option<String>,
    pub(super) optional: bool,
}

/// What `on_incomplete = "keep"` re-emits of an observed object (D41).
fn kept_body(observed: &Value) -> Value {
    const METADATA: [&str; 4] = ["name", "namespace", "labels", "annotations"];
    let Some(entries) = observed.as_entries() else {
        return Value::empty_object();
    };
    let mut out = Vec::new();
    for (k, v) in entries {
        match &**k {
            "status" => {}
            "metadata" => {
                let meta = v
                    .as_entries()
                    .map(|m| {
                        m.iter()
                            .filter(|(mk, _)| METADATA.contains(&&***mk))
                            .map(|(mk, mv)| (mk.clone(), mv.clone()))
                            .collect()
                    })
                    .unwrap_or_default();
                out.push((k.clone(), Value::object(meta)));
            }
            _ => out.push((k.clone(), v.clone())),
        }
    }
    Value::object(out.into_iter().collect())
}

impl<'c> Walk<'c> {
    pub(super) fn resource(&mut self, parent: &Frame<'_>, r: &Resource) -> Res<()> {
        // The root module's names are the resources' own (no copy).
        let cname = if self.prefix.is_empty() {
            std::borrow::Cow::Borrowed(r.name.as_str())
        } else {
            std::borrow::Cow::Owned(self.cname(&r.name))
        };
        let name: &str = &cname;
        let is_observed = self.ctx.request.observed.contains_key(name);
        let keep = r.policy.keep || self.inherited.keep;
        let meta = |w: &Self| Meta {
            depends_on: w.all_dependencies(parent, &r.policy.depends_on),
            collection: None,
            optional: r.optional || w.inherited.optional,
        };
        // `self` is built on its first read: most bodies do not read it.
        let ctx = self.ctx;
        let self_v = || {
            self_object(
                Value::string(r.name.as_str()),
                ctx.observed_body(name),
                ctx.observed_connection(name),
            )
        };
        let sf = Frame::named_lazy(parent, "self", &self_v);
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
                    if is_observed && keep {
                        let m = meta(self);
                        return self.keep_observed(frame, name, c.span, diags, &[&c.expr], m);
                    }
                    if is_observed {
                        return Err(self.condition_fatal(frame, name, "resource", c, diags));
                    }
                    if !r.optional {
                        self.gate(name);
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
            if is_observed && keep {
                let m = meta(self);
                return self.keep_observed(frame, name, r.body.span, diags, &[&r.body], m);
            }
            if is_observed {
                return Err(self.body_fatal(frame, name, &r.body, diags));
            }
            if !r.optional {
                self.gate(name);
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
        let m = meta(self);
        let idx = self.emit(name, body, r.header, m, false)?;
        self.children(frame, &r.children, name, Some(idx))
    }

    /// The dependencies of a block written in the module `frame` is in,
    /// after those of the instances around it (D40).
    pub(super) fn all_dependencies(
        &self,
        frame: &Frame<'_>,
        deps: &[crate::compile::Dep],
    ) -> Vec<Dependency> {
        let mut out = self.inherited.depends_on.clone();
        out.extend(self.dependencies(frame, deps));
        out
    }

    /// `depends_on` names resolved in the module `frame` is in (D40).
    pub(super) fn dependencies(
        &self,
        frame: &Frame<'_>,
        deps: &[crate::compile::Dep],
    ) -> Vec<Dependency> {
        deps.iter()
            .filter_map(|d| {
                let cname = self.cname(&d.name);
                let target = match frame.module.dep_kinds.get(&d.name)? {
                    DepKind::Resource => DependencyTarget::Resource(cname),
                    DepKind::Collection => DependencyTarget::Collection(cname),
                    DepKind::Instance => DependencyTarget::Instance(format!("{cname}-")),
                };
                Some(Dependency {
                    name: d.name.clone(),
                    target,
                })
            })
            .collect()
    }

    /// D41: an observed resource whose block is incomplete, kept as it is
    /// observed (`on_incomplete = "keep"`): every top-level field but
    /// `status`, and of `metadata` only the name, namespace, labels and
    /// annotations. It gates readiness and is reported with its unknown
    /// references.
    pub(super) fn keep_observed(
        &mut self,
        frame: &Frame<'_>,
        name: &str,
        span: Span,
        diags: Vec<Diagnostic>,
        exprs: &[&fnhcl_syntax::ast::Expr],
        meta: Meta,
    ) -> Res<()> {
        let observed = self.ctx.observed_body(name);
        let body = kept_body(&observed);
        if !meta.optional {
            self.gate(name);
        }
        self.discard(
            frame,
            DiscardKind::Resource,
            DiscardReason::Kept,
            name,
            Some(span),
            diags,
            exprs,
        );
        self.emit(name, body, span, meta, true)?;
        Ok(())
    }

    fn emit(&mut self, name: &str, body: Value, span: Span, meta: Meta, kept: bool) -> Res<usize> {
        if let Some(i) = self.out.names.find(name, &self.out.resources) {
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
        self.out.names.insert(name, idx);
        self.out.resources.push(DesiredResource {
            name: name.to_owned(),
            body,
            ready: None,
            span,
            depends_on: meta.depends_on,
            collection: meta.collection,
            optional: meta.optional,
            kept,
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

    pub(super) fn collection(&mut self, parent: &Frame<'_>, c: &Collection) -> Res<()> {
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
        let basename = Value::string(c.base.as_str());
        let sf = Frame::named(
            parent,
            "self",
            collection_self(basename.clone(), res.clone(), conns.clone()),
        );
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
                    let keep = c.policy.keep || self.inherited.keep;
                    if let (true, Some(members)) = (keep, observed_members) {
                        self.out.unfinished.insert(cbase.clone());
                        for (i, (_, member)) in members.iter().enumerate() {
                            let d = if i == 0 { diags.clone() } else { Vec::new() };
                            let m = self.member_meta(parent, c, &cbase);
                            self.keep_observed(frame, member, cond.span, d, &[&cond.expr], m)?;
                        }
                        return Ok(());
                    }
                    if let Some((_, first)) = observed_members.and_then(|m| m.first()) {
                        return Err(self.condition_fatal(frame, first, "resources", cond, diags));
                    }
                    self.out.unfinished.insert(cbase.clone());
                    if !c.optional {
                        self.gate(&cbase);
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
            let each = each_object(k.clone(), v);
            let ef = Frame::named(frame, "each", each);
            let local = self.member_name(&ef, c, &k)?;
            let name = self.cname(&local);
            let is_observed = self.ctx.request.observed.contains_key(&name);
            let member_name = Value::string(local.as_str());
            // D13: the member's own observed body and connection details.
            let resource = self.ctx.observed_body(&name);
            let connection = self.ctx.observed_connection(&name);
            let member = member_self([&basename, &res, &conns], member_name, resource, connection);
            let tf = Frame::named(&ef, "self", member);
            let tl = Frame::locals(&tf, &c.template.scope);
            let tframe = tl.as_ref().unwrap_or(&tf);
            let body_expr = &c.template.body;
            let (body, diags) = tframe.eval(body_expr);
            if incomplete(&body, &diags) {
                if is_observed && (c.policy.keep || self.inherited.keep) {
                    self.out.unfinished.insert(cbase.clone());
                    let m = self.member_meta(parent, c, &cbase);
                    self.keep_observed(tframe, &name, body_expr.span, diags, &[body_expr], m)?;
                    continue;
                }
                if is_observed {
                    return Err(self.body_fatal(tframe, &name, body_expr, diags));
                }
                self.out.unfinished.insert(cbase.clone());
                if !c.optional {
                    self.gate(&name);
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
            let m = self.member_meta(parent, c, &cbase);
            let idx = self.emit(&name, body, c.template.header, m, false)?;
            self.children(tframe, &c.template.children, &name, Some(idx))?;
        }
        self.children(frame, &c.children, &cbase, None)
    }

    /// What every member of collection `c` carries.
    fn member_meta(&self, frame: &Frame<'_>, c: &Collection, cbase: &str) -> Meta {
        Meta {
            depends_on: self.all_dependencies(frame, &c.policy.depends_on),
            collection: Some(cbase.to_owned()),
            optional: c.optional || self.inherited.optional,
        }
    }

    /// The `(each.key, each.value)` pairs of `for_each` (D7 order).
    fn iterations(&mut self, frame: &Frame<'_>, c: &Collection) -> Res<Vec<(Value, Value)>> {
        let (v, diags) = frame.eval(&c.for_each);
        if has_errors(&diags) {
            // The headline names the cause (`more than 1024 values`), not
            // only that for_each failed.
            let mut errors = diags.into_iter().filter(Diagnostic::is_error);
            let first = errors.next();
            let (summary, detail) = match &first {
                Some(e) => (
                    format!(
                        "unable to evaluate for_each for resource collection {}: {}",
                        c.base, e.summary
                    ),
                    format!(
                        "{}{}for_each must be known when the block is evaluated; wrap data that may be missing in try(..., [])",
                        e.detail.trim_end_matches('.'),
                        if e.detail.is_empty() { "" } else { "; " }
                    ),
                ),
                None => (String::new(), String::new()),
            };
            let mut out = vec![
                Diagnostic::error(summary, detail).with_span(
                    first
                        .as_ref()
                        .and_then(|e| e.primary)
                        .unwrap_or(c.for_each.span),
                ),
            ];
            out.extend(errors);
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
}
