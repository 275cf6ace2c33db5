//! Conversion conformance: `tests/data/convert_cases.expected` holds
//! `FN<TAB>JSON<TAB>expected` lines generated with the Go oracle by
//! `tests/data/gen_convert_cases.sh` (`FN` is `tolist`, `toset`, `tomap`,
//! `tostring`, `tonumber` or `tobool`, i.e. cty `convert.Convert` to
//! `list(dynamic)`, ...). Expected is `TYPE<TAB>JSON` or `error: MESSAGE`.
//! `FNHCL_BLESS=1` rewrites the file with our output.

use fnhcl_value::{Type, convert, from_json_text, to_json_text};

fn target(f: &str) -> Type {
    match f {
        "tolist" => Type::list(Type::Dynamic),
        "toset" => Type::set(Type::Dynamic),
        "tomap" => Type::map(Type::Dynamic),
        "tostring" => Type::String,
        "tonumber" => Type::Number,
        "tobool" => Type::Bool,
        other => panic!("unknown conversion {other}"),
    }
}

fn run(f: &str, arg: &str) -> String {
    let v = from_json_text(arg).expect("case input is JSON");
    match convert(&v, &target(f)) {
        Ok(out) => format!(
            "{}\t{}",
            out.type_of(),
            to_json_text(&out).unwrap_or_else(|e| format!("<{e}>"))
        ),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn convert_cases_match_cty() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let path = format!("{dir}/convert_cases.expected");
    let expected = std::fs::read_to_string(&path).expect("expected file");
    let mut out = String::new();
    let mut failures = Vec::new();
    for line in expected.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(f), Some(arg), Some(want)) = (parts.next(), parts.next(), parts.next()) else {
            panic!("bad line {line:?}");
        };
        let got = run(f, arg);
        out.push_str(&format!("{f}\t{arg}\t{got}\n"));
        if got != want {
            failures.push(format!("{f}({arg})\n  want {want}\n  got  {got}"));
        }
    }
    if fnhcl_cases::bless_enabled() {
        fnhcl_cases::bless(std::path::Path::new(&path), &out).expect("write");
        return;
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
