//! txtar splitting + HCL parsing of every member never panics; and where
//! our own parser (the fast path) accepts a text, the hcl-edit path accepts
//! it too and gives the same AST.
#![no_main]

use fnhcl_base::SourceMap;
use fnhcl_syntax::differential as d;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text);
    let _ = fnhcl_syntax::parse_file(&sources, file);
    let _ = fnhcl_syntax::parse_expr(&sources, file);
    if let Some(fast) = d::fast_file(&sources, file) {
        let (slow, diags) = d::hcl_edit_file(&sources, file);
        assert!(diags.is_empty(), "fast path accepted, hcl-edit path: {diags:?}");
        assert_eq!(fast, slow);
    }
    if let Some(fast) = d::fast_expr(&sources, file) {
        let (slow, diags) = d::hcl_edit_expr(&sources, file);
        assert!(diags.is_empty(), "fast path accepted, hcl-edit path: {diags:?}");
        assert_eq!(Some(fast), slow);
    }
});
