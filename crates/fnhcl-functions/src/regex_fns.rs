//! `regex` and `regexall`. Patterns are compiled by the Go-regexp
//! compatibility layer in [`crate::go_regex`], which `replace` uses too.

use std::collections::BTreeMap;

use fnhcl_value::{Key, Type, Value};
use regex::Regex;

use crate::args::str_arg;
use crate::error::CallError;
use crate::go_regex::{base_name, compile};
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "regex",
            "Applies a regular expression to a string and returns the matching substrings.",
        )
        .param(Param::new("pattern", Type::String))
        .param(Param::new("string", Type::String))
        .returns_with("string, tuple or object (from the capture groups)", |a| {
            if !a[0].is_known() {
                return Ok(Type::Dynamic);
            }
            pattern_result_type(str_arg(a, 0)?).map_err(|m| CallError::arg(0, m))
        })
        .implement(|a| {
            let pattern = str_arg(a, 0)?;
            let s = str_arg(a, 1)?;
            let ty = pattern_result_type(pattern).map_err(|m| CallError::arg(0, m))?;
            let re = compile(pattern).map_err(|e| CallError::arg(0, e.cty_message()))?;
            let Some(caps) = re.captures(s) else {
                return Err(CallError::new(
                    "pattern did not match any part of the given string",
                ));
            };
            Ok(match_result(&re, &caps, &ty))
        }),
    );
    r.add(
        FuncDef::new(
            "regexall",
            "Applies a regular expression to a string and returns a list of all matches.",
        )
        .param(Param::new("pattern", Type::String))
        .param(Param::new("string", Type::String))
        .returns_with("list of string, tuple or object", |a| {
            if !a[0].is_known() {
                return Ok(Type::list(Type::Dynamic));
            }
            pattern_result_type(str_arg(a, 0)?)
                .map(Type::list)
                .map_err(|m| CallError::arg(0, m))
        })
        .implement(|a| {
            let pattern = str_arg(a, 0)?;
            let s = str_arg(a, 1)?;
            let ty = pattern_result_type(pattern).map_err(|m| CallError::arg(0, m))?;
            let re = compile(pattern).map_err(|e| CallError::arg(0, e.cty_message()))?;
            let items = re
                .captures_iter(s)
                .map(|caps| match_result(&re, &caps, &ty))
                .collect();
            Ok(Value::list(ty, items))
        }),
    );
}

/// The result type for a pattern's capture groups (cty's
/// `regexPatternResultType`).
pub(crate) fn pattern_result_type(pattern: &str) -> Result<Type, String> {
    let re = compile(pattern).map_err(|e| e.cty_message())?;
    let mut names = BTreeMap::new();
    let mut unnamed = 0usize;
    for name in re.capture_names().skip(1) {
        match name {
            Some(n) => {
                names.insert(Key::from(base_name(n)), Type::String);
            }
            None => unnamed += 1,
        }
    }
    match (unnamed, names.len()) {
        (0, 0) => Ok(Type::String),
        (u, n) if u > 0 && n > 0 => {
            Err("invalid regexp pattern: cannot mix both named and unnamed capture groups".into())
        }
        (u, 0) => Ok(Type::tuple(vec![Type::String; u])),
        _ => Ok(Type::object(names)),
    }
}

fn match_result(re: &Regex, caps: &regex::Captures<'_>, ty: &Type) -> Value {
    let group = |i: usize| match caps.get(i) {
        Some(m) => crate::limits::cty_string(m.as_str()),
        None => Value::Null(Type::String),
    };
    match ty {
        Type::Tuple(_) => Value::tuple((1..caps.len()).map(group).collect()),
        Type::Object(_) => {
            // Go assigns in group order: a later group with the same name
            // wins, even when it did not match (`collect` keeps the last).
            let attrs = re
                .capture_names()
                .enumerate()
                .skip(1)
                .filter_map(|(i, name)| name.map(|n| (Key::from(base_name(n)), group(i))))
                .collect();
            Value::object(attrs)
        }
        _ => group(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_types() {
        assert_eq!(pattern_result_type("a"), Ok(Type::String));
        assert_eq!(
            pattern_result_type("(a)(b)"),
            Ok(Type::tuple(vec![Type::String, Type::String]))
        );
        assert!(pattern_result_type("(?P<x>a)(b)").is_err());
        // Groups under {0} still count, as in Go.
        assert_eq!(
            pattern_result_type("(a){0}b"),
            Ok(Type::tuple(vec![Type::String]))
        );
        assert_eq!(
            pattern_result_type("((a){0}c){0,0}b"),
            Ok(Type::tuple(vec![Type::String, Type::String]))
        );
        assert_eq!(
            pattern_result_type("(?P<a>x)|(?P<a>y)"),
            Ok(Type::object(
                [(Key::from("a"), Type::String)].into_iter().collect()
            ))
        );
    }
}
