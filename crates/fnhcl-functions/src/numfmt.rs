//! Go's `fmt` formatting of cty numbers: `*big.Float` verbs (`%e %E %f %g
//! %G`, shortest `%v`) and `*big.Int` verbs (`%b %d %o %x %X`).
//!
//! cty numbers are 512-bit binary floats. Their decimal text (the
//! `Number` display, the shortest decimal that round-trips at 512 bits) is
//! turned back into the exact binary value so that rounding to a given
//! precision matches Go, which rounds the exact binary expansion.

use fnhcl_value::Number;
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};

/// A non-negative decimal `0.mant × 10^exp`; `mant` holds ASCII digits
/// without leading or trailing zeros (empty for zero). Mirrors Go's
/// `math/big` `decimal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub mant: Vec<u8>,
    pub exp: i64,
}

/// The parts of a number needed for formatting.
pub(crate) enum Parts {
    Finite { neg: bool, shortest: Decimal },
    Inf { neg: bool },
}

/// Exponents beyond this are formatted from the shortest decimal instead
/// of the exact binary expansion (which would be huge).
const EXACT_EXP_LIMIT: i64 = 20_000;

pub(crate) fn parts(n: &Number) -> Parts {
    if n.is_infinite() {
        return Parts::Inf {
            neg: n.is_negative(),
        };
    }
    let text = n.to_string();
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text.as_str()),
    };
    Parts::Finite {
        neg,
        shortest: parse_decimal(body),
    }
}

/// Parses `123.45`, `1e+20`, `0.001` (no sign).
pub(crate) fn parse_decimal(s: &str) -> Decimal {
    let (num, e) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], s[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (s, 0),
    };
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    let mut mant: Vec<u8> = int.bytes().chain(frac.bytes()).collect();
    let mut exp = int.len() as i64 + e;
    let lead = mant.iter().take_while(|&&b| b == b'0').count();
    mant.drain(..lead);
    exp -= lead as i64;
    while mant.last() == Some(&b'0') {
        mant.pop();
    }
    if mant.is_empty() {
        exp = 0;
    }
    Decimal { mant, exp }
}

/// The exact decimal expansion of a finite number's binary value
/// (`None` for infinities). Very large binary exponents fall back to the
/// shortest decimal.
pub(crate) fn exact(n: &Number) -> Option<Decimal> {
    let (_, mant, exp) = n.to_binary_parts()?;
    if mant.is_zero() {
        return Some(Decimal {
            mant: Vec::new(),
            exp: 0,
        });
    }
    if exp.abs() > EXACT_EXP_LIMIT {
        return match parts(n) {
            Parts::Finite { shortest, .. } => Some(shortest),
            Parts::Inf { .. } => None,
        };
    }
    if exp >= 0 {
        return Some(decimal_of_integer(&(mant << (exp as usize)), 0));
    }
    let k = (-exp) as u32;
    let scaled = mant * BigUint::from(5u8).pow(k);
    Some(decimal_of_integer(&scaled, k as i64))
}

fn pow10(n: u64) -> BigUint {
    BigUint::from(10u8).pow(n as u32)
}

/// `n × 10^-scale` as a [`Decimal`].
fn decimal_of_integer(n: &BigUint, scale: i64) -> Decimal {
    let s = n.to_str_radix(10);
    let mut d = Decimal {
        mant: s.into_bytes(),
        exp: 0,
    };
    d.exp = d.mant.len() as i64 - scale;
    while d.mant.last() == Some(&b'0') {
        d.mant.pop();
    }
    if d.mant.is_empty() {
        d.exp = 0;
    }
    d
}

impl Decimal {
    fn at(&self, i: i64) -> u8 {
        if i >= 0 && (i as usize) < self.mant.len() {
            self.mant[i as usize]
        } else {
            b'0'
        }
    }

    fn should_round_up(&self, n: usize) -> bool {
        if self.mant[n] == b'5' && n + 1 == self.mant.len() {
            return n > 0 && (self.mant[n - 1] - b'0') & 1 != 0;
        }
        self.mant[n] >= b'5'
    }

    /// Rounds to `n` digits (Go's `decimal.round`).
    pub(crate) fn round(&mut self, n: i64) {
        if n < 0 || n as usize >= self.mant.len() {
            return;
        }
        let n = n as usize;
        if self.should_round_up(n) {
            self.round_up(n);
        } else {
            self.mant.truncate(n);
            while self.mant.last() == Some(&b'0') {
                self.mant.pop();
            }
            if self.mant.is_empty() {
                self.exp = 0;
            }
        }
    }

