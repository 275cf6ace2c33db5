//! Formatter fixtures: every `tests/fixtures/*.hcl` and `tests/upstream/*.hcl`
//! file is one test. Its formatted text is an insta snapshot
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
    for (dir, prefix) in [("fixtures", ""), ("upstream", "upstream-")] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .expect("fixture directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "hcl"))
            .collect();
        files.sort();
        for path in files {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            let name = format!("{prefix}{stem}");
            trials.push(Trial::test(name.clone(), move || check(&name, &path)));
        }
    }
    libtest_mimic::run(&args, trials).exit();
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
