//! The composite (status and connection), context, `ready` and
//! requirement blocks.

use fnhcl_base::{Diagnostic, codes};
use fnhcl_syntax::ast::Block;

use super::blocks::Namespace;
use super::env::{Compiler, Env, eval_constant, is_constant, label};
use super::types::{Composite, CompositeKind, ContextBlock, Ready, Requirement, Select};
use crate::schema;

impl Compiler<'_> {
    /// `output { body = ... }` (D39): an operation's output, merged like
    /// the composite's status.
    pub(super) fn output(&mut self, b: &Block, env: &Env) -> Option<Composite> {
        self.operation_marks = true;
        self.body_block(b, env, Some(CompositeKind::Output))
    }

    /// A block of `body` and `locals` (`composite status|connection`,
    /// `output`); `None` kind (a bad label, reported) is still checked.
    fn body_block(
        &mut self,
        b: &Block,
        env: &Env,
        kind: Option<CompositeKind>,
    ) -> Option<Composite> {
        let content = self.content(b, &schema::COMPOSITE, true);
        let (scope, env) = self.locals_scope(&content, env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        Some(Composite {
            kind: kind?,
            scope,
            body: env.compile_cow(body?),
            condition: None,
        })
    }

    pub(super) fn composite(&mut self, b: &Block, env: &Env) -> Option<Composite> {
        let (what, span) = label(b);
        self.composite_uses.push(crate::CompositeUse {
            span: b.header_span(),
            what: format!("composite {what} block"),
        });
        let kind = match what.as_str() {
            "status" => Some(CompositeKind::Status),
            "connection" => Some(CompositeKind::Connection),
            "ready" => Some(CompositeKind::Ready),
            "condition" => Some(CompositeKind::Condition),
            _ => {
                let mut detail =
                    "must be \"status\", \"connection\", \"ready\" or \"condition\"".to_owned();
                if let Some(s) = schema::suggest(
                    &what,
                    ["status", "connection", "ready", "condition"].into_iter(),
                ) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("invalid composite label: {what}"), detail)
                        .with_code(codes::SCHEMA)
                        .with_span(span),
                );
                None
            }
        };
        if kind == Some(CompositeKind::Ready) {
            return self.composite_ready(b, env);
        }
        if kind == Some(CompositeKind::Condition) {
            return self.user_block(b, env, CompositeKind::Condition);
        }
        self.body_block(b, env, kind)
    }

    /// `composite ready { value = ... }` (D33); a constant value is
    /// checked here.
    fn composite_ready(&mut self, b: &Block, env: &Env) -> Option<Composite> {
        let content = self.content(b, &schema::COMPOSITE_READY, false);
        let (scope, env) = self.locals_scope(&content, env);
        let value = content.attr("value").map(|a| &a.expr)?;
        self.ready_value(value, &env, "the composite");
        Some(Composite {
            kind: CompositeKind::Ready,
            scope,
            body: env.compile(value),
            condition: None,
        })
    }

    /// Checks a `ready` or `composite ready` value; a constant one must
    /// be a readiness name.
    fn ready_value(&mut self, v: &fnhcl_syntax::ast::Expr, env: &Env, owner: &str) {
        self.check_expr(v, env);
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

    /// `result { ... }` (D35).
    pub(super) fn result(&mut self, b: &Block, env: &Env) -> Option<Composite> {
        self.user_block(b, env, CompositeKind::Result)
    }

    /// `composite condition` and `result` (D35): the attributes but
    /// `condition` as one object, checked here when they are constants.
    fn user_block(&mut self, b: &Block, env: &Env, kind: CompositeKind) -> Option<Composite> {
        let schema = match kind {
            CompositeKind::Condition => &schema::COMPOSITE_CONDITION,
            _ => &schema::RESULT,
        };
        let content = self.content(b, schema, false);
        let (scope, env) = self.locals_scope(&content, env);
        let condition = self.condition(&content, &env);
        let object = Self::attributes_object(b);
        self.check_expr(&object, &env);
        if let fnhcl_syntax::ast::ExprKind::Object(items) = &object.kind {
            for it in items {
                let Some(key) = super::blocks::object_key_name(it) else {
                    continue;
                };
                if is_constant(&it.value) {
                    let (val, ds) = eval_constant(&it.value);
                    if !ds.iter().any(Diagnostic::is_error)
                        && val.is_wholly_known()
                        && let Err(d) = crate::checks::user_field(
                            kind == CompositeKind::Condition,
                            &key,
                            &val,
                            it.value.span,
                        )
                    {
                        self.err(d);
                    }
                }
            }
        }
        Some(Composite {
            kind,
            scope,
            body: env.compile_owned(object),
            condition,
        })
    }

    pub(super) fn context(&mut self, b: &Block, env: &Env) -> Option<ContextBlock> {
        let content = self.content(b, &schema::CONTEXT, false);
        let (scope, env) = self.locals_scope(&content, env);
        let key = content.attr("key").map(|a| &a.expr);
        let value = content.attr("value").map(|a| &a.expr);
        for e in key.iter().chain(value.iter()) {
            self.check_expr(e, &env);
        }
        Some(ContextBlock {
            scope,
            key: env.compile(key?),
            value: env.compile(value?),
        })
    }

    pub(super) fn ready(&mut self, b: &Block, env: &Env, owner: &str) -> Option<Ready> {
        let content = self.content(b, &schema::READY, false);
        let (scope, env) = self.locals_scope(&content, env);
        let value = content.attr("value").map(|a| &a.expr);
        if let Some(v) = value {
            self.ready_value(v, &env, owner);
        }
        Some(Ready {
            scope,
            value: env.compile(value?),
        })
    }

    pub(super) fn requirement(&mut self, b: &Block, env: &Env) -> Option<Requirement> {
        let (name, _) = label(b);
        self.unique(&name, b, Namespace::Requirement);
        let content = self.content(b, &schema::REQUIREMENT, false);
        let (scope, env) = self.locals_scope(&content, env);
        let condition = self.condition(&content, &env);
        let selects: Vec<&Block> = content.blocks_of("select").collect();
        let sb = match selects.as_slice() {
            [] => {
                self.err(
                    Diagnostic::error(
                        format!("no select block in requirement \"{name}\""),
                        "a requirement needs one select { ... } block",
                    )
                    .with_code(codes::SCHEMA)
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
                        .with_code(codes::SCHEMA)
                        .with_span(second.header_span())
                        .with_label(s.header_span(), "first select here"),
                    );
                }
                *s
            }
        };
        let sc = self.content(sb, &schema::SELECT, false);
        let get = |n: &str| sc.attr(n).map(|a| &a.expr);
        let (api_version, kind, match_name, match_labels, namespace) = (
            get("apiVersion"),
            get("kind"),
            get("matchName"),
            get("matchLabels"),
            get("namespace"),
        );
        match (&match_name, &match_labels) {
            (Some(_), Some(_)) => self.err(
                Diagnostic::error(
                    format!(
                        "requirement selector of \"{name}\" has both matchName and matchLabels"
                    ),
                    "select by name or by labels, not both",
                )
                .with_code(codes::SCHEMA)
                .with_span(sb.header_span()),
            ),
            (None, None) => self.err(
                Diagnostic::error(
                    format!(
                        "requirement selector of \"{name}\" has neither matchName nor matchLabels"
                    ),
                    "set matchName or matchLabels",
                )
                .with_code(codes::SCHEMA)
                .with_span(sb.header_span()),
            ),
            _ => {}
        }
        for (field, e) in [
            (crate::checks::SelectField::ApiVersion, api_version),
            (crate::checks::SelectField::Kind, kind),
            (crate::checks::SelectField::MatchName, match_name),
            (crate::checks::SelectField::MatchLabels, match_labels),
            (crate::checks::SelectField::Namespace, namespace),
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
                api_version: env.compile(api_version?),
                kind: env.compile(kind?),
                match_name: match_name.map(|e| env.compile(e)),
                match_labels: match_labels.map(|e| env.compile(e)),
                namespace: namespace.map(|e| env.compile(e)),
            },
        })
    }
}
