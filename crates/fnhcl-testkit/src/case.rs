//! Render test cases: a directory in the layout of the upstream examples,
//! rendered exactly as `fn-hcl render -r -c` renders it and compared with
//! its expectation. `fn-hcl test` and the project's own tests use this.
//!
//! A case directory holds:
//!
//! | file | meaning |
//! | --- | --- |
//! | `xr.yaml` | the XR (it, or `operation.yaml`, makes a directory a case) |
//! | `operation.yaml` | instead of the XR: an Operation, CronOperation or WatchOperation (D39); its function-hcl steps without `hcl` run the directory's `*.hcl` files |
//! | `watched.yaml` | with `operation.yaml`: the watched object (`-w`) |
//! | `composition.yaml` | the Composition; without it, one is made with a single function-hcl step running the directory's `*.hcl` files, those in subdirectories (modules) included |
//! | `functions.yaml` | Function manifests (optional) |
//! | `observed.yaml` or `observed/` | observed composed resources (`-o`) |
//! | `extra-resources.yaml` or `extra-resources/` | `--extra-resources` |
//! | `required-resources.yaml` or `required-resources/` | `--required-resources` |
//! | `credentials.yaml` | `--function-credentials` |
//! | `args` | more flags, e.g. `--context-values region='"eu"'` (paths relative to the case) |
//! | `expected.yaml` | the expected stream, compared semantically |
//! | `expected.error` | instead of `expected.yaml`: the expected error message |
//! | `expected.warnings` | optional: the expected warnings, one per line |

use std::path::{Path, PathBuf};

use clap::Parser;
use fnhcl_render::{Function, RenderError, Source};
use serde_json::{Value, json};

use crate::compare::{CompareOptions, compare_documents, format_mismatches, normalised_yaml};
use crate::render_args::RenderArgs;

/// A unified line diff (the one every harness prints).
pub use fnhcl_cases::line_diff;

/// Flags every case is rendered with.
pub const DEFAULT_FLAGS: &[&str] = &["-r", "-c"];

/// How to run cases.
#[derive(Clone, Debug)]
pub struct CaseOptions {
    /// Rewrite expectations that differ instead of failing.
    pub update: bool,
    pub compare: CompareOptions,
}

impl Default for CaseOptions {
    fn default() -> Self {
        CaseOptions {
            update: false,
            compare: CompareOptions::standard(),
        }
    }
}

/// The result of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseOutcome {
    Passed,
    /// The expectation was (re)written.
    Updated,
    /// A readable explanation: differences and a line diff.
    Failed(String),
}

impl CaseOutcome {
    /// Passed or updated.
    pub fn is_ok(&self) -> bool {
        !matches!(self, CaseOutcome::Failed(_))
    }
}

#[derive(Parser)]
#[command(name = "render", no_binary_name = false)]
struct CaseCli {
    #[command(flatten)]
    args: RenderArgs,
}

/// Case directories under `root` (itself included), sorted: those with an
/// `xr.yaml` or an `operation.yaml`.
pub fn discover_cases(root: &Path) -> Vec<PathBuf> {
    fnhcl_cases::discover_tree(root, |dir| {
        dir.join("xr.yaml").is_file() || dir.join(OPERATION_FILE).is_file()
    })
}

/// The file that makes a directory an operation's case.
pub const OPERATION_FILE: &str = "operation.yaml";

/// Splits an `args` file like a shell would (whitespace, '…', "…", `#` comments).
pub fn split_args(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut cur = String::new();
        let mut in_word = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '#' if !in_word => break,
                c if c.is_whitespace() => {
                    if in_word {
                        out.push(std::mem::take(&mut cur));
                        in_word = false;
                    }
                }
                '\'' => {
                    in_word = true;
                    loop {
                        match chars.next() {
                            Some('\'') => break,
                            Some(c) => cur.push(c),
                            None => return Err("unterminated ' quote in args".to_owned()),
                        }
                    }
                }
                '"' => {
                    in_word = true;
                    loop {
                        match chars.next() {
                            Some('"') => break,
                            Some('\\') => match chars.next() {
                                Some(c) => cur.push(c),
                                None => return Err("dangling \\ in args".to_owned()),
                            },
                            Some(c) => cur.push(c),
                            None => return Err("unterminated \" quote in args".to_owned()),
                        }
                    }
                }
                '\\' => {
                    in_word = true;
                    if let Some(c) = chars.next() {
                        cur.push(c);
                    }
                }
                c => {
                    in_word = true;
                    cur.push(c);
                }
            }
        }
        if in_word {
            out.push(cur);
        }
    }
    Ok(out)
}

