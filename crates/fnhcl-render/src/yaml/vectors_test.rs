//! Byte-for-byte agreement with go-yaml v2 (see `tests/data/README.md`).

use super::to_yaml;

const VECTORS: &str = include_str!("../../tests/data/go_yaml_v2.txt");

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
