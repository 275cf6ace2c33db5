//! Adapters over `fnhcl_value`'s cty conversion, unification, equality and
//! set construction, in the shapes the function modules use.

use fnhcl_value::{Type, Value};

/// cty `convert.Convert` (unsafe conversions allowed). The error is cty's
/// message ("a number is required", "list of string required", ...).
pub(crate) fn convert(v: &Value, to: &Type) -> Result<Value, String> {
    fnhcl_value::convert(v, to).map_err(|e| e.message)
}

/// cty `convert.UnifyUnsafe`: the common type of `types`, or `None`.
pub(crate) fn unify(types: &[Type]) -> Option<Type> {
    fnhcl_value::unify_unsafe(types)
}

/// cty `GetConversionUnsafe(have, want) != nil`.
pub(crate) fn conversion_exists(have: &Type, want: &Type) -> bool {
    fnhcl_value::convert::conversion_exists(have, want, true)
}

/// cty `Value.Equals` ignoring marks: `None` when the answer depends on an
/// unknown value.
pub(crate) fn equals(a: &Value, b: &Value) -> Option<bool> {
    match fnhcl_value::ops::equals(a, b).unmarked() {
        Value::Bool(r) => Some(*r),
        _ => None,
    }
}

/// A set value: duplicates removed, elements in cty's set order.
pub(crate) fn make_set(elem: Type, items: Vec<Value>) -> Value {
    Value::set_from(elem, items)
}

/// cty `FriendlyNameForConstraint` ("list of any single type").
pub(crate) fn friendly_for_constraint(t: &Type) -> String {
    t.friendly_name_for_constraint()
}
