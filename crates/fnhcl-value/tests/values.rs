//! Table tests for unknown/null/mark handling, unification, sets and JSON.

use std::collections::BTreeMap;

use fnhcl_value::ops::{self, OpError};
use fnhcl_value::{
    Number, Type, Value, convert, from_json_text, from_serde_json, to_json_text, to_serde_json,
    unify, unify_unsafe,
};

fn j(s: &str) -> Value {
    from_json_text(s).expect("json")
}
fn s(v: &str) -> Value {
    Value::string(v)
}
fn unknown(t: Type) -> Value {
    Value::Unknown(t)
}
fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::object(
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), v.clone()))
            .collect(),
    )
}

#[test]
fn equals_with_unknowns_and_nulls() {
    let ub = || Value::Unknown(Type::Bool);
    let cases: Vec<(Value, Value, Value)> = vec![
        (unknown(Type::Number), Value::int(1), ub()),
        (Value::int(1), unknown(Type::Number), ub()),
        (unknown(Type::String), Value::int(1), Value::FALSE),
        (Value::null(), unknown(Type::String), ub()),
        (Value::int(1), Value::dynamic_unknown(), ub()),
        (Value::dynamic_unknown(), Value::dynamic_unknown(), ub()),
        (
            Value::Null(Type::String),
            Value::Null(Type::Number),
            Value::TRUE,
        ),
        (Value::null(), Value::int(0), Value::FALSE),
        // Deep unknowns.
        (
            Value::tuple(vec![Value::int(1), unknown(Type::Number)]),
            Value::tuple(vec![Value::int(1), Value::int(2)]),
            ub(),
        ),
        (
            Value::tuple(vec![Value::int(3), unknown(Type::Number)]),
            Value::tuple(vec![Value::int(1), Value::int(2)]),
            Value::FALSE,
        ),
        // A nested dynamic unknown makes types uncertain...
        (
            Value::tuple(vec![Value::dynamic_unknown()]),
            Value::tuple(vec![Value::int(1)]),
            ub(),
        ),
        // ...unless they can never conform.
        (
            Value::tuple(vec![Value::dynamic_unknown()]),
            Value::tuple(vec![Value::int(1), Value::int(2)]),
            Value::FALSE,
        ),
        (
            Value::list(Type::Number, vec![Value::int(1)]),
            Value::tuple(vec![Value::int(1)]),
            Value::FALSE,
        ),
        (
            Value::set_from(Type::Number, vec![Value::int(2), Value::int(1)]),
            Value::set_from(Type::Number, vec![Value::int(1), Value::int(2)]),
            Value::TRUE,
        ),
        (
            Value::set_from(Type::Number, vec![unknown(Type::Number)]),
            Value::set_from(Type::Number, vec![Value::int(1)]),
            ub(),
        ),
        (
            Value::map(Type::String, [("a".into(), s("x"))].into()),
            Value::map(Type::String, [("a".into(), s("x"))].into()),
            Value::TRUE,
        ),
        (
            Value::map(Type::String, [("a".into(), s("x"))].into()),
            Value::map(Type::String, [("b".into(), s("x"))].into()),
            Value::FALSE,
        ),
    ];
    for (a, b, want) in cases {
        assert_eq!(ops::equals(&a, &b), want, "{a:?} == {b:?}");
    }
}

#[test]
fn marks_propagate() {
    let secret = Value::int(2).mark();
    let r = ops::add(&secret, &Value::int(3)).expect("add");
    assert_eq!(r, Value::int(5).mark());
    assert_eq!(ops::equals(&secret, &Value::int(2)), Value::TRUE.mark());
    let inner = Value::tuple(vec![s("a").mark()]);
    assert_eq!(
        ops::equals(&inner, &Value::tuple(vec![s("a")])),
        Value::TRUE.mark()
    );
    // Conversion keeps marks.
    assert_eq!(
        convert(&secret, &Type::String).expect("convert"),
        s("2").mark()
    );
    // Sets move element marks to the set.
    let set = Value::set_from(Type::String, vec![s("x").mark(), s("y")]);
    assert!(matches!(set, Value::Marked(_)));
    assert_eq!(set.as_seq().map(<[Value]>::len), Some(2));
    assert!(
        !set.unmarked()
            .as_seq()
            .is_some_and(|i| i.iter().any(Value::is_marked_deep))
    );
}

