//! YAML in and out, with Kubernetes (`sigs.k8s.io/yaml`) semantics.

mod emit;
mod load;
#[cfg(test)]
mod vectors_test;

pub use emit::{EmitError, MAX_EMIT_DEPTH, natural_cmp, number_text, to_yaml, to_yaml_stream};
pub use load::{MAX_DEPTH, MAX_NODES, YamlError, load_first, load_stream};
