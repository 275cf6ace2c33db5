//! One-line descriptions of the DSL's words, shown by completion and hover.
//! What a block accepts comes from the evaluator's schemas
//! ([`fnhcl_eval::block_shape`]); only the prose lives here.

/// A block type's description.
pub(crate) fn block(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "locals" => "Named values, visible in the enclosing block and the blocks inside it.",
        "group" => "Groups blocks under a common condition and shared locals.",
        "resource" => "One composed resource; the label is its name in the composition.",
        "resources" => "A collection of composed resources, one per element of `for_each`.",
        "template" => "The body, locals and readiness of each member of a `resources` collection.",
        "composite" => {
            "Sets the composite resource's `status`, `connection` details, a `condition` or its readiness (`ready`)."
        }
        "result" => {
            "Reports a `Normal` or `Warning` result to the composite (and its claim with `target = \"CompositeAndClaim\"`); a `Fatal` one stops the run with its message."
        }
        "context" => "Sets a key of the pipeline context for later functions.",
        "output" => {
            "An Operation's output (Crossplane 2): the `body` objects of every `output` block are merged into what the Operation's status shows for this step."
        }
        "ready" => "Overrides the readiness of the enclosing resource.",
        "requirement" => "Asks Crossplane for extra resources (`req.extra_resources.<name>`).",
        "select" => "Which extra resources a requirement selects: by name or by labels.",
        "function" => "A user function, called with `invoke(\"name\", { args })`.",
        "arg" => "An argument of the enclosing user function.",
        "import" => "Imports a module directory (`as` sets its alias).",
        "module" => "An instance of an imported module, with its parameters.",
        "param" => "A parameter of this module (`param.<name>`).",
        "export" => "Values this module exports to its callers (`module.<instance>.<name>`).",
        "switch" => "Chooses the first `case` whose condition is true, else `default`.",
        "case" => "A branch of a `switch`, taken when its condition is true.",
        "default" => "The branch of a `switch` taken when no case matches.",
        "body" => "The Kubernetes object this block produces.",
        _ => return None,
    })
}

/// An attribute's description, by the block it is in.
pub(crate) fn attribute(block: &str, name: &str) -> Option<&'static str> {
    Some(match (block, name) {
        ("function", "body") => "The function's result.",
        (_, "body") => "The Kubernetes object: `apiVersion`, `kind`, `metadata`, `spec`...",
        (_, "condition") => "The block is emitted only when this is true.",
        (_, "optional") => {
            "`true`: when this is missing from a run (deferred or discarded), the composite is still allowed to become ready (D32)."
        }
        (_, "for_each") => "A list, set or map: one member per element (`each.key`, `each.value`).",
        ("resources", "name") => "The name of each member (default `<baseName>-<key>`).",
        (_, "key") => "The context key to set.",
        (_, "type") => {
            "The condition's type, e.g. `DatabaseReady` (not `Ready`, `Synced`, `Healthy`, `FullyResolved` or `HclDiagnostics`)."
        }
        (_, "status") => "`\"True\"`, `\"False\"`, `\"Unknown\"` or a bool.",
        (_, "reason") => "A CamelCase reason, e.g. `WaitingForVPC`.",
        (_, "message") => "The text the composite's (and claim's) users read.",
        (_, "target") => "`\"Composite\"` (default) or `\"CompositeAndClaim\"`.",
        (_, "severity") => "`\"Normal\"`, `\"Warning\"` or `\"Fatal\"` (stops the run).",
        ("ready", "value") => "`READY_TRUE`, `READY_FALSE` or `READY_UNSPECIFIED`.",
        (_, "value") => "The value to set.",
        (_, "description") => "Documentation (a constant string).",
        (_, "depends_on") => {
            "Blocks of this module (resource, resources, module) to wait for: created only once they are observed and ready, and deleted before them (a Usage per pair)."
        }
        (_, "on_incomplete") => {
            "`\"fatal\"` (default): an existing resource whose block cannot be computed stops the run. `\"keep\"`: it is kept as observed, with a warning."
        }
        (_, "default") => "The value used when none is given (a constant).",
        ("select", "apiVersion") => "The API version of the resources to select.",
        ("select", "kind") => "The kind of the resources to select.",
        ("select", "matchName") => "Select the one resource of this name.",
        ("select", "matchLabels") => "Select the resources with these labels.",
        ("select", "namespace") => {
            "Select in this namespace (Crossplane 2.0+); without it a namespaced composite's requirement finds only cluster-scoped objects."
        }
        (_, "as") => "The alias of the module or exported resource.",
        _ => return None,
    })
}

