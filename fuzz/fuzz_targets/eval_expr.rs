//! Parsing and evaluating an arbitrary expression never panics and stays
//! within its limits. The variables include an unknown and a sensitive
//! value so those paths are exercised too.
#![no_main]

use std::collections::BTreeMap;

use fnhcl_base::SourceMap;
use fnhcl_expr::{EvalContext, Limits};
use fnhcl_value::{Type, Value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut vars = BTreeMap::new();
    vars.insert("u".to_owned(), Value::Unknown(Type::Dynamic));
    vars.insert("s".to_owned(), Value::string("secret").mark());
    vars.insert(
        "o".to_owned(),
        Value::object([("a".into(), Value::int(1))].into_iter().collect()),
    );
    let limits = Limits {
        max_steps: 200_000,
        max_string_bytes: 1 << 20,
        max_collection_len: 100_000,
        ..Limits::default()
    };
    let ctx = EvalContext {
        vars: &vars,
        invoker: None,
        functions: true,
        limits: &limits,
    };
    let mut sources = SourceMap::new();
    let _ = fnhcl_expr::eval_source(&mut sources, "fuzz.hcl", text, &ctx);
});
