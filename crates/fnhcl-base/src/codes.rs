//! Stable finding codes (`fn-hcl analyze`). A code never changes meaning
//! once released.
//!
//! `E…` codes are errors (the program is rejected at runtime too, or, for
//! the `req` checks, can never work), `W…` codes are warnings. Whoever
//! creates a diagnostic that `fn-hcl analyze` can report gives it its code
//! there ([`crate::Diagnostic::with_code`]): the parser, the evaluator's
//! static checks and the analyser alike. A code is never worked out from a
//! diagnostic's wording, so rewording a message never changes its code.

/// A syntax error.
pub const SYNTAX: &str = "E0001";
/// Any other problem reported by the evaluator's static checks that has no
/// more specific code.
pub const PROGRAM: &str = "E0100";
/// A block does not match its schema (unknown or missing attribute or
/// block, wrong labels, structural rules such as one `template`).
pub const SCHEMA: &str = "E0101";
/// A `function` or `arg` definition is invalid.
pub const FUNCTION_DEFINITION: &str = "E0102";
/// A name is defined twice (resources, collections, requirements, locals,
/// functions, attributes, arguments).
pub const DUPLICATE: &str = "E0201";
/// A reference to a variable that is not in scope.
pub const UNDEFINED_VARIABLE: &str = "E0301";
/// `self.<k>` where this scope's `self` has no `k`.
pub const INVALID_SELF: &str = "E0302";
/// `each.<k>` other than `key`/`value`.
pub const INVALID_EACH: &str = "E0303";
/// `req.<k>` where `k` is not one of the `req` attributes.
pub const UNKNOWN_REQ_ATTRIBUTE: &str = "E0304";
/// `req.resource.<n>` / `req.connection.<n>` naming no `resource` block
/// (a warning: the resource may come from another pipeline step).
pub const UNDECLARED_RESOURCE: &str = "W0604";
/// `req.resources.<n>` / `req.connections.<n>` naming no `resources` block
/// (a warning, as [`UNDECLARED_RESOURCE`]).
pub const UNDECLARED_COLLECTION: &str = "W0605";
/// An expression without variables whose evaluation fails: it fails on
/// every request (`1 + "a"`, `jsondecode("{")`).
pub const ALWAYS_FAILS: &str = "E0104";
/// A constant `condition` that is not a bool, or a constant `for_each`
/// that is not a collection.
pub const WRONG_TYPE: &str = "E0105";
/// A call to a function that does not exist.
pub const UNKNOWN_FUNCTION: &str = "E0401";
/// `invoke` of a user function that does not exist.
pub const UNKNOWN_INVOKE_TARGET: &str = "E0402";
/// A malformed `invoke` call (argument count, non-constant name).
pub const BAD_INVOKE: &str = "E0403";
/// `invoke` with an argument name the function does not declare.
pub const WRONG_ARGUMENT_NAME: &str = "E0404";
/// `invoke` without a required argument.
pub const MISSING_ARGUMENT: &str = "E0405";
/// A built-in function called with the wrong number of arguments.
pub const WRONG_ARITY: &str = "E0406";
/// A local shadows a variable of an enclosing scope.
pub const SHADOWING: &str = "E0501";
/// Locals that depend on each other in a cycle.
pub const CYCLE: &str = "E0502";
/// A local that nothing uses.
pub const UNUSED_LOCAL: &str = "W0601";
/// `req.extra_resources.<n>` naming no `requirement` block.
pub const UNDECLARED_REQUIREMENT: &str = "W0607";
/// A user function argument that the function never uses.
pub const UNUSED_ARGUMENT: &str = "W0606";
/// An attribute of a Kubernetes object that no Kubernetes object has at
/// that place (`req.composite.sepc`): most likely a typo.
pub const SUSPICIOUS_FIELD: &str = "W0602";

/// A path under `req.composite` that the composite's XRD schema does not
/// declare (`req.composite.spec.paramters`).
pub const NOT_IN_SCHEMA: &str = "W0603";

