//! Static analysis of function-hcl programs (`fn-hcl analyze`, and the
//! check `fn-hcl package` runs before bundling).
//!
//! Two layers:
//! - the evaluator's own static checks ([`fnhcl_eval::compile`]): syntax,
//!   block schemas, duplicate names, references to variables not in scope,
//!   `self`/`each` attributes, `invoke` targets and argument names, user
//!   function definitions, shadowing and local cycles. Its diagnostics carry
//!   their stable [`codes`] entry from where they are created.
//! - checks only a static tool can afford, because at runtime the data may
//!   legitimately be absent (D23): `req.<k>` must be one of the `req`
//!   attributes, `req.resource.<n>` must name a declared `resource` block
//!   (`req.resources.<n>` a `resources` block), calls must name existing
//!   built-in functions with a valid number of arguments, unused locals are
//!   reported, and well-known Kubernetes fields are checked for typos
//!   (`req.composite.spec.x` fine, `req.composite.sepc` suspicious).
//!
//! Findings are [`Diagnostic`]s with [`Diagnostic::code`] set, sorted
//! errors first, then by file and position. No IO.

mod bodies;
mod depends;
mod schema;
mod walk;

pub use fnhcl_base::codes;
pub use schema::{composite_schema, connection_keys, namespaced_composite, step_requirement_names};

use std::sync::Arc;

use fnhcl_base::{Diagnostic, Severity, SourceMap};

/// What the analyser may know beyond the program.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The composite resource's schema (from its XRD): paths under
    /// `req.composite` are checked against it.
    pub composite_schema: Option<Arc<fnhcl_schema::Schema>>,
    /// Schemas of the kinds the program composes (CRDs): the literal parts
    /// of resource bodies are checked against them.
    pub schemas: Option<Arc<fnhcl_schema::SchemaSet>>,
    /// The connection secret keys the XRD declares
    /// (`spec.connectionSecretKeys`): what `composite connection` sets.
    pub connection_keys: Vec<String>,
    /// The names of the requirements the Composition step itself declares
    /// (`requirements.requiredResources[].requirementName`): Crossplane
    /// sends them without a `requirement` block (D36).
    pub bootstrap_requirements: Vec<String>,
    /// Whether the composite is namespaced (a Crossplane 2 XRD whose scope
    /// is `Namespaced`, its default): a requirement that selects by name
    /// without a namespace is then worth a warning (D36).
    pub namespaced_composite: bool,
}

/// Analyses the program made of every file of `sources`.
pub fn analyze(sources: &Arc<SourceMap>) -> Vec<Diagnostic> {
    analyze_with(sources, &Options::default())
}

/// [`analyze`] with extra knowledge.
pub fn analyze_with(sources: &Arc<SourceMap>, options: &Options) -> Vec<Diagnostic> {
    run(sources, options, &mut Vec::new())
}

/// The findings of [`analyze_with`] whose diagnostic was created without a
/// code (they are reported as [`codes::PROGRAM`]). Every check gives its
/// diagnostics their code where it creates them, so this is empty; the
/// tests hold every program they analyse to that.
#[doc(hidden)]
pub fn created_without_code(sources: &Arc<SourceMap>, options: &Options) -> Vec<Diagnostic> {
    let mut missing = Vec::new();
    run(sources, options, &mut missing);
    missing
}

/// A finding as it was created, or, created without a code (a check that
/// forgot its own), as a [`codes::PROGRAM`] one; `missing` keeps those.
fn coded(d: Diagnostic, missing: &mut Vec<Diagnostic>) -> Diagnostic {
    if d.code.is_some() {
        return d;
    }
    missing.push(d.clone());
    d.with_code(codes::PROGRAM)
}

/// [`analyze_with`], keeping in `missing` what was created without a code.
fn run(
    sources: &Arc<SourceMap>,
    options: &Options,
    missing: &mut Vec<Diagnostic>,
) -> Vec<Diagnostic> {
    // Each file is parsed once: the checks below read the files that
    // parse, then the compile takes every tree. A file with syntax errors
    // reports those; the other files are checked as usual, the broken one
    // read as far as it parses (what an editor shows while one file is
    // being typed).
    let parsed: Vec<_> = sources
        .files()
        .map(|(id, _)| fnhcl_syntax::parse_file(sources, id))
        .collect();
    let files: Vec<(fnhcl_base::FileId, &fnhcl_syntax::ast::Body)> = sources
        .files()
        .zip(&parsed)
        .filter(|(_, (_, diags))| !diags.iter().any(Diagnostic::is_error))
        .map(|((id, _), (body, _))| (id, body))
        .collect();
    let bodies: Vec<&fnhcl_syntax::ast::Body> = files.iter().map(|(_, b)| *b).collect();
    let mut checked = Vec::new();
    if let Some(schemas) = &options.schemas {
        checked.extend(bodies::check(&bodies, sources, schemas));
    }
    checked.extend(depends::check(&files, sources));
    let dirs: Vec<String> = files
        .iter()
        .map(|(f, _)| {
            let name = &sources.get(*f).name;
            name.rsplit_once('/').map_or("", |(d, _)| d).to_owned()
        })
        .collect();
    let walked = walk::check(&bodies, &dirs, options);
    drop((files, bodies));

    let mut out = Vec::new();
    let (syntax, compiled) = fnhcl_eval::compile_recovering_parsed(sources.clone(), parsed);
    out.extend(syntax.into_iter().map(|d| coded(d, missing)));
    match compiled {
        Err(diags) => out.extend(diags.into_iter().map(|d| coded(d, missing))),
        Ok(program) => {
            out.extend(program.lints().iter().map(|d| coded(d.clone(), missing)));
            // D39: a program written for an operation runs without a
            // composite.
            if program.is_operation_program() {
                for u in program.composite_uses() {
                    out.push(
                        Diagnostic::error(
                            format!("{} in a program written for an Operation", u.what),
                            "this program has an output block or reads req.watched, so it runs in an Operation, which has no composite resource (no XR, no composed resources, no readiness): the run would fail",
                        )
                        .with_span(u.span)
                        .with_code(codes::COMPOSITE_IN_OPERATION),
                    );
                }
            }
        }
    }
    out.extend(checked.into_iter().map(|d| coded(d, missing)));
    for d in walked {
        let d = coded(d, missing);
        // The evaluator and the walk may see the same problem (an unknown
        // function); keep the evaluator's.
        if !out
            .iter()
            .any(|o| o.primary == d.primary && o.code == d.code)
        {
            out.push(d);
        }
    }
    sorted(out)
}

fn sorted(mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    diags.sort_by(|a, b| {
        let sev = |d: &Diagnostic| match d.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
        };
        let pos = |d: &Diagnostic| d.primary.map(|s| (s.file, s.start, s.end));
        (sev(a), pos(a), &a.summary).cmp(&(sev(b), pos(b), &b.summary))
    });
    diags.dedup_by(|a, b| a.primary == b.primary && a.summary == b.summary && a.detail == b.detail);
    diags
}

/// True if any finding is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}
