//! Inputs found by `cargo fuzz run fmt_idempotent`.

#[test]
fn unbalanced_objects_after_operators_are_rejected_quickly() {
    // timeout-cd15ef1f: many unclosed `{` after operators made a
    // backtracking parser take exponential time.
    let text = "d = a*b/{\n  v = a*b/{\n".repeat(12);
    let err = fnhcl_fmt::format(&text).expect_err("not valid HCL");
    assert!(err.to_string().contains("Missing expression"), "{err}");
}

#[test]
fn block_comment_at_end_of_file_is_not_aligned_as_trailing_comment() {
    // crash-minimized 7b94ba7e: the first run aligned the `//` comment with
    // a final `/* */` (no newline after it); the second run, with the
    // newline added, did not.
    for text in ["e {}//*\nte {}/* */", "e {}//*\nte {}/*\0*/"] {
        let once = fnhcl_fmt::format(text).expect("formats");
        let twice = fnhcl_fmt::format(&once).expect("formats");
        assert_eq!(once, twice, "not idempotent for {text:?}");
    }
}
