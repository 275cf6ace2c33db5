//! The authoring commands as a user runs them (`fmt`, `analyze`, `package`,
//! `test`, `version`): the built binary in a scratch directory, with exit
//! status, stdout and stderr snapshotted (insta, `tests/snapshots/`).
//!
//! Size: one test per command behaviour, sharing the scratch-directory and
//! run helpers of this file and its snapshots' names.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The snapshot text: exit status, stdout, stderr.
    fn text(&self) -> String {
        format!(
            "exit: {}\n--- stdout\n{}--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn fn_hcl(dir: &Path, args: &[&str], stdin: Option<&str>) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fn-hcl"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run fn-hcl");
    if let Some(mut pipe) = child.stdin.take() {
        pipe.write_all(stdin.unwrap_or("").as_bytes())
            .expect("write stdin");
    }
    let out = child.wait_with_output().expect("wait for fn-hcl");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write file");
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const FORMATTED: &str = "locals {\n  a  = 1\n  bb = 2\n}\n";
const UNFORMATTED: &str = "locals {\na=1\n    bb = {x:1}\n}\n";
const BROKEN: &str = "locals {\n  a = 1 +\n}\n";

#[test]
fn fmt_check_lists_unformatted_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(tmp.path(), "ok.hcl", FORMATTED);
    write(tmp.path(), "sub/messy.hcl", UNFORMATTED);
    write(tmp.path(), "sub/broken.hcl", BROKEN);
    write(tmp.path(), "notes.txt", UNFORMATTED);
    write(tmp.path(), ".hidden/x.hcl", UNFORMATTED);
    let run = fn_hcl(tmp.path(), &["fmt", "--check"], None);
    insta::assert_snapshot!("fmt_check", run.text());
    // Flags as upstream spells them: `--recursive=false` stops at the top.
    let top = fn_hcl(
        tmp.path(),
        &["fmt", "--check", "--recursive=false", "."],
        None,
    );
    assert_eq!((top.code, top.stdout.as_str()), (0, ""), "{}", top.stderr);
    let all = fn_hcl(tmp.path(), &["fmt", "--check", "--recursive", "."], None);
    assert_eq!(all.stdout, "./sub/messy.hcl\n");
    let run = fn_hcl(tmp.path(), &["fmt", "--diff", "sub"], None);
    insta::assert_snapshot!("fmt_diff", run.text());
    // --check and --diff change nothing.
    let messy = std::fs::read_to_string(tmp.path().join("sub/messy.hcl")).expect("read");
    assert_eq!(messy, UNFORMATTED);
}

#[test]
fn fmt_rewrites_files_and_is_then_clean() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(tmp.path(), "a.hcl", UNFORMATTED);
    write(tmp.path(), "b.hcl", BROKEN);
    let run = fn_hcl(tmp.path(), &["fmt", "a.hcl", "b.hcl"], None);
    insta::assert_snapshot!("fmt_rewrite", run.text());
    let a = std::fs::read_to_string(tmp.path().join("a.hcl")).expect("read");
    assert_eq!(a, "locals {\n  a  = 1\n  bb = { x = 1 }\n}\n");
    let b = std::fs::read_to_string(tmp.path().join("b.hcl")).expect("read");
    assert_eq!(b, BROKEN, "a file with a syntax error is left untouched");
    let again = fn_hcl(tmp.path(), &["fmt", "--check", "a.hcl"], None);
    assert_eq!(again.code, 0);
    assert_eq!(again.stdout, "");
}

#[test]
fn fmt_stdin_filter() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = fn_hcl(tmp.path(), &["fmt", "-"], Some(UNFORMATTED));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "locals {\n  a  = 1\n  bb = { x = 1 }\n}\n");
    let mixed = fn_hcl(tmp.path(), &["fmt", "-", "x.hcl"], None);
    assert_eq!(mixed.code, 1);
    assert!(mixed.stderr.contains("cannot mix stdin with other files"));
    let broken = fn_hcl(tmp.path(), &["fmt", "-"], Some(BROKEN));
    assert_eq!(broken.code, 1);
    assert_eq!(broken.stdout, "");
}

