//! The nodes of a compiled expression. A node is a shadow of the AST node
//! it was compiled from: evaluation walks both together (`eval/compiled.rs`),
//! the node holding what was worked out once (folded values, bound
//! built-ins, pre-split traversals, slots) and the AST node what was not
//! (spans for messages, literal template text, keys).

use std::sync::Arc;

use fnhcl_base::Span;
use fnhcl_functions::FuncDef;
use fnhcl_syntax::ast::Expr;
use fnhcl_value::Value;

/// 24 bytes: the variants that would be larger (calls, `try`, `can`)
/// are boxed, so that the many small nodes of a program do not pay for
/// them (docs/notes/memory-and-jsonl.md).
#[derive(Clone)]
pub(crate) enum Node {
    /// Evaluated by the tree walk (`SplatItem`, the element of a splat;
    /// a number literal with an error).
    Ast,
    /// A constant subexpression, evaluated at compile time.
    Const(Box<Const>),
    /// A root variable and the attribute names and literal keys after it.
    Traversal(Box<Traversal>),
    /// The same from a `for` variable: its root's slot is the binding's
    /// place among the evaluator's `for` bindings (outer to inner).
    Bound(Box<Traversal>),
    Tuple(Box<[Node]>),
    Object(Box<[ObjItem]>),
    /// An object constructor whose keys are all names or plain ASCII
    /// strings: its key order worked out at compile time.
    LitObject(Box<LitObject>),
    /// A template: its parts, `%{if}`/`%{for}` directives included.
    Template(Box<TemplateNode>),
    /// `(x)`, or a template that is one interpolation (`"${x}"`): one
    /// step, then the inner expression.
    Wrap(Box<Node>),
    GetAttr(Box<Node>),
    Index(Box<[Node; 2]>),
    /// A built-in called without `...` expansion, with an argument count
    /// it accepts.
    Call(Box<Call>),
    /// Any other call (`...` expansion, `invoke`, an unknown function,
    /// `try`/`can` written unusually): the arguments' nodes, for
    /// `Evaluator::call`.
    CallAny(Box<[Node]>),
    /// A splat: its source and the expression applied to each element.
    Splat(Box<[Node; 2]>),
    /// `try(...)`.
    Try(Box<TryCall>),
    /// `can(x)`.
    Can(Box<CanCall>),
    Conditional(Box<[Node; 3]>),
    /// A `for` expression: the collection, and the key, value and `if`
    /// expressions (evaluated with the `for` variables bound, where the
    /// batched kinds give way to the tree walk).
    For(Box<ForNode>),
    Unary(Box<Node>),
    Binary(Box<[Node; 2]>),
}

/// A built-in and its arguments.
#[derive(Clone)]
pub(crate) struct Call {
    pub def: &'static FuncDef,
    pub args: Box<[Node]>,
}

/// `try(...)`: the arguments and, for each, the root traversals it reads
/// (checked for unknowns before it is evaluated).
#[derive(Clone)]
pub(crate) struct TryCall {
    pub args: Box<[Node]>,
    pub probes: Box<[Box<[Probe]>]>,
}

/// `can(x)`: the argument and its root traversals.
#[derive(Clone)]
pub(crate) struct CanCall {
    pub arg: Node,
    pub probes: Box<[Probe]>,
}

/// A root traversal of a `try`/`can` argument (tryfunc's
/// `dependsOnUnknowns`): a copy of its expression (a part of the
/// argument that no single AST node holds alone) and its node.
#[derive(Clone)]
pub(crate) struct Probe {
    pub expr: Expr,
    pub node: Node,
}

/// A folded constant: its value and what the tree walk would charge.
#[derive(Clone)]
pub(crate) struct Const {
    pub value: Value,
    /// Steps the tree walk takes to evaluate the subexpression.
    pub steps: u32,
    /// Nesting levels the tree walk enters (1 for a leaf).
    pub height: u32,
}

/// One item of an object constructor: the compiled key when it is an
/// expression evaluated at run time (`None` for a name or a plain ASCII
/// string, which the constructor uses as it is), and the value.
#[derive(Clone)]
pub(crate) struct ObjItem {
    pub key: Option<Box<Node>>,
    pub value: Node,
}

/// A compiled template: the buffer size worked out once (literal text and
/// a short value per interpolation) and one part per part of the AST's
/// template, in order.
#[derive(Clone)]
pub(crate) struct TemplateNode {
    pub guess: usize,
    pub parts: Box<[TemplatePartNode]>,
}

#[derive(Clone)]
pub(crate) enum TemplatePartNode {
    /// Literal text (the AST holds it).
    Literal,
    Interpolation(Node),
    /// `%{if}`: the condition and the branches' templates.
    If {
        cond: Node,
        then: TemplateNode,
        otherwise: Option<TemplateNode>,
    },
    /// `%{for}`: the collection and the body (compiled with the `for`
    /// variables hiding slots of the same name).
    For {
        collection: Node,
        body: TemplateNode,
    },
}

#[derive(Clone)]
pub(crate) struct ForNode {
    pub collection: Node,
    pub key: Option<Node>,
    pub value: Node,
    pub cond: Option<Node>,
}

/// An object constructor with literal keys only. `keys` are the distinct
/// keys in key order (the order `ObjMap` keeps); item `i` (in source
/// order) goes to `keys[slots[i]]`, so a later duplicate overwrites an
/// earlier one, as the tree walk's `collect` keeps the last. `slots` is
/// empty when the items are in key order, one per key (item `i` is
/// `keys[i]`).
#[derive(Clone)]
pub(crate) struct LitObject {
    pub keys: Box<[fnhcl_value::Key]>,
    pub slots: Box<[u32]>,
    pub values: Box<[Node]>,
}

/// `root.a["b"][0].c`: a chain of attribute and literal-key steps from a
/// root variable, walked by reference. (The root's identifier, for the
/// "Unknown variable" message, is the AST's.)
#[derive(Clone)]
pub(crate) struct Traversal {
    pub root: Root,
    pub path: Box<[PathStep]>,
    /// Steps the tree walk takes (chain nodes, root, literal keys).
    pub steps: u32,
    /// Nesting levels of the chain (its nodes and the root).
    pub height: u32,
}

/// A root variable: its name, and the slot the caller's resolver gave it.
#[derive(Clone, Debug)]
pub struct Root {
    pub name: Arc<str>,
    pub slot: Option<u32>,
}

#[derive(Clone)]
pub(crate) enum Key {
    Attr(Arc<str>),
    Index(Value),
}

#[derive(Clone)]
pub(crate) struct PathStep {
    pub key: Key,
    /// HCL's subject for an error at this step (from the end of the
    /// source to the end of the step) and the step node's span.
    pub subject: Span,
    pub context: Span,
}

#[cfg(test)]
mod tests {
    /// The layout the program's memory estimate counts on
    /// (docs/notes/memory-and-jsonl.md): a node is three words.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn node_sizes() {
        use std::mem::size_of;
        assert_eq!(size_of::<super::Node>(), 24);
        assert_eq!(size_of::<super::ObjItem>(), 32);
        assert_eq!(size_of::<super::Traversal>(), 48);
        assert_eq!(size_of::<super::Const>(), 40);
    }
}
