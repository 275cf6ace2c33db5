//! Compilation: parse every file, check every block against its schema and
//! every reference against its scope, once. The result is an immutable
//! block tree ([`Program`]) that evaluation walks.

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap, Span};
use fnhcl_syntax::ast::{Attribute, Block, Expr, ExprKind, ObjectItem, ObjectKey, Structure};
use fnhcl_value::Value;

use crate::exprs;
use crate::refs::{self, literal_string};
use crate::schema::{self, BodySchema, Content};

/// A compiled program: immutable, `Send + Sync`, cheap to share.
pub struct Program {
    pub(crate) sources: Arc<SourceMap>,
    pub(crate) top: Scope,
    pub(crate) items: Vec<Item>,
    pub(crate) functions: HashMap<Arc<str>, Function>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Program")
            .field("files", &self.sources.len())
            .field("items", &self.items.len())
            .field("functions", &self.functions.len())
            .finish()
    }
}

impl Program {
    /// The program's sources.
    pub fn sources(&self) -> &Arc<SourceMap> {
        &self.sources
    }
}

/// The locals of one scope (all `locals` blocks of a block, merged).
#[derive(Default)]
pub(crate) struct Scope {
    pub locals: Vec<Local>,
    pub index: HashMap<Arc<str>, usize>,
}

impl Scope {
    pub(crate) fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }

    /// The index of local `name` (a linear scan for the usual small scopes,
    /// hashing only for large ones).
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        if self.locals.len() <= 12 {
            self.locals.iter().position(|l| &*l.name == name)
        } else {
            self.index.get(name).copied()
        }
    }
}

pub(crate) struct Local {
    pub name: Arc<str>,
    pub expr: Expr,
}

/// A `condition = ...` attribute.
pub(crate) struct Cond {
    pub expr: Expr,
    /// The whole attribute (discard records point here).
    pub span: Span,
}

pub(crate) enum Item {
    Group(Group),
    Resource(Resource),
    Collection(Collection),
    Composite(Composite),
    Context(ContextBlock),
    Requirement(Requirement),
}

/// Blocks nested in a resource, template or collection.
pub(crate) enum Child {
    Composite(Composite),
    Context(ContextBlock),
    Ready(Ready),
}

pub(crate) struct Group {
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub items: Vec<Item>,
    /// Plain resource names declared anywhere inside (for the fail-safe).
    pub resource_names: Vec<String>,
    /// Collection base names declared anywhere inside.
    pub collection_names: Vec<String>,
}

pub(crate) struct Resource {
    pub name: String,
    pub header: Span,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub body: Expr,
    pub children: Vec<Child>,
}

pub(crate) struct Collection {
    pub base: String,
    pub header: Span,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub for_each: Expr,
    pub name: Option<Expr>,
    pub children: Vec<Child>,
    pub template: Template,
}