const PROBLEMS: &str = r#"locals {
  unused = 1
  name   = req.composite.metadata.name
}

resource bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { name = nmae }
    spec       = { region = req.composite.sepc.region, n = lenght([]) }
  }
}

resource other {
  body = { arn = req.resource.buckt.status.arn }
}
"#;

#[test]
fn analyze_text_output() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(tmp.path(), "main.hcl", PROBLEMS);
    let run = fn_hcl(tmp.path(), &["analyze"], None);
    insta::assert_snapshot!("analyze_text", run.text());
}

#[test]
fn analyze_ends_with_analysis_failed_only_on_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // Errors: the count line ends stdout, `analysis failed` ends stderr.
    write(
        tmp.path(),
        "main.hcl",
        "locals {\n  names = [\"a\"]\n  first = local.names[0]\n}\n",
    );
    let run = fn_hcl(tmp.path(), &["analyze"], None);
    assert_eq!(run.code, 1, "{}", run.text());
    assert!(
        run.stdout.ends_with("1 error, 2 warnings\n"),
        "{}",
        run.text()
    );
    assert_eq!(run.stderr, "error: analysis failed\n");
    assert!(
        run.stdout.contains(
            "main.hcl:3,11: error[E0301]: reference to non-existent variable \"local\"\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("locals are referenced by their bare name: `names`"),
        "{}",
        run.stdout
    );
    // JSON stays valid on stdout; the verdict goes to stderr.
    let json = fn_hcl(tmp.path(), &["analyze", "--format", "json"], None);
    assert_eq!(json.code, 1);
    assert!(serde_json::from_str::<serde_json::Value>(&json.stdout).is_ok());
    assert_eq!(json.stderr, "error: analysis failed\n");

    // Warnings only: exit 0 and no verdict, unless --deny-warnings.
    write(tmp.path(), "main.hcl", "locals {\n  unused = 1\n}\n");
    let warned = fn_hcl(tmp.path(), &["analyze"], None);
    assert_eq!(warned.code, 0, "{}", warned.text());
    assert!(warned.stdout.ends_with("0 errors, 1 warning\n"));
    assert_eq!(warned.stderr, "");
    let denied = fn_hcl(tmp.path(), &["analyze", "--deny-warnings"], None);
    assert_eq!(denied.code, 1);
    assert_eq!(
        denied.stderr,
        "error: analysis failed: warnings are denied (--deny-warnings)\n"
    );
}

#[test]
fn analyze_json_output() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(tmp.path(), "main.hcl", PROBLEMS);
    let run = fn_hcl(tmp.path(), &["analyze", ".", "--format", "json"], None);
    assert_eq!(run.code, 1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let codes: Vec<&str> = v
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|f| f["code"].as_str())
        .collect();
    assert_eq!(
        codes,
        ["E0301", "E0401", "W0601", "W0601", "W0602", "W0604"],
        "{}",
        run.stdout
    );
    assert_eq!(v[0]["range"], "main.hcl:10,27-31");
}

#[test]
fn analyze_valid_upstream_examples() {
    for dir in fnhcl_testkit::discover_cases(&repo().join("tests/render/upstream")) {
        if !dir.join("main.hcl").exists() {
            continue;
        }
        let run = fn_hcl(&dir, &["analyze"], None);
        assert_eq!(run.code, 0, "{}: {}", dir.display(), run.stdout);
        let strict = fn_hcl(&dir, &["analyze", "--deny-warnings"], None);
        let warned = run.stdout.contains(": warning[");
        assert_eq!(strict.code, i32::from(warned), "{}", dir.display());
    }
}

