//! Data-driven analyser cases. Each case is either `tests/cases/NAME.hcl`
//! (one file, named `main.hcl` in findings) with its expectation in
//! `tests/cases/NAME.expected`, or a directory `tests/cases/NAME/` with
//! several `*.hcl` files and an `expected` file. The expectation lists one
//! finding per line: `CODE severity file:range: summary; detail`. Valid
//! programs have an empty expectation. `FNHCL_BLESS=1` rewrites them. A
//! directory case may hold an `xrd.json` (the composite's XRD), a
//! `requirements` file (the Composition step's own requirement names, one
//! a line), and an
//! `input.txtar` bundle instead of `*.hcl` files (programs with module
//! directories, `modules/x/main.hcl`), and a `crds` file listing CRD files
//! (one path per line, relative to the case) that resource bodies are
//! checked against.

use std::path::Path;
use std::sync::Arc;

use fnhcl_base::{Severity, SourceMap};
use fnhcl_cases::has_extension;
use libtest_mimic::{Arguments, Failed, Trial};

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let cases = fnhcl_cases::discover(&dir, |p| p.is_dir() || has_extension(p, "hcl"));
    let mut trials: Vec<Trial> = cases
        .into_iter()
        .map(|p| Trial::test(fnhcl_cases::case_name(&p), move || run_case(&p)))
        .collect();
    trials.push(Trial::test("docs-list-every-code", docs_list_every_code));
    trials.push(Trial::test(
        "other-corpora-codes-set-at-creation",
        other_corpora_codes_set_at_creation,
    ));
    libtest_mimic::run(&args, trials).exit();
}

fn run_case(path: &Path) -> Result<(), Failed> {
    let mut sources = SourceMap::new();
    let mut options = fnhcl_analyze::Options::default();
    let expected_path = if path.is_dir() {
        let files = fnhcl_cases::discover(path, |p| has_extension(p, "hcl"));
        // Programs with module directories: one txtar bundle.
        if let Ok(text) = std::fs::read_to_string(path.join("input.txtar")) {
            fnhcl_base::txtar::load_into(&mut sources, &text).map_err(|e| e.to_string())?;
        }
        for f in files {
            let text = std::fs::read_to_string(&f).map_err(|e| e.to_string())?;
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            sources.add(name, text);
        }
        if let Ok(text) = std::fs::read_to_string(path.join("xrd.json")) {
            let xrd: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            options.composite_schema = fnhcl_analyze::composite_schema(&xrd, None);
            options.namespaced_composite = fnhcl_analyze::namespaced_composite(&xrd);
            if options.composite_schema.is_none() {
                return Err("xrd.json is not a CompositeResourceDefinition".into());
            }
        }
        if let Ok(list) = std::fs::read_to_string(path.join("requirements")) {
            options.bootstrap_requirements = list
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect();
        }
        if let Ok(list) = std::fs::read_to_string(path.join("crds")) {
            let mut set = fnhcl_schema::SchemaSet::new();
            for file in list.lines().map(str::trim).filter(|l| !l.is_empty()) {
                let text =
                    std::fs::read_to_string(path.join(file)).map_err(|e| format!("{file}: {e}"))?;
                set.load_text(file, &text).map_err(|e| e.to_string())?;
            }
            options.schemas = Some(Arc::new(set));
        }
        path.join("expected")
    } else {
        let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        sources.add("main.hcl", text);
        path.with_extension("expected")
    };
    let sources = Arc::new(sources);
    codes_set_at_creation(&sources, &options)?;
    let findings = fnhcl_analyze::analyze_with(&sources, &options);
    let mut actual = String::new();
    for d in &findings {
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let range = d
            .primary
            .map_or_else(|| "<nil>".to_owned(), |s| sources.range_text(s));
        // Syntax error details are the parser's wording (another crate's
        // concern, tested there); the code, range and summary are ours.
        if d.code == Some(fnhcl_analyze::codes::SYNTAX) {
            actual.push_str(&format!("{} {sev} {range}: {}\n", codes_of(d), d.summary));
        } else {
            actual.push_str(&format!(
                "{} {sev} {range}: {}; {}\n",
                codes_of(d),
                d.summary,
                d.detail
            ));
        }
        if d.code.is_none() {
            return Err(format!("finding without a code: {actual}").into());
        }
    }
    Ok(fnhcl_cases::check_or_bless(&expected_path, &actual)?)
}

