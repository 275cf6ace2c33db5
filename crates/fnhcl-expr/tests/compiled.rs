//! The compiled evaluator against the tree walk: every expression of the
//! oracle corpus (`tests/data/differential.jsonl`, with its variables),
//! the Terraform vectors (`tests/data/public.jsonl`) and the built-in
//! function tables (`fnhcl-functions/tests/data/*.txt`, the left-hand
//! sides) is evaluated both ways, and the values, the diagnostics (texts,
//! spans, source text) and the steps must be the same. Each expression
//! runs with the default limits and again with limits that stop it part
//! way (half its steps, a shallow nesting limit, an interrupt that says
//! stop), where a folded constant or a traversal must give way to the
//! tree walk. Root variables are read through slots given by a resolver
//! (the variables' positions) and checked against their names.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fnhcl_base::SourceMap;
use fnhcl_expr::{
    Compiled, EvalContext, Evaluated, Interrupt, Limits, NoVariables, Variables,
    evaluate_compiled_with_sources, evaluate_with_sources,
};
use fnhcl_value::Value;
use fnhcl_value::json::from_json_text;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Variables by name and by slot (their position in name order).
struct Slotted {
    by_name: BTreeMap<String, Value>,
    names: Vec<String>,
}

impl Slotted {
    fn new(by_name: BTreeMap<String, Value>) -> Slotted {
        let names = by_name.keys().cloned().collect();
        Slotted { by_name, names }
    }

    fn slot(&self, name: &str) -> Option<u32> {
        let i = self.names.iter().position(|n| n == name)?;
        u32::try_from(i).ok()
    }
}

impl Variables for Slotted {
    fn get(&self, name: &str) -> Option<Value> {
        self.by_name.get(name).cloned()
    }

    fn get_slot(&self, name: &str, slot: Option<u32>) -> Option<Value> {
        let Some(slot) = slot else {
            // Only names that do not exist have no slot.
            assert!(!self.by_name.contains_key(name), "{name:?} has no slot");
            return None;
        };
        let n = &self.names[slot as usize];
        assert_eq!(n, name, "slot {slot} is {n:?}, read as {name:?}");
        self.by_name.get(n).cloned()
    }

    fn names(&self) -> Vec<String> {
        self.names.clone()
    }
}

fn show(e: &Evaluated) -> String {
    format!(
        "value: {:?}\nsteps: {}\ndiagnostics: {:#?}",
        e.value, e.steps, e.diagnostics
    )
}

/// Limits that stop `steps` steps part way, in each of the ways a limit
/// can.
fn limit_variants(steps: u64) -> Vec<Limits> {
    let stop = Limits {
        max_steps: steps + 2 * fnhcl_expr::INTERRUPT_INTERVAL,
        interrupt: Some(Interrupt::new(|| false)),
        ..Limits::default()
    };
    let mut out = vec![stop];
    for depth in [1, 2, 3, 5] {
        out.push(Limits {
            max_depth: depth,
            ..Limits::default()
        });
    }
    for s in [steps / 2, steps.saturating_sub(1), 1] {
        out.push(Limits {
            max_steps: s,
            ..Limits::default()
        });
    }
    out
}

/// Evaluates `text` both ways with each set of limits; the differences.
fn compare(text: &str, vars: &Slotted, failures: &mut Vec<String>) -> bool {
    let mut sources = SourceMap::new();
    let file = sources.add("expr.hcl", text);
    let (Some(expr), diags) = fnhcl_syntax::parse_expr(&sources, file) else {
        return false;
    };
    if diags.iter().any(fnhcl_base::Diagnostic::is_error) {
        return false;
    }
    let compiled = Compiled::with_slots(expr.clone(), &|n| vars.slot(n));
    let run = |limits: &Limits| {
        let ctx = EvalContext {
            vars,
            invoker: None,
            functions: true,
            limits,
        };
        (
            evaluate_with_sources(&expr, &ctx, &sources),
            evaluate_compiled_with_sources(&compiled, &ctx, &sources),
        )
    };
    let (tree, comp) = run(&Limits::default());
    let steps = tree.steps;
    let mut check = |what: &str, tree: Evaluated, comp: Evaluated| {
        let (t, c) = (show(&tree), show(&comp));
        if t != c {
            failures.push(format!(
                "{text:?} ({what}):\n--- tree walk\n{t}\n--- compiled\n{c}"
            ));
        }
    };
    check("default limits", tree, comp);
    for limits in limit_variants(steps) {
        let what = format!(
            "max_steps {}, max_depth {}, interrupt {}",
            limits.max_steps,
            limits.max_depth,
            limits.interrupt.is_some()
        );
        let (tree, comp) = run(&limits);
        check(&what, tree, comp);
    }
    true
}