#[test]
fn package_bundles_files_and_libraries() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let comp = tmp.path().join("comp");
    write(
        &comp,
        "main.hcl",
        "resource r {\n  body = invoke(\"wrap\", { v = 1 })\n}\n",
    );
    write(&comp, "b.hcl", "locals {\n  _x = 1\n}");
    write(
        &comp,
        "composition.yaml",
        "xrd:\n  apiVersion: example.com/v1\n  kind: XApp\nlibraryFiles:\n  - ../shared/lib.hcl\n  - ./main.hcl\n",
    );
    write(
        tmp.path(),
        "shared/lib.hcl",
        "function wrap {\n  arg v {}\n  body = { value = v }\n}\n",
    );
    let run = fn_hcl(&comp, &["package"], None);
    insta::assert_snapshot!("package", run.text());

    // The same bundle written into a Composition.
    write(
        tmp.path(),
        "composition-template.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xapps\nspec:\n  compositeTypeRef:\n    apiVersion: example.com/v1\n    kind: XApp\n  mode: Pipeline\n  pipeline:\n    - step: render\n      functionRef:\n        name: function-hcl\n      input:\n        apiVersion: hcl.fn.crossplane.io/v1beta1\n        kind: HclInput\n        hcl: \"\"\n    - step: ready\n      functionRef:\n        name: function-auto-ready\n",
    );
    let run = fn_hcl(
        &comp,
        &["package", "--composition", "../composition-template.yaml"],
        None,
    );
    insta::assert_snapshot!("package_composition", run.text());
}

/// D39: the program goes into an operation's pipeline too, and the
/// packed WatchOperation renders.
#[test]
fn package_fills_a_watch_operation() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/watch-operation");
    let packed = fn_hcl(
        &example,
        &["package", "--composition", "operation.yaml"],
        None,
    );
    assert_eq!(packed.code, 0, "{}", packed.stderr);
    assert!(
        packed.stdout.contains("kind: WatchOperation"),
        "{}",
        packed.stdout
    );
    assert!(
        packed.stdout.contains("-- main.hcl --"),
        "{}",
        packed.stdout
    );
    let tmp = tempfile::tempdir().expect("tempdir");
    write(tmp.path(), "op.yaml", &packed.stdout);
    let watched = example.join("watched.yaml").display().to_string();
    let run = fn_hcl(tmp.path(), &["render", "op.yaml", "-w", &watched], None);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("deployment: shop/checkout"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("audit.example.com/checked: \"true\""),
        "{}",
        run.stdout
    );
}

#[test]
fn package_refuses_programs_with_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "main.hcl",
        "resource r {\n  body = { a = missing }\n}\n",
    );
    let run = fn_hcl(tmp.path(), &["package"], None);
    insta::assert_snapshot!("package_errors", run.text());
    let skipped = fn_hcl(tmp.path(), &["package", "--skip-analysis"], None);
    assert_eq!(skipped.code, 0);
    assert!(skipped.stdout.starts_with("-- main.hcl --\n"));
}

#[test]
fn package_rejects_absolute_library_paths() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "composition.yaml",
        "libraryFiles: [/etc/passwd]\n",
    );
    let run = fn_hcl(tmp.path(), &["package"], None);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("library file \"/etc/passwd\" is an absolute path, not allowed"),
        "{}",
        run.stderr
    );
}

/// `fn-hcl test` over the project's own render cases: one line per case,
/// and a summary that adds up.
#[test]
fn test_runs_the_project_render_cases() {
    let root = repo().join("tests/render");
    let cases = fnhcl_testkit::discover_cases(&root);
    assert!(cases.len() >= 10, "expected the project's render cases");
    let run = fn_hcl(&root, &["test"], None);
    for case in &cases {
        let name = case
            .strip_prefix(&root)
            .expect("under root")
            .display()
            .to_string();
        let lines = run
            .stdout
            .lines()
            .filter(|l| {
                (l.starts_with("PASS ") || l.starts_with("FAIL "))
                    && l.split_whitespace().nth(1) == Some(name.as_str())
            })
            .count();
        assert_eq!(lines, 1, "case {name} in:\n{}", run.stdout);
    }
    let summary = run.stdout.lines().last().unwrap_or_default().to_owned();
    let nums: Vec<usize> = summary
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert_eq!(nums.len(), 3, "summary line: {summary}");
    assert_eq!(nums[0] + nums[1] + nums[2], cases.len(), "{summary}");
    assert_eq!(run.code, i32::from(nums[1] > 0));
}

