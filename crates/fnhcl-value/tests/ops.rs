//! Operator and unification conformance: `tests/data/ops_cases.expected`
//! (generated with the Go oracle by `tests/data/gen_ops_cases.sh`).
//! `bin` cases apply an HCL binary operator; `cond` cases evaluate
//! `true ? A : B`, i.e. cty `UnifyUnsafe` of both types and conversion of A.
//! `FNHCL_BLESS=1` rewrites the file with our output.

use fnhcl_value::ops::{self, OpError, OpResult};
use fnhcl_value::{Type, Value, convert, from_json_text, to_json_text, unify_unsafe};

fn show(v: &Value) -> String {
    match to_json_text(v) {
        Ok(j) => format!("{}\t{j}", v.type_of()),
        Err(e) => format!("error: {e}"),
    }
}

fn bin(op: &str, a: &Value, b: &Value) -> OpResult {
    match op {
        "+" => ops::add(a, b),
        "-" => ops::sub(a, b),
        "*" => ops::mul(a, b),
        "/" => ops::div(a, b),
        "%" => ops::modulo(a, b),
        "<" => ops::less_than(a, b),
        "<=" => ops::less_than_or_equal(a, b),
        ">" => ops::greater_than(a, b),
        ">=" => ops::greater_than_or_equal(a, b),
        "&&" => ops::and(a, b),
        "||" => ops::or(a, b),
        "==" => Ok(ops::equals(a, b)),
        "!=" => Ok(ops::not_equals(a, b)),
        other => panic!("unknown operator {other}"),
    }
}

fn run(fields: &[&str]) -> String {
    let json = |s: &str| from_json_text(s).expect("case operand is JSON");
    match fields[0] {
        "bin" => match bin(fields[1], &json(fields[2]), &json(fields[3])) {
            Ok(v) => show(&v),
            Err(OpError::Operand { index, message }) => format!(
                "error: Invalid operand; Unsuitable value for {} operand: {message}.",
                if index == 0 { "left" } else { "right" }
            ),
            Err(OpError::Failed(m)) => {
                format!("error: Operation failed; Error during operation: {m}.")
            }
        },
        "cond" => {
            let (a, b) = (json(fields[1]), json(fields[2]));
            let (at, bt) = (a.type_of(), b.type_of());
            // HCL's conditional: a literal `null` branch takes the other
            // branch's type; otherwise cty UnifyUnsafe.
            let dyn_null = |v: &Value| matches!(v, Value::Null(Type::Dynamic));
            let unified = if dyn_null(&a) {
                Some(bt.clone())
            } else if dyn_null(&b) {
                Some(at.clone())
            } else {
                unify_unsafe(&[at.clone(), bt.clone()])
            };
            match unified {
                Some(t) => match convert(&a, &t) {
                    Ok(v) => show(&v),
                    Err(e) => format!("error: {e}"),
                },
                // HCL's detail text explaining the mismatch belongs to
                // the evaluator; only the summary is compared.
                None => "error: Inconsistent conditional result types".to_string(),
            }
        }
        other => panic!("unknown case kind {other}"),
    }
}

#[test]
fn ops_cases_match_cty() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let path = format!("{dir}/ops_cases.expected");
    let expected = std::fs::read_to_string(&path).expect("expected file");
    let mut out = String::new();
    let mut failures = Vec::new();
    for line in expected.lines() {
        let fields: Vec<&str> = line.split('\t').collect();
        let n = if fields[0] == "bin" { 4 } else { 3 };
        let got = run(&fields[..n]);
        let mut want = fields[n..].join("\t");
        // Only the first diagnostic is modelled; only the summary of a
        // conditional type mismatch.
        if let Some(p) = want.find(", and 1 other diagnostic(s)") {
            want.truncate(p);
        }
        if want.starts_with("error: Inconsistent conditional result types") {
            want = "error: Inconsistent conditional result types".to_string();
        }
        out.push_str(&format!("{}\t{got}\n", fields[..n].join("\t")));
        if got != want {
            failures.push(format!(
                "{}\n  want {want}\n  got  {got}",
                fields[..n].join(" ")
            ));
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
