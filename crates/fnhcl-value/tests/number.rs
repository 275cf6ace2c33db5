//! Number conformance: `tests/data/number_cases.txt` holds arithmetic
//! expressions (HCL syntax subset: literals, `+ - * / %`, unary `-`,
//! parentheses); `number_cases.expected` holds what cty prints for
//! `tostring(expr)`, generated with the Go oracle by
//! `tests/data/gen_number_cases.sh`. `L(n)` is a cty `NumberIntVal` (64-bit
//! precision, HCL `length(range(n))`) and `F(x)` a cty `NumberFloatVal`
//! (53-bit, HCL `pow(x, 1)`), to exercise cty's precision rules. `FNHCL_BLESS=1` rewrites the expected
//! file with our output (review the diff against the oracle!).

use fnhcl_value::Number;

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i] == b' ' {
            self.i += 1;
        }
    }
    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    fn expr(&mut self) -> Result<Number, String> {
        let mut l = self.term()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.i += 1;
            let r = self.term()?;
            l = if c == b'+' { l.add(&r) } else { l.sub(&r) }.map_err(|e| e.to_string())?;
        }
        Ok(l)
    }
    fn term(&mut self) -> Result<Number, String> {
        let mut l = self.unary()?;
        while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
            self.i += 1;
            let r = self.unary()?;
            l = match c {
                b'*' => l.mul(&r),
                b'/' => l.div(&r),
                _ => l.rem(&r),
            }
            .map_err(|e| e.to_string())?;
        }
        Ok(l)
    }
    fn unary(&mut self) -> Result<Number, String> {
        match self.peek() {
            Some(b'-') => {
                self.i += 1;
                Ok(self.unary()?.neg())
            }
            Some(b'(') => {
                self.i += 1;
                let v = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err("expected )".into());
                }
                self.i += 1;
                Ok(v)
            }
            Some(c @ (b'L' | b'F')) if self.s.get(self.i + 1) == Some(&b'(') => {
                // L(n): cty NumberIntVal; F(x): cty NumberFloatVal.
                self.i += 2;
                let v = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err("expected )".into());
                }
                self.i += 1;
                if c == b'L' {
                    Ok(Number::cty_int_val(
                        v.to_i64().ok_or("L() needs an integer")?,
                    ))
                } else {
                    Number::cty_float_val(v.to_f64()).ok_or_else(|| "NaN".to_string())
                }
            }
            _ => {
                let start = self.i;
                while self.i < self.s.len()
                    && (self.s[self.i].is_ascii_alphanumeric()
                        || self.s[self.i] == b'.'
                        || ((self.s[self.i] == b'-' || self.s[self.i] == b'+')
                            && matches!(self.s[self.i - 1], b'e' | b'E')))
                {
                    self.i += 1;
                }
                let lit = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
                Number::parse(lit).ok_or_else(|| format!("bad literal {lit:?}"))
            }
        }
    }
}

fn parse_all(s: &str) -> Result<Number, String> {
    let mut p = P {
        s: s.as_bytes(),
        i: 0,
    };
    let v = p.expr()?;
    if p.peek().is_some() {
        return Err(format!("unexpected text at {} in {s:?}", p.i));
    }
    Ok(v)
}

fn eval(s: &str) -> String {
    // `a == b` / `a < b` at top level: cty equality (by printed form) and
    // numeric order.
    type Cmp = fn(&Number, &Number) -> bool;
    let ops: [(&str, Cmp); 2] = [(" == ", |a, b| a.cty_equals(b)), (" < ", |a, b| a < b)];
    for (op, f) in ops {
        if let Some((l, r)) = s.split_once(op) {
            return match (parse_all(l), parse_all(r)) {
                (Ok(a), Ok(b)) => f(&a, &b).to_string(),
                (Err(e), _) | (_, Err(e)) => format!("error: {e}"),
            };
        }
    }
    match parse_all(s) {
        Ok(n) => n.to_string(),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn number_cases_match_cty() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let expected =
        std::fs::read_to_string(format!("{dir}/number_cases.expected")).expect("expected file");
    let bless = fnhcl_cases::bless_enabled();
    let mut out = String::new();
    let mut failures = Vec::new();
    for line in expected.lines() {
        let (case, want) = line.split_once('\t').expect("tab-separated line");
        let got = eval(case);
        out.push_str(&format!("{case}\t{got}\n"));
        if got != want {
            failures.push(format!("{case}\n  want {want}\n  got  {got}"));
        }
    }
    if bless {
        std::fs::write(format!("{dir}/number_cases.expected"), out).expect("write");
        return;
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