#[test]
fn operators_with_unknowns() {
    assert_eq!(
        ops::add(&unknown(Type::Number), &Value::int(1)),
        Ok(unknown(Type::Number))
    );
    assert_eq!(
        ops::add(&Value::dynamic_unknown(), &Value::int(1)),
        Ok(unknown(Type::Number))
    );
    assert_eq!(
        ops::less_than(&unknown(Type::Number), &Value::int(1)),
        Ok(unknown(Type::Bool))
    );
    assert_eq!(ops::not(&unknown(Type::Bool)), Ok(unknown(Type::Bool)));
    assert_eq!(ops::neg(&j("-0")).map(|v| format!("{v:?}")), Ok("0".into()));
    assert_eq!(
        ops::neg(&s("x")),
        Err(OpError::Operand {
            index: 0,
            message: "a number is required".into()
        })
    );
    assert_eq!(
        ops::div(&Value::int(0), &Value::int(0)),
        Err(OpError::Failed(
            "can't divide zero by zero or infinity by infinity".into()
        ))
    );
    // Unknown of the wrong type is still an operand error.
    assert!(matches!(
        ops::add(&unknown(Type::list(Type::String)), &Value::int(1)),
        Err(OpError::Operand { index: 0, .. })
    ));
    assert_eq!(
        ops::not_equals(&Value::int(1), &unknown(Type::Number)),
        unknown(Type::Bool)
    );
}

#[test]
fn unify_tables() {
    let obj_t = |pairs: &[(&str, Type)]| {
        Type::object(
            pairs
                .iter()
                .map(|(k, t)| ((*k).into(), t.clone()))
                .collect::<BTreeMap<_, _>>(),
        )
    };
    let cases: Vec<(Vec<Type>, Option<Type>, Option<Type>)> = vec![
        (vec![], None, None),
        (
            vec![Type::Number, Type::Number],
            Some(Type::Number),
            Some(Type::Number),
        ),
        (
            vec![Type::Number, Type::String],
            Some(Type::String),
            Some(Type::String),
        ),
        (vec![Type::Bool, Type::Number], None, None),
        (
            vec![Type::String, Type::Dynamic],
            Some(Type::Dynamic),
            Some(Type::String),
        ),
        (
            vec![Type::list(Type::Number), Type::list(Type::String)],
            Some(Type::list(Type::String)),
            Some(Type::list(Type::String)),
        ),
        (
            vec![Type::list(Type::Number), Type::Dynamic],
            Some(Type::Dynamic),
            Some(Type::Dynamic),
        ),
        (
            vec![obj_t(&[("a", Type::Number)]), obj_t(&[("a", Type::String)])],
            Some(obj_t(&[("a", Type::String)])),
            Some(obj_t(&[("a", Type::String)])),
        ),
        (
            vec![obj_t(&[("a", Type::Number)]), obj_t(&[("b", Type::String)])],
            Some(Type::map(Type::String)),
            Some(Type::map(Type::String)),
        ),
        (
            vec![obj_t(&[("a", Type::Number)]), Type::map(Type::Number)],
            Some(Type::map(Type::Number)),
            Some(Type::map(Type::Number)),
        ),
        (
            vec![
                Type::tuple(vec![Type::Number, Type::String]),
                Type::tuple(vec![Type::String, Type::String]),
            ],
            Some(Type::tuple(vec![Type::String, Type::String])),
            Some(Type::tuple(vec![Type::String, Type::String])),
        ),
        (
            vec![Type::tuple(vec![Type::Number]), Type::tuple(vec![])],
            Some(Type::list(Type::Number)),
            Some(Type::list(Type::Number)),
        ),
        (vec![obj_t(&[]), Type::tuple(vec![])], None, None),
        (
            vec![Type::set(Type::String), Type::list(Type::String)],
            Some(Type::list(Type::String)),
            Some(Type::list(Type::String)),
        ),
        (
            vec![Type::tuple(vec![Type::Number]), Type::list(Type::String)],
            Some(Type::list(Type::String)),
            Some(Type::list(Type::String)),
        ),
        (vec![Type::String, Type::list(Type::String)], None, None),
    ];
    for (types, safe, unsafe_) in cases {
        assert_eq!(unify(&types), safe, "unify {types:?}");
        assert_eq!(unify_unsafe(&types), unsafe_, "unify_unsafe {types:?}");
    }
}

