//! Inputs found by `cargo fuzz run parse` that once panicked. Each must
//! parse (or fail to parse) without panicking.

use fnhcl_base::SourceMap;

fn parse_both(text: &str) {
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text);
    let _ = fnhcl_syntax::parse_file(&sources, file);
    let _ = fnhcl_syntax::parse_expr(&sources, file);
}

#[test]
fn error_offset_inside_multibyte_char() {
    // crash-6a95731a: hcl-edit reported an error offset inside 'ɍ'.
    parse_both("(t\u{24d}\n");
}
