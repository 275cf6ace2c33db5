//! txtar splitting + HCL parsing of every member never panics.
#![no_main]

use fnhcl_base::SourceMap;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text);
    let _ = fnhcl_syntax::parse_file(&sources, file);
    let _ = fnhcl_syntax::parse_expr(&sources, file);
});
