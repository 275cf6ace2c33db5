//! Source files, txtar bundles, line/column lookup and the diagnostic model
//! with its stable codes.
//!
//! Architecture invariant: no IO. Callers hand in file contents.

pub mod codes;
mod diagnostic;
mod source;
mod suggest;
pub mod txtar;

pub use diagnostic::{Diagnostic, Label, Severity, render_frames};
pub use source::{FileId, LineCol, SourceFile, SourceMap, Span};
pub use suggest::edit_distance;
