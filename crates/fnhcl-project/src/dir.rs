//! A composition directory as `fn-hcl package` bundles it and `fn-hcl
//! analyze` checks it (upstream §1.4): its files and its analysis options.
//!
//! Files: every `*.hcl` regular file directly in DIR (sorted by name), then
//! each `libraryFiles` entry of an optional `DIR/composition.yaml`
//! (`{ xrd: ..., libraryFiles: [paths] }`), relative to DIR; duplicates are
//! dropped (first wins). Then the module directories those files import
//! (`import "modules/x" {}`, `module "modules/x" "name" {}`), and the ones
//! the modules import, with all their `*.hcl` files, named by their path
//! relative to DIR (`modules/x/main.hcl`).

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, anyhow, bail};
use fnhcl_base::SourceMap;
use yaml_rust2::{Yaml, YamlLoader};

/// One file of a package: its archive name (relative path) and text.
pub struct PackageFile {
    pub name: String,
    pub text: String,
}

pub fn source_map(files: &[PackageFile]) -> Arc<SourceMap> {
    let mut sources = SourceMap::new();
    for f in files {
        sources.add(f.name.clone(), f.text.clone());
    }
    Arc::new(sources)
}

/// Loads the files of a composition directory (upstream §1.4).
pub fn load_dir(dir: &Path) -> anyhow::Result<Vec<PackageFile>> {
    load_dir_with(dir, &Overlay::default())
}

/// Texts that replace or add to what is on disk: an editor's unsaved
/// buffers, by absolute path.
#[derive(Clone, Debug, Default)]
pub struct Overlay {
    pub files: std::collections::BTreeMap<PathBuf, String>,
}

impl Overlay {
    fn read(&self, path: &Path) -> anyhow::Result<String> {
        if let Some(text) = self.files.get(path) {
            return Ok(text.clone());
        }
        std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))
    }
    /// `*.hcl` buffers directly in `dir` (on disk or not).
    fn hcl_in<'a>(&'a self, dir: &'a Path) -> impl Iterator<Item = String> + 'a {
        self.files.keys().filter_map(move |p| {
            let name = p.file_name()?.to_str()?;
            (p.parent() == Some(dir) && name.ends_with(".hcl")).then(|| name.to_owned())
        })
    }
}

/// The `*.hcl` files directly in `dir`, on disk or open in `overlay`,
/// sorted by name.
fn hcl_names(dir: &Path, overlay: &Overlay) -> anyhow::Result<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("read {}", dir.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("read {}", dir.display()))?;
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".hcl") && std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()) {
            names.push(name);
        }
    }
    for name in overlay.hcl_in(dir) {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort();
    Ok(names)
}

/// The `*.hcl` files directly in `dir` alone (no library files, no
/// modules), open buffers in place of the disk; unreadable files are left
/// out. What an editor can still check when [`load_dir_with`] fails.
pub fn load_own_hcl(dir: &Path, overlay: &Overlay) -> Vec<PackageFile> {
    hcl_names(dir, overlay)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|name| {
            let text = overlay.read(&dir.join(&name)).ok()?;
            Some(PackageFile { name, text })
        })
        .collect()
}

/// [`load_dir`] with open buffers in place of (or beside) the files on disk.
pub fn load_dir_with(dir: &Path, overlay: &Overlay) -> anyhow::Result<Vec<PackageFile>> {
    let meta = std::fs::metadata(dir).with_context(|| format!("stat {}", dir.display()))?;
    if !meta.is_dir() {
        bail!("{} is not a directory", dir.display());
    }
    let mut names = hcl_names(dir, overlay)?;

    let comp = dir.join("composition.yaml");
    if let Ok(m) = std::fs::metadata(&comp) {
        if m.is_dir() {
            bail!("{} is a directory", comp.display());
        }
        let text = overlay.read(&comp)?;
        for lib in library_files(&text)
            .with_context(|| format!("unmarshal contents of {}", comp.display()))?
        {
            if Path::new(&lib).is_absolute() {
                bail!("library file {lib:?} is an absolute path, not allowed");
            }
            let path = dir.join(&lib);
            let m = std::fs::metadata(&path).with_context(|| format!("stat {}", path.display()))?;
            if m.is_dir() {
                bail!("library file {} cannot be a directory", path.display());
            }
            let clean = clean_relative(&lib);
            if !names.iter().any(|n| clean_relative(n) == clean) {
                names.push(lib);
            }
        }
    }

    let mut files: Vec<PackageFile> = names
        .into_iter()
        .map(|name| {
            let text = overlay.read(&dir.join(&name))?;
            Ok(PackageFile { name, text })
        })
        .collect::<anyhow::Result<_>>()?;
    follow_imports(dir, &mut files, overlay)?;
    Ok(files)
}

/// Most files a package may hold once module directories are added.
const MAX_PACKAGE_FILES: usize = 4096;

