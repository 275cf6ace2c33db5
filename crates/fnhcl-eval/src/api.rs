//! The evaluator's input and output types.

use std::collections::BTreeMap;
use std::sync::Arc;

use fnhcl_base::{Diagnostic, Severity, SourceMap, Span};
use fnhcl_value::Value;

/// One observed composed resource.
#[derive(Clone, Debug)]
pub struct ObservedResource {
    /// The observed body (a JSON-like object value: objects and tuples, D6).
    pub body: Value,
    /// Connection details (raw bytes, as in the protobuf message).
    pub connection_details: BTreeMap<String, Vec<u8>>,
}

/// The request data the program sees as `req.*` (upstream §3.2, D6, D19).
///
/// Values are JSON-like (objects, tuples, strings, numbers, bools, nulls)
/// as produced from protobuf `Struct`s. `metadata.managedFields` is removed
/// by the evaluator, callers need not do it.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The observed composite resource body (`req.composite`); `None` when
    /// there is no observed composite (then `req.composite` is `{}`).
    pub composite: Option<Value>,
    /// The observed composite's connection details (`req.composite_connection`).
    pub composite_connection: BTreeMap<String, Vec<u8>>,
    /// Observed composed resources by crossplane name (`req.resource`,
    /// `req.connection`, and by their collection annotations
    /// `req.resources`/`req.connections`).
    pub observed: BTreeMap<String, ObservedResource>,
    /// The request context (`req.context`), top-level keys.
    pub context: BTreeMap<String, Value>,
    /// Extra/required resources by requirement name (`req.extra_resources`).
    /// `None`: Crossplane has not answered this requirement yet (the key is
    /// absent from `req.extra_resources`); `Some(items)`: the matches (an
    /// empty list when nothing matched, D19).
    pub extra_resources: BTreeMap<String, Option<Vec<Value>>>,
    /// The step's credentials by name, each a map of keys to raw bytes
    /// (`req.credentials`, D38: sensitive).
    pub credentials: BTreeMap<String, BTreeMap<String, Vec<u8>>>,
}

/// The requirement under which Crossplane sends a WatchOperation's watched
/// object (`req.watched`, D39).
pub const WATCHED_RESOURCE: &str = "ops.crossplane.io/watched-resource";

/// Something only a composition has, used by a program (D39): a
/// `composite` or `ready` block, or a reference to the observed composite
/// or composed resources (`req.composite`, `self.resource`, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompositeUse {
    pub span: Span,
    /// `composite status block`, `ready block`, `req.composite`, ...
    pub what: String,
}

/// Readiness of a desired resource (the protobuf enum names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReadyState {
    Unspecified,
    True,
    False,
}

impl ReadyState {
    /// The protobuf enum name (`READY_TRUE`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ReadyState::Unspecified => "READY_UNSPECIFIED",
            ReadyState::True => "READY_TRUE",
            ReadyState::False => "READY_FALSE",
        }
    }
    /// Parses a protobuf enum name.
    pub fn parse(s: &str) -> Option<ReadyState> {
        match s {
            "READY_UNSPECIFIED" => Some(ReadyState::Unspecified),
            "READY_TRUE" => Some(ReadyState::True),
            "READY_FALSE" => Some(ReadyState::False),
            _ => None,
        }
    }
}

/// Who a user condition or result is for (D35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Composite,
    CompositeAndClaim,
}

/// A condition's status (D35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

/// `composite condition { ... }` (D35).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserCondition {
    pub type_: String,
    pub status: ConditionStatus,
    pub reason: String,
    pub message: Option<String>,
    pub target: Target,
}

/// A result's severity (D35).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultSeverity {
    Normal,
    Warning,
    Fatal,
}

/// `result { ... }` (D35); a Fatal one never reaches the output (the run
/// stops with its message).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserResult {
    pub severity: ResultSeverity,
    pub message: String,
    pub reason: Option<String>,
    pub target: Target,
}

/// The code of the diagnostic a `Fatal` result block stops the run with:
/// its message is the user's, without a source range.
pub const FATAL_RESULT: &str = "fatal-result";

/// A desired composed resource produced by the program.
#[derive(Clone, Debug)]
pub struct DesiredResource {
    /// The crossplane resource name.
    pub name: String,
    /// The body: always an object value, wholly known. Collection members
    /// carry the two collection annotations (upstream §5.1).
    pub body: Value,
    /// The value of the last `ready` block, if any (absent = unspecified).
    pub ready: Option<ReadyState>,
    /// The source range of the block header that produced it.
    pub span: Span,
    /// What it waits for before it is created (D40): its block's
    /// `depends_on`, and those of the module instances around it.
    pub depends_on: Vec<Dependency>,
    /// The collection it is a member of (its base name, prefixed in a
    /// module instance).
    pub collection: Option<String>,
    /// `optional = true` (D32) on its block or an instance around it.
    pub optional: bool,
    /// Re-emitted from its observed object because its block was
    /// incomplete (`on_incomplete = "keep"`, D41).
    pub kept: bool,
}

