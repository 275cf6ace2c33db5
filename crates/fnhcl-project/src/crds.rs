//! Where `fn-hcl analyze` finds the CRDs and XRDs that resource bodies are
//! checked against, compatible with the Go function-hcl's language server:
//! `--crds PATH` (files or directories, repeatable); else the first
//! `.crd-sources.yaml` found walking up from the analysed path (`scope:
//! namespaced|cluster|both`, `paths:` with `*`/`**` globs, relative to the
//! file's directory; also accepted under a `runtime:` key); else the first
//! `.crds/` directory found walking up.
//!
//! Bounded ([`Limits`]): a `.crd-sources.yaml` or `.crds/` is read only
//! under its workspace root ([`workspace_root`]: the git repository that
//! holds it, else its own directory), a pattern that leads out of it is an
//! error naming the pattern; globs are matched in polynomial time (see
//! [`crate::glob`]), the walks look at a bounded number of entries and
//! levels and descend only where the pattern can still match; the files'
//! sizes together are checked against a budget before any is read; a load
//! can be cancelled ([`load_with`]'s `cancel`) between two entries or files.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context as _, anyhow, bail};
use fnhcl_schema::SchemaSet;
use serde_json::Value as Json;

use crate::glob::{Pattern, State};

pub const SOURCES_FILE: &str = ".crd-sources.yaml";
pub const SOURCES_DIR: &str = ".crds";

/// Largest `.crd-sources.yaml` read (bytes).
pub const MAX_SOURCES_FILE_BYTES: u64 = 1 << 20;
/// Most patterns in one `.crd-sources.yaml`.
pub const MAX_PATTERNS: usize = 1_000;

/// The bounds of one load.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of CRD files read, all files together (`--crds-max-bytes`).
    pub max_bytes: u64,
    /// Files and directories the walks of one load look at.
    pub max_entries: usize,
    /// Directory levels a walk descends below a pattern's literal
    /// directory (or `.crds/`).
    pub max_depth: usize,
    /// Glob comparisons (one character against one pattern character) in
    /// one load.
    pub max_match_steps: u64,
}

/// [`Limits::max_entries`]'s default.
pub const MAX_ENTRIES: usize = 100_000;
/// [`Limits::max_depth`]'s default.
pub const MAX_DEPTH: usize = 16;
/// [`Limits::max_match_steps`]'s default.
pub const MAX_MATCH_STEPS: u64 = 100_000_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: fnhcl_testkit::render_args::DEFAULT_CRDS_MAX_BYTES,
            max_entries: MAX_ENTRIES,
            max_depth: MAX_DEPTH,
            max_match_steps: MAX_MATCH_STEPS,
        }
    }
}

/// What [`load_with`] fails with when cancelled.
#[derive(Debug)]
pub struct Cancelled;

impl std::fmt::Display for Cancelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("loading the CRDs was cancelled")
    }
}

impl std::error::Error for Cancelled {}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scope {
    Namespaced,
    Cluster,
    Both,
}

/// The schemas for analysing `start` (a file or directory), or `None` when
/// nothing names any, within the default [`Limits`].
pub fn load(explicit: &[PathBuf], start: &Path) -> anyhow::Result<Option<SchemaSet>> {
    load_with(explicit, start, &Limits::default(), &AtomicBool::new(false))
}

/// [`load`] within `limits`; setting `cancel` makes it stop with
/// [`Cancelled`] at its next check (between two directory entries, two
/// files or two documents).
pub fn load_with(
    explicit: &[PathBuf],
    start: &Path,
    limits: &Limits,
    cancel: &AtomicBool,
) -> anyhow::Result<Option<SchemaSet>> {
    let (files, scope) = if !explicit.is_empty() {
        let mut files = Vec::new();
        for p in explicit {
            collect(p, &mut files)?;
            if files.is_empty() {
                bail!("--crds {}: no .yaml, .yml or .json files", p.display());
            }
        }
        (files, Scope::Both)
    } else {
        match discover(start, limits, cancel)? {
            Some(found) => found,
            None => return Ok(None),
        }
    };
    let files: Vec<(&str, PathBuf)> = files.into_iter().map(|f| ("CRDs", f)).collect();
    let texts = fnhcl_testkit::render_args::read_schema_files(&files, limits.max_bytes)
        .map_err(|e| anyhow!("{}", e.message))?;
    let mut set = SchemaSet::new();
    for source in texts {
        check(cancel)?;
        let (origin, text) = (&source.name, &source.text);
        if scope == Scope::Both {
            set.load_text(origin, text).map_err(|e| anyhow!("{e}"))?;
            continue;
        }
        let docs = fnhcl_schema::parse_documents(origin, text).map_err(|e| anyhow!("{e}"))?;
        for doc in docs.iter().filter(|d| in_scope(d, scope)) {
            check(cancel)?;
            set.load_text(origin, &doc.to_string())
                .map_err(|e| anyhow!("{e}"))?;
        }
    }
    Ok(Some(set))
}