/// An `import` or `module` block naming a directory that cannot be a
/// module (bad path, no files, cycle, unknown alias), or a `param` /
/// `export` block outside a module (D24-D26).
pub const MODULE_IMPORT: &str = "E0701";
/// A module instance with an unknown or missing parameter, or `params`
/// mixed with named parameters (D26, D27).
pub const MODULE_PARAMETER: &str = "E0702";
/// A read of an export or instance that does not exist, or an export of
/// a resource the module does not declare (D29).
pub const MODULE_EXPORT: &str = "E0703";
/// A `switch` whose branches are inconsistent (exports, `default`, case
/// names) or a read of a switch attribute that does not exist (D30).
pub const SWITCH: &str = "E0704";
/// A module parameter the module never reads.
pub const UNUSED_PARAMETER: &str = "W0608";
/// A module export no instance of the module is read for.
pub const UNUSED_EXPORT: &str = "W0609";
/// A literal part of a resource body that the schema of its kind does not
/// allow (unknown field, wrong type, value not in the enum, ...), checked
/// against the CRDs given to `analyze`.
pub const BODY_SCHEMA: &str = "W0610";
/// A body's `apiVersion`/`kind` that the loaded CRDs of its API group do
/// not define.
pub const UNKNOWN_KIND: &str = "W0611";

/// A requirement of a namespaced composite that selects by `matchName`
/// without a `namespace` (D36): Crossplane 2 looks for a cluster-scoped
/// object of that name.
pub const UNNAMESPACED_REQUIREMENT: &str = "W0612";

/// A program written for an operation (it has an `output` block or reads
/// `req.watched`) that uses what only a composition has: a `composite` or
/// `ready` block, `req.composite`, observed resources (D39).
pub const COMPOSITE_IN_OPERATION: &str = "E0801";

/// `depends_on` names no resource, resources or module block of the
/// module (D40).
pub const UNKNOWN_DEPENDENCY: &str = "E0901";

/// Blocks whose `depends_on` wait for each other (D40).
pub const DEPENDENCY_CYCLE: &str = "E0902";

/// `depends_on` names a block that has a condition (or sits in a group,
/// switch branch or module instance with one): while it is false, the
/// dependent is never created (D40).
pub const CONDITIONAL_DEPENDENCY: &str = "W0613";

/// A constant `composite connection` value that is not base64: the block
/// is discarded on every request (connection details are base64 text).
pub const CONNECTION_NOT_BASE64: &str = "W0614";

/// Every code with its kebab-case name, for documentation and `--format json`.
pub const ALL: &[(&str, &str)] = &[
    (SYNTAX, "syntax-error"),
    (PROGRAM, "program-error"),
    (SCHEMA, "schema"),
    (FUNCTION_DEFINITION, "function-definition"),
    (ALWAYS_FAILS, "always-fails"),
    (WRONG_TYPE, "wrong-type"),
    (DUPLICATE, "duplicate-name"),
    (UNDEFINED_VARIABLE, "undefined-variable"),
    (INVALID_SELF, "invalid-self-reference"),
    (INVALID_EACH, "invalid-each-reference"),
    (UNKNOWN_REQ_ATTRIBUTE, "unknown-req-attribute"),
    (UNKNOWN_FUNCTION, "unknown-function"),
    (UNKNOWN_INVOKE_TARGET, "unknown-invoke-target"),
    (BAD_INVOKE, "bad-invoke"),
    (WRONG_ARGUMENT_NAME, "wrong-argument-name"),
    (MISSING_ARGUMENT, "missing-argument"),
    (WRONG_ARITY, "wrong-arity"),
    (SHADOWING, "shadowing"),
    (CYCLE, "cycle"),
    (UNUSED_LOCAL, "unused-local"),
    (SUSPICIOUS_FIELD, "suspicious-field"),
    (NOT_IN_SCHEMA, "not-in-schema"),
    (UNDECLARED_RESOURCE, "undeclared-resource"),
    (UNDECLARED_COLLECTION, "undeclared-collection"),
    (UNUSED_ARGUMENT, "unused-argument"),
    (UNDECLARED_REQUIREMENT, "undeclared-requirement"),
    (MODULE_IMPORT, "module-import"),
    (MODULE_PARAMETER, "module-parameter"),
    (MODULE_EXPORT, "module-export"),
    (SWITCH, "switch"),
    (UNUSED_PARAMETER, "unused-parameter"),
    (UNUSED_EXPORT, "unused-export"),
    (BODY_SCHEMA, "body-schema"),
    (UNKNOWN_KIND, "unknown-kind"),
    (UNNAMESPACED_REQUIREMENT, "unnamespaced-requirement"),
    (COMPOSITE_IN_OPERATION, "composite-in-operation"),
    (UNKNOWN_DEPENDENCY, "unknown-dependency"),
    (DEPENDENCY_CYCLE, "dependency-cycle"),
    (CONDITIONAL_DEPENDENCY, "conditional-dependency"),
    (CONNECTION_NOT_BASE64, "connection-not-base64"),
];

/// The kebab-case name of a code.
pub fn name(code: &str) -> &'static str {
    ALL.iter()
        .find(|(c, _)| *c == code)
        .map_or("unknown", |(_, n)| n)
}
