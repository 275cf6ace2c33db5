//! Evaluation of a compiled program against one request.
//!
//! Entry points ([`evaluate`] and its variants), the run over the root
//! module and the finishing of warnings. The pieces live in the
//! submodules: `ctx` (per-request state), `frame` (variable frames),
//! `modules` (instances, switches, exports), `req` (the `req` value),
//! `walk` / `resources` / `composite` / `requirements` (the walk over
//! blocks), `output` (the desired state being built) and `values`
//! (small value helpers).

mod composite;
mod ctx;
mod frame;
mod modules;
mod output;
mod req;
mod requirements;
mod resources;
mod values;

pub use values::decode_base64;
mod walk;

use fnhcl_base::{Diagnostic, Severity};
use fnhcl_value::Value;
use std::cell::RefCell;
use std::sync::Arc;

use crate::api::{Fatal, LocalValue, Output, Request};
use crate::compile::Program;
use ctx::Ctx;
use fnhcl_expr::Limits;
use frame::{Frame, FrameVars};
use output::Builder;
use walk::Walk;

/// Nested user-function calls allowed (upstream: the 100th call fails).
const MAX_INVOKE_DEPTH: usize = 100;
/// User-function calls in one evaluation (recursion that is not deep but
/// wide, like a naive Fibonacci, must not run for hours).
const MAX_INVOKE_CALLS: u64 = 200_000;
/// Nested forcing of locals (a chain `a = b + 1, b = c + 1, ...`).
const MAX_LOCAL_DEPTH: usize = 1000;
/// Members of one resource collection.
const MAX_COLLECTION_SIZE: usize = 100_000;
/// Entries listed after `unknown values:`.
const MAX_UNKNOWN_REFS: usize = 100;

/// A fatal stop: the error diagnostics (first one is the headline).
type Stop = Vec<Diagnostic>;
type Res<T> = Result<T, Stop>;

/// Evaluates `program` against `request` with the default [`Limits`]
/// (`max_steps` counts every expression of the request together).
pub fn evaluate(program: &Program, request: &Request) -> Result<Output, Fatal> {
    evaluate_with_limits(program, request, &Limits::default())
}

/// Evaluates `program` against `request` within `limits`: `max_steps` is a
/// budget for the whole request; exceeding it, or a nesting or result-size
/// limit anywhere (even in a local), makes the evaluation fail.
pub fn evaluate_with_limits(
    program: &Program,
    request: &Request,
    limits: &Limits,
) -> Result<Output, Fatal> {
    run(program, request, limits, None, false).0
}

/// For the differential test of the compiled evaluator: evaluates with
/// the compiled expressions or (`tree_walk`) with the tree walk of their
/// ASTs; the result and the steps used.
#[doc(hidden)]
pub fn evaluate_for_comparison(
    program: &Program,
    request: &Request,
    limits: &Limits,
    tree_walk: bool,
) -> (Result<Output, Fatal>, u64) {
    run(program, request, limits, None, tree_walk)
}

/// [`evaluate_with_limits`] that also records the value of every local it
/// computes (an editor's live preview): block-scoped locals once per
/// instance, in evaluation order. The root program's top-level locals are
/// all computed, used or not.
pub fn evaluate_traced(
    program: &Program,
    request: &Request,
    limits: &Limits,
) -> (Result<Output, Fatal>, Vec<LocalValue>) {
    let trace = RefCell::new(Vec::new());
    let (result, _) = run(program, request, limits, Some(&trace), false);
    (result, trace.into_inner())
}

fn run(
    program: &Program,
    request: &Request,
    limits: &Limits,
    trace: Option<&RefCell<Vec<LocalValue>>>,
    tree_walk: bool,
) -> (Result<Output, Fatal>, u64) {
    let mut ctx = Ctx::new(program, request, limits.clone());
    ctx.trace = trace;
    ctx.budget.tree_walk = tree_walk;
    let root_module = &program.modules[0];
    let root = Frame::instance(&ctx, root_module, 0, Value::null());
    let top = Frame::locals(&root, &root_module.top);
    if trace.is_some()
        && let Some(f) = &top
        && let FrameVars::Locals { scope, cells } = &f.vars
    {
        for i in 0..scope.locals.len() {
            f.force(scope, cells, i);
        }
    }
    let mut w = Walk {
        ctx: &ctx,
        out: Builder::with_capacity(root_module.items.len()),
        rt: 0,
        prefix: Arc::from(""),
        inherited: walk::Inherited::default(),
    };
    let mut result = w.items(top.as_ref().unwrap_or(&root), &root_module.items);
    if let Some(limit) = ctx.budget.exceeded() {
        result = Err(vec![limit]);
    }
    let warnings = ctx.take_warnings();
    let steps = ctx.budget.used();
    let result = match result.and_then(|()| w.out.finish(program)) {
        Ok(mut out) => {
            out.warnings = finish_warnings(warnings, program);
            out.sources = program.sources.clone();
            Ok(out)
        }
        Err(mut errs) => {
            errs.extend(warnings);
            Err(Fatal::new(errs, program.sources.clone()))
        }
    };
    (result, steps)
}

/// Deduplicates (severity, range, summary) and sorts by file and position.
fn finish_warnings(mut ws: Vec<Diagnostic>, program: &Program) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    ws.retain(|d| seen.insert((d.severity, d.primary.or(d.context), d.summary.clone())));
    ws.sort_by_cached_key(|d| {
        let sev = match d.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
        };
        let span = d.primary.or(d.context);
        let file = span.map(|s| program.sources.get(s.file).name.clone());
        (sev, file, span.map(|s| s.start))
    });
    ws
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use fnhcl_base::SourceMap;

    use crate::{Request, compile, evaluate};

    #[test]
    fn program_is_shared_across_threads() {
        fn is_send_sync<T: Send + Sync>() {}
        is_send_sync::<crate::Program>();
        let mut sm = SourceMap::new();
        sm.add(
            "main.hcl",
            "resources r {\n  for_each = range(20)\n  template {\n    body = { i = each.value }\n  }\n}\n",
        );
        let program = Arc::new(compile(Arc::new(sm)).expect("compiles"));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let p = program.clone();
                std::thread::spawn(move || {
                    let out = evaluate(&p, &Request::default()).expect("evaluates");
                    out.resources
                        .iter()
                        .map(|r| r.name.clone())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let results: Vec<Vec<String>> = handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect();
        assert_eq!(results[0].len(), 20);
        assert_eq!(results[0][0], "r-0");
        assert!(results.iter().all(|r| *r == results[0]));
    }
}
