//! cty-compatible value model: [`Value`], [`Type`] and [`Number`].
//!
//! - [`Number`]: Go `big.Float` semantics (per-value precision, exact
//!   printing); see `docs/notes/numbers.md`.
//! - [`convert`](mod@convert): cty's `convert` package ([`convert()`],
//!   [`unify`], [`unify_unsafe`], mismatch messages).
//! - [`ops`]: `==` ([`ops::equals`]), arithmetic, comparison and logic
//!   operators with cty's unknown/null/mark rules.
//! - [`Value::set_from`]: sets in cty's element order.
//! - [`json`]: exact JSON text and `serde_json` mapping.
//! - [`intern::StrCache`]: shared short strings for readers.
//! - [`shape`](mod@shape): the outer kind of a value's type without typing the whole value.
//!
//! Architecture invariant: this crate knows nothing about HCL syntax, source
//! positions or diagnostics. Errors are plain strings (or small enums) that
//! callers attach spans to.

mod bigfloat;
pub mod convert;
pub mod intern;
mod iter;
pub mod json;
mod number;
mod objmap;
pub mod ops;
pub mod scan;
mod set;
pub mod shape;
mod types;
mod value;

pub use convert::{ConvertError, convert, unify, unify_unsafe};
pub use json::{from_json_text, from_serde_json, to_json_text, to_serde_json};
pub use number::{Number, NumberError, STANDARD_PRECISION};
pub use objmap::{ObjMap, key_eq};
pub use types::Type;
pub use value::{Collection, Key, MapValue, Value, nfc};
