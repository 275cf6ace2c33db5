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

#[test]
fn deep_nesting_does_not_overflow_the_error_check() {
    // The token-level check that names syntax errors as HCL does runs after
    // hcl-edit rejects a file (and looks for multi-line strings after it
    // accepts one); it gives up past a nesting depth instead of recursing.
    let templates = format!("a = \"{}x{}\"\n", "${\"".repeat(2_000), "\"}".repeat(2_000));
    let blocks = format!("{}{}", "a {\n".repeat(5_000), "}\n".repeat(5_000));
    let broken_blocks = format!("{}b = 1 2\n{}", "a {\n".repeat(5_000), "}\n".repeat(5_000));
    for text in [templates, blocks, broken_blocks] {
        let handle = std::thread::Builder::new()
            .stack_size(1024 * 1024)
            .spawn(move || parse_both(&text))
            .expect("thread");
        assert!(handle.join().is_ok());
    }
}

#[test]
fn legacy_indexes_with_spaces_are_two_indexes() {
    // crash-007146b4 (`parse`, fast path and hcl-edit path disagreeing):
    // `f3. 372. 3` is `f3[372][3]` in HCL (its scanner reads `372` and `3`,
    // not `372.3`); the hcl-edit path's converter took the two touching
    // operators for `f3.372.3`'s error. Both paths now give the same AST,
    // and only digits, dot and digits touching are the error.
    use fnhcl_syntax::differential as d;
    for text in [
        "33+f3. 372. 3+f781",
        "f3. 372 . 3",
        "f3.372. 3",
        "f3 .372 .3",
    ] {
        let mut sources = SourceMap::new();
        let file = sources.add("main.hcl", text);
        let fast = d::fast_expr(&sources, file).expect("the fast path takes it");
        let (slow, diags) = d::hcl_edit_expr(&sources, file);
        assert!(diags.is_empty(), "{text}: {diags:?}");
        assert_eq!(Some(fast), slow, "{text}");
    }
    for text in ["f3.372.3", "f3. 372.3"] {
        let mut sources = SourceMap::new();
        let file = sources.add("main.hcl", text);
        let (_, diags) = fnhcl_syntax::parse_expr(&sources, file);
        assert_eq!(diags[0].summary, "Invalid legacy index syntax", "{text}");
    }
}
