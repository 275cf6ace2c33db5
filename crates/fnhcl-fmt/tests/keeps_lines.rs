//! The formatter keeps every line: blank lines and comments stay where they
//! are, so line numbers in diagnostics still match after formatting. The
//! expected texts are what hashicorp/hcl's `hclwrite.Format` gives for the
//! same input (plus the final newline we add). Snapshots cannot check this
//! alone: insta trims the blank lines at the end of a snapshot.

use std::path::Path;

#[track_caller]
fn formats_to(src: &str, want: &str) {
    let got = fnhcl_fmt::format(src).expect("formats");
    assert_eq!(got, want, "input: {src:?}");
}

#[test]
fn leading_blank_lines_are_kept() {
    formats_to(
        "\n\n# c\nlocals {\n  a = 1\n}\n",
        "\n\n# c\nlocals {\n  a = 1\n}\n",
    );
    formats_to("\nlocals {\na=1\n}\n", "\nlocals {\n  a = 1\n}\n");
}

#[test]
fn trailing_blank_lines_are_kept() {
    formats_to("locals {\n  a = 1\n}\n\n\n", "locals {\n  a = 1\n}\n\n\n");
    formats_to("# only\n\n", "# only\n\n");
}

#[test]
fn runs_of_blank_lines_are_kept() {
    formats_to(
        "a = 1\n\n\n\nb = 2\nlocals {\n\n\n  c = 3\n\n\n}\n",
        "a = 1\n\n\n\nb = 2\nlocals {\n\n\n  c = 3\n\n\n}\n",
    );
}

#[test]
fn blank_only_files_keep_their_lines() {
    formats_to("\n\n   \n", "\n\n\n");
    formats_to("", "");
}

#[test]
fn blank_lines_between_comments_are_kept() {
    formats_to(
        "# one\n\n# two\nlocals {\n  # three\n\n  # four\n\n  a = 1 # five\n\n}\n",
        "# one\n\n# two\nlocals {\n  # three\n\n  # four\n\n  a = 1 # five\n\n}\n",
    );
}

/// Every fixture formats to as many lines as it has.
#[test]
fn no_fixture_gains_or_loses_a_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut checked = 0;
    let upstream = fnhcl_cases::workspace_root().join("tests/render/upstream");
    let examples = fnhcl_cases::discover(&upstream, |d| d.join("main.hcl").is_file());
    let mut files = fnhcl_cases::discover(&root.join("fixtures"), |p| {
        fnhcl_cases::has_extension(p, "hcl")
    });
    files.extend(examples.iter().map(|d| d.join("main.hcl")));
    for path in files {
        let src = std::fs::read_to_string(&path).expect("readable fixture");
        let Ok(out) = fnhcl_fmt::format(&src) else {
            continue;
        };
        assert_eq!(
            out.lines().count(),
            src.lines().count(),
            "{}:\n{out}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked > 40, "only {checked} fixtures were checked");
}