/// A block a resource depends on (D40), resolved to what it emits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    /// The name as `depends_on` writes it.
    pub name: String,
    pub target: DependencyTarget,
}

/// The resources a dependency stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DependencyTarget {
    /// The resource of this crossplane name.
    Resource(String),
    /// The members of the collection of this (prefixed) base name.
    Collection(String),
    /// Every resource whose crossplane name starts with this prefix (a
    /// module instance: `<instance>-`).
    Instance(String),
}

/// `matchName` or `matchLabels` of a requirement selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelectorMatch {
    Name(String),
    Labels(BTreeMap<String, String>),
}

/// A resource selector of a `requirement` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector {
    pub api_version: String,
    pub kind: String,
    /// D36: the namespace to select in (`None`: not named).
    pub namespace: Option<String>,
    pub matches: SelectorMatch,
}

/// Block types in discard records (upstream §4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiscardKind {
    Resource,
    Resources,
    Group,
    CompositeStatus,
    CompositeConnection,
    ResourceReady,
    Context,
    Requirement,
    /// A module instance (D26).
    Module,
    /// A switch (D30).
    Switch,
    /// `composite ready` (D33).
    CompositeReady,
    /// `composite condition` (D35).
    CompositeCondition,
    /// `result` (D35).
    Result,
    /// `output` (D39).
    Output,
}

impl DiscardKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DiscardKind::Resource => "resource",
            DiscardKind::Resources => "resources",
            DiscardKind::Group => "group",
            DiscardKind::CompositeStatus => "composite-status",
            DiscardKind::CompositeConnection => "composite-connection",
            DiscardKind::ResourceReady => "resource-ready",
            DiscardKind::Context => "context",
            DiscardKind::Output => "output",
            DiscardKind::Requirement => "requirement",
            DiscardKind::Module => "module",
            DiscardKind::Switch => "switch",
            DiscardKind::CompositeReady => "composite-ready",
            DiscardKind::CompositeCondition => "composite-condition",
            DiscardKind::Result => "result",
        }
    }
}

/// Why a block was discarded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiscardReason {
    /// The block's condition was false: the user's choice, never reported.
    UserCondition,
    /// Some expression of the block was incomplete (D10, D11).
    Incomplete,
    /// A connection detail was not valid base64.
    BadSecret,
    /// An evaluation error on values that are all known: the program is
    /// wrong (a wrong type, an index out of range), waiting will not help.
    EvaluationError,
    /// Held back until what it depends on is observed and ready (D40).
    HeldBack,
    /// Incomplete, and kept as it is observed (`on_incomplete = "keep"`,
    /// D41).
    Kept,
}

impl DiscardReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DiscardReason::UserCondition => "user-condition",
            DiscardReason::Incomplete => "incomplete",
            DiscardReason::BadSecret => "bad-secret",
            DiscardReason::EvaluationError => "EvaluationError",
            DiscardReason::HeldBack => "held-back",
            DiscardReason::Kept => "kept",
        }
    }
}

/// A discarded block (upstream §4.3).
#[derive(Clone, Debug)]
pub struct Discard {
    pub kind: DiscardKind,
    pub reason: DiscardReason,
    /// Resource name, collection base name, requirement name, the resource
    /// name for `ready`, the connection key for `bad-secret`; empty otherwise.
    pub name: String,
    /// For conditions the `condition = ...` attribute; for bodies and values
    /// the expression; for requirements the `select` block header.
    pub span: Option<Span>,
    /// The rendered range of `span` (`main.hcl:3,5-20`), or `<nil>`.
    pub range: String,
    /// Explanation lines: one per error (`EXPRESSION, RANGE: SUMMARY;
    /// DETAIL`), and a last `unknown values: a.b, c[0]` line when unknown
    /// references were found.
    pub context: Vec<String>,
}

impl Discard {
    /// True if this discard is reported (a Warning result, counted by
    /// `FullyResolved`): everything but `user-condition`.
    pub fn is_reported(&self) -> bool {
        self.reason != DiscardReason::UserCondition
    }

    /// The Warning result message (upstream §5.7):
    /// `<range>:discarded <type> <name>` then `\n<line>` per context line.
    pub fn message(&self) -> String {
        let (kind, name) = (self.kind.as_str(), &self.name);
        let mut s = match self.reason {
            DiscardReason::Kept => format!("{}:kept {kind} {name} as observed", self.range),
            DiscardReason::HeldBack => format!("{}:held back {kind} {name}", self.range),
            _ => format!("{}:discarded {kind} {name}", self.range),
        };
        for l in &self.context {
            s.push('\n');
            s.push_str(l);
        }
        s
    }
}

