//! `ready` blocks and requirements (extra-resource selectors) in the walk.

use fnhcl_expr::Compiled;
use fnhcl_syntax::ast::Expr;

use super::Res;
use super::frame::Frame;
use super::walk::{CondResult, Walk, incomplete};
use crate::api::{DiscardKind, DiscardReason, Selector, SelectorMatch};
use crate::checks::{SelectField, check_select_value, ready_state};
use crate::compile::{Ready, Requirement};

impl<'c> Walk<'c> {
    pub(super) fn ready(
        &mut self,
        parent: &Frame<'_>,
        r: &Ready,
        owner: &str,
        idx: usize,
    ) -> Res<()> {
        let lf = Frame::locals(parent, &r.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        let Some(v) = self.complete(frame, DiscardKind::ResourceReady, owner, &r.value) else {
            return Ok(());
        };
        let state = ready_state(&v, owner, r.value.span).map_err(|d| vec![d])?;
        self.out.resources[idx].ready = Some(state);
        Ok(())
    }

    pub(super) fn requirement(&mut self, parent: &Frame<'_>, r: &Requirement) -> Res<()> {
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
        let mut fields: Vec<(SelectField, &Compiled)> = vec![
            (SelectField::ApiVersion, &s.api_version),
            (SelectField::Kind, &s.kind),
        ];
        if let Some(e) = &s.match_name {
            fields.push((SelectField::MatchName, e));
        }
        if let Some(e) = &s.match_labels {
            fields.push((SelectField::MatchLabels, e));
        }
        if let Some(e) = &s.namespace {
            fields.push((SelectField::Namespace, e));
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
            let exprs: Vec<&Expr> = fields.iter().map(|(_, e)| e.ast()).collect();
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
        let mut namespace = None;
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
                SelectField::Namespace => namespace = v.as_str().map(str::to_owned),
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
                namespace,
                matches,
            },
        );
        Ok(())
    }
}
