//! Test harness helpers shared by the project's tests and `fn-hcl test`:
//! the `fn-hcl render` command line and file reading ([`render_args`]),
//! the render case runner ([`case`]), and the semantic comparison of
//! render output streams ([`compare`]).

pub mod case;
pub mod compare;
pub mod render_args;

pub use case::{CaseOptions, CaseOutcome, discover_cases, run_case};
pub use compare::{CompareOptions, Mismatch, StrictMessage, compare_documents, compare_streams};
pub use render_args::RenderArgs;