/// Every finding of the program carries the code its check gave it when it
/// created the diagnostic: none falls back to E0100 for want of one.
fn codes_set_at_creation(
    sources: &Arc<SourceMap>,
    options: &fnhcl_analyze::Options,
) -> Result<(), String> {
    let missing = fnhcl_analyze::created_without_code(sources, options);
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = missing
        .iter()
        .map(|d| format!("  {}; {}", d.summary, d.detail))
        .collect();
    Err(format!(
        "findings created without a code (give them one where they are created):\n{}",
        list.join("\n")
    ))
}

/// [`codes_set_at_creation`] over the programs of the evaluator's cases and
/// the parser's error cases, whose errors cover most checks of the parser
/// and of the evaluator's `compile`: each file alone, and a case's files
/// together.
fn other_corpora_codes_set_at_creation() -> Result<(), Failed> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut programs = 0;
    for corpus in [
        "crates/fnhcl-eval/tests/cases",
        "crates/fnhcl-syntax/tests/parse_errors",
    ] {
        let mut dirs = vec![root.join(corpus)];
        while let Some(dir) = dirs.pop() {
            let entries = fnhcl_cases::discover(&dir, |_| true);
            let mut together = SourceMap::new();
            for p in entries {
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let name = p.file_name().unwrap_or_default().to_string_lossy();
                let Some(kind) = p.extension().and_then(|x| x.to_str()) else {
                    continue;
                };
                let mut alone = SourceMap::new();
                match kind {
                    "hcl" => {
                        let text = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
                        alone.add("main.hcl", text.clone());
                        together.add(name.into_owned(), text);
                    }
                    "txtar" => {
                        let text = std::fs::read_to_string(&p).map_err(|e| e.to_string())?;
                        fnhcl_base::txtar::load_into(&mut alone, &text)
                            .map_err(|e| format!("{}: {e}", p.display()))?;
                    }
                    _ => continue,
                }
                programs += 1;
                codes_set_at_creation(&Arc::new(alone), &Default::default())
                    .map_err(|e| format!("{}: {e}", p.display()))?;
            }
            if together.files().count() > 1 {
                codes_set_at_creation(&Arc::new(together), &Default::default())
                    .map_err(|e| format!("{}: {e}", dir.display()))?;
            }
        }
    }
    if programs < 100 {
        return Err(format!("only {programs} programs found").into());
    }
    Ok(())
}

/// `docs/authoring.md` has a table row `| CODE | name | severity |` for
/// every code, and no row for a code that does not exist.
fn docs_list_every_code() -> Result<(), Failed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/authoring.md");
    let doc = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    for (code, name) in fnhcl_analyze::codes::ALL {
        let severity = if code.starts_with('E') {
            "error"
        } else {
            "warning"
        };
        let row = format!("| {code} | {name} | {severity} |");
        if !doc.contains(&row) {
            return Err(format!("docs/authoring.md lacks the row `{row}`").into());
        }
    }
    for line in doc.lines() {
        if let Some(rest) = line.strip_prefix("| ")
            && let Some(code) = rest.split(' ').next()
            && code.len() == 5
            && (code.starts_with('E') || code.starts_with('W'))
            && code[1..].chars().all(|c| c.is_ascii_digit())
            && !fnhcl_analyze::codes::ALL.iter().any(|(c, _)| *c == code)
        {
            return Err(format!("docs/authoring.md documents unknown code {code}").into());
        }
    }
    Ok(())
}

fn codes_of(d: &fnhcl_base::Diagnostic) -> &'static str {
    d.code.unwrap_or("-")
}
