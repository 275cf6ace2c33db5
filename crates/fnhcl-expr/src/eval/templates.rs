//! String templates: literal text and interpolations appended into one
//! buffer, `%{if}` (via the conditional in `operators.rs`) and `%{for}`
//! (via the loop in `for_expr.rs`), the string-size limit, NFC.

use std::cell::Cell;

use fnhcl_base::{Diagnostic, Span};
use fnhcl_syntax::ast::{Expr, Ident, Template, TemplateFor, TemplateIf, TemplatePart};
use fnhcl_value::{Type, Value};

use super::{Branch, Diags, Evaluator, R, has_errors, nfc};
use crate::compiled::node::{Node, TemplateNode, TemplatePartNode};
use crate::conv;

thread_local! {
    /// A template's text buffer, kept between the templates this thread
    /// evaluates: the text is copied into the result's `Arc<str>` anyway,
    /// so one buffer serves them all instead of one allocation each. A
    /// template takes it while it is built (one inside an interpolation
    /// finds it taken and gets a new one) and puts it back after.
    static TEXT_BUF: Cell<String> = const { Cell::new(String::new()) };
}

/// The largest buffer kept between templates (bytes).
const KEPT_BUF_MAX: usize = 4096;

/// The thread's template buffer, empty, with room for `cap` bytes.
fn take_text_buf(cap: usize) -> String {
    let mut buf = TEXT_BUF.take();
    buf.clear();
    buf.reserve(cap);
    buf
}

/// Puts a template's buffer back, unless it grew large.
fn put_text_buf(buf: String) {
    if buf.capacity() <= KEPT_BUF_MAX {
        TEXT_BUF.set(buf);
    }
}

impl Evaluator<'_, '_> {
    /// A template; `compiled` holds the buffer size worked out at compile
    /// time and the compiled parts (one per part of `t`).
    pub(super) fn template(
        &mut self,
        t: &Template,
        span: Span,
        compiled: Option<&TemplateNode>,
    ) -> R {
        let mut diags = Vec::new();
        let guess = match compiled {
            Some(c) => c.guess,
            None => template_guess(t),
        };
        let mut nodes = compiled.map(|c| c.parts.iter());
        let mut buf = take_text_buf(guess.min(KEPT_BUF_MAX));
        let mut known = true;
        let mut marked = false;
        for part in &t.parts {
            let next = nodes.as_mut().and_then(Iterator::next);
            let (v, d, pspan) = match part {
                TemplatePart::Literal(s) => {
                    if !self.append_text(&mut buf, s, known, &mut diags, span) {
                        return (Value::Unknown(Type::String), diags);
                    }
                    continue;
                }
                TemplatePart::Interpolation(e) => {
                    let n = match next {
                        Some(TemplatePartNode::Interpolation(n)) => Some(n),
                        _ => None,
                    };
                    let (v, d) = self.eval_sub(e, n);
                    if let Value::String(s) = &v
                        && d.is_empty()
                    {
                        // The common case: a known, unmarked string.
                        if !self.append_text(&mut buf, s, known, &mut diags, e.span) {
                            return (Value::Unknown(Type::String), diags);
                        }
                        continue;
                    }
                    (v, d, e.span)
                }
                TemplatePart::If(i) => {
                    let TemplateIf {
                        cond,
                        then,
                        otherwise,
                        span: ds,
                    } = &**i;
                    let (cond_n, then_n, otherwise_n) = match next {
                        Some(TemplatePartNode::If {
                            cond,
                            then,
                            otherwise,
                        }) => (Some(cond), Some(then), otherwise.as_ref()),
                        _ => (None, None, None),
                    };
                    let t_b = Branch::Template(then, *ds, then_n);
                    let f_b = match otherwise {
                        Some(o) => Branch::Template(o, *ds, otherwise_n),
                        None => Branch::Empty(*ds),
                    };
                    let (v, d) = self.conditional(cond, cond_n, t_b, f_b, *ds);
                    (v, d, *ds)
                }
                TemplatePart::For(f) => {
                    let TemplateFor {
                        key_var,
                        value_var,
                        collection,
                        body,
                        span: ds,
                    } = &**f;
                    let (coll_n, body_n) = match next {
                        Some(TemplatePartNode::For { collection, body }) => {
                            (Some(collection), Some(body))
                        }
                        _ => (None, None),
                    };
                    let (v, d) = self.template_for(
                        key_var.as_ref(),
                        value_var,
                        (collection, coll_n),
                        (body, body_n),
                        *ds,
                    );
                    (v, d, *ds)
                }
            };
            diags.extend(d);
            if v.is_null() {
                diags.push(self.error(
                    "Invalid template interpolation value",
                    "The expression result is null. Cannot include a null value in a string template.",
                    pspan,
                    pspan,
                ));
                continue;
            }
            let (v, m) = v.unmark_deep();
            marked |= m;
            if !v.is_known() {
                known = false;
                continue;
            }
            match conv::convert(&v, &Type::String) {
                Ok(s) => match s.as_str() {
                    Some(s) => {
                        if !self.append_text(&mut buf, s, known, &mut diags, pspan) {
                            return (Value::Unknown(Type::String), diags);
                        }
                    }
                    None => {
                        if known && !has_errors(&diags) {
                            known = false;
                        }
                    }
                },
                Err(m) => diags.push(self.error(
                    "Invalid template interpolation value",
                    format!("Cannot include the given value in a string template: {m}."),
                    pspan,
                    pspan,
                )),
            }
        }
        let v = if known {
            Value::string(fnhcl_value::nfc(&buf))
        } else {
            Value::Unknown(Type::String)
        };
        put_text_buf(buf);
        (v.mark_if(marked), diags)
    }