fn first_present(dir: &Path, names: &[&str]) -> Option<String> {
    names
        .iter()
        .find(|n| dir.join(n).exists())
        .map(|n| (*n).to_owned())
}

/// The command line a case is rendered with (relative to the case directory).
pub fn case_argv(dir: &Path) -> Result<Vec<String>, String> {
    let mut argv: Vec<String> = vec!["render".into()];
    argv.extend(DEFAULT_FLAGS.iter().map(|s| (*s).to_owned()));
    if dir.join(OPERATION_FILE).is_file() {
        argv.push(OPERATION_FILE.into());
    } else {
        argv.push("xr.yaml".into());
        argv.push("composition.yaml".into());
    }
    if dir.join("functions.yaml").is_file() {
        argv.push("functions.yaml".into());
    }
    if dir.join("watched.yaml").is_file() {
        argv.push("--watched-resource".into());
        argv.push("watched.yaml".into());
    }
    for (flag, names) in [
        ("--observed-resources", ["observed.yaml", "observed"]),
        (
            "--extra-resources",
            ["extra-resources.yaml", "extra-resources"],
        ),
        (
            "--required-resources",
            ["required-resources.yaml", "required-resources"],
        ),
        (
            "--function-credentials",
            ["credentials.yaml", "credentials"],
        ),
    ] {
        if let Some(n) = first_present(dir, &names) {
            argv.push(flag.into());
            argv.push(n);
        }
    }
    let args_file = dir.join("args");
    if args_file.is_file() {
        let text = std::fs::read_to_string(&args_file)
            .map_err(|e| format!("cannot read {}: {e}", args_file.display()))?;
        argv.extend(split_args(&text)?);
    }
    Ok(argv)
}

/// Deepest subdirectory of a case whose `*.hcl` files are bundled.
const MAX_HCL_DEPTH: usize = 16;

