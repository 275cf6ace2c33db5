//! Records build facts for `fn-hcl version`: the git commit (from
//! `FNHCL_GIT_COMMIT` if set, else `git rev-parse`, else "unknown") and the
//! target triple.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=FNHCL_GIT_COMMIT");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=FNHCL_TARGET={target}");

    let commit = std::env::var("FNHCL_GIT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(git_commit)
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=FNHCL_GIT_COMMIT={commit}");
}

fn git_commit() -> Option<String> {
    let out = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .output()
        .ok()?;
    if out.status.success() {
        // Re-run when HEAD moves (a checkout or a commit on the current branch).
        let git_dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        println!("cargo:rerun-if-changed={git_dir}/HEAD");
        if let Ok(head) = std::fs::read_to_string(format!("{git_dir}/HEAD"))
            && let Some(r) = head.strip_prefix("ref: ")
        {
            println!("cargo:rerun-if-changed={git_dir}/{}", r.trim());
        }
    }
    let out = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let commit = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    (!commit.is_empty()).then_some(commit)
}
