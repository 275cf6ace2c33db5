//! Case discovery and blessing for the data-driven test harnesses, and
//! `fn-hcl test`'s discovery through `fnhcl-testkit`.
//!
//! A harness finds its cases with [`discover`] (one directory level) or
//! [`discover_tree`] (render case directories at any depth), both sorted,
//! and checks each case's output against its expectation file with
//! [`check_or_bless`]. With `FNHCL_BLESS=1` in the environment (that value
//! and no other, see [`bless_enabled`]) the expectation is written instead.
//!
//! The evaluator's case directories are read by [`eval_case`], for its own
//! test and for the differential tester in `fnhcl-bench`.
//!
//! Test tooling: this crate reads and writes files.

pub mod eval_case;

use std::path::{Path, PathBuf};

/// The environment variable that turns comparing into rewriting.
pub const BLESS_VAR: &str = "FNHCL_BLESS";

/// Whether expectations are to be rewritten: `FNHCL_BLESS=1`.
pub fn bless_enabled() -> bool {
    std::env::var_os(BLESS_VAR).is_some_and(|v| v == "1")
}

/// The repository's root (the harnesses' data lives under it).
pub fn workspace_root() -> PathBuf {
    // This crate is `crates/fnhcl-cases`.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    dir.ancestors().nth(2).unwrap_or(dir).to_path_buf()
}

/// The entries of `root` that `is_case` accepts, sorted by path.
///
/// Panics when `root` cannot be read: a harness without its cases is broken.
pub fn discover(root: &Path, is_case: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(root)
        .unwrap_or_else(|e| panic!("cannot read the cases in {}: {e}", root.display()));
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| is_case(p))
        .collect();
    out.sort();
    out
}

/// The directories at or under `root` (at most eight levels down) that
/// `is_case` accepts, in sorted walk order; a case directory is not searched
/// further. Unreadable directories are skipped.
pub fn discover_tree(root: &Path, is_case: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, is_case: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
        if is_case(dir) {
            out.push(dir.to_path_buf());
            return;
        }
        if depth >= 8 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for d in dirs {
            walk(&d, depth + 1, is_case, out);
        }
    }
    let mut out = Vec::new();
    walk(root, 0, &is_case, &mut out);
    out
}

/// Whether `path` names a file ending in `.ext`.
pub fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension().is_some_and(|x| x == ext)
}

/// A case's test name: its file name without the extension.
pub fn case_name(path: &Path) -> String {
    path.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// A unified line diff of two texts.
pub fn line_diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

/// Compares `actual` with the expectation file at `path`, or (with
/// `FNHCL_BLESS=1`) writes it there. The error is a readable line diff.
pub fn check_or_bless(path: &Path, actual: &str) -> Result<(), String> {
    check_or_bless_with(path, actual, |text| Ok(text.to_owned()))
}

/// [`check_or_bless`] for expectations compared by meaning: `normalise`
/// turns the file's text into the form `actual` is written in (for example
/// YAML parsed and written again), and the two are compared.
pub fn check_or_bless_with(
    path: &Path,
    actual: &str,
    normalise: impl Fn(&str) -> Result<String, String>,
) -> Result<(), String> {
    if bless_enabled() {
        return bless(path, actual);
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (run with {BLESS_VAR}=1 to create it)",
            path.display()
        )
    })?;
    let expected = normalise(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    if expected == actual {
        return Ok(());
    }
    Err(format!(
        "{} differs from the actual output ({BLESS_VAR}=1 rewrites it):\n{}",
        path.display(),
        line_diff(&expected, actual)
    ))
}

/// Writes `text` to the expectation file at `path` unless it holds that
/// already. For harnesses that decide themselves when to bless.
pub fn bless(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory, removed at the end (`discover_tree` is tested
    /// through `fnhcl_testkit::discover_cases`).
    struct Temp(PathBuf);

    impl Drop for Temp {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn discovery_is_sorted_and_checks_report_a_diff() {
        let t = Temp(std::env::temp_dir().join(format!("fnhcl-cases-{}", std::process::id())));
        std::fs::create_dir_all(t.0.join("d")).unwrap();
        for f in ["b.hcl", "a.hcl", "c.txt"] {
            std::fs::write(t.0.join(f), "").unwrap();
        }
        let found = discover(&t.0, |p| has_extension(p, "hcl"));
        assert_eq!(found, vec![t.0.join("a.hcl"), t.0.join("b.hcl")]);
        assert_eq!(discover(&t.0, Path::is_dir), vec![t.0.join("d")]);
        assert_eq!(case_name(&found[0]), "a");
        if bless_enabled() {
            return;
        }
        let path = t.0.join("expected");
        let missing = check_or_bless(&path, "x\n").unwrap_err();
        assert!(missing.contains("FNHCL_BLESS=1 to create it"), "{missing}");
        std::fs::write(&path, "a\nb\n").unwrap();
        assert!(check_or_bless(&path, "a\nb\n").is_ok());
        let diff = check_or_bless(&path, "a\nc\n").unwrap_err();
        assert!(diff.contains("-b\n+c\n"), "{diff}");
        let upper = |s: &str| Ok(s.to_uppercase());
        assert!(check_or_bless_with(&path, "A\nB\n", upper).is_ok());
        bless(&path, "new\n").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
    }
}