/// The `*.hcl` files of a case directory, subdirectories included (module
/// directories, D24), as (name relative to `dir` with `/` separators,
/// path), sorted by name. Hidden entries and the top-level `steps/`
/// directory (reconcile steps, see `fn-hcl test`) are skipped.
pub fn case_hcl_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    fn walk(
        dir: &Path,
        prefix: &str,
        depth: usize,
        out: &mut Vec<(String, PathBuf)>,
    ) -> Result<(), String> {
        let entries =
            std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries.filter_map(Result::ok) {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if name.starts_with('.') || (depth == 0 && name == "steps") {
                continue;
            }
            let path = entry.path();
            let rel = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if path.is_dir() {
                if depth >= MAX_HCL_DEPTH {
                    return Err(format!(
                        "{}: directories nested more than {MAX_HCL_DEPTH} levels deep",
                        path.display()
                    ));
                }
                walk(&path, &rel, depth + 1, out)?;
            } else if path.is_file() && name.ends_with(".hcl") {
                out.push((rel, path));
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    walk(dir, "", 0, &mut files)?;
    files.sort();
    Ok(files)
}

/// A Composition around a program: a directory's `*.hcl` files (modules
/// included, as [`synthesized_composition`]) or one `.hcl` file (as
/// `main.hcl`), for `fn-hcl render XR DIR|FILE.hcl`.
pub fn program_composition(path: &Path, xr_text: &str) -> Result<Source, String> {
    if path.is_dir() {
        return synthesized_composition(path, xr_text);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read program {:?}: {e}", path.display().to_string()))?;
    let mut bundle = format!("-- main.hcl --\n{text}");
    if !text.ends_with('\n') {
        bundle.push('\n');
    }
    composition_around(path, xr_text, bundle)
}

/// A Composition with one function-hcl step running the directory's
/// `*.hcl` files (as a txtar bundle, see [`case_hcl_files`]), for cases
/// without composition.yaml.
pub fn synthesized_composition(dir: &Path, xr_text: &str) -> Result<Source, String> {
    if case_hcl_files(dir)?.is_empty() {
        return Err(format!(
            "{}: no composition.yaml and no *.hcl files",
            dir.display()
        ));
    }
    let bundle = hcl_bundle(dir)?;
    composition_around(dir, xr_text, bundle)
}

/// A Composition for the XR of `xr_text` with one function-hcl step
/// running `bundle`, named after `path`.
fn composition_around(path: &Path, xr_text: &str, bundle: String) -> Result<Source, String> {
    let xr = fnhcl_render::yaml::load_first(xr_text)
        .map_err(|e| format!("cannot parse the composite resource: {e}"))?
        .unwrap_or(Value::Null);
    let name = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let comp = json!({
        "apiVersion": "apiextensions.crossplane.io/v1",
        "kind": "Composition",
        "metadata": {"name": name},
        "spec": {
            "compositeTypeRef": {
                "apiVersion": xr.get("apiVersion").cloned().unwrap_or(Value::Null),
                "kind": xr.get("kind").cloned().unwrap_or(Value::Null),
            },
            "mode": "Pipeline",
            "pipeline": [{
                "step": "run hcl composition",
                "functionRef": {"name": "fn-hcl"},
                "input": {
                    "apiVersion": "function-hcl/v1",
                    "kind": "HclInput",
                    "source": "Inline",
                    "hcl": bundle,
                },
            }],
        },
    });
    let text = fnhcl_render::yaml::to_yaml(&comp).map_err(|e| e.to_string())?;
    let at = if path.is_dir() {
        path.join("composition.yaml")
    } else {
        path.to_path_buf()
    };
    Ok(Source::new(at.display().to_string(), text))
}

/// A case's `operation.yaml`, its function-hcl steps without a program
/// given the directory's `*.hcl` files (so that the program lives in files
/// the editor and `fn-hcl analyze` see).
pub fn operation_with_program(dir: &Path) -> Result<Source, String> {
    let path = dir.join(OPERATION_FILE);
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut doc = fnhcl_render::yaml::load_first(&text)
        .map_err(|e| format!("cannot parse {OPERATION_FILE}: {e}"))?
        .unwrap_or(Value::Null);
    let steps = ["/spec/pipeline", "/spec/operationTemplate/spec/pipeline"]
        .into_iter()
        .find(|p| doc.pointer(p).is_some())
        .and_then(|p| doc.pointer_mut(p))
        .and_then(Value::as_array_mut);
    let mut filled = false;
    for step in steps.into_iter().flatten() {
        let Some(input) = step.get_mut("input").and_then(Value::as_object_mut) else {
            continue;
        };
        if input.get("kind").and_then(Value::as_str) != Some("HclInput")
            || input.get("hcl").is_some_and(|h| !h.is_null())
            || input.get("source").and_then(Value::as_str) == Some("FileSystem")
        {
            continue;
        }
        input.insert("hcl".into(), Value::String(hcl_bundle(dir)?));
        filled = true;
    }
    if !filled {
        return Ok(Source::new(path.display().to_string(), text));
    }
    let text = fnhcl_render::yaml::to_yaml(&doc).map_err(|e| e.to_string())?;
    Ok(Source::new(path.display().to_string(), text))
}

/// The `*.hcl` files of a case as one txtar bundle (see [`case_hcl_files`]).
fn hcl_bundle(dir: &Path) -> Result<String, String> {
    let files = case_hcl_files(dir)?;
    if files.is_empty() {
        return Err(format!("{}: no *.hcl files", dir.display()));
    }
    let mut bundle = String::new();
    for (name, path) in &files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        bundle.push_str(&format!("-- {name} --\n{text}"));
        if !text.ends_with('\n') {
            bundle.push('\n');
        }
    }
    Ok(bundle)
}

/// What rendering a case produced.
pub struct CaseRun {
    pub result: Result<fnhcl_render::RenderOutput, RenderError>,
}

/// Renders a case directory the way `fn-hcl render` would.
pub fn render_case(dir: &Path, function: &dyn Function) -> Result<CaseRun, String> {
    let argv = case_argv(dir)?;
    let cli = CaseCli::try_parse_from(&argv).map_err(|e| format!("bad arguments {argv:?}: {e}"))?;
    let args = cli.args;
    let result = if dir.join(OPERATION_FILE).is_file() {
        let op = operation_with_program(dir)?;
        match args.read_inputs(dir) {
            Ok(mut inputs) => {
                inputs.operation = Some(op);
                fnhcl_render::render(&inputs, &args.options(), function)
            }
            Err(e) => Err(e),
        }
    } else if dir.join("composition.yaml").is_file() {
        args.render(dir, function)
    } else {
        let xr_text = std::fs::read_to_string(dir.join("xr.yaml"))
            .map_err(|e| format!("cannot read xr.yaml: {e}"))?;
        let comp = synthesized_composition(dir, &xr_text)?;
        match args.read_inputs_with(dir, Some(comp)) {
            Ok(inputs) => fnhcl_render::render(&inputs, &args.options(), function),
            Err(e) => Err(e),
        }
    };
    Ok(CaseRun { result })
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn remove_if_exists(path: &Path) -> Result<(), String> {
    if path.exists() {
        std::fs::remove_file(path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
    }
    Ok(())
}

fn warnings_text(w: &[String]) -> String {
    w.iter().map(|l| format!("{l}\n")).collect()
}

/// Renders a case and compares it with its expectation (or, with
/// `update`, rewrites the expectation when it differs).
pub fn run_case(dir: &Path, function: &dyn Function, opts: &CaseOptions) -> CaseOutcome {
    match run_case_inner(dir, function, opts) {
        Ok(o) => o,
        Err(e) => CaseOutcome::Failed(e),
    }
}

fn run_case_inner(
    dir: &Path,
    function: &dyn Function,
    opts: &CaseOptions,
) -> Result<CaseOutcome, String> {
    let expected_yaml = dir.join("expected.yaml");
    let expected_error = dir.join("expected.error");
    let expected_warnings = dir.join("expected.warnings");
    let run = render_case(dir, function)?;
    let mut problems = Vec::new();
    let mut updated = false;
    match &run.result {
        Ok(out) => {
            let actual = out.to_yaml().map_err(|e| e.to_string())?;
            let expected = std::fs::read_to_string(&expected_yaml).ok();
            let differs = match &expected {
                None => Some(if expected_error.exists() {
                    let want = std::fs::read_to_string(&expected_error).unwrap_or_default();
                    format!(
                        "expected the error\n  {}\nbut the render succeeded:\n{actual}",
                        want.trim()
                    )
                } else {
                    "no expected.yaml (run with --update to create it)".to_owned()
                }),
                Some(exp) => {
                    let e = fnhcl_render::yaml::load_stream(exp)
                        .map_err(|e| format!("cannot parse expected.yaml: {e}"))?;
                    let m = compare_documents(&e, &out.documents, &opts.compare)?;
                    if m.is_empty() {
                        None
                    } else {
                        Some(format!(
                            "{}\nline diff (normalised expected vs actual):\n{}",
                            format_mismatches(&m),
                            line_diff(
                                &normalised_yaml(&e, &opts.compare),
                                &normalised_yaml(&out.documents, &opts.compare)
                            )
                        ))
                    }
                }
            };
            if let Some(d) = differs {
                if opts.update {
                    write(&expected_yaml, &actual)?;
                    remove_if_exists(&expected_error)?;
                    updated = true;
                } else {
                    problems.push(d);
                }
            }
        }
        Err(err) => {
            let actual = err.message.clone();
            match std::fs::read_to_string(&expected_error) {
                Ok(want) if want.trim() == actual.trim() => {}
                other => {
                    if opts.update {
                        write(&expected_error, &format!("{actual}\n"))?;
                        remove_if_exists(&expected_yaml)?;
                        updated = true;
                    } else {
                        problems.push(match other {
                            Ok(want) => format!(
                                "error differs:\n  expected: {}\n  actual:   {}",
                                want.trim(),
                                actual.trim()
                            ),
                            Err(_) => format!(
                                "render failed:\n{}",
                                crate::render_args::error_text("fn-hcl", err)
                            ),
                        });
                    }
                }
            }
        }
    }
    let warnings = match &run.result {
        Ok(out) => warnings_text(&out.warnings),
        Err(_) => String::new(),
    };
    match std::fs::read_to_string(&expected_warnings) {
        Ok(want) if want == warnings => {}
        Err(_) if warnings.is_empty() => {}
        other => {
            if opts.update {
                if warnings.is_empty() {
                    remove_if_exists(&expected_warnings)?;
                } else {
                    write(&expected_warnings, &warnings)?;
                }
                updated = true;
            } else {
                problems.push(format!(
                    "warnings differ:\n--- expected\n{}--- actual\n{}",
                    other.unwrap_or_default(),
                    warnings
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Ok(CaseOutcome::Failed(problems.join("\n")));
    }
    Ok(if updated {
        CaseOutcome::Updated
    } else {
        CaseOutcome::Passed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_split_like_a_shell() {
        let a = split_args("--context-values region='\"eu\"' # comment\n-x --a=\"b c\" d\\ e\n")
            .unwrap();
        assert_eq!(
            a,
            vec!["--context-values", "region=\"eu\"", "-x", "--a=b c", "d e"]
        );
        assert!(split_args("'open").is_err());
    }

    use function_sdk_rust::proto::v1::{
        Resource, Result as PbResult, RunFunctionRequest, RunFunctionResponse, Severity, State,
    };
    use function_sdk_rust::resource::json_to_struct;
    use serde_json::json;

    /// A scratch case directory, removed afterwards.
    struct TempCase(PathBuf);

    impl TempCase {
        fn new(name: &str) -> TempCase {
            let dir =
                std::env::temp_dir().join(format!("fnhcl-testkit-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("xr.yaml"),
                "apiVersion: example.com/v1\nkind: XThing\nmetadata:\n  name: t\n",
            )
            .unwrap();
            std::fs::write(dir.join("main.hcl"), "# the fake function ignores this\n").unwrap();
            TempCase(dir)
        }
        fn path(&self, f: &str) -> PathBuf {
            self.0.join(f)
        }
    }

    impl Drop for TempCase {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// Emits one ConfigMap whose data is the request's context.
    fn fake(req: &RunFunctionRequest) -> RunFunctionResponse {
        let ctx = req
            .context
            .as_ref()
            .map(function_sdk_rust::resource::struct_to_json)
            .unwrap_or_default();
        let mut desired = State::default();
        let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "data": ctx});
        desired.resources.insert(
            "cm".into(),
            Resource {
                resource: Some(json_to_struct(body.as_object().unwrap())),
                ..Resource::default()
            },
        );
        let mut rsp = RunFunctionResponse {
            desired: Some(desired),
            context: req.context.clone(),
            ..RunFunctionResponse::default()
        };
        if ctx.get("fail").is_some() {
            rsp.results.push(PbResult {
                severity: Severity::Fatal as i32,
                message: "main.hcl:1,1-2: failing on purpose".into(),
                ..PbResult::default()
            });
        }
        rsp
    }

    #[test]
    fn case_lifecycle_create_pass_fail_update() {
        let c = TempCase::new("lifecycle");
        std::fs::write(c.path("args"), "--context-values 'k=\"v1\"'\n").unwrap();
        let opts = CaseOptions::default();
        let update = CaseOptions {
            update: true,
            ..CaseOptions::default()
        };
        // No expectation yet.
        assert!(
            matches!(run_case(&c.0, &fake, &opts), CaseOutcome::Failed(w) if w.contains("no expected.yaml"))
        );
        // --update writes it (with the synthesized Composition), then it passes.
        assert_eq!(run_case(&c.0, &fake, &update), CaseOutcome::Updated);
        let written = std::fs::read_to_string(c.path("expected.yaml")).unwrap();
        assert!(written.contains("k: v1"), "{written}");
        assert_eq!(run_case(&c.0, &fake, &opts), CaseOutcome::Passed);
        // A changed output fails with a readable report and a line diff.
        std::fs::write(c.path("args"), "--context-values 'k=\"v2\"'\n").unwrap();
        match run_case(&c.0, &fake, &opts) {
            CaseOutcome::Failed(why) => {
                assert!(why.contains("v1 ConfigMap <cm>"), "{why}");
                assert!(why.contains("data.k: expected \"v1\", got \"v2\""), "{why}");
                assert!(
                    why.contains("-  k: v1") && why.contains("+  k: v2"),
                    "{why}"
                );
            }
            other => panic!("{other:?}"),
        }
        // An error where output was expected fails; --update switches to expected.error.
        std::fs::write(c.path("args"), "--context-values 'fail=true'\n").unwrap();
        assert!(
            matches!(run_case(&c.0, &fake, &opts), CaseOutcome::Failed(w) if w.contains("failing on purpose"))
        );
        assert_eq!(run_case(&c.0, &fake, &update), CaseOutcome::Updated);
        assert!(!c.path("expected.yaml").exists());
        let err = std::fs::read_to_string(c.path("expected.error")).unwrap();
        assert!(
            err.contains("returned a fatal result: main.hcl:1,1-2: failing on purpose"),
            "{err}"
        );
        assert_eq!(run_case(&c.0, &fake, &opts), CaseOutcome::Passed);
        std::fs::write(c.path("expected.error"), "something else\n").unwrap();
        assert!(
            matches!(run_case(&c.0, &fake, &opts), CaseOutcome::Failed(w) if w.contains("error differs"))
        );
    }

    #[test]
    fn warnings_are_expectations_too() {
        let c = TempCase::new("warnings");
        let comp = "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata: {name: c}\nspec:\n  compositeTypeRef: {apiVersion: example.com/v1, kind: XThing}\n  mode: Pipeline\n  pipeline:\n  - step: hcl\n    functionRef: {name: fn-hcl}\n    input: {apiVersion: function-hcl/v1, kind: HclInput, hcl: x}\n  - step: other\n    functionRef: {name: function-patch-and-transform}\n";
        std::fs::write(c.path("composition.yaml"), comp).unwrap();
        let update = CaseOptions {
            update: true,
            ..CaseOptions::default()
        };
        assert_eq!(run_case(&c.0, &fake, &update), CaseOutcome::Updated);
        let w = std::fs::read_to_string(c.path("expected.warnings")).unwrap();
        assert!(
            w.contains("\"other\"") && w.contains("function-patch-and-transform"),
            "{w}"
        );
        assert_eq!(
            run_case(&c.0, &fake, &CaseOptions::default()),
            CaseOutcome::Passed
        );
        std::fs::write(c.path("expected.warnings"), "").unwrap();
        assert!(
            matches!(run_case(&c.0, &fake, &CaseOptions::default()), CaseOutcome::Failed(w) if w.contains("warnings differ"))
        );
    }

    #[test]
    fn synthesized_compositions_bundle_module_directories() {
        let c = TempCase::new("modules");
        for (name, text) in [
            ("modules/bucket/main.hcl", "# bucket\n"),
            ("modules/bucket/params.hcl", "# params"),
            ("modules/app/db/main.hcl", "# db\n"),
            ("steps/1/main.hcl", "# a step's override\n"),
            ("steps/1/modules/bucket/main.hcl", "# a step's override\n"),
            (".git/x.hcl", "# hidden\n"),
            ("modules/.swap.hcl", "# hidden\n"),
            ("observed/bucket.yaml", "x: 1\n"),
        ] {
            let path = c.path(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let names: Vec<String> = case_hcl_files(&c.0)
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            names,
            [
                "main.hcl",
                "modules/app/db/main.hcl",
                "modules/bucket/main.hcl",
                "modules/bucket/params.hcl",
            ]
        );
        let xr = std::fs::read_to_string(c.path("xr.yaml")).unwrap();
        let comp = synthesized_composition(&c.0, &xr).unwrap();
        let doc = fnhcl_render::yaml::load_first(&comp.text).unwrap().unwrap();
        let hcl = doc
            .pointer("/spec/pipeline/0/input/hcl")
            .and_then(Value::as_str)
            .unwrap();
        assert_eq!(
            hcl,
            "-- main.hcl --\n# the fake function ignores this\n\
             -- modules/app/db/main.hcl --\n# db\n\
             -- modules/bucket/main.hcl --\n# bucket\n\
             -- modules/bucket/params.hcl --\n# params\n"
        );
    }

    #[test]
    fn discovery_finds_case_directories() {
        let c = TempCase::new("discovery");
        std::fs::create_dir_all(c.path("nested/deeper")).unwrap();
        std::fs::write(c.path("nested/deeper/xr.yaml"), "x: 1\n").unwrap();
        let found = discover_cases(&c.0);
        assert_eq!(
            found,
            vec![c.0.clone()],
            "a case directory is not searched further"
        );
        let found = discover_cases(&c.path("nested"));
        assert_eq!(found, vec![c.path("nested/deeper")]);
    }
}