const XR: &str =
    "apiVersion: example.com/v1\nkind: XApp\nmetadata:\n  name: app\nspec:\n  size: 2\n";

#[test]
fn test_reports_pass_fail_and_updates() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = tmp.path().join("good");
    write(&good, "xr.yaml", XR);
    write(
        &good,
        "main.hcl",
        "resource cm {\n  body = {\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    data       = { size = \"${req.composite.spec.size}\" }\n  }\n}\n",
    );
    let bad = tmp.path().join("bad");
    write(&bad, "xr.yaml", XR);
    write(
        &bad,
        "main.hcl",
        "resource cm {\n  body = {\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    data       = { size = \"n-${req.composite.spec.size + 1}\" }\n  }\n}\n",
    );
    // Create the expectations, then break one.
    let update = fn_hcl(tmp.path(), &["test", "--update"], None);
    assert_eq!(update.code, 0, "{}{}", update.stdout, update.stderr);
    assert!(update.stdout.contains("UPDATED good"), "{}", update.stdout);
    let expected = std::fs::read_to_string(bad.join("expected.yaml")).expect("expected.yaml");
    std::fs::write(
        bad.join("expected.yaml"),
        expected.replace("size: n-3", "size: n-2"),
    )
    .expect("write");
    let run = fn_hcl(tmp.path(), &["test"], None);
    insta::assert_snapshot!("test_output", run.text());
}

#[test]
fn test_reconcile_steps_and_convergence() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let case = tmp.path().join("steps-case");
    write(&case, "xr.yaml", XR);
    // The second resource needs the first one's observed name: it appears
    // in step 2, after step 1's output was "applied".
    write(
        &case,
        "main.hcl",
        "resource first {\n  body = {\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    data       = { n = \"1\" }\n  }\n}\n\nresource second {\n  body = {\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    data       = { from = req.resource.first.data.n }\n  }\n}\n",
    );
    write(&case, "steps/1/.keep", "");
    write(&case, "steps/2/.keep", "");
    let update = fn_hcl(tmp.path(), &["test", "--update"], None);
    assert_eq!(update.code, 0, "{}{}", update.stdout, update.stderr);
    let step1 = std::fs::read_to_string(case.join("steps/1/expected.yaml")).expect("step 1");
    let step2 = std::fs::read_to_string(case.join("steps/2/expected.yaml")).expect("step 2");
    assert!(
        !step1.contains("from:"),
        "step 1 cannot know `first` yet:\n{step1}"
    );
    assert!(
        step2.contains("from: \"1\""),
        "step 2 sees step 1's output:\n{step2}"
    );
    let run = fn_hcl(tmp.path(), &["test"], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("PASS    steps-case"), "{}", run.stdout);

    // A composition that never settles: its output depends on its own
    // previous output.
    write(
        &case,
        "main.hcl",
        "resource counter {\n  body = {\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    data       = { n = tostring(try(tonumber(req.resource.counter.data.n), 0) + 1) }\n  }\n}\n",
    );
    let update = fn_hcl(tmp.path(), &["test", "--update"], None);
    assert_eq!(update.code, 1, "{}", update.stdout);
    assert!(
        update.stdout.contains("does not converge"),
        "{}",
        update.stdout
    );
}

#[test]
fn version_prints_a_table() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let run = fn_hcl(tmp.path(), &["version"], None);
    assert_eq!(run.code, 0);
    let keys: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(keys, ["Version", "Commit", "Target"]);
    assert!(run.stdout.contains(env!("CARGO_PKG_VERSION")));
    let short = fn_hcl(tmp.path(), &["version", "--short"], None);
    assert_eq!(short.stdout.trim(), env!("CARGO_PKG_VERSION"));
}

