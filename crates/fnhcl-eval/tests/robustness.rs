//! Mutation robustness: every case program, corrupted in many small ways
//! (characters deleted, duplicated, swapped, replaced by HCL punctuation),
//! must compile and evaluate without panicking. Deterministic (fixed seed).

use std::path::Path;
use std::sync::Arc;

use fnhcl_base::SourceMap;
use fnhcl_eval::{ObservedResource, Request};
use fnhcl_value::{Key, Value};

const TOKENS: &[&str] = &[
    "{", "}", "[", "]", "(", ")", "=", ":", ",", ".", "\"", "${", "%{", "\n", "?", "*", "...",
    "null", "each", "self", "req", "invoke(", "for", "if", "0", "-1", "#", "//", "<<EOT\n",
];

/// Corrupts `text` in one to three places, deterministically from `rng`
/// (`fastrand`, seeded by each test).
fn mutate(text: &str, rng: &mut fastrand::Rng) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.usize(1..=3) {
        let at = rng.usize(..=chars.len());
        match rng.usize(..4) {
            0 if at < chars.len() => {
                let len = rng.usize(1..=8);
                chars.drain(at..(at + len).min(chars.len()));
            }
            1 if at < chars.len() => {
                let len = rng.usize(1..=16).min(chars.len() - at);
                let dup: Vec<char> = chars[at..at + len].to_vec();
                chars.splice(at..at, dup);
            }
            2 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => {
                let t = TOKENS[rng.usize(..TOKENS.len())];
                chars.splice(at..at, t.chars());
            }
        }
    }
    chars.into_iter().collect()
}

fn obj(items: &[(&str, Value)]) -> Value {
    Value::object(
        items
            .iter()
            .map(|(k, v)| (Key::from(*k), v.clone()))
            .collect(),
    )
}

/// Requests whose data has unexpected shapes everywhere.
fn odd_requests() -> Vec<Request> {
    let shapes = [
        Value::string("not an object"),
        Value::int(7),
        Value::null(),
        Value::tuple(vec![Value::int(1), Value::null()]),
        obj(&[
            ("metadata", Value::string("x")),
            ("spec", Value::tuple(vec![])),
        ]),
        obj(&[(
            "metadata",
            obj(&[
                ("annotations", Value::int(1)),
                ("managedFields", Value::null()),
            ]),
        )]),
    ];
    shapes
        .iter()
        .map(|s| {
            let mut r = Request {
                composite: Some(s.clone()),
                ..Request::default()
            };
            for name in ["foo", "bucket", "buckets-0", "r", "a", "vpc"] {
                r.observed.insert(
                    name.to_owned(),
                    ObservedResource {
                        body: s.clone(),
                        connection_details: [("k".to_owned(), vec![0xff, 0x00])].into(),
                    },
                );
            }
            r.context.insert("k".to_owned(), s.clone());
            r.extra_resources
                .insert("my-config".to_owned(), Some(vec![s.clone()]));
            r
        })
        .collect()
}

#[test]
fn odd_request_data_never_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    // The limit cases are slow by design; they add nothing here.
    let dirs = fnhcl_cases::discover(&root, |p| {
        p.join("main.hcl").is_file() && !fnhcl_cases::case_name(p).starts_with("limit-")
    });
    let handle = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || {
            let requests = odd_requests();
            let mut runs = 0usize;
            for d in dirs {
                let Ok(text) = std::fs::read_to_string(d.join("main.hcl")) else {
                    continue;
                };
                let mut sm = SourceMap::new();
                sm.add("main.hcl", text);
                let Ok(program) = fnhcl_eval::compile(Arc::new(sm)) else {
                    continue;
                };
                for r in &requests {
                    let _ = fnhcl_eval::evaluate(&program, r);
                    runs += 1;
                }
            }
            runs
        })
        .expect("spawn");
    assert!(handle.join().expect("no panic") > 100);
}

#[test]
fn corrupted_programs_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut programs = Vec::new();
    let dirs = fnhcl_cases::discover(&root, |p| {
        p.join("main.hcl").is_file() && !fnhcl_cases::case_name(p).starts_with("limit-")
    });
    for d in dirs {
        if let Ok(text) = std::fs::read_to_string(d.join("main.hcl")) {
            programs.push(text);
        }
    }
    assert!(programs.len() > 50);
    let handle = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || {
            let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
            let request = Request::default();
            let mut evaluated = 0usize;
            // More with FNHCL_MUTATIONS=N (e.g. 1000 for a longer soak).
            let rounds: usize = std::env::var("FNHCL_MUTATIONS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(25);
            for text in &programs {
                for _ in 0..rounds {
                    let src = mutate(text, &mut rng);
                    let mut sm = SourceMap::new();
                    sm.add("main.hcl", src.clone());
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        if let Ok(p) = fnhcl_eval::compile(Arc::new(sm)) {
                            let _ = fnhcl_eval::evaluate(&p, &request);
                            return true;
                        }
                        false
                    }));
                    match r {
                        Ok(true) => evaluated += 1,
                        Ok(false) => {}
                        Err(_) => panic!("panic on program:\n{src}"),
                    }
                }
            }
            evaluated
        })
        .expect("spawn");
    let evaluated = handle.join().expect("no panic");
    // Some corruptions still compile (e.g. inside strings or comments).
    assert!(evaluated > 0);
}

/// Module programs (txtar bundles with module directories), corrupted in
/// the same ways, markers and import paths included: layout, import
/// resolution, instance evaluation and switches must never panic.
#[test]
fn corrupted_module_programs_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut programs = Vec::new();
    let dirs = fnhcl_cases::discover(&root, |p| {
        let n = fnhcl_cases::case_name(p);
        (n.contains("module") || n.contains("switch")) && p.join("input.txtar").is_file()
    });
    for d in dirs {
        if let Ok(text) = std::fs::read_to_string(d.join("input.txtar")) {
            programs.push(text);
        }
    }
    assert!(programs.len() >= 10, "{} module cases", programs.len());
    let handle = std::thread::Builder::new()
        .stack_size(16 << 20)
        .spawn(move || {
            let mut rng = fastrand::Rng::with_seed(0x51_7CC1_B727_220A);
            let mut requests = vec![Request::default()];
            requests.extend(odd_requests().into_iter().map(|mut r| {
                // Observed resources under instance prefixes, too.
                let extra: Vec<(String, ObservedResource)> = r
                    .observed
                    .iter()
                    .map(|(k, v)| (format!("logs-{k}"), v.clone()))
                    .collect();
                r.observed.extend(extra);
                r
            }));
            let rounds: usize = std::env::var("FNHCL_MUTATIONS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(40);
            let mut evaluated = 0usize;
            for text in &programs {
                for round in 0..=rounds {
                    let src = if round == 0 {
                        text.clone()
                    } else {
                        mutate(text, &mut rng)
                    };
                    let mut sm = SourceMap::new();
                    if fnhcl_base::txtar::load_into(&mut sm, &src).is_err() {
                        continue;
                    }
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let Ok(p) = fnhcl_eval::compile(Arc::new(sm)) else {
                            return 0;
                        };
                        for req in &requests {
                            let _ = fnhcl_eval::evaluate(&p, req);
                        }
                        1
                    }));
                    match r {
                        Ok(n) => evaluated += n,
                        Err(_) => panic!("panic on program:\n{src}"),
                    }
                }
            }
            evaluated
        })
        .expect("spawn");
    assert!(handle.join().expect("no panic") > 20);
}
