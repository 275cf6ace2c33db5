//! A whole RunFunction from arbitrary bytes: the bytes decoded as a
//! protobuf RunFunctionRequest as the server decodes them (when they
//! decode: `fnhcl_crossplane::decode_request`, with prost's recursion limit
//! off and the nesting checked first) and run, and also used
//! as the HCL program of an otherwise well-formed request. Never panics.
#![no_main]

use fnhcl_crossplane::proto::{Resource, RunFunctionRequest, State};
use libfuzzer_sys::fuzz_target;

fn struct_of(v: serde_json::Value) -> Option<pbjson_types::Struct> {
    fnhcl_crossplane::convert::json_to_struct(&v)
}

static FUNCTION: std::sync::OnceLock<fnhcl_crossplane::Function> = std::sync::OnceLock::new();

fuzz_target!(|data: &[u8]| {
    if let Ok(req) = fnhcl_crossplane::decode_request(data) {
        let _ = FUNCTION
            .get_or_init(fnhcl_crossplane::Function::default)
            .run(&req);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let req = RunFunctionRequest {
        observed: Some(State {
            composite: Some(Resource {
                resource: struct_of(serde_json::json!({
                    "apiVersion": "example.com/v1",
                    "kind": "XThing",
                    "metadata": {"name": "x"},
                    "spec": {"n": 3, "names": ["a", "b"], "m": {"k": "v"}},
                })),
                ..Resource::default()
            }),
            ..State::default()
        }),
        input: struct_of(serde_json::json!({
            "apiVersion": "hcl.fn.crossplane.io/v1beta1",
            "kind": "HclInput",
            "hcl": text,
        })),
        ..RunFunctionRequest::default()
    };
    let _ = fnhcl_crossplane::run(&req);
});