#[test]
fn analyze_checks_composite_paths_against_the_xrd() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let xrd = std::fs::read_to_string(
        repo().join("crates/fnhcl-analyze/tests/cases/xrd-schema/xrd.json"),
    )
    .expect("xrd.json");
    // JSON is YAML: found among the directory's *.yaml files.
    write(tmp.path(), "definition.yaml", &xrd);
    write(
        tmp.path(),
        "composition.yaml",
        "xrd:\n  apiVersion: example.com/v1\n  kind: XApp\n",
    );
    write(
        tmp.path(),
        "main.hcl",
        "context {\n  key   = \"region\"\n  value = req.composite.spec.paramters.region\n}\n",
    );
    let run = fn_hcl(tmp.path(), &["analyze", "--format", "json"], None);
    assert_eq!(run.code, 0, "warnings only: {}", run.stdout);
    assert!(run.stdout.contains("\"code\": \"W0603\""), "{}", run.stdout);
    assert!(
        run.stdout.contains("did you mean \\\"parameters\\\""),
        "{}",
        run.stdout
    );

    // Explicitly named, from elsewhere.
    let other = tempfile::tempdir().expect("tempdir");
    write(
        other.path(),
        "main.hcl",
        "context {\n  key   = \"region\"\n  value = req.composite.spec.paramters.region\n}\n",
    );
    let xrd_path = tmp.path().join("definition.yaml");
    let run = fn_hcl(
        other.path(),
        &["analyze", "--xrd", xrd_path.to_str().expect("utf-8 path")],
        None,
    );
    assert!(run.stdout.contains("W0603"), "{}", run.stdout);
    let without = fn_hcl(other.path(), &["analyze"], None);
    assert!(!without.stdout.contains("W0603"), "{}", without.stdout);
}

#[test]
fn analyze_inline_programs_of_a_composition_and_bundles() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "composition.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xapps\nspec:\n  mode: Pipeline\n  pipeline:\n    - step: good\n      functionRef: { name: function-hcl }\n      input:\n        apiVersion: hcl.fn.crossplane.io/v1beta1\n        kind: HclInput\n        hcl: |\n          -- main.hcl --\n          context {\n            key   = \"a\"\n            value = 1\n          }\n    - step: other\n      functionRef: { name: function-auto-ready }\n    - step: bad\n      functionRef: { name: function-hcl }\n      input:\n        apiVersion: hcl.fn.crossplane.io/v1beta1\n        kind: HclInput\n        hcl: |\n          context {\n            key   = \"b\"\n            value = missing\n          }\n",
    );
    let run = fn_hcl(tmp.path(), &["analyze", "composition.yaml"], None);
    insta::assert_snapshot!("analyze_composition", run.text());

    // A bundle made by `package` analyses like its directory.
    let comp = tmp.path().join("comp");
    write(&comp, "main.hcl", "locals {\n  x = 1\n}\n");
    let bundle = fn_hcl(&comp, &["package"], None);
    assert_eq!(bundle.code, 0, "{}", bundle.stderr);
    write(tmp.path(), "bundle.txtar", &bundle.stdout);
    let run = fn_hcl(
        tmp.path(),
        &["analyze", "bundle.txtar", "--format", "json"],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("\"code\": \"W0601\""), "{}", run.stdout);
}