fn check(cancel: &AtomicBool) -> anyhow::Result<()> {
    if cancel.load(Ordering::Relaxed) {
        return Err(Cancelled.into());
    }
    Ok(())
}

fn in_scope(doc: &Json, scope: Scope) -> bool {
    let declared = doc.pointer("/spec/scope").and_then(Json::as_str);
    let is_xrd = doc.get("kind").and_then(Json::as_str) == Some("CompositeResourceDefinition");
    let namespaced = match declared {
        Some(s) => s == "Namespaced",
        // CRDs default to namespaced; v1 XRDs are cluster scoped; v2 XRDs
        // default to namespaced.
        None => {
            !is_xrd
                || doc
                    .get("apiVersion")
                    .and_then(Json::as_str)
                    .is_some_and(|a| a.ends_with("/v2"))
        }
    };
    match scope {
        Scope::Both => true,
        Scope::Namespaced => namespaced,
        Scope::Cluster => !namespaced,
    }
}

/// Where the CRDs for `start` (a file or directory) come from: the first
/// `.crd-sources.yaml` in its directory or above, else the first `.crds/`
/// directory; `None` when there is neither. Programs with the same source
/// have the same CRDs (the language server loads them once).
pub fn source_for(start: &Path) -> Option<PathBuf> {
    let start = if start.is_dir() {
        start.to_path_buf()
    } else {
        start.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let start = std::fs::canonicalize(&start).unwrap_or(start);
    let file = start
        .ancestors()
        .map(|dir| dir.join(SOURCES_FILE))
        .find(|f| f.is_file());
    file.or_else(|| {
        start
            .ancestors()
            .map(|dir| dir.join(SOURCES_DIR))
            .find(|d| d.is_dir())
    })
}

/// The root a `.crd-sources.yaml` or `.crds/` in `dir` may read under: the
/// nearest directory at or above `dir` that holds a `.git` (the top of its
/// repository or worktree), else `dir` itself.
pub fn workspace_root(dir: &Path) -> PathBuf {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors()
        .find(|a| a.join(".git").exists())
        .unwrap_or(&dir)
        .to_path_buf()
}

/// The files [`source_for`] names, and the scope to load them with.
fn discover(
    start: &Path,
    limits: &Limits,
    cancel: &AtomicBool,
) -> anyhow::Result<Option<(Vec<PathBuf>, Scope)>> {
    let Some(source) = source_for(start) else {
        return Ok(None);
    };
    if source.is_file() {
        return sources_file(&source, limits, cancel).map(Some);
    }
    let dir = source.parent().unwrap_or(Path::new("/"));
    let root = workspace_root(dir);
    let origin = source.display().to_string();
    let resolved = std::fs::canonicalize(&source).with_context(|| format!("read {origin}"))?;
    if !resolved.starts_with(&root) {
        bail!(
            "{origin} leads to {}, outside the workspace root {} (the git repository that holds it, else its directory): not read",
            resolved.display(),
            root.display()
        );
    }
    let pattern = Pattern::parse("**/*").expect("a valid pattern");
    let mut walk = Walk::new(&origin, &root, limits, cancel);
    let mut files = Vec::new();
    walk.walk(
        &resolved,
        &pattern,
        "**/*",
        &["yaml", "yml", "json"],
        &mut files,
    )?;
    files.sort();
    Ok(Some((files, Scope::Both)))
}

fn sources_file(
    file: &Path,
    limits: &Limits,
    cancel: &AtomicBool,
) -> anyhow::Result<(Vec<PathBuf>, Scope)> {
    let origin = file.display().to_string();
    let text = read_small(file, MAX_SOURCES_FILE_BYTES)?;
    let docs = fnhcl_schema::parse_documents(&origin, &text).map_err(|e| anyhow!("{e}"))?;
    let doc = docs.into_iter().next().unwrap_or(Json::Null);
    let doc = doc.get("runtime").cloned().unwrap_or(doc);
    let scope = match doc.get("scope").and_then(Json::as_str) {
        None | Some("both") | Some("") => Scope::Both,
        Some("namespaced") => Scope::Namespaced,
        Some("cluster") => Scope::Cluster,
        Some(other) => {
            bail!("{origin}: scope must be \"namespaced\", \"cluster\" or \"both\", got {other:?}")
        }
    };
    let paths = match doc.get("paths") {
        Some(Json::Array(a)) => a,
        _ => bail!("{origin}: paths must be a list of files or globs"),
    };
    if paths.len() > MAX_PATTERNS {
        bail!(
            "{origin}: {} paths, more than the limit of {MAX_PATTERNS}",
            paths.len()
        );
    }
    let dir = file.parent().unwrap_or(Path::new("/"));
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let root = workspace_root(&dir);
    let mut walk = Walk::new(&origin, &root, limits, cancel);
    let mut files = Vec::new();
    for p in paths {
        let p = p
            .as_str()
            .ok_or_else(|| anyhow!("{origin}: paths must be strings"))?;
        walk.glob(&dir, p, &mut files)?;
    }
    files.sort();
    files.dedup();
    Ok((files, scope))
}

/// A small file (a `.crd-sources.yaml`), refused past `max` bytes.
fn read_small(file: &Path, max: u64) -> anyhow::Result<String> {
    use std::io::Read as _;
    let f = std::fs::File::open(file).with_context(|| format!("read {}", file.display()))?;
    let mut bytes = Vec::new();
    f.take(max + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("read {}", file.display()))?;
    if bytes.len() as u64 > max {
        bail!("{}: more than the limit of {max} bytes", file.display());
    }
    String::from_utf8(bytes).map_err(|_| anyhow!("{}: not UTF-8 text", file.display()))
}

/// A file, or every `.yaml`/`.yml`/`.json` file under a directory
/// (render's `--crds` reads the same way).
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let files = fnhcl_testkit::render_args::schema_files("CRDs", path)
        .map_err(|e| anyhow!("{}", e.message))?;
    out.extend(files);
    Ok(())
}