    /// Appends `s` to a template's text, unless the text is already
    /// unknown or in error. False (with a diagnostic) when the text would
    /// grow past the string limit.
    pub(super) fn append_text(
        &mut self,
        buf: &mut String,
        s: &str,
        known: bool,
        diags: &mut Diags,
        at: Span,
    ) -> bool {
        if known && !has_errors(diags) {
            if buf.len() + s.len() > self.ctx.limits.max_string_bytes {
                diags.push(self.too_large(at));
                return false;
            }
            if !self.charge_bytes(s.len() as u64, at, diags) {
                return false;
            }
            buf.push_str(s);
        }
        true
    }

    pub(super) fn too_large(&self, span: Span) -> Diagnostic {
        self.error(
            "Result too large",
            format!(
                "The result would be longer than the limit of {} bytes.",
                self.ctx.limits.max_string_bytes
            ),
            span,
            span,
        )
    }

    pub(super) fn template_for(
        &mut self,
        key_var: Option<&Ident>,
        value_var: &Ident,
        collection: (&Expr, Option<&Node>),
        (body, body_n): (&Template, Option<&TemplateNode>),
        span: Span,
    ) -> R {
        let (tuple, mut diags) = self.for_core(
            key_var,
            value_var,
            collection,
            None,
            Branch::Template(body, span, body_n),
            false,
            None,
            span,
        );
        let (tuple, marked) = tuple.unmark_deep();
        let items = match &tuple {
            Value::Tuple(items) => items.clone(),
            _ => return (Value::Unknown(Type::String).mark_if(marked), diags),
        };
        let mut buf = String::new();
        for v in items.iter() {
            if v.is_null() {
                diags.push(self.error(
                    "Invalid template interpolation value",
                    "An iteration result is null. Cannot include a null value in a string template.",
                    span,
                    span,
                ));
                continue;
            }
            if v.type_of() == Type::Dynamic {
                return (Value::Unknown(Type::String).mark_if(marked), diags);
            }
            match conv::convert(v, &Type::String) {
                Ok(s) => {
                    if !v.is_known() {
                        return (Value::Unknown(Type::String).mark_if(marked), diags);
                    }
                    if let Some(s) = s.as_str() {
                        if buf.len() + s.len() > self.ctx.limits.max_string_bytes {
                            diags.push(self.too_large(span));
                            return (Value::Unknown(Type::String), diags);
                        }
                        if !self.charge_bytes(s.len() as u64, span, &mut diags) {
                            return (Value::Unknown(Type::String), diags);
                        }
                        buf.push_str(s);
                    }
                }
                Err(m) => diags.push(self.error(
                    "Invalid template interpolation value",
                    format!("Cannot include one of the interpolation results into the string template: {m}."),
                    span,
                    span,
                )),
            }
        }
        (Value::string(nfc(buf)).mark_if(marked), diags)
    }
}

/// Room for a template's literal text and a short value per
/// interpolation, so the usual template allocates once.
pub(crate) fn template_guess(t: &Template) -> usize {
    t.parts.iter().fold(0usize, |n, p| match p {
        TemplatePart::Literal(s) => n.saturating_add(s.len()),
        _ => n.saturating_add(16),
    })
}