/// D36: a requirement the Composition step declares itself is no
/// undeclared requirement; a misspelt one still is.
#[test]
fn analyze_knows_a_steps_own_requirements() {
    let tmp = tempfile::tempdir().expect("tempdir");
    write(
        tmp.path(),
        "composition.yaml",
        "apiVersion: apiextensions.crossplane.io/v1\nkind: Composition\nmetadata:\n  name: xapps\nspec:\n  mode: Pipeline\n  pipeline:\n    - step: run\n      functionRef: { name: function-hcl }\n      requirements:\n        requiredResources:\n          - requirementName: platform\n            apiVersion: v1\n            kind: ConfigMap\n            name: platform\n            namespace: crossplane-system\n      input:\n        apiVersion: hcl.fn.crossplane.io/v1beta1\n        kind: HclInput\n        hcl: |\n          -- main.hcl --\n          context {\n            key   = \"a\"\n            value = req.extra_resources.platform[0].data\n          }\n          context {\n            key   = \"b\"\n            value = req.extra_resources.platfrom[0].data\n          }\n",
    );
    let run = fn_hcl(tmp.path(), &["analyze", "composition.yaml"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout.matches("W0607").count(), 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("no requirement named \"platfrom\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("did you mean \"platform\"?"),
        "{}",
        run.stdout
    );
}

#[test]
fn test_steps_may_expect_errors() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let case = tmp.path().join("error-then-fix");
    write(&case, "xr.yaml", XR);
    write(
        &case,
        "main.hcl",
        "resource cm {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\" }\n}\n",
    );
    // Step 1 ships a broken program, step 2 the fixed one.
    write(
        &case,
        "steps/1/main.hcl",
        "resource cm {\n  body = { apiVersion = \"v1\", kind = nope }\n}\n",
    );
    write(&case, "steps/2/.keep", "");
    let update = fn_hcl(tmp.path(), &["test", "--update"], None);
    assert_eq!(update.code, 0, "{}{}", update.stdout, update.stderr);
    assert!(case.join("steps/1/expected.error").exists());
    assert!(case.join("steps/2/expected.yaml").exists());
    let run = fn_hcl(tmp.path(), &["test"], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("PASS    error-then-fix"),
        "{}",
        run.stdout
    );
}

#[test]
fn test_steps_carry_module_directories_and_step_overrides() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let case = tmp.path().join("module-steps");
    write(&case, "xr.yaml", XR);
    write(
        &case,
        "main.hcl",
        "import \"modules/cm\" {}\n\nmodule \"cm\" \"one\" {\n  size = req.composite.spec.size\n}\n",
    );
    let module = |version: &str| {
        format!(
            "param \"size\" {{}}\n\nresource cm {{\n  body = {{\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    data       = {{ size = \"${{param.size}}\", version = \"{version}\" }}\n  }}\n}}\n"
        )
    };
    write(&case, "modules/cm/main.hcl", &module("v1"));
    write(&case, "steps/1/.keep", "");
    // Step 2 ships a new version of the module's file.
    write(&case, "steps/2/modules/cm/main.hcl", &module("v2"));
    let update = fn_hcl(tmp.path(), &["test", "--update"], None);
    assert_eq!(update.code, 0, "{}{}", update.stdout, update.stderr);
    let step1 = std::fs::read_to_string(case.join("steps/1/expected.yaml")).expect("step 1");
    let step2 = std::fs::read_to_string(case.join("steps/2/expected.yaml")).expect("step 2");
    for (step, version) in [(&step1, "v1"), (&step2, "v2")] {
        assert!(
            step.contains("crossplane.io/composition-resource-name: one-cm"),
            "{step}"
        );
        assert!(step.contains(&format!("version: {version}")), "{step}");
    }
    assert!(
        !case.join("steps/2/modules/cm/expected.yaml").exists(),
        "expectations are written to the step directory only"
    );
    let run = fn_hcl(tmp.path(), &["test"], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("PASS    module-steps"),
        "{}",
        run.stdout
    );
}

#[test]
fn test_steps_keep_the_status_providers_reported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let case = tmp.path().join("status");
    write(&case, "xr.yaml", XR);
    // `second` needs a status field of `first` that only step 1's observed
    // state has; step 2 observes step 1's output, which keeps that status.
    write(
        &case,
        "main.hcl",
        "resource first {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\" }\n}\n\nresource second {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { id = req.resource.first.status.id } }\n}\n",
    );
    write(
        &case,
        "steps/1/observed.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: first\n  annotations:\n    crossplane.io/composition-resource-name: first\nstatus:\n  id: abc\n",
    );
    write(&case, "steps/2/.keep", "");
    let update = fn_hcl(tmp.path(), &["test", "--update"], None);
    assert_eq!(update.code, 0, "{}{}", update.stdout, update.stderr);
    let step2 = std::fs::read_to_string(case.join("steps/2/expected.yaml")).expect("step 2");
    assert!(step2.contains("id: abc"), "{step2}");
    let run = fn_hcl(tmp.path(), &["test"], None);
    assert_eq!(run.code, 0, "{}", run.stdout);
}

