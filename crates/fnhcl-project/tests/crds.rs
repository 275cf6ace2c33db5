//! CRD discovery under attack (`.crd-sources.yaml` and `.crds/`): globs
//! that took the old matcher exponential time, patterns that lead out of
//! the workspace, walks over too many entries or levels, FIFOs, files over
//! the budget. Small data only: the limits are lowered where a test needs
//! them hit. Nothing here waits on a clock.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use fnhcl_project::crds::{Limits, load, load_with};

fn write(root: &Path, rel: &str, text: &str) -> PathBuf {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, text).expect("write");
    p
}

/// A CRD of kind `kind` (group example.org, v1), cluster scoped.
fn crd(kind: &str) -> String {
    let plural = format!("{}s", kind.to_lowercase());
    format!(
        "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: {plural}.example.org
spec:
  group: example.org
  names:
    kind: {kind}
    plural: {plural}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
"
    )
}

/// A repository (`.git` at its top) in a temporary directory.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    dir
}

fn kinds(set: &fnhcl_schema::SchemaSet) -> Vec<String> {
    set.kinds().map(|(_, k)| k.to_owned()).collect()
}

fn load_err(start: &Path, limits: &Limits) -> String {
    match load_with(&[], start, limits, &AtomicBool::new(false)) {
        Ok(set) => panic!(
            "expected an error, loaded {:?}",
            set.map(|s| kinds(&s)).unwrap_or_default()
        ),
        Err(e) => format!("{e:#}"),
    }
}

/// The globs that made the old recursive matcher take exponential time
/// (many `*` in a segment against a long name that almost matches; many
/// `**` against a deep path) are matched here within a step budget: the
/// load ends, with the files that match. (The step bound itself is checked
/// in `glob.rs`'s tests, counted, not timed.)
#[test]
fn pathological_globs_end() {
    let dir = repo();
    let root = dir.path();
    let long = "a".repeat(200);
    for i in 0..20 {
        write(root, &format!("crds/{long}{i}.yaml"), "kind: Other\n");
    }
    write(root, &format!("crds/{long}b.yaml"), &crd("Wide"));
    let mut deep = String::from("deep");
    for _ in 0..12 {
        deep.push_str("/d");
    }
    write(root, &format!("{deep}/x.yaml"), &crd("Deep"));
    let stars = "*a".repeat(30);
    let doubles = ["**"; 8].join("/");
    write(
        root,
        ".crd-sources.yaml",
        &format!("paths:\n  - \"crds/{stars}b.yaml\"\n  - \"deep/{doubles}/x.yaml\"\n"),
    );
    let set = load(&[], root).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Deep", "Wide"]);

    // The budget of comparisons, when lowered, is an error naming the
    // pattern.
    let limits = Limits {
        max_match_steps: 1_000,
        ..Limits::default()
    };
    let e = load_err(root, &limits);
    assert!(
        e.contains(&format!(
            "pattern \"crds/{stars}b.yaml\": matching it took more than 1000 steps"
        )),
        "{e}"
    );
}

/// More than 8 `**` or a pattern over 1,024 bytes is refused, naming it.
#[test]
fn oversized_patterns_are_refused() {
    let dir = repo();
    let root = dir.path();
    let doubles = ["**"; 9].join("/x/");
    write(
        root,
        ".crd-sources.yaml",
        &format!("paths:\n  - \"{doubles}\"\n"),
    );
    let e = load_err(root, &Limits::default());
    assert!(
        e.contains(&format!(
            "pattern \"{doubles}\": the pattern has 9 `**` segments, more than the limit of 8"
        )),
        "{e}"
    );
    let long = format!("crds/{}*.yaml", "a".repeat(1100));
    write(
        root,
        ".crd-sources.yaml",
        &format!("paths:\n  - \"{long}\"\n"),
    );
    let e = load_err(root, &Limits::default());
    assert!(e.contains("bytes, more than the limit of 1024"), "{e}");
}

