//! Live preview: the program evaluated against an XR (and optionally
//! observed resources, extra/required resources, context) sitting next to
//! it, as `fn-hcl render` would: the rendered desired state, and inlay
//! hints with each local's value and the unknown references that hold a
//! deferred block back.
//!
//! The Composition is made from the program itself (one function-hcl step
//! whose input holds the snapshot's files), so no composition file is
//! needed. The caller reads the input files; this module does no IO.

use std::fmt::Write as _;
use std::sync::{Arc, OnceLock};

use fnhcl_base::{FileId, Span};
use fnhcl_eval::{LocalValue, Output};
use fnhcl_render::{RenderInputs, RenderOptions, Source};
use fnhcl_value::Value;

use crate::Snapshot;

/// The name of the function-hcl step's function in the made Composition.
const FUNCTION_NAME: &str = "function-hcl";

/// Evaluation steps a preview may take (the function's default is 20M):
/// an editor waits for it.
pub(crate) const PREVIEW_MAX_STEPS: u64 = 2_000_000;

/// Why there is no preview without an XR.
pub(crate) const NO_XR: &str =
    "no xr.yaml next to the program: the preview renders the program against the XR in that file";

/// Longest inlay hint label, in characters.
const MAX_LABEL: usize = 60;

/// What the preview renders against, already read: the files
/// `fn-hcl render` takes besides the composition.
#[derive(Clone, Debug, Default)]
pub struct PreviewInputs {
    /// The XR (`xr.yaml`).
    pub xr: Option<Source>,
    /// Observed composed resources (`observed.yaml`, `observed/*.yaml`).
    pub observed: Vec<Source>,
    /// `extra-resources.yaml`.
    pub extra_resources: Vec<Source>,
    /// `required-resources.yaml`.
    pub required_resources: Vec<Source>,
    /// `context.json` / `context.yaml` entries: (key, file).
    pub context_files: Vec<(String, Source)>,
}

/// A preview of one snapshot.
#[derive(Clone, Debug)]
pub struct Preview {
    /// The YAML stream `fn-hcl render` prints, or why rendering failed.
    pub rendered: Result<String, String>,
    /// Inlay hints of every file, sorted by position.
    pub hints: Vec<InlayHint>,
}

/// What an inlay hint shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HintKind {
    /// A local's value, after its expression.
    Value,
    /// A deferred block, before the expression that was incomplete.
    Deferred,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    pub file: FileId,
    /// Where the hint goes (byte offset).
    pub offset: u32,
    pub kind: HintKind,
    /// One line, short.
    pub label: String,
    /// The longer text (the whole value, every reason).
    pub tooltip: String,
}

impl Preview {
    /// The hints of `file` whose offsets fall in `span` (inclusive).
    pub fn hints_in(&self, span: Span) -> impl Iterator<Item = &InlayHint> {
        self.hints
            .iter()
            .filter(move |h| h.file == span.file && h.offset >= span.start && h.offset <= span.end)
    }
}

/// Renders `snapshot`'s program against `inputs`. Never panics on broken
/// programs or inputs: failures are in [`Preview::rendered`].
pub fn preview(snapshot: &Snapshot, inputs: &PreviewInputs) -> Preview {
    let Some(xr) = &inputs.xr else {
        return Preview {
            rendered: Err(NO_XR.to_owned()),
            hints: Vec::new(),
        };
    };
    let composition = match composition(snapshot, &xr.text) {
        Ok(c) => c,
        Err(e) => {
            return Preview {
                rendered: Err(e),
                hints: Vec::new(),
            };
        }
    };
    let render_inputs = RenderInputs {
        xr: Some(xr.clone()),
        composition: Some(Source::new("(the program's composition)", composition)),
        observed: inputs.observed.clone(),
        extra_resources: inputs.extra_resources.clone(),
        required_resources: inputs.required_resources.clone(),
        context_files: inputs.context_files.clone(),
        ..RenderInputs::default()
    };
    let opts = RenderOptions {
        function_names: vec![FUNCTION_NAME.to_owned()],
        ..RenderOptions::default()
    };
    let f = function();
    let run = |r: &fnhcl_crossplane::proto::RunFunctionRequest| f.run(r);
    let (rendered, requests) = match fnhcl_render::render(&render_inputs, &opts, &run) {
        Ok(out) => (
            out.to_yaml().map_err(|e| e.to_string()),
            out.requests.clone(),
        ),
        Err(e) => (
            Err(match &e.frames {
                Some(frames) => format!("{}\n{frames}", e.message),
                None => e.message,
            }),
            Vec::new(),
        ),
    };
    // The last request is the most complete one (requirements answered).
    // When the render failed (a fatal result, a conflict in the outputs)
    // the locals are still worth showing: evaluate against the XR alone.
    let request = match requests.last() {
        Some(req) => Some(fnhcl_crossplane::request::eval_request(req)),
        None => xr_only(&xr.text),
    };
    let hints = request.map(|r| hints(snapshot, &r)).unwrap_or_default();
    Preview { rendered, hints }
}

