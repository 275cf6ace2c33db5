//! cty numbers: Go `big.Float` semantics (binary floating point with a
//! per-value precision, rounding to nearest even, signed zero, ±infinity).
//!
//! Representation (16 bytes, cheap to clone):
//! - `Int(v, prec)`: an integer that fits in `i64` (the common case; all
//!   arithmetic on it uses checked `i64` operations first);
//! - `Big(Arc<..>)`: any other finite value, including `-0`;
//! - `Inf(negative)`.
//!
//! Like cty, every value carries the precision its `big.Float` would have:
//! 512 bits for literals, JSON/YAML numbers and [`Number::parse`]; 64 bits
//! for cty's `NumberIntVal` ([`Number::cty_int_val`]); 53 bits for cty's
//! `NumberFloatVal` ([`Number::cty_float_val`]). Results take the larger
//! precision of the operands (multiplication: at least enough bits for the
//! product, up to 512), exactly as cty's operations do, so printing (the
//! shortest decimal that rounds back at the value's precision) matches
//! Terraform byte for byte: `1/3` prints 154 digits, `pow(2, 0.5)` prints
//! `1.4142135623730951`.
//!
//! Deliberate limit: magnitudes at or above `2^(2^20)` (about 10^315652)
//! become ±infinity and magnitudes below `2^-(2^20)` become ±0 (Go's limit
//! is 2^(2^31), which would let a single literal take minutes to print).
//! Literals whose binary exponent exceeds Go's own limit are rejected as
//! Go rejects them.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use num_bigint::{BigInt, BigUint, Sign};
use num_traits::{ToPrimitive, Zero};

use crate::bigfloat::{self, Fin, Num, Parsed};

/// Precision of literals and parsed numbers (cty's `ParseNumberVal`).
pub const STANDARD_PRECISION: u32 = 512;

/// A cty number: a binary float with cty's precision rules (512 bits for
/// literals), rounding to nearest even, or ±infinity.
#[derive(Clone)]
pub struct Number(Repr);

#[derive(Clone)]
enum Repr {
    /// Integer value with its precision; invariant: `prec >= 1`.
    Int(i64, u32),
    /// Finite non-`Int` value (fractions, big integers, `-0`).
    Big(Arc<BigNum>),
    /// Infinity; `true` for negative.
    Inf(bool),
}

#[derive(Debug)]
struct BigNum {
    f: Fin,
    prec: u32,
}

/// Arithmetic errors, with cty's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumberError {
    /// `0/0` or `inf/inf`.
    ZeroByZero,
    /// Result is not a number (generic).
    NaN,
    /// `inf + -inf`.
    OpposingInfinities,
    /// `inf - inf`.
    InfinityMinusInfinity,
    /// `0 * inf`.
    ZeroTimesInfinity,
    /// `%` with an infinite operand.
    ModuloInfinity,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NumberError::ZeroByZero => "can't divide zero by zero or infinity by infinity",
            NumberError::NaN => "result is not a number",
            NumberError::OpposingInfinities => "can't compute sum of opposing infinities",
            NumberError::InfinityMinusInfinity => "can't subtract infinity from itself",
            NumberError::ZeroTimesInfinity => "can't multiply zero by infinity",
            NumberError::ModuloInfinity => "can't use modulo with zero and infinity",
        })
    }
}

impl std::error::Error for NumberError {}

