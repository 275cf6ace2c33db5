//! Collection-size limits: built-ins that build collections (`concat`,
//! `flatten`, `setproduct`, `setunion`, `transpose`, ...) fail with a clear
//! error instead of exhausting memory. `range` keeps cty's own limit of
//! 1024 values.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::CallError;

/// Default largest number of elements a built-in may produce.
pub const DEFAULT_MAX_ELEMENTS: usize = 1_000_000;

/// Deepest nesting `flatten` follows.
pub(crate) const MAX_NESTING: usize = 256;

static MAX_ELEMENTS_SETTING: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_ELEMENTS);

/// Limits applied by the built-in functions (process-wide).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest number of elements in a collection a built-in produces.
    pub max_elements: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_elements: DEFAULT_MAX_ELEMENTS,
        }
    }
}

/// Sets the process-wide limits.
pub fn set_limits(l: Limits) {
    MAX_ELEMENTS_SETTING.store(l.max_elements, Ordering::Relaxed);
}

/// The limits in force.
pub fn limits() -> Limits {
    Limits {
        max_elements: MAX_ELEMENTS_SETTING.load(Ordering::Relaxed),
    }
}

/// Fails if a result of `n` elements would exceed the limit.
pub(crate) fn check_size(n: usize) -> Result<(), CallError> {
    let max = MAX_ELEMENTS_SETTING.load(Ordering::Relaxed);
    if n > max {
        Err(CallError::new(format!(
            "the result would have more than {max} elements"
        )))
    } else {
        Ok(())
    }
}
