//! The Crossplane package metadata and the input CRD agree with the code:
//! the CRD lists exactly the fields `HclInput` accepts, with the same
//! `source` values.

use fnhcl_crossplane::input::FIELD_NAMES;
use serde_json::Value as Json;

fn read(rel: &str) -> Json {
    let path = format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    fnhcl_yaml::load_first(&text)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .unwrap_or_default()
}

#[test]
fn input_crd_matches_the_decoder() {
    let crd = read("package/input/hcl.fn.crossplane.io_hclinputs.yaml");
    assert_eq!(crd["kind"], "CustomResourceDefinition");
    assert_eq!(crd["spec"]["group"], "hcl.fn.crossplane.io");
    assert_eq!(crd["spec"]["names"]["kind"], "HclInput");
    let version = &crd["spec"]["versions"][0];
    assert_eq!(version["name"], "v1beta1");
    let props = version["schema"]["openAPIV3Schema"]["properties"]
        .as_object()
        .expect("properties");
    let mut in_crd: Vec<&str> = props.keys().map(String::as_str).collect();
    let mut in_code: Vec<&str> = FIELD_NAMES.to_vec();
    in_crd.sort();
    in_code.sort();
    assert_eq!(in_crd, in_code);
    assert_eq!(
        props["source"]["enum"],
        serde_json::json!(["Inline", "FileSystem"])
    );
    assert_eq!(props["source"]["default"], "Inline");
}

#[test]
fn package_metadata_is_a_function() {
    let meta = read("package/crossplane.yaml");
    assert_eq!(meta["apiVersion"], "meta.pkg.crossplane.io/v1beta1");
    assert_eq!(meta["kind"], "Function");
    assert!(
        meta["spec"]["crossplane"]["version"]
            .as_str()
            .is_some_and(|v| v.starts_with(">=")),
        "{meta}"
    );
    // D39: Crossplane 2 runs it in compositions and operations.
    assert_eq!(
        meta["spec"]["capabilities"],
        serde_json::json!(["composition", "operation"])
    );
}
