//! The `fn-hcl render` command line (crossplane render's flags), shared by
//! the CLI and the case runner so both take exactly the same path, and the
//! file reading behind it (files or directories of YAML, as crossplane
//! render reads them).

use std::path::{Path, PathBuf};

use fnhcl_render::{
    CrossplaneVersion, Function, RenderError, RenderInputs, RenderOptions, RenderOutput, Source,
};

/// `fn-hcl render XR COMPOSITION [FUNCTIONS]`, or `fn-hcl render OPERATION
/// [FUNCTIONS]` (an Operation, CronOperation or WatchOperation, as
/// `crossplane alpha render op` renders it), and their flags.
#[derive(clap::Args, Clone, Debug)]
pub struct RenderArgs {
    /// A YAML file with the composite resource (XR) to render, or with the
    /// Operation, CronOperation or WatchOperation.
    #[arg(value_name = "COMPOSITE_RESOURCE|OPERATION")]
    pub composite_resource: PathBuf,
    /// A YAML file with the Composition to use, or a program directory or
    /// `.hcl` file (a Composition with one function-hcl step running it is
    /// made around it). For an operation: the Functions file, optional.
    #[arg(value_name = "COMPOSITION")]
    pub composition: Option<PathBuf>,
    /// A YAML file or directory of Function manifests. Optional: without it,
    /// steps whose input is an `HclInput` run in-process.
    #[arg(value_name = "FUNCTIONS")]
    pub functions: Option<PathBuf>,

