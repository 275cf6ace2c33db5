//! The real `crossplane render` against `fn-hcl serve`: every render case
//! of `tests/render/` rendered twice, by Crossplane's own CLI (its
//! Development runtime calling `fn-hcl serve --insecure` on loopback over
//! gRPC) and by `fn-hcl render` at the same `--crossplane-version`, and
//! the two outputs compared semantically (`fnhcl_testkit::compare`, the
//! rules of `render_compare.py`). Where the CLI fails, `fn-hcl render`
//! must fail with the same message.
//!
//! The CLIs and the other functions are Go programs installed from the Go
//! module proxy by `tests/crossplane/run.sh`, which runs this test with
//! `--ignored` and tells it where they are:
//!
//! - `FNHCL_CROSSPLANE_CLIS`: `VERSION=PATH` pairs separated by `,`, the
//!   Crossplane release each CLI is (`1.20=…/crank-1.20.7`);
//! - `FNHCL_FUNCTION_AUTO_READY`: function-auto-ready's binary, served on
//!   loopback for the steps that use it.
//!
//! Operation cases (`operation.yaml`, D39) are rendered by `crossplane
//! alpha render op` of the 2.x CLI.
//!
//! Without them the test fails (it never passes by running nothing).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fnhcl_render::yaml;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_fn-hcl");

/// Cases the real CLI cannot render, and why. Each is still checked
/// against its expectations by `fnhcl-testkit`'s `render_cases`.
const NOT_FOR_THE_CLI: &[(&str, &str)] = &[
    (
        "foreign-step-rejected",
        "tests fn-hcl render's own refusal of a function it cannot run in-process (--fail-on-foreign)",
    ),
    (
        "foreign-step-skipped",
        "tests fn-hcl render's own skipping of a function it cannot run in-process; the CLI would run function-go-templating in Docker",
    ),
    (
        "evaluation-error-strict",
        "tests fn-hcl render's own --strict, which fails on a block discarded by an evaluation error; crossplane render has no such flag",
    ),
    (
        "requirement-namespaced",
        "D36: fn-hcl render answers a selector's namespace as Crossplane 2 does; crossplane render 2.2 ignores it (its render.go matches apiVersion, kind and name or labels only), so it would hand over same-named objects of other namespaces",
    ),
];

/// The flags only `fn-hcl render` has, each with whether it takes a value.
const OURS_ONLY: &[(&str, bool)] = &[
    ("--crossplane-version", true),
    ("--fail-on-foreign", false),
    ("--strict", false),
    ("--function-name", true),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind an ephemeral port")
        .local_addr()
        .expect("local address")
        .port()
}

