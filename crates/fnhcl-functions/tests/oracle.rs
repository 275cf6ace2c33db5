//! Replays `tests/oracle/corpus.jsonl` (expressions answered by the Go
//! hcl-oracle, i.e. go-cty 1.12's stdlib as Terraform uses it) against the
//! registry: same success or failure, same result type and value, and the
//! error text contains ours. Regenerate with `tests/oracle/generate.py`.

#[path = "support/mini.rs"]
mod mini;

use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value as Json;

fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => {
            let (x, y) = (
                x.as_f64().unwrap_or(f64::NAN),
                y.as_f64().unwrap_or(f64::NAN),
            );
            x == y || (x - y).abs() <= y.abs() * 1e-12
        }
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[test]
fn agrees_with_go_oracle() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/corpus.jsonl");
    let text = std::fs::read_to_string(&path).expect("corpus.jsonl exists");
    let mut failures = String::new();
    let mut n = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let rec: Json = serde_json::from_str(line).expect("valid corpus line");
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
        // JSON cannot hold infinities: the oracle fails to print them.
        if oracle_err.is_some_and(|e| e.starts_with("marshal: cannot serialize infinity")) {
            if !matches!(&case.got, Ok(fnhcl_value::Value::Number(x)) if x.is_infinite()) {
                let _ = writeln!(
                    failures,
                    "{expr}: oracle gave infinity, we gave {:?}",
                    case.got
                );
            }
            continue;
        }
        // The oracle's to* functions are plain cty conversions; Terraform's
        // (ours) word their errors differently, so only failure is compared.
        let own_wording = expr.starts_with("to");
        match (&case.got, oracle_err) {
            (Err(_), Some(_)) if own_wording => {}
            (Err(mine), Some(theirs)) => {
                // Our message is the cty part of HCL's diagnostic detail.
                let msg = mine
                    .split_once(": ")
                    .filter(|(p, _)| p.starts_with("arg "))
                    .map_or(mine.as_str(), |(_, m)| m);
                let msg = msg.replacen(": Function", "; Function", 1);
                if !theirs.contains(&msg) {
                    let _ = writeln!(failures, "{expr}: message {msg:?} not in {theirs:?}");
                }
            }
            (Ok(v), None) => {
                let dumped: Json = serde_json::from_str(&mini::dump_json(expr, &Ok(v.clone())))
                    .expect("valid dump");
                if dumped["type"] != rec["type"] || !same(&dumped["value"], &rec["value"]) {
                    let _ = writeln!(
                        failures,
                        "{expr}: got {} {}, oracle {} {}",
                        dumped["type"], dumped["value"], rec["type"], rec["value"]
                    );
                }
            }
            (Ok(v), Some(theirs)) => {
                let _ = writeln!(
                    failures,
                    "{expr}: got {}, oracle failed: {theirs}",
                    mini::render(v)
                );
            }
            (Err(mine), None) => {
                let _ = writeln!(
                    failures,
                    "{expr}: failed ({mine}), oracle gave {}",
                    rec["value"]
                );
            }
        }
    }
    assert!(n >= 1000, "corpus too small: {n}");
    assert!(
        failures.is_empty(),
        "differences from the oracle:\n{failures}"
    );
}
