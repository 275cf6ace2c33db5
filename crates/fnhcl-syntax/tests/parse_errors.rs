//! Parse errors compared with hashicorp/hcl. Every `tests/parse_errors/*.hcl`
//! file is one test; its `.out` file holds
//!
//! ```text
//! hcl: <the first diagnostic hclsyntax.ParseConfig reports, as Diagnostic.Error() prints it>
//! ours: <our diagnostic, only where it deliberately differs>
//! why: <the reason for the difference, required with `ours:`>
//! ```
//!
//! The `hcl:` lines are hashicorp/hcl v2.24.0's answers (the version the Go
//! function-hcl uses), as `tests/hcl-parse-oracle` prints them:
//! `hclsyntax.ParseConfig(src, "main.hcl", hcl.Pos{Line: 1, Column: 1})`
//! and the first diagnostic's `Error()` (or `OK`). They are never rewritten
//! here, so the alignment is tested without Go (`tests/hcl_oracle.rs`
//! checks them against HCL itself). `FNHCL_BLESS=1` rewrites the `ours:`
//! lines only (and removes them where we now match HCL); a new difference
//! gets `why: TODO`, which fails until it is explained.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parse_errors");
    let trials = fnhcl_cases::discover(&dir, |p| fnhcl_cases::has_extension(p, "hcl"))
        .into_iter()
        .map(|path| Trial::test(fnhcl_cases::case_name(&path), move || check(&path)))
        .collect();
    libtest_mimic::run(&args, trials).exit();
}

/// Our first diagnostic for the file, or `OK`.
fn ours(text: &str) -> String {
    let mut sources = fnhcl_base::SourceMap::new();
    let file = sources.add("main.hcl", text);
    let (_, diags) = fnhcl_syntax::parse_file(&sources, file);
    match diags.first() {
        Some(d) => d.to_hcl_string(&sources),
        None => "OK".to_owned(),
    }
}

#[derive(Default)]
struct Expected {
    hcl: Option<String>,
    ours: Option<String>,
    why: Option<String>,
}

fn read_expected(text: &str) -> Result<Expected, String> {
    let mut e = Expected::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) = line
            .split_once(": ")
            .ok_or_else(|| format!("malformed line {line:?}"))?;
        let slot = match key {
            "hcl" => &mut e.hcl,
            "ours" => &mut e.ours,
            "why" => &mut e.why,
            _ => return Err(format!("unknown key {key:?}")),
        };
        if slot.replace(value.to_owned()).is_some() {
            return Err(format!("{key}: given twice"));
        }
    }
    Ok(e)
}

fn check(path: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let out_path = path.with_extension("out");
    let expected_text = std::fs::read_to_string(&out_path)
        .map_err(|e| format!("{}: {e} (record HCL's answer first)", out_path.display()))?;
    let expected = read_expected(&expected_text)?;
    let hcl = expected
        .hcl
        .as_deref()
        .ok_or("the .out file has no `hcl:` line")?;
    let got = ours(&text);
    if fnhcl_cases::bless_enabled() {
        let mut out = format!("hcl: {hcl}\n");
        if got != hcl {
            out.push_str(&format!("ours: {got}\n"));
            let why = expected.why.as_deref().unwrap_or("TODO");
            out.push_str(&format!("why: {why}\n"));
        }
        return Ok(fnhcl_cases::bless(&out_path, &out)?);
    }
    let want = match &expected.ours {
        Some(o) => {
            match expected.why.as_deref() {
                None | Some("TODO") => {
                    return Err("a difference from HCL needs a `why:` line".into());
                }
                Some(_) => {}
            }
            if o == hcl {
                return Err("`ours:` equals `hcl:`; remove it and its `why:`".into());
            }
            o.as_str()
        }
        None => hcl,
    };
    if got != want {
        return Err(format!("\n  want: {want}\n  got:  {got}\n  hcl:  {hcl}").into());
    }
    Ok(())
}
