//! Timings on a generated 2,000-line program (ignored by default): run
//! `cargo test --release -p fnhcl-ide perf -- --ignored --nocapture`.

use std::sync::Arc;
use std::time::Instant;

use fnhcl_base::SourceMap;

use crate::{FilePosition, Snapshot};

/// Ten files of 200 lines (ten resources each): resources with locals, references across files.
pub(crate) fn program() -> SourceMap {
    let mut sources = SourceMap::new();
    for f in 0..10 {
        let mut text = String::new();
        for r in 0..10 {
            let n = f * 10 + r;
            text.push_str(&format!(
                "locals {{\n  name{n} = \"r-${{req.composite.metadata.name}}-{n}\"\n  size{n} = length(req.composite.spec) + {n}\n}}\n\
                 resource r{n} {{\n  locals {{\n    inner = upper(name{n})\n  }}\n  body = {{\n    apiVersion = \"v1\"\n    kind = \"ConfigMap\"\n    metadata = {{ name = inner }}\n    data = {{ a = size{n}, b = [for x in [1, 2, 3] : x * 2] }}\n  }}\n}}\n\n\n\n\n\n"
            ));
        }
        sources.add(format!("f{f}.hcl"), text);
    }
    sources
}

fn time<T>(label: &str, runs: u32, mut f: impl FnMut() -> T) {
    let t = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(f());
    }
    println!(
        "{label}: {:.2} ms",
        t.elapsed().as_secs_f64() * 1000.0 / runs as f64
    );
}

#[test]
#[ignore = "a timing report, not a check: run with --release -- --ignored --nocapture"]
fn perf_on_a_2000_line_program() {
    let sources = Arc::new(program());
    let lines: usize = sources.files().map(|(_, f)| f.text.lines().count()).sum();
    println!("{lines} lines in {} files", sources.len());
    let (file, f) = sources.files().nth(3).expect("a file");
    let at = |needle: &str| FilePosition {
        file,
        offset: (f.text.find(needle).expect("needle") + needle.len()) as u32,
    };
    let completion_at = at("length(req.composite.");
    let local_at = at("upper(name35");
    let fresh = || Snapshot::new(sources.clone(), Default::default());
    assert!(!crate::complete(&fresh(), completion_at).is_empty());
    assert!(crate::references(&fresh(), local_at, true).len() > 1);
    time("lexing every file", 20, || {
        sources
            .files()
            .map(|(_, f)| crate::lex::tokenize(&f.text).len())
            .sum::<usize>()
    });
    time("parsing every file", 20, || {
        sources
            .files()
            .map(|(id, _)| fnhcl_syntax::parse_file(&sources, id).0.items.len())
            .sum::<usize>()
    });
    // Each request on a new snapshot (what follows a didChange elsewhere).
    time("completion, new snapshot", 20, || {
        crate::complete(&fresh(), completion_at).len()
    });
    time("references, new snapshot", 20, || {
        crate::references(&fresh(), local_at, true).len()
    });
    // Requests on one snapshot (the editor asks several things per keystroke).
    let snap = fresh();
    time("completion, same snapshot", 20, || {
        crate::complete(&snap, completion_at).len()
    });
    time("references, same snapshot", 20, || {
        crate::references(&snap, local_at, true).len()
    });
    time("definition, same snapshot", 20, || {
        crate::definition(&snap, local_at).len()
    });
    time("hover, same snapshot", 20, || {
        crate::hover(&snap, local_at).is_some()
    });
    time("semantic tokens, same snapshot", 20, || {
        crate::semantic_tokens(&snap, file).len()
    });
}

#[test]
fn derived_data_is_computed_once_and_outlines_outlive_snapshots() {
    let sources = Arc::new(program());
    let (file, _) = sources.files().next().expect("a file");
    let a = Snapshot::new(sources.clone(), Default::default());
    assert!(std::ptr::eq(a.index(), a.index()));
    assert!(!a.index().defs.is_empty());
    // A new snapshot with the same text (another file changed) reuses the
    // outline: the text is not lexed again.
    let b = Snapshot::new(sources.clone(), Default::default());
    assert!(Arc::ptr_eq(&a.outline(file), &b.outline(file)));
    // A changed text gets its own.
    let mut other = SourceMap::new();
    other.add(
        "f0.hcl",
        format!("{}\nlocals {{ extra = 1 }}\n", sources.get(file).text),
    );
    let c = Snapshot::new(Arc::new(other), Default::default());
    let o = c.outline(file);
    assert!(!Arc::ptr_eq(&a.outline(file), &o));
    assert!(o.attrs.len() > a.outline(file).attrs.len());
}
