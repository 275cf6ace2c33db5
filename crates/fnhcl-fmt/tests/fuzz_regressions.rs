//! Inputs found by `cargo fuzz run fmt_idempotent`.

#[test]
fn unbalanced_objects_after_operators_are_rejected_quickly() {
    // timeout-cd15ef1f: many unclosed `{` after operators made hcl-edit
    // backtrack exponentially; the bracket pre-scan rejects the text first.
    let text = "d = a*b/{\n  v = a*b/{\n".repeat(12);
    let err = fnhcl_fmt::format(&text).expect_err("not valid HCL");
    assert!(err.to_string().contains("Unbalanced brackets"), "{err}");
}
