//! Blocks: items, groups, conditions, bodies, resources, collections and
//! templates, and duplicate names.

use std::borrow::Cow;

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Attribute, Block, Expr, ExprKind, ObjectItem, ObjectKey, Structure};

use super::env::{Compiler, Env, SELF_COLLECTION, SELF_RESOURCE, SELF_TEMPLATE, label};
use super::types::{Child, Collection, Cond, Group, Item, Names, Resource, Scope, Template};
use crate::refs::literal_string;
use crate::schema::{self, Content};

impl Compiler<'_> {
    /// The items of a top-level or group body.
    pub(super) fn items(&mut self, content: &Content<'_>, env: &Env) -> Vec<Item> {
        let mut items = Vec::new();
        for b in &content.blocks {
            let item = match &*b.ident.name {
                "group" => self.group(b, env).map(Item::Group),
                "resource" => self.resource(b, env).map(Item::Resource),
                "resources" => self
                    .collection(b, env)
                    .map(|c| Item::Collection(Box::new(c))),
                "composite" => self.composite(b, env).map(Item::Composite),
                "result" => self.result(b, env).map(Item::Composite),
                "output" => self.output(b, env).map(Item::Composite),
                "context" => self.context(b, env).map(Item::Context),
                "requirement" => self
                    .requirement(b, env)
                    .map(|r| Item::Requirement(Box::new(r))),
                "module" => self.instance(b, env).map(Item::Module),
                "switch" => self.switch(b, env).map(Item::Switch),
                // locals (already in the scope), functions, imports,
                // params and exports (compiled by the module)
                _ => None,
            };
            items.extend(item);
        }
        items
    }

    pub(super) fn condition(&mut self, content: &Content<'_>, env: &Env) -> Option<Cond> {
        content.attr("condition").map(|a| {
            self.check_expr(&a.expr, env);
            Cond {
                expr: env.compile(&a.expr),
                span: a.span,
            }
        })
    }

    /// `optional = true | false` (D32) of a resource-like block.
    pub(super) fn optional(&mut self, content: &Content<'_>) -> bool {
        content
            .attr("optional")
            .is_some_and(|a| self.optional_attr(a))
    }

    /// The value of an `optional` attribute: a constant bool, else an
    /// error (and false).
    pub(super) fn optional_attr(&mut self, a: &Attribute) -> bool {
        if super::env::is_constant(&a.expr) {
            let (v, ds) = super::env::eval_constant(&a.expr);
            if !ds.iter().any(Diagnostic::is_error)
                && let fnhcl_value::Value::Bool(b) = v
            {
                return b;
            }
        }
        self.err(
            Diagnostic::error(
                "optional must be true or false",
                "write optional = true (or leave it out); it cannot be computed",
            )
            .with_code(codes::PROGRAM)
            .with_span(a.expr.span),
        );
        false
    }

    fn group(&mut self, b: &Block, env: &Env) -> Option<Group> {
        let content = self.content(b, &schema::GROUP, false);
        let (scope, env) = self.locals_scope(&content, env);
        let condition = self.condition(&content, &env);
        let items = self.items(&content, &env);
        let names = names_of(&items);
        Some(Group {
            condition,
            scope,
            items,
            names,
        })
    }

    /// The body of a resource-like block: `body = ...` or `body { ... }`.
    /// Borrowed for the attribute (compiled with one copy), owned for the
    /// block (built here, compiled without a copy).
    pub(super) fn body_expr<'a>(&mut self, content: &Content<'a>) -> Option<Cow<'a, Expr>> {
        let attr = content.attr("body");
        let blocks: Vec<&Block> = content.blocks_of("body").collect();
        if let (Some(a), Some(b)) = (attr, blocks.first()) {
            self.err(
                Diagnostic::error(
                    "body defined twice",
                    "write the body either as an attribute (body = {...}) or as a block (body {...}), not both",
                )
                .with_span(b.ident.span)
                .with_label(a.name.span, "body attribute here")
                .with_code(codes::DUPLICATE),
            );
            return None;
        }
        if blocks.len() > 1 {
            self.err(
                Diagnostic::error("body defined twice", "only one body block is allowed")
                    .with_code(codes::DUPLICATE)
                    .with_span(blocks[1].ident.span)
                    .with_label(blocks[0].ident.span, "first body block here"),
            );
            return None;
        }
        if let Some(a) = attr {
            return Some(Cow::Borrowed(&a.expr));
        }
        let b = blocks.first()?;
        Some(Cow::Owned(self.block_as_object(b)))
    }

    /// The attributes of `b` but `condition`, as one object expression
    /// (`composite condition` and `result`, D35).
    pub(super) fn attributes_object(b: &Block) -> Expr {
        let items = b
            .body
            .items
            .iter()
            .filter_map(|item| match item {
                Structure::Attribute(a) if &*a.name.name != "condition" => Some(attr_item(a)),
                _ => None,
            })
            .collect();
        Expr {
            kind: ExprKind::Object(items),
            span: b.body.span,
        }
    }

    /// `body { a = 1 }` as the object expression `{ a = 1 }` (D4).
    fn block_as_object(&mut self, b: &Block) -> Expr {
        let mut items = Vec::new();
        for item in &b.body.items {
            match item {
                Structure::Attribute(a) => items.push(attr_item(a)),
                Structure::Block(inner) => self.err(
                    Diagnostic::error(
                        format!("Unexpected \"{}\" block", inner.ident.name),
                        format!(
                            "Blocks are not allowed in a body block; write {} = {{ ... }} instead.",
                            inner.ident.name
                        ),
                    )
                    .with_code(codes::SCHEMA)
                    .with_span(inner.ident.span),
                ),
            }
        }
        Expr {
            kind: ExprKind::Object(items),
            span: b.body.span,
        }
    }

    fn children(&mut self, content: &Content<'_>, env: &Env, owner: &str) -> Vec<Child> {
        let mut out = Vec::new();
        for b in &content.blocks {
            match &*b.ident.name {
                "composite" => out.extend(self.composite(b, env).map(Child::Composite)),
                "result" => out.extend(self.result(b, env).map(Child::Composite)),
                "context" => out.extend(self.context(b, env).map(Child::Context)),
                "ready" => {
                    self.composite_uses.push(crate::CompositeUse {
                        span: b.ident.span,
                        what: "ready block".to_owned(),
                    });
                    out.extend(self.ready(b, env, owner).map(Child::Ready));
                }
                _ => {}
            }
        }
        out
    }

    fn resource(&mut self, b: &Block, env: &Env) -> Option<Resource> {
        let (name, _) = label(b);
        self.unique(&name, b, Namespace::Resource);
        let content = self.content(b, &schema::RESOURCE, true);
        let mut env = env.clone();
        env.self_keys = Some(SELF_RESOURCE);
        let (scope, env) = self.locals_scope(&content, &env);
        let condition = self.condition(&content, &env);
        let optional = self.optional(&content);
        let policy = self.policy(
            &name,
            content.attr("depends_on"),
            content.attr("on_incomplete"),
        );
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        let children = self.children(&content, &env, &name);
        Some(Resource {
            name,
            header: b.header_span(),
            condition,
            optional,
            policy,
            scope,
            body: env.compile_cow(body?),
            children,
        })
    }

    fn collection(&mut self, b: &Block, env: &Env) -> Option<Collection> {
        let (base, _) = label(b);
        self.unique(&base, b, Namespace::Collection);
        let content = self.content(b, &schema::RESOURCES, true);
        let mut env = env.clone();
        env.self_keys = Some(SELF_COLLECTION);
        let (scope, env) = self.locals_scope(&content, &env);
        let condition = self.condition(&content, &env);
        let for_each = content.attr("for_each").map(|a| {
            self.check_expr(&a.expr, &env);
            env.compile(&a.expr)
        });
        let mut each_env = env.clone();
        each_env.each = true;
        let name = content.attr("name").map(|a| {
            self.check_expr(&a.expr, &each_env);
            each_env.compile(&a.expr)
        });
        let children = self.children(&content, &env, &base);
        let templates: Vec<&Block> = content.blocks_of("template").collect();
        let has_body = content.attr("body").is_some() || content.blocks_of("body").next().is_some();
        let mut tenv = each_env.clone();
        tenv.self_keys = Some(SELF_TEMPLATE);
        let template = match templates.as_slice() {
            // The language spec's shorthand: `body` directly in `resources`
            // is a template with just that body.
            [] if has_body => self.body_expr(&content).map(|body| {
                self.check_expr(&body, &tenv);
                Template {
                    header: b.header_span(),
                    scope: Scope::default(),
                    body: tenv.compile_cow(body),
                    children: Vec::new(),
                }
            }),
            [] => {
                self.err(
                    Diagnostic::error(
                        format!("no template block for resource collection {base}"),
                        "",
                    )
                    .with_code(codes::SCHEMA)
                    .with_span(b.header_span()),
                );
                None
            }
            [t, ..] if has_body => {
                self.err(
                    Diagnostic::error(
                        format!("both body and template in resource collection {base}"),
                        "write the body inside the template block",
                    )
                    .with_code(codes::PROGRAM)
                    .with_span(t.header_span()),
                );
                None
            }
            [t, rest @ ..] => {
                if let Some(second) = rest.first() {
                    self.err(
                        Diagnostic::error(
                            format!("multiple template blocks for resource collection {base}"),
                            "",
                        )
                        .with_code(codes::SCHEMA)
                        .with_span(second.header_span())
                        .with_label(t.header_span(), "first template here"),
                    );
                }
                self.template(t, &tenv, &base)
            }
        };
        let optional = self.optional(&content);
        let policy = self.policy(
            &base,
            content.attr("depends_on"),
            content.attr("on_incomplete"),
        );
        Some(Collection {
            base,
            header: b.header_span(),
            condition,
            optional,
            policy,
            scope,
            for_each: for_each?,
            name,
            children,
            template: template?,
        })
    }

    fn template(&mut self, b: &Block, env: &Env, base: &str) -> Option<Template> {
        let content = self.content(b, &schema::TEMPLATE, true);
        let (scope, env) = self.locals_scope(&content, env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        let children = self.children(&content, &env, base);
        Some(Template {
            header: b.header_span(),
            scope,
            body: env.compile_cow(body?),
            children,
        })
    }

    /// Duplicate names of resources, collections and requirements (D15).
    pub(super) fn unique(&mut self, name: &str, b: &Block, ns: Namespace) {
        let span = b.header_span();
        let (map, what) = match ns {
            Namespace::Resource => (&mut self.resources, "resource"),
            Namespace::Collection => (&mut self.collections, "resource collection"),
            Namespace::Requirement => (&mut self.requirements, "requirement"),
        };
        if let Some(first) = map.get(name).copied() {
            self.diags.push(
                Diagnostic::error(
                    format!("duplicate {what} \"{name}\""),
                    format!("a {what} named \"{name}\" is already defined"),
                )
                .with_code(codes::DUPLICATE)
                .with_span(span)
                .with_label(first, "first defined here"),
            );
        } else {
            map.insert(name.to_owned(), span);
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum Namespace {
    Resource,
    Collection,
    Requirement,
}

fn attr_item(a: &Attribute) -> ObjectItem {
    ObjectItem {
        key: ObjectKey::Ident(a.name.clone()),
        value: a.expr.clone(),
    }
}

/// The static name of an object constructor key (`a = ...`, `"a" = ...`).
pub(crate) fn object_key_name(it: &ObjectItem) -> Option<String> {
    match &it.key {
        ObjectKey::Ident(i) => Some(i.name.to_string()),
        ObjectKey::Expr(e) => literal_string(e),
    }
}

/// The span of an object item's key (the offending step when the key is
/// not an accepted name).
pub(crate) fn key_span(it: &ObjectItem) -> Span {
    match &it.key {
        ObjectKey::Ident(i) => i.span,
        ObjectKey::Expr(e) => e.span,
    }
}

/// What `items` can emit, relative to the enclosing module.
pub(super) fn names_of(items: &[Item]) -> Names {
    let mut out = Names::default();
    for it in items {
        match it {
            Item::Group(g) => out.extend(&g.names),
            Item::Resource(r) => {
                out.resources.push((r.name.clone(), r.header));
                out.required |= !r.optional;
            }
            Item::Collection(c) => {
                out.collections.push((c.base.clone(), c.header));
                out.required |= !c.optional;
            }
            Item::Module(i) => {
                out.resources.extend(i.names.resources.iter().cloned());
                out.collections.extend(i.names.collections.iter().cloned());
                out.required |= i.names.required && !i.optional;
            }
            Item::Switch(sw) => out.extend(&sw.names),
            _ => {}
        }
    }
    out
}