/// The result of a successful evaluation.
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// Desired composed resources in evaluation order (source order;
    /// collection members in iteration order). Names are unique.
    pub resources: Vec<DesiredResource>,
    /// The unified composite status (an object), if any `composite status`
    /// block contributed.
    pub composite_status: Option<Value>,
    /// The merged composite connection details.
    pub composite_connection: BTreeMap<String, Vec<u8>>,
    /// The unified `output` of an operation (an object), if any `output`
    /// block contributed (D39).
    pub operation_output: Option<Value>,
    /// Context entries (top-level key → unified value, D18).
    pub context: BTreeMap<String, Value>,
    /// Requirements by name (sorted).
    pub requirements: BTreeMap<String, Selector>,
    /// Every discarded block in evaluation order, including silent
    /// `user-condition` ones (see [`Discard::is_reported`]).
    pub discards: Vec<Discard>,
    /// What `composite ready` blocks set (D33).
    pub composite_ready: Option<ReadyState>,
    /// The collections (base names) and module instances (name prefixes,
    /// `<instance>-`) with a resource missing from this run: they are not
    /// ready for what depends on them (D40).
    pub unfinished: std::collections::BTreeSet<String>,
    /// The non-optional resources, collections, groups, module instances
    /// and switches missing from this run, and `composite ready` when
    /// its block was incomplete (D32): not empty, the composite is not
    /// ready.
    pub gating: Vec<String>,
    /// `composite condition` blocks in declaration order, identical ones
    /// once (D35).
    pub conditions: Vec<UserCondition>,
    /// Non-fatal `result` blocks in declaration order, identical ones once.
    pub results: Vec<UserResult>,
    /// Warnings (downgraded evaluation errors), deduplicated and sorted as
    /// upstream §5.8 (file, then position).
    pub warnings: Vec<Diagnostic>,
    /// The program's sources, to render ranges of [`Output::warnings`].
    pub sources: Arc<SourceMap>,
}

impl Output {
    /// Discards to report as Warning results, in evaluation order.
    pub fn reported_discards(&self) -> impl Iterator<Item = &Discard> {
        self.discards.iter().filter(|d| d.is_reported())
    }
}

/// The value a local had in one evaluation ([`crate::evaluate_traced`]).
#[derive(Clone, Debug)]
pub struct LocalValue {
    pub name: String,
    /// The local's expression.
    pub span: Span,
    pub value: Value,
}

/// A fatal error: evaluation produced nothing usable.
#[derive(Clone, Debug)]
pub struct Fatal {
    /// Error diagnostics first, then any warnings gathered before the error.
    pub diagnostics: Vec<Diagnostic>,
    /// The sources the diagnostics point into.
    pub sources: Arc<SourceMap>,
}

impl Fatal {
    pub(crate) fn new(mut diagnostics: Vec<Diagnostic>, sources: Arc<SourceMap>) -> Fatal {
        // Stable: errors first, otherwise in the order they were found.
        diagnostics.sort_by_key(|d| match d.severity {
            Severity::Error => 0,
            Severity::Warning => 1,
        });
        Fatal {
            diagnostics,
            sources,
        }
    }

    /// The first error.
    pub fn first(&self) -> Option<&Diagnostic> {
        self.diagnostics.first()
    }

    /// Upstream's fatal text (§5.9) without the `evaluate hcl: ` prefix:
    /// `<range>: <summary>; <detail>`, then `, and N other diagnostic(s)`
    /// when there are more. A diagnostic without a range prints `<nil>`.
    /// Every diagnostic, one a line (see [`diagnostic_lines`]).
    pub fn lines(&self) -> Vec<String> {
        diagnostic_lines(&self.diagnostics, &self.sources)
    }

    pub fn message(&self) -> String {
        fatal_message(&self.diagnostics, &self.sources)
    }
}

impl std::fmt::Display for Fatal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Fatal {}

/// Upstream's fatal text for a list of diagnostics (§5.9), without the
/// `evaluate hcl: ` prefix: errors first (stable), the first as
/// `<range>: <summary>; <detail>`, followed by its other positions as
/// `(<label>: <range>)` (e.g. where a duplicate name was first defined,
/// D15: results carry no code frames), then `, and N other diagnostic(s)`.
pub fn fatal_message(diagnostics: &[Diagnostic], sources: &SourceMap) -> String {
    let lines = diagnostic_lines(diagnostics, sources);
    let Some(first) = lines.first() else {
        return "unknown error".to_owned();
    };
    let mut s = first.clone();
    if lines.len() > 1 {
        s.push_str(&format!(", and {} other diagnostic(s)", lines.len() - 1));
    }
    s
}

/// Every diagnostic of a fatal error, errors first, each as the first one
/// appears in [`fatal_message`]: what a tool shows of the others.
pub fn diagnostic_lines(diagnostics: &[Diagnostic], sources: &SourceMap) -> Vec<String> {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by_key(|d| match d.severity {
        Severity::Error => 0,
        Severity::Warning => 1,
    });
    sorted
        .into_iter()
        .map(|d| {
            if d.code == Some(FATAL_RESULT) {
                return d.summary.clone();
            }
            let mut s = d.to_hcl_string(sources);
            for l in &d.labels {
                s.push_str(&format!(" ({}: {})", l.message, sources.range_text(l.span)));
            }
            s
        })
        .collect()
}
