//! `fn-hcl render` as a user runs it: the built binary on the upstream
//! examples (stdout compared semantically with `expected.yaml`), and its
//! error and warning reporting (stderr, exit code, nothing on stdout).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fnhcl_testkit::compare::{CompareOptions, compare_streams, format_mismatches};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/render")
}

fn fn_hcl(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fn-hcl"))
        .arg("render")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run fn-hcl")
}

#[test]
fn upstream_examples_render_as_expected() {
    let mut failures = Vec::new();
    let mut n = 0;
    for dir in fnhcl_testkit::discover_cases(&root().join("upstream")) {
        n += 1;
        let mut args = vec!["-r", "-c", "xr.yaml", "composition.yaml"];
        if dir.join("observed.yaml").exists() {
            args.extend(["-o", "observed.yaml"]);
        }
        if dir.join("extra-resources.yaml").exists() {
            args.extend(["-e", "extra-resources.yaml"]);
        }
        let out = fn_hcl(&dir, &args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() {
            failures.push(format!(
                "{}: exit {:?}\n{stderr}",
                dir.display(),
                out.status.code()
            ));
            continue;
        }
        let expected = std::fs::read_to_string(dir.join("expected.yaml")).expect("expected.yaml");
        match compare_streams(&expected, &stdout, &CompareOptions::standard()) {
            Ok(m) if m.is_empty() => {}
            Ok(m) => failures.push(format!("{}:\n{}", dir.display(), format_mismatches(&m))),
            Err(e) => failures.push(format!("{}: {e}\n{stdout}", dir.display())),
        }
    }
    assert_eq!(n, 10, "the 10 upstream examples");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn errors_go_to_stderr_with_code_frames_and_exit_1() {
    let dir = root().join("cases/static-error");
    let out = fn_hcl(&dir, &["xr.yaml", "composition.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with(
            "fn-hcl: error: cannot render composite resource: pipeline step \"run hcl composition\" returned a fatal result: main.hcl:5,27-38:"
        ),
        "{stderr}"
    );
    // The code frame shows the offending line.
    assert!(
        stderr.contains("main.hcl:5:27") && stderr.contains("name = nosuchlocal"),
        "{stderr}"
    );

    let out = fn_hcl(&dir, &["missing.yaml", "composition.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot read composite resource \"missing.yaml\"")
    );
}

#[test]
fn foreign_steps_warn_on_stderr() {
    let dir = root().join("cases/foreign-step-skipped");
    let out = fn_hcl(&dir, &["xr.yaml", "composition.yaml"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("fn-hcl: warning: pipeline step \"templating\""),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("---\napiVersion: example.com/v1\nkind: XApp\n"),
        "{stdout}"
    );

    let out = fn_hcl(&dir, &["--fail-on-foreign", "xr.yaml", "composition.yaml"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}

/// `examples/modules` renders as its README says, and its hand-written
/// composition.yaml holds exactly the directory's `.hcl` files.
#[test]
fn examples_modules_renders() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/modules");

    let comp = std::fs::read_to_string(dir.join("composition.yaml")).expect("composition.yaml");
    let comp = fnhcl_render::yaml::load_first(&comp)
        .expect("composition.yaml parses")
        .expect("a document");
    let inline = comp
        .pointer("/spec/pipeline/0/input/hcl")
        .and_then(serde_json::Value::as_str)
        .expect("an inline program");
    let mut bundle = String::new();
    for (name, path) in fnhcl_testkit::case::case_hcl_files(&dir).expect("hcl files") {
        let text = std::fs::read_to_string(path).expect("hcl file");
        bundle.push_str(&format!("-- {name} --\n{text}"));
    }
    assert!(bundle.contains("-- modules/bucket/main.hcl --\n"));
    assert_eq!(
        inline, bundle,
        "composition.yaml's inline program differs from examples/modules/**/*.hcl"
    );

    let render = |extra: &[&str]| {
        let mut args = vec!["-r", "xr.yaml", "composition.yaml"];
        args.extend(extra);
        let out = fn_hcl(&dir, &args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        fnhcl_render::yaml::load_stream(&String::from_utf8_lossy(&out.stdout))
            .expect("output parses")
    };
    let composed = |docs: &[serde_json::Value]| -> Vec<String> {
        docs.iter()
            .filter_map(|d| {
                d.pointer("/metadata/annotations/crossplane.io~1composition-resource-name")
                    .and_then(serde_json::Value::as_str)
                    .map(str::to_owned)
            })
            .collect()
    };
    let messages = |docs: &[serde_json::Value]| -> Vec<String> {
        docs.iter()
            .filter(|d| d["kind"] == "Result")
            .filter_map(|d| d["message"].as_str().map(str::to_owned))
            .collect()
    };

    // First reconcile: the buckets; what needs their names or ARNs waits.
    let first = render(&[]);
    assert_eq!(composed(&first), ["assets-bucket", "logs-bucket"]);
    let warnings = messages(&first);
    for deferred in [
        "discarded resource assets-versioning",
        "discarded resource assets-lifecycle",
        "discarded resource logs-lifecycle",
        "discarded resource reader_policy",
    ] {
        assert!(
            warnings.iter().any(|m| m.contains(deferred)),
            "{deferred}: {warnings:?}"
        );
    }

    // Next reconcile, the buckets observed with their ARNs.
    let next = render(&["-o", "observed.yaml"]);
    assert_eq!(
        composed(&next),
        [
            "assets-bucket",
            "assets-lifecycle",
            "assets-versioning",
            "logs-bucket",
            "logs-lifecycle",
            "reader_policy",
        ]
    );
    assert!(messages(&next).is_empty(), "{:?}", messages(&next));
    let xr = &next[0];
    assert_eq!(xr["status"]["environment"], "production");
    assert_eq!(
        xr["status"]["buckets"],
        serde_json::json!({"assets": "shop-7xk2p", "logs": "shop-q4m9t"})
    );
    let policy = next
        .iter()
        .find(|d| d["kind"] == "Policy")
        .and_then(|d| d["spec"]["forProvider"]["policy"].as_str())
        .expect("the policy");
    assert!(
        policy.contains("arn:aws:s3:::shop-7xk2p/*")
            && policy.contains("arn:aws:s3:::shop-q4m9t/*"),
        "{policy}"
    );
    let days = |name: &str| {
        next.iter()
            .find(|d| {
                d.pointer("/metadata/annotations/crossplane.io~1composition-resource-name")
                    == Some(&serde_json::Value::from(name))
            })
            .and_then(|d| d.pointer("/spec/forProvider/rule/0/expiration/0/days"))
            .cloned()
    };
    assert_eq!(days("assets-lifecycle"), Some(30.into()), "the default");
    assert_eq!(days("logs-lifecycle"), Some(365.into()), "from the switch");
}

/// `fn-hcl render XR DIR` and `fn-hcl render XR FILE.hcl` render the
/// program a Composition would run: the same output as the Composition.
#[test]
fn renders_a_program_directory_or_file() {
    let case = root().join("cases/crossplane-v2");
    let flags = ["-r", "-c", "--crossplane-version", "2.2", "xr.yaml"];
    let run = |program: &str| {
        let mut args = flags.to_vec();
        args.push(program);
        let out = fn_hcl(&case, &args);
        assert!(
            out.status.success(),
            "{program}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let with_composition = run("composition.yaml");
    for program in [".", "main.hcl"] {
        let m = compare_streams(
            &with_composition,
            &run(program),
            &CompareOptions::standard(),
        )
        .expect("YAML");
        assert!(m.is_empty(), "{program}: {}", format_mismatches(&m));
    }
    // A directory without programs says so.
    let empty = tempfile::tempdir().expect("tempdir");
    let xr = case.join("xr.yaml").display().to_string();
    let dir = empty.path().display().to_string();
    let out = fn_hcl(&case, &[&xr, &dir]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no composition.yaml and no *.hcl files"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A block discarded by an evaluation error (a wrong program, not missing
/// data) is never silent: a warning on stderr without -r, an error with
/// --strict.
#[test]
fn evaluation_errors_are_never_silent() {
    let case = root().join("cases/evaluation-error-warning");
    let out = fn_hcl(&case, &["xr.yaml", "."]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("fn-hcl: warning: pipeline step \"run hcl composition\": main.hcl:13,10-18,4:discarded resource subnet"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Invalid value for \"newbits\" parameter"),
        "{stderr}"
    );
    let strict = fn_hcl(&case, &["--strict", "xr.yaml", "."]);
    assert!(!strict.status.success());
    assert!(strict.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&strict.stderr).contains("has an evaluation error (--strict)"),
        "{}",
        String::from_utf8_lossy(&strict.stderr)
    );
}

/// A fatal result with several diagnostics: the message counts the
/// others, and fn-hcl render lists them all on stderr.
#[test]
fn every_diagnostic_of_a_fatal_result_is_shown() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("main.hcl"),
        "resource a {\n  body = { x = nope1 }\n}\nresource b {\n  body = { x = nope2 }\n}\n",
    )
    .expect("write");
    let xr = root().join("cases/evaluation-error-warning/xr.yaml");
    let out = fn_hcl(dir.path(), &[xr.to_str().expect("path"), "."]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("and 1 other diagnostic(s)"), "{stderr}");
    assert!(stderr.contains("fn-hcl: the 2 diagnostics:"), "{stderr}");
    assert!(
        stderr.contains("main.hcl:5,16-21: reference to non-existent variable \"nope2\""),
        "{stderr}"
    );
}

/// `-s/--required-schemas DIR`: OpenAPI v3 documents answer the
/// function's schema requirements, and what violates them is reported
/// (docs/render.md, docs/schema-validation.md).
#[test]
fn required_schemas_answer_schema_requirements() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "xr.yaml",
        "apiVersion: example.com/v1\nkind: XApp\nmetadata:\n  name: app-1\n",
    );
    write(
        "composition.yaml",
        r#"apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: widgets
spec:
  compositeTypeRef: { apiVersion: example.com/v1, kind: XApp }
  mode: Pipeline
  pipeline:
    - step: hcl
      functionRef: { name: fn-hcl }
      input:
        apiVersion: hcl.fn.crossplane.io/v1beta1
        kind: HclInput
        hcl: |
          resource w {
            body = {
              apiVersion = "example.io/v1"
              kind       = "Widget"
              spec       = { size = "big" }
            }
          }
"#,
    );
    write(
        "schemas/widget.json",
        r#"{"openapi": "3.0.0", "components": {"schemas": {"io.example.v1.Widget": {
  "type": "object",
  "x-kubernetes-group-version-kind": [{"group": "example.io", "version": "v1", "kind": "Widget"}],
  "properties": {
    "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
  }}}}}"#,
    );
    let args = [
        "-r",
        "--crossplane-version",
        "2.2",
        "xr.yaml",
        "composition.yaml",
    ];
    let with = fn_hcl(dir, &[&args[..], &["-s", "schemas"]].concat());
    let stdout = String::from_utf8_lossy(&with.stdout);
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    assert!(
        stdout.contains("spec.size: expected integer, got string"),
        "{stdout}"
    );
    // Without schemas, nothing is validated.
    let without = fn_hcl(dir, &args);
    assert!(without.status.success());
    assert!(!String::from_utf8_lossy(&without.stdout).contains("spec.size"));
}

