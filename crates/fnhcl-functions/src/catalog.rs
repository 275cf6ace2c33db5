//! The catalogue of built-ins: every category module's functions, in one
//! registry built on first use. This is the only module that knows all the
//! categories; the categories know only the [`crate::registry`] types.

use std::sync::OnceLock;

use crate::registry::Registry;

/// Registers every module's functions. Add your module's `register` here.
fn build() -> Registry {
    let mut r = Registry::empty();
    r.in_category("Evaluation", crate::evaluator_funcs::register);
    r.in_category("Numeric", crate::numeric::register);
    r.in_category("Collection", crate::collection::register);
    r.in_category("Type conversion", crate::typeconv::register);
    r.in_category("String", crate::strings::register);
    r.in_category("String", crate::regex_fns::register);
    r.in_category("String", crate::format::register);
    r.in_category("Encoding", crate::json::register);
    r.in_category("Encoding", crate::encoding::register);
    r.in_category("Hash and crypto", crate::crypto::register);
    r.in_category("IP network", crate::cidr::register);
    r.in_category("Date and time", crate::datetime::register);
    r.in_category("Encoding", crate::yaml::register);
    r
}

/// The global registry (built once).
pub fn registry() -> &'static Registry {
    static REG: OnceLock<Registry> = OnceLock::new();
    REG.get_or_init(build)
}

#[cfg(test)]
mod tests {
    use fnhcl_value::Value;

    use super::registry;

    #[test]
    fn evaluator_functions_are_listed_but_not_callable() {
        for name in ["try", "can", "invoke"] {
            assert!(crate::exists(name));
            let e = crate::call(name, &[Value::int(1)]).and_then(Result::err);
            assert!(e.is_some_and(|e| e.message.contains("expression evaluator")));
        }
        assert_eq!(crate::param_name("lookup", 5), Some("default"));
        assert_eq!(crate::param_name("abs", 0), Some("num"));
        assert_eq!(crate::param_name("abs", 1), None);
        assert!(crate::call("no_such_function", &[]).is_none());
    }

    #[test]
    fn every_function_has_a_category_and_unique_name() {
        assert!(registry().len() >= 97);
        assert!(registry().iter().all(|f| !f.category.is_empty()));
    }
}