    fn round_up(&mut self, mut n: usize) {
        while n > 0 && self.mant[n - 1] >= b'9' {
            n -= 1;
        }
        if n == 0 {
            self.mant.clear();
            self.mant.push(b'1');
            self.exp += 1;
            return;
        }
        self.mant[n - 1] += 1;
        self.mant.truncate(n);
    }

    /// Integer value if the decimal has no fractional part.
    pub(crate) fn to_integer(&self) -> Option<BigUint> {
        if self.mant.is_empty() {
            return Some(BigUint::zero());
        }
        if self.exp < self.mant.len() as i64 {
            return None;
        }
        let digits = BigUint::parse_bytes(&self.mant, 10)?;
        let zeros = (self.exp - self.mant.len() as i64).to_u64()?;
        Some(digits * pow10(zeros))
    }
}

/// Go's `fmtE`.
fn fmt_e(buf: &mut String, upper: bool, prec: i64, d: &Decimal) {
    buf.push(d.mant.first().map_or('0', |&c| c as char));
    if prec > 0 {
        buf.push('.');
        let mut i = 1i64;
        let m = (d.mant.len() as i64).min(prec + 1);
        if i < m {
            for &c in &d.mant[i as usize..m as usize] {
                buf.push(c as char);
            }
            i = m;
        }
        while i <= prec {
            buf.push('0');
            i += 1;
        }
    }
    buf.push(if upper { 'E' } else { 'e' });
    let mut exp = if d.mant.is_empty() { 0 } else { d.exp - 1 };
    if exp < 0 {
        buf.push('-');
        exp = -exp;
    } else {
        buf.push('+');
    }
    if exp < 10 {
        buf.push('0');
    }
    buf.push_str(&exp.to_string());
}

/// Go's `fmtF`.
fn fmt_f(buf: &mut String, prec: i64, d: &Decimal) {
    if d.exp > 0 {
        let m = (d.mant.len() as i64).min(d.exp);
        for &c in &d.mant[..m as usize] {
            buf.push(c as char);
        }
        for _ in m..d.exp {
            buf.push('0');
        }
    } else {
        buf.push('0');
    }
    if prec > 0 {
        buf.push('.');
        for i in 0..prec {
            buf.push(d.at(d.exp + i) as char);
        }
    }
}

/// Go's `(*big.Float).Append` without the sign: `verb` is one of
/// `e E f g G`; `prec` < 0 means shortest.
pub(crate) fn append_float(n: &Number, shortest: &Decimal, verb: char, prec: i64) -> String {
    let mut buf = String::new();
    let mut prec = prec;
    let is_shortest = prec < 0;
    let d = if is_shortest {
        let d = shortest.clone();
        prec = match verb {
            'e' | 'E' => d.mant.len() as i64 - 1,
            'f' => (d.mant.len() as i64 - d.exp).max(0),
            _ => d.mant.len() as i64,
        };
        d
    } else {
        let mut d = exact(n).unwrap_or_else(|| shortest.clone());
        match verb {
            'e' | 'E' => d.round(1 + prec),
            'f' => d.round(d.exp + prec),
            _ => {
                if prec == 0 {
                    prec = 1;
                }
                d.round(prec)
            }
        }
        d
    };
    match verb {
        'e' | 'E' => fmt_e(&mut buf, verb == 'E', prec, &d),
        'f' => fmt_f(&mut buf, prec, &d),
        _ => {
            let mut eprec = prec;
            if eprec > d.mant.len() as i64 && d.mant.len() as i64 >= d.exp {
                eprec = d.mant.len() as i64;
            }
            if is_shortest {
                eprec = 6;
            }
            let exp = d.exp - 1;
            if exp < -4 || exp >= eprec {
                if prec > d.mant.len() as i64 {
                    prec = d.mant.len() as i64;
                }
                fmt_e(&mut buf, verb == 'G', prec - 1, &d);
            } else {
                if prec > d.exp {
                    prec = d.mant.len() as i64;
                }
                fmt_f(&mut buf, (prec - d.exp).max(0), &d);
            }
        }
    }
    buf
}

