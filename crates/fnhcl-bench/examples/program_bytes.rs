//! What a compiled program holds per byte of its sources (counted live
//! heap bytes), for the generated programs: the measurement behind
//! `fnhcl_crossplane::PROGRAM_BYTES_PER_SOURCE_BYTE`.
//! `cargo run -p fnhcl-bench --features count-alloc --example program_bytes`

fn main() {
    #[cfg(feature = "count-alloc")]
    for (what, text) in [
        ("composition(10)", fnhcl_bench::composition(10)),
        ("composition(50)", fnhcl_bench::composition(50)),
        ("composition(500)", fnhcl_bench::composition(500)),
        (
            "bucket_composition(50)",
            fnhcl_bench::bucket_composition(50),
        ),
        ("heavy_composition(20)", fnhcl_bench::heavy_composition(20)),
        ("large_txtar(50, 2)", fnhcl_bench::large_txtar(50, 2)),
        (
            "modular_composition(10, 5)",
            fnhcl_bench::modular_composition(10, 5),
        ),
        (
            "flat_composition(10, 5)",
            fnhcl_bench::flat_composition(10, 5),
        ),
    ] {
        let files = match fnhcl_base::txtar::parse(&text) {
            Ok(f) if !f.is_empty() => f,
            _ => vec![fnhcl_base::txtar::TxtarFile {
                name: "main.hcl".into(),
                data: text.clone(),
            }],
        };
        let bytes: usize = files.iter().map(|f| f.name.len() + f.data.len()).sum();
        let before = fnhcl_bench::alloc_count::live();
        let mut sources = fnhcl_base::SourceMap::new();
        for f in &files {
            sources.add(f.name.clone(), f.data.as_str());
        }
        let program = fnhcl_eval::compile(std::sync::Arc::new(sources)).expect("compiles");
        let held = fnhcl_bench::alloc_count::live() - before;
        println!(
            "{what:<28} sources {bytes:>8} B, program {held:>9} B, {:.1} B per source byte",
            held as f64 / bytes as f64
        );
        drop(program);
    }
    #[cfg(not(feature = "count-alloc"))]
    eprintln!("counts need the allocator of `--features count-alloc`");
}