fn bit_len(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// Significant bits of `|v|` (trailing zeros removed).
fn sig_bits_u64(v: u64) -> u32 {
    if v == 0 {
        0
    } else {
        bit_len(v >> v.trailing_zeros())
    }
}

impl Number {
    // ------------------------------------------------------------------
    // Construction

    /// An integer, with the precision of a literal (512 bits).
    pub fn from_i64(v: i64) -> Number {
        Number(Repr::Int(v, STANDARD_PRECISION))
    }
    /// An unsigned integer, with the precision of a literal (512 bits).
    pub fn from_u64(v: u64) -> Number {
        match i64::try_from(v) {
            Ok(i) => Number::from_i64(i),
            Err(_) => Number::pack(Num::Fin(Fin::from_u64(false, v)), STANDARD_PRECISION),
        }
    }
    /// cty's `NumberIntVal`: an integer with Go's default 64-bit precision.
    /// Use it where cty functions produce counts and indexes (`length`,
    /// `index`, ...) to get cty's exact rounding of later divisions.
    pub fn cty_int_val(v: i64) -> Number {
        Number(Repr::Int(v, 64))
    }
    /// A float coming from data (JSON/YAML/protobuf): the shortest decimal
    /// that round-trips the `f64`, parsed at 512 bits, exactly as Go's
    /// `encoding/json` + `ParseNumberVal` path does. `None` for NaN.
    pub fn from_f64(v: f64) -> Option<Number> {
        if v.is_nan() {
            return None;
        }
        if v.is_infinite() {
            return Some(Number::infinity(v < 0.0));
        }
        if v.fract() == 0.0 && v.abs() < 9.0e18 {
            if v == 0.0 && v.is_sign_negative() {
                return Some(Number::pack(Num::Fin(Fin::zero(true)), STANDARD_PRECISION));
            }
            return Some(Number::from_i64(v as i64));
        }
        // Rust's `Display` for f64 is the shortest round-trip decimal
        // without exponent.
        Number::parse(&format!("{v}"))
    }
    /// cty's `NumberFloatVal`: the exact binary value of `v` at 53 bits of
    /// precision (as results of `log`, `pow`, ... in cty). `None` for NaN.
    pub fn cty_float_val(v: f64) -> Option<Number> {
        if v.is_nan() {
            return None;
        }
        if v.is_infinite() {
            return Some(Number::infinity(v < 0.0));
        }
        Some(Number::pack(Num::Fin(bigfloat::from_f64(v)), 53))
    }
    /// An arbitrary integer (precision: 512 bits, or more if needed to
    /// hold it exactly; beyond about 2^(2^20) it becomes infinite).
    pub fn from_bigint(v: &BigInt) -> Number {
        let f = Fin::new(v.sign() == Sign::Minus, v.magnitude().clone(), 0);
        let prec = u32::try_from(f.sig_bits())
            .unwrap_or(u32::MAX)
            .max(STANDARD_PRECISION);
        Number::pack(bigfloat::round_fin(&f, prec), prec)
    }
    pub fn infinity(negative: bool) -> Number {
        Number(Repr::Inf(negative))
    }
    /// Parses a decimal number as cty's `ParseNumberVal` does (Go
    /// `big.ParseFloat(s, 10, 512, ToNearestEven)`): optional `+`/`-`,
    /// digits with an optional `.`, optional exponent `e`/`E` (or `p`/`P`,
    /// a power of two); `Inf`/`inf`. No surrounding spaces. Rounds to 512
    /// bits. `None` if the text is not a number ("a number is required").
    pub fn parse(s: &str) -> Option<Number> {
        // Fast path: a plain decimal integer that fits comfortably in i64
        // (most literals and JSON numbers).
        if !s.is_empty() && s.len() <= 18 && s.bytes().all(|b| b.is_ascii_digit()) {
            let v = s
                .bytes()
                .fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0'));
            return Some(Number(Repr::Int(v, STANDARD_PRECISION)));
        }
        match bigfloat::parse(s, STANDARD_PRECISION) {
            Parsed::Num(n) => Some(Number::pack(n, STANDARD_PRECISION)),
            Parsed::Invalid => None,
        }
    }

    /// Canonical form: integers that fit `i64` (except `-0`) are `Int`.
    fn pack(n: Num, prec: u32) -> Number {
        match n {
            Num::Inf(neg) => Number(Repr::Inf(neg)),
            Num::Fin(f) => {
                if f.is_zero() && !f.neg {
                    return Number(Repr::Int(0, prec));
                }
                if !f.is_zero() && f.exp >= 0 && f.top() <= 63 {
                    let mag = (&f.mant << f.exp as u64).to_i64();
                    if let Some(m) = mag {
                        return Number(Repr::Int(if f.neg { -m } else { m }, prec));
                    }
                }
                Number(Repr::Big(Arc::new(BigNum { f, prec })))
            }
        }
    }

    fn int_fin(v: i64) -> Fin {
        Fin::new(v < 0, BigUint::from(v.unsigned_abs()), 0)
    }

    /// The finite value, or `None` for infinities.
    fn fin(&self) -> Option<Cow<'_, Fin>> {
        match &self.0 {
            Repr::Int(v, _) => Some(Cow::Owned(Number::int_fin(*v))),
            Repr::Big(b) => Some(Cow::Borrowed(&b.f)),
            Repr::Inf(_) => None,
        }
    }

    /// The `big.Float` precision of this value, in bits (0 for infinities).
    pub fn precision(&self) -> u32 {
        match &self.0 {
            Repr::Int(_, p) => *p,
            Repr::Big(b) => b.prec,
            Repr::Inf(_) => 0,
        }
    }

    // ------------------------------------------------------------------
    // Inspection

    /// The integer value if the number is integral and fits.
    pub fn to_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(v, _) => Some(*v),
            Repr::Big(b) if b.f.is_zero() => Some(0),
            Repr::Big(b) if b.f.is_integer() && b.f.top() == 64 && b.f.neg => {
                // i64::MIN is the only 64-bit magnitude that fits.
                (b.f.mant == BigUint::from(1u32) && b.f.exp == 63).then_some(i64::MIN)
            }
            _ => None,
        }
    }
    /// The integer value if the number is integral, non-negative and fits.
    pub fn to_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(v, _) => u64::try_from(*v).ok(),
            Repr::Big(b) if b.f.is_zero() => Some(0),
            Repr::Big(b) if b.f.is_integer() && !b.f.neg && b.f.top() <= 64 => {
                (&b.f.mant << b.f.exp as u64).to_u64()
            }
            _ => None,
        }
    }
    /// The integer value if the number is integral and finite.
    pub fn to_bigint(&self) -> Option<BigInt> {
        match &self.0 {
            Repr::Int(v, _) => Some(BigInt::from(*v)),
            Repr::Big(b) if b.f.is_integer() => {
                let mag = if b.f.is_zero() {
                    BigUint::zero()
                } else {
                    &b.f.mant << b.f.exp as u64
                };
                Some(BigInt::from_biguint(
                    if b.f.neg { Sign::Minus } else { Sign::Plus },
                    mag,
                ))
            }
            _ => None,
        }
    }
    /// The exact finite value as `(negative, mantissa, exponent)` with
    /// value = mantissa × 2^exponent (mantissa odd, or zero); `None` for
    /// infinities. Used to print numbers with Go's `fmt` verbs.
    pub fn to_binary_parts(&self) -> Option<(bool, BigUint, i64)> {
        self.fin().map(|f| (f.neg, f.mant.clone(), f.exp))
    }
    /// Nearest float64 (as Go's `big.Float.Float64`): ties to even,
    /// overflow to ±inf, gradual underflow.
    pub fn to_f64(&self) -> f64 {
        match &self.0 {
            Repr::Int(v, _) => *v as f64,
            Repr::Big(b) => bigfloat::to_f64(&b.f),
            Repr::Inf(neg) => {
                if *neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
        }
    }
    pub fn is_integer(&self) -> bool {
        match &self.0 {
            Repr::Int(..) => true,
            Repr::Big(b) => b.f.is_integer(),
            Repr::Inf(_) => false,
        }
    }
    pub fn is_infinite(&self) -> bool {
        matches!(self.0, Repr::Inf(_))
    }
    /// True for `0` and `-0`.
    pub fn is_zero(&self) -> bool {
        match &self.0 {
            Repr::Int(v, _) => *v == 0,
            Repr::Big(b) => b.f.is_zero(),
            Repr::Inf(_) => false,
        }
    }
    /// True if the value is below zero (`-0` is not).
    pub fn is_negative(&self) -> bool {
        self.signum() < 0
    }
    /// -1, 0 or 1 (0 for `-0`).
    pub fn signum(&self) -> i32 {
        match &self.0 {
            Repr::Int(v, _) => v.signum() as i32,
            Repr::Big(b) if b.f.is_zero() => 0,
            Repr::Big(b) => {
                if b.f.neg {
                    -1
                } else {
                    1
                }
            }
            Repr::Inf(neg) => {
                if *neg {
                    -1
                } else {
                    1
                }
            }
        }
    }

    // ------------------------------------------------------------------
    // Arithmetic (cty's `Add`, `Subtract`, `Multiply`, `Divide`, `Modulo`)

    pub fn add(&self, o: &Number) -> Result<Number, NumberError> {
        if let (Repr::Int(a, pa), Repr::Int(b, pb)) = (&self.0, &o.0) {
            let p = (*pa).max(*pb);
            if let Some(s) = a.checked_add(*b)
                && p >= 64
            {
                return Ok(Number(Repr::Int(s, p)));
            }
        }
        self.add_slow(o, NumberError::OpposingInfinities)
    }

    fn add_slow(&self, o: &Number, nan: NumberError) -> Result<Number, NumberError> {
        match (self.fin(), o.fin()) {
            (Some(a), Some(b)) => {
                let p = self.precision().max(o.precision());
                Ok(Number::pack(bigfloat::add(&a, &b, p), p))
            }
            (None, None) => {
                let (Repr::Inf(x), Repr::Inf(y)) = (&self.0, &o.0) else {
                    return Err(nan);
                };
                if x == y { Ok(self.clone()) } else { Err(nan) }
            }
            (None, Some(_)) => Ok(self.clone()),
            (Some(_), None) => Ok(o.clone()),
        }
    }

    pub fn sub(&self, o: &Number) -> Result<Number, NumberError> {
        if let (Repr::Int(a, pa), Repr::Int(b, pb)) = (&self.0, &o.0) {
            let p = (*pa).max(*pb);
            if let Some(s) = a.checked_sub(*b)
                && p >= 64
            {
                return Ok(Number(Repr::Int(s, p)));
            }
        }
        self.add_slow(&o.neg(), NumberError::InfinityMinusInfinity)
    }

    pub fn mul(&self, o: &Number) -> Result<Number, NumberError> {
        if let (Repr::Int(a, pa), Repr::Int(b, pb)) = (&self.0, &o.0)
            && let Some(m) = a.checked_mul(*b)
        {
            if m == 0 && ((*a < 0) || (*b < 0)) {
                // +0 × negative = -0
                return Ok(Number::pack(Num::Fin(Fin::zero(true)), (*pa).max(*pb)));
            }
            let p = (*pa).max(*pb).max(sig_bits_u64(m.unsigned_abs()));
            return Ok(Number(Repr::Int(m, p)));
        }
        match (self.fin(), o.fin()) {
            (Some(a), Some(b)) => {
                // cty multiplies at 512 bits, then keeps the larger of the
                // operand precisions and the bits the product needs.
                let r = bigfloat::mul(&a, &b, STANDARD_PRECISION);
                let need = match &r {
                    Num::Fin(f) => u32::try_from(f.sig_bits()).unwrap_or(u32::MAX),
                    Num::Inf(_) => 0,
                };
                let p = self.precision().max(o.precision()).max(need);
                Ok(Number::pack(r, p))
            }
            _ => {
                if self.is_zero() || o.is_zero() {
                    return Err(NumberError::ZeroTimesInfinity);
                }
                Ok(Number::infinity(self.sign_bit() != o.sign_bit()))
            }
        }
    }

    /// Sign bit (true for negative values, `-0` and `-inf`).
    fn sign_bit(&self) -> bool {
        match &self.0 {
            Repr::Int(v, _) => *v < 0,
            Repr::Big(b) => b.f.neg,
            Repr::Inf(neg) => *neg,
        }
    }

    /// cty's `Divide`: `x/0` is ±infinity; `0/0` and `inf/inf` are errors.
    pub fn div(&self, o: &Number) -> Result<Number, NumberError> {
        if let (Repr::Int(a, pa), Repr::Int(b, pb)) = (&self.0, &o.0)
            && *b != 0
            && *a != 0
            && a.checked_rem(*b) == Some(0)
            && let Some(q) = a.checked_div(*b)
        {
            return Ok(Number(Repr::Int(q, (*pa).max(*pb))));
        }
        let p = self.precision().max(o.precision());
        match (self.fin(), o.fin()) {
            (Some(a), Some(b)) => {
                if b.is_zero() {
                    if a.is_zero() {
                        return Err(NumberError::ZeroByZero);
                    }
                    return Ok(Number::infinity(a.neg != b.neg));
                }
                Ok(Number::pack(bigfloat::quo(&a, &b, p), p))
            }
            (None, None) => Err(NumberError::ZeroByZero),
            (None, Some(_)) => Ok(Number::infinity(self.sign_bit() != o.sign_bit())),
            (Some(_), None) => Ok(Number::pack(
                Num::Fin(Fin::zero(self.sign_bit() != o.sign_bit())),
                p,
            )),
        }
    }

    /// cty `Modulo`: `a - b × trunc(a / b)` (the result has the sign of
    /// `a`; `5 % -3 == 2`, `-5 % 3 == -2`, `5.5 % 2 == 1.5`); `a % 0 == a`.
    /// Infinite operands are an error (cty panics or fails there).
    pub fn rem(&self, o: &Number) -> Result<Number, NumberError> {
        if o.is_zero() {
            return Ok(self.clone());
        }
        if let (Repr::Int(a, pa), Repr::Int(b, pb)) = (&self.0, &o.0)
            && *pa >= 128
            && *pb >= 128
            && let Some(r) = a.checked_rem(*b)
        {
            return Ok(Number(Repr::Int(r, *pa)));
        }
        let (Some(a), Some(b)) = (self.fin(), o.fin()) else {
            return Err(NumberError::ModuloInfinity);
        };
        let pa = self.precision();
        let p = pa.max(o.precision());
        // rat = a / b at the larger precision, truncated to an integer.
        let rat = match bigfloat::quo(&a, &b, p) {
            Num::Fin(f) => f,
            Num::Inf(_) => return Err(NumberError::ModuloInfinity),
        };
        let (t, _) = rat.trunc_abs();
        let t = Fin::new(rat.neg && !t.is_zero(), t, 0);
        // work = round(t) × b - all at a's precision, as Go does.
        let Num::Fin(t) = bigfloat::round_fin(&t, pa) else {
            return Err(NumberError::ModuloInfinity);
        };
        let Num::Fin(w) = bigfloat::mul(&b, &t, pa) else {
            return Err(NumberError::ModuloInfinity);
        };
        Ok(Number::pack(bigfloat::add(&a, &w.negated(), pa), pa))
    }

    /// Negation (`-0` for `0`, as Go's `big.Float.Neg`).
    pub fn neg(&self) -> Number {
        match &self.0 {
            Repr::Int(v, p) => {
                if *v != 0
                    && let Some(n) = v.checked_neg()
                {
                    return Number(Repr::Int(n, *p));
                }
                Number::pack(Num::Fin(Number::int_fin(*v).negated()), *p)
            }
            Repr::Big(b) => Number::pack(Num::Fin(b.f.negated()), b.prec),
            Repr::Inf(neg) => Number::infinity(!neg),
        }
    }
    pub fn abs(&self) -> Number {
        if self.sign_bit() {
            self.neg()
        } else {
            self.clone()
        }
    }
    /// Largest integer not above the value (cty's `floor`; keeps the
    /// precision; `floor(-0) == 0`).
    pub fn floor(&self) -> Number {
        self.to_integral(true)
    }
    /// Smallest integer not below the value (cty's `ceil`; `ceil(-0.5)` is
    /// `0`, not `-0`).
    pub fn ceil(&self) -> Number {
        self.to_integral(false)
    }

    fn to_integral(&self, floor: bool) -> Number {
        match &self.0 {
            Repr::Int(..) | Repr::Inf(_) => self.clone(),
            Repr::Big(b) => {
                let (mut t, frac) = b.f.trunc_abs();
                // trunc toward zero; adjust away from zero when needed.
                if frac && (b.f.neg == floor) {
                    t += 1u32;
                }
                let neg = b.f.neg && !t.is_zero();
                let f = Fin::new(neg, t, 0);
                Number::pack(bigfloat::round_fin(&f, b.prec), b.prec)
            }
        }
    }

    /// cty's number equality (`==`): two numbers are equal when their
    /// shortest decimal forms at their own precisions are equal, with `-0`
    /// equal to `0`. For numbers of the same precision (the usual case)
    /// this is equality by value.
    pub fn cty_equals(&self, o: &Number) -> bool {
        match (&self.0, &o.0) {
            (Repr::Inf(a), Repr::Inf(b)) => a == b,
            (Repr::Inf(_), _) | (_, Repr::Inf(_)) => false,
            (Repr::Int(a, pa), Repr::Int(b, pb))
                if bit_len(a.unsigned_abs()) <= *pa && bit_len(b.unsigned_abs()) <= *pb =>
            {
                a == b
            }
            _ if self.precision() == o.precision() => self == o,
            _ => {
                if self.signum() != o.signum() {
                    return false;
                }
                self.to_string().trim_start_matches('-') == o.to_string().trim_start_matches('-')
            }
        }
    }
}

