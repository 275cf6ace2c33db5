//! Where `fn-hcl analyze` finds the CRDs and XRDs that resource bodies are
//! checked against, compatible with the Go function-hcl's language server:
//! `--crds PATH` (files or directories, repeatable); else the first
//! `.crd-sources.yaml` found walking up from the analysed path (`scope:
//! namespaced|cluster|both`, `paths:` with `*`/`**` globs, relative to the
//! file's directory; also accepted under a `runtime:` key); else the first
//! `.crds/` directory found walking up.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, anyhow, bail};
use fnhcl_schema::SchemaSet;
use serde_json::Value as Json;

pub const SOURCES_FILE: &str = ".crd-sources.yaml";
pub const SOURCES_DIR: &str = ".crds";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Scope {
    Namespaced,
    Cluster,
    Both,
}

/// The schemas for analysing `start` (a file or directory), or `None` when
/// nothing names any.
pub fn load(explicit: &[PathBuf], start: &Path) -> anyhow::Result<Option<SchemaSet>> {
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
        match discover(start)? {
            Some(found) => found,
            None => return Ok(None),
        }
    };
    let mut set = SchemaSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).with_context(|| format!("read {}", f.display()))?;
        let origin = f.display().to_string();
        if scope == Scope::Both {
            set.load_text(&origin, &text).map_err(|e| anyhow!("{e}"))?;
            continue;
        }
        let docs = fnhcl_schema::parse_documents(&origin, &text).map_err(|e| anyhow!("{e}"))?;
        for doc in docs.iter().filter(|d| in_scope(d, scope)) {
            set.load_text(&origin, &doc.to_string())
                .map_err(|e| anyhow!("{e}"))?;
        }
    }
    Ok(Some(set))
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

/// The files [`source_for`] names, and the scope to load them with.
fn discover(start: &Path) -> anyhow::Result<Option<(Vec<PathBuf>, Scope)>> {
    let Some(source) = source_for(start) else {
        return Ok(None);
    };
    if source.is_file() {
        return sources_file(&source).map(Some);
    }
    let mut files = Vec::new();
    collect(&source, &mut files)?;
    Ok(Some((files, Scope::Both)))
}

fn sources_file(file: &Path) -> anyhow::Result<(Vec<PathBuf>, Scope)> {
    let text = std::fs::read_to_string(file).with_context(|| format!("read {}", file.display()))?;
    let origin = file.display().to_string();
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
    let base = file.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    for p in paths {
        let p = p
            .as_str()
            .ok_or_else(|| anyhow!("{origin}: paths must be strings"))?;
        glob(base, p, &mut files)?;
    }
    files.sort();
    files.dedup();
    // Only YAML files, as the language server loads.
    files.retain(|f| f.extension().is_some_and(|x| x == "yaml" || x == "yml"));
    Ok((files, scope))
}

/// A file, or every `.yaml`/`.yml`/`.json` file under a directory
/// (render's `--crds` reads the same way).
fn collect(path: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let files = fnhcl_testkit::render_args::schema_files("CRDs", path)
        .map_err(|e| anyhow!("{}", e.message))?;
    out.extend(files);
    Ok(())
}

/// Expands a path or glob (`*`, `?` within a segment, `**` across
/// directories) relative to `base`.
fn glob(base: &Path, pattern: &str, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let full = if Path::new(pattern).is_absolute() {
        PathBuf::from(pattern)
    } else {
        base.join(pattern)
    };
    let text = full.to_string_lossy().into_owned();
    if !text.contains(['*', '?']) {
        if full.is_file() {
            out.push(full);
        }
        return Ok(());
    }
    // The literal directory before the first wildcard segment.
    let segments: Vec<&str> = text.split('/').collect();
    let first = segments
        .iter()
        .position(|s| s.contains(['*', '?']))
        .unwrap_or(segments.len());
    let root = if first == 0 {
        PathBuf::from(".")
    } else {
        PathBuf::from(segments[..first].join("/")).join("")
    };
    let root = if root.as_os_str().is_empty() {
        PathBuf::from("/")
    } else {
        root
    };
    if !root.is_dir() {
        return Ok(());
    }
    let rest = &segments[first..];
    let mut found = Vec::new();
    collect(&root, &mut found)?;
    for p in found {
        let Ok(rel) = p.strip_prefix(&root) else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
        if matches_path(rest, &parts) {
            out.push(p);
        }
    }
    Ok(())
}

fn matches_path(pattern: &[&str], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (0..=path.len()).any(|i| matches_path(rest, &path[i..])),
        Some((seg, rest)) => match path.split_first() {
            Some((p, prest)) => {
                matches_segment(seg.as_bytes(), p.as_bytes()) && matches_path(rest, prest)
            }
            None => false,
        },
    }
}

fn matches_segment(pat: &[u8], s: &[u8]) -> bool {
    match pat.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| matches_segment(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && matches_segment(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && matches_segment(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(matches_path(&["*.yaml"], &["a.yaml"]));
        assert!(!matches_path(&["*.yaml"], &["d", "a.yaml"]));
        assert!(matches_path(&["**", "*.yaml"], &["d", "e", "a.yaml"]));
        assert!(matches_path(&["**", "*.yaml"], &["a.yaml"]));
        assert!(matches_path(&["crds", "**", "x?.yml"], &["crds", "xa.yml"]));
        assert!(!matches_path(
            &["crds", "**", "x?.yml"],
            &["crds", "xab.yml"]
        ));
    }

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