    /// Context key=file: the key's value is the file's content (JSON; YAML
    /// with --crossplane-version 2.2+). Repeatable; `;` separates pairs.
    #[arg(long = "context-files", value_name = "KEY=FILE")]
    pub context_files: Vec<String>,
    /// Context key=value (JSON; YAML with --crossplane-version 2.2+). Wins
    /// over --context-files for the same key. Repeatable.
    #[arg(long = "context-values", value_name = "KEY=VALUE")]
    pub context_values: Vec<String>,
    /// Print non-fatal function results as `Result` documents.
    #[arg(short = 'r', long = "include-function-results")]
    pub include_function_results: bool,
    /// Copy the input XR's spec and metadata into the rendered XR.
    #[arg(short = 'x', long = "include-full-xr")]
    pub include_full_xr: bool,
    /// Print the final context as a `Context` document.
    #[arg(short = 'c', long = "include-context")]
    pub include_context: bool,
    /// A YAML file or directory of observed composed resources.
    #[arg(short = 'o', long = "observed-resources", value_name = "PATH")]
    pub observed_resources: Option<PathBuf>,
    /// A YAML file or directory of resources that answer requirements.
    #[arg(long = "extra-resources", value_name = "PATH")]
    pub extra_resources: Option<PathBuf>,
    /// A YAML file or directory of required resources (v2): answers
    /// requirements and the pipeline steps' bootstrap requirements.
    #[arg(long = "required-resources", value_name = "PATH")]
    pub required_resources: Option<PathBuf>,
    /// `--extra-resources` (v1) or `--required-resources` (v2), as `-e`
    /// means in that Crossplane release.
    #[arg(short = 'e', value_name = "PATH")]
    pub e_resources: Option<PathBuf>,
    /// Operations: a YAML file with the object a WatchOperation watched
    /// (sent under the requirement `ops.crossplane.io/watched-resource`).
    #[arg(short = 'w', long = "watched-resource", value_name = "PATH")]
    pub watched_resource: Option<PathBuf>,
    /// Operations: print the Operation's `spec` too (`crossplane alpha
    /// render op -o`; `-o` here is `--observed-resources`).
    #[arg(long = "include-full-operation")]
    pub include_full_operation: bool,
    /// A YAML file or directory of Secrets that steps' credentials name.
    #[arg(long = "function-credentials", value_name = "PATH")]
    pub function_credentials: Option<PathBuf>,
    /// The XR's CompositeResourceDefinition: its schema defaults are applied
    /// to the XR before rendering.
    #[arg(long = "xrd", value_name = "FILE")]
    pub xrd: Option<PathBuf>,
    /// A directory (or file) of OpenAPI v3 schema documents, as
    /// `crossplane render` 2.2 reads them: they answer the functions'
    /// schema requirements (schema validation of what they emit).
    #[arg(short = 's', long = "required-schemas", value_name = "DIR")]
    pub required_schemas: Option<PathBuf>,
    /// A CRD/XRD file or directory (YAML or JSON, read recursively) that
    /// also answers schema requirements (repeatable).
    #[arg(long = "crds", value_name = "PATH")]
    pub crds: Vec<PathBuf>,
    /// The most bytes of schema files (`--crds` and `--required-schemas`
    /// together) to read; their sizes are checked before any is read.
    /// Compiled, a schema takes up to about 60 times its text in memory.
    #[arg(
        long = "crds-max-bytes",
        value_name = "BYTES",
        env = "FNHCL_CRDS_MAX_BYTES",
        default_value_t = DEFAULT_CRDS_MAX_BYTES
    )]
    pub crds_max_bytes: u64,
    /// The Crossplane release whose `render` output to reproduce (1.17 to 2.2).
    #[arg(
        long = "crossplane-version",
        value_name = "VERSION",
        default_value = "1.20"
    )]
    pub crossplane_version: CrossplaneVersion,
    /// Fail when a pipeline step uses another function (default: skip it
    /// with a warning).
    #[arg(long = "fail-on-foreign")]
    pub fail_on_foreign: bool,
    /// Fail when a block is discarded by an evaluation error (a wrong
    /// program, not data that is missing yet); default: a warning on
    /// stderr (and a Result with -r).
    #[arg(long = "strict")]
    pub strict: bool,
    /// A functionRef name that is function-hcl (repeatable), for steps whose
    /// input does not say so.
    #[arg(long = "function-name", value_name = "NAME")]
    pub function_names: Vec<String>,
    /// Accepted for compatibility; functions run in-process, so it has no effect.
    #[arg(long = "timeout", value_name = "DURATION", hide = true)]
    pub timeout: Option<String>,
    /// Accepted for compatibility; runtime annotations have no effect in-process.
    #[arg(
        short = 'a',
        long = "function-annotations",
        value_name = "KEY=VALUE",
        hide = true
    )]
    pub function_annotations: Vec<String>,
}

/// The default budget of schema text one run reads (`--crds-max-bytes`):
/// 32 MiB. Compiled, property-dense schemas take up to about 60 times their
/// text in memory (real provider CRDs, with their descriptions, 6 to 20
/// times), so this keeps a run under about 2 GiB.
pub const DEFAULT_CRDS_MAX_BYTES: u64 = 32 << 20;

/// Entries (files and directories) a schema directory walk looks at.
pub const MAX_SCHEMA_DIR_ENTRIES: usize = 100_000;

/// An input file problem, worded like crossplane render.
fn io_err(what: &str, path: &Path, e: std::io::Error) -> RenderError {
    RenderError::new(format!(
        "cannot read {what} {:?}: {e}",
        path.display().to_string()
    ))
}

fn resolve(base: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() || base.as_os_str().is_empty() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}

/// Reads a file.
pub fn read_file(what: &str, path: &Path) -> Result<Source, RenderError> {
    let text = std::fs::read_to_string(path).map_err(|e| io_err(what, path, e))?;
    Ok(Source::new(path.display().to_string(), text))
}

