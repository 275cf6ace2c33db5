//! The generated programs the benchmarks measure are valid HCL: they parse
//! without a diagnostic (so the benchmarks measure the parse of a program,
//! not of an error's recovery).

use fnhcl_base::SourceMap;

fn programs() -> Vec<(String, String)> {
    let mut out = vec![
        ("composition(500)".to_owned(), fnhcl_bench::composition(500)),
        (
            "bucket_composition(20)".to_owned(),
            fnhcl_bench::bucket_composition(20),
        ),
        (
            "heavy_composition(20)".to_owned(),
            fnhcl_bench::heavy_composition(20),
        ),
    ];
    for (name, txtar) in [
        ("large_txtar(50, 2)", fnhcl_bench::large_txtar(50, 2)),
        (
            "modular_composition(3, 4)",
            fnhcl_bench::modular_composition(3, 4),
        ),
        (
            "flat_composition(10, 5)",
            fnhcl_bench::flat_composition(10, 5),
        ),
    ] {
        match fnhcl_base::txtar::parse(&txtar) {
            Ok(files) if !files.is_empty() => {
                for f in files {
                    out.push((format!("{name}: {}", f.name), f.data));
                }
            }
            _ => out.push((name.to_owned(), txtar)),
        }
    }
    out
}

#[test]
fn generated_programs_parse_cleanly() {
    let programs = programs();
    assert!(programs.len() > 50);
    for (name, text) in programs {
        let mut sm = SourceMap::new();
        let f = sm.add("main.hcl", text.as_str());
        let (body, diags) = fnhcl_syntax::parse_file(&sm, f);
        assert!(diags.is_empty(), "{name}: {diags:?}");
        assert!(!body.items.is_empty(), "{name}");
    }
}
