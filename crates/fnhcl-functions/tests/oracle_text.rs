//! Differential test of the string, format, regex and encoding built-ins:
//! replays `tests/oracle/corpus_text.jsonl` (expressions answered by the Go
//! hcl-oracle: go-cty 1.12's stdlib and go-cty-yaml, which Terraform 1.5.7
//! uses for these functions) against the registry. Results must agree in
//! type and value; when the oracle fails we must fail too, and our message
//! must appear in the oracle's diagnostic unless the corpus line is listed
//! in `tests/oracle/text_differences.txt` with the reason.
//! Regenerate the corpus with `tests/oracle/generate_text.py`.

#[path = "support/mini.rs"]
mod mini;

#[path = "support/gzip_go.rs"]
mod gzip_go;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use fnhcl_value::Value;
use serde_json::Value as Json;

/// Decodes the oracle's JSON text exactly (numbers keep their precision)
/// with our `jsondecode`, which the corpus checks separately.
fn decode_json(text: &str) -> Option<Value> {
    fnhcl_functions::call("jsondecode", &[Value::string(text)])?.ok()
}

/// Our result against the oracle's JSON value: sequences as arrays,
/// maps and objects as objects, numbers by value.
fn same(ours: &Value, theirs: &Value) -> bool {
    match (ours.unmarked(), theirs) {
        (Value::Null(_), Value::Null(_)) => true,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::Number(a), Value::Number(b)) => a == b,
        (Value::String(a), Value::String(b)) => a == b,
        (a, Value::Tuple(b)) => a
            .as_seq()
            .is_some_and(|a| a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| same(x, y))),
        (a, Value::Object(b)) => a.as_entries().is_some_and(|a| {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }),
        _ => false,
    }
}

fn has_infinity(v: &Value) -> bool {
    match v.unmarked() {
        Value::Number(n) => n.is_infinite(),
        other => {
            other.as_seq().is_some_and(|s| s.iter().any(has_infinity))
                || other
                    .as_entries()
                    .is_some_and(|e| e.values().any(has_infinity))
        }
    }
}

/// Known, explained differences: `expr<TAB>reason` per line.
fn differences(dir: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(dir.join("text_differences.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(e, r)| (e.to_owned(), r.to_owned()))
        .collect()
}

#[test]
fn text_functions_agree_with_go_oracle() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    let mut text = std::fs::read_to_string(dir.join("corpus_text.jsonl")).expect("corpus exists");
    // cidr* answered by go-cidr and Go's net package called as Terraform's
    // functions call them (see tests/oracle/cidr_oracle.go.txt; inputs
    // without leading zeros, since Go 1.19's net rejects those while
    // Terraform's ipaddr fork accepts them).
    text.push_str(&std::fs::read_to_string(dir.join("corpus_cidr.jsonl")).expect("cidr corpus"));
    // replace, base64decode, textdecodebase64 errors and urlencode answered
    // by Go's regexp/strings/encoding/base64/net/url (go_oracle.go.txt).
    text.push_str(&std::fs::read_to_string(dir.join("corpus_go.jsonl")).expect("go corpus"));
    let known = differences(&dir);
    let mut failures = String::new();
    let mut n = 0;
    let mut explained = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        // Numbers may exceed f64: read the record's value with jsondecode.
        let rec: Json = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(_) => {
                let cut = line.find(", \"value\": ").unwrap_or(line.len());
                serde_json::from_str(&format!("{}}}", &line[..cut])).expect("valid corpus line")
            }
        };
        let raw_value = line
            .find(", \"value\": ")
            .map(|i| &line[i + 11..line.len() - 1]);
        let expr = rec["expr"].as_str().expect("expr");
        n += 1;
        let case = match mini::run_line(expr) {
            Ok(c) => c,
            Err(e) => {
                let _ = writeln!(failures, "{expr}: cannot evaluate: {e}");
                continue;
            }
        };
        let oracle_err = rec.get("error").and_then(Json::as_str);
        // Artifacts of the oracle's output: it cannot print infinities, and
        // prints a null of dynamic type as an unknown.
        let artifact = match (&case.got, oracle_err) {
            (Ok(v), Some(e)) if e.starts_with("marshal: cannot serialize infinity") => {
                has_infinity(v)
            }
            (Ok(Value::Null(fnhcl_value::Type::Dynamic)), None) => {
                rec.get("unknown").is_some() && rec["type"] == "dynamic"
            }
            _ => false,
        };
        if artifact {
            continue;
        }
        let problem = match (&case.got, oracle_err) {
            (Err(mine), Some(theirs)) => {
                let msg = mine
                    .split_once(": ")
                    .filter(|(p, _)| p.starts_with("arg "))
                    .map_or(mine.as_str(), |(_, m)| m);
                (!theirs.contains(msg)).then(|| format!("message {msg:?} not in {theirs:?}"))
            }
            (Ok(v), None) => {
                let unknown = rec.get("unknown").is_some();
                let (v, _) = v.unmark_deep();
                let ty = v.type_of().to_string();
                let theirs = raw_value.and_then(decode_json);
                let agree = Some(ty.as_str()) == rec["type"].as_str()
                    && unknown != v.is_wholly_known()
                    && (unknown || theirs.as_ref().is_some_and(|t| same(&v, t)));
                (!agree).then(|| {
                    format!(
                        "got {ty} {}, oracle {} {}",
                        mini::render(&v),
                        rec["type"],
                        raw_value.unwrap_or("?")
                    )
                })
            }
            (Ok(v), Some(theirs)) => {
                Some(format!("got {}, oracle failed: {theirs}", mini::render(v)))
            }
            (Err(mine), None) => Some(format!("failed ({mine}), oracle gave {}", rec["value"])),
        };
        match (problem, known.contains_key(expr)) {
            (Some(p), false) => {
                let _ = writeln!(failures, "{expr}\t{p}");
            }
            (Some(_), true) => explained += 1,
            (None, true) => {
                let _ = writeln!(
                    failures,
                    "{expr}: listed in text_differences.txt but agrees now; remove it"
                );
            }
            (None, false) => {}
        }
    }
    assert!(n >= 1000, "corpus too small: {n}");
    assert!(
        failures.is_empty(),
        "differences from the oracle ({explained} explained):\n{failures}"
    );
}