/// Reads a YAML file, or the `.yaml`/`.yml` files of a directory
/// (non-recursive, in name order); an empty directory is an error.
pub fn read_yaml_path(what: &str, path: &Path) -> Result<Vec<Source>, RenderError> {
    let meta = std::fs::metadata(path).map_err(|e| io_err(what, path, e))?;
    if !meta.is_dir() {
        return Ok(vec![read_file(what, path)?]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| io_err(what, path, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| e == "yaml" || e == "yml")
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(RenderError::new(format!(
            "cannot load {what}: no YAML files found in {:?} (.yaml or .yml)",
            path.display().to_string()
        )));
    }
    files.iter().map(|f| read_file(what, f)).collect()
}

/// A schema file, or every `.json`/`.yaml`/`.yml` file under a directory
/// (recursively, in path order, hidden entries and symlinked directories
/// skipped, at most 10,000 files and 16 levels, looking at no more than
/// [`MAX_SCHEMA_DIR_ENTRIES`] entries). An empty directory gives an empty
/// list. Nothing is read: see [`read_schema_files`].
pub fn schema_files(what: &str, path: &Path) -> Result<Vec<PathBuf>, RenderError> {
    const MAX_FILES: usize = 10_000;
    const MAX_DEPTH: usize = 16;
    let meta = std::fs::metadata(path).map_err(|e| io_err(what, path, e))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let mut dirs = vec![(path.to_path_buf(), 0usize)];
    let mut entries = 0usize;
    while let Some((dir, depth)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| io_err(what, &dir, e))? {
            let entry = entry.map_err(|e| io_err(what, &dir, e))?;
            entries += 1;
            if entries > MAX_SCHEMA_DIR_ENTRIES {
                return Err(RenderError::new(format!(
                    "cannot load {what}: more than {MAX_SCHEMA_DIR_ENTRIES} files and directories under {:?}",
                    path.display().to_string()
                )));
            }
            let p = entry.path();
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let ft = entry.file_type().map_err(|e| io_err(what, &p, e))?;
            if ft.is_dir() {
                if depth < MAX_DEPTH {
                    dirs.push((p, depth + 1));
                }
            } else if p
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| matches!(e, "json" | "yaml" | "yml"))
            {
                files.push(p);
                if files.len() > MAX_FILES {
                    return Err(RenderError::new(format!(
                        "cannot load {what}: more than {MAX_FILES} files under {:?}",
                        path.display().to_string()
                    )));
                }
            }
        }
    }
    files.sort();
    Ok(files)
}

/// [`schema_files`]; an empty directory is an error.
pub fn schema_path_files(what: &str, path: &Path) -> Result<Vec<PathBuf>, RenderError> {
    let files = schema_files(what, path)?;
    if files.is_empty() {
        return Err(RenderError::new(format!(
            "cannot load {what}: no schema files found in {:?} (.json, .yaml or .yml)",
            path.display().to_string()
        )));
    }
    Ok(files)
}

