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
    // crash-6a95731a: an error offset once fell inside 'ɍ'.
    parse_both("(t\u{24d}\n");
}

#[test]
fn many_unclosed_objects_after_operators_parse_quickly() {
    // timeout-5d634aa4: a backtracking parser takes exponential time here.
    let text = "0+l*{\n  ".repeat(40);
    let mut sources = SourceMap::new();
    let file = sources.add("main.hcl", text);
    let (_, diags) = fnhcl_syntax::parse_file(&sources, file);
    assert_eq!(diags[0].summary, "Argument or block definition required");
    let (_, diags) = fnhcl_syntax::parse_expr(&sources, file);
    assert_eq!(diags[0].summary, "Missing expression");
}

#[test]
fn deep_nesting_does_not_overflow_the_parser() {
    // Past its nesting limit the parser reports the problem and skips to
    // the end of the construct instead of recursing.
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
    // crash-007146b4: `f3. 372. 3` is `f3[372][3]` in HCL (its scanner reads
    // `372` and `3`, not `372.3`); only digits, dot and digits touching are
    // the error.
    use fnhcl_syntax::ast::ExprKind;
    for text in [
        "33+f3. 372. 3+f781",
        "f3. 372 . 3",
        "f3.372. 3",
        "f3 .372 .3",
    ] {
        let mut sources = SourceMap::new();
        let file = sources.add("main.hcl", text);
        let (e, diags) = fnhcl_syntax::parse_expr(&sources, file);
        assert!(diags.is_empty(), "{text}: {diags:?}");
        // The index steps, wherever the operators put them.
        fn indexes(e: &fnhcl_syntax::ast::Expr) -> usize {
            match &e.kind {
                ExprKind::Binary(_, l, r) => indexes(l).max(indexes(r)),
                ExprKind::Index(inner, _) => 1 + indexes(inner),
                _ => 0,
            }
        }
        assert_eq!(indexes(&e.expect("an expression")), 2, "{text}");
    }
    for text in ["f3.372.3", "f3. 372.3"] {
        let mut sources = SourceMap::new();
        let file = sources.add("main.hcl", text);
        let (_, diags) = fnhcl_syntax::parse_expr(&sources, file);
        assert_eq!(diags[0].summary, "Invalid legacy index syntax", "{text}");
    }
}

#[test]
fn nested_unclosed_interpolations_are_read_once() {
    // oom-9c3ce161: each unclosed interpolation of a quoted string ended
    // its string at the start of its line, so every enclosing template
    // read the same tokens again: time and memory doubled with each line.
    let text = "a = \"${~ \"${\"${~ {\n".repeat(200);
    parse_both(&text);
}
