//! Which file belongs to which module (decisions D24, D25).
//!
//! A module is a directory of the program's input that some `import`
//! block (or a `module "dir/path" "name"` block) names. Every file belongs
//! to the module of the longest imported directory that contains it, or
//! to the root program when none does. Import paths are relative to the
//! input root. The import graph must be acyclic.

use std::collections::{BTreeMap, HashMap};

use fnhcl_base::{Diagnostic, SourceMap, Span, codes};
use fnhcl_syntax::ast::{Block, Body, Structure};

use crate::graph;
use crate::refs::literal_string;
use crate::schema;

/// One module's files and imports.
pub(crate) struct ModuleSrc {
    /// The directory (`modules/bucket`); empty for the root program.
    pub dir: String,
    /// Indices of its files in the parsed bodies.
    pub files: Vec<usize>,
    /// Import aliases: alias → (module index, the import's header).
    pub aliases: BTreeMap<String, (usize, Span)>,
    /// Modules named by path in `module` labels: path → module index.
    pub by_path: HashMap<String, usize>,
}

/// The program's modules; `modules[0]` is the root.
pub(crate) struct Layout {
    pub modules: Vec<ModuleSrc>,
    /// Compile order: every module after the modules it imports.
    pub order: Vec<usize>,
}

/// An import found in a file.
struct ImportRef {
    file: usize,
    path: String,
    /// Explicit `as`, or `None` for a `module "dir/x" "name"` label.
    alias: Option<(String, Span)>,
    span: Span,
}

/// Normalises an import path; `Err` says what is wrong with it.
pub(crate) fn normalize_path(raw: &str) -> Result<String, String> {
    if raw.is_empty() {
        return Err("the import path is empty".to_owned());
    }
    if raw.starts_with('/') || raw.starts_with('\\') || raw.contains(':') {
        return Err(format!(
            "import path \"{raw}\" is absolute; paths are relative to the program's root directory"
        ));
    }
    let trimmed = raw.trim_end_matches('/');
    let mut segs = Vec::new();
    for s in trimmed.split('/') {
        match s {
            "" | "." => continue,
            ".." => {
                return Err(format!(
                    "import path \"{raw}\" leaves the program's root directory (\"..\" is not allowed)"
                ));
            }
            s if s.contains('\\') => {
                return Err(format!(
                    "import path \"{raw}\" contains a backslash; separate directories with /"
                ));
            }
            s => segs.push(s),
        }
    }
    if segs.is_empty() {
        return Err(format!(
            "import path \"{raw}\" names the root directory; import a subdirectory"
        ));
    }
    Ok(segs.join("/"))
}

/// The default alias of a path: its last segment.
pub(crate) fn default_alias(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// True for a `module` label that is a path rather than an alias.
pub(crate) fn is_path_label(label: &str) -> bool {
    label.contains('/')
}

fn import_blocks(body: &Body) -> impl Iterator<Item = &Block> {
    body.items.iter().filter_map(|s| match s {
        Structure::Block(b) if &*b.ident.name == "import" && b.labels.len() == 1 => Some(b),
        _ => None,
    })
}

/// `module` blocks with a path label, anywhere a module block may appear.
fn path_module_blocks<'a>(body: &'a Body, depth: usize, out: &mut Vec<&'a Block>) {
    if depth > 64 {
        return;
    }
    for s in &body.items {
        let Structure::Block(b) = s else { continue };
        match &*b.ident.name {
            "module" if b.labels.len() == 2 && is_path_label(&b.labels[0].value) => out.push(b),
            "group" | "switch" | "case" | "default" => path_module_blocks(&b.body, depth + 1, out),
            _ => {}
        }
    }
}