/// `/**` and `..` out of the repository are refused with the pattern named,
/// before anything is walked; `..` within the repository is fine (the
/// documented `../platform/apis/*/definition.yaml`). Without a `.git`, the
/// root is the directory of `.crd-sources.yaml`.
#[test]
fn patterns_stay_under_the_workspace_root() {
    let dir = repo();
    let root = dir.path();
    let sub = root.join("compositions");
    write(root, "platform/apis/x/definition.yaml", &crd("Inside"));
    for pattern in ["/**/*.yaml", "/**", "../../**/*.yaml", "../../etc/*.yaml"] {
        write(
            &sub,
            ".crd-sources.yaml",
            &format!("paths:\n  - \"{pattern}\"\n"),
        );
        let e = load_err(&sub, &Limits::default());
        assert!(
            e.contains(&format!("pattern \"{pattern}\" leads to"))
                && e.contains("outside the workspace root"),
            "{pattern}: {e}"
        );
    }
    // An absolute path outside, to a file that exists.
    let outside = tempfile::tempdir().expect("tempdir");
    let file = write(outside.path(), "x.yaml", &crd("Outside"));
    write(
        &sub,
        ".crd-sources.yaml",
        &format!("paths:\n  - \"{}\"\n", file.display()),
    );
    let e = load_err(&sub, &Limits::default());
    assert!(e.contains("outside the workspace root"), "{e}");

    write(
        &sub,
        ".crd-sources.yaml",
        "paths:\n  - ../platform/apis/*/definition.yaml\n",
    );
    let set = load(&[], &sub).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Inside"]);

    // An absolute path inside the root is fine.
    let inside = root.join("platform/apis/x/definition.yaml");
    let inside = std::fs::canonicalize(inside).expect("canonical");
    write(
        &sub,
        ".crd-sources.yaml",
        &format!("paths:\n  - \"{}\"\n", inside.display()),
    );
    let set = load(&[], &sub).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Inside"]);

    // No repository: the file's own directory is the root.
    let plain = tempfile::tempdir().expect("tempdir");
    let sub = plain.path().join("compositions");
    write(plain.path(), "platform/x.yaml", &crd("Inside"));
    write(
        &sub,
        ".crd-sources.yaml",
        "paths:\n  - ../platform/*.yaml\n",
    );
    let e = load_err(&sub, &Limits::default());
    assert!(e.contains("outside the workspace root"), "{e}");
}

/// A symbolic link out of the root is not followed: not as the literal
/// directory of a pattern, not as `.crds`, not as a file a glob matches.
#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_refused() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "x.yaml", &crd("Outside"));

    let dir = repo();
    let root = dir.path();
    symlink(outside.path(), root.join("vendor")).expect("symlink");
    write(root, ".crd-sources.yaml", "paths:\n  - vendor/**/*.yaml\n");
    let e = load_err(root, &Limits::default());
    assert!(
        e.contains("pattern \"vendor/**/*.yaml\" leads to") && e.contains("outside"),
        "{e}"
    );

    // A linked file is read only when it stays under the root.
    write(root, "crds/in.yaml", &crd("Inside"));
    symlink(outside.path().join("x.yaml"), root.join("crds/out.yaml")).expect("symlink");
    symlink(root.join("crds/in.yaml"), root.join("crds/again.yaml")).expect("symlink");
    write(root, ".crd-sources.yaml", "paths:\n  - crds/*.yaml\n");
    let set = load(&[], root).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Inside"]);

    // `.crds` linking out of the root.
    let dir = repo();
    symlink(outside.path(), dir.path().join(".crds")).expect("symlink");
    let e = load_err(dir.path(), &Limits::default());
    assert!(e.contains(".crds leads to") && e.contains("outside"), "{e}");
}

/// The walks stop at the limits with a message naming the pattern and the
/// limit; a pattern without `**` does not descend where it cannot match, so
/// a large tree beside its files costs nothing.
#[test]
fn walks_are_bounded() {
    let dir = repo();
    let root = dir.path();
    write(root, "crds/a.yaml", &crd("Alpha"));
    for i in 0..40 {
        write(root, &format!("crds/junk/{i}/n.txt"), "x");
    }
    let limits = Limits {
        max_entries: 20,
        max_depth: 3,
        ..Limits::default()
    };
    write(root, ".crd-sources.yaml", "paths:\n  - crds/*.yaml\n");
    let set = load_with(&[], root, &limits, &AtomicBool::new(false))
        .expect("load")
        .expect("a source");
    assert_eq!(kinds(&set), ["Alpha"]);

    write(root, ".crd-sources.yaml", "paths:\n  - crds/**/*.yaml\n");
    let e = load_err(root, &limits);
    assert!(
        e.contains(
            "pattern \"crds/**/*.yaml\": more than 20 files and directories looked at under"
        ) && e.contains("narrow the pattern"),
        "{e}"
    );

    let dir = repo();
    let root = dir.path();
    write(root, "crds/1/2/3/4/5/deep.yaml", &crd("Deep"));
    write(root, ".crd-sources.yaml", "paths:\n  - \"**/*.yaml\"\n");
    let e = load_err(root, &limits);
    assert!(
        e.contains("pattern \"**/*.yaml\": directories under")
            && e.contains("are nested more than 3 levels deep"),
        "{e}"
    );

    // `.crds/` has the same bounds.
    let dir = repo();
    let root = dir.path();
    write(root, ".crds/1/2/3/4/5/deep.yaml", &crd("Deep"));
    let e = load_err(root, &limits);
    assert!(e.contains("are nested more than 3 levels deep"), "{e}");
    let set = load(&[], root).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Deep"]);
}

