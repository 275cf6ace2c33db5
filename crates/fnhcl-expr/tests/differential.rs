//! Differential test against the Go reference (`hcl-oracle`, HCL 2.14 +
//! cty stdlib): `tests/data/differential.jsonl` holds expressions from
//! `scripts/gen_expr_corpus.py` with the oracle's recorded answers, all
//! evaluated with the variables in `differential_vars.json`.
//!
//! Agreement means: the same result type, value (numbers by value),
//! knownness and sensitivity; for evaluation errors the same error text
//! (HCL's `range: summary; detail` form, except that our summaries name
//! the offending thing after HCL's words: `Unsupported attribute "foo"`,
//! `Call to unknown function "f"`, `... for "join"`, see
//! [`same_error_text`]); parse errors agree word for word. Every other difference must be listed with its
//! explanation in `differential_known.txt`; a listed case that agrees
//! fails the test. `FNHCL_BLESS=1` rewrites that list (keeping reasons).
//! The numbers are recorded in `docs/conformance.md`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fnhcl_expr::jsonl::{evaluate_line, parse_vars};
use fnhcl_value::Value;
use fnhcl_value::json::from_json_text;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A JSON object line, read with exact numbers: values then compare
/// numbers by value.
type Object = fnhcl_value::ObjMap;

fn object(text: &str) -> Option<Object> {
    match from_json_text(text) {
        Ok(Value::Object(m)) => Some(m.clone()),
        _ => None,
    }
}

fn get<'a>(o: &'a Object, k: &str) -> Option<&'a Value> {
    o.get(k)
}

#[derive(PartialEq)]
enum Verdict {
    Agree,
    Differ(String),
}

fn compare(oracle: &Object, mine: &Object) -> Verdict {
    let err = |o: &Object| match get(o, "error") {
        Some(Value::String(s)) => Some(s.to_string()),
        _ => None,
    };
    let phase = |o: &Object| match get(o, "phase") {
        Some(Value::String(s)) => Some(s.to_string()),
        _ => None,
    };
    match (err(oracle), err(mine)) {
        (Some(a), Some(b)) => {
            if phase(oracle) == phase(mine) && same_error_text(&a, &b) {
                Verdict::Agree
            } else {
                Verdict::Differ(format!("error {a:?} vs ours {b:?}"))
            }
        }
        (Some(a), None) => Verdict::Differ(format!("oracle error {a:?}, we succeeded")),
        (None, Some(b)) => Verdict::Differ(format!("oracle succeeded, our error {b:?}")),
        (None, None) => {
            for k in ["type", "unknown", "sensitive"] {
                if get(oracle, k) != get(mine, k) {
                    return Verdict::Differ(format!(
                        "{k}: oracle {:?}, ours {:?}",
                        get(oracle, k),
                        get(mine, k)
                    ));
                }
            }
            match (get(oracle, "value"), get(mine, "value")) {
                (Some(a), Some(b)) if a == b => Verdict::Agree,
                (None, None) => Verdict::Agree,
                (a, b) => Verdict::Differ(format!("value: oracle {a:?}, ours {b:?}")),
            }
        }
    }
}

/// HCL's error text `a` and ours `b` agree: equal, or equal once the name
/// our summary adds after HCL's words (D9) is left out. Only a suffix of
/// the form ` "name"`, ` for "name"` or ` to "name"` is allowed, so any
/// other wording difference still counts.
fn same_error_text(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    // `range: summary; detail`: split at the first `; ` after the range.
    let split = |s: &str| -> Option<(String, String)> {
        let (range, rest) = s.split_once(": ")?;
        let (summary, detail) = rest.split_once("; ")?;
        Some((format!("{range}: {summary}"), detail.to_owned()))
    };
    let (Some((head_a, detail_a)), Some((head_b, detail_b))) = (split(a), split(b)) else {
        return false;
    };
    if detail_a != detail_b {
        return false;
    }
    let Some(extra) = head_b.strip_prefix(&head_a) else {
        return false;
    };
    let name = extra
        .strip_prefix(" for ")
        .or_else(|| extra.strip_prefix(" to "))
        .or_else(|| extra.strip_prefix(' '));
    name.is_some_and(|n| n.len() >= 2 && n.starts_with('"') && n.ends_with('"'))
}

fn read_known(path: &PathBuf) -> BTreeMap<String, String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (id, why) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (id.to_owned(), why.trim().to_owned())
        })
        .collect()
}

#[test]
fn agrees_with_hcl_oracle() {
    let vars_text = std::fs::read_to_string(data("differential_vars.json")).expect("vars");
    let vars = parse_vars(&vars_text).expect("differential_vars.json holds the variables");
    let known_path = data("differential_known.txt");
    let known = read_known(&known_path);
    let text = std::fs::read_to_string(data("differential.jsonl")).expect("corpus");
    let (mut total, mut exact) = (0usize, 0usize);
    let mut problems = Vec::new();
    let mut differing: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Some(rec) = object(line) else {
            problems.push(format!("bad corpus line {line}"));
            continue;
        };
        let (Some(Value::String(id)), Some(Value::String(expr)), Some(Value::Object(oracle))) =
            (get(&rec, "id"), get(&rec, "expr"), get(&rec, "oracle"))
        else {
            problems.push(format!("bad corpus record {line}"));
            continue;
        };
        let (id, expr): (&str, &str) = (id, expr);
        total += 1;
        let out = evaluate_line(None, expr, &vars);
        let Some(mine) = object(&out) else {
            problems.push(format!("{id}: our output is not JSON: {out}"));
            continue;
        };
        match compare(oracle, &mine) {
            Verdict::Agree => {
                exact += 1;
                if known.contains_key(id) {
                    problems.push(format!(
                        "{id}: listed in differential_known.txt but agrees now"
                    ));
                }
            }
            Verdict::Differ(why) => {
                if !known.contains_key(id) {
                    problems.push(format!("{id} {expr:?}: {why}"));
                }
                differing.insert(id.to_owned(), format!("{expr:?}: {why}"));
            }
        }
    }
    eprintln!(
        "differential: {total} expressions; {exact} exact agreement (parse errors included), {} explained differences",
        differing.len()
    );
    if fnhcl_cases::bless_enabled() {
        let mut out = String::from(
            "# Expressions where we differ from hcl-oracle on purpose (see docs/conformance.md).\n# <id> <reason>\n",
        );
        for (id, why) in &differing {
            let reason = known
                .get(id)
                .cloned()
                .unwrap_or_else(|| format!("UNEXPLAINED {}", why.replace('\n', " ")));
            out.push_str(&format!("{id} {reason}\n"));
        }
        fnhcl_cases::bless(&known_path, &out).expect("write differential_known.txt");
        return;
    }
    assert!(
        total >= 2000,
        "the corpus must hold at least 2000 expressions"
    );
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
