//! Operations (D39): Crossplane 2 runs a function pipeline with no
//! composite for an `Operation`, `CronOperation` or `WatchOperation`. What
//! tells such a run apart, and the rules a program must follow there.

use fnhcl_eval::{Output, Program};
use fnhcl_value::Value;
use function_sdk_rust::proto::v1::RunFunctionRequest;

/// A request without an observed composite resource is an operation's.
pub fn is_operation(req: &RunFunctionRequest) -> bool {
    req.observed
        .as_ref()
        .and_then(|o| o.composite.as_ref())
        .and_then(|c| c.resource.as_ref())
        .is_none()
}

/// How many uses a message lists before it counts the rest.
const LISTED: usize = 5;

/// An operation has no composite: a program that uses one (composite or
/// `ready` blocks, `req.composite`, observed resources) cannot run there.
pub fn check_program(program: &Program) -> Result<(), String> {
    let uses = program.composite_uses();
    if uses.is_empty() {
        return Ok(());
    }
    let sources = program.sources();
    let mut listed: Vec<String> = uses
        .iter()
        .take(LISTED)
        .map(|u| format!("{} at {}", u.what, sources.range_text(u.span)))
        .collect();
    if uses.len() > LISTED {
        listed.push(format!("and {} more", uses.len() - LISTED));
    }
    Err(format!(
        "{}: {} in an Operation: an Operation has no composite resource (no XR, no composed resources, no readiness); this program uses one: {}",
        sources.range_text(uses[0].span),
        uses[0].what,
        listed.join("; ")
    ))
}

/// A composition has no `output`: a program written for an operation
/// (with `output` blocks) run for a composite resource is a mistake.
pub fn check_composition(output: &Output) -> Result<(), String> {
    if output.operation_output.is_some() {
        return Err(
            "output blocks are for Operations, and this request is a composition's (it has an observed composite resource): remove them, or run the program in an Operation"
                .to_owned(),
        );
    }
    Ok(())
}

/// What an operation's run must hold before its response is sent: every
/// block complete (an Operation runs once, so deferring makes no sense),
/// unless Crossplane has yet to answer a requirement the run asked for
/// (then the next call has the data), and every object identified.
pub fn check_output(
    req: &RunFunctionRequest,
    program: &Program,
    output: &Output,
) -> Result<(), String> {
    let answered = |name: &str| {
        req.required_resources.contains_key(name) || req.extra_resources.contains_key(name)
    };
    let watched = req
        .required_resources
        .get(fnhcl_eval::WATCHED_RESOURCE)
        .is_some_and(|r| !r.items.is_empty());
    let waiting = output.requirements.keys().any(|n| !answered(n));
    let mut missing = output.reported_discards();
    if !waiting && let Some(first) = missing.next() {
        let mut message = String::new();
        if program.reads_watched() && !watched {
            message.push_str("this program reads req.watched, and the request has no watched resource (a WatchOperation sends the object it watched; fn-hcl render takes it with -w/--watched-resource); ");
        }
        message.push_str(&format!(
            "an Operation cannot wait for values it does not have: {}",
            first.message()
        ));
        let rest = missing.count();
        if rest > 0 {
            message.push_str(&format!("\n(and {rest} more incomplete block(s))"));
        }
        return Err(message);
    }
    for r in &output.resources {
        for path in [&["apiVersion"][..], &["kind"], &["metadata", "name"]] {
            if !non_empty_string(&r.body, path) {
                let field = path.join(".");
                return Err(format!(
                    "resource {:?}: an Operation applies objects by apiVersion, kind and metadata.name, and this body has no {field}",
                    r.name
                ));
            }
        }
    }
    Ok(())
}

fn non_empty_string(v: &Value, path: &[&str]) -> bool {
    let mut cur = v;
    for k in path {
        match cur.as_entries().and_then(|m| m.get(*k)) {
            Some(next) => cur = next,
            None => return false,
        }
    }
    cur.as_str().is_some_and(|s| !s.is_empty())
}
