//! `docs/functions.md` must match the registry. `FNHCL_BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn functions_md_is_up_to_date() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/functions.md");
    let want = fnhcl_functions::docs::functions_markdown();
    if let Err(e) = fnhcl_cases::check_or_bless(&path, &want) {
        panic!("docs/functions.md is stale: {e}");
    }
}

#[test]
fn registry_lists_every_function_once_with_docs() {
    let reg = fnhcl_functions::registry();
    let mut names: Vec<&str> = reg.iter().map(|f| f.name).collect();
    let n = names.len();
    names.dedup();
    assert_eq!(n, names.len());
    for f in reg.iter() {
        assert!(!f.description.is_empty(), "{} has no description", f.name);
        assert!(!f.category.is_empty(), "{} has no category", f.name);
        assert!(
            f.description.ends_with('.'),
            "{}: description should be a sentence",
            f.name
        );
    }
    for name in [
        "try",
        "can",
        "invoke",
        "type",
        "sensitive",
        "nonsensitive",
        "list",
        "map",
    ] {
        assert!(fnhcl_functions::exists(name), "{name} missing");
    }
    for name in [
        "timestamp",
        "uuid",
        "bcrypt",
        "file",
        "templatefile",
        "plantimestamp",
    ] {
        assert!(!fnhcl_functions::exists(name), "{name} must not exist (D8)");
    }
}