/// The attributes of `req`: upstream's eight and `credentials` (D38).
pub(crate) const REQ: &[(&str, &str)] = &[
    ("composite", "The observed composite resource (XR)."),
    (
        "composite_connection",
        "The observed connection details of the composite resource.",
    ),
    (
        "resource",
        "Observed composed resources, by `resource` name.",
    ),
    (
        "connection",
        "Connection details of composed resources, by `resource` name.",
    ),
    (
        "resources",
        "Observed members of collections, by `resources` name (lists).",
    ),
    (
        "connections",
        "Connection details of collection members, by `resources` name.",
    ),
    ("context", "The pipeline context from earlier functions."),
    (
        "extra_resources",
        "Extra resources, by `requirement` name (lists).",
    ),
    (
        "watched",
        "The object a WatchOperation watches (Crossplane 2 Operations; unknown elsewhere).",
    ),
    (
        "credentials",
        "The step's credentials (the Composition step's `credentials`), by name: each a map of keys to base64 strings, as a Secret's `data` holds them. Sensitive: they can go into a body (a Secret's `data`), but are never shown in results, conditions, logs or debug output.",
    ),
];

/// `self.<k>` in a resource, a collection and a collection's template.
pub(crate) fn self_attrs(chain: &[&str]) -> &'static [(&'static str, &'static str)] {
    const RESOURCE: &[(&str, &str)] = &[
        ("name", "This resource's name in the composition."),
        (
            "resource",
            "This resource as observed (null until it exists).",
        ),
        ("connection", "This resource's connection details."),
    ];
    const COLLECTION: &[(&str, &str)] = &[
        ("basename", "The collection's base name."),
        ("resources", "The observed members of this collection."),
        (
            "connections",
            "The connection details of this collection's members.",
        ),
    ];
    const TEMPLATE: &[(&str, &str)] = &[
        ("name", "This member's name in the composition."),
        (
            "resource",
            "This member as observed (null until it exists).",
        ),
        ("connection", "This member's connection details."),
        ("basename", "The collection's base name."),
        ("resources", "The observed members of this collection."),
        (
            "connections",
            "The connection details of this collection's members.",
        ),
    ];
    if chain.contains(&"template") {
        TEMPLATE
    } else if chain.contains(&"resources") {
        COLLECTION
    } else if chain.contains(&"resource") {
        RESOURCE
    } else {
        &[]
    }
}

/// `each.key` and `each.value`.
pub(crate) const EACH: &[(&str, &str)] = &[
    (
        "key",
        "The key (map) or index (list) of this element of `for_each`.",
    ),
    ("value", "This element of `for_each`."),
];

/// Labels of `composite` blocks.
/// What `switch.X` has besides the chosen branch's exports.
pub(crate) const SWITCH: &[(&str, &str)] = &[
    (
        "evaluated",
        "The name of the chosen case, `\"default\"`, or null when none is chosen.",
    ),
    (
        "branches",
        "Case name to bool: whether each case is the chosen one (with a `default` key when there is one).",
    ),
    ("case", "The cases by name: `case.NAME.evaluated`."),
];

pub(crate) const COMPOSITE_LABELS: &[(&str, &str)] = &[
    ("status", "Sets fields of the composite resource's status."),
    (
        "connection",
        "Sets connection details of the composite resource.",
    ),
    (
        "condition",
        "Sets a condition of the composite resource (and its claim with `target = \"CompositeAndClaim\"`): `type`, `status`, `reason`, `message`.",
    ),
    (
        "ready",
        "Sets the composite resource's readiness: `value = \"READY_TRUE\"`, `\"READY_FALSE\"` or `\"READY_UNSPECIFIED\"`.",
    ),
];

/// The values of a `ready` block's `value`.
pub(crate) const READY_VALUES: &[(&str, &str)] = &[
    ("READY_TRUE", "The resource is ready."),
    ("READY_FALSE", "The resource is not ready."),
    (
        "READY_UNSPECIFIED",
        "Crossplane decides from the resource's conditions.",
    ),
];
