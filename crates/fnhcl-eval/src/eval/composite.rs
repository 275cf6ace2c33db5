//! The composite's status and connection details, and context blocks,
//! in the walk.

use fnhcl_base::Diagnostic;
use std::collections::BTreeMap;

use super::Res;
use super::frame::Frame;
use super::values::{decode_base64, obj};
use super::walk::{Walk, has_errors, incomplete};
use crate::api::{Discard, DiscardKind, DiscardReason};
use crate::checks::type_name;
use crate::compile::{Composite, CompositeKind, ContextBlock};

impl<'c> Walk<'c> {
    pub(super) fn composite(&mut self, parent: &Frame<'_>, c: &Composite) -> Res<()> {
        let lf = Frame::locals(parent, &c.scope);
        let frame = lf.as_ref().unwrap_or(parent);
        let (kind, what) = match c.kind {
            CompositeKind::Status => (DiscardKind::CompositeStatus, "composite status"),
            CompositeKind::Connection => (DiscardKind::CompositeConnection, "composite connection"),
            CompositeKind::Output => (DiscardKind::Output, "output"),
            CompositeKind::Ready => return self.composite_ready(frame, c),
            CompositeKind::Condition | CompositeKind::Result => return self.user_block(frame, c),
        };
        let Some(v) = self.complete(frame, kind, "", &c.body) else {
            return Ok(());
        };
        if v.is_null() {
            return Ok(());
        }
        let Some(entries) = v.as_entries() else {
            return Err(vec![
                Diagnostic::error(
                    format!("{what} body must be an object"),
                    format!("got {}", type_name(&v)),
                )
                .with_span(c.body.span),
            ]);
        };
        if kind == DiscardKind::CompositeStatus {
            self.out.status.push((v.clone(), c.body.span));
            return Ok(());
        }
        if kind == DiscardKind::Output {
            self.out.output.push((v.clone(), c.body.span));
            return Ok(());
        }
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
                    self.ctx
                        .warn([Diagnostic::warning(msg.clone(), "").with_span(c.body.span)]);
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

    /// `composite condition` and `result` (D35): a false `condition`
    /// leaves it out, an incomplete one or incomplete attributes discard it;
    /// a condition of a type already set differently is an error naming
    /// both, an identical one is kept once; a Fatal result stops the run
    /// with its message.
    fn user_block(&mut self, frame: &Frame<'_>, c: &Composite) -> Res<()> {
        let is_condition = c.kind == CompositeKind::Condition;
        let kind = if is_condition {
            DiscardKind::CompositeCondition
        } else {
            DiscardKind::Result
        };
        if let Some(cond) = &c.condition {
            let what = || {
                format!(
                    "unable to evaluate condition for {}",
                    if is_condition {
                        "composite condition"
                    } else {
                        "result"
                    }
                )
            };
            match self.condition(frame, cond, what)? {
                super::walk::CondResult::True => {}
                super::walk::CondResult::False => return Ok(()),
                super::walk::CondResult::Incomplete(diags) => {
                    self.discard(
                        frame,
                        kind,
                        DiscardReason::Incomplete,
                        "",
                        Some(cond.span),
                        diags,
                        &[&cond.expr],
                    );
                    return Ok(());
                }
            }
        }
        let Some(v) = self.complete(frame, kind, "", &c.body) else {
            return Ok(());
        };
        let span = c.body.span;
        if is_condition {
            let uc = crate::checks::user_condition(&v, span).map_err(|d| vec![d])?;
            match self
                .out
                .conditions
                .iter()
                .find(|(o, _)| o.type_ == uc.type_)
            {
                Some((o, _)) if *o == uc => Ok(()),
                Some((_, first)) => Err(vec![
                    Diagnostic::error(
                        format!(
                            "composite condition \"{}\" set twice with different contents",
                            uc.type_
                        ),
                        "two composite condition blocks of one type must agree",
                    )
                    .with_span(span)
                    .with_label(*first, "first set here"),
                ]),
                None => {
                    self.out.conditions.push((uc, span));
                    Ok(())
                }
            }
        } else {
            let ur = crate::checks::user_result(&v, span).map_err(|d| vec![d])?;
            if ur.severity == crate::api::ResultSeverity::Fatal {
                let mut d = Diagnostic::error(ur.message, "").with_span(span);
                d.code = Some(crate::api::FATAL_RESULT);
                return Err(vec![d]);
            }
            if !self.out.results.contains(&ur) {
                self.out.results.push(ur);
            }
            Ok(())
        }
    }

    /// `composite ready { value = ... }` (D33): incomplete, it is
    /// discarded and gates readiness (D32); two different values are an
    /// error naming both blocks.
    fn composite_ready(&mut self, frame: &Frame<'_>, c: &Composite) -> Res<()> {
        let (v, diags) = frame.eval(&c.body);
        if incomplete(&v, &diags) {
            self.gate("composite ready");
            self.discard(
                frame,
                DiscardKind::CompositeReady,
                DiscardReason::Incomplete,
                "",
                Some(c.body.span),
                diags,
                &[&c.body],
            );
            return Ok(());
        }
        self.ctx.warn(diags);
        let state =
            crate::checks::ready_state(&v, "the composite", c.body.span).map_err(|d| vec![d])?;
        match self.out.composite_ready {
            Some((old, first)) if old != state => Err(vec![
                Diagnostic::error(
                    "composite ready: two blocks set different values",
                    format!("{} here, {} there", state.as_str(), old.as_str()),
                )
                .with_span(c.body.span)
                .with_label(first, "first set here"),
            ]),
            Some(_) => Ok(()),
            None => {
                self.out.composite_ready = Some((state, c.body.span));
                Ok(())
            }
        }
    }

    pub(super) fn context(&mut self, parent: &Frame<'_>, c: &ContextBlock) -> Res<()> {
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
        let Some(v) = self.complete(frame, DiscardKind::Context, "", &c.value) else {
            return Ok(());
        };
        self.out.context.push((obj([(key_str, v)]), c.value.span));
        Ok(())
    }
}