/// Flags and sizes of one verb.
#[derive(Debug, Clone, Default)]
pub(crate) struct Spec {
    pub zero: bool,
    pub minus: bool,
    pub plus: bool,
    pub space: bool,
    pub sharp: bool,
    pub width: Option<usize>,
    pub prec: Option<usize>,
}

/// Go's `(*big.Float).Format` for `%e %E %f %g %G` (and `%v` as `%g`).
pub(crate) fn format_float(n: &Number, verb: char, spec: &Spec) -> String {
    let (neg, body, inf) = match parts(n) {
        Parts::Inf { neg } => (neg, "Inf".to_owned(), true),
        Parts::Finite { neg, shortest } => {
            let prec = match (verb, spec.prec) {
                (_, Some(p)) => p as i64,
                ('g' | 'G', None) => -1,
                (_, None) => 6,
            };
            (neg, append_float(n, &shortest, verb, prec), false)
        }
    };
    let sign = if neg {
        "-"
    } else if inf {
        if spec.space { " " } else { "+" }
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    pad_number(sign, "", &body, spec, spec.zero && !spec.minus && !inf, 0)
}

/// Go's `(*big.Int).Format` for `%b %d %o %x %X`.
pub(crate) fn format_int(neg: bool, abs: &BigUint, verb: char, spec: &Spec) -> String {
    let mut digits = abs.to_str_radix(int_radix(verb));
    if verb == 'X' {
        digits = digits.to_uppercase();
    }
    let mut out = String::new();
    write_int_digits(&mut out, neg, &digits, verb, spec);
    out
}

/// [`format_int`] of a magnitude that fits in a `u64` (the usual case),
/// appended to `out`: the digits without a big integer or a buffer of
/// their own.
pub(crate) fn write_u64(out: &mut String, neg: bool, abs: u64, verb: char, spec: &Spec) {
    // 64 binary digits at most.
    let mut buf = [0u8; 64];
    let mut at = buf.len();
    let radix = u64::from(int_radix(verb));
    let digit_chars: &[u8; 16] = if verb == 'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut v = abs;
    loop {
        at -= 1;
        buf[at] = digit_chars[(v % radix) as usize];
        v /= radix;
        if v == 0 {
            break;
        }
    }
    // ASCII digits only.
    let digits = std::str::from_utf8(&buf[at..]).unwrap_or("0");
    write_int_digits(out, neg, digits, verb, spec);
}

fn int_radix(verb: char) -> u32 {
    match verb {
        'b' => 2,
        'o' => 8,
        'x' | 'X' => 16,
        _ => 10,
    }
}

/// Sign, prefix, precision zeros and padding around an integer's digits,
/// appended to `out`.
fn write_int_digits(out: &mut String, neg: bool, digits: &str, verb: char, spec: &Spec) {
    let prefix = match verb {
        'b' => "0b",
        'o' => "0",
        'x' => "0x",
        'X' => "0X",
        _ => "",
    };
    let prefix = if spec.sharp { prefix } else { "" };
    let sign = if neg {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let mut zeros = 0usize;
    if let Some(p) = spec.prec {
        if digits.len() < p {
            zeros = p - digits.len();
        } else if digits == "0" && p == 0 {
            return;
        }
    }
    let zero_pad = spec.zero && !spec.minus && spec.prec.is_none();
    write_padded(out, sign, prefix, digits, spec, zero_pad, zeros);
}

fn pad_number(
    sign: &str,
    prefix: &str,
    body: &str,
    spec: &Spec,
    zero_pad: bool,
    zeros: usize,
) -> String {
    let mut out = String::new();
    write_padded(&mut out, sign, prefix, body, spec, zero_pad, zeros);
    out
}

/// A number's sign, prefix, precision zeros and body, padded to the
/// width, appended to `out`.
fn write_padded(
    out: &mut String,
    sign: &str,
    prefix: &str,
    body: &str,
    spec: &Spec,
    zero_pad: bool,
    zeros: usize,
) {
    let len = sign.len() + prefix.len() + zeros + body.len();
    let pad = spec.width.map_or(0, |w| w.saturating_sub(len));
    out.reserve(len + pad);
    if spec.minus {
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', zeros));
        out.push_str(body);
        out.extend(std::iter::repeat_n(' ', pad));
    } else if zero_pad {
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', zeros + pad));
        out.push_str(body);
    } else {
        out.extend(std::iter::repeat_n(' ', pad));
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', zeros));
        out.push_str(body);
    }
}

/// `Text('g', -1)`: cty's `%v` for numbers.
pub(crate) fn shortest_g(n: &Number) -> String {
    match parts(n) {
        Parts::Inf { neg } => if neg { "-Inf" } else { "+Inf" }.to_owned(),
        Parts::Finite { neg, shortest } => {
            let body = append_float(n, &shortest, 'g', -1);
            if neg { format!("-{body}") } else { body }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> Number {
        Number::parse(s).unwrap_or_else(|| Number::from_i64(0))
    }
    fn f(s: &str, verb: char, prec: Option<usize>) -> String {
        let spec = Spec {
            prec,
            ..Spec::default()
        };
        format_float(&num(s), verb, &spec)
    }

    #[test]
    fn floats_like_go() {
        assert_eq!(f("1000", 'E', None), "1.000000E+03");
        assert_eq!(f("1000", 'g', None), "1000");
        assert_eq!(f("0.00000000000000000000001", 'G', None), "1E-23");
        assert_eq!(f("1.06", 'f', Some(1)), "1.1");
        assert_eq!(f("3.14159", 'f', Some(2)), "3.14");
        assert_eq!(f("-10", 'f', None), "-10.000000");
        assert_eq!(f("0.25", 'f', Some(1)), "0.2");
        assert_eq!(f("0.5", 'f', Some(0)), "0");
        assert_eq!(f("1.5", 'f', Some(0)), "2");
        assert_eq!(f("0.001", 'f', Some(1)), "0.0");
        assert_eq!(f("0", 'e', None), "0.000000e+00");
        assert_eq!(f("123456789", 'g', None), "1.23456789e+08");
        assert_eq!(f("1e6", 'g', None), "1e+06");
        assert_eq!(f("100000", 'g', None), "100000");
        assert_eq!(f("0.0001", 'g', None), "0.0001");
        assert_eq!(f("0.00001", 'g', None), "1e-05");
        assert_eq!(f("1234.5678", 'g', Some(3)), "1.23e+03");
        assert_eq!(f("1234.5678", 'e', Some(2)), "1.23e+03");
    }

    #[test]
    fn padding_and_sign() {
        let spec = Spec {
            width: Some(8),
            prec: Some(3),
            minus: true,
            ..Spec::default()
        };
        assert_eq!(format_float(&num("2.5"), 'f', &spec), "2.500   ");
        let spec = Spec {
            width: Some(8),
            zero: true,
            plus: true,
            ..Spec::default()
        };
        assert_eq!(format_float(&num("2.5"), 'g', &spec), "+00002.5");
        let spec = Spec {
            width: Some(5),
            ..Spec::default()
        };
        assert_eq!(format_int(false, &BigUint::from(10u8), 'd', &spec), "   10");
        let spec = Spec {
            sharp: true,
            ..Spec::default()
        };
        assert_eq!(format_int(false, &BigUint::from(254u8), 'X', &spec), "0XFE");
        // The u64 path gives what the big-integer path gives.
        for v in [0u64, 1, 7, 8, 10, 255, 4096, 123_456_789, u64::MAX] {
            for verb in ['b', 'd', 'o', 'x', 'X'] {
                for neg in [false, true] {
                    // Appended after text already there.
                    let mut out = String::from("x");
                    write_u64(&mut out, neg, v, verb, &spec);
                    assert_eq!(
                        out,
                        format!("x{}", format_int(neg, &BigUint::from(v), verb, &spec)),
                        "{v} {verb} {neg}"
                    );
                }
            }
        }
    }

    #[test]
    fn exact_expansion() {
        // 0.1 at 512 bits is slightly above 0.1.
        let d = exact(&num("0.1")).unwrap_or_else(|| parse_decimal("0"));
        assert!(d.mant.len() > 100);
        assert!(d.mant.starts_with(b"1000000000000000000000000000000"));
        assert_eq!(exact(&num("0.25")), Some(parse_decimal("0.25")));
        assert_eq!(exact(&num("123")), Some(parse_decimal("123")));
        // A float64-precision value expands to its exact binary value.
        let f = Number::cty_float_val(0.1).unwrap_or_else(|| num("0"));
        assert_eq!(
            format_float(
                &f,
                'f',
                &Spec {
                    prec: Some(20),
                    ..Spec::default()
                }
            ),
            "0.10000000000000000555"
        );
    }
}