/// The committed reconcile cases (`tests/reconcile/`): modules and switches
/// across several reconciles, run as a user runs them.
#[test]
fn committed_reconcile_cases_pass() {
    let run = fn_hcl(&repo(), &["test", "tests/reconcile"], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let verdicts: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with(' '))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| ["PASS", "FAIL", "UPDATED"].contains(w))
        .collect();
    assert!(verdicts.len() >= 3, "{}", run.stdout);
    assert!(verdicts.iter().all(|v| *v == "PASS"), "{}", run.stdout);
    for case in [
        "module-export-observed-status",
        "module-param-incomplete-fail-safe",
        "switch-changes-branch",
    ] {
        assert!(
            run.stdout.contains(&format!("PASS    {case}\n")),
            "{}",
            run.stdout
        );
    }
}

#[test]
fn package_follows_imports_and_analyze_checks_modules() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    write(
        dir,
        "main.hcl",
        "import \"modules/app\" {}\n\nmodule \"app\" \"web\" {\n  size = 2\n}\n",
    );
    write(
        dir,
        "modules/app/main.hcl",
        "import \"modules/bucket\" {}\n\nparam \"size\" {}\n\nmodule \"bucket\" \"store\" {}\n\nresource deployment {\n  body = { kind = \"Deployment\", spec = { replicas = param.size } }\n}\n",
    );
    write(
        dir,
        "modules/app/parts/extra.hcl",
        "resource service {\n  body = { kind = \"Service\" }\n}\n",
    );
    write(
        dir,
        "modules/bucket/main.hcl",
        "resource bucket {\n  body = { kind = \"Bucket\" }\n}\n",
    );
    // Not imported: not packaged.
    write(dir, "unused/x.hcl", "resource x {\n  body = {}\n}\n");
    write(dir, ".hidden/y.hcl", "nope {\n");
    let run = fn_hcl(dir, &["package", "."], None);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let members: Vec<&str> = run
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("-- ")?.strip_suffix(" --"))
        .collect();
    assert_eq!(
        members,
        [
            "main.hcl",
            "modules/app/main.hcl",
            "modules/app/parts/extra.hcl",
            "modules/bucket/main.hcl"
        ]
    );
    // The bundle is a working program.
    let mut sources = fnhcl_base::SourceMap::new();
    fnhcl_base::txtar::load_into(&mut sources, &run.stdout).expect("txtar");
    let program = fnhcl_eval::compile(std::sync::Arc::new(sources)).expect("compiles");
    let out = fnhcl_eval::evaluate(&program, &fnhcl_eval::Request::default()).expect("runs");
    let names: Vec<&str> = out.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["web-store-bucket", "web-deployment", "web-service"]);

    let clean = fn_hcl(dir, &["analyze", "."], None);
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);

    // A typo in a parameter, a missing module directory.
    write(
        dir,
        "main.hcl",
        "import \"modules/app\" {}\n\nmodule \"app\" \"web\" {\n  sise = 2\n}\n",
    );
    let bad = fn_hcl(dir, &["analyze", "."], None);
    assert_eq!(bad.code, 1, "{}", bad.stdout);
    assert!(
        bad.stdout.contains("main.hcl:4,3: error[E0702]")
            && bad.stdout.contains("did you mean \"size\"?"),
        "{}",
        bad.stdout
    );
    write(dir, "main.hcl", "import \"modules/gone\" {}\n");
    let missing = fn_hcl(dir, &["package", "."], None);
    assert_ne!(missing.code, 0);
    assert!(
        missing
            .stderr
            .contains("main.hcl:1,1-22: imported module directory \"modules/gone\" not found"),
        "{}",
        missing.stderr
    );
}

