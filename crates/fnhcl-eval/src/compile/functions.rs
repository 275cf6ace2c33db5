//! User functions: signatures, bodies and the checks of function names
//! and `invoke` calls.

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, Span, codes};
use fnhcl_syntax::ast::{Block, Expr, ExprKind, Structure};

use super::blocks::{key_span, object_key_name};
use super::env::{
    Compiler, Env, NO_FILESYSTEM, NOT_HERMETIC, Sig, eval_constant, is_constant, label,
};
use super::types::{Arg, Function};
use crate::layout::is_identifier;
use crate::refs::literal_string;
use crate::schema;

impl Compiler<'_> {
    /// A call of a function that does not exist can never succeed: report
    /// it now rather than deferring the block forever (D23).
    pub(super) fn check_function_name(&mut self, call: &Expr) {
        let ExprKind::FuncCall { name, .. } = &call.kind else {
            return;
        };
        let fname = &*name.name;
        if fname.contains("::") || fnhcl_functions::exists(fname) {
            return;
        }
        let reg = fnhcl_functions::registry();
        let detail = if self.sigs.contains_key(fname) {
            format!(
                "\"{fname}\" is a user function: call it with invoke(\"{fname}\", {{ <argument> = <value>, ... }})"
            )
        } else if NO_FILESYSTEM.contains(&fname) || fname.starts_with("file") {
            format!("\"{fname}\" is not available: function-hcl has no filesystem")
        } else {
            let mut d = if NOT_HERMETIC.contains(&fname) {
                format!(
                    "\"{fname}\" is not available: evaluation is hermetic (the same request always gives the same response)"
                )
            } else {
                format!("there is no built-in function \"{fname}\"")
            };
            if let Some(s) = schema::suggest(fname, reg.iter().map(|f| f.name)) {
                d.push_str(&format!("; did you mean \"{s}\"?"));
            }
            d
        };
        self.err(
            Diagnostic::error(format!("call to unknown function \"{fname}\""), detail)
                .with_code(codes::UNKNOWN_FUNCTION)
                .with_span(name.span),
        );
    }

    pub(super) fn check_invoke(&mut self, call: &Expr) {
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
            // The first extra argument, or the closing parenthesis where
            // one is missing (as HCL's arity errors).
            let subject = match args.get(2) {
                Some(extra) => extra.span,
                None => Span::new(
                    call.span.file,
                    (call.span.end as usize).saturating_sub(1),
                    call.span.end as usize,
                ),
            };
            self.err(
                Diagnostic::error(
                    "user function invocation has incorrect number of arguments",
                    format!(
                        "invoke takes 2 arguments, the function name and an object of arguments; got {}",
                        args.len()
                    ),
                )
                .with_span(subject)
                .with_code(codes::BAD_INVOKE),
            );
            return;
        }
        let Some(fname) = literal_string(&args[0]).filter(|_| !*expand_final) else {
            self.err(
                Diagnostic::error("user function invocation is not via a static string", "")
                    .with_code(codes::BAD_INVOKE)
                    .with_span(args[0].span),
            );
            return;
        };
        let Some(sig) = self.sigs.get(&fname) else {
            let detail = match schema::suggest(&fname, self.sigs.keys().map(|k| k.as_str())) {
                Some(s) => format!("did you mean \"{s}\"?"),
                None if self.sigs.is_empty() => {
                    "the program declares no function blocks".to_owned()
                }
                None => {
                    let mut names: Vec<&str> = self.sigs.keys().map(String::as_str).collect();
                    names.sort_unstable();
                    format!("declared functions: {}", names.join(", "))
                }
            };
            self.err(
                Diagnostic::error(
                    format!("invoke called on unknown function \"{fname}\""),
                    detail,
                )
                .with_code(codes::UNKNOWN_INVOKE_TARGET)
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
                Some(k) => keys.push((k, key_span(it))),
                None => return,
            }
        }
        let mut found = Vec::new();
        for (k, span) in &keys {
            if !sig.args.iter().any(|(a, _)| a == k) {
                found.push(
                    Diagnostic::error(format!("function: \"{fname}\" has no argument \"{k}\""), {
                        let names: Vec<&str> = sig.args.iter().map(|(a, _)| a.as_str()).collect();
                        match schema::suggest(k, names.iter().copied()) {
                            Some(s) => format!("did you mean \"{s}\"?"),
                            None => format!("the function's arguments are: {}", names.join(", ")),
                        }
                    })
                    .with_code(codes::WRONG_ARGUMENT_NAME)
                    .with_span(*span),
                );
            }
        }
        for (a, required) in &sig.args {
            if *required && !keys.iter().any(|(k, _)| k == a) {
                found.push(
                    Diagnostic::error(
                        format!(
                            "function: \"{fname}\", argument \"{a}\" expected but not supplied"
                        ),
                        "the argument has no default, so every invoke must set it",
                    )
                    .with_code(codes::MISSING_ARGUMENT)
                    .with_span(args[1].span),
                );
            }
        }
        self.diags.extend(found);
    }

    // ---- user functions ----

    pub(super) fn function_signature(&mut self, b: &Block, seen: &mut HashMap<String, Span>) {
        let (name, span) = label(b);
        if let Some(first) = seen.get(&name) {
            let first = *first;
            self.err(
                Diagnostic::error(
                    format!("duplicate function declaration \"{name}\""),
                    "function names must be unique in the program",
                )
                .with_code(codes::DUPLICATE)
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
                .with_code(codes::FUNCTION_DEFINITION)
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

    pub(super) fn function(&mut self, b: &Block) -> Option<Function> {
        let (name, _) = label(b);
        let content = self.content(b, &schema::FUNCTION, false);
        if let Some(d) = content.attr("description") {
            self.constant_string(&d.expr, codes::FUNCTION_DEFINITION, || {
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
                    .with_code(codes::FUNCTION_DEFINITION)
                    .with_span(aspan),
                );
            }
            let ac = self.content(a, &schema::ARG, false);
            if let Some(d) = ac.attr("description") {
                self.constant_string(&d.expr, codes::FUNCTION_DEFINITION, || {
                    format!(
                        "function \"{name}\", arg \"{aname}\" : description is not a constant string"
                    )
                });
            }
            let default = ac.attr("default").and_then(|d| {
                let msg =
                    format!("function \"{name}\", args \"{aname}\": default is not a constant");
                self.constant_default(&d.expr, msg, "")
            });
            if let Some(i) = args.iter().position(|x| *x.name == *aname) {
                self.err(
                    Diagnostic::error(
                        format!(
                            "function \"{name}\": duplicate definition of argument \"{aname}\""
                        ),
                        "argument names must be unique in a function",
                    )
                    .with_code(codes::DUPLICATE)
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
        let names: Vec<Arc<str>> = args.iter().map(|a| a.name.clone()).collect();
        let env = Env {
            req: false,
            self_keys: None,
            each: false,
            bound: None,
            module: None,
        }
        .with_names(&names, |_| None);
        let (scope, env) = self.locals_scope(&content, &env);
        let body = content.attr("body")?;
        self.check_expr(&body.expr, &env);
        Some(Function {
            name: name.into(),
            args,
            scope,
            body: env.compile(&body.expr),
        })
    }

    /// A parameter's or argument's `default`: a constant, wholly known
    /// value, else the error `msg` (with `detail` when the expression is
    /// not a constant one) and `None`.
    pub(super) fn constant_default(
        &mut self,
        e: &Expr,
        msg: String,
        detail: &str,
    ) -> Option<fnhcl_value::Value> {
        let detail = if is_constant(e) {
            let (v, ds) = eval_constant(e);
            if !ds.iter().any(Diagnostic::is_error) && v.is_wholly_known() {
                return Some(v);
            }
            ""
        } else {
            detail
        };
        self.err(
            Diagnostic::error(msg, detail)
                .with_code(codes::FUNCTION_DEFINITION)
                .with_span(e.span),
        );
        None
    }

    pub(super) fn constant_string(
        &mut self,
        e: &Expr,
        code: &'static str,
        msg: impl FnOnce() -> String,
    ) {
        if literal_string(e).is_none() {
            self.err(
                Diagnostic::error(msg(), "")
                    .with_span(e.span)
                    .with_code(code),
            );
        }
    }
}
