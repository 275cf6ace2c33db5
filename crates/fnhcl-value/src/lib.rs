//! cty-compatible value model: [`Value`], [`Type`] and [`Number`].
//!
//! Architecture invariant: this crate knows nothing about HCL syntax, source
//! positions or diagnostics. Errors are plain strings (or small enums) that
//! callers attach spans to.

mod bigfloat;
mod number;
mod types;
mod value;

pub use number::{Number, NumberError, STANDARD_PRECISION};
pub use types::Type;
pub use value::{Key, Value};
