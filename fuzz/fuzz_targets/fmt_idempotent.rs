//! The formatter never panics, is idempotent and keeps the meaning.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(once) = fnhcl_fmt::format(text) else {
        return;
    };
    let twice = fnhcl_fmt::format(&once).expect("formatted output must parse");
    assert_eq!(once, twice, "formatting is not idempotent");
    let before = fnhcl_fmt::meaning(text).expect("input parsed once already");
    let after = fnhcl_fmt::meaning(&once).expect("formatted output must parse");
    assert_eq!(before, after, "formatting changed the meaning");
});
