//! txtar bundles (see upstream-behaviour §1.3 and decision D2).
//! TODO(foundation task): implement; this is the agreed interface.

/// One member of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TxtarFile {
    pub name: String,
    pub data: String,
}