pub(crate) struct Template {
    pub header: Span,
    pub scope: Scope,
    pub body: Expr,
    pub children: Vec<Child>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompositeKind {
    Status,
    Connection,
}

pub(crate) struct Composite {
    pub kind: CompositeKind,
    pub scope: Scope,
    pub body: Expr,
}

pub(crate) struct ContextBlock {
    pub scope: Scope,
    pub key: Expr,
    pub value: Expr,
}

pub(crate) struct Ready {
    pub scope: Scope,
    pub value: Expr,
}

pub(crate) struct Requirement {
    pub name: String,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub select: Select,
}

pub(crate) struct Select {
    pub header: Span,
    pub api_version: Expr,
    pub kind: Expr,
    pub match_name: Option<Expr>,
    pub match_labels: Option<Expr>,
}

pub(crate) struct Function {
    pub name: Arc<str>,
    pub args: Vec<Arg>,
    pub scope: Scope,
    pub body: Expr,
}

pub(crate) struct Arg {
    pub name: Arc<str>,
    pub default: Option<Value>,
}

/// Compiles the files of `sources` into a program. Every problem found is
/// returned (errors only); warnings do not exist at this stage.
pub fn compile(sources: Arc<SourceMap>) -> Result<Program, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut bodies = Vec::new();
    for (id, _) in sources.files() {
        let (body, d) = fnhcl_syntax::parse_file(&sources, id);
        let failed = d.iter().any(Diagnostic::is_error);
        diags.extend(d);
        if !failed {
            bodies.push(body);
        }
    }
    if diags.iter().any(Diagnostic::is_error) {
        return Err(diags);
    }
    let mut c = Compiler {
        sigs: HashMap::new(),
        diags: Vec::new(),
        resources: HashMap::new(),
        collections: HashMap::new(),
        requirements: HashMap::new(),
    };
    // Top-level schema of every file, and the function signatures first
    // (an `invoke` may name a function defined later or in another file).
    let mut contents = Vec::new();
    for body in &bodies {
        contents.push(schema::content(
            body,
            None,
            &schema::TOP,
            false,
            &mut c.diags,
        ));
    }
    let mut fn_blocks = Vec::new();
    for content in &contents {
        for b in content.blocks_of("function") {
            fn_blocks.push(b);
        }
    }
    let mut seen_fns: HashMap<String, Span> = HashMap::new();
    for b in &fn_blocks {
        c.function_signature(b, &mut seen_fns);
    }
    let mut functions = HashMap::new();
    for b in &fn_blocks {
        if let Some(f) = c.function(b) {
            functions.entry(f.name.clone()).or_insert(f);
        }
    }
    // The top-level scope: every file's locals blocks together.
    let top_env = Env {
        req: true,
        self_keys: None,
        each: false,
        names: Vec::new(),
    };
    let mut local_blocks = Vec::new();
    for content in &contents {
        local_blocks.extend(content.blocks_of("locals"));
    }
    let (top, env) = c.scope(&local_blocks, &top_env);
    let mut items = Vec::new();
    for content in &contents {
        items.extend(c.items(content, &env));
    }
    if c.diags.iter().any(Diagnostic::is_error) {
        return Err(c.diags);
    }
    Ok(Program {
        sources,
        top,
        items,
        functions,
    })
}

/// What a user function accepts (for static `invoke` checks).
struct Sig {
    /// `(name, required)`.
    args: Vec<(String, bool)>,
}

/// Names visible in a scope (static view of the runtime frames).
#[derive(Clone)]
struct Env {
    req: bool,
    self_keys: Option<&'static [&'static str]>,
    each: bool,
    /// Locals and function arguments.
    names: Vec<Arc<str>>,
}

impl Env {
    fn has(&self, name: &str) -> bool {
        (self.req && name == "req")
            || (self.self_keys.is_some() && name == "self")
            || (self.each && name == "each")
            || self.names.iter().any(|n| &**n == name)
    }
    fn all_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.names.iter().map(|n| &**n).collect();
        if self.req {
            v.push("req");
        }
        if self.self_keys.is_some() {
            v.push("self");
        }
        if self.each {
            v.push("each");
        }
        v
    }
}

const SELF_RESOURCE: &[&str] = &["name", "resource", "connection"];
const SELF_COLLECTION: &[&str] = &["basename", "resources", "connections"];
const SELF_TEMPLATE: &[&str] = &[
    "basename",
    "resources",
    "connections",
    "name",
    "resource",
    "connection",
];

struct Compiler {
    sigs: HashMap<String, Sig>,
    diags: Vec<Diagnostic>,
    resources: HashMap<String, Span>,
    collections: HashMap<String, Span>,
    requirements: HashMap<String, Span>,
}

/// True if `e` has no variable references and no function calls.
pub(crate) fn is_constant(e: &Expr) -> bool {
    refs::traversals(e).is_empty() && refs::calls(e).is_empty()
}

