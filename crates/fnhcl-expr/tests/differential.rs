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
//! [`same_error_text`]); for parse errors both sides
//! failing to parse (our parser is hcl-edit, so parse error wording
//! differs by design). Every other difference must be listed with its
//! explanation in `differential_known.txt`; a listed case that agrees
//! fails the test. `FNHCL_BLESS=1` rewrites that list (keeping reasons).
//! The numbers are recorded in `docs/conformance.md`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fnhcl_expr::jsonl::{Json, evaluate_line, json_to_value, parse_json};
use fnhcl_value::{Number, Value};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn get<'a>(o: &'a [(String, Json)], k: &str) -> Option<&'a Json> {
    o.iter().find(|(n, _)| n == k).map(|(_, v)| v)
}

/// JSON equality with numbers compared by value.
fn json_eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (Number::parse(x), Number::parse(y)) {
            (Some(p), Some(q)) => p == q,
            _ => x == y,
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && json_eq(v, v2)))
        }
        _ => a == b,
    }
}

#[derive(PartialEq)]
enum Verdict {
    Agree,
    /// Both failed to parse, with different wording.
    ParseWording,
    Differ(String),
}

fn compare(oracle: &[(String, Json)], mine: &[(String, Json)]) -> Verdict {
    let err = |o: &[(String, Json)]| match get(o, "error") {
        Some(Json::String(s)) => Some(s.clone()),
        _ => None,
    };
    let phase = |o: &[(String, Json)]| match get(o, "phase") {
        Some(Json::String(s)) => Some(s.clone()),
        _ => None,
    };
    match (err(oracle), err(mine)) {
        (Some(a), Some(b)) => {
            if phase(oracle) == phase(mine) && same_error_text(&a, &b) {
                Verdict::Agree
            } else if phase(oracle).as_deref() == Some("parse")
                && phase(mine).as_deref() == Some("parse")
            {
                Verdict::ParseWording
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
                (Some(a), Some(b)) if json_eq(a, b) => Verdict::Agree,
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
    let Ok(Json::Object(members)) = parse_json(&vars_text) else {
        panic!("differential_vars.json is not an object");
    };
    let mut vars: BTreeMap<String, Value> = BTreeMap::new();
    for (k, v) in &members {
        vars.insert(k.clone(), json_to_value(v, 0).expect("var"));
    }
    let known_path = data("differential_known.txt");
    let known = read_known(&known_path);
    let text = std::fs::read_to_string(data("differential.jsonl")).expect("corpus");
    let (mut total, mut exact, mut parse_wording) = (0usize, 0usize, 0usize);
    let mut problems = Vec::new();
    let mut differing: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(Json::Object(rec)) = parse_json(line) else {
            problems.push(format!("bad corpus line {line}"));
            continue;
        };
        let (Some(Json::String(id)), Some(Json::String(expr)), Some(Json::Object(oracle))) =
            (get(&rec, "id"), get(&rec, "expr"), get(&rec, "oracle"))
        else {
            problems.push(format!("bad corpus record {line}"));
            continue;
        };
        total += 1;
        let out = evaluate_line(None, expr, &vars);
        let Ok(Json::Object(mine)) = parse_json(&out) else {
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
            Verdict::ParseWording => {
                parse_wording += 1;
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
                differing.insert(id.clone(), format!("{expr:?}: {why}"));
            }
        }
    }
    eprintln!(
        "differential: {total} expressions; {exact} exact agreement, {parse_wording} parse errors on both sides (wording differs), {} explained differences",
        differing.len()
    );
    if std::env::var_os("FNHCL_BLESS").is_some() {
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
        std::fs::write(&known_path, out).expect("write differential_known.txt");
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
