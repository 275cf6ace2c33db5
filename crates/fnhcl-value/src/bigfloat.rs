//! Arbitrary-precision binary floating point, the engine behind
//! [`crate::Number`].
//!
//! A finite value is `(-1)^neg × mant × 2^exp` with `mant` odd (or zero for
//! a signed zero). Every operation takes the precision (in bits) to round
//! its result to, always rounding to nearest, ties to even, as Go's
//! `big.Float` with `ToNearestEven` does. Exponents are bounded (see
//! [`MAX_EXP`]): results beyond the bound become ±infinity, results below
//! it become ±0, so no operation can allocate without limit.
//!
//! Size: about 805 lines of code; the rest are its unit tests.

use std::cmp::Ordering;

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};

/// Bound on the binary magnitude: a finite value `v != 0` always satisfies
/// `2^(-MAX_EXP-1) <= |v| < 2^MAX_EXP`. (Go's `big.Float` allows 2^31 here;
/// we keep numbers printable in well under a second: 2^(2^20) has about
/// 315 000 decimal digits.)
pub(crate) const MAX_EXP: i64 = 1 << 20;

/// A finite value. `mant` is odd, or zero (then `exp` is 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fin {
    pub(crate) neg: bool,
    pub(crate) mant: BigUint,
    pub(crate) exp: i64,
}

/// Result of an operation: finite or infinite.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Num {
    Fin(Fin),
    Inf(bool),
}

