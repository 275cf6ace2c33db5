//! Unit tests for [`crate::Number`] (arithmetic tables are in
//! `tests/number.rs`, checked against the Go oracle).

use num_bigint::BigInt;

use crate::{Number, NumberError};

fn n(s: &str) -> Number {
    Number::parse(s).unwrap_or_else(|| panic!("parse {s:?}"))
}

#[test]
fn parse_table() {
    let cases: &[(&str, Option<&str>)] = &[
        ("123", Some("123")),
        ("-1.5", Some("-1.5")),
        ("+7", Some("7")),
        ("1e10", Some("10000000000")),
        ("1.5E-3", Some("0.0015")),
        (
            "99999999999999999999999999",
            Some("99999999999999999999999999"),
        ),
        ("1.", Some("1")),
        (".5", Some("0.5")),
        ("007", Some("7")),
        ("-0", Some("-0")),
        ("0.000", Some("0")),
        ("1p3", Some("8")),
        ("1.5p-1", Some("0.75")),
        ("inf", Some("+Inf")),
        ("Inf", Some("+Inf")),
        ("-Inf", Some("-Inf")),
        ("+inf", Some("+Inf")),
        ("1e99999999999", None),
        ("1e-99999999999", None),
        ("", None),
        (".", None),
        ("-", None),
        ("1e", None),
        ("1e+", None),
        (" 1", None),
        ("1 ", None),
        ("1_000", None),
        ("0x10", None),
        ("1.2.3", None),
        ("abc", None),
        ("Infinity", None),
        ("NaN", None),
        ("--1", None),
    ];
    for (input, want) in cases {
        let got = Number::parse(input).map(|v| v.to_string());
        assert_eq!(got.as_deref(), *want, "parse({input:?})");
    }
}

#[test]
fn huge_exponents_are_cheap() {
    assert_eq!(n("1e999999999").to_string(), "+Inf");
    assert_eq!(n("-1e999999999").to_string(), "-Inf");
    assert_eq!(n("1e-999999999").to_string(), "0");
    assert_eq!(n("-1e-999999999").to_string(), "-0");
    assert_eq!(n("1p2000000").to_string(), "+Inf");
    // Repeated squaring overflows to infinity instead of growing.
    let mut x = n("1e100");
    for _ in 0..40 {
        x = x.mul(&x).expect("mul");
    }
    assert!(x.is_infinite());
    let mut y = n("1e-100");
    for _ in 0..40 {
        y = y.mul(&y).expect("mul");
    }
    assert!(y.is_zero());
}

#[test]
fn extreme_but_finite_literals() {
    let big = n("1e300000");
    assert!(!big.is_infinite());
    let s = big.to_string();
    assert_eq!(s.len(), 300001);
    let small = n("1.5e-300000");
    assert!(!small.is_zero());
    assert!(small.to_string().ends_with("15"));
    // Long digit strings parse in bounded time (digits past 40000 only
    // count as "nonzero tail").
    let long = format!("0.{}", "3".repeat(200_000));
    assert_eq!(
        n(&long),
        n(
            "0.3333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333333"
        )
    );
    assert_eq!(n(&"7".repeat(1_000_000)).to_string(), "+Inf");
}

#[test]
fn large_but_finite_prints() {
    let s = n("1e5000").to_string();
    assert_eq!(s.len(), 5001);
    assert!(s.starts_with('1') && s[1..].bytes().all(|b| b == b'0'));
    let s = n("1e-5000").to_string();
    assert_eq!(s, format!("0.{}1", "0".repeat(4999)));
}

