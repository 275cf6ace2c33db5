//! `fn-hcl test [DIR] [--update]`: runs every render test case under DIR
//! and reports pass/fail per case.
//!
//! A case is a directory with `xr.yaml` (the layout of
//! [`fnhcl_testkit::case`]: `composition.yaml` or `*.hcl` files, optional
//! `observed.yaml`, `extra-resources.yaml`, context `args`, and
//! `expected.yaml`). The output is compared semantically and differences
//! are printed with a line diff. `--update` rewrites expectations.
//!
//! Extension: reconcile steps. A case with a `steps/` directory is run once
//! per step (`steps/1`, `steps/2`, ... in natural order). A step directory
//! may override any case file (typically `observed.yaml`, to add the status
//! providers would report) and holds that step's `expected.yaml`. A step
//! without `observed.yaml` observes what the previous step rendered (its
//! composed resources, as if Crossplane had applied them), each keeping the
//! `status` it had in the previous step's observed state: providers keep
//! reporting what they reported. After the last step the case is rendered
//! once more the same way from the last output: the composed resources must
//! not change any more (the composition converges). Subdirectories of the
//! case (module directories) are part of every step; a step overrides a
//! module file by holding it at the same relative path
//! (`steps/2/modules/bucket/main.hcl`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use fnhcl_testkit::{CaseOptions, CaseOutcome};
use serde_json::Value;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Directory to search for cases (default `.`).
    dir: Option<PathBuf>,
    /// Rewrite the expectations of cases whose output differs.
    #[arg(long)]
    update: bool,
    /// Only run cases whose name contains this text.
    #[arg(long)]
    filter: Option<String>,
}

const COMPOSED_NAME_ANNOTATION: &str = "crossplane.io/composition-resource-name";

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = args.dir.unwrap_or_else(|| PathBuf::from("."));
    if !root.is_dir() {
        bail!("{} is not a directory", root.display());
    }
    let opts = CaseOptions {
        update: args.update,
        ..CaseOptions::default()
    };
    let mut cases = fnhcl_testkit::discover_cases(&root);
    if let Some(f) = &args.filter {
        cases.retain(|c| case_name(&root, c).contains(f.as_str()));
    }
    if cases.is_empty() {
        bail!(
            "no test cases (directories with xr.yaml) under {}",
            root.display()
        );
    }
    let (mut passed, mut failed, mut updated) = (0usize, 0usize, 0usize);
    for case in &cases {
        let name = case_name(&root, case);
        let outcome = if case.join("steps").is_dir() {
            run_steps(case, &opts)
        } else {
            fnhcl_testkit::run_case(case, &fnhcl_crossplane::run, &opts)
        };
        match outcome {
            CaseOutcome::Passed => {
                passed += 1;
                println!("PASS    {name}");
            }
            CaseOutcome::Updated => {
                updated += 1;
                println!("UPDATED {name}");
            }
            CaseOutcome::Failed(why) => {
                failed += 1;
                println!("FAIL    {name}");
                for line in why.lines() {
                    println!("    {line}");
                }
            }
        }
    }
    println!();
    println!("{passed} passed, {failed} failed, {updated} updated");
    Ok(if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn case_name(root: &Path, case: &Path) -> String {
    let rel = case.strip_prefix(root).unwrap_or(case);
    let s = rel.display().to_string();
    if s.is_empty() { ".".to_owned() } else { s }
}

/// Step directories in natural order (`2` before `10`).
fn step_dirs(case: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(case.join("steps")) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort_by(|a, b| {
        let key = |p: &Path| {
            let n = p
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            (digits.parse::<u64>().unwrap_or(u64::MAX), n)
        };
        key(a).cmp(&key(b))
    });
    dirs
}

/// A scratch directory removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> anyhow::Result<Scratch> {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "fn-hcl-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&str) -> bool) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        if skip(&name) {
            continue;
        }
        let ty = e.file_type()?;
        if ty.is_dir() {
            copy_tree(&e.path(), &to.join(&name), &|_| false)?;
        } else if ty.is_file() {
            std::fs::copy(e.path(), to.join(&name))?;
        }
    }
    Ok(())
}

const EXPECTATIONS: &[&str] = &["expected.yaml", "expected.error", "expected.warnings"];

fn run_steps(case: &Path, opts: &CaseOptions) -> CaseOutcome {
    match run_steps_inner(case, opts) {
        Ok(o) => o,
        Err(e) => CaseOutcome::Failed(format!("{e:#}")),
    }
}

