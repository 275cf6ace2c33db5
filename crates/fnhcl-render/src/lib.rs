//! `crossplane render`, in-process.
//!
//! [`render`] takes the inputs `crossplane render` reads (already read from
//! disk: this crate does no IO), runs the Composition's pipeline with an
//! in-process [`Function`] for the steps that are function-hcl, emulates
//! `function-auto-ready`, skips (or rejects) other functions' steps, and
//! produces the YAML stream `crossplane render` prints — v1.20 by default,
//! other releases' differences behind [`RenderOptions::version`].

mod error;
mod fields;
mod frames;
mod inputs;
mod operation;
mod output;
mod pipeline;
mod schemas;
mod version;
mod xrd;
/// Kubernetes YAML in and out, for render's callers.
pub use fnhcl_yaml as yaml;

use function_sdk_rust::proto::v1::RunFunctionRequest;
use serde_json::Value;

pub use error::RenderError;
pub use inputs::{RenderInputs, RenderOptions, Source};
pub use output::{CONDITION_TIME, RENDER_API_VERSION};
pub use pipeline::{Function, MAX_REQUIREMENTS_ITERATIONS};
pub use version::CrossplaneVersion;

/// What a successful render produced.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOutput {
    /// The documents, in print order: XR, composed resources (by name),
    /// Results (`-r`), Context (`-c`).
    pub documents: Vec<Value>,
    /// Things the user should know that are not errors (skipped steps).
    pub warnings: Vec<String>,
    /// Every request sent to the in-process function, in order.
    pub requests: Vec<RunFunctionRequest>,
}

impl RenderOutput {
    /// The YAML stream `crossplane render` prints.
    pub fn to_yaml(&self) -> Result<String, yaml::EmitError> {
        yaml::to_yaml_stream(&self.documents)
    }
}

/// Renders the inputs with `function` standing in for function-hcl.
pub fn render(
    inputs: &RenderInputs,
    opts: &RenderOptions,
    function: &dyn Function,
) -> Result<RenderOutput, RenderError> {
    if inputs.operation.is_some() {
        return operation::render(inputs, opts, function);
    }
    let loaded = inputs::load(inputs, opts)?;
    let outcome = pipeline::run(&loaded, opts, function, pipeline::Owner::Composition)?;
    let documents = output::documents(&loaded, opts, &outcome)?;
    Ok(RenderOutput {
        documents,
        warnings: outcome.warnings,
        requests: outcome.requests,
    })
}

#[cfg(test)]
mod tests;