/// Splits the files of a program into modules. `names[i]` is the file name
/// of `bodies[i]`.
pub(crate) fn layout(
    sources: &SourceMap,
    names: &[&str],
    bodies: &[Body],
    diags: &mut Vec<Diagnostic>,
) -> Layout {
    let _ = sources;
    // Every import, with a valid path.
    let mut imports: Vec<ImportRef> = Vec::new();
    for (file, body) in bodies.iter().enumerate() {
        for b in import_blocks(body) {
            let raw = &b.labels[0].value;
            let path = match normalize_path(raw) {
                Ok(p) => p,
                Err(m) => {
                    diags.push(
                        Diagnostic::error(format!("invalid import path \"{raw}\""), m)
                            .with_code(codes::MODULE_IMPORT)
                            .with_span(b.labels[0].span),
                    );
                    continue;
                }
            };
            let mut alias = None;
            for item in &b.body.items {
                match item {
                    Structure::Attribute(a) if &*a.name.name == "as" => {
                        match literal_string(&a.expr) {
                            Some(s) => alias = Some((s, a.expr.span)),
                            None => diags.push(
                                Diagnostic::error(
                                    "import alias is not a constant string",
                                    "write as = \"name\"",
                                )
                                .with_code(codes::MODULE_IMPORT)
                                .with_span(a.expr.span),
                            ),
                        }
                    }
                    Structure::Attribute(a) => {
                        let mut detail = format!(
                            "An argument named \"{}\" is not expected in an import block; it accepts only \"as\".",
                            a.name.name
                        );
                        if schema::suggest(&a.name.name, ["as"].into_iter()).is_some() {
                            detail.push_str(" Did you mean \"as\"?");
                        }
                        diags.push(
                            Diagnostic::error(
                                format!("Unsupported argument \"{}\" in import", a.name.name),
                                detail,
                            )
                            .with_code(codes::MODULE_IMPORT)
                            .with_span(a.name.span),
                        );
                    }
                    Structure::Block(inner) => diags.push(
                        Diagnostic::error(
                            format!("Unsupported block type \"{}\" in import", inner.ident.name),
                            "An import block holds only the attribute \"as\".",
                        )
                        .with_code(codes::MODULE_IMPORT)
                        .with_span(inner.ident.span),
                    ),
                }
            }
            let alias =
                Some(alias.unwrap_or_else(|| (default_alias(&path).to_owned(), b.labels[0].span)));
            imports.push(ImportRef {
                file,
                path,
                alias,
                span: b.header_span(),
            });
        }
        let mut mods = Vec::new();
        path_module_blocks(body, 0, &mut mods);
        for b in mods {
            let raw = &b.labels[0].value;
            match normalize_path(raw) {
                Ok(path) => imports.push(ImportRef {
                    file,
                    path,
                    alias: None,
                    span: b.labels[0].span,
                }),
                Err(m) => diags.push(
                    Diagnostic::error(format!("invalid module path \"{raw}\""), m)
                        .with_code(codes::MODULE_IMPORT)
                        .with_span(b.labels[0].span),
                ),
            }
        }
    }
    // The imported directories that hold files.
    let mut dirs: Vec<String> = Vec::new();
    for imp in &imports {
        let prefix = format!("{}/", imp.path);
        let has_files = names.iter().any(|n| n.starts_with(&prefix));
        if !has_files {
            diags.push(
                Diagnostic::error(
                    format!("module directory \"{}\" not found", imp.path),
                    format!(
                        "no .hcl file of the program is under \"{}/\"; the files of a module are named <dir>/<file>.hcl (txtar members or files of a FileSystem source)",
                        imp.path
                    ),
                )
                .with_span(imp.span)
                .with_code(codes::MODULE_IMPORT),
            );
            continue;
        }
        if !dirs.contains(&imp.path) {
            dirs.push(imp.path.clone());
        }
    }
    dirs.sort();
    let mut modules = vec![ModuleSrc {
        dir: String::new(),
        files: Vec::new(),
        aliases: BTreeMap::new(),
        by_path: HashMap::new(),
    }];
    for d in &dirs {
        modules.push(ModuleSrc {
            dir: d.clone(),
            files: Vec::new(),
            aliases: BTreeMap::new(),
            by_path: HashMap::new(),
        });
    }
    let module_of_dir = |d: &str| dirs.iter().position(|x| x == d).map(|i| i + 1);
    // Each file: the module of the longest imported directory holding it.
    let mut file_module = vec![0usize; names.len()];
    for (i, n) in names.iter().enumerate() {
        let mut best: Option<(usize, usize)> = None;
        for (j, d) in dirs.iter().enumerate() {
            let inside =
                n.len() > d.len() && n.starts_with(d.as_str()) && n.as_bytes()[d.len()] == b'/';
            if inside && best.is_none_or(|(len, _)| d.len() > len) {
                best = Some((d.len(), j + 1));
            }
        }
        let m = best.map(|(_, m)| m).unwrap_or(0);
        file_module[i] = m;
        modules[m].files.push(i);
    }
    // Aliases and edges: explicit imports first, so that a path label's
    // default alias never shadows one.
    imports.sort_by_key(|i| i.alias.is_none());
    let mut edges: Vec<Vec<(usize, Span)>> = vec![Vec::new(); modules.len()];
    for imp in &imports {
        let Some(target) = module_of_dir(&imp.path) else {
            continue;
        };
        let from = file_module[imp.file];
        edges[from].push((target, imp.span));
        let m = &mut modules[from];
        match &imp.alias {
            None => {
                // D26: a path label imports the module under its default
                // alias too, unless that alias is taken.
                m.by_path.insert(imp.path.clone(), target);
                let alias = default_alias(&imp.path);
                if is_identifier(alias) {
                    m.aliases
                        .entry(alias.to_owned())
                        .or_insert((target, imp.span));
                }
            }
            Some((alias, alias_span)) => {
                if !is_identifier(alias) {
                    diags.push(
                        Diagnostic::error(
                            format!("invalid import alias \"{alias}\""),
                            "an alias must be an identifier (letters, digits, _ and -, not starting with a digit); set it with as = \"name\"",
                        )
                        .with_span(*alias_span)
                        .with_code(codes::MODULE_IMPORT),
                    );
                    continue;
                }
                if let Some((_, first)) = m.aliases.get(alias) {
                    diags.push(
                        Diagnostic::error(
                            format!("duplicate import alias \"{alias}\""),
                            "two imports of this module use the same alias; give one of them another with as = \"name\"",
                        )
                        .with_span(imp.span)
                        .with_label(*first, "first imported here")
                        .with_code(codes::DUPLICATE),
                    );
                    continue;
                }
                m.aliases.insert(alias.clone(), (target, imp.span));
            }
        }
    }
    let order = order_and_cycles(&modules, &edges, diags);
    Layout { modules, order }
}