#[test]
fn analyze_checks_bodies_against_crds_found_or_given() {
    let bucket_crd = std::fs::read_to_string(
        repo().join("crates/fnhcl-schema/tests/data/crds/s3.aws.upbound.io_buckets.yaml"),
    )
    .expect("bucket CRD");
    let body = "resource b {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind       = \"Bucket\"\n    spec = { forProvider = { regoin = \"eu-west-1\" } }\n  }\n}\n";
    let repo_dir = tempfile::tempdir().expect("tempdir");
    let root = repo_dir.path();
    write(root, "compositions/storage/main.hcl", body);
    let comp = root.join("compositions/storage");

    // Nothing configured: no schema findings.
    let run = fn_hcl(&comp, &["analyze"], None);
    assert!(!run.stdout.contains("W0610"), "{}", run.stdout);

    // A .crds/ directory above the composition.
    write(root, ".crds/aws/bucket.yaml", &bucket_crd);
    let run = fn_hcl(&comp, &["analyze"], None);
    assert!(
        run.stdout
            .contains("main.hcl:5,30: warning[W0610]: spec.forProvider.regoin: unknown field; did you mean \"region\"?"),
        "{}",
        run.stdout
    );

    // .crd-sources.yaml wins over .crds/; its scope filters (the Bucket CRD
    // is cluster scoped).
    write(root, "vendor/crds/s3/bucket.yaml", &bucket_crd);
    write(
        root,
        ".crd-sources.yaml",
        "scope: namespaced\npaths:\n  - vendor/crds/**/*.yaml\n",
    );
    let run = fn_hcl(&comp, &["analyze"], None);
    assert!(!run.stdout.contains("W0610"), "{}", run.stdout);
    write(
        root,
        ".crd-sources.yaml",
        "scope: both\npaths:\n  - vendor/crds/**/*.yaml\n",
    );
    let run = fn_hcl(&comp, &["analyze"], None);
    assert!(run.stdout.contains("W0610"), "{}", run.stdout);

    // Given explicitly, from anywhere; a broken CRD file names the file.
    let other = tempfile::tempdir().expect("tempdir");
    write(other.path(), "main.hcl", body);
    let crd_path = root.join("vendor/crds/s3/bucket.yaml");
    let run = fn_hcl(
        other.path(),
        &["analyze", "--crds", crd_path.to_str().expect("utf-8 path")],
        None,
    );
    assert!(run.stdout.contains("W0610"), "{}", run.stdout);
    write(other.path(), "bad.yaml", "kind: [unclosed\n");
    let run = fn_hcl(other.path(), &["analyze", "--crds", "bad.yaml"], None);
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("bad.yaml"), "{}", run.stderr);
}

/// `analyze` under a hostile `.crd-sources.yaml`: a pattern that leads out
/// of the workspace (`/**`) is refused with the pattern named, before any
/// walk; a glob that made the old matcher take exponential time ends; CRDs
/// over `--crds-max-bytes` are refused naming the flag.
#[test]
fn analyze_bounds_crd_discovery() {
    let bucket = repo().join("crates/fnhcl-schema/tests/data/crds/s3.aws.upbound.io_buckets.yaml");
    let size = std::fs::metadata(&bucket).expect("bucket CRD").len();
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "main.hcl", "locals {\n  a = 1\n}\n");
    write(root, ".crd-sources.yaml", "paths:\n  - /**/*.yaml\n");
    let run = fn_hcl(root, &["analyze"], None);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr
            .contains("pattern \"/**/*.yaml\" leads to /, outside the workspace root"),
        "{}",
        run.stderr
    );

    let long = "a".repeat(200);
    for i in 0..10 {
        write(root, &format!("crds/{long}{i}.yaml"), "kind: Other\n");
    }
    std::fs::copy(&bucket, root.join("crds/bucket.yaml")).expect("copy");
    write(
        root,
        ".crd-sources.yaml",
        &format!(
            "paths:\n  - \"crds/{}b.yaml\"\n  - crds/bucket.yaml\n",
            "*a".repeat(30)
        ),
    );
    let run = fn_hcl(root, &["analyze"], None);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let budget = (size - 1).to_string();
    let run = fn_hcl(root, &["analyze", "--crds-max-bytes", &budget], None);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains(&format!(
            "the schema files are {size} bytes together, more than the budget of {budget} bytes; raise it with --crds-max-bytes"
        )),
        "{}",
        run.stderr
    );
}
