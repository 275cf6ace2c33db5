//! A composition directory on disk, as the CLI (`analyze`, `package`) and
//! the language server see it: its files ([`dir`]: `*.hcl`, `composition.yaml`
//! library files, imported module directories), the composite's XRD
//! ([`dir::analysis_options`]) and the CRDs its resource bodies are checked
//! against ([`crds`]: `.crd-sources.yaml` or `.crds/`, found walking up).
//!
//! This crate does IO; the analysis itself (`fnhcl-analyze`) does none.

pub mod crds;
pub mod dir;
pub mod glob;

pub use dir::{
    Overlay, PackageFile, analysis_options, load_dir, load_dir_with, load_own_hcl, program_root,
    source_map,
};
