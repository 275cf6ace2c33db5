//! `fn-hcl package [DIR] [--skip-analysis] [--composition TEMPLATE.yaml]`:
//! bundles a composition directory as txtar (upstream §1.4, §8).
//!
//! Which files: see [`fnhcl_project::dir`]. Unless `--skip-analysis`, the
//! bundle is analysed first (findings on stderr; errors fail the command).
//! The txtar goes to stdout, or, with `--composition`, into the `hcl` field of the
//! function-hcl step of that Composition, which is printed instead.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, anyhow, bail};
use yaml_rust2::{Yaml, YamlEmitter, YamlLoader};

use fnhcl_project::{PackageFile, analysis_options, load_dir, source_map};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The composition directory (default `.`).
    dir: Option<PathBuf>,
    /// Do not analyse the files before packaging.
    #[arg(long)]
    skip_analysis: bool,
    /// Write the bundle into this Composition's function-hcl step (the
    /// pipeline step whose input is an `HclInput`) and print the Composition.
    #[arg(long, value_name = "TEMPLATE.yaml")]
    composition: Option<PathBuf>,
    /// With --composition: the pipeline step to fill, when there are several.
    #[arg(long, requires = "composition")]
    step: Option<String>,
    /// The composite's CompositeResourceDefinition (YAML), to check
    /// `req.composite` paths (default: found among DIR's *.yaml files).
    #[arg(long, value_name = "XRD.yaml")]
    xrd: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let dir = args.dir.unwrap_or_else(|| PathBuf::from("."));
    let files = load_dir(&dir)?;
    if !args.skip_analysis {
        let sources = source_map(&files);
        let options = analysis_options(&dir, args.xrd.as_deref())?;
        let diags = fnhcl_analyze::analyze_with(&sources, &options);
        if !diags.is_empty() {
            eprint!("{}", crate::findings::render_text(&diags, &sources, false));
        }
        if fnhcl_analyze::has_errors(&diags) {
            bail!("analysis failed");
        }
    }
    let bundle = txtar(&files);
    match args.composition {
        None => print!("{bundle}"),
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("read {}", path.display()))?;
            let out = fill_composition(&text, &bundle, args.step.as_deref())
                .with_context(|| format!("{}", path.display()))?;
            print!("{out}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The txtar text: `-- name --` then the content (newline-terminated).
pub(crate) fn txtar(files: &[PackageFile]) -> String {
    let members: Vec<fnhcl_base::txtar::TxtarFile> = files
        .iter()
        .map(|f| fnhcl_base::txtar::TxtarFile {
            name: f.name.clone(),
            data: f.text.clone(),
        })
        .collect();
    fnhcl_base::txtar::format(&members)
}

/// Puts `bundle` into `input.hcl` of the function-hcl step of a Composition
/// and returns the Composition as YAML.
fn fill_composition(text: &str, bundle: &str, step: Option<&str>) -> anyhow::Result<String> {
    let mut docs = YamlLoader::load_from_str(text).map_err(|e| anyhow!("invalid YAML: {e}"))?;
    if docs.len() != 1 {
        bail!("expected exactly one YAML document, found {}", docs.len());
    }
    let mut doc = docs.remove(0);
    // A Composition's pipeline, an Operation's, or the one of the
    // Operation a CronOperation or WatchOperation makes (D39).
    let kind = doc["kind"].as_str().map(str::to_owned);
    let (what, path): (&str, &[&str]) = match kind.as_deref() {
        Some("Composition") => ("Composition", &["spec", "pipeline"]),
        Some("Operation") => ("Operation", &["spec", "pipeline"]),
        Some(k @ ("CronOperation" | "WatchOperation")) => {
            (k, &["spec", "operationTemplate", "spec", "pipeline"])
        }
        other => bail!("not a Composition or an operation (kind is {other:?})"),
    };
    let mut node = &mut doc;
    for key in path {
        let Yaml::Hash(h) = node else {
            bail!("the {what} has no {}", path.join("."));
        };
        node = h
            .get_mut(&Yaml::String((*key).to_owned()))
            .ok_or_else(|| anyhow!("the {what} has no {}", path.join(".")))?;
    }
    let Yaml::Array(pipeline) = node else {
        bail!("the {what}'s {} is not a list", path.join("."));
    };
    let is_hcl_step = |s: &Yaml| {
        let input = &s["input"];
        input["kind"].as_str() == Some("HclInput")
            || input["apiVersion"]
                .as_str()
                .is_some_and(|v| v.starts_with("hcl.fn.crossplane.io/"))
    };
    let candidates: Vec<usize> = pipeline
        .iter()
        .enumerate()
        .filter(|(_, s)| match step {
            Some(name) => s["step"].as_str() == Some(name),
            None => is_hcl_step(s),
        })
        .map(|(i, _)| i)
        .collect();
    let index = match candidates.as_slice() {
        [i] => *i,
        [] => match step {
            Some(name) => bail!("no pipeline step named {name:?}"),
            None => bail!("no pipeline step has an HclInput input (use --step to name one)"),
        },
        _ => bail!("several pipeline steps have an HclInput input; choose one with --step"),
    };
    let Yaml::Hash(step) = &mut pipeline[index] else {
        bail!("pipeline step is not a mapping");
    };
    let input_key = Yaml::String("input".to_owned());
    if !matches!(step.get(&input_key), Some(Yaml::Hash(_))) {
        let mut input = yaml_rust2::yaml::Hash::new();
        input.insert(
            Yaml::String("apiVersion".to_owned()),
            Yaml::String("hcl.fn.crossplane.io/v1beta1".to_owned()),
        );
        input.insert(
            Yaml::String("kind".to_owned()),
            Yaml::String("HclInput".to_owned()),
        );
        step.insert(input_key.clone(), Yaml::Hash(input));
    }
    if let Some(Yaml::Hash(input)) = step.get_mut(&input_key) {
        input.insert(
            Yaml::String("hcl".to_owned()),
            Yaml::String(bundle.to_owned()),
        );
    }
    let mut out = String::new();
    let mut emitter = YamlEmitter::new(&mut out);
    emitter.multiline_strings(true);
    emitter.dump(&doc).map_err(|e| anyhow!("{e}"))?;
    out.push('\n');
    Ok(out)
}