/// The walks of one load, sharing its budgets.
struct Walk<'a> {
    origin: &'a str,
    root: &'a Path,
    limits: &'a Limits,
    cancel: &'a AtomicBool,
    entries: usize,
    steps: u64,
}

impl<'a> Walk<'a> {
    fn new(origin: &'a str, root: &'a Path, limits: &'a Limits, cancel: &'a AtomicBool) -> Self {
        Walk {
            origin,
            root,
            limits,
            cancel,
            entries: 0,
            steps: 0,
        }
    }

    /// Adds the `.yaml`/`.yml` files that `text` (a path or glob relative
    /// to `dir`, or absolute) names.
    fn glob(&mut self, dir: &Path, text: &str, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
        let origin = self.origin;
        let pattern =
            Pattern::parse(text).map_err(|e| anyhow!("{origin}: pattern {text:?}: {e}"))?;
        let mut base = if pattern.absolute {
            PathBuf::from("/")
        } else {
            dir.to_path_buf()
        };
        for seg in &pattern.prefix {
            if seg == ".." {
                base.pop();
            } else {
                base.push(seg);
            }
        }
        let outside = |at: &Path| {
            anyhow!(
                "{origin}: pattern {text:?} leads to {}, outside the workspace root {} (the git repository that holds {SOURCES_FILE}, else its directory): not read; `fn-hcl analyze --crds PATH` reads CRDs from anywhere",
                at.display(),
                self.root.display()
            )
        };
        let resolved = match std::fs::canonicalize(&base) {
            Ok(r) => r,
            // Nothing there: nothing to read, as long as it would be under
            // the root.
            Err(_) if base.starts_with(self.root) => return Ok(()),
            Err(_) => return Err(outside(&base)),
        };
        if !resolved.starts_with(self.root) {
            return Err(outside(&resolved));
        }
        if !pattern.has_wildcards() {
            if resolved.is_file() && is_yaml(&resolved, &["yaml", "yml"]) {
                out.push(base);
            }
            return Ok(());
        }
        if !resolved.is_dir() {
            return Ok(());
        }
        self.walk(&resolved, &pattern, text, &["yaml", "yml"], out)
    }

