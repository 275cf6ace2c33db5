//! Data-driven Value-level tests of the built-ins: every `tests/data/*.txt`
//! line is `expr => expected` in the mini language of `support/mini.rs`
//! (`=> error: <substring>` for an expected error). `FNHCL_BLESS=1`
//! rewrites the expectations with the actual results.

#[path = "support/mini.rs"]
mod mini;

use std::fmt::Write as _;
use std::path::Path;

use mini::{Expect, render, run_line, split_arrow};

fn render_result(r: &mini::Eval) -> String {
    match r {
        Ok(v) => render(v),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn function_cases() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let bless = fnhcl_cases::bless_enabled();
    let files = fnhcl_cases::discover(&dir, |p| fnhcl_cases::has_extension(p, "txt"));
    assert!(!files.is_empty(), "no case files in {}", dir.display());
    let dump_path = std::env::var_os("FNHCL_DUMP");
    let mut dump = String::new();
    let mut failures = String::new();
    let mut count = 0;
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable case file");
        let name = file
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut out = String::new();
        for (ln, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                out.push_str(line);
                out.push('\n');
                continue;
            }
            count += 1;
            let case = match run_line(trimmed) {
                Ok(c) => c,
                Err(e) => {
                    let _ = writeln!(failures, "{name}:{}: bad case: {e}\n    {trimmed}", ln + 1);
                    out.push_str(line);
                    out.push('\n');
                    continue;
                }
            };
            if dump_path.is_some() {
                let (expr, _) = split_arrow(trimmed).unwrap_or((trimmed, None));
                let _ = writeln!(dump, "{}", mini::dump_json(expr.trim(), &case.got));
            }
            let ok = match (&case.want, &case.got) {
                (Some(Expect::Value(w)), Ok(g)) => w == g,
                (Some(Expect::Error(w)), Err(g)) => g.contains(w.as_str()),
                _ => false,
            };
            if bless {
                let keep_error =
                    matches!((&case.want, &case.got), (Some(Expect::Error(_)), Err(_))) && ok;
                let (expr, _) = split_arrow(trimmed).unwrap_or((trimmed, None));
                if keep_error {
                    out.push_str(line);
                } else {
                    let _ = write!(out, "{} => {}", expr.trim_end(), render_result(&case.got));
                }
                out.push('\n');
            } else if !ok {
                let want = match &case.want {
                    Some(Expect::Value(v)) => render(v),
                    Some(Expect::Error(e)) => format!("error containing {e:?}"),
                    None => "(no expectation)".into(),
                };
                let _ = writeln!(
                    failures,
                    "{name}:{}: {trimmed}\n    want: {want}\n    got:  {}",
                    ln + 1,
                    render_result(&case.got)
                );
            }
        }
        if bless {
            fnhcl_cases::bless(&file, &out).expect("writable case file");
        }
    }
    if let Some(p) = dump_path {
        std::fs::write(p, dump).expect("writable dump file");
    }
    assert!(count > 0, "no cases ran");
    assert!(failures.is_empty(), "failing cases:\n{failures}");
}
