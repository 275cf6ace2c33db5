//! The render conformance suite: every case under `tests/render/upstream`
//! (the Go function-hcl's examples, vendored untouched) and
//! `tests/render/cases` (ours) and `examples/` is rendered as `fn-hcl render -r -c` renders
//! it, with `fnhcl_crossplane::run` as the function, and compared with its
//! expectation. `FNHCL_BLESS=1` rewrites the expectations of our own cases
//! (never the upstream ones).

use std::path::PathBuf;

use fnhcl_testkit::{CaseOptions, CaseOutcome, discover_cases, run_case};
use libtest_mimic::{Arguments, Failed, Trial};

fn trial(suite: &str, dir: PathBuf, update: bool) -> Trial {
    let name = format!("{suite}/{}", fnhcl_cases::case_name(&dir));
    Trial::test(name, move || {
        let opts = CaseOptions {
            update,
            ..CaseOptions::default()
        };
        match run_case(&dir, &fnhcl_crossplane::run, &opts) {
            CaseOutcome::Passed | CaseOutcome::Updated => Ok(()),
            CaseOutcome::Failed(why) => Err(Failed::from(why)),
        }
    })
}

fn main() {
    let args = Arguments::from_args();
    let bless = fnhcl_cases::bless_enabled();
    let repo = fnhcl_cases::workspace_root();
    let root = repo.join("tests/render");
    let mut trials = Vec::new();
    let upstream = discover_cases(&root.join("upstream"));
    assert!(
        upstream.len() >= 10,
        "expected the 10 upstream examples under {}",
        root.display()
    );
    for dir in upstream {
        trials.push(trial("upstream", dir, false));
    }
    for dir in discover_cases(&root.join("cases")) {
        trials.push(trial("cases", dir, bless));
    }
    // The examples are cases too: what their READMEs show is checked.
    for dir in discover_cases(&repo.join("examples")) {
        trials.push(trial("examples", dir, bless));
    }
    libtest_mimic::run(&args, trials).exit();
}