/// An HCL identifier (letters, digits, `_` and `-`, not starting with a
/// digit or `-`): import aliases, function and argument names.
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Post-order of the import graph (callees first); every cycle is an
/// error at the import that closes it, naming the chain.
fn order_and_cycles(
    modules: &[ModuleSrc],
    edges: &[Vec<(usize, Span)>],
    diags: &mut Vec<Diagnostic>,
) -> Vec<usize> {
    let n = modules.len();
    let name = |m: usize| {
        if m == 0 {
            "(root)".to_owned()
        } else {
            modules[m].dir.clone()
        }
    };
    let mut reported: Vec<(usize, usize)> = Vec::new();
    graph::depth_first(
        n,
        |node, i| edges[node].get(i).map(|(t, _)| *t),
        |path, node, i| {
            // Two imports of one directory from one module close the same
            // cycle: report it once.
            let (dep, span) = edges[node][i];
            if reported.contains(&(node, dep)) {
                return;
            }
            reported.push((node, dep));
            let mut chain: Vec<String> = path.iter().map(|x| name(*x)).collect();
            chain.push(name(dep));
            diags.push(
                Diagnostic::error(
                    format!("import cycle: {}", chain.join(" → ")),
                    "modules must not import each other in a circle",
                )
                .with_code(codes::MODULE_IMPORT)
                .with_span(span),
            );
        },
    )
}

#[cfg(test)]
mod tests {
    use super::normalize_path;

    #[test]
    fn paths() {
        assert_eq!(
            normalize_path("modules/bucket").as_deref(),
            Ok("modules/bucket")
        );
        assert_eq!(
            normalize_path("./modules//bucket/").as_deref(),
            Ok("modules/bucket")
        );
        assert!(normalize_path("/abs").is_err());
        assert!(normalize_path("a/../b").is_err());
        assert!(normalize_path("..").is_err());
        assert!(normalize_path(".").is_err());
        assert!(normalize_path("").is_err());
        assert!(normalize_path("c:/x").is_err());
    }
}

/// A module directory a file names: `import "dir" {}` or a path-labelled
/// `module "dir/x" "name" {}`.
#[derive(Clone, Debug)]
pub struct ImportedDir {
    /// The normalised path, relative to the input root.
    pub path: String,
    /// The import's header, or the `module` block's label.
    pub span: Span,
}

/// The module directories `body` names (for tools that bundle a program,
/// like `fn-hcl package`). Invalid paths are left out: compiling the
/// program reports them.
pub fn imported_dirs(body: &Body) -> Vec<ImportedDir> {
    let mut out = Vec::new();
    for b in import_blocks(body) {
        if let Ok(path) = normalize_path(&b.labels[0].value) {
            out.push(ImportedDir {
                path,
                span: b.header_span(),
            });
        }
    }
    let mut mods = Vec::new();
    path_module_blocks(body, 0, &mut mods);
    for b in mods {
        if let Ok(path) = normalize_path(&b.labels[0].value) {
            out.push(ImportedDir {
                path,
                span: b.labels[0].span,
            });
        }
    }
    out
}
