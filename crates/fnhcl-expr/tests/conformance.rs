//! Runs the Terraform function/expression conformance vectors
//! (`tests/data/public.jsonl`, a copy of
//! `shared/conformance/functions/public.jsonl`) and compares as that
//! README describes: values as JSON with numbers by value, type strings
//! exactly, errors by presence (`error_contains` is reported, not
//! enforced), the sensitive mark.
//!
//! Rules:
//! - every expression vector (ids `op-*`, `cond-*`, `template-*`,
//!   `heredoc-*`, `splat-*`, `for-*`, `index-access-*`, `literal-*`) must
//!   pass;
//! - function vectors must pass unless listed in
//!   `tests/data/known_failures.txt` (`<id> <reason>` per line); a listed
//!   vector that passes fails the test, so the list stays honest.
//!
//! `FNHCL_BLESS=1` rewrites the known-failures file from the current
//! results (keeping existing reasons).

use std::collections::BTreeMap;
use std::path::PathBuf;

use fnhcl_base::SourceMap;
use fnhcl_expr::{EvalContext, Limits, NoVariables};
use fnhcl_value::json::from_json_text;
use fnhcl_value::{Number, Value};

const EXPRESSION_PREFIXES: &[&str] = &[
    "op-",
    "cond-",
    "template-",
    "heredoc-",
    "splat-",
    "for-",
    "index-access-",
    "literal-",
];

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// A vector: a JSON object read with exact numbers.
type Object = fnhcl_value::ObjMap;

fn field<'a>(obj: &'a Object, name: &str) -> Option<&'a Value> {
    obj.get(name)
}

fn tolerant(id: &str) -> bool {
    ["log-", "pow-", "range-"].iter().any(|p| id.starts_with(p))
}

fn numbers_equal(got: &Number, w: &Number, tol: bool) -> bool {
    if got == w {
        return true;
    }
    if tol {
        let (g, w) = (got.to_f64(), w.to_f64());
        let scale = g.abs().max(w.abs()).max(1e-300);
        return ((g - w) / scale).abs() < 1e-12;
    }
    false
}

/// Compares a value with its expected cty-JSON form.
fn matches(v: &Value, want: &Value, tol: bool) -> bool {
    let v = v.unmarked();
    match (v, want) {
        (Value::Null(_), Value::Null(_)) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (Value::Number(n), Value::Number(t)) => numbers_equal(n, t, tol),
        (Value::List(_) | Value::Set(_) | Value::Tuple(_), Value::Tuple(items)) => {
            let seq = v.as_seq().unwrap_or(&[]);
            seq.len() == items.len()
                && seq
                    .iter()
                    .zip(items.iter())
                    .all(|(a, b)| matches(a, b, tol))
        }
        (Value::Map(_) | Value::Object(_), Value::Object(members)) => {
            let m = v.as_entries().cloned().unwrap_or_default();
            m.len() == members.len()
                && members
                    .iter()
                    .all(|(k, w)| m.get(k).is_some_and(|x| matches(x, w, tol)))
        }
        _ => false,
    }
}

enum Outcome {
    Pass,
    Fail(String),
}

