//! Limits and robustness: resource limits give clear errors, and no input
//! makes the parser or evaluator panic or overflow the stack.

use std::collections::BTreeMap;

use fnhcl_base::SourceMap;
use fnhcl_expr::{EvalContext, Evaluated, Limits, NoVariables};
use fnhcl_value::Value;

fn eval_with(src: &str, limits: &Limits) -> (Evaluated, SourceMap) {
    let ctx = EvalContext {
        vars: &NoVariables,
        invoker: None,
        functions: true,
        limits,
    };
    let mut sources = SourceMap::new();
    let (ev, _) = fnhcl_expr::eval_source(&mut sources, "main.hcl", src, &ctx);
    (ev, sources)
}

fn first_error(ev: &Evaluated) -> String {
    ev.diagnostics
        .iter()
        .find(|d| d.is_error())
        .map(|d| format!("{}; {}", d.summary, d.detail))
        .unwrap_or_default()
}

#[test]
fn step_limit_is_an_error() {
    let limits = Limits {
        max_steps: 10_000,
        ..Limits::default()
    };
    let (ev, _) = eval_with(
        "[for a in range(200) : [for b in range(200) : a * b]]",
        &limits,
    );
    assert!(ev.has_errors());
    assert!(
        first_error(&ev).starts_with("Evaluation limit exceeded"),
        "{}",
        first_error(&ev)
    );
    assert!(!ev.value.is_wholly_known());
    // The same expression is fine with the default limits.
    let (ev, _) = eval_with(
        "length([for a in range(200) : [for b in range(200) : a * b]])",
        &Limits::default(),
    );
    assert!(!ev.has_errors(), "{:?}", ev.diagnostics);
    assert_eq!(ev.value, Value::int(200));
}

#[test]
fn work_inside_builtins_counts_toward_the_step_limit() {
    // A CPU bomb found in the acceptance audit: each `length(s)` reads a
    // 100 KB string, but was one step. With the default limits this must
    // stop with the step-limit error instead of running for hours.
    let src = r#"[for i in range(1000) : [for j in range(1000) : length(join(",", [for k in range(1000) : format("%0100d", k)]))]]"#;
    let (ev, _) = eval_with(src, &Limits::default());
    assert!(
        first_error(&ev).starts_with("Evaluation limit exceeded"),
        "{}",
        first_error(&ev)
    );
    // Small calls stay cheap: a thousand of them fit easily.
    let (ev, _) = eval_with(
        r#"length([for i in range(1000) : upper(format("x%d", i))])"#,
        &Limits::default(),
    );
    assert!(!ev.has_errors(), "{:?}", ev.diagnostics);
}

#[test]
fn template_size_limit_is_an_error() {
    let limits = Limits {
        max_string_bytes: 1000,
        ..Limits::default()
    };
    let (ev, _) = eval_with("\"%{for x in range(500)}abcdefghij%{endfor}\"", &limits);
    assert!(
        first_error(&ev).starts_with("Result too large"),
        "{}",
        first_error(&ev)
    );
    let (ev, _) = eval_with("\"%{for x in range(50)}abcdefghij%{endfor}\"", &limits);
    assert!(!ev.has_errors());
}

#[test]
fn collection_size_limit_is_an_error() {
    let limits = Limits {
        max_collection_len: 100,
        ..Limits::default()
    };
    let (ev, _) = eval_with("[for x in range(1000) : x]", &limits);
    assert!(
        first_error(&ev).starts_with("Result too large"),
        "{}",
        first_error(&ev)
    );
}

#[test]
fn depth_limit_is_an_error() {
    let limits = Limits {
        max_depth: 10,
        ..Limits::default()
    };
    let src = format!("{}1{}", "[".repeat(20), "]".repeat(20));
    let (ev, _) = eval_with(&src, &limits);
    assert!(
        first_error(&ev).starts_with("Expression too deeply nested"),
        "{}",
        first_error(&ev)
    );
}