/// Reads schema files (each named with what it is, for errors) when their
/// sizes together are at most `max_bytes` (`--crds-max-bytes`): the sizes
/// are looked up first, so a set over the budget is refused before any of
/// it is read; a file over [`fnhcl_schema::MAX_TEXT_BYTES`] is refused
/// before it is read, and what is not a regular file (a FIFO, a device) is
/// refused before it is opened. A file that grows while it is read is cut
/// at the budget, which is then an error too.
pub fn read_schema_files(
    files: &[(&str, PathBuf)],
    max_bytes: u64,
) -> Result<Vec<Source>, RenderError> {
    let max_file = fnhcl_schema::MAX_TEXT_BYTES as u64;
    let over_budget = |size: String| {
        RenderError::new(format!(
            "cannot load schemas: the schema files {size}, more than the budget of {max_bytes} bytes; raise it with --crds-max-bytes (or FNHCL_CRDS_MAX_BYTES) if this machine has the memory (compiled schemas take up to about 60 times their text)"
        ))
    };
    let mut total = 0u64;
    for (what, f) in files {
        let meta = std::fs::metadata(f).map_err(|e| io_err(what, f, e))?;
        if !meta.is_file() {
            return Err(RenderError::new(format!(
                "cannot read {what} {:?}: not a regular file",
                f.display().to_string()
            )));
        }
        if meta.len() > max_file {
            return Err(RenderError::new(format!(
                "cannot load {what}: {:?} is {} bytes, more than the limit of {} MiB for one schema file",
                f.display().to_string(),
                meta.len(),
                max_file >> 20
            )));
        }
        total = total.saturating_add(meta.len());
    }
    if total > max_bytes {
        return Err(over_budget(format!("are {total} bytes together")));
    }
    let mut out = Vec::with_capacity(files.len());
    let mut read = 0u64;
    for (what, f) in files {
        use std::io::Read as _;
        let file = std::fs::File::open(f).map_err(|e| io_err(what, f, e))?;
        let room = max_bytes.saturating_sub(read).min(max_file);
        let mut bytes = Vec::new();
        file.take(room + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_err(what, f, e))?;
        if bytes.len() as u64 > room {
            return Err(if room == max_file {
                RenderError::new(format!(
                    "cannot load {what}: {:?} is more than {} MiB (it grew while it was read)",
                    f.display().to_string(),
                    max_file >> 20
                ))
            } else {
                over_budget(format!(
                    "grew to more than {} bytes while they were read",
                    read + room
                ))
            });
        }
        read += bytes.len() as u64;
        let text = String::from_utf8(bytes).map_err(|_| {
            io_err(
                what,
                f,
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "stream did not contain valid UTF-8",
                ),
            )
        })?;
        out.push(Source::new(f.display().to_string(), text));
    }
    Ok(out)
}

/// Whether the COMPOSITION argument is a program to wrap: a directory, or
/// an `.hcl` file.
fn is_program(path: &Path) -> bool {
    path.is_dir() || path.extension().is_some_and(|e| e == "hcl")
}

/// Whether a file's first document is one of Crossplane's operations
/// (`ops.crossplane.io`): then it is rendered as `crossplane alpha render
/// op` does.
fn is_operation(text: &str) -> bool {
    fnhcl_render::yaml::load_first(text)
        .ok()
        .flatten()
        .and_then(|d| d.get("apiVersion")?.as_str().map(str::to_owned))
        .is_some_and(|a| a.starts_with("ops.crossplane.io/"))
}

/// Kong map flags: each occurrence is `k=v`, several joined with `;`.
fn map_pairs(flag: &str, values: &[String]) -> Result<Vec<(String, String)>, RenderError> {
    let mut out = Vec::new();
    for v in values {
        for pair in v.split(';').filter(|p| !p.is_empty()) {
            let Some((k, val)) = pair.split_once('=') else {
                return Err(RenderError::new(format!(
                    "--{flag}: expected \"<key>=<value>\" but got {pair:?}"
                )));
            };
            out.push((k.to_owned(), val.to_owned()));
        }
    }
    Ok(out)
}

impl RenderArgs {
    /// The options these flags select.
    pub fn options(&self) -> RenderOptions {
        RenderOptions {
            include_function_results: self.include_function_results,
            include_context: self.include_context,
            include_full_xr: self.include_full_xr,
            include_full_operation: self.include_full_operation,
            fail_on_foreign: self.fail_on_foreign,
            strict: self.strict,
            version: self.crossplane_version,
            function_names: self.function_names.clone(),
        }
    }

    /// Reads every file the arguments name; relative paths are taken
    /// relative to `base` (empty: the working directory).
    pub fn read_inputs(&self, base: &Path) -> Result<RenderInputs, RenderError> {
        self.read_inputs_with(base, None)
    }