fn run_vector(obj: &Object) -> (String, Outcome, Option<String>) {
    let id = match field(obj, "id") {
        Some(Value::String(s)) => s.to_string(),
        _ => "?".into(),
    };
    let expr = match field(obj, "expr") {
        Some(Value::String(s)) => format!("{s}\n"),
        _ => return (id, Outcome::Fail("no expr".into()), None),
    };
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &NoVariables,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    let mut sources = SourceMap::new();
    let (ev, _) = fnhcl_expr::eval_source(&mut sources, "expr.hcl", &expr, &ctx);
    let err_text = ev
        .has_errors()
        .then(|| fnhcl_expr::jsonl::diagnostics_error(&ev.diagnostics, &sources));
    let want_error = matches!(field(obj, "error"), Some(Value::Bool(true)));
    if want_error {
        return match err_text {
            Some(t) => {
                let warn = match field(obj, "error_contains") {
                    Some(Value::String(c)) if !c.is_empty() && !t.contains(&**c) => {
                        Some(format!("{id}: error text {t:?} lacks {c:?}"))
                    }
                    _ => None,
                };
                (id, Outcome::Pass, warn)
            }
            None => (
                id,
                Outcome::Fail(format!(
                    "expected an error, got {:?} of type {}",
                    ev.value,
                    ev.value.type_of()
                )),
                None,
            ),
        };
    }
    if let Some(t) = err_text {
        return (id, Outcome::Fail(format!("unexpected error: {t}")), None);
    }
    let v = &ev.value;
    if matches!(field(obj, "console_only"), Some(Value::Bool(true))) {
        // `type()` returns a type; an implementation may render it as the
        // type string.
        return match (v.as_str(), field(obj, "expect")) {
            (Some(got), Some(Value::String(want))) if got == &**want => (id, Outcome::Pass, None),
            _ => (
                id,
                Outcome::Fail(format!("console-only vector: got {v:?}")),
                None,
            ),
        };
    }
    if !v.is_wholly_known() {
        return (
            id,
            Outcome::Fail(format!("result not wholly known: {v:?}")),
            None,
        );
    }
    if let Some(Value::String(t)) = field(obj, "type") {
        let got = v.type_of().to_string();
        if *got != **t {
            return (id, Outcome::Fail(format!("type {got}, want {t}")), None);
        }
    }
    if let Some(want) = field(obj, "expect")
        && !matches(v, want, tolerant(&id))
    {
        let s = fnhcl_value::json::to_json_text_plain(v).unwrap_or_else(|e| e);
        return (id, Outcome::Fail(format!("value {s}, want {want:?}")), None);
    }
    if matches!(field(obj, "sensitive"), Some(Value::Bool(true))) && !v.is_marked_deep() {
        return (
            id,
            Outcome::Fail("result must be marked sensitive".into()),
            None,
        );
    }
    (id, Outcome::Pass, None)
}

fn read_known_failures(path: &PathBuf) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (id, reason) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        out.insert(id.to_owned(), reason.trim().to_owned());
    }
    out
}

#[test]
fn terraform_conformance_vectors() {
    let dir = data_dir();
    let text = std::fs::read_to_string(dir.join("public.jsonl")).expect("public.jsonl");
    let kf_path = dir.join("known_failures.txt");
    let known = read_known_failures(&kf_path);
    let mut total = 0;
    let mut passed = 0;
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    let mut failing: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Value::Object(obj)) = from_json_text(line) else {
            problems.push(format!("unparsable vector line: {line}"));
            continue;
        };
        total += 1;
        let (id, outcome, warn) = run_vector(&obj);
        warnings.extend(warn);
        let is_expr = EXPRESSION_PREFIXES.iter().any(|p| id.starts_with(p));
        match outcome {
            Outcome::Pass => {
                passed += 1;
                if known.contains_key(&id) {
                    problems.push(format!(
                        "{id}: listed in known_failures.txt but passes now; remove it from the list"
                    ));
                }
            }
            Outcome::Fail(why) => {
                failing.insert(id.clone(), why.clone());
                if is_expr {
                    problems.push(format!("{id} (expression vector): {why}"));
                } else if !known.contains_key(&id) {
                    problems.push(format!("{id}: {why} (not in known_failures.txt)"));
                }
            }
        }
    }
    eprintln!("conformance: {passed}/{total} vectors pass");
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    if fnhcl_cases::bless_enabled() {
        let mut out = String::from(
            "# Function vectors of public.jsonl that fail today, with the reason.\n# The conformance test fails when a listed vector passes (remove it then).\n",
        );
        for (id, why) in &failing {
            if EXPRESSION_PREFIXES.iter().any(|p| id.starts_with(p)) {
                continue;
            }
            let reason = known
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("unreviewed: {}", why.replace('\n', " ")));
            out.push_str(&format!("{id} {reason}\n"));
        }
        fnhcl_cases::bless(&kf_path, &out).expect("write known_failures.txt");
        return;
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
