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
