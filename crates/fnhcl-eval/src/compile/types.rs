//! The compiled block tree: modules, instances, switches, scopes, items
//! and the blocks evaluation walks.

use std::collections::HashMap;
use std::sync::Arc;

use fnhcl_base::Span;
use fnhcl_expr::Compiled;
use fnhcl_value::Value;

/// One module: the root program or an imported directory (D24).
pub(crate) struct Module {
    /// The directory (`modules/bucket`); empty for the root.
    pub dir: String,
    pub top: Scope,
    pub items: Vec<Item>,
    pub functions: HashMap<Arc<str>, Function>,
    pub params: Vec<Param>,
    pub exports: Vec<Export>,
    /// Every `module` block by id: where it sits (the path to the item
    /// list holding it) and its index there.
    pub instances: Vec<(Vec<PathStep>, usize)>,
    pub instance_ids: HashMap<String, usize>,
    /// Every `switch` block by id, as `instances`.
    pub switches: Vec<(Vec<PathStep>, usize)>,
    pub switch_ids: HashMap<String, usize>,
    /// Everything the module can emit, relative to its instance prefix.
    pub names: Names,
    /// Instances created (transitively) by one instance of this module.
    pub instance_count: usize,
    /// What each name `depends_on` may use is (D40).
    pub dep_kinds: HashMap<String, DepKind>,
}

/// A block `depends_on` names (D40).
#[derive(Clone, Debug)]
pub(crate) struct Dep {
    pub name: String,
    pub span: Span,
}

/// What a name in `depends_on` stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DepKind {
    Resource,
    Collection,
    Instance,
}

/// `depends_on` (D40) and `on_incomplete` (D41) of a resource-like block.
#[derive(Clone, Debug, Default)]
pub(crate) struct Policy {
    pub depends_on: Vec<Dep>,
    /// `on_incomplete = "keep"`.
    pub keep: bool,
}

/// One step from a module's top-level items to nested items.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PathStep {
    /// Into the group at this item index.
    Group(usize),
    /// Into case `.1` of the switch at item index `.0`.
    Case(usize, usize),
}

/// The items at the end of `path` (static navigation, no evaluation).
pub(crate) fn items_at<'m>(items: &'m [Item], path: &[PathStep]) -> Option<&'m [Item]> {
    let mut cur = items;
    for step in path {
        cur = match *step {
            PathStep::Group(i) => match cur.get(i)? {
                Item::Group(g) => &g.items,
                _ => return None,
            },
            PathStep::Case(i, c) => match cur.get(i)? {
                Item::Switch(sw) => &sw.cases.get(c)?.items,
                _ => return None,
            },
        };
    }
    Some(cur)
}

/// Crossplane names a block can emit, relative to the enclosing module
/// (nested instances contribute `<instance>-<name>`), with the block that
/// declares each.
#[derive(Clone, Default)]
pub(crate) struct Names {
    pub resources: Vec<(String, Span)>,
    /// Collection base names (members are found by their annotation).
    pub collections: Vec<(String, Span)>,
    /// Whether any of them is not `optional` (D32: missing, it gates
    /// the composite's readiness).
    pub required: bool,
}

impl Names {
    pub(super) fn extend(&mut self, other: &Names) {
        self.resources.extend(other.resources.iter().cloned());
        self.collections.extend(other.collections.iter().cloned());
        self.required |= other.required;
    }
}

/// `param "name" { default = ... }` (D27).
pub(crate) struct Param {
    pub name: Arc<str>,
    pub default: Option<Value>,
    pub span: Span,
}

/// One exported name (D29).
pub(crate) struct Export {
    pub name: Arc<str>,
    pub span: Span,
    pub value: ExportValue,
}

pub(crate) enum ExportValue {
    Expr(Compiled),
    /// The observed body of the module's resource with this local name.
    Resource(String),
}

/// `module "alias" "name" { ... }` (D26).
pub(crate) struct Instance {
    pub id: usize,
    pub name: String,
    pub header: Span,
    /// Index of the instantiated module in [`Program::modules`].
    pub module: usize,
    pub condition: Option<Cond>,
    /// `optional = true` (D32).
    pub optional: bool,
    pub policy: Policy,
    pub params: Params,
    /// What the instance can emit, relative to the enclosing module.
    pub names: Names,
}

pub(crate) enum Params {
    /// `region = ...` attributes.
    Named(Vec<(Arc<str>, Compiled)>),
    /// `params = { ... }`.
    Object(Compiled),
}

