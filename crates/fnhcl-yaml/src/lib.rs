//! Kubernetes YAML: the one reader and the one writer of YAML documents
//! (Crossplane inputs, CRDs, requests, render output), with the semantics
//! of `sigs.k8s.io/yaml`, i.e. go-yaml v2 (YAML 1.1 scalars), which is what
//! reads the files users hand to `crossplane render` and what prints its
//! output. See docs/notes/yaml.md. (`yamldecode`/`yamlencode` are
//! Terraform's, go-cty-yaml's rules and libyaml's emitter, in
//! fnhcl-functions.) No IO.

mod emit;
mod load;
#[cfg(test)]
mod vectors_test;

pub use emit::{EmitError, MAX_EMIT_DEPTH, natural_cmp, number_text, to_yaml, to_yaml_stream};
pub use load::{MAX_DEPTH, MAX_NODES, YamlError, load_first, load_stream};