fn run_steps_inner(case: &Path, opts: &CaseOptions) -> anyhow::Result<CaseOutcome> {
    let steps = step_dirs(case);
    if steps.is_empty() {
        bail!("steps/ has no step directories");
    }
    // The previous step's output and the observed state it was rendered
    // from.
    let mut previous: Option<Vec<Value>> = None;
    let mut previous_observed: Vec<Value> = Vec::new();
    let mut problems = Vec::new();
    let mut any_updated = false;
    for step in &steps {
        let label = step
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let scratch = Scratch::new()?;
        let own_observed = step.join("observed.yaml").exists() || step.join("observed").is_dir();
        let derive = !own_observed && previous.is_some();
        copy_tree(case, &scratch.0, &|n| {
            n == "steps"
                || EXPECTATIONS.contains(&n)
                || (derive && (n == "observed.yaml" || n == "observed"))
        })?;
        copy_tree(step, &scratch.0, &|_| false)?;
        if derive && let Some(prev) = &previous {
            std::fs::write(
                scratch.0.join("observed.yaml"),
                observed_stream(prev, &previous_observed)?,
            )?;
        }
        // Unreadable observed state is the render's to report (a step may
        // expect that error); it only means no status to carry forward.
        let observed_now = observed_documents(&scratch.0).unwrap_or_default();
        let outcome = fnhcl_testkit::run_case(&scratch.0, &fnhcl_crossplane::run, opts);
        let step_ok = outcome.is_ok();
        match outcome {
            CaseOutcome::Passed => {}
            CaseOutcome::Updated => {
                any_updated = true;
                for f in EXPECTATIONS {
                    let from = scratch.0.join(f);
                    let to = step.join(f);
                    if from.exists() {
                        std::fs::copy(&from, &to)?;
                    } else if to.exists() {
                        std::fs::remove_file(&to)?;
                    }
                }
            }
            CaseOutcome::Failed(why) => problems.push(format!("step {label}:\n{why}")),
        }
        let run = fnhcl_testkit::case::render_case(&scratch.0, &fnhcl_crossplane::run)
            .map_err(|e| anyhow::anyhow!("step {label}: {e}"))?;
        previous_observed = observed_now;
        match run.result {
            Ok(out) => previous = Some(out.documents),
            // An expected error (expected.error matched): nothing to observe
            // next; the next step brings its own observed state.
            Err(_) if step_ok => previous = None,
            Err(e) => {
                problems.push(format!("step {label}: render failed: {}", e.message));
                return Ok(CaseOutcome::Failed(problems.join("\n")));
            }
        }
    }

    // Convergence: one more reconcile from the last output changes nothing.
    if let Some(last) = &previous {
        let scratch = Scratch::new()?;
        copy_tree(case, &scratch.0, &|n| {
            n == "steps" || EXPECTATIONS.contains(&n) || n == "observed.yaml" || n == "observed"
        })?;
        if let Some(step) = steps.last() {
            copy_tree(step, &scratch.0, &|n| {
                EXPECTATIONS.contains(&n) || n == "observed.yaml" || n == "observed"
            })?;
        }
        std::fs::write(
            scratch.0.join("observed.yaml"),
            observed_stream(last, &previous_observed)?,
        )?;
        let run = fnhcl_testkit::case::render_case(&scratch.0, &fnhcl_crossplane::run)
            .map_err(|e| anyhow::anyhow!("convergence check: {e}"))?;
        match run.result {
            Ok(out) => {
                let before = composed(last);
                let after = composed(&out.documents);
                let diffs =
                    fnhcl_testkit::case::line_diff(&yaml_text(&before)?, &yaml_text(&after)?);
                if before != after {
                    problems.push(format!(
                        "does not converge: reconciling the last step's output again changes the composed resources:\n{diffs}"
                    ));
                }
            }
            Err(e) => problems.push(format!("convergence check: render failed: {}", e.message)),
        }
    }
    if !problems.is_empty() {
        return Ok(CaseOutcome::Failed(problems.join("\n")));
    }
    Ok(if any_updated {
        CaseOutcome::Updated
    } else {
        CaseOutcome::Passed
    })
}

/// The composed resources of a render output (documents carrying the
/// composition-resource-name annotation), in output order.
fn composed(docs: &[Value]) -> Vec<Value> {
    docs.iter()
        .filter(|d| {
            d.pointer("/metadata/annotations")
                .and_then(|a| a.get(COMPOSED_NAME_ANNOTATION))
                .is_some()
        })
        .cloned()
        .collect()
}

fn yaml_text(docs: &[Value]) -> anyhow::Result<String> {
    fnhcl_render::yaml::to_yaml_stream(docs).map_err(|e| anyhow::anyhow!("{e}"))
}

fn composition_resource_name(doc: &Value) -> Option<&str> {
    doc.pointer("/metadata/annotations")
        .and_then(|a| a.get(COMPOSED_NAME_ANNOTATION))
        .and_then(Value::as_str)
}

/// An observed-resources stream made of the composed resources of `docs`,
/// each with the `status` the same composed resource had in `observed`
/// (the observed state `docs` was rendered from), if it had one.
fn observed_stream(docs: &[Value], observed: &[Value]) -> anyhow::Result<String> {
    let mut resources = composed(docs);
    for r in &mut resources {
        let status = composition_resource_name(r).and_then(|name| {
            observed
                .iter()
                .find(|o| composition_resource_name(o) == Some(name))
                .and_then(|o| o.get("status"))
                .cloned()
        });
        if let (Some(status), Some(obj)) = (status, r.as_object_mut()) {
            obj.insert("status".to_owned(), status);
        }
    }
    yaml_text(&resources)
}

/// The observed composed resources a case directory names
/// (`observed.yaml` or `observed/`), none without either.
fn observed_documents(dir: &Path) -> anyhow::Result<Vec<Value>> {
    let Some(path) = ["observed.yaml", "observed"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| p.exists())
    else {
        return Ok(Vec::new());
    };
    let mut docs = Vec::new();
    for source in fnhcl_testkit::render_args::read_yaml_path("observed resources", &path)
        .map_err(|e| anyhow::anyhow!("{}", e.message))?
    {
        docs.extend(
            fnhcl_render::yaml::load_stream(&source.text)
                .map_err(|e| anyhow::anyhow!("cannot parse {}: {e}", source.name))?,
        );
    }
    Ok(docs)
}
