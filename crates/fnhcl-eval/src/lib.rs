//! The function-hcl DSL evaluator: block schemas, scopes, lazy locals,
//! resource collections, deferral of incomplete blocks (discards) and the
//! fail-safe for observed resources.
//!
//! Two phases:
//! - [`compile`] parses the files of a [`fnhcl_base::SourceMap`] and runs every static
//!   check once (schemas, duplicate names, undefined references, `invoke`
//!   targets, user functions, local cycles). The resulting [`Program`] is
//!   immutable, `Send + Sync` and meant to be cached.
//! - [`evaluate`] runs a program against one [`Request`] and returns the
//!   [`Output`] (desired state, discards, warnings) or a [`Fatal`] error.
//!
//! Architecture invariant: pure library. No IO, no protobuf types: the
//! request and the output are plain values.

mod api;
mod checks;
mod compile;
mod demand;
mod eval;
mod exprs;
mod graph;
mod layout;
mod locate;
mod refs;
mod render;
mod schema;
mod slots;
mod unify;

pub use api::{
    CompositeUse, ConditionStatus, Dependency, DependencyTarget, DesiredResource, Discard,
    DiscardKind, DiscardReason, FATAL_RESULT, Fatal, LocalValue, ObservedResource, Output,
    ReadyState, Request, ResultSeverity, Selector, SelectorMatch, Target, UserCondition,
    UserResult, WATCHED_RESOURCE, diagnostic_lines, fatal_message,
};
pub use compile::{
    COMPILE_INTERRUPTED_DETAIL, NotCompiled, Program, compile, compile_interruptible,
    compile_recovering, compile_recovering_parsed,
};
pub use demand::{Demand, Paths};
pub use eval::{
    decode_base64, evaluate, evaluate_for_comparison, evaluate_traced, evaluate_with_limits,
};
/// Resource limits of an evaluation (see [`evaluate_with_limits`]).
pub use fnhcl_expr::{
    DEFAULT_MAX_BYTES, INTERRUPT_INTERVAL, INTERRUPTED_DETAIL, Interrupt, Limits, MEMORY_INTERVAL,
    Memory,
};
pub use layout::{ImportedDir, imported_dirs};
pub use locate::{FieldStep, Location, Locator, locate_composite_field, locate_resource_field};
pub use render::{
    COLLECTION_BASE_NAME_ANNOTATION, COLLECTION_INDEX_ANNOTATION, ConditionText, fully_resolved,
    hcl_diagnostics,
};
pub use schema::{BlockShape, block_shape, composite_shape};