    /// Adds the files under `base` whose path below it matches `pattern`
    /// and whose extension is one of `exts`: hidden entries and symlinked
    /// directories skipped, a directory entered only when the pattern can
    /// still match below it; a symlinked file only when it leads to a
    /// regular file under the root.
    fn walk(
        &mut self,
        base: &Path,
        pattern: &Pattern,
        text: &str,
        exts: &[&str],
        out: &mut Vec<PathBuf>,
    ) -> anyhow::Result<()> {
        let origin = self.origin;
        let io = |p: &Path, e: std::io::Error| anyhow!("{origin}: read {}: {e}", p.display());
        let mut dirs: Vec<(PathBuf, usize, State)> = vec![(base.to_path_buf(), 0, pattern.start())];
        while let Some((dir, depth, state)) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).map_err(|e| io(&dir, e))? {
                check(self.cancel)?;
                let entry = entry.map_err(|e| io(&dir, e))?;
                self.entries += 1;
                if self.entries > self.limits.max_entries {
                    bail!(
                        "{origin}: pattern {text:?}: more than {} files and directories looked at under {}; narrow the pattern",
                        self.limits.max_entries,
                        base.display()
                    );
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                if name.starts_with('.') {
                    continue;
                }
                let next = pattern.step(&state, name, &mut self.steps);
                if self.steps > self.limits.max_match_steps {
                    bail!(
                        "{origin}: pattern {text:?}: matching it took more than {} steps; use fewer wildcards",
                        self.limits.max_match_steps
                    );
                }
                if next.is_empty() {
                    continue;
                }
                let path = entry.path();
                let ft = entry.file_type().map_err(|e| io(&path, e))?;
                if ft.is_dir() {
                    if !pattern.can_descend(&next) {
                        continue;
                    }
                    if depth >= self.limits.max_depth {
                        bail!(
                            "{origin}: pattern {text:?}: directories under {} are nested more than {} levels deep; narrow the pattern",
                            base.display(),
                            self.limits.max_depth
                        );
                    }
                    dirs.push((path, depth + 1, next));
                    continue;
                }
                if !pattern.accepts(&next) || !is_yaml(&path, exts) {
                    continue;
                }
                let regular = if ft.is_symlink() {
                    std::fs::canonicalize(&path)
                        .is_ok_and(|r| r.starts_with(self.root) && r.is_file())
                } else {
                    ft.is_file()
                };
                if regular {
                    out.push(path);
                }
            }
        }
        Ok(())
    }
}

fn is_yaml(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| exts.contains(&x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes() {
        let crd = |s: Option<&str>| {
            let mut d = serde_json::json!({"apiVersion": "apiextensions.k8s.io/v1",
                "kind": "CustomResourceDefinition", "spec": {}});
            if let Some(s) = s {
                d["spec"]["scope"] = s.into();
            }
            d
        };
        assert!(in_scope(&crd(Some("Namespaced")), Scope::Namespaced));
        assert!(!in_scope(&crd(Some("Cluster")), Scope::Namespaced));
        assert!(in_scope(&crd(Some("Cluster")), Scope::Cluster));
        assert!(in_scope(&crd(None), Scope::Namespaced));
        let xrd_v1 = serde_json::json!({"apiVersion": "apiextensions.crossplane.io/v1",
            "kind": "CompositeResourceDefinition", "spec": {}});
        assert!(in_scope(&xrd_v1, Scope::Cluster));
    }
}