/// A FIFO named like a CRD is never opened (opening it would block the
/// loading thread for ever): a glob or `.crds/` skips it, `--crds` names it.
#[cfg(unix)]
#[test]
fn fifos_are_not_opened() {
    let dir = repo();
    let root = dir.path();
    write(root, "crds/b.yaml", &crd("Beta"));
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("crds/a.yaml"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available: skipped");
        return;
    }
    write(root, ".crd-sources.yaml", "paths:\n  - crds/*.yaml\n");
    let set = load(&[], root).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Beta"]);

    std::fs::remove_file(root.join(".crd-sources.yaml")).expect("rm");
    std::fs::rename(root.join("crds"), root.join(".crds")).expect("mv");
    let set = load(&[], root).expect("load").expect("a source");
    assert_eq!(kinds(&set), ["Beta"]);

    let e = load_with(
        &[root.join(".crds")],
        root,
        &Limits::default(),
        &AtomicBool::new(false),
    )
    .expect_err("a FIFO given");
    assert!(
        format!("{e:#}").contains("a.yaml\": not a regular file"),
        "{e:#}"
    );
}

/// The files' sizes are added up before any is read: over the budget is
/// an error naming it and the flag that raises it. Shown with sparse files
/// of 6 GiB (never read: reading them would take minutes and gigabytes)
/// and, for the budget, small files and a small budget.
#[test]
fn the_budget_is_checked_before_reading() {
    let dir = repo();
    let root = dir.path();
    let big = root.join(".crds/big.yaml");
    std::fs::create_dir_all(big.parent().expect("parent")).expect("mkdir");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(6 << 30))
        .expect("sparse file");
    let e = load_err(root, &Limits::default());
    assert!(
        e.contains(
            "big.yaml\" is 6442450944 bytes, more than the limit of 8 MiB for one schema file"
        ),
        "{e}"
    );
    std::fs::remove_file(&big).expect("rm");

    let a = write(root, ".crds/a.yaml", &crd("Alpha"));
    let b = write(root, ".crds/b.yaml", &crd("Beta"));
    let total = std::fs::metadata(&a).expect("a").len() + std::fs::metadata(&b).expect("b").len();
    let limits = Limits {
        max_bytes: total - 1,
        ..Limits::default()
    };
    let e = load_err(root, &limits);
    assert!(
        e.contains(&format!(
            "the schema files are {total} bytes together, more than the budget of {} bytes; raise it with --crds-max-bytes",
            total - 1
        )),
        "{e}"
    );
    // The same for `--crds`.
    let e = load_with(
        &[root.join(".crds")],
        root,
        &limits,
        &AtomicBool::new(false),
    )
    .expect_err("over the budget");
    assert!(format!("{e:#}").contains("--crds-max-bytes"), "{e:#}");

    let limits = Limits {
        max_bytes: total,
        ..Limits::default()
    };
    let set = load_with(&[], root, &limits, &AtomicBool::new(false))
        .expect("load")
        .expect("a source");
    assert_eq!(kinds(&set), ["Alpha", "Beta"]);
}

/// A cancelled load stops with `Cancelled`.
#[test]
fn a_cancelled_load_stops() {
    let dir = repo();
    write(dir.path(), ".crds/a.yaml", &crd("Alpha"));
    let e = load_with(&[], dir.path(), &Limits::default(), &AtomicBool::new(true))
        .expect_err("cancelled");
    assert!(
        e.downcast_ref::<fnhcl_project::crds::Cancelled>().is_some(),
        "{e:#}"
    );
}
