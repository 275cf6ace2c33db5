//! `fn-hcl analyze [PATH] [--format text|json]`: static checks of a
//! composition directory (the same files `fn-hcl package` bundles), of a
//! txtar bundle, or of the inline programs of a Composition YAML file (each
//! function-hcl step separately). Each finding has a code, a severity, a
//! `file:line,col` position and, in text form, a code frame. When there is
//! an error (or, with `--deny-warnings`, a warning) the run ends with
//! `error: analysis failed` on stderr, after the findings and the count
//! line, and exits with status 1, as `package` (and upstream's CLI) does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, anyhow, bail};
use fnhcl_base::SourceMap;

use crate::findings::{json_items, render_text};

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A composition directory (default `.`), a txtar bundle, or a
    /// Composition YAML file whose function-hcl steps hold the program.
    dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The composite's CompositeResourceDefinition (YAML), to check
    /// `req.composite` paths (default: found among DIR's *.yaml files).
    #[arg(long, value_name = "XRD.yaml")]
    xrd: Option<PathBuf>,
    /// CRD/XRD files or directories (repeatable): the literal parts of
    /// resource bodies are checked against the schemas of their kinds.
    /// Default: the `.crd-sources.yaml` or `.crds/` directory found walking
    /// up from PATH, as the Go function-hcl's language server finds them.
    #[arg(long, value_name = "PATH")]
    crds: Vec<PathBuf>,
    /// The most bytes of CRD files to read, all together (their sizes are
    /// checked before any is read). Compiled, a schema takes up to about 60
    /// times its text in memory.
    #[arg(
        long,
        value_name = "BYTES",
        env = "FNHCL_CRDS_MAX_BYTES",
        default_value_t = fnhcl_testkit::render_args::DEFAULT_CRDS_MAX_BYTES
    )]
    crds_max_bytes: u64,
    /// Exit with status 1 on warnings too (for CI).
    #[arg(long)]
    deny_warnings: bool,
}

/// One program to analyse: where it comes from (for Composition steps),
/// its files and what the analyser may know.
struct Unit {
    label: Option<String>,
    sources: Arc<SourceMap>,
    options: fnhcl_analyze::Options,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let path = args.dir.unwrap_or_else(|| PathBuf::from("."));
    let limits = fnhcl_project::crds::Limits {
        max_bytes: args.crds_max_bytes,
        ..Default::default()
    };
    let never = std::sync::atomic::AtomicBool::new(false);
    let schemas = fnhcl_project::crds::load_with(&args.crds, &path, &limits, &never)?.map(Arc::new);
    let mut units = if path.is_dir() {
        let files = fnhcl_project::load_dir(&path)?;
        vec![Unit {
            label: None,
            sources: fnhcl_project::source_map(&files),
            options: fnhcl_project::analysis_options(&path, args.xrd.as_deref())?,
        }]
    } else {
        file_units(&path, args.xrd.as_deref())?
    };
    for unit in &mut units {
        unit.options.schemas = schemas.clone();
    }
    let (mut errors, mut warnings) = (false, false);
    let mut json = Vec::new();
    for unit in &units {
        let diags = fnhcl_analyze::analyze_with(&unit.sources, &unit.options);
        errors |= fnhcl_analyze::has_errors(&diags);
        warnings |= diags.iter().any(|d| !d.is_error());
        match args.format {
            Format::Text => {
                if let Some(label) = &unit.label {
                    println!("== {label}");
                }
                print!("{}", render_text(&diags, &unit.sources, true));
            }
            Format::Json => {
                for mut item in json_items(&diags, &unit.sources) {
                    if let (Some(label), Some(o)) = (&unit.label, item.as_object_mut()) {
                        o.insert("program".into(), label.clone().into());
                    }
                    json.push(item);
                }
            }
        }
    }
    if let Format::Json = args.format {
        println!(
            "{}",
            serde_json::to_string_pretty(&json).unwrap_or_else(|_| "[]".to_owned())
        );
    }
    if errors {
        bail!("analysis failed");
    }
    if args.deny_warnings && warnings {
        bail!("analysis failed: warnings are denied (--deny-warnings)");
    }
    Ok(ExitCode::SUCCESS)
}

/// The programs of a file: a Composition's function-hcl steps (YAML), or a
/// txtar bundle (a text without markers is one file, `main.hcl`).
fn file_units(path: &Path, xrd: Option<&Path>) -> anyhow::Result<Vec<Unit>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
    let options = match xrd {
        Some(_) => fnhcl_project::analysis_options(Path::new("."), xrd)?,
        None => fnhcl_analyze::Options::default(),
    };
    let yaml = path.extension().is_some_and(|x| x == "yaml" || x == "yml");
    if !yaml {
        let mut sources = SourceMap::new();
        fnhcl_base::txtar::load_into(&mut sources, &text)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        return Ok(vec![Unit {
            label: None,
            sources: Arc::new(sources),
            options,
        }]);
    }
    let docs =
        fnhcl_render::yaml::load_stream(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let mut units = Vec::new();
    for doc in &docs {
        if doc.get("kind").and_then(|k| k.as_str()) != Some("Composition") {
            continue;
        }
        let name = doc
            .pointer("/metadata/name")
            .and_then(|n| n.as_str())
            .unwrap_or("<unnamed>");
        let steps = doc
            .pointer("/spec/pipeline")
            .and_then(|p| p.as_array())
            .map(Vec::as_slice)
            .unwrap_or_default();
        for step in steps {
            let input = step.get("input");
            let is_hcl =
                input.and_then(|i| i.get("kind")).and_then(|k| k.as_str()) == Some("HclInput");
            let Some(hcl) = input
                .and_then(|i| i.get("hcl"))
                .and_then(|h| h.as_str())
                .filter(|_| is_hcl)
            else {
                continue;
            };
            let step_name = step.get("step").and_then(|s| s.as_str()).unwrap_or("?");
            let mut sources = SourceMap::new();
            fnhcl_base::txtar::load_into(&mut sources, hcl)
                .map_err(|e| anyhow!("composition {name}, step {step_name}: {e}"))?;
            units.push(Unit {
                label: Some(format!("composition {name}, step {step_name}")),
                sources: Arc::new(sources),
                options: fnhcl_analyze::Options {
                    bootstrap_requirements: fnhcl_analyze::step_requirement_names(step),
                    ..options.clone()
                },
            });
        }
    }
    if units.is_empty() {
        bail!(
            "{}: no Composition pipeline step with an HclInput program",
            path.display()
        );
    }
    Ok(units)
}