/// Evaluates a constant expression.
pub(crate) fn eval_constant(e: &Expr) -> (Value, Vec<Diagnostic>) {
    exprs::eval_constant(e)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn label(b: &Block) -> (String, Span) {
    b.labels
        .first()
        .map(|l| (l.value.clone(), l.span))
        .unwrap_or_else(|| (String::new(), b.ident.span))
}

impl Compiler {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn content<'a>(&mut self, b: &'a Block, s: &BodySchema, body_block: bool) -> Content<'a> {
        schema::content(&b.body, Some(b.open_brace), s, body_block, &mut self.diags)
    }

    // ---- scopes and references ----

    /// Builds the scope of `blocks` (all `locals` blocks of one block) on
    /// top of `parent`: duplicate names, shadowing, references, cycles.
    fn scope(&mut self, blocks: &[&Block], parent: &Env) -> (Scope, Env) {
        let mut scope = Scope::default();
        let mut spans: Vec<Span> = Vec::new();
        for b in blocks {
            for item in &b.body.items {
                match item {
                    Structure::Attribute(a) => {
                        let name = a.name.name.clone();
                        if let Some(&i) = scope.index.get(&name) {
                            self.err(
                                Diagnostic::error(
                                    format!("local \"{name}\": duplicate local declaration"),
                                    "",
                                )
                                .with_span(a.span)
                                .with_label(spans[i], "first declared here"),
                            );
                            continue;
                        }
                        if parent.has(&name) {
                            self.err(
                                Diagnostic::error("attempt to shadow variable", name.to_string())
                                    .with_span(a.span),
                            );
                            continue;
                        }
                        scope.index.insert(name.clone(), scope.locals.len());
                        spans.push(a.span);
                        scope.locals.push(Local {
                            name,
                            expr: a.expr.clone(),
                        });
                    }
                    Structure::Block(inner) => self.err(
                        Diagnostic::error(
                            format!("Unexpected \"{}\" block", inner.ident.name),
                            "Blocks are not allowed here.",
                        )
                        .with_span(inner.ident.span),
                    ),
                }
            }
        }
        let mut env = parent.clone();
        env.names
            .extend(scope.locals.iter().map(|l| l.name.clone()));
        for l in &scope.locals {
            self.check_expr(&l.expr, &env);
        }
        self.cycles(&scope, &spans);
        (scope, env)
    }

    /// Reports every dependency cycle among the locals of one scope.
    fn cycles(&mut self, scope: &Scope, spans: &[Span]) {
        let n = scope.locals.len();
        let deps: Vec<Vec<usize>> = scope
            .locals
            .iter()
            .map(|l| {
                let mut d: Vec<usize> = refs::traversals(&l.expr)
                    .iter()
                    .filter_map(|t| scope.index.get(&t.root.name).copied())
                    .collect();
                d.dedup();
                d
            })
            .collect();
        // Iterative DFS; a back edge to a node on the stack is a cycle.
        let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
        let mut reported = vec![false; n];
        for start in 0..n {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some(&mut (node, ref mut next)) = stack.last_mut() {
                if *next < deps[node].len() {
                    let dep = deps[node][*next];
                    *next += 1;
                    match state[dep] {
                        0 => {
                            state[dep] = 1;
                            stack.push((dep, 0));
                        }
                        1 => {
                            let pos = stack.iter().position(|(x, _)| *x == dep).unwrap_or(0);
                            let members: Vec<usize> =
                                stack[pos..].iter().map(|(x, _)| *x).collect();
                            if members.iter().any(|m| reported[*m]) {
                                continue;
                            }
                            for m in &members {
                                reported[*m] = true;
                            }
                            let mut names: Vec<&str> =
                                members.iter().map(|m| &*scope.locals[*m].name).collect();
                            names.push(&scope.locals[dep].name);
                            let mut d = Diagnostic::error(
                                format!("cycle found: {}", names.join(" → ")),
                                "",
                            )
                            .with_span(scope.locals[dep].expr.span);
                            for m in &members {
                                d = d.with_label(
                                    spans[*m],
                                    format!("\"{}\" is part of the cycle", scope.locals[*m].name),
                                );
                            }
                            self.err(d);
                        }
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                    stack.pop();
                }
            }
        }
    }

    /// Checks references and `invoke` calls of one expression (D23).
    fn check_expr(&mut self, e: &Expr, env: &Env) {
        for t in refs::traversals(e) {
            let name = &*t.root.name;
            if !env.has(name) {
                let mut detail = name.to_owned();
                if let Some(s) = schema::suggest(name, env.all_names().into_iter()) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error("reference to non-existent variable", detail)
                        .with_span(t.root.span),
                );
                continue;
            }
            let Some(attr) = t.first_attr else { continue };
            if name == "self"
                && let Some(keys) = env.self_keys
                && !keys.contains(&&*attr.name)
            {
                let mut detail = format!(
                    "self has no attribute \"{}\" here; it has: {}",
                    attr.name,
                    keys.join(", ")
                );
                if let Some(s) = schema::suggest(&attr.name, keys.iter().copied()) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(Diagnostic::error("invalid self reference", detail).with_span(attr.span));
            }
            if name == "each" && env.each && attr.name.as_ref() != "key" && &*attr.name != "value" {
                self.err(
                    Diagnostic::error(
                        "invalid each reference, must be one of 'key' or 'value'",
                        attr.name.to_string(),
                    )
                    .with_span(attr.span),
                );
            }
        }
        for call in refs::calls(e) {
            self.check_function_name(call);
            self.check_invoke(call);
        }
    }

    /// A call of a function that does not exist can never succeed: report
    /// it now rather than deferring the block forever (D23).
    fn check_function_name(&mut self, call: &Expr) {
        let ExprKind::FuncCall { name, .. } = &call.kind else {
            return;
        };
        let fname = &*name.name;
        if fname.contains("::") || fnhcl_functions::exists(fname) {
            return;
        }
        let reg = fnhcl_functions::registry();
        let mut detail = format!("There is no function named \"{fname}\".");
        if let Some(s) = schema::suggest(fname, reg.iter().map(|f| f.name)) {
            detail.push_str(&format!(" Did you mean \"{s}\"?"));
        }
        self.err(Diagnostic::error("Call to unknown function", detail).with_span(name.span));
    }

    fn check_invoke(&mut self, call: &Expr) {
        let ExprKind::FuncCall {
            name,
            args,
            expand_final,
        } = &call.kind
        else {
            return;
        };
        if &*name.name != "invoke" {
            return;
        }
        if args.len() != 2 {
            self.err(
                Diagnostic::error(
                    "user function invocation has incorrect number of arguments",
                    format!("want 2, got {}", args.len()),
                )
                .with_span(call.span),
            );
            return;
        }
        let Some(fname) = literal_string(&args[0]).filter(|_| !*expand_final) else {
            self.err(
                Diagnostic::error("user function invocation is not via a static string", "")
                    .with_span(args[0].span),
            );
            return;
        };
        let Some(sig) = self.sigs.get(&fname) else {
            let mut detail = String::new();
            if let Some(s) = schema::suggest(&fname, self.sigs.keys().map(|k| k.as_str())) {
                detail = format!("did you mean \"{s}\"?");
            }
            self.err(
                Diagnostic::error(
                    format!("invoke called on unknown function: \"{fname}\""),
                    detail,
                )
                .with_span(args[0].span),
            );
            return;
        };
        // Argument names, when the object's keys are all static.
        let ExprKind::Object(items) = &args[1].kind else {
            return;
        };
        let mut keys = Vec::new();
        for it in items {
            match object_key_name(it) {
                Some(k) => keys.push((k, it.value.span)),
                None => return,
            }
        }
        let mut found = Vec::new();
        for (k, span) in &keys {
            if !sig.args.iter().any(|(a, _)| a == k) {
                found.push(
                    Diagnostic::error(format!("function: {fname}, invalid argument \"{k}\""), {
                        let names: Vec<&str> = sig.args.iter().map(|(a, _)| a.as_str()).collect();
                        match schema::suggest(k, names.iter().copied()) {
                            Some(s) => format!("did you mean \"{s}\"?"),
                            None => format!("the function's arguments are: {}", names.join(", ")),
                        }
                    })
                    .with_span(*span),
                );
            }
        }
        for (a, required) in &sig.args {
            if *required && !keys.iter().any(|(k, _)| k == a) {
                found.push(
                    Diagnostic::error(
                        format!("function: {fname}, argument \"{a}\" expected but not supplied"),
                        "",
                    )
                    .with_span(args[1].span),
                );
            }
        }
        self.diags.extend(found);
    }

    // ---- user functions ----

    fn function_signature(&mut self, b: &Block, seen: &mut HashMap<String, Span>) {
        let (name, span) = label(b);
        if let Some(first) = seen.get(&name) {
            let first = *first;
            self.err(
                Diagnostic::error("duplicate function declaration", name.clone())
                    .with_span(b.header_span())
                    .with_label(first, "first declared here"),
            );
            return;
        }
        seen.insert(name.clone(), b.header_span());
        if !is_identifier(&name) {
            self.err(
                Diagnostic::error(
                    format!("function \"{name}\" : name must be an identifier"),
                    "",
                )
                .with_span(span),
            );
        }
        let mut args = Vec::new();
        for item in &b.body.items {
            if let Structure::Block(a) = item
                && &*a.ident.name == "arg"
                && a.labels.len() == 1
            {
                let required =
                    !a.body.items.iter().any(
                        |i| matches!(i, Structure::Attribute(at) if &*at.name.name == "default"),
                    );
                args.push((a.labels[0].value.clone(), required));
            }
        }
        self.sigs.insert(name, Sig { args });
    }

    fn function(&mut self, b: &Block) -> Option<Function> {
        let (name, _) = label(b);
        let content = self.content(b, &schema::FUNCTION, false);
        if let Some(d) = content.attr("description") {
            self.constant_string(&d.expr, || {
                format!("function {name} : description is not a constant string")
            });
        }
        let mut args: Vec<Arg> = Vec::new();
        let mut arg_spans: Vec<Span> = Vec::new();
        for a in content.blocks_of("arg") {
            let (aname, aspan) = label(a);
            if !is_identifier(&aname) {
                self.err(
                    Diagnostic::error(
                        format!(
                            "function \"{name}\", arg \"{aname}\" : name must be an identifier"
                        ),
                        "",
                    )
                    .with_span(aspan),
                );
            }
            let ac = self.content(a, &schema::ARG, false);
            if let Some(d) = ac.attr("description") {
                self.constant_string(&d.expr, || {
                    format!(
                        "function \"{name}\", arg \"{aname}\" : description is not a constant string"
                    )
                });
            }
            let mut default = None;
            if let Some(d) = ac.attr("default") {
                let msg =
                    format!("function \"{name}\", args \"{aname}\": default is not a constant");
                if is_constant(&d.expr) {
                    let (v, ds) = eval_constant(&d.expr);
                    if ds.iter().any(Diagnostic::is_error) || !v.is_wholly_known() {
                        self.err(Diagnostic::error(msg, "").with_span(d.expr.span));
                    } else {
                        default = Some(v);
                    }
                } else {
                    self.err(Diagnostic::error(msg, "").with_span(d.expr.span));
                }
            }
            if let Some(i) = args.iter().position(|x| *x.name == *aname) {
                self.err(
                    Diagnostic::error(
                        format!("function {name}: duplicate definition of argument"),
                        aname.clone(),
                    )
                    .with_span(a.header_span())
                    .with_label(arg_spans[i], "first declared here"),
                );
                continue;
            }
            arg_spans.push(a.header_span());
            args.push(Arg {
                name: aname.into(),
                default,
            });
        }
        let env = Env {
            req: false,
            self_keys: None,
            each: false,
            names: args.iter().map(|a| a.name.clone()).collect(),
        };
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, &env);
        let body = content.attr("body")?;
        self.check_expr(&body.expr, &env);
        Some(Function {
            name: name.into(),
            args,
            scope,
            body: body.expr.clone(),
        })
    }

    fn constant_string(&mut self, e: &Expr, msg: impl FnOnce() -> String) {
        if literal_string(e).is_none() {
            self.err(Diagnostic::error(msg(), "").with_span(e.span));
        }
    }

    // ---- blocks ----

    /// The items of a top-level or group body.
    fn items(&mut self, content: &Content<'_>, env: &Env) -> Vec<Item> {
        let mut items = Vec::new();
        for b in &content.blocks {
            let item = match &*b.ident.name {
                "group" => self.group(b, env).map(Item::Group),
                "resource" => self.resource(b, env).map(Item::Resource),
                "resources" => self.collection(b, env).map(Item::Collection),
                "composite" => self.composite(b, env).map(Item::Composite),
                "context" => self.context(b, env).map(Item::Context),
                "requirement" => self.requirement(b, env).map(Item::Requirement),
                _ => None, // locals (already in the scope) and functions
            };
            items.extend(item);
        }
        items
    }

    fn condition(&mut self, content: &Content<'_>, env: &Env) -> Option<Cond> {
        content.attr("condition").map(|a| {
            self.check_expr(&a.expr, env);
            Cond {
                expr: a.expr.clone(),
                span: a.span,
            }
        })
    }

    fn group(&mut self, b: &Block, env: &Env) -> Option<Group> {
        let content = self.content(b, &schema::GROUP, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let condition = self.condition(&content, &env);
        let items = self.items(&content, &env);
        let mut resource_names = Vec::new();
        let mut collection_names = Vec::new();
        collect_names(&items, &mut resource_names, &mut collection_names);
        Some(Group {
            condition,
            scope,
            items,
            resource_names,
            collection_names,
        })
    }

    /// The body of a resource-like block: `body = ...` or `body { ... }`.
    fn body_expr(&mut self, content: &Content<'_>) -> Option<Expr> {
        let attr = content.attr("body");
        let blocks: Vec<&Block> = content.blocks_of("body").collect();
        if let (Some(a), Some(b)) = (attr, blocks.first()) {
            self.err(
                Diagnostic::error(
                    "body defined twice",
                    "write the body either as an attribute (body = {...}) or as a block (body {...}), not both",
                )
                .with_span(b.ident.span)
                .with_label(a.name.span, "body attribute here"),
            );
            return None;
        }
        if blocks.len() > 1 {
            self.err(
                Diagnostic::error("body defined twice", "only one body block is allowed")
                    .with_span(blocks[1].ident.span)
                    .with_label(blocks[0].ident.span, "first body block here"),
            );
            return None;
        }
        if let Some(a) = attr {
            return Some(a.expr.clone());
        }
        let b = blocks.first()?;
        Some(self.block_as_object(b))
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
                "context" => out.extend(self.context(b, env).map(Child::Context)),
                "ready" => out.extend(self.ready(b, env, owner).map(Child::Ready)),
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
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, &env);
        let condition = self.condition(&content, &env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        let children = self.children(&content, &env, &name);
        Some(Resource {
            name,
            header: b.header_span(),
            condition,
            scope,
            body: body?,
            children,
        })
    }

    fn collection(&mut self, b: &Block, env: &Env) -> Option<Collection> {
        let (base, _) = label(b);
        self.unique(&base, b, Namespace::Collection);
        let content = self.content(b, &schema::RESOURCES, true);
        let mut env = env.clone();
        env.self_keys = Some(SELF_COLLECTION);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, &env);
        let condition = self.condition(&content, &env);
        let for_each = content.attr("for_each").map(|a| {
            self.check_expr(&a.expr, &env);
            a.expr.clone()
        });
        let mut each_env = env.clone();
        each_env.each = true;
        let name = content.attr("name").map(|a| {
            self.check_expr(&a.expr, &each_env);
            a.expr.clone()
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
                    body,
                    children: Vec::new(),
                }
            }),
            [] => {
                self.err(
                    Diagnostic::error(
                        format!("no template block for resource collection {base}"),
                        "",
                    )
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
                        .with_span(second.header_span())
                        .with_label(t.header_span(), "first template here"),
                    );
                }
                self.template(t, &tenv, &base)
            }
        };
        Some(Collection {
            base,
            header: b.header_span(),
            condition,
            scope,
            for_each: for_each?,
            name,
            children,
            template: template?,
        })
    }

    fn template(&mut self, b: &Block, env: &Env, base: &str) -> Option<Template> {
        let content = self.content(b, &schema::TEMPLATE, true);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        let children = self.children(&content, &env, base);
        Some(Template {
            header: b.header_span(),
            scope,
            body: body?,
            children,
        })
    }

    fn composite(&mut self, b: &Block, env: &Env) -> Option<Composite> {
        let (what, span) = label(b);
        let kind = match what.as_str() {
            "status" => Some(CompositeKind::Status),
            "connection" => Some(CompositeKind::Connection),
            _ => {
                let mut detail = "must be \"status\" or \"connection\"".to_owned();
                if let Some(s) = schema::suggest(&what, ["status", "connection"].into_iter()) {
                    detail.push_str(&format!(" (did you mean \"{s}\"?)"));
                }
                self.err(
                    Diagnostic::error(format!("invalid composite label: {what}"), detail)
                        .with_span(span),
                );
                None
            }
        };
        let content = self.content(b, &schema::COMPOSITE, true);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let body = self.body_expr(&content);
        if let Some(body) = &body {
            self.check_expr(body, &env);
        }
        Some(Composite {
            kind: kind?,
            scope,
            body: body?,
        })
    }

    fn context(&mut self, b: &Block, env: &Env) -> Option<ContextBlock> {
        let content = self.content(b, &schema::CONTEXT, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let key = content.attr("key").map(|a| a.expr.clone());
        let value = content.attr("value").map(|a| a.expr.clone());
        for e in key.iter().chain(value.iter()) {
            self.check_expr(e, &env);
        }
        Some(ContextBlock {
            scope,
            key: key?,
            value: value?,
        })
    }

    fn ready(&mut self, b: &Block, env: &Env, owner: &str) -> Option<Ready> {
        let content = self.content(b, &schema::READY, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let value = content.attr("value").map(|a| a.expr.clone());
        if let Some(v) = &value {
            self.check_expr(v, &env);
            if is_constant(v) {
                let (val, ds) = eval_constant(v);
                if !ds.iter().any(Diagnostic::is_error)
                    && val.is_wholly_known()
                    && let Err(d) = crate::eval::ready_state(&val, owner, v.span)
                {
                    self.err(d);
                }
            }
        }
        Some(Ready {
            scope,
            value: value?,
        })
    }

    fn requirement(&mut self, b: &Block, env: &Env) -> Option<Requirement> {
        let (name, _) = label(b);
        self.unique(&name, b, Namespace::Requirement);
        let content = self.content(b, &schema::REQUIREMENT, false);
        let locals: Vec<&Block> = content.blocks_of("locals").collect();
        let (scope, env) = self.scope(&locals, env);
        let condition = self.condition(&content, &env);
        let selects: Vec<&Block> = content.blocks_of("select").collect();
        let sb = match selects.as_slice() {
            [] => {
                self.err(
                    Diagnostic::error("no select block in requirement", name.clone())
                        .with_span(b.header_span()),
                );
                return None;
            }
            [s, rest @ ..] => {
                if let Some(second) = rest.first() {
                    self.err(
                        Diagnostic::error("multiple select blocks in requirement", name.clone())
                            .with_span(second.header_span())
                            .with_label(s.header_span(), "first select here"),
                    );
                }
                *s
            }
        };
        let sc = self.content(sb, &schema::SELECT, false);
        let get = |n: &str| sc.attr(n).map(|a| a.expr.clone());
        let (api_version, kind, match_name, match_labels) = (
            get("apiVersion"),
            get("kind"),
            get("matchName"),
            get("matchLabels"),
        );
        match (&match_name, &match_labels) {
            (Some(_), Some(_)) => self.err(
                Diagnostic::error(
                    "requirement selector has both matchName and matchLabels",
                    name.clone(),
                )
                .with_span(sb.header_span()),
            ),
            (None, None) => self.err(
                Diagnostic::error(
                    "requirement selector has neither matchName nor matchLabels",
                    name.clone(),
                )
                .with_span(sb.header_span()),
            ),
            _ => {}
        }
        for (field, e) in [
            (crate::eval::SelectField::ApiVersion, &api_version),
            (crate::eval::SelectField::Kind, &kind),
            (crate::eval::SelectField::MatchName, &match_name),
            (crate::eval::SelectField::MatchLabels, &match_labels),
        ] {
            let Some(e) = e else { continue };
            self.check_expr(e, &env);
            if is_constant(e) {
                let (v, ds) = eval_constant(e);
                if !ds.iter().any(Diagnostic::is_error)
                    && v.is_wholly_known()
                    && let Err(d) = crate::eval::check_select_value(field, &v, &name, e.span)
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
                api_version: api_version?,
                kind: kind?,
                match_name,
                match_labels,
            },
        })
    }

    /// Duplicate names of resources, collections and requirements (D15).
    fn unique(&mut self, name: &str, b: &Block, ns: Namespace) {
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
                .with_span(span)
                .with_label(first, "first defined here"),
            );
        } else {
            map.insert(name.to_owned(), span);
        }
    }
}

#[derive(Clone, Copy)]
enum Namespace {
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
fn object_key_name(it: &ObjectItem) -> Option<String> {
    match &it.key {
        ObjectKey::Ident(i) => Some(i.name.to_string()),
        ObjectKey::Expr(e) => literal_string(e),
    }
}

fn collect_names(items: &[Item], resources: &mut Vec<String>, collections: &mut Vec<String>) {
    for it in items {
        match it {
            Item::Group(g) => collect_names(&g.items, resources, collections),
            Item::Resource(r) => resources.push(r.name.clone()),
            Item::Collection(c) => collections.push(c.base.clone()),
            _ => {}
        }
    }
}