/// Adds the module directories the files import (D24, D25), and the ones
/// those import, with their `*.hcl` files (any depth, hidden entries
/// skipped) named by their path relative to `dir`.
fn follow_imports(
    dir: &Path,
    files: &mut Vec<PackageFile>,
    overlay: &Overlay,
) -> anyhow::Result<()> {
    let mut done: Vec<String> = Vec::new();
    let mut next = 0;
    while next < files.len() {
        let mut sources = SourceMap::new();
        let id = sources.add(files[next].name.clone(), files[next].text.as_str());
        let (mut body, errors) = fnhcl_syntax::parse_file(&sources, id);
        if errors.iter().any(fnhcl_base::Diagnostic::is_error) {
            // A file being edited (the language server's buffers) still
            // names its modules: read its top-level import and module
            // blocks alone.
            let id = sources.add(files[next].name.clone(), import_blocks(&files[next].text));
            body = fnhcl_syntax::parse_file(&sources, id).0;
        }
        for imp in fnhcl_eval::imported_dirs(&body) {
            if done.contains(&imp.path) {
                continue;
            }
            done.push(imp.path.clone());
            let at = sources.range_text(imp.span);
            let root = dir.join(&imp.path);
            if !root.is_dir() {
                bail!(
                    "{at}: imported module directory {:?} not found under {}",
                    imp.path,
                    dir.display()
                );
            }
            let mut found = Vec::new();
            collect_hcl(&root, &imp.path, 0, &mut found)?;
            if found.is_empty() {
                bail!(
                    "{at}: imported module directory {:?} has no .hcl files",
                    imp.path
                );
            }
            for name in found {
                if files.iter().any(|f| f.name == name) {
                    continue;
                }
                let text = overlay.read(&dir.join(&name))?;
                files.push(PackageFile { name, text });
                if files.len() > MAX_PACKAGE_FILES {
                    bail!("more than {MAX_PACKAGE_FILES} files to package");
                }
            }
        }
        next += 1;
    }
    Ok(())
}

/// The `import` and `module` blocks that start in the first column of
/// `text`, each up to the first line in the first column that closes it
/// (`}`), other lines blanked so that spans keep their lines.
fn import_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let starts = line.starts_with("import ") || line.starts_with("module ");
        if starts || inside {
            out.push_str(line);
            let closed = if starts {
                line.trim_end().ends_with('}')
            } else {
                line.starts_with('}')
            };
            inside = !closed;
        } else {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        }
    }
    out
}

/// `*.hcl` regular files under `path` (named `prefix/...`), sorted,
/// hidden entries skipped; symlinked directories are not followed.
fn collect_hcl(
    path: &Path,
    prefix: &str,
    depth: usize,
    out: &mut Vec<String>,
) -> anyhow::Result<()> {
    if depth > 16 {
        bail!("{}: directories nested too deeply", path.display());
    }
    let mut entries: Vec<_> = std::fs::read_dir(path)
        .with_context(|| format!("read {}", path.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("read {}", path.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let rel = format!("{prefix}/{name}");
        let ft = e
            .file_type()
            .with_context(|| format!("stat {}", e.path().display()))?;
        if ft.is_dir() {
            collect_hcl(&e.path(), &rel, depth + 1, out)?;
        } else if name.ends_with(".hcl") && std::fs::metadata(e.path()).is_ok_and(|m| m.is_file()) {
            out.push(rel);
        }
    }
    Ok(())
}

/// Analysis options for a directory: the composite's schema from `xrd`
/// (a file holding a CompositeResourceDefinition), or else from the XRD
/// among DIR's `*.yaml` files that `composition.yaml`'s `xrd` names (or
/// the only XRD there, when it names none).
pub fn analysis_options(dir: &Path, xrd: Option<&Path>) -> anyhow::Result<fnhcl_analyze::Options> {
    let (want_api, want_kind) = match std::fs::read_to_string(dir.join("composition.yaml")) {
        Ok(text) => {
            let docs = YamlLoader::load_from_str(&text).unwrap_or_default();
            let x = docs
                .first()
                .map(|d| d["xrd"].clone())
                .unwrap_or(Yaml::BadValue);
            (
                x["apiVersion"].as_str().map(str::to_owned),
                x["kind"].as_str().map(str::to_owned),
            )
        }
        Err(_) => (None, None),
    };
    let xrd = match xrd {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("read {}", path.display()))?;
            let docs = fnhcl_render::yaml::load_stream(&text)
                .map_err(|e| anyhow!("{}: {e}", path.display()))?;
            let found = docs.iter().find_map(|d| {
                fnhcl_analyze::composite_schema(d, want_api.as_deref()).map(|s| XrdFacts::new(s, d))
            });
            if found.is_none() {
                bail!(
                    "{}: no CompositeResourceDefinition with a schema",
                    path.display()
                );
            }
            found
        }
        None => find_xrd(dir, want_api.as_deref(), want_kind.as_deref()),
    };
    Ok(match xrd {
        Some(x) => fnhcl_analyze::Options {
            composite_schema: Some(x.schema),
            connection_keys: x.connection_keys,
            namespaced_composite: x.namespaced,
            ..fnhcl_analyze::Options::default()
        },
        None => fnhcl_analyze::Options::default(),
    })
}

