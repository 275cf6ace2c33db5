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

#[test]
fn many_unclosed_objects_after_operators_parse_quickly() {
    // timeout-5d634aa4: hcl-edit backtracks exponentially here; the bracket
    // pre-scan reports it before the parser runs.
    let text = "0+l*{\n  ".repeat(40);
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text);
    let (_, diags) = fnhcl_syntax::parse_file(&sources, file);
    assert_eq!(diags[0].summary, "Unbalanced brackets");
    let (_, diags) = fnhcl_syntax::parse_expr(&sources, file);
    assert_eq!(diags[0].summary, "Unbalanced brackets");
}