#[test]
fn to_i64_and_friends() {
    assert_eq!(n("42").to_i64(), Some(42));
    assert_eq!(n("-42").to_i64(), Some(-42));
    assert_eq!(n("4.5").to_i64(), None);
    assert_eq!(n("9223372036854775807").to_i64(), Some(i64::MAX));
    assert_eq!(n("-9223372036854775808").to_i64(), Some(i64::MIN));
    assert_eq!(n("9223372036854775808").to_i64(), None);
    assert_eq!(n("-9223372036854775809").to_i64(), None);
    assert_eq!(n("-0").to_i64(), Some(0));
    assert_eq!(n("1e30").to_i64(), None);
    assert_eq!(n("inf").to_i64(), None);
    assert_eq!(n("18446744073709551615").to_u64(), Some(u64::MAX));
    assert_eq!(n("-1").to_u64(), None);
    assert_eq!(
        n("123456789012345678901234567890").to_bigint(),
        "123456789012345678901234567890".parse::<BigInt>().ok()
    );
    assert_eq!(n("1.5").to_bigint(), None);
    let big: BigInt = "-98765432109876543210987654321".parse().expect("bigint");
    assert_eq!(Number::from_bigint(&big).to_string(), big.to_string());
}

#[test]
fn to_f64_nearest() {
    assert_eq!(n("0.1").to_f64(), 0.1);
    assert_eq!(n("1e308").to_f64(), 1e308);
    assert_eq!(n("1e309").to_f64(), f64::INFINITY);
    assert_eq!(n("-1e309").to_f64(), f64::NEG_INFINITY);
    assert_eq!(n("9007199254740993").to_f64(), 9007199254740992.0); // tie to even
    assert_eq!(n("9007199254740995").to_f64(), 9007199254740996.0);
    assert_eq!(n("99999999999999999999").to_f64(), 1e20);
    assert_eq!(n("-0").to_f64().to_bits(), (-0.0f64).to_bits());
}

#[test]
fn from_f64_paths() {
    // Data path: shortest decimal, 512 bits, so 0.1 + 0.2 == 0.3.
    let a = Number::from_f64(0.1).expect("num");
    let b = Number::from_f64(0.2).expect("num");
    assert_eq!(a.add(&b).expect("add").to_string(), "0.3");
    assert_eq!(
        Number::from_f64(1e21).expect("num").to_string(),
        "1000000000000000000000"
    );
    assert_eq!(Number::from_f64(-0.0).expect("num").to_string(), "-0");
    assert!(Number::from_f64(f64::NAN).is_none());
    // cty NumberFloatVal: exact binary value at 53 bits.
    let s = Number::cty_float_val(std::f64::consts::SQRT_2).expect("num");
    assert_eq!(s.to_string(), "1.4142135623730951");
    assert_eq!(s.precision(), 53);
    // ...and arithmetic with a 512-bit literal shows all the digits
    // (oracle: tostring(pow(2,0.5)*2)).
    let two = n("2");
    assert_eq!(
        s.mul(&two).expect("mul").to_string(),
        "2.828427124746190290949243717477656900882720947265625"
    );
    assert_eq!(
        Number::cty_float_val(1e20).expect("num").to_string(),
        "100000000000000000000"
    );
    assert_eq!(
        Number::cty_float_val(2f64.powi(70))
            .expect("num")
            .to_string(),
        "1180591620717411300000"
    );
}

#[test]
fn cty_int_val_precision() {
    // Two NumberIntVal operands divide at 64 bits, as in cty.
    let a = Number::cty_int_val(1);
    let b = Number::cty_int_val(3);
    assert_eq!(
        a.div(&b).expect("div").to_string(),
        "0.33333333333333333334"
    );
    // (oracle: tostring(length([1,2])/length([1,2,3]) + length([1])))
    let two_thirds = Number::cty_int_val(2).div(&b).expect("div");
    assert_eq!(
        two_thirds.add(&a).expect("add").to_string(),
        "1.6666666666666666667"
    );
    // With a literal the larger (512-bit) precision wins.
    assert_eq!(
        a.div(&n("3")).expect("div").to_string(),
        format!("0.{}5", "3".repeat(154))
    );
}