    /// [`RenderArgs::read_inputs`], with the Composition given instead of
    /// read from its path when `composition` is set.
    pub fn read_inputs_with(
        &self,
        base: &Path,
        composition: Option<Source>,
    ) -> Result<RenderInputs, RenderError> {
        let p = |x: &Path| resolve(base, x);
        let opt = |what: &str, x: &Option<PathBuf>| -> Result<Vec<Source>, RenderError> {
            match x {
                Some(x) => read_yaml_path(what, &p(x)),
                None => Ok(Vec::new()),
            }
        };
        let mut extra = opt("extra resources", &self.extra_resources)?;
        let mut required = opt("required resources", &self.required_resources)?;
        let e = opt(
            if self.crossplane_version.v2() {
                "required resources"
            } else {
                "extra resources"
            },
            &self.e_resources,
        )?;
        if self.crossplane_version.v2() {
            required.extend(e);
        } else {
            extra.extend(e);
        }
        let mut context_files = Vec::new();
        for (k, file) in map_pairs("context-files", &self.context_files)? {
            context_files.push((k, read_file("context file", &p(Path::new(&file)))?));
        }
        let first = read_file("composite resource", &p(&self.composite_resource))?;
        let operation = is_operation(&first.text);
        let (xr, operation, composition, functions) = if operation {
            // OPERATION [FUNCTIONS]: every required resource comes from
            // --required-resources or -e.
            if self.functions.is_some() {
                return Err(RenderError::new(
                    "an operation is rendered from OPERATION [FUNCTIONS]: too many arguments",
                ));
            }
            required.append(&mut extra);
            (None, Some(first), None, self.composition.as_ref())
        } else {
            let composition = match (composition, &self.composition) {
                (Some(c), _) => c,
                (None, Some(path)) if is_program(&p(path)) => {
                    crate::case::program_composition(&p(path), &first.text)
                        .map_err(RenderError::new)?
                }
                (None, Some(path)) => read_file("composition", &p(path))?,
                (None, None) => {
                    return Err(RenderError::new(
                        "missing argument COMPOSITION (a composite resource is rendered from COMPOSITE_RESOURCE COMPOSITION [FUNCTIONS])",
                    ));
                }
            };
            if self.watched_resource.is_some() {
                return Err(RenderError::new(
                    "--watched-resource is for operations (an Operation, CronOperation or WatchOperation), not a composite resource",
                ));
            }
            (
                Some(first),
                None,
                Some(composition),
                self.functions.as_ref(),
            )
        };
        Ok(RenderInputs {
            xr,
            composition,
            operation,
            watched: match &self.watched_resource {
                Some(w) => Some(read_file("watched resource", &p(w))?),
                None => None,
            },
            functions: match functions {
                Some(f) => Some(read_yaml_path("functions", &p(f))?),
                None => None,
            },
            observed: opt("observed resources", &self.observed_resources)?,
            extra_resources: extra,
            required_resources: required,
            function_credentials: opt("function credentials", &self.function_credentials)?,
            context_files,
            context_values: map_pairs("context-values", &self.context_values)?,
            xrd: match &self.xrd {
                Some(x) => Some(read_file("XRD", &p(x))?),
                None => None,
            },
            schemas: {
                let mut files = Vec::new();
                let given = self
                    .required_schemas
                    .iter()
                    .map(|x| ("required schemas", x));
                for (what, path) in given.chain(self.crds.iter().map(|x| ("CRDs", x))) {
                    files.extend(
                        schema_path_files(what, &p(path))?
                            .into_iter()
                            .map(|f| (what, f)),
                    );
                }
                read_schema_files(&files, self.crds_max_bytes)?
            },
        })
    }

    /// Reads the inputs and renders them with `function`.
    pub fn render(
        &self,
        base: &Path,
        function: &dyn Function,
    ) -> Result<RenderOutput, RenderError> {
        let inputs = self.read_inputs(base)?;
        fnhcl_render::render(&inputs, &self.options(), function)
    }
}

/// What `fn-hcl render` writes to stderr for a failed render: the message
/// as crossplane prints it, then any code frames.
pub fn error_text(program: &str, e: &RenderError) -> String {
    let mut s = format!("{program}: error: {}\n", e.message);
    if let Some(f) = &e.frames {
        s.push_str(f);
        if !f.ends_with('\n') {
            s.push('\n');
        }
    }
    s
}
