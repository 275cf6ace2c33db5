//! Calls every numeric, collection and type-conversion built-in with a
//! matrix of awkward arguments (nulls, unknowns, marks, empty and nested
//! collections, huge and fractional numbers, wrong types) at every arity
//! up to three: no call may panic, and every result must conform to a
//! real cty type (checked by the dispatcher, which reports a mismatch as
//! an "internal error").

use fnhcl_value::ObjMap;
use std::sync::Arc;

use fnhcl_value::{Number, Type, Value};

fn samples() -> Vec<Value> {
    let s = |x: &str| Value::string(x);
    let obj = |pairs: &[(&str, Value)]| {
        Value::object(
            pairs
                .iter()
                .map(|(k, v)| (Arc::from(*k), v.clone()))
                .collect::<ObjMap>(),
        )
    };
    let list_s = Value::list(Type::String, vec![s("b"), s("a"), s("")]);
    let map_n = Value::map(
        Type::Number,
        [(Arc::from("k"), Value::int(1))].into_iter().collect(),
    );
    vec![
        Value::null(),
        Value::Null(Type::String),
        Value::Null(Type::list(Type::String)),
        Value::dynamic_unknown(),
        Value::Unknown(Type::Number),
        Value::Unknown(Type::list(Type::String)),
        Value::Unknown(Type::object(
            [(Arc::from("a"), Type::String)].into_iter().collect(),
        )),
        Value::TRUE,
        Value::int(0),
        Value::int(-3),
        Value::int(2),
        Value::Number(Number::parse("2.5").expect("number")),
        Value::Number(Number::parse("1e400").expect("number")),
        Value::Number(Number::infinity(true)),
        s(""),
        s("12"),
        s("a"),
        Value::tuple(Vec::new()),
        Value::tuple(vec![Value::int(1), s("x"), Value::null()]),
        Value::tuple(vec![
            Value::tuple(vec![Value::int(1)]),
            Value::dynamic_unknown(),
        ]),
        list_s.clone(),
        Value::list(Type::String, Vec::new()),
        Value::list(Type::String, vec![Value::Unknown(Type::String), s("a")]),
        Value::Set(
            match Value::list(Type::Number, vec![Value::int(1), Value::int(2)]) {
                Value::List(c) => c,
                _ => unreachable!("list"),
            },
        ),
        map_n,
        Value::map(Type::String, ObjMap::new()),
        obj(&[]),
        obj(&[("a", Value::int(1)), ("b", list_s.clone())]),
        list_s.mark(),
        Value::tuple(vec![Value::int(1).mark(), Value::int(2)]),
        Value::int(1).mark(),
        Value::Unknown(Type::String).mark(),
    ]
}

#[test]
fn no_panics_and_conforming_results() {
    let reg = fnhcl_functions::registry();
    let mine = ["Numeric", "Collection", "Type conversion"];
    let vals = samples();
    let mut calls = 0usize;
    let mut internal = Vec::new();
    for f in reg.iter().filter(|f| mine.contains(&f.category)) {
        let mut check = |args: &[Value]| {
            calls += 1;
            if let Err(e) = f.call(args)
                && e.message.contains("internal error")
            {
                internal.push(format!("{}({args:?}): {}", f.name, e.message));
            }
        };
        check(&[]);
        for a in &vals {
            check(std::slice::from_ref(a));
            for b in &vals {
                check(&[a.clone(), b.clone()]);
            }
        }
        // Three arguments: a sample of combinations.
        for (i, a) in vals.iter().enumerate() {
            for (j, b) in vals.iter().enumerate().filter(|(j, _)| (i + j) % 3 == 0) {
                for c in vals.iter().skip((i * 7 + j) % 5).step_by(5) {
                    check(&[a.clone(), b.clone(), c.clone()]);
                }
            }
        }
    }
    assert!(calls > 10_000, "only {calls} calls");
    assert!(internal.is_empty(), "{}", internal.join("\n"));
}