#[test]
fn deeply_nested_input_does_not_overflow() {
    let inputs = [
        format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000)),
        format!("{}1", "!".repeat(10_000)),
        format!("{}1", "-".repeat(10_000)),
        (0..20_000).map(|_| "1").collect::<Vec<_>>().join(" + "),
        (0..5_000)
            .map(|_| "true")
            .collect::<Vec<_>>()
            .join(" ? 1 : "),
        format!("\"{}x{}\"", "${\"".repeat(2_000), "\"}".repeat(2_000)),
        format!("{}1{}", "{a = ".repeat(3_000), "}".repeat(3_000)),
        format!("x{}", ".a".repeat(50_000)),
        format!("x{}", "[*]".repeat(10_000)),
    ];
    for src in &inputs {
        let (ev, _) = eval_with(src, &Limits::default());
        // Either a clean result or diagnostics; never a crash.
        let _ = ev.value.type_of();
        let mut sm = SourceMap::new();
        let f = sm.add("main.hcl", format!("a = {src}\n"));
        let _ = fnhcl_syntax::parse_file(&sm, f);
    }
    // The deepest accepted nesting still evaluates.
    let mut depth = 0;
    for n in (1..200).rev() {
        let src = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        let (ev, _) = eval_with(&src, &Limits::default());
        if !ev.has_errors() {
            depth = n;
            break;
        }
    }
    assert!(
        depth >= 32,
        "nesting of 32 brackets must be accepted (max ok: {depth})"
    );
}

