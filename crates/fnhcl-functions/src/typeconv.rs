//! Type conversion functions: tobool tolist tomap tonumber toset tostring,
//! plus `type` (console form of the type, as a string), `sensitive` and
//! `nonsensitive` (Terraform 1.5.7 semantics).

use fnhcl_value::{Type, Value};

use crate::convert::{conversion_exists, convert, friendly_for_constraint};
use crate::error::CallError;
use crate::quote::go_quote_basic;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    let to_param = || {
        Param::new("v", Type::Dynamic)
            .allow_null()
            .allow_marked()
            .allow_dynamic_type()
    };
    r.add(
        FuncDef::new(
            "tobool",
            "Converts a value to a bool (only \"true\" and \"false\" strings are accepted).",
        )
        .param(to_param())
        .returns_with("bool", |a| to_type(a, &Type::Bool))
        .implement(|a| to_impl(a, &Type::Bool)),
    );
    r.add(
        FuncDef::new(
            "tonumber",
            "Converts a value to a number (strings must hold a decimal number).",
        )
        .param(to_param())
        .returns_with("number", |a| to_type(a, &Type::Number))
        .implement(|a| to_impl(a, &Type::Number)),
    );
    r.add(
        FuncDef::new("tostring", "Converts a primitive value to a string.")
            .param(to_param())
            .returns_with("string", |a| to_type(a, &Type::String))
            .implement(|a| to_impl(a, &Type::String)),
    );
    r.add(
        FuncDef::new(
            "tolist",
            "Converts a value to a list, unifying the element types.",
        )
        .param(to_param())
        .returns_with("list", |a| to_type(a, &Type::list(Type::Dynamic)))
        .implement(|a| to_impl(a, &Type::list(Type::Dynamic))),
    );
    r.add(
        FuncDef::new(
            "toset",
            "Converts a value to a set, unifying the element types and removing duplicates.",
        )
        .param(to_param())
        .returns_with("set", |a| to_type(a, &Type::set(Type::Dynamic)))
        .implement(|a| to_impl(a, &Type::set(Type::Dynamic))),
    );
    r.add(
        FuncDef::new(
            "tomap",
            "Converts a value to a map, unifying the element types.",
        )
        .param(to_param())
        .returns_with("map", |a| to_type(a, &Type::map(Type::Dynamic)))
        .implement(|a| to_impl(a, &Type::map(Type::Dynamic))),
    );
    r.add(
        FuncDef::new("type", "Returns the type of the given value, as a string in Terraform's console form (e.g. tuple([number, string])).")
            .param(
                Param::new("value", Type::Dynamic)
                    .allow_dynamic_type()
                    .allow_unknown()
                    .allow_null(),
            )
            .returns(Type::String)
            .implement(|a| Ok(Value::string(a[0].type_of().to_string()))),
    );
    let any_param = || {
        Param::new("value", Type::Dynamic)
            .allow_unknown()
            .allow_null()
            .allow_marked()
            .allow_dynamic_type()
    };
    r.add(
        FuncDef::new("sensitive", "Marks a value as sensitive.")
            .param(any_param())
            // The result has the argument's type; every kind of argument
            // is allowed, so no short-circuit reads the return type and
            // the whole value's type is not worked out.
            .returns_with("same as value", |_| Ok(Type::Dynamic))
            .implement(|a| Ok(a[0].unmarked().clone().mark())),
    );
    r.add(
        FuncDef::new(
            "nonsensitive",
            "Removes the sensitive mark from a value (an error if it is not sensitive).",
        )
        .param(any_param())
        // As sensitive: nothing reads the return type.
        .returns_with("same as value", |_| Ok(Type::Dynamic))
        .implement(|a| {
            let v = &a[0];
            if v.is_known() && !matches!(v, Value::Marked(_)) {
                return Err(CallError::arg(
                    0,
                    "the given value is not sensitive, so this call is redundant",
                ));
            }
            Ok(v.unmarked().clone())
        }),
    );
}

fn to_type(args: &[Value], want: &Type) -> Result<Type, CallError> {
    let got = args[0].type_of();
    if got == *want || conversion_exists(&got, want) {
        return Ok(want.clone());
    }
    Err(CallError::arg(
        0,
        match (&got, want) {
            (Type::Tuple(_), Type::Tuple(_)) | (Type::Object(_), Type::Object(_)) => {
                // Not reachable for the six to* functions (their targets are
                // primitive or collection types).
                format!("incompatible {} type for conversion", got.friendly_name())
            }
            _ => format!(
                "cannot convert {} to {}",
                got.friendly_name(),
                friendly_for_constraint(want)
            ),
        },
    ))
}

fn to_impl(args: &[Value], want: &Type) -> Result<Value, CallError> {
    let v = &args[0];
    convert(v, want).map_err(|_| {
        let (val, _) = v.unmark_deep();
        let got = val.type_of();
        let what = || match val.as_str() {
            Some(s) => go_quote_basic(s),
            None => "string".to_owned(),
        };
        let msg = if v.is_marked_deep() {
            format!(
                "cannot convert this sensitive {} to {}",
                got.friendly_name(),
                friendly_for_constraint(want)
            )
        } else if got == Type::String && *want == Type::Bool {
            format!(
                "cannot convert {} to bool; only the strings \"true\" or \"false\" are allowed",
                what()
            )
        } else if got == Type::String && *want == Type::Number {
            format!(
                "cannot convert {} to number; given string must be a decimal representation of a number",
                what()
            )
        } else {
            format!(
                "cannot convert {} to {}",
                got.friendly_name(),
                friendly_for_constraint(want)
            )
        };
        CallError::arg(0, msg)
    })
}