/// A request with the XR alone (no observed resources), if it loads.
fn xr_only(text: &str) -> Option<fnhcl_eval::Request> {
    let docs = fnhcl_render::yaml::load_stream(text).ok()?;
    let xr = docs
        .into_iter()
        .next()
        .filter(serde_json::Value::is_object)?;
    Some(fnhcl_eval::Request {
        composite: Some(fnhcl_value::from_serde_json(&xr)),
        ..fnhcl_eval::Request::default()
    })
}

/// The in-process function, with the preview's limits.
fn function() -> &'static fnhcl_crossplane::Function {
    static F: OnceLock<fnhcl_crossplane::Function> = OnceLock::new();
    F.get_or_init(|| {
        let mut o = fnhcl_crossplane::Options::default();
        o.limits.eval.max_steps = PREVIEW_MAX_STEPS;
        o.cache_max_entries = 8;
        fnhcl_crossplane::Function::new(o)
    })
}

fn preview_limits() -> fnhcl_eval::Limits {
    fnhcl_eval::Limits {
        max_steps: PREVIEW_MAX_STEPS,
        ..fnhcl_eval::Limits::default()
    }
}

/// A Composition (JSON, which YAML reads) for the XR's type whose one step
/// runs the snapshot's files.
fn composition(snapshot: &Snapshot, xr_text: &str) -> Result<String, String> {
    let docs = fnhcl_render::yaml::load_stream(xr_text)
        .map_err(|e| format!("cannot load the XR from xr.yaml: {e}"))?;
    let xr = docs.first().ok_or("xr.yaml has no YAML document")?;
    let field = |k: &str| xr.get(k).and_then(|v| v.as_str()).unwrap_or_default();
    let files: Vec<fnhcl_base::txtar::TxtarFile> = snapshot
        .sources()
        .files()
        .map(|(_, f)| fnhcl_base::txtar::TxtarFile {
            name: f.name.clone(),
            data: f.text.to_string(),
        })
        .collect();
    let comp = serde_json::json!({
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": { "name": "preview" },
        "spec": {
            "compositeTypeRef": { "apiVersion": field("apiVersion"), "kind": field("kind") },
            "mode": "Pipeline",
            "pipeline": [{
                "step": "hcl",
                "functionRef": { "name": FUNCTION_NAME },
                "input": {
                    "apiVersion": "hcl.fn.crossplane.io/v1beta1",
                    "kind": "HclInput",
                    "hcl": fnhcl_base::txtar::format(&files),
                },
            }],
        },
    });
    Ok(comp.to_string())
}

/// Evaluates the snapshot's program against `request`, recording locals.
fn hints(snapshot: &Snapshot, request: &fnhcl_eval::Request) -> Vec<InlayHint> {
    // A file being typed is read as far as it parses.
    let Ok(program) = fnhcl_eval::compile_recovering(snapshot.sources().clone()).1 else {
        return Vec::new();
    };
    let (result, locals) = fnhcl_eval::evaluate_traced(&program, request, &preview_limits());
    let mut out = local_hints(&locals);
    if let Ok(output) = &result {
        out.extend(deferred_hints(output));
    }
    out.sort_by_key(|h| (h.file, h.offset, h.kind == HintKind::Value));
    out
}