/// `--crds` (with `--required-schemas`) over `--crds-max-bytes`: refused
/// before anything is read, with the budget and the flag named; within it,
/// the render goes on. The default budget takes the case as it is.
#[test]
fn crds_over_the_budget_are_refused_naming_the_flag() {
    let dir = root().join("cases/schema-violations");
    let crd = "../../../../crates/fnhcl-schema/tests/data/crds/s3.aws.upbound.io_buckets.yaml";
    let size = std::fs::metadata(dir.join(crd)).expect("CRD").len()
        + std::fs::metadata(dir.join("xrd.yaml")).expect("XRD").len();
    let base = [
        "--crossplane-version",
        "2.2.0",
        "--crds",
        crd,
        "--crds",
        "xrd.yaml",
        "xr.yaml",
        "composition.yaml",
    ];
    let budget = (size - 1).to_string();
    let mut args = base.to_vec();
    args.extend(["--crds-max-bytes", &budget]);
    let out = fn_hcl(&dir, &args);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty(), "nothing on stdout on error");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "fn-hcl: error: cannot load schemas: the schema files are {size} bytes together, more than the budget of {budget} bytes; raise it with --crds-max-bytes (or FNHCL_CRDS_MAX_BYTES) if this machine has the memory (compiled schemas take up to about 60 times their text)"
        )
    );

    let budget = size.to_string();
    let mut args = base.to_vec();
    args.extend(["--crds-max-bytes", &budget]);
    let out = fn_hcl(&dir, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(fn_hcl(&dir, &base).status.success());
}
