//! cty numbers. TEMPORARY f64 backing: to be replaced by an exact
//! 512-bit binary float (see the number task). The public API is fixed.

use std::cmp::Ordering;
use std::fmt;

/// A cty number: a 512-bit binary float (Go `big.Float`, precision 512,
/// rounding to nearest even), or ±infinity.
#[derive(Clone)]
pub struct Number(f64);

/// Arithmetic errors, with cty's messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumberError {
    /// `0/0` or `inf/inf`.
    ZeroByZero,
    /// Result is not a number (e.g. `inf - inf`).
    NaN,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberError::ZeroByZero => {
                f.write_str("can't divide zero by zero or infinity by infinity")
            }
            NumberError::NaN => f.write_str("result is not a number"),
        }
    }
}

impl Number {
    pub fn from_i64(v: i64) -> Number {
        Number(v as f64)
    }
    pub fn from_u64(v: u64) -> Number {
        Number(v as f64)
    }
    /// `None` for NaN.
    pub fn from_f64(v: f64) -> Option<Number> {
        if v.is_nan() { None } else { Some(Number(v)) }
    }
    pub fn infinity(negative: bool) -> Number {
        Number(if negative {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        })
    }
    /// Parses a decimal literal as HCL and cty do (`123`, `-1.5`, `1e10`,
    /// `1.5E-3`; no hex, no leading `+` handling beyond what cty's
    /// `ParseNumberVal` accepts), rounding to 512 bits.
    pub fn parse(s: &str) -> Option<Number> {
        s.trim().parse::<f64>().ok().and_then(Number::from_f64)
    }
    /// The integer value if the number is integral and fits.
    pub fn to_i64(&self) -> Option<i64> {
        if self.0.fract() == 0.0 && self.0.abs() < 9.2e18 {
            Some(self.0 as i64)
        } else {
            None
        }
    }
    /// Nearest float64 (as Go's `big.Float.Float64`).
    pub fn to_f64(&self) -> f64 {
        self.0
    }
    pub fn is_integer(&self) -> bool {
        self.0.is_finite() && self.0.fract() == 0.0
    }
    pub fn is_infinite(&self) -> bool {
        self.0.is_infinite()
    }
    pub fn is_zero(&self) -> bool {
        self.0 == 0.0
    }
    pub fn is_negative(&self) -> bool {
        self.0 < 0.0
    }
    pub fn add(&self, o: &Number) -> Result<Number, NumberError> {
        Number::from_f64(self.0 + o.0).ok_or(NumberError::NaN)
    }
    pub fn sub(&self, o: &Number) -> Result<Number, NumberError> {
        Number::from_f64(self.0 - o.0).ok_or(NumberError::NaN)
    }
    pub fn mul(&self, o: &Number) -> Result<Number, NumberError> {
        Number::from_f64(self.0 * o.0).ok_or(NumberError::NaN)
    }
    pub fn div(&self, o: &Number) -> Result<Number, NumberError> {
        Number::from_f64(self.0 / o.0).ok_or(NumberError::ZeroByZero)
    }
    /// cty `Modulo`.
    pub fn rem(&self, o: &Number) -> Result<Number, NumberError> {
        Number::from_f64(self.0 % o.0).ok_or(NumberError::NaN)
    }
    pub fn neg(&self) -> Number {
        Number(-self.0)
    }
    pub fn abs(&self) -> Number {
        Number(self.0.abs())
    }
    pub fn floor(&self) -> Number {
        Number(self.0.floor())
    }
    pub fn ceil(&self) -> Number {
        Number(self.0.ceil())
    }
}

impl PartialEq for Number {
    fn eq(&self, o: &Number) -> bool {
        self.0 == o.0
    }
}
impl Eq for Number {}
impl PartialOrd for Number {
    fn partial_cmp(&self, o: &Number) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Number {
    fn cmp(&self, o: &Number) -> Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// cty's string form (`big.Float.Text('f', -1)`): shortest decimal that
/// round-trips at 512 bits, no exponent; infinities print as `+Inf`/`-Inf`.
impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_infinite() {
            return f.write_str(if self.0 < 0.0 { "-Inf" } else { "+Inf" });
        }
        write!(f, "{}", self.0)
    }
}
impl fmt::Debug for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