/// One hint per local definition: the first instance's value, and how
/// many instances there were when a block was evaluated several times.
fn local_hints(locals: &[LocalValue]) -> Vec<InlayHint> {
    let mut by_span: Vec<(Span, Vec<&LocalValue>)> = Vec::new();
    for l in locals {
        match by_span.iter_mut().find(|(s, _)| *s == l.span) {
            Some((_, v)) => v.push(l),
            None => by_span.push((l.span, vec![l])),
        }
    }
    by_span
        .into_iter()
        .map(|(span, vals)| {
            let first = &vals[0];
            let mut label = short(&first.value, MAX_LABEL);
            let mut tooltip = format!("{} = {}", first.name, short(&first.value, 4000));
            if vals.len() > 1 {
                let _ = write!(label, " (1 of {})", vals.len());
                for (i, v) in vals.iter().enumerate().skip(1).take(20) {
                    let _ = write!(tooltip, "\n[{}] {}", i + 1, short(&v.value, 200));
                }
            }
            InlayHint {
                file: span.file,
                offset: span.end,
                kind: HintKind::Value,
                label: format!("→ {label}"),
                tooltip,
            }
        })
        .collect()
}

/// A hint for each reported discard: what it waits for, or the error
/// that discarded it. The members of a collection discarded for the same
/// reason share one hint (with their count).
fn deferred_hints(output: &Output) -> Vec<InlayHint> {
    let mut out: Vec<(InlayHint, usize)> = Vec::new();
    for d in output.reported_discards() {
        let Some(span) = d.span else { continue };
        let unknown = d
            .context
            .iter()
            .find_map(|l| l.strip_prefix("unknown values: "));
        let why = match unknown {
            Some(u) => format!("waits for {u}"),
            None => d.context.first().cloned().unwrap_or_default(),
        };
        let what = match d.reason {
            fnhcl_eval::DiscardReason::EvaluationError => "error",
            fnhcl_eval::DiscardReason::HeldBack => "held back",
            fnhcl_eval::DiscardReason::Kept => "kept as observed",
            _ => "deferred",
        };
        let label = truncate(&format!("{what}: {why}"), MAX_LABEL + 20);
        match out
            .iter_mut()
            .find(|(h, _)| h.file == span.file && h.offset == span.start && h.label == label)
        {
            Some((h, n)) => {
                *n += 1;
                if *n <= 20 {
                    h.tooltip.push_str("\n\n");
                    h.tooltip.push_str(&d.message());
                }
            }
            None => out.push((
                InlayHint {
                    file: span.file,
                    offset: span.start,
                    kind: HintKind::Deferred,
                    label,
                    tooltip: d.message(),
                },
                1,
            )),
        }
    }
    out.into_iter()
        .map(|(mut h, n)| {
            if n > 1 {
                h.label.push_str(&format!(" ({n}×)"));
            }
            h
        })
        .collect()
}

/// A one-line rendering of `v` in HCL's notation, cut at `max` characters.
pub(crate) fn short(v: &Value, max: usize) -> String {
    let mut s = String::new();
    write_value(&mut s, v, max + 1);
    truncate(&s, max)
}

fn truncate(s: &str, max: usize) -> String {
    let s = s.replace(['\n', '\r'], " ");
    if s.chars().count() <= max {
        return s;
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Writes `v`, stopping once `out` is longer than `budget` bytes.
fn write_value(out: &mut String, v: &Value, budget: usize) {
    if out.len() > budget {
        return;
    }
    match v {
        Value::Null(_) => out.push_str("null"),
        Value::Unknown(_) => out.push_str("(unknown)"),
        Value::Bool(b) => {
            let _ = write!(out, "{b}");
        }
        Value::Number(n) => {
            let _ = write!(out, "{n}");
        }
        Value::String(s) => {
            out.push_str(&serde_json::Value::String(s.to_string()).to_string());
        }
        Value::List(c) | Value::Set(c) => write_seq(out, &c.items, budget),
        Value::Tuple(items) => write_seq(out, items, budget),
        Value::Map(m) => write_obj(out, m.items.iter(), budget),
        Value::Object(m) => write_obj(out, m.iter(), budget),
        Value::Marked(_) => out.push_str("(sensitive)"),
    }
}

fn write_seq(out: &mut String, items: &[Value], budget: usize) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if out.len() > budget {
            return;
        }
        if i > 0 {
            out.push_str(", ");
        }
        write_value(out, item, budget);
    }
    out.push(']');
}

fn write_obj<'a>(
    out: &mut String,
    items: impl Iterator<Item = (&'a Arc<str>, &'a Value)>,
    budget: usize,
) {
    out.push('{');
    for (i, (k, v)) in items.enumerate() {
        if out.len() > budget {
            return;
        }
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{k} = ");
        write_value(out, v, budget);
    }
    out.push('}');
}

#[cfg(test)]
#[path = "preview_tests.rs"]
mod tests;