#[test]
fn conversion_of_nulls_unknowns_and_dynamic() {
    assert_eq!(
        convert(&Value::null(), &Type::String),
        Ok(Value::Null(Type::String))
    );
    assert_eq!(
        convert(&Value::dynamic_unknown(), &Type::list(Type::String)),
        Ok(unknown(Type::list(Type::String)))
    );
    assert_eq!(
        convert(
            &unknown(Type::tuple(vec![Type::String])),
            &Type::list(Type::Dynamic)
        ),
        Ok(unknown(Type::list(Type::String)))
    );
    assert_eq!(convert(&Value::int(1), &Type::Dynamic), Ok(Value::int(1)));
    assert_eq!(
        convert(
            &obj(&[("a", Value::int(1)), ("b", s("x"))]),
            &Type::object([("a".into(), Type::String)].into())
        ),
        Ok(obj(&[("a", s("1"))]))
    );
    let want = Type::object([("a".into(), Type::String), ("b".into(), Type::String)].into());
    let m = Value::map(Type::String, [("a".into(), s("x"))].into());
    assert_eq!(
        convert(&m, &want).map_err(|e| e.message),
        Err("map has no element for required attribute \"b\"".into())
    );
    assert_eq!(
        convert(&obj(&[("a", Value::int(1))]), &want).map_err(|e| e.message),
        Err("attribute \"b\" is required".into())
    );
    assert_eq!(
        convert(&j("[1, {}]"), &Type::list(Type::Number)).map_err(|e| e.message),
        Err("element 1: number required".into())
    );
    assert_eq!(
        convert(&Value::list(Type::Bool, vec![]), &Type::list(Type::Number)).map_err(|e| e.message),
        Err("incorrect list element type: number required".into())
    );
    // Nested element failure reports where.
    let e =
        convert(&j(r#"{"a": ["x"]}"#), &Type::map(Type::list(Type::Number))).expect_err("fails");
    assert_eq!(e.message, "a number is required");
    assert_eq!(e.path.len(), 2);
}

#[test]
fn set_order_and_dedup() {
    let set = Value::set_from(
        Type::Number,
        ["3", "1", "1.0", "-2", "10", "0.5"]
            .iter()
            .map(|n| Value::Number(Number::parse(n).expect("n")))
            .collect(),
    );
    assert_eq!(to_json_text(&set).expect("json"), "[-2,0.5,1,3,10]");
    let set = Value::set_from(Type::String, vec![s("b"), s("B"), s("a"), s("b"), s("é")]);
    assert_eq!(to_json_text(&set).expect("json"), r#"["B","a","b","é"]"#);
    let set = Value::set_from(Type::Bool, vec![Value::TRUE, Value::FALSE, Value::TRUE]);
    assert_eq!(to_json_text(&set).expect("json"), "[false,true]");
    // Unknowns are kept (never equal), after known values, before nulls.
    let set = Value::set_from(
        Type::String,
        vec![
            Value::Null(Type::String),
            unknown(Type::String),
            s("z"),
            unknown(Type::String),
        ],
    );
    let items = set.as_seq().expect("seq");
    assert_eq!(items.len(), 4);
    assert_eq!(items[0], s("z"));
    assert!(!items[1].is_known() && !items[2].is_known());
    assert!(items[3].is_null());
}

#[test]
fn json_parse_table() {
    let ok: &[(&str, &str, &str)] = &[
        ("99999999999999999999", "number", "99999999999999999999"),
        ("-0.0", "number", "-0"),
        ("1e2", "number", "100"),
        ("1.5E-3", "number", "0.0015"),
        (
            r#"{"b": 1, "a": [true, null, "x"]}"#,
            "object({a: tuple([bool, dynamic, string]), b: number})",
            r#"{"a":[true,null,"x"],"b":1}"#,
        ),
        (r#"{"a": 1, "a": 2}"#, "object({a: number})", r#"{"a":2}"#),
        (" [ ] ", "tuple([])", "[]"),
        ("null", "dynamic", "null"),
        (
            r#""\u00e9\ud83d\ude00\n\"\\\/""#,
            "string",
            "\"é😀\\n\\\"\\\\/\"",
        ),
        (r#""\ud800x""#, "string", "\"\u{FFFD}x\""),
        (r#""<a&b>""#, "string", r#""\u003ca\u0026b\u003e""#),
        (
            r#""\u2028\u2029\u0001\b\f""#,
            "string",
            r#""\u2028\u2029\u0001\u0008\u000c""#,
        ),
        ("\"\u{2028}\u{7f}\"", "string", "\"\\u2028\u{7f}\""),
    ];
    for (input, ty, out) in ok {
        let v = from_json_text(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(v.type_of().to_string(), *ty, "{input}");
        assert_eq!(to_json_text(&v).as_deref(), Ok(*out), "{input}");
    }
    let bad = [
        "",
        "[",
        "{",
        "[1,]",
        "{\"a\":1,}",
        "01",
        "1.",
        ".5",
        "+1",
        "-",
        "1e",
        "tru",
        "nul",
        "\"abc",
        "\"\\x\"",
        "\"\u{1}\"",
        "[1] x",
        "{1:2}",
        "NaN",
        "1e99999999999",
        "\"\\u12\"",
    ];
    for input in bad {
        assert!(from_json_text(input).is_err(), "should fail: {input:?}");
    }
}

#[test]
fn json_depth_limit() {
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    let e = from_json_text(&deep).expect_err("too deep");
    assert!(e.contains("nested more than 512"), "{e}");
    let ok = format!("{}{}", "[".repeat(500), "]".repeat(500));
    assert!(from_json_text(&ok).is_ok());
}

#[test]
fn json_output_errors_and_forms() {
    assert_eq!(
        to_json_text(&unknown(Type::String)),
        Err("value is not known".into())
    );
    let inf = Value::Number(Number::infinity(false));
    assert_eq!(
        to_json_text(&inf),
        Err("cannot serialize infinity as JSON".into())
    );
    // jsonencode's form: infinities as text, marks refused at any depth.
    let cty = fnhcl_value::json::to_cty_json_text;
    assert_eq!(
        cty(&Value::tuple(vec![inf.clone()])).as_deref(),
        Ok("[+Inf]")
    );
    assert_eq!(
        cty(&Value::tuple(vec![Value::int(1).mark()])),
        Err("value has marks, so it cannot be serialized as JSON".into())
    );
    assert_eq!(
        to_json_text(&Value::tuple(vec![Value::int(1).mark()])).as_deref(),
        Ok("[1]")
    );
    let v = Value::map(
        Type::Number,
        [
            ("z".into(), Value::int(1)),
            ("a".into(), Value::int(2).mark()),
        ]
        .into(),
    );
    assert_eq!(to_json_text(&v).as_deref(), Ok(r#"{"a":2,"z":1}"#));
    let third = Number::from_i64(1).div(&Number::from_i64(3)).expect("div");
    assert_eq!(
        to_json_text(&Value::Number(third)).expect("json"),
        format!("0.{}5", "3".repeat(154))
    );
}

#[test]
fn serde_json_mapping() {
    let j: serde_json::Value = serde_json::json!({"a": [1, 2.5, "x", null, true], "b": {"c": -3}, "big": 18446744073709551615u64});
    let v = from_serde_json(&j);
    assert_eq!(
        v.type_of().to_string(),
        "object({a: tuple([number, number, string, dynamic, bool]), b: object({c: number}), big: number})"
    );
    assert_eq!(
        to_json_text(&v).expect("json"),
        r#"{"a":[1,2.5,"x",null,true],"b":{"c":-3},"big":18446744073709551615}"#
    );
    assert_eq!(to_serde_json(&v), Some(j));
    assert_eq!(to_serde_json(&unknown(Type::Number)), None);
    let third = Value::Number(Number::from_i64(1).div(&Number::from_i64(3)).expect("div"));
    assert_eq!(to_serde_json(&third), Some(serde_json::json!(1.0 / 3.0)));
}

#[test]
fn value_is_small() {
    assert!(
        std::mem::size_of::<Value>() <= 32,
        "{}",
        std::mem::size_of::<Value>()
    );
    assert!(std::mem::size_of::<Number>() <= 16);
}
