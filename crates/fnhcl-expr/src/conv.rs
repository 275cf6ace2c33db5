//! Thin adapters over `fnhcl_value`'s cty conversion.

use fnhcl_value::{Type, Value};

/// cty `convert.Convert` (unsafe conversions allowed); the error is cty's
/// message.
pub(crate) fn convert(v: &Value, to: &Type) -> Result<Value, String> {
    fnhcl_value::convert(v, to).map_err(|e| e.message)
}

/// cty `convert.UnifyUnsafe`.
pub(crate) fn unify(types: &[Type]) -> Option<Type> {
    fnhcl_value::unify_unsafe(types)
}
