//! Property tests with values from a seeded `fastrand` generator
//! (deterministic): JSON round trips, number printing round trips, set
//! construction invariants. Each property runs on a few thousand values;
//! failures print the seed and the value.

use fnhcl_value::{
    Number, Type, Value, convert, from_json_text, ops, to_json_text, unify, unify_unsafe,
};

fn gen_number(r: &mut fastrand::Rng) -> Number {
    match r.usize(..6) {
        0 => Number::from_i64(r.i64(-1000..1000)),
        1 => Number::from_i64(r.i64(..)),
        2 => {
            // a / b: non-terminating binary fractions at full precision.
            let a = Number::from_i64(r.i64(-500_000..500_000));
            let b = Number::from_i64(r.i64(1..=9999));
            a.div(&b).unwrap_or_else(|_| Number::from_i64(0))
        }
        3 => {
            let digits: String = (0..r.usize(1..=60)).map(|_| r.digit(10)).collect();
            let e = r.i64(-100..100);
            Number::parse(&format!("{digits}e{e}")).unwrap_or_else(|| Number::from_i64(0))
        }
        4 => {
            Number::from_f64(f64::from_bits(r.u64(..) >> 2)).unwrap_or_else(|| Number::from_i64(1))
        }
        _ => {
            let x = Number::from_i64(r.i64(1..=100));
            let y = Number::from_i64(r.i64(1..=100));
            x.div(&y)
                .and_then(|q| q.mul(&Number::parse("1e-30").unwrap_or_else(|| Number::from_i64(1))))
                .unwrap_or_else(|_| Number::from_i64(0))
        }
    }
}

fn gen_string(r: &mut fastrand::Rng) -> String {
    const PIECES: &[&str] = &[
        "a", "Z", "0", " ", "\"", "\\", "/", "<", ">", "&", "\n", "\t", "\r", "\u{0}", "\u{1f}",
        "\u{7f}", "é", "ß", "\u{2028}", "\u{2029}", "😀", "\u{fffd}", "\u{feff}", "ключ",
    ];
    (0..r.usize(..8))
        .map(|_| PIECES[r.usize(..PIECES.len())])
        .collect()
}

/// JSON-shaped values: the image of `from_json_text`.
fn gen_json_value(r: &mut fastrand::Rng, depth: usize) -> Value {
    let leaf = depth >= 4 || r.usize(..100) < 40;
    if leaf {
        return match r.usize(..5) {
            0 => Value::null(),
            1 => Value::Bool(r.bool()),
            2 | 3 => Value::Number(gen_number(r)),
            _ => Value::string(gen_string(r)),
        };
    }
    if r.bool() {
        Value::tuple(
            (0..r.usize(..5))
                .map(|_| gen_json_value(r, depth + 1))
                .collect(),
        )
    } else {
        Value::object(
            (0..r.usize(..5))
                .map(|_| (gen_string(r).into(), gen_json_value(r, depth + 1)))
                .collect(),
        )
    }
}

#[test]
fn json_round_trip() {
    let mut r = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    for i in 0..3000 {
        let v = gen_json_value(&mut r, 0);
        let text = to_json_text(&v).unwrap_or_else(|e| panic!("case {i}: {v:?}: {e}"));
        let back = from_json_text(&text).unwrap_or_else(|e| panic!("case {i}: {text}: {e}"));
        assert_eq!(back, v, "case {i}: {text}");
        assert_eq!(back.type_of(), v.type_of(), "case {i}: {text}");
        assert_eq!(
            to_json_text(&back).as_deref(),
            Ok(text.as_str()),
            "case {i}"
        );
        // The text is valid JSON for an independent parser too.
        let sj: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("case {i}: {text}: {e}"));
        assert!(!sj.is_number() || v.as_number().is_some());
    }
}

#[test]
fn number_text_round_trip() {
    let mut r = fastrand::Rng::with_seed(12345);
    for i in 0..5000 {
        let n = gen_number(&mut r);
        let s = n.to_string();
        let back = Number::parse(&s).unwrap_or_else(|| panic!("case {i}: {s}"));
        assert_eq!(back, n, "case {i}: {s}");
        assert!(back.cty_equals(&n), "case {i}: {s}");
        // Shortest: dropping the last significant digit must change the value.
        let digits = s.trim_start_matches('-').replace('.', "");
        let sig = digits.trim_start_matches('0').trim_end_matches('0').len();
        if s.contains('.') && sig > 1 {
            let shorter = &s[..s.len() - 1];
            if let Some(x) = Number::parse(shorter) {
                assert_ne!(x, n, "case {i}: {s} not shortest");
            }
        }
        // Arithmetic identities that hold exactly.
        assert_eq!(n.sub(&n).ok(), Some(Number::from_i64(0)), "case {i}");
        assert_eq!(n.neg().neg(), n, "case {i}");
        assert_eq!(
            n.mul(&Number::from_i64(1)).ok().as_ref(),
            Some(&n),
            "case {i}"
        );
        assert_eq!(
            n.add(&Number::from_i64(0)).ok().as_ref(),
            Some(&n),
            "case {i}"
        );
        assert!(n.floor() <= n && n <= n.ceil(), "case {i}");
    }
}

#[test]
fn set_construction_invariants() {
    let mut r = fastrand::Rng::with_seed(777);
    for i in 0..500 {
        let n = r.usize(..12);
        let items: Vec<Value> = (0..n)
            .map(|_| match r.usize(..3) {
                0 => Value::tuple(vec![Value::int(r.i64(0..4))]),
                1 => Value::tuple(vec![Value::int(r.i64(0..4) * 10)]),
                _ => Value::tuple(vec![Value::Number(gen_number(&mut r))]),
            })
            .collect();
        let ty = Type::tuple(vec![Type::Number]);
        let set = Value::set_from(ty.clone(), items.clone());
        // Permuting the input does not change the result.
        let mut rev = items.clone();
        rev.reverse();
        let set2 = Value::set_from(ty.clone(), rev);
        assert_eq!(to_json_text(&set), to_json_text(&set2), "case {i}");
        // Re-building from the result is the identity.
        let again = Value::set_from(ty.clone(), set.as_seq().unwrap_or(&[]).to_vec());
        assert_eq!(again, set, "case {i}");
        // No two elements are equal; every input element is present.
        let elems = set.as_seq().unwrap_or(&[]);
        for (a, x) in elems.iter().enumerate() {
            for y in &elems[a + 1..] {
                assert_ne!(ops::equals(x, y), Value::TRUE, "case {i}");
            }
        }
        for v in &items {
            assert!(
                elems.iter().any(|e| ops::equals(e, v) == Value::TRUE),
                "case {i}"
            );
        }
    }
}

#[test]
fn conversion_identities() {
    let mut r = fastrand::Rng::with_seed(4242);
    for i in 0..2000 {
        let v = gen_json_value(&mut r, 0);
        let t = v.type_of();
        assert_eq!(convert(&v, &t).as_ref(), Ok(&v), "case {i}");
        assert_eq!(convert(&v, &Type::Dynamic).as_ref(), Ok(&v), "case {i}");
        assert_eq!(unify(std::slice::from_ref(&t)), Some(t.clone()), "case {i}");
        assert_eq!(
            unify_unsafe(&[t.clone(), t.clone()]),
            Some(t.clone()),
            "case {i}"
        );
        assert_eq!(ops::equals(&v, &v), Value::TRUE, "case {i}: {v:?}");
    }
}