impl Number {
    /// Go's `big.Float.String()` (`Text('g', 10)`), used by cty to order
    /// set elements of complex types.
    pub(crate) fn go_string_g10(&self) -> String {
        match &self.0 {
            Repr::Inf(neg) => (if *neg { "-Inf" } else { "+Inf" }).to_string(),
            Repr::Int(v, _) => bigfloat::format_g10(&Number::int_fin(*v)),
            Repr::Big(b) => bigfloat::format_g10(&b.f),
        }
    }
}

impl From<i64> for Number {
    fn from(v: i64) -> Number {
        Number::from_i64(v)
    }
}
impl From<i32> for Number {
    fn from(v: i32) -> Number {
        Number::from_i64(i64::from(v))
    }
}
impl From<u32> for Number {
    fn from(v: u32) -> Number {
        Number::from_i64(i64::from(v))
    }
}
impl From<u64> for Number {
    fn from(v: u64) -> Number {
        Number::from_u64(v)
    }
}
impl From<usize> for Number {
    fn from(v: usize) -> Number {
        Number::from_u64(v as u64)
    }
}

/// Equality by value (`-0 == 0`); precision is ignored. See
/// [`Number::cty_equals`] for cty's `==`.
impl PartialEq for Number {
    fn eq(&self, o: &Number) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Number {}
impl PartialOrd for Number {
    fn partial_cmp(&self, o: &Number) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
/// Numeric order; `-inf` < finite < `+inf`.
impl Ord for Number {
    fn cmp(&self, o: &Number) -> Ordering {
        match (&self.0, &o.0) {
            (Repr::Int(a, _), Repr::Int(b, _)) => a.cmp(b),
            (Repr::Inf(a), Repr::Inf(b)) => b.cmp(a),
            (Repr::Inf(a), _) => {
                if *a {
                    Ordering::Less
                } else {
                    Ordering::Greater
                }
            }
            (_, Repr::Inf(b)) => {
                if *b {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            _ => match (self.fin(), o.fin()) {
                (Some(a), Some(b)) => a.cmp_value(&b),
                _ => Ordering::Equal,
            },
        }
    }
}

/// cty's string form (`big.Float.Text('f', -1)`): the shortest decimal
/// that rounds back to the value at its precision, no exponent; `-0`
/// prints `-0`; infinities print as `+Inf`/`-Inf`.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Inf(neg) => f.write_str(if *neg { "-Inf" } else { "+Inf" }),
            Repr::Int(v, p) if bit_len(v.unsigned_abs()) <= *p => write!(f, "{v}"),
            Repr::Int(v, p) => f.write_str(&bigfloat::format_f(&Number::int_fin(*v), *p)),
            Repr::Big(b) => f.write_str(&bigfloat::format_f(&b.f, b.prec)),
        }
    }
}
impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
#[path = "number_tests.rs"]
mod tests;
