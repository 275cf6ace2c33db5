//! Size limits that keep built-ins from exhausting memory on hostile
//! input (huge `format` widths, `indent` counts, replacements).

use crate::error::CallError;

/// The largest string a built-in may produce (16 MiB).
pub(crate) const MAX_STRING_BYTES: usize = 16 << 20;

/// The compiled-program size limit for regular expressions (bytes).
pub(crate) const MAX_REGEX_SIZE: usize = 8 << 20;

pub(crate) fn too_long_message() -> String {
    format!("the result would be longer than the limit of {MAX_STRING_BYTES} bytes")
}

/// Fails if a result of `len` bytes would exceed [`MAX_STRING_BYTES`].
pub(crate) fn check_len(len: usize) -> Result<(), CallError> {
    if len > MAX_STRING_BYTES {
        Err(CallError::new(too_long_message()))
    } else {
        Ok(())
    }
}

pub(crate) use fnhcl_value::nfc;

/// A cty string value: the text normalized to NFC.
pub(crate) fn cty_string(s: impl AsRef<str>) -> fnhcl_value::Value {
    fnhcl_value::Value::string(nfc(s.as_ref()))
}