impl Fin {
    pub(crate) fn zero(neg: bool) -> Fin {
        Fin {
            neg,
            mant: BigUint::zero(),
            exp: 0,
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.mant.is_zero()
    }

    /// Builds a normalised value from any mantissa (no rounding).
    pub(crate) fn new(neg: bool, mut mant: BigUint, mut exp: i64) -> Fin {
        match mant.trailing_zeros() {
            None => Fin::zero(neg),
            Some(tz) => {
                if tz > 0 {
                    mant >>= tz;
                    exp += tz as i64;
                }
                Fin { neg, mant, exp }
            }
        }
    }

    pub(crate) fn from_u64(neg: bool, v: u64) -> Fin {
        Fin::new(neg, BigUint::from(v), 0)
    }

    /// Number of significant bits (0 for zero).
    pub(crate) fn sig_bits(&self) -> u64 {
        self.mant.bits()
    }

    /// Position of the top bit: `2^(top-1) <= |v| < 2^top`.
    pub(crate) fn top(&self) -> i64 {
        self.exp + self.mant.bits() as i64
    }

    pub(crate) fn is_integer(&self) -> bool {
        self.is_zero() || self.exp >= 0
    }

    pub(crate) fn negated(&self) -> Fin {
        Fin {
            neg: !self.neg,
            mant: self.mant.clone(),
            exp: self.exp,
        }
    }

    /// Compares magnitudes.
    pub(crate) fn cmp_abs(&self, o: &Fin) -> Ordering {
        match (self.is_zero(), o.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        match self.top().cmp(&o.top()) {
            Ordering::Equal => {}
            ord => return ord,
        }
        // Same top bit: align to the smaller exponent (bounded shift, as
        // the tops are equal the shift is at most the longer mantissa).
        let e = self.exp.min(o.exp);
        let a = &self.mant << (self.exp - e) as u64;
        let b = &o.mant << (o.exp - e) as u64;
        a.cmp(&b)
    }

    /// Compares by value (-0 == +0).
    pub(crate) fn cmp_value(&self, o: &Fin) -> Ordering {
        let sa = if self.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        };
        let sb = if o.is_zero() {
            0
        } else if o.neg {
            -1
        } else {
            1
        };
        match sa.cmp(&sb) {
            Ordering::Equal => {}
            ord => return ord,
        }
        if sa == 0 {
            return Ordering::Equal;
        }
        let m = self.cmp_abs(o);
        if sa < 0 { m.reverse() } else { m }
    }

    /// The integer part (truncated toward zero) as magnitude, and whether
    /// a fractional part was dropped.
    pub(crate) fn trunc_abs(&self) -> (BigUint, bool) {
        if self.is_zero() {
            return (BigUint::zero(), false);
        }
        if self.exp >= 0 {
            return (&self.mant << self.exp as u64, false);
        }
        let sh = (-self.exp) as u64;
        if sh >= self.mant.bits() {
            return (BigUint::zero(), true);
        }
        // mant is odd, so shifting out at least one bit drops a fraction.
        (&self.mant >> sh, true)
    }
}

/// Rounds `(-1)^neg × mant × 2^exp` (plus a nonzero amount smaller than
/// one unit of `mant`'s last bit when `sticky`) to `prec` bits.
pub(crate) fn round(neg: bool, mut mant: BigUint, mut exp: i64, sticky: bool, prec: u32) -> Num {
    if mant.is_zero() {
        return Num::Fin(Fin::zero(neg));
    }
    let prec = u64::from(prec.max(1));
    let mut bits = mant.bits();
    if sticky && bits < prec + 2 {
        // Make room so the sticky part sits below the rounding bit.
        let sh = prec + 2 - bits;
        mant <<= sh;
        exp -= sh as i64;
        bits += sh;
    }
    if bits > prec {
        let shift = bits - prec;
        let half = mant.bit(shift - 1);
        let rest = sticky || mant.trailing_zeros().is_some_and(|tz| tz < shift - 1);
        let mut kept = mant >> shift;
        exp += shift as i64;
        if half && (rest || kept.bit(0)) {
            kept += 1u32;
        }
        mant = kept;
    }
    let f = Fin::new(neg, mant, exp);
    check_range(f)
}

fn check_range(f: Fin) -> Num {
    if f.is_zero() {
        return Num::Fin(f);
    }
    let top = f.top();
    if top > MAX_EXP {
        Num::Inf(f.neg)
    } else if top < -MAX_EXP {
        Num::Fin(Fin::zero(f.neg))
    } else {
        Num::Fin(f)
    }
}

/// Rounds a finite value to `prec` bits.
pub(crate) fn round_fin(f: &Fin, prec: u32) -> Num {
    if f.sig_bits() <= u64::from(prec) {
        return check_range(f.clone());
    }
    round(f.neg, f.mant.clone(), f.exp, false, prec)
}

/// `a + b` rounded to `prec` bits (Go `big.Float.Add`).
pub(crate) fn add(a: &Fin, b: &Fin, prec: u32) -> Num {
    if a.is_zero() && b.is_zero() {
        // -0 + -0 = -0; every other combination is +0.
        return Num::Fin(Fin::zero(a.neg && b.neg));
    }
    if a.is_zero() {
        return round_fin(b, prec);
    }
    if b.is_zero() {
        return round_fin(a, prec);
    }
    let (big, small) = if a.cmp_abs(b) == Ordering::Less {
        (b, a)
    } else {
        (a, b)
    };
    // If the smaller operand is far below the larger one's last kept
    // bit, it cannot change the rounded result.
    if big.top() - small.top() > i64::from(prec) + 3 && big.sig_bits() <= u64::from(prec) {
        return check_range(big.clone());
    }
    let e = big.exp.min(small.exp);
    let x = &big.mant << (big.exp - e) as u64;
    let y = &small.mant << (small.exp - e) as u64;
    if big.neg == small.neg {
        round(big.neg, x + y, e, false, prec)
    } else if x == y {
        Num::Fin(Fin::zero(false))
    } else {
        round(big.neg, x - y, e, false, prec)
    }
}

/// `a × b` rounded to `prec` bits (Go `big.Float.Mul`).
pub(crate) fn mul(a: &Fin, b: &Fin, prec: u32) -> Num {
    let neg = a.neg != b.neg;
    if a.is_zero() || b.is_zero() {
        return Num::Fin(Fin::zero(neg));
    }
    round(neg, &a.mant * &b.mant, a.exp + b.exp, false, prec)
}

/// `a / b` rounded to `prec` bits (Go `big.Float.Quo`); `b` must be
/// nonzero.
pub(crate) fn quo(a: &Fin, b: &Fin, prec: u32) -> Num {
    let neg = a.neg != b.neg;
    if a.is_zero() {
        return Num::Fin(Fin::zero(neg));
    }
    let want = i64::from(prec) + 2;
    let k = (want + b.sig_bits() as i64 - a.sig_bits() as i64 + 1).max(0);
    let num = &a.mant << k as u64;
    let (q, r) = num.div_rem(&b.mant);
    round(neg, q, a.exp - b.exp - k, !r.is_zero(), prec)
}

// ---------------------------------------------------------------------
// float64

/// Nearest `f64` (ties to even), with overflow to ±inf and gradual
/// underflow, as Go's `big.Float.Float64`.
pub(crate) fn to_f64(f: &Fin) -> f64 {
    if f.is_zero() {
        return if f.neg { -0.0 } else { 0.0 };
    }
    let sign = if f.neg { -1.0 } else { 1.0 };
    let top = f.top();
    if top > 1025 {
        return sign * f64::INFINITY;
    }
    if top >= -1021 {
        // Normal range: round to 53 bits.
        let Num::Fin(r) = round(false, f.mant.clone(), f.exp, false, 53) else {
            return sign * f64::INFINITY;
        };
        let rtop = r.top();
        if rtop > 1024 {
            return sign * f64::INFINITY;
        }
        // Put the mantissa at exactly 53 bits: value = m × 2^(rtop-53).
        let m = (&r.mant << (53 - r.sig_bits())).to_u64().unwrap_or(0);
        let biased = (rtop - 1 + 1023) as u64;
        let bits = (biased << 52) | (m & ((1u64 << 52) - 1));
        return sign * f64::from_bits(bits);
    }
    // Subnormal range: round to a multiple of 2^-1074.
    let shift = f.exp + 1074; // value = mant × 2^shift units
    let q: u64 = if shift >= 0 {
        (&f.mant << shift as u64).to_u64().unwrap_or(0)
    } else {
        let sh = (-shift) as u64;
        if sh > f.mant.bits() {
            0
        } else {
            let half = f.mant.bit(sh - 1);
            let rest = f.mant.trailing_zeros().is_some_and(|tz| tz < sh - 1);
            let kept = (&f.mant >> sh).to_u64().unwrap_or(0);
            if half && (rest || kept & 1 == 1) {
                kept + 1
            } else {
                kept
            }
        }
    };
    sign * (q as f64) * f64::from_bits(1) // 2^-1074, exact
}

/// The exact value of a finite `f64`.
pub(crate) fn from_f64(v: f64) -> Fin {
    let bits = v.to_bits();
    let neg = bits >> 63 == 1;
    let bexp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if bexp == 0 {
        Fin::new(neg, BigUint::from(frac), -1074)
    } else {
        Fin::new(neg, BigUint::from(frac | (1u64 << 52)), bexp - 1075)
    }
}

// ---------------------------------------------------------------------
// Decimal output: Go's `Text('f', -1)`.

/// A decimal `0.d1 d2 d3 ... × 10^exp`. When `exact`, `digits` has no
/// trailing zeros and is the whole expansion; otherwise the expansion
/// continues (with some nonzero digit) beyond `digits`.
#[derive(Debug, Clone)]
struct Dec {
    digits: Vec<u8>,
    exp: i64,
    exact: bool,
}

impl Dec {
    /// Digit at index `i`; `None` if it is not known.
    fn at(&self, i: usize) -> Option<u8> {
        match self.digits.get(i) {
            Some(&d) => Some(d),
            None if self.exact => Some(b'0'),
            None => None,
        }
    }
    /// `i + 1 == len` (for the true length).
    fn len_is(&self, n: usize) -> bool {
        self.exact && self.digits.len() == n
    }
    /// `n < len` (for the true length).
    fn len_gt(&self, n: usize) -> bool {
        !self.exact || self.digits.len() > n
    }
}

/// At least `want` leading decimal digits of `mant × 2^exp` (`mant > 0`).
fn decimal_prefix(mant: &BigUint, exp: i64, want: u64) -> Dec {
    // log10(2) slightly overestimated/underestimated bounds.
    let top = exp + mant.bits() as i64; // value < 2^top
    // Decimal digits before the point, approximately.
    let approx = ((top as f64) * std::f64::consts::LOG10_2).floor() as i64;
    // Scale by 10^t so that the integer part has >= want digits.
    let t = want as i64 - approx + 2;
    // value × 10^t = mant × 2^exp × 2^t × 5^t
    let e2 = exp + t;
    let (num, den) = {
        let mut num = mant.clone();
        let mut den = BigUint::one();
        if t >= 0 {
            num *= BigUint::from(5u32).pow(t as u32);
        } else {
            den *= BigUint::from(5u32).pow((-t) as u32);
        }
        if e2 >= 0 {
            num <<= e2 as u64;
        } else {
            den <<= (-e2) as u64;
        }
        (num, den)
    };
    let (q, r) = num.div_rem(&den);
    let mut s = q.to_str_radix(10).into_bytes();
    let exp10 = s.len() as i64 - t;
    let exact = r.is_zero();
    if exact {
        while s.last() == Some(&b'0') {
            s.pop();
        }
    }
    Dec {
        digits: s,
        exp: exp10,
        exact,
    }
}

/// Go's `decimal.round`/`roundUp`/`roundDown` on a prefix known to be
/// long enough.
fn round_up(d: &mut Dec, mut n: usize) {
    while n > 0 && d.digits[n - 1] >= b'9' {
        n -= 1;
    }
    if n == 0 {
        d.digits.clear();
        d.digits.push(b'1');
        d.exp += 1;
    } else {
        d.digits[n - 1] += 1;
        d.digits.truncate(n);
    }
    d.exact = true;
}

fn round_down(d: &mut Dec, n: usize) {
    d.digits.truncate(n);
    while d.digits.last() == Some(&b'0') {
        d.digits.pop();
    }
    if d.digits.is_empty() {
        d.exp = 0;
    }
    d.exact = true;
}

/// Shortest decimal for `f` at precision `prec`, following Go's
/// `big.Float` algorithm (`roundShortest`) exactly, including its use of
/// a symmetric half-ulp interval. `None` if more digits are needed.
fn shortest_with(f: &Fin, prec: u32, want: u64) -> Option<Dec> {
    let mut d = decimal_prefix(&f.mant, f.exp, want);
    let l = f.sig_bits();
    let p1 = u64::from(prec) + 1;
    // mant2 has prec+1 bits; its last bit is half an ulp.
    let (m2, e2) = if l <= p1 {
        (&f.mant << (p1 - l), f.exp - (p1 - l) as i64)
    } else {
        (&f.mant >> (l - p1), f.exp + (l - p1) as i64)
    };
    let inclusive = !m2.bit(1);
    let lower_m = &m2 - 1u32;
    let upper_m = &m2 + 1u32;
    let lower = if lower_m.is_zero() {
        Dec {
            digits: Vec::new(),
            exp: 0,
            exact: true,
        }
    } else {
        decimal_prefix(&lower_m, e2, want)
    };
    let upper = decimal_prefix(&upper_m, e2, want);

    let mut i = 0usize;
    loop {
        if !d.len_gt(i) {
            // Walked all digits of d: nothing to shorten.
            return Some(d);
        }
        let m = d.at(i)?;
        let lo = lower.at(i)?;
        let up = upper.at(i)?;
        let okdown = lo != m || (inclusive && lower.len_is(i + 1));
        let okup = m != up && (inclusive || m + 1 < up || upper.len_gt(i + 1));
        let n = i + 1;
        match (okdown, okup) {
            (true, true) => {
                // Round to nearest, ties (exactly ...5) to even.
                if !d.len_gt(n) {
                    return Some(d);
                }
                let next = d.at(n)?;
                let halfway = next == b'5' && d.len_is(n + 1);
                let up = if halfway {
                    (d.digits[n - 1] - b'0') & 1 == 1
                } else {
                    next >= b'5'
                };
                if up {
                    round_up(&mut d, n);
                } else {
                    round_down(&mut d, n);
                }
                return Some(d);
            }
            (true, false) => {
                if d.len_gt(n) {
                    round_down(&mut d, n);
                }
                return Some(d);
            }
            (false, true) => {
                if d.len_gt(n) {
                    round_up(&mut d, n);
                }
                return Some(d);
            }
            (false, false) => {}
        }
        i += 1;
    }
}

/// Go's `Text('f', -1)` for a finite value at precision `prec`.
pub(crate) fn format_f(f: &Fin, prec: u32) -> String {
    let mut out = String::new();
    if f.neg {
        out.push('-');
    }
    if f.is_zero() {
        out.push('0');
        return out;
    }
    let mut want = u64::from(prec) * 31 / 100 + 40;
    let d = loop {
        if let Some(d) = shortest_with(f, prec, want) {
            break d;
        }
        want *= 2;
    };
    // fmtF with prec = max(len - exp, 0)
    let n = d.digits.len() as i64;
    if d.exp > 0 {
        let m = n.min(d.exp) as usize;
        out.push_str(std::str::from_utf8(&d.digits[..m]).unwrap_or(""));
        for _ in m as i64..d.exp {
            out.push('0');
        }
    } else {
        out.push('0');
    }
    let frac = (n - d.exp).max(0);
    if frac > 0 {
        out.push('.');
        for i in 0..frac {
            let idx = d.exp + i;
            let c = if idx >= 0 && (idx as usize) < d.digits.len() {
                d.digits[idx as usize]
            } else {
                b'0'
            };
            out.push(c as char);
        }
    }
    out
}

/// Go's `Text('g', 10)` (what `big.Float.String()` prints) for a finite
/// value; cty uses it when ordering set elements of complex types.
pub(crate) fn format_g10(f: &Fin) -> String {
    let mut out = String::new();
    if f.neg {
        out.push('-');
    }
    if f.is_zero() {
        out.push('0');
        return out;
    }
    let mut d = decimal_prefix(&f.mant, f.exp, 40);
    let n = 10usize;
    if d.len_gt(n) {
        let next = d.digits.get(n).copied().unwrap_or(b'0');
        let halfway = next == b'5' && d.len_is(n + 1);
        let up = if halfway {
            (d.digits[n - 1] - b'0') & 1 == 1
        } else {
            next >= b'5'
        };
        if up {
            round_up(&mut d, n);
        } else {
            round_down(&mut d, n);
        }
    }
    let len = d.digits.len() as i64;
    let digit = |i: i64| -> char {
        if i >= 0 && (i as usize) < d.digits.len() {
            d.digits[i as usize] as char
        } else {
            '0'
        }
    };
    let mut eprec = 10i64;
    if eprec > len && len >= d.exp {
        eprec = len;
    }
    let exp = d.exp - 1;
    if exp < -4 || exp >= eprec {
        let p = len.min(10) - 1;
        out.push(digit(0));
        if p > 0 {
            out.push('.');
            for i in 1..=p {
                out.push(digit(i));
            }
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    } else {
        let p = if 10 > d.exp { len } else { 10 };
        if d.exp > 0 {
            for i in 0..d.exp {
                out.push(digit(i));
            }
        } else {
            out.push('0');
        }
        let frac = (p - d.exp).max(0);
        if frac > 0 {
            out.push('.');
            for i in 0..frac {
                out.push(digit(d.exp + i));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------
// Decimal input: Go's `big.ParseFloat(s, 10, prec, ToNearestEven)`.

/// Parse result.
pub(crate) enum Parsed {
    Num(Num),
    Invalid,
}

/// Go computes 5^n for n > 27 with intermediate rounding; we do the same
/// so that results agree bit for bit.
fn pow5(n: u64, prec: u32) -> Num {
    const TAB_MAX: u64 = 27;
    if n <= TAB_MAX {
        return Num::Fin(Fin::from_u64(false, 5u64.pow(n as u32)));
    }
    let mut z = Num::Fin(Fin::from_u64(false, 5u64.pow(TAB_MAX as u32)));
    let mut f = Num::Fin(Fin::from_u64(false, 5));
    let fprec = prec + 64;
    let mut n = n - TAB_MAX;
    while n > 0 {
        if n & 1 != 0 {
            z = match (&z, &f) {
                (Num::Fin(a), Num::Fin(b)) => mul(a, b, prec),
                _ => Num::Inf(false),
            };
        }
        n >>= 1;
        if n > 0 {
            f = match &f {
                Num::Fin(a) => mul(a, a, fprec),
                inf => inf.clone(),
            };
        }
    }
    z
}

/// Parses a decimal number the way Go's `big.ParseFloat` does with base 10:
/// optional sign, digits with an optional `.`, optional exponent `e`/`E`
/// (power of ten) or `p`/`P` (power of two); `Inf`/`inf` with optional
/// sign. No spaces, no underscores.
/// Significant digits kept when parsing (see [`parse`]).
const MAX_DIGITS: usize = 40_000;

pub(crate) fn parse(s: &str, prec: u32) -> Parsed {
    let b = s.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        neg = b[i] == b'-';
        i += 1;
    }
    if &b[i..] == b"Inf" || &b[i..] == b"inf" {
        return Parsed::Num(Num::Inf(neg));
    }
    // mantissa
    let mut mant_digits: Vec<u8> = Vec::new();
    let mut seen_point = false;
    let mut frac_digits: i64 = 0;
    let mut any_digit = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                any_digit = true;
                if !(mant_digits.is_empty() && c == b'0') {
                    mant_digits.push(c);
                }
                if seen_point {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    if !any_digit {
        return Parsed::Invalid;
    }
    // exponent
    let mut exp: i64 = 0;
    let mut bin_exp = false;
    if i < b.len() && matches!(b[i], b'e' | b'E' | b'p' | b'P') {
        bin_exp = matches!(b[i], b'p' | b'P');
        i += 1;
        let mut eneg = false;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            eneg = b[i] == b'-';
            i += 1;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            // Saturate: anything this large is an overflow anyway.
            exp = exp
                .saturating_mul(10)
                .saturating_add(i64::from(b[i] - b'0'));
            i += 1;
        }
        if i == start {
            return Parsed::Invalid;
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != b.len() {
        return Parsed::Invalid;
    }
    if mant_digits.is_empty() {
        return Parsed::Num(Num::Fin(Fin::zero(neg)));
    }
    // value = m × 10^-frac × (10 or 2)^exp = m × 2^exp2 × 5^exp5
    let (mut exp2, mut exp5) = if bin_exp {
        (exp.saturating_sub(frac_digits), -frac_digits)
    } else {
        let e = exp.saturating_sub(frac_digits);
        (e, e)
    };
    // Trailing zeros of the digits are factors of ten.
    while mant_digits.last() == Some(&b'0') {
        mant_digits.pop();
        exp2 = exp2.saturating_add(1);
        exp5 = exp5.saturating_add(1);
    }
    let ndigits = mant_digits.len() as f64;
    let base = exp2 as f64 + exp5 as f64 * std::f64::consts::LOG2_10 - exp5 as f64;
    // Go rejects binary exponents outside int32 ("exponent overflow").
    let top2 = exp2 as f64 + ndigits * std::f64::consts::LOG2_10;
    if !(-(2f64.powi(31))..2f64.powi(31)).contains(&top2) {
        return Parsed::Invalid;
    }
    // Quick range checks so that huge exponents and digit strings stay
    // cheap: 10^(n-1) <= m < 10^n.
    let lo = base + (ndigits - 1.0) * std::f64::consts::LOG2_10;
    let hi = base + ndigits * std::f64::consts::LOG2_10;
    if lo > (MAX_EXP + 2) as f64 {
        return Parsed::Num(Num::Inf(neg));
    }
    if hi < -(MAX_EXP as f64) - 2.0 {
        return Parsed::Num(Num::Fin(Fin::zero(neg)));
    }
    // Digits far beyond the precision only matter as "something nonzero
    // follows": keep a long prefix plus a sticky nonzero digit, so that
    // absurdly long literals parse in bounded time.
    if mant_digits.len() > MAX_DIGITS {
        let dropped = (mant_digits.len() - MAX_DIGITS) as i64;
        mant_digits.truncate(MAX_DIGITS);
        mant_digits.push(b'1');
        exp2 = exp2.saturating_add(dropped - 1);
        exp5 = exp5.saturating_add(dropped - 1);
    }
    let digits = std::str::from_utf8(&mant_digits).unwrap_or("0");
    let Some(m) = BigUint::parse_bytes(digits.as_bytes(), 10) else {
        return Parsed::Invalid;
    };
    let x = Fin::new(neg, m, exp2);
    if exp5 == 0 {
        return Parsed::Num(round_fin(&x, prec));
    }
    let p = pow5(exp5.unsigned_abs(), prec + 64);
    Parsed::Num(match p {
        Num::Inf(_) => {
            if exp5 < 0 {
                Num::Fin(Fin::zero(neg))
            } else {
                Num::Inf(neg)
            }
        }
        Num::Fin(p) => {
            if exp5 < 0 {
                quo(&x, &p, prec)
            } else {
                mul(&x, &p, prec)
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Fin {
        match parse(s, 512) {
            Parsed::Num(Num::Fin(f)) => f,
            _ => panic!("parse {s}"),
        }
    }

    #[test]
    fn round_half_even() {
        // 0b1011 at 3 bits: 11 -> 12 (1100) ; 0b1001 -> 8 ; 0b1101 -> 14? 13 -> 12 (tie to even 110)
        let r = |v: u64, prec| match round(false, BigUint::from(v), 0, false, prec) {
            Num::Fin(f) => (&f.mant << f.exp as u64).to_u64().unwrap_or(0),
            Num::Inf(_) => u64::MAX,
        };
        assert_eq!(r(11, 3), 12);
        assert_eq!(r(9, 3), 8);
        assert_eq!(r(13, 3), 12);
        assert_eq!(r(15, 3), 16);
        assert_eq!(r(10, 3), 10);
        assert_eq!(r(7, 3), 7);
    }

    #[test]
    fn f64_round_trip() {
        for v in [
            0.1,
            1.5,
            -2.25,
            1e300,
            5e-324,
            2.2250738585072014e-308,
            1.7976931348623157e308,
            123456789.0,
        ] {
            assert_eq!(to_f64(&from_f64(v)), v);
        }
        assert_eq!(to_f64(&p("0.1")), 0.1);
        assert_eq!(to_f64(&p("1e400")), f64::INFINITY);
        assert_eq!(to_f64(&p("1e-400")), 0.0);
        assert_eq!(to_f64(&p("4.9e-324")), 5e-324);
        assert_eq!(to_f64(&p("2e-324")), 0.0);
        assert_eq!(to_f64(&p("3e-324")), 5e-324);
    }

    #[test]
    fn shortest_f64_precision_matches_go() {
        assert_eq!(
            format_f(&from_f64(std::f64::consts::SQRT_2), 53),
            "1.4142135623730951"
        );
        assert_eq!(format_f(&from_f64(0.1), 53), "0.1");
        assert_eq!(
            format_f(&from_f64(2f64.powi(70)), 53),
            "1180591620717411300000"
        );
    }
}
