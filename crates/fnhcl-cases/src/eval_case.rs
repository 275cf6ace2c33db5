//! The evaluator's case directories (`crates/fnhcl-eval/tests/cases/NAME`,
//! described in that directory's README), read once for the evaluator's
//! test and for `fnhcl-bench`'s differential tester.
//!
//! A case's program is, in this order of precedence:
//! - a `program` file naming a repository file (relative to the repository
//!   root) that is the case's `main.hcl`;
//! - an `input.txtar` bundle (programs with module directories);
//! - the directory's `*.hcl` files, in name order.
//!
//! Beside it: `request.yaml` (optional) and `expected.yaml`. The YAML is
//! left to the callers, which read it into different request forms.

use std::path::{Path, PathBuf};

use crate::{case_name, discover, has_extension, workspace_root};

/// One evaluator case, read.
#[derive(Clone, Debug)]
pub struct EvalCase {
    /// The directory's name.
    pub name: String,
    /// The program's files, `(name, text)`, in order.
    pub files: Vec<(String, String)>,
    /// The text of `request.yaml`, if there is one.
    pub request: Option<String>,
    /// Where the expectation lives: `expected.yaml`.
    pub expected: PathBuf,
}

/// The evaluator's case directories, sorted.
pub fn eval_case_dirs() -> Vec<PathBuf> {
    discover(
        &workspace_root().join("crates/fnhcl-eval/tests/cases"),
        Path::is_dir,
    )
}

/// Reads the case in `dir`.
pub fn load(dir: &Path) -> Result<EvalCase, String> {
    Ok(EvalCase {
        name: case_name(dir),
        files: program_files(dir)?,
        request: std::fs::read_to_string(dir.join("request.yaml")).ok(),
        expected: dir.join("expected.yaml"),
    })
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn program_files(dir: &Path) -> Result<Vec<(String, String)>, String> {
    if let Ok(rel) = std::fs::read_to_string(dir.join("program")) {
        let text = read(&workspace_root().join(rel.trim()))?;
        return Ok(vec![("main.hcl".to_owned(), text)]);
    }
    if let Ok(text) = std::fs::read_to_string(dir.join("input.txtar")) {
        let (_, files) = fnhcl_base::txtar::parse_archive(&text);
        return Ok(files.into_iter().map(|f| (f.name, f.data)).collect());
    }
    discover(dir, |p| has_extension(p, "hcl"))
        .into_iter()
        .map(|f| {
            let name = f.file_name().unwrap_or_default().to_string_lossy();
            Ok((name.into_owned(), read(&f)?))
        })
        .collect()
}