/// `switch "name" { case "a" { ... } default { ... } }` (D30).
pub(crate) struct Switch {
    pub id: usize,
    pub name: String,
    pub header: Span,
    pub cases: Vec<Case>,
    /// The names every branch exports (empty when none does).
    pub export_names: Vec<Arc<str>>,
    pub names: Names,
}

pub(crate) struct Case {
    /// The case name, `default` for the default branch.
    pub name: String,
    /// `None` for `default`.
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub items: Vec<Item>,
    pub exports: Vec<Export>,
}

/// The locals of one scope (all `locals` blocks of a block, merged).
#[derive(Default)]
pub(crate) struct Scope {
    /// Unique within the module, from 1 (0: no locals to read by slot).
    pub id: u32,
    pub locals: Vec<Local>,
    pub index: HashMap<Arc<str>, usize>,
}

impl Scope {
    pub(crate) fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }

    /// The index of local `name` (a linear scan for the usual small scopes,
    /// hashing only for large ones).
    pub(crate) fn find(&self, name: &str) -> Option<usize> {
        if self.locals.len() <= 12 {
            self.locals.iter().position(|l| &*l.name == name)
        } else {
            self.index.get(name).copied()
        }
    }
}

pub(crate) struct Local {
    pub name: Arc<str>,
    pub expr: Compiled,
}

/// A `condition = ...` attribute.
pub(crate) struct Cond {
    pub expr: Compiled,
    /// The whole attribute (discard records point here).
    pub span: Span,
}

/// 368 bytes (a `Resource`): the larger, rarer blocks are boxed, so that
/// a program of many resources does not pay for them in every item.
pub(crate) enum Item {
    Group(Group),
    Resource(Resource),
    Collection(Box<Collection>),
    Composite(Composite),
    Context(ContextBlock),
    Requirement(Box<Requirement>),
    Module(Instance),
    Switch(Switch),
}

/// Blocks nested in a resource, template or collection.
pub(crate) enum Child {
    Composite(Composite),
    Context(ContextBlock),
    Ready(Ready),
}

pub(crate) struct Group {
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub items: Vec<Item>,
    /// What the group can emit (for the fail-safe, D12).
    pub names: Names,
}

pub(crate) struct Resource {
    pub name: String,
    pub header: Span,
    pub condition: Option<Cond>,
    /// `optional = true` (D32): missing, it does not gate readiness.
    pub optional: bool,
    pub policy: Policy,
    pub scope: Scope,
    pub body: Compiled,
    pub children: Vec<Child>,
}

pub(crate) struct Collection {
    pub base: String,
    pub header: Span,
    pub condition: Option<Cond>,
    /// `optional = true` (D32).
    pub optional: bool,
    pub policy: Policy,
    pub scope: Scope,
    pub for_each: Compiled,
    pub name: Option<Compiled>,
    pub children: Vec<Child>,
    pub template: Template,
}

pub(crate) struct Template {
    pub header: Span,
    pub scope: Scope,
    pub body: Compiled,
    pub children: Vec<Child>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompositeKind {
    Status,
    Connection,
    /// `output` (D39): not a composite block, but merged as its status.
    Output,
    /// `composite ready { value = ... }` (D33): `body` is the value.
    Ready,
    /// `composite condition { ... }` (D35): `body` is the object of its
    /// attributes but `condition`.
    Condition,
    /// `result { ... }` (D35), likewise.
    Result,
}

pub(crate) struct Composite {
    pub kind: CompositeKind,
    pub scope: Scope,
    pub body: Compiled,
    /// The `condition` attribute of a `composite condition` or `result`.
    pub condition: Option<Cond>,
}

pub(crate) struct ContextBlock {
    pub scope: Scope,
    pub key: Compiled,
    pub value: Compiled,
}

pub(crate) struct Ready {
    pub scope: Scope,
    pub value: Compiled,
}

pub(crate) struct Requirement {
    pub name: String,
    pub condition: Option<Cond>,
    pub scope: Scope,
    pub select: Select,
}

pub(crate) struct Select {
    pub header: Span,
    pub api_version: Compiled,
    pub kind: Compiled,
    pub match_name: Option<Compiled>,
    pub match_labels: Option<Compiled>,
    /// D36: the namespace to select in.
    pub namespace: Option<Compiled>,
}

pub(crate) struct Function {
    pub name: Arc<str>,
    pub args: Vec<Arg>,
    pub scope: Scope,
    pub body: Compiled,
}

pub(crate) struct Arg {
    pub name: Arc<str>,
    pub default: Option<Value>,
}
