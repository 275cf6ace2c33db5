//! The stable finding codes live in [`fnhcl_base::codes`], where every
//! creator of a diagnostic can reach them; they are re-exported here.

pub use fnhcl_base::codes::*;

use fnhcl_base::Diagnostic;

/// Gives a code to a diagnostic from the parser or the evaluator's static
/// checks (which do not set codes themselves), from its summary.
pub(crate) fn classify(d: &Diagnostic, from_parser: bool) -> &'static str {
    if let Some(c) = d.code {
        return c;
    }
    // Headlines name the offending thing in quotes; a name must never
    // decide the code (`reference to non-existent variable "switch_x"`).
    let unquoted = without_quoted_names(&d.summary);
    let s = unquoted.as_str();
    let has = |p: &str| s.contains(p);
    if let Some(code) = module_code(s) {
        return code;
    }
    if has("duplicate")
        || has("Duplicate")
        || has("defined more than once")
        || has("redefined")
        || has("defined twice")
    {
        DUPLICATE
    } else if from_parser {
        SYNTAX
    } else if has("reference to non-existent variable") {
        UNDEFINED_VARIABLE
    } else if has("invalid self reference") {
        INVALID_SELF
    } else if has("invalid each reference") {
        INVALID_EACH
    } else if has("attempt to shadow") {
        SHADOWING
    } else if s.starts_with("cycle found") {
        CYCLE
    } else if s.starts_with("depends_on cycle") {
        DEPENDENCY_CYCLE
    } else if s.starts_with("depends_on: no resource") {
        UNKNOWN_DEPENDENCY
    } else if has("invoke called on unknown function") {
        UNKNOWN_INVOKE_TARGET
    } else if has("Call to unknown function") || has("call to unknown function") {
        UNKNOWN_FUNCTION
    } else if has("Too many function arguments") || has("Not enough function arguments") {
        WRONG_ARITY
    } else if has("user function invocation") {
        BAD_INVOKE
    } else if s.starts_with("function: ") && (has("invalid argument") || has("has no argument")) {
        WRONG_ARGUMENT_NAME
    } else if s.starts_with("function: ") && has("expected but not supplied") {
        MISSING_ARGUMENT
    } else if has("name must be an identifier") || has("not a constant") {
        FUNCTION_DEFINITION
    } else if has("Unsupported")
        || has("Missing")
        || has("Extraneous label")
        || has("Unexpected")
        || has("template block")
        || has("select block")
        || has("requirement selector")
        || has("invalid composite label")
    {
        SCHEMA
    } else {
        PROGRAM
    }
}

/// The summary with the text between double quotes removed (the quotes
/// stay): `unknown module "x"` becomes `unknown module ""`.
fn without_quoted_names(summary: &str) -> String {
    let mut out = String::with_capacity(summary.len());
    let mut quoted = false;
    for c in summary.chars() {
        if c == '"' {
            quoted = !quoted;
            out.push(c);
        } else if !quoted {
            out.push(c);
        }
    }
    out
}

/// Codes of the module, export and switch checks (D24-D31).
fn module_code(s: &str) -> Option<&'static str> {
    let has = |p: &str| s.contains(p);
    let code = if has("is never used") && s.starts_with("param ") {
        UNUSED_PARAMETER
    } else if has("is never used") && s.starts_with("export ") {
        UNUSED_EXPORT
    } else if s.starts_with("duplicate ") {
        return None;
    } else if has("import path")
        || has("module directory")
        || s.starts_with("import cycle")
        || has("import alias")
        || has(" in import")
        || s.starts_with("unknown module \"")
        || has("invalid module path")
        || has("outside a module")
        || has("invalid module instance name")
        || has("hides the module's")
    {
        MODULE_IMPORT
    } else if has("unknown parameter")
        || has("missing required parameter")
        || has("mixes params")
        || has("invalid parameter name")
        || (s.starts_with("parameter name") && has("is reserved"))
        || has("reads its own exports")
    {
        MODULE_PARAMETER
    } else if has("unknown export")
        || has("unknown module instance")
        || has("export of unknown resource")
        || has("invalid export name")
        || has("in export")
        || has("export alias")
    {
        MODULE_EXPORT
    } else if has("switch")
        || s.starts_with("unknown case")
        || has("invalid case name")
        || has("a case cannot be named")
    {
        SWITCH
    } else {
        return None;
    };
    Some(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_of(summary: &str) -> &'static str {
        classify(&Diagnostic::error(summary, ""), false)
    }

    #[test]
    fn quoted_names_never_decide_the_code() {
        // Each name contains a word another code is keyed on.
        assert_eq!(
            code_of("reference to non-existent variable \"switch_duplicate\""),
            UNDEFINED_VARIABLE
        );
        assert_eq!(
            code_of("call to unknown function \"unknown_module\""),
            UNKNOWN_FUNCTION
        );
        assert_eq!(
            code_of("function: \"duplicate\" has no argument \"switch\""),
            WRONG_ARGUMENT_NAME
        );
        assert_eq!(code_of("unknown module \"x\""), MODULE_IMPORT);
        assert_eq!(code_of("unknown switch \"duplicate\""), SWITCH);
        assert_eq!(code_of("duplicate switch \"x\""), DUPLICATE);
    }

    #[test]
    fn quotes_are_kept_and_their_text_dropped() {
        assert_eq!(
            without_quoted_names("unknown module \"a\" in \"b\""),
            "unknown module \"\" in \"\""
        );
        assert_eq!(without_quoted_names("no quotes"), "no quotes");
    }
}
