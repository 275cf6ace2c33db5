//! Byte-for-byte agreement with go-yaml v2 (see `tests/data/README.md`).

use super::to_yaml;

const VECTORS: &str = include_str!("../tests/data/go_yaml_v2.txt");

/// Where we print something else on purpose, and why.
const DELIBERATE: &[(&str, &str)] = &[(
    r#"{"<<": 1}"#,
    "a plain `<<` key reads back as a YAML merge key; we quote it",
)];

#[test]
fn go_yaml_vectors() {
    let mut cases = Vec::new();
    for chunk in VECTORS.split("=== ").filter(|c| !c.is_empty()) {
        let (json, yaml) = chunk.split_once('\n').unwrap_or((chunk, ""));
        cases.push((json, yaml));
    }
    assert!(cases.len() > 300, "vectors missing");
    let mut failures = Vec::new();
    for (json, want) in &cases {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        let got = to_yaml(&v).unwrap();
        if DELIBERATE.iter().any(|(j, _)| j == json) {
            // Still reads back as the same value.
            assert_eq!(super::load_stream(&got).unwrap(), vec![v], "{json}");
            continue;
        }
        if &got != want {
            failures.push(format!("{json}\n--- go-yaml\n{want}--- ours\n{got}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

const LOAD_VECTORS: &str = include_str!("../tests/data/go_yaml_v2_load.txt");

/// Numbers compared as doubles (Go's JSON has no integer/float split).
fn normalise(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::Null, Value::Number),
        Value::Array(a) => Value::Array(a.into_iter().map(normalise).collect()),
        Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, normalise(v))).collect()),
        other => other,
    }
}

#[test]
fn go_yaml_load_vectors() {
    let mut n = 0;
    let mut failures = Vec::new();
    for chunk in LOAD_VECTORS.split("#---#\n").filter(|c| !c.is_empty()) {
        let Some(at) = chunk.rfind("=> ") else {
            continue;
        };
        let (yaml, want) = (&chunk[..at], chunk[at + 3..].trim_end());
        n += 1;
        let got = super::load_first(yaml);
        let ok = match (want, &got) {
            ("ERROR", Err(_)) => true,
            ("ERROR", Ok(_)) | (_, Err(_)) => false,
            (json, Ok(v)) => {
                let want: serde_json::Value = serde_json::from_str(json).unwrap();
                normalise(want) == normalise(v.clone().unwrap_or_default())
            }
        };
        if !ok {
            failures.push(format!("{yaml}--- go-yaml\n{want}\n--- ours\n{got:?}\n"));
        }
    }
    assert!(n >= 10, "vectors missing");
    assert!(
        failures.is_empty(),
        "{} of {n} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
