//! cty-compatible value model: [`Value`], [`Type`] and [`Number`].
//!
//! Architecture invariant: this crate knows nothing about HCL syntax, source
//! positions or diagnostics. Errors are plain strings (or small enums) that
//! callers attach spans to.

mod bigfloat;
pub mod convert;
mod iter;
pub mod json;
mod number;
pub mod ops;
mod set;
mod types;
mod value;

pub use convert::{ConvertError, convert, unify, unify_unsafe};
pub use json::{from_json_text, from_serde_json, to_json_text, to_serde_json};
pub use number::{Number, NumberError, STANDARD_PRECISION};
pub use types::Type;
pub use value::{Collection, Key, MapValue, Value};