/// What the analyser takes from the composite's XRD.
struct XrdFacts {
    schema: std::sync::Arc<fnhcl_schema::Schema>,
    connection_keys: Vec<String>,
    namespaced: bool,
}

impl XrdFacts {
    fn new(schema: std::sync::Arc<fnhcl_schema::Schema>, xrd: &serde_json::Value) -> XrdFacts {
        XrdFacts {
            schema,
            connection_keys: fnhcl_analyze::connection_keys(xrd),
            namespaced: fnhcl_analyze::namespaced_composite(xrd),
        }
    }
}

fn find_xrd(dir: &Path, api_version: Option<&str>, kind: Option<&str>) -> Option<XrdFacts> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    entries.sort();
    let mut found = Vec::new();
    for path in entries {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(docs) = fnhcl_render::yaml::load_stream(&text) else {
            continue;
        };
        for d in docs {
            let names_kind = d.pointer("/spec/names/kind").and_then(|k| k.as_str());
            if kind.is_some() && names_kind != kind {
                continue;
            }
            if let Some(s) = fnhcl_analyze::composite_schema(&d, api_version) {
                found.push(XrdFacts::new(s, &d));
            }
        }
    }
    if found.len() == 1 { found.pop() } else { None }
}

/// `libraryFiles` of a `composition.yaml` (other keys are ignored).
fn library_files(text: &str) -> anyhow::Result<Vec<String>> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| anyhow!("{e}"))?;
    let Some(doc) = docs.into_iter().next() else {
        return Ok(Vec::new());
    };
    match &doc {
        Yaml::Hash(_) => {}
        Yaml::Null => return Ok(Vec::new()),
        _ => bail!("expected a mapping at the top level"),
    }
    match &doc["libraryFiles"] {
        Yaml::BadValue | Yaml::Null => Ok(Vec::new()),
        Yaml::Array(items) => items
            .iter()
            .map(|i| match i {
                Yaml::String(s) => Ok(s.clone()),
                other => bail!("libraryFiles: expected a string, found {other:?}"),
            })
            .collect(),
        other => bail!("libraryFiles: expected a list of paths, found {other:?}"),
    }
}

/// A relative path without `.` components and with `/` separators, for
/// duplicate detection.
fn clean_relative(p: &str) -> String {
    Path::new(p)
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// The directory whose program `dir` belongs to: the nearest of its
/// ancestors (at most four levels up) whose program imports `dir` as a
/// module directory (D24: import paths are relative to the root program),
/// else `dir` itself. Ancestors whose files cannot be loaded are skipped.
pub fn program_root(dir: &Path, overlay: &Overlay) -> PathBuf {
    for parent in dir.ancestors().skip(1).take(4) {
        let Ok(rel) = dir.strip_prefix(parent) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if hcl_names(parent, overlay).is_ok_and(|names| names.is_empty()) {
            continue;
        }
        let Ok(files) = load_dir_with(parent, overlay) else {
            continue;
        };
        let prefix = format!("{rel}/");
        if files.iter().any(|f| f.name.starts_with(&prefix)) {
            return parent.to_path_buf();
        }
    }
    dir.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_does_not_parse_still_brings_its_modules() {
        let dir =
            std::env::temp_dir().join(format!("fnhcl-project-imports-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("modules/bucket")).expect("mkdir");
        std::fs::write(
            dir.join("modules/bucket/main.hcl"),
            "export {\n  a = 1\n}\n",
        )
        .expect("write");
        std::fs::write(dir.join("modules/db.hcl"), "locals {}\n").expect("write");
        let main =
            "import \"modules/bucket\" {\n  as = \"b\"\n}\nlocals {\n  x = module.logs.\n}\n";
        std::fs::write(dir.join("main.hcl"), main).expect("write");
        let names: Vec<String> = load_dir(&dir)
            .expect("load")
            .into_iter()
            .map(|f| f.name)
            .collect();
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(names, ["main.hcl", "modules/bucket/main.hcl"]);
    }

    #[test]
    fn import_blocks_keep_lines_and_drop_the_rest() {
        let text = "import \"a\" {}\nlocals {\n  x = (\n}\nmodule \"a\" \"i\" {\n  p = 1\n}\n";
        let got = import_blocks(text);
        assert_eq!(got.lines().count(), text.lines().count());
        assert_eq!(
            got.lines()
                .filter(|l| !l.trim().is_empty())
                .collect::<Vec<_>>(),
            ["import \"a\" {}", "module \"a\" \"i\" {", "  p = 1", "}"]
        );
    }
}
