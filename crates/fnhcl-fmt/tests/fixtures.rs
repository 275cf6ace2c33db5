//! Formatter fixtures: every `tests/fixtures/*.hcl` file and the Go
//! function-hcl's example programs (`tests/render/upstream/*/main.hcl` of
//! the repository, stored once) are one test each. Its formatted text is an insta snapshot
//! (`tests/snapshots/`; review new ones with `cargo insta review` or accept
//! them with `INSTA_UPDATE=always`), and the test also checks that formatting
//! is idempotent and keeps the meaning (same syntax tree). Fixtures named
//! `error-*.hcl` contain syntax errors: the snapshot is the error.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut trials = Vec::new();
    for (files, prefix) in [(fixtures(&root), ""), (upstream(), "upstream-")] {
        for (stem, path) in files {
            let name = format!("{prefix}{stem}");
            let mutated = path.clone();
            trials.push(Trial::test(name.clone(), move || check(&name, &path)));
            trials.push(Trial::test(
                format!("mutations/{prefix}{stem}"),
                move || mutations(&mutated),
            ));
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// `tests/fixtures/*.hcl` by name, sorted.
fn fixtures(root: &Path) -> Vec<(String, PathBuf)> {
    fnhcl_cases::discover(&root.join("fixtures"), |p| {
        fnhcl_cases::has_extension(p, "hcl")
    })
    .into_iter()
    .map(|p| (fnhcl_cases::case_name(&p), p))
    .collect()
}

/// The upstream examples' programs, by example name, sorted.
fn upstream() -> Vec<(String, PathBuf)> {
    let root = fnhcl_cases::workspace_root().join("tests/render/upstream");
    let out: Vec<(String, PathBuf)> =
        fnhcl_cases::discover(&root, |d| d.join("main.hcl").is_file())
            .into_iter()
            .map(|d| (fnhcl_cases::case_name(&d), d.join("main.hcl")))
            .collect();
    assert!(out.len() >= 10, "the 10 upstream examples");
    out
}

fn check(name: &str, path: &Path) -> Result<(), Failed> {
    let src = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let snapshot = if name.starts_with("error-") {
        match fnhcl_fmt::format(&src) {
            Ok(out) => return Err(format!("expected a syntax error, got:\n{out}").into()),
            Err(e @ fnhcl_fmt::FormatError::Syntax { .. }) => e.to_string(),
            Err(e) => return Err(format!("expected a syntax error, got {e}").into()),
        }
    } else {
        let out = fnhcl_fmt::format(&src).map_err(|e| format!("format failed: {e}"))?;
        let again = fnhcl_fmt::format(&out).map_err(|e| format!("second format failed: {e}"))?;
        if again != out {
            return Err(format!("not idempotent:\n--- first\n{out}\n--- second\n{again}").into());
        }
        let m1 = fnhcl_fmt::meaning(&src).map_err(|e| e.to_string())?;
        let m2 = fnhcl_fmt::meaning(&out).map_err(|e| e.to_string())?;
        if m1 != m2 {
            return Err(format!("meaning changed:\n{m1}\n{m2}").into());
        }
        out
    };
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_input_file(path);
    // A mismatch panics; libtest-mimic reports the panic as this test's failure.
    settings.bind(|| insta::assert_snapshot!(name.to_owned(), snapshot));
    Ok(())
}

/// Robustness: many small deterministic corruptions of a fixture. The
/// formatter must never panic; whatever it accepts it formats idempotently,
/// and it never reports an internal error (output that would not parse or
/// would mean something else).
fn mutations(path: &Path) -> Result<(), Failed> {
    const INSERTS: &[&str] = &[
        "{", "}", "[", "]", "(", ")", "\"", "${", "%{", "~", ":", "=", "?", "\n", "#", "//", "/*",
        "*/", "<<EOT\n", "-", ",", " ", "\t", "\\", "é", "for ", "\r\n",
    ];
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let chars: Vec<char> = src.chars().collect();
    // Deterministic: seeded by the fixture's length.
    let mut rng = fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15 ^ (chars.len() as u64));
    for round in 0..200 {
        let mut text = chars.clone();
        for _ in 0..(1 + round % 3) {
            let at = rng.usize(..=text.len());
            match rng.usize(..3) {
                0 if at < text.len() => {
                    text.remove(at);
                }
                1 if at < text.len() => {
                    let c = text[at];
                    text.insert(at, c);
                }
                _ => {
                    let ins = INSERTS[rng.usize(..INSERTS.len())];
                    for (i, c) in ins.chars().enumerate() {
                        text.insert(at + i, c);
                    }
                }
            }
        }
        let input: String = text.into_iter().collect();
        match fnhcl_fmt::format(&input) {
            Ok(out) => {
                let again = fnhcl_fmt::format(&out).map_err(|e| {
                    format!("formatted text does not format again: {e}\n--- input\n{input}")
                })?;
                if again != out {
                    return Err(format!(
                        "not idempotent\n--- input\n{input}\n--- first\n{out}\n--- second\n{again}"
                    )
                    .into());
                }
            }
            Err(fnhcl_fmt::FormatError::Syntax { .. }) => {}
            Err(e) => return Err(format!("{e}\n--- input\n{input:?}").into()),
        }
    }
    Ok(())
}