#[test]
fn errors_and_infinities() {
    let inf = n("1").div(&n("0")).expect("div");
    let ninf = inf.neg();
    assert_eq!(inf.to_string(), "+Inf");
    assert_eq!(n("0").div(&n("0")).err(), Some(NumberError::ZeroByZero));
    assert_eq!(inf.div(&inf).err(), Some(NumberError::ZeroByZero));
    assert_eq!(inf.add(&ninf).err(), Some(NumberError::OpposingInfinities));
    assert_eq!(
        inf.sub(&inf).err(),
        Some(NumberError::InfinityMinusInfinity)
    );
    assert_eq!(inf.mul(&n("0")).err(), Some(NumberError::ZeroTimesInfinity));
    assert_eq!(n("5").rem(&inf).err(), Some(NumberError::ModuloInfinity));
    assert_eq!(inf.rem(&n("2")).err(), Some(NumberError::ModuloInfinity));
    assert_eq!(inf.rem(&n("0")).expect("rem").to_string(), "+Inf");
    assert_eq!(inf.add(&inf).expect("add").to_string(), "+Inf");
    assert_eq!(inf.sub(&ninf).expect("sub").to_string(), "+Inf");
    assert_eq!(ninf.mul(&n("-2")).expect("mul").to_string(), "+Inf");
    assert_eq!(n("-1").div(&inf).expect("div").to_string(), "-0");
    assert_eq!(inf.div(&n("-2")).expect("div").to_string(), "-Inf");
    assert_eq!(
        NumberError::ZeroByZero.to_string(),
        "can't divide zero by zero or infinity by infinity"
    );
}

#[test]
fn floor_ceil_abs() {
    let cases = [
        ("5", "5", "5"),
        ("5.1", "5", "6"),
        ("4.9", "4", "5"),
        ("-1.8", "-2", "-1"),
        ("-0.5", "-1", "0"),
        ("0.5", "0", "1"),
        ("-0", "0", "0"),
        (
            "-99999999999999999999999999999999999999999999999999998.123",
            "-99999999999999999999999999999999999999999999999999999",
            "-99999999999999999999999999999999999999999999999999998",
        ),
        ("1e-300", "0", "1"),
        ("-1e-300", "-1", "0"),
        ("inf", "+Inf", "+Inf"),
    ];
    for (x, fl, ce) in cases {
        assert_eq!(n(x).floor().to_string(), fl, "floor({x})");
        assert_eq!(n(x).ceil().to_string(), ce, "ceil({x})");
    }
    assert_eq!(n("-0").abs().to_string(), "0");
    assert_eq!(n("-2.5").abs().to_string(), "2.5");
    assert_eq!(n("-inf").abs().to_string(), "+Inf");
    assert_eq!(
        n("-9223372036854775808").abs().to_string(),
        "9223372036854775808"
    );
}

#[test]
fn ordering_and_equality() {
    let mut v: Vec<Number> = [
        "3",
        "-inf",
        "0.5",
        "-0",
        "inf",
        "-2",
        "1e30",
        "0.49999999999999999999999",
    ]
    .iter()
    .map(|s| n(s))
    .collect();
    v.sort();
    let s: Vec<String> = v.iter().map(ToString::to_string).collect();
    assert_eq!(
        s,
        [
            "-Inf",
            "-2",
            "-0",
            "0.49999999999999999999999",
            "0.5",
            "3",
            "1000000000000000000000000000000",
            "+Inf"
        ]
    );
    assert_eq!(n("-0"), n("0"));
    assert!(n("-0").cty_equals(&n("0")));
    assert_eq!(n("0.1").add(&n("0.2")).expect("add"), n("0.3"));
    assert!(n("1").cty_equals(&Number::cty_int_val(1)));
    // cty compares numbers of different precision by their text.
    let f = Number::cty_float_val(0.1).expect("num");
    assert!(f.cty_equals(&n("0.1")));
    assert_ne!(f, n("0.1"));
    assert!(!n("1").cty_equals(&n("2")));
    assert!(n("inf").cty_equals(&n("inf")));
    assert!(!n("inf").cty_equals(&n("-inf")));
}

#[test]
fn size_is_small() {
    assert!(std::mem::size_of::<Number>() <= 16);
}