#[test]
fn mutated_corpus_never_panics() {
    let corpus = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/differential.jsonl"
    ))
    .expect("corpus");
    let exprs: Vec<String> = corpus
        .lines()
        .filter_map(|l| match fnhcl_value::json::from_json_text(l) {
            Ok(fnhcl_value::Value::Object(m)) => match m.get("expr") {
                Some(fnhcl_value::Value::String(s)) => Some(s.to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(!exprs.is_empty());
    let alphabet: Vec<char> = "{}[]()\"$%~*.,:=?!<>-+/\\ \n\tax019_é#\u{0}"
        .chars()
        .collect();
    // Deterministic mutations: `fastrand` with a fixed seed.
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    let vars: BTreeMap<String, Value> = [
        (
            "x".to_owned(),
            Value::tuple(vec![Value::int(1), Value::dynamic_unknown()]),
        ),
        ("a".to_owned(), Value::null()),
    ]
    .into_iter()
    .collect();
    let limits = Limits::default();
    let ctx = EvalContext {
        vars: &vars,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    for _ in 0..6_000 {
        let base = &exprs[rng.usize(..exprs.len())];
        let mut chars: Vec<char> = base.chars().collect();
        for _ in 0..=rng.usize(..4) {
            let pos = rng.usize(..=chars.len());
            match rng.usize(..3) {
                0 => chars.insert(pos, alphabet[rng.usize(..alphabet.len())]),
                1 if pos < chars.len() => {
                    chars.remove(pos);
                }
                _ => {
                    let other = &exprs[rng.usize(..exprs.len())];
                    chars.splice(pos..pos, other.chars().take(20));
                }
            }
        }
        let src: String = chars.into_iter().collect();
        let mut sources = SourceMap::new();
        let (ev, _) = fnhcl_expr::eval_source(&mut sources, "main.hcl", &src, &ctx);
        for d in &ev.diagnostics {
            let _ = d.to_hcl_string(&sources);
            let _ = d.to_code_frame(&sources);
        }
        let f = sources.add("body.hcl", format!("a = {src}\nb {{\n c = {src}\n}}\n"));
        let (_, diags) = fnhcl_syntax::parse_file(&sources, f);
        for d in &diags {
            let _ = d.to_code_frame(&sources);
        }
    }
}

/// The interrupt is called once per `INTERRUPT_INTERVAL` steps; when it
/// says go on the result is unchanged, when it says stop the evaluation
/// ends with an error naming the cancellation.
#[test]
fn the_interrupt_is_checked_every_interval_and_can_stop_the_evaluation() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    let src = "length([for a in range(100) : [for b in range(100) : a * b]])";
    let (plain, _) = eval_with(src, &Limits::default());
    assert!(!plain.has_errors(), "{}", first_error(&plain));

    let calls = Arc::new(AtomicU64::new(0));
    let counted = calls.clone();
    let limits = Limits {
        interrupt: Some(fnhcl_expr::Interrupt::new(move || {
            counted.fetch_add(1, Ordering::Relaxed);
            true
        })),
        ..Limits::default()
    };
    let (ev, _) = eval_with(src, &limits);
    assert_eq!(ev.value, plain.value);
    assert_eq!(ev.steps, plain.steps);
    // Once per multiple of the interval crossed (a single charge that
    // crosses two counts once).
    let n = calls.load(Ordering::Relaxed);
    assert!(
        n >= 1 && n <= plain.steps / fnhcl_expr::INTERRUPT_INTERVAL,
        "{n} calls for {} steps",
        plain.steps
    );

    let limits = Limits {
        interrupt: Some(fnhcl_expr::Interrupt::new(|| false)),
        ..Limits::default()
    };
    let (ev, _) = eval_with(src, &limits);
    assert!(
        ev.steps < 2 * fnhcl_expr::INTERRUPT_INTERVAL,
        "{}",
        ev.steps
    );
    let err = first_error(&ev);
    assert!(err.contains(fnhcl_expr::INTERRUPTED_DETAIL), "{err}");
}

/// Objects are sorted vectors (`fnhcl_value::ObjMap`): building large ones
/// from keys in any order must not insert one key at a time (quadratic).
/// No timing assertion: with a quadratic path these take minutes.
#[test]
fn large_objects_build_in_any_key_order() {
    let n = 100_000;
    // `range` stops at 1,024 values: 0..n as 100 x 1,000.
    let range = |n: usize| {
        format!(
            "flatten([for a in range({}) : [for b in range(1000) : a * 1000 + b]])",
            n / 1000
        )
    };
    let (r, rh) = (range(n), range(n / 2));
    let cases = [
        // Keys in decreasing order (each insert would move the whole map).
        format!("length({{for i in {r} : format(\"k%06d\", {n} - i) => i}})"),
        // Out of order (a permutation): each key is checked against the
        // set of keys seen so far.
        format!("length({{for i in {r} : tostring((i * 7919) % {n}) => i}})"),
        // Grouping.
        format!("length({{for i in {r} : tostring(({n} - i) % 1000) => i...}})"),
        // `merge` of two objects with interleaved keys.
        format!(
            "length(merge({{for i in {rh} : format(\"k%06d\", 2 * i) => i}}, \
             {{for i in {rh} : format(\"k%06d\", 2 * i + 1) => i}}))"
        ),
        // `zipmap` with keys in decreasing order.
        format!("length(zipmap([for i in {r} : format(\"k%06d\", {n} - i)], {r}))"),
        // An object constructor's keys in decreasing order, through JSON.
        format!(
            "length(jsondecode(jsonencode({{for i in {r} : format(\"k%06d\", {n} - i) => i}})))"
        ),
        format!(
            "length(yamldecode(jsonencode({{for i in {r} : format(\"k%06d\", {n} - i) => i}})))"
        ),
    ];
    let want = [n, n, 1000, n, n, n, n];
    for (src, want) in cases.iter().zip(want) {
        let (ev, _) = eval_with(src, &Limits::default());
        assert!(!ev.has_errors(), "{src}: {:?}", ev.diagnostics);
        assert_eq!(ev.value, Value::int(want as i64), "{src}");
    }
    // Duplicates after keys went out of order are still reported.
    let (ev, _) = eval_with(
        "{for k in [\"b\", \"a\", \"b\"] : k => k}",
        &Limits::default(),
    );
    assert!(
        first_error(&ev).starts_with("Duplicate object key"),
        "{}",
        first_error(&ev)
    );
}