fn string_field(line: &str, key: &str) -> Option<String> {
    match from_json_text(line).ok()? {
        Value::Object(m) => match m.get(key)? {
            Value::String(s) => Some(s.to_string()),
            _ => None,
        },
        _ => None,
    }
}

fn finish(what: &str, compared: usize, failures: &[String]) {
    assert!(compared > 100, "{what}: only {compared} expressions");
    assert!(
        failures.is_empty(),
        "{what}: {} differences over {compared} expressions:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n\n")
    );
}

#[test]
fn oracle_corpus_agrees() {
    let vars_text = std::fs::read_to_string(data("differential_vars.json")).expect("vars");
    let vars = Slotted::new(fnhcl_expr::jsonl::parse_vars(&vars_text).expect("vars"));
    let corpus = std::fs::read_to_string(data("differential.jsonl")).expect("corpus");
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(expr) = string_field(line, "expr")
            && compare(&expr, &vars, &mut failures)
        {
            compared += 1;
        }
    }
    finish("oracle corpus", compared, &failures);
}

#[test]
fn terraform_vectors_agree() {
    let vars = Slotted::new(BTreeMap::new());
    let corpus = std::fs::read_to_string(data("public.jsonl")).expect("vectors");
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in corpus.lines().filter(|l| !l.trim().is_empty()) {
        if let Some(expr) = string_field(line, "expr")
            && compare(&format!("{expr}\n"), &vars, &mut failures)
        {
            compared += 1;
        }
    }
    finish("Terraform vectors", compared, &failures);
}

#[test]
fn function_tables_agree() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fnhcl-functions/tests/data");
    let files = fnhcl_cases::discover(&dir, |p| fnhcl_cases::has_extension(p, "txt"));
    let vars = Slotted::new(BTreeMap::new());
    let mut failures = Vec::new();
    let mut compared = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("table");
        for line in text.lines() {
            let Some((lhs, _)) = line.split_once(" => ") else {
                continue;
            };
            if line.starts_with('#') {
                continue;
            }
            if compare(lhs, &vars, &mut failures) {
                compared += 1;
            }
        }
    }
    finish("function tables", compared, &failures);
}

/// Expressions written to exercise every compiled form (objects with
/// literal keys, built-in calls, templates with directives, `for`,
/// splats, `...`), with the oracle corpus's variables.
#[test]
fn compiled_forms_agree() {
    let vars_text = std::fs::read_to_string(data("differential_vars.json")).expect("vars");
    let vars = Slotted::new(fnhcl_expr::jsonl::parse_vars(&vars_text).expect("vars"));
    let cases = std::fs::read_to_string(data("compiled_forms.txt")).expect("cases");
    let mut failures = Vec::new();
    let mut compared = 0;
    for line in cases.lines() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        assert!(
            compare(&format!("{line}\n"), &vars, &mut failures),
            "{line:?} does not parse"
        );
        compared += 1;
    }
    assert!(compared > 50, "only {compared} expressions");
    assert!(
        failures.is_empty(),
        "compiled forms: {} differences over {compared} expressions:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// `NoVariables` has no slots: the default `get_slot` looks names up.
#[test]
fn names_without_slots() {
    let mut sources = SourceMap::new();
    let file = sources.add("expr.hcl", "[x, 1 + 2, \"a${y}\"]");
    let (Some(expr), _) = fnhcl_syntax::parse_expr(&sources, file) else {
        panic!("parses");
    };
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &NoVariables,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    let tree = evaluate_with_sources(&expr, &ctx, &sources);
    let comp = evaluate_compiled_with_sources(&Compiled::new(expr), &ctx, &sources);
    assert_eq!(show(&tree), show(&comp));
    assert_eq!(tree.diagnostics.len(), 2, "{:?}", tree.diagnostics);
}