/// A function server on loopback, killed when dropped.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(program: &str, args: &[&str], what: &str) -> Server {
        let port = free_port();
        let address = format!("127.0.0.1:{port}");
        let mut full: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
        full.push(format!("--address={address}"));
        let child = Command::new(program)
            .args(&full)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {what} ({program}): {e}"));
        let mut server = Server { child, address };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(&server.address).is_err() {
            assert!(
                server.child.try_wait().expect("server status").is_none(),
                "{what} exited before listening on {}",
                server.address
            );
            assert!(
                Instant::now() < deadline,
                "{what} not listening on {}",
                server.address
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Which function a pipeline step calls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Hcl,
    AutoReady,
    Other,
}

fn kind_of_package(package: &str) -> Kind {
    let repo = package.split(':').next().unwrap_or(package);
    if repo.ends_with("/function-hcl") {
        Kind::Hcl
    } else if repo.ends_with("/function-auto-ready") {
        Kind::AutoReady
    } else {
        Kind::Other
    }
}

/// The functions a composition's steps name, with their packages: from
/// the case's `functions.yaml` when it has one, else made up from the
/// step (an `HclInput` is function-hcl, a name ending in `auto-ready`
/// function-auto-ready), as `fn-hcl render` decides without one.
fn functions(composition: &Value, given: Option<&[Value]>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let steps = composition
        .pointer("/spec/pipeline")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for step in steps {
        let Some(name) = step.pointer("/functionRef/name").and_then(Value::as_str) else {
            continue;
        };
        let from_file = given.and_then(|fs| {
            fs.iter()
                .find(|f| f.pointer("/metadata/name").and_then(Value::as_str) == Some(name))
                .and_then(|f| f.pointer("/spec/package").and_then(Value::as_str))
                .map(str::to_owned)
        });
        let package = from_file.unwrap_or_else(|| {
            let hcl_input = step.pointer("/input/kind").and_then(Value::as_str) == Some("HclInput")
                || step
                    .pointer("/input/apiVersion")
                    .and_then(Value::as_str)
                    .is_some_and(|a| a.starts_with("function-hcl"));
            if hcl_input {
                "xpkg.crossplane.io/crossplane-contrib/function-hcl:v0.2.0".to_owned()
            } else if name.ends_with("auto-ready") {
                "xpkg.crossplane.io/crossplane-contrib/function-auto-ready:v0.7.0".to_owned()
            } else {
                format!("xpkg.crossplane.io/unknown/{name}:v0.0.0")
            }
        });
        out.insert(name.to_owned(), package);
    }
    out
}

/// The Function manifests for the CLI: each runs in the Development
/// runtime at the server for its kind.
fn function_manifests(
    functions: &BTreeMap<String, String>,
    targets: &BTreeMap<&str, String>,
) -> Result<String, String> {
    let mut docs = Vec::new();
    for (name, package) in functions {
        let kind = kind_of_package(package);
        let target = match kind {
            Kind::Hcl => &targets["hcl"],
            Kind::AutoReady => &targets["auto-ready"],
            Kind::Other => return Err(format!("step function {name} ({package}) is not run here")),
        };
        docs.push(json!({
            "apiVersion": "pkg.crossplane.io/v1beta1",
            "kind": "Function",
            "metadata": {
                "name": name,
                "annotations": {
                    "render.crossplane.io/runtime": "Development",
                    "render.crossplane.io/runtime-development-target": target,
                },
            },
            "spec": {"package": package},
        }));
    }
    yaml::to_yaml_stream(&docs).map_err(|e| e.to_string())
}

/// A case's command line for `crossplane render` and for `fn-hcl render`
/// (without the program name), the composition and functions paths
/// replaced by the staged ones: the CLI's without the flags only
/// `fn-hcl render` has, ours with the CLI's version.
fn command_lines(
    case: &Path,
    composition: &Path,
    functions: &Path,
    version: &str,
) -> Result<CommandLines, String> {
    let argv = fnhcl_testkit::case::case_argv(case)?;
    let mut cli: Vec<String> = Vec::new();
    let mut ours_only: Vec<String> = Vec::new();
    let mut crds: Vec<PathBuf> = Vec::new();
    let mut it = argv.into_iter().skip(1);
    while let Some(a) = it.next() {
        let flag = a.split('=').next().unwrap_or(&a).to_owned();
        if flag == "--crds" {
            let v = match a.split_once('=') {
                Some((_, v)) => v.to_owned(),
                None => it.next().unwrap_or_default(),
            };
            crds.push(case.join(v));
            continue;
        }
        if let Some((_, takes_value)) = OURS_ONLY.iter().find(|(f, _)| *f == flag) {
            let value = (*takes_value && !a.contains('=')).then(|| it.next().unwrap_or_default());
            if flag != "--crossplane-version" {
                ours_only.push(a);
                ours_only.extend(value);
            }
            continue;
        }
        match a.as_str() {
            // case_argv names them literally; the staged ones replace them.
            "composition.yaml" | "functions.yaml" => {}
            "operation.yaml" => cli.extend([
                composition.display().to_string(),
                functions.display().to_string(),
            ]),
            "xr.yaml" => cli.extend([
                a,
                composition.display().to_string(),
                functions.display().to_string(),
            ]),
            _ => cli.push(a),
        }
    }
    if !crds.is_empty() {
        // The CLI has no --crds: both get the CRDs as the OpenAPI
        // documents its -s reads.
        let dir = schemas_dir(&crds, &functions.with_file_name("schemas"))?;
        cli.extend(["--required-schemas".to_owned(), dir.display().to_string()]);
    }
    let mut ours = cli.clone();
    ours.extend(ours_only);
    ours.extend(["--crossplane-version".to_owned(), version.to_owned()]);
    Ok(CommandLines { cli, ours, crds })
}

/// What [`command_lines`] makes of a case.
struct CommandLines {
    cli: Vec<String>,
    ours: Vec<String>,
    /// The case's `--crds` (answering schema requirements on both sides).
    crds: Vec<PathBuf>,
}

/// Writes the schemas of the CRDs and XRDs in `paths` (files or
/// directories of YAML) into `dir` as OpenAPI v3 documents, one per
/// group/version, as `kubectl get --raw /openapi/v3/<group>/<version>`
/// prints them (only what a schema reader needs: `components.schemas`
/// entries with `x-kubernetes-group-version-kind`).
fn schemas_dir(paths: &[PathBuf], dir: &Path) -> Result<PathBuf, String> {
    let mut docs: BTreeMap<(String, String), serde_json::Map<String, Value>> = BTreeMap::new();
    for path in paths {
        let files: Vec<PathBuf> = if path.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .collect();
            v.sort();
            v
        } else {
            vec![path.clone()]
        };
        for file in files {
            let text =
                std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            let stream =
                yaml::load_stream(&text).map_err(|e| format!("{}: {e}", file.display()))?;
            for d in stream {
                let group = d
                    .pointer("/spec/group")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let kind = d
                    .pointer("/spec/names/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let versions = d.pointer("/spec/versions").and_then(Value::as_array);
                for v in versions.into_iter().flatten() {
                    let (Some(version), Some(schema)) = (
                        v.get("name").and_then(Value::as_str),
                        v.pointer("/schema/openAPIV3Schema"),
                    ) else {
                        continue;
                    };
                    let mut schema = schema.clone();
                    schema["x-kubernetes-group-version-kind"] =
                        json!([{"group": group, "version": version, "kind": kind}]);
                    let reversed: Vec<&str> = group.split('.').rev().collect();
                    let key = format!("{}.{version}.{kind}", reversed.join("."));
                    docs.entry((group.to_owned(), version.to_owned()))
                        .or_default()
                        .insert(key, schema);
                }
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    for ((group, version), schemas) in docs {
        let doc = json!({"openapi": "3.0.0", "components": {"schemas": schemas}});
        let name = format!("{group}_{version}.json");
        std::fs::write(dir.join(name), doc.to_string()).map_err(|e| e.to_string())?;
    }
    Ok(dir.to_path_buf())
}

/// The case's pinned Crossplane major version (`--crossplane-version` in
/// its `args`), if any.
fn pinned_major(case: &Path) -> Option<String> {
    let argv = fnhcl_testkit::case::case_argv(case).ok()?;
    let i = argv.iter().position(|a| a == "--crossplane-version")?;
    let v = argv.get(i + 1)?.trim_start_matches('v');
    Some(v.split('.').next()?.to_owned())
}

struct Ran {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn run(program: &str, args: &[String], dir: &Path) -> Ran {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
    Ran {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The first `…: error: ` line of a failed render, without the program.
fn error_line(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.split_once(": error: ").map(|(_, m)| m.trim().to_owned()))
        .unwrap_or_else(|| stderr.trim().to_owned())
}

/// A rendered stream with an Operation's `status.appliedResourceRefs` in
/// one order (the CLI writes them in Go's map order).
fn applied_sorted(stream: &str) -> Result<Vec<Value>, String> {
    let mut docs = yaml::load_stream(stream).map_err(|e| format!("cannot parse output: {e}"))?;
    for d in &mut docs {
        if let Some(Value::Array(refs)) = d.pointer_mut("/status/appliedResourceRefs") {
            refs.sort_by_key(|r| r.to_string());
        }
    }
    Ok(docs)
}

/// Compares one case under one CLI; `Err` describes the difference.
fn compare_case(
    case: &Path,
    stage: &Path,
    cli: (&str, &str),
    targets: &BTreeMap<&str, String>,
) -> Result<(), String> {
    let (version, cli_path) = cli;
    let operation = case.join(fnhcl_testkit::case::OPERATION_FILE).is_file();
    let composition_path = case.join("composition.yaml");
    let composition_text = if operation {
        fnhcl_testkit::case::operation_with_program(case)?.text
    } else if composition_path.is_file() {
        std::fs::read_to_string(&composition_path).map_err(|e| e.to_string())?
    } else {
        let xr = std::fs::read_to_string(case.join("xr.yaml")).map_err(|e| e.to_string())?;
        fnhcl_testkit::case::synthesized_composition(case, &xr)?.text
    };
    let composition = yaml::load_first(&composition_text)
        .map_err(|e| format!("composition: {e}"))?
        .unwrap_or(Value::Null);
    let given = match std::fs::read_to_string(case.join("functions.yaml")) {
        Ok(t) => Some(yaml::load_stream(&t).map_err(|e| format!("functions.yaml: {e}"))?),
        Err(_) => None,
    };
    // An operation's steps: its own, or its template's.
    let composition = match composition.pointer("/spec/operationTemplate") {
        Some(t) => t.clone(),
        None => composition,
    };
    let fns = functions(&composition, given.as_deref());
    let staged_composition = stage.join("composition.yaml");
    let staged_functions = stage.join("functions.yaml");
    std::fs::write(&staged_composition, &composition_text).map_err(|e| e.to_string())?;
    std::fs::write(&staged_functions, function_manifests(&fns, targets)?)
        .map_err(|e| e.to_string())?;
    let lines = command_lines(case, &staged_composition, &staged_functions, version)?;
    let mut cli_argv = if operation {
        vec!["alpha".to_owned(), "render".to_owned(), "op".to_owned()]
    } else {
        vec!["render".to_owned()]
    };
    cli_argv.extend(lines.cli.iter().cloned());
    let mut our_argv = vec!["render".to_owned()];
    our_argv.extend(lines.ours);
    let theirs = run(cli_path, &cli_argv, case);
    let ours = run(BIN, &our_argv, case);
    match (theirs.ok, ours.ok) {
        (true, true) => {
            let opts = fnhcl_testkit::CompareOptions {
                ignore_normal_results: true,
                ..Default::default()
            };
            // The CLI lists an operation's applied objects in map order.
            let m = fnhcl_testkit::compare_documents(
                &applied_sorted(&theirs.stdout)?,
                &applied_sorted(&ours.stdout)?,
                &opts,
            )?;
            if m.is_empty() {
                if lines.crds.is_empty() {
                    Ok(())
                } else {
                    validate(case, stage, cli_path, &lines.cli, &lines.crds, &ours.stdout)
                }
            } else {
                Err(format!(
                    "{}\n--- crossplane render\n{}--- fn-hcl render\n{}",
                    fnhcl_testkit::compare::format_mismatches(&m),
                    theirs.stdout,
                    ours.stdout
                ))
            }
        }
        (false, false) => {
            let (t, o) = (error_line(&theirs.stderr), error_line(&ours.stderr));
            if t == o {
                Ok(())
            } else {
                Err(format!(
                    "both failed, differently:\n  crossplane: {t}\n  fn-hcl:     {o}"
                ))
            }
        }
        (true, false) => Err(format!(
            "crossplane render succeeded, fn-hcl render failed: {}",
            ours.stderr.trim()
        )),
        (false, true) => Err(format!(
            "fn-hcl render succeeded, crossplane render failed: {}",
            theirs.stderr.trim()
        )),
    }
}

/// Checks our schema findings (the warnings `fn-hcl render` printed as
/// Results) against `crossplane beta validate` of the CLI's output (with
/// `-x`, so the XR has its spec) with the same CRDs: the same fields of
/// the same kinds, no more and no fewer.
fn validate(
    case: &Path,
    stage: &Path,
    cli_path: &str,
    cli_args: &[String],
    crds: &[PathBuf],
    our_output: &str,
) -> Result<(), String> {
    let mut argv = vec!["render".to_owned(), "-x".to_owned()];
    argv.extend(cli_args.iter().cloned());
    let full = run(cli_path, &argv, case);
    if !full.ok {
        return Err(format!(
            "crossplane render -x failed: {}",
            full.stderr.trim()
        ));
    }
    let rendered = stage.join("rendered.yaml");
    std::fs::write(&rendered, &full.stdout).map_err(|e| e.to_string())?;
    // validate downloads the Crossplane image's own schemas unless its
    // cache has them: an empty entry makes it validate offline, against
    // the given CRDs only.
    let cache = stage.join("validate-cache");
    let image = "xpkg.crossplane.io/crossplane/crossplane:offline";
    std::fs::create_dir_all(cache.join(image.replace(':', "@"))).map_err(|e| e.to_string())?;
    let extensions: Vec<String> = crds.iter().map(|p| p.display().to_string()).collect();
    let checked = run(
        cli_path,
        &[
            "beta".to_owned(),
            "validate".to_owned(),
            extensions.join(","),
            rendered.display().to_string(),
            format!("--cache-dir={}", cache.display()),
            format!("--crossplane-image={image}"),
        ],
        case,
    );
    // `[x] schema validation error GROUP/VERSION, Kind=KIND, NAME : PATH: …`
    let theirs: std::collections::BTreeSet<(String, String)> = checked
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("[x] schema validation error "))
        .filter_map(|l| {
            let (gv, rest) = l.split_once(", Kind=")?;
            let (kind, rest) = rest.split_once(", ")?;
            let (_, rest) = rest.split_once(" : ")?;
            let path = rest.split(':').next()?.trim();
            Some((
                format!("{} {kind}", gv.trim_start_matches('/')),
                path.to_owned(),
            ))
        })
        .collect();
    // `main.hcl:L,C-C: PATH: … (resource "NAME", API_VERSION KIND)`
    let ours: std::collections::BTreeSet<(String, String)> = yaml::load_stream(our_output)
        .map_err(|e| e.to_string())?
        .iter()
        .filter(|d| d.get("kind").and_then(Value::as_str) == Some("Result"))
        .filter_map(|d| d.get("message").and_then(Value::as_str))
        .filter_map(|m| {
            let (_, rest) = m.split_once(": ")?;
            let (path, _) = rest.split_once(": ")?;
            let (_, what) = m.rsplit_once(", ")?;
            Some((what.trim_end_matches(')').to_owned(), path.to_owned()))
        })
        .collect();
    if theirs.is_empty() && !checked.ok {
        return Err(format!(
            "crossplane beta validate failed: {}{}",
            checked.stdout, checked.stderr
        ));
    }
    if theirs == ours {
        eprintln!(
            "{}: crossplane beta validate: the same {} schema findings",
            case.display(),
            ours.len()
        );
        Ok(())
    } else {
        Err(format!(
            "schema findings differ from crossplane beta validate:\n  only validate: {:?}\n  only ours: {:?}\n{}",
            theirs.difference(&ours).collect::<Vec<_>>(),
            ours.difference(&theirs).collect::<Vec<_>>(),
            checked.stdout
        ))
    }
}

#[test]
#[ignore = "needs the Crossplane CLI and function-auto-ready from the Go module proxy: run tests/crossplane/run.sh"]
fn crossplane_render_agrees_with_fn_hcl_render() {
    let clis_var = std::env::var("FNHCL_CROSSPLANE_CLIS")
        .expect("FNHCL_CROSSPLANE_CLIS is not set: run tests/crossplane/run.sh");
    let clis: Vec<(String, String)> = clis_var
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|p| {
            let (v, path) = p
                .split_once('=')
                .expect("FNHCL_CROSSPLANE_CLIS: VERSION=PATH pairs");
            (v.to_owned(), path.to_owned())
        })
        .collect();
    assert!(!clis.is_empty(), "FNHCL_CROSSPLANE_CLIS names no CLI");
    let auto_ready = std::env::var("FNHCL_FUNCTION_AUTO_READY")
        .expect("FNHCL_FUNCTION_AUTO_READY is not set: run tests/crossplane/run.sh");

    let hcl = Server::start(
        BIN,
        &["serve", "--insecure", "--metrics-address", ""],
        "fn-hcl serve",
    );
    let ready = Server::start(&auto_ready, &["--insecure"], "function-auto-ready");
    let targets: BTreeMap<&str, String> = [
        ("hcl", hcl.address.clone()),
        ("auto-ready", ready.address.clone()),
    ]
    .into_iter()
    .collect();

    let root = workspace().join("tests/render");
    let mut cases = fnhcl_testkit::discover_cases(&root);
    cases.extend(fnhcl_testkit::discover_cases(&workspace().join("examples")));
    assert!(cases.len() > 10, "found only {} cases", cases.len());
    let stage = tempfile::tempdir().expect("temporary directory");
    let mut compared = 0;
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        if let Some((_, why)) = NOT_FOR_THE_CLI.iter().find(|(n, _)| *n == name) {
            eprintln!("{name}: not for the CLI: {why}");
            continue;
        }
        // Operations exist since Crossplane 2.0.
        let pinned = if case.join(fnhcl_testkit::case::OPERATION_FILE).is_file() {
            Some("2".to_owned())
        } else {
            pinned_major(case)
        };
        for (version, path) in &clis {
            let major = version.split('.').next().unwrap_or(version);
            if pinned.as_deref().is_some_and(|p| p != major) {
                continue;
            }
            let dir = stage.path().join(format!("{name}@{version}"));
            std::fs::create_dir_all(&dir).expect("stage directory");
            match compare_case(case, &dir, (version, path), &targets) {
                Ok(()) => {
                    compared += 1;
                    eprintln!("{name} @ crossplane {version}: same");
                }
                Err(e) => failures.push(format!("{name} @ crossplane {version}: {e}")),
            }
        }
    }
    eprintln!("{compared} renders the same, {} different", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {} renders differ from crossplane render:\n\n{}",
        failures.len(),
        compared + failures.len(),
        failures.join("\n\n")
    );
}
