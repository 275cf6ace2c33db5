//! Date and time functions: formatdate timeadd timecmp.
//!
//! Timestamps are RFC 3339 as Go's `time.Parse(time.RFC3339, ..)` accepts
//! them (fractional seconds allowed, one- or two-digit hour); the result
//! keeps the input's UTC offset. Durations use Go's `time.ParseDuration`
//! syntax (`1h30m`, `-1.5s`, `300ms`, `2us`).

use fnhcl_value::{Type, Value};

use crate::args::str_arg;
use crate::error::CallError;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "formatdate",
            "Formats a timestamp given in RFC 3339 syntax into another timestamp in some other machine-oriented time syntax, as described in the format string.",
        )
        .param(Param::new("format", Type::String))
        .param(Param::new("time", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let fmt = str_arg(a, 0)?;
            let t = parse_timestamp(str_arg(a, 1)?).map_err(|m| CallError::arg(1, m))?;
            format_date(fmt, &t).map(Value::string)
        }),
    );
    r.add(
        FuncDef::new(
            "timeadd",
            "Adds the duration represented by the given duration string to the given RFC 3339 timestamp string, returning another RFC 3339 timestamp.",
        )
        .param(Param::new("timestamp", Type::String))
        .param(Param::new("duration", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let t = parse_timestamp(str_arg(a, 0)?).map_err(CallError::new)?;
            let d = parse_duration(str_arg(a, 1)?).map_err(CallError::new)?;
            let t = t.add_nanos(d).ok_or_else(|| {
                CallError::new("the resulting time is outside the supported range")
            })?;
            Ok(Value::string(t.rfc3339()))
        }),
    );
    r.add(
        FuncDef::new(
            "timecmp",
            "Compares two timestamps and returns a number that represents the ordering of the instants those timestamps represent.",
        )
        .param(Param::new("timestamp_a", Type::String))
        .param(Param::new("timestamp_b", Type::String))
        .returns(Type::Number)
        .implement(|a| {
            let ta = parse_timestamp(str_arg(a, 0)?).map_err(|m| CallError::arg(0, m))?;
            let tb = parse_timestamp(str_arg(a, 1)?).map_err(|m| CallError::arg(1, m))?;
            let c = ta.instant().cmp(&tb.instant());
            Ok(Value::int(c as i64))
        }),
    );
}

/// A point in time with the UTC offset it was written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Time {
    /// Seconds since 1970-01-01T00:00:00Z.
    secs: i64,
    /// Nanoseconds, 0..1e9.
    nanos: u32,
    /// Offset east of UTC in seconds.
    offset: i32,
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Local calendar fields.
struct Fields {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    weekday: u32,
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

impl Time {
    fn instant(&self) -> (i64, u32) {
        (self.secs, self.nanos)
    }

    fn fields(&self) -> Fields {
        let local = self.secs + self.offset as i64;
        let days = local.div_euclid(86_400);
        let sod = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Fields {
            year,
            month,
            day,
            hour: (sod / 3600) as u32,
            minute: (sod / 60 % 60) as u32,
            second: (sod % 60) as u32,
            // 1970-01-01 was a Thursday.
            weekday: (days + 4).rem_euclid(7) as u32,
        }
    }

    fn add_nanos(&self, d: i128) -> Option<Time> {
        let total = self.secs as i128 * 1_000_000_000 + self.nanos as i128 + d;
        let secs = i64::try_from(total.div_euclid(1_000_000_000)).ok()?;
        Some(Time {
            secs,
            nanos: total.rem_euclid(1_000_000_000) as u32,
            offset: self.offset,
        })
    }

    /// Go's `Format(time.RFC3339)`.
    fn rfc3339(&self) -> String {
        let f = self.fields();
        format!(
            "{}-{:02}-{:02}T{:02}:{:02}:{:02}{}",
            year4(f.year),
            f.month,
            f.day,
            f.hour,
            f.minute,
            f.second,
            self.zone("Z07:00")
        )
    }

    /// Go's zone layouts `Z07:00`, `-0700`, `-07:00`.
    fn zone(&self, layout: &str) -> String {
        if layout == "Z07:00" && self.offset == 0 {
            return "Z".into();
        }
        let sign = if self.offset < 0 { '-' } else { '+' };
        let abs = self.offset.unsigned_abs() / 60;
        let (h, m) = (abs / 60, abs % 60);
        if layout == "-0700" {
            format!("{sign}{h:02}{m:02}")
        } else {
            format!("{sign}{h:02}:{m:02}")
        }
    }
}

/// Go's four-digit year rendering (negative years keep their sign).
fn year4(y: i64) -> String {
    if y < 0 {
        format!("-{:04}", -y)
    } else {
        format!("{y:04}")
    }
}

fn invalid(what: &str, rest: &str) -> String {
    if rest.is_empty() {
        format!("not a valid RFC3339 timestamp: end of string before {what}")
    } else {
        format!(
            "not a valid RFC3339 timestamp: cannot use {} as {what}",
            crate::quote::go_quote(rest)
        )
    }
}

fn expect_sep(rest: &mut &str, sep: char) -> Result<(), String> {
    if let Some(r) = rest.strip_prefix(sep) {
        *rest = r;
        return Ok(());
    }
    if sep == 'T' {
        return Err("not a valid RFC3339 timestamp: missing required time introducer 'T'".into());
    }
    if rest.is_empty() {
        Err(format!(
            "not a valid RFC3339 timestamp: end of string where \"{sep}\" is expected"
        ))
    } else {
        Err(format!(
            "not a valid RFC3339 timestamp: found {} where \"{sep}\" is expected",
            crate::quote::go_quote(rest)
        ))
    }
}

/// Reads exactly two digits (or one or two when `flexible`).
fn num2(rest: &mut &str, flexible: bool, what: &str) -> Result<u32, String> {
    let b = rest.as_bytes();
    let n = b.iter().take(2).take_while(|c| c.is_ascii_digit()).count();
    if n == 0 || (n == 1 && !flexible) {
        return Err(invalid(what, rest));
    }
    let v: u32 = rest[..n].parse().map_err(|_| invalid(what, rest))?;
    *rest = &rest[n..];
    Ok(v)
}

/// Go's `time.Parse(time.RFC3339, s)` with cty's error wording.
pub(crate) fn parse_timestamp(s: &str) -> Result<Time, String> {
    let mut rest = s;
    // Year: four digits.
    if rest.len() < 4 || !rest.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
        return Err(invalid("year", rest));
    }
    let ytext = &rest[..4];
    let year: i64 = ytext.parse().map_err(|_| invalid("year", rest))?;
    rest = &rest[4..];
    expect_sep(&mut rest, '-')?;
    let before = rest;
    let month = num2(&mut rest, false, "month")?;
    if !(1..=12).contains(&month) {
        return Err(invalid("month", &before[2..]));
    }
    expect_sep(&mut rest, '-')?;
    let day = num2(&mut rest, false, "day of month")?;
    expect_sep(&mut rest, 'T')?;
    let before = rest;
    let hour = num2(&mut rest, true, "hour")?;
    if hour > 23 {
        return Err(invalid("hour", &before[before.len() - rest.len()..]));
    }
    expect_sep(&mut rest, ':')?;
    let minute = num2(&mut rest, false, "minute")?;
    if minute > 59 {
        return Err(invalid("minute", rest));
    }
    expect_sep(&mut rest, ':')?;
    let second = num2(&mut rest, false, "second")?;
    if second > 59 {
        return Err(invalid("second", rest));
    }
    let mut nanos = 0u32;
    if (rest.starts_with('.') || rest.starts_with(','))
        && rest.as_bytes().get(1).is_some_and(u8::is_ascii_digit)
    {
        let n = rest[1..].bytes().take_while(u8::is_ascii_digit).count();
        let frac = &rest[1..1 + n];
        let mut v = 0u64;
        for (i, c) in frac.bytes().enumerate() {
            if i < 9 {
                v = v * 10 + (c - b'0') as u64;
            }
        }
        for _ in n..9 {
            v *= 10;
        }
        nanos = v as u32;
        rest = &rest[1 + n..];
    }
    let offset: i32 = if let Some(r) = rest.strip_prefix('Z') {
        rest = r;
        0
    } else {
        let b = rest.as_bytes();
        if b.len() < 6
            || !(b[0] == b'+' || b[0] == b'-')
            || b[3] != b':'
            || ![1, 2, 4, 5].iter().all(|&i| b[i].is_ascii_digit())
        {
            return Err(invalid("UTC offset", rest));
        }
        let h: i32 = rest[1..3].parse().unwrap_or(0);
        let m: i32 = rest[4..6].parse().unwrap_or(0);
        let sign = if b[0] == b'-' { -1 } else { 1 };
        rest = &rest[6..];
        sign * (h * 3600 + m * 60)
    };
    if !rest.is_empty() {
        return Err(invalid("timestamp segment", rest));
    }
    if day < 1 || day > days_in(month, year) {
        return Err("not a valid RFC3339 timestamp: day out of range".into());
    }
    let days = days_from_civil(year, month, day);
    let local = days * 86_400 + (hour * 3600 + minute * 60 + second) as i64;
    Ok(Time {
        secs: local - offset as i64,
        nanos,
        offset,
    })
}

/// Go's `time.ParseDuration`, in nanoseconds.
pub(crate) fn parse_duration(text: &str) -> Result<i128, String> {
    let q = crate::quote::go_quote(text);
    let invalid = || format!("time: invalid duration {q}");
    let mut s = text;
    let mut neg = false;
    if let Some(c) = s.chars().next()
        && (c == '-' || c == '+')
    {
        neg = c == '-';
        s = &s[1..];
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    let mut total: u128 = 0;
    while !s.is_empty() {
        let int_len = s.bytes().take_while(u8::is_ascii_digit).count();
        let int_part = &s[..int_len];
        s = &s[int_len..];
        let mut frac_part = "";
        if let Some(r) = s.strip_prefix('.') {
            let n = r.bytes().take_while(u8::is_ascii_digit).count();
            frac_part = &r[..n];
            s = &r[n..];
        }
        if int_len == 0 && frac_part.is_empty() {
            // No digits at all (e.g. ".s" or "s").
            return Err(invalid());
        }
        let unit_len = s
            .char_indices()
            .find(|&(_, c)| c == '.' || c.is_ascii_digit())
            .map_or(s.len(), |(i, _)| i);
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {q}"));
        }
        let unit = &s[..unit_len];
        s = &s[unit_len..];
        let scale: u128 = match unit {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {q}",
                    crate::quote::go_quote(unit)
                ));
            }
        };
        let int_v: u128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().map_err(|_| invalid())?
        };
        if int_v > (1u128 << 63) {
            return Err(invalid());
        }
        let mut v = int_v.checked_mul(scale).ok_or_else(invalid)?;
        if !frac_part.is_empty() {
            // Go truncates the fraction toward zero at nanosecond scale.
            let mut f: u128 = 0;
            let mut div: u128 = 1;
            for c in frac_part.bytes().take(30) {
                f = f * 10 + (c - b'0') as u128;
                div *= 10;
            }
            v += f * scale / div;
        }
        total = total.checked_add(v).ok_or_else(invalid)?;
        if total > (1u128 << 63) || (!neg && total > i64::MAX as u128) {
            return Err(invalid());
        }
    }
    let t = total as i128;
    Ok(if neg { -t } else { t })
}

/// cty's `formatdate`.
pub(crate) fn format_date(fmt: &str, t: &Time) -> Result<String, CallError> {
    let f = t.fields();
    let b = fmt.as_bytes();
    let mut out = String::new();
    let mut i = 0usize;
    let is_verb = |c: u8| c.is_ascii_alphabetic();
    while i < b.len() {
        let start = i;
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            // Quoted literal, scanned as cty's splitDateFormat does: a
            // doubled quote inside is an escape; a quote at the very end
            // closes the literal.
            let mut j = i + 1;
            let mut end = b.len();
            while j < b.len() {
                if b[j] == b'\'' {
                    if j + 1 == b.len() {
                        end = b.len();
                        break;
                    }
                    if b[j + 1] == b'\'' {
                        j += 2;
                        continue;
                    }
                    end = j + 1;
                    break;
                }
                j += 1;
            }
            let tok = &fmt[i..end];
            if tok.len() < 2 || !tok.ends_with('\'') {
                return Err(CallError::arg(0, "unterminated literal '"));
            }
            let mut skip = false;
            for c in tok[1..tok.len() - 1].chars() {
                if skip {
                    skip = false;
                    continue;
                }
                out.push(c);
                skip = c == '\'';
            }
            i = end;
            continue;
        }
        if is_verb(b[i]) {
            let c = b[i];
            while i < b.len() && b[i] == c {
                i += 1;
            }
            let tok = &fmt[start..i];
            let n = tok.len();
            let bad = |rule: &str| {
                let q = crate::quote::go_quote(tok);
                let msg = if rule.is_empty() {
                    format!("invalid date format verb {q}")
                } else {
                    format!("invalid date format verb {q}: {rule}")
                };
                CallError::arg(0, msg)
            };
            let num = |v: u32, n: usize| {
                if n == 1 {
                    v.to_string()
                } else {
                    format!("{v:02}")
                }
            };
            match c {
                b'Y' => match n {
                    2 => out.push_str(&format!("{:02}", f.year.rem_euclid(100))),
                    4 => out.push_str(&year4(f.year)),
                    _ => return Err(bad("year must either be \"YY\" or \"YYYY\"")),
                },
                b'M' => match n {
                    1 | 2 => out.push_str(&num(f.month, n)),
                    3 => out.push_str(&MONTHS[f.month as usize - 1][..3]),
                    4 => out.push_str(MONTHS[f.month as usize - 1]),
                    _ => {
                        return Err(bad("month must be \"M\", \"MM\", \"MMM\", or \"MMMM\""));
                    }
                },
                b'D' => match n {
                    1 | 2 => out.push_str(&num(f.day, n)),
                    _ => return Err(bad("day of month must either be \"D\" or \"DD\"")),
                },
                b'E' => match n {
                    3 => out.push_str(&WEEKDAYS[f.weekday as usize][..3]),
                    4 => out.push_str(WEEKDAYS[f.weekday as usize]),
                    _ => return Err(bad("day of week must either be \"EEE\" or \"EEEE\"")),
                },
                b'h' => match n {
                    1 | 2 => out.push_str(&num(f.hour, n)),
                    _ => return Err(bad("24-hour must either be \"h\" or \"hh\"")),
                },
                b'H' => {
                    let h = match f.hour % 12 {
                        0 => 12,
                        h => h,
                    };
                    match n {
                        1 | 2 => out.push_str(&num(h, n)),
                        _ => return Err(bad("12-hour must either be \"H\" or \"HH\"")),
                    }
                }
                b'A' | b'a' => {
                    if n != 2 {
                        let cc = c as char;
                        return Err(bad(&format!("must be \"{cc}{cc}\"")));
                    }
                    let pm = f.hour >= 12;
                    out.push_str(match (c == b'A', pm) {
                        (true, false) => "AM",
                        (true, true) => "PM",
                        (false, false) => "am",
                        (false, true) => "pm",
                    });
                }
                b'm' => match n {
                    1 | 2 => out.push_str(&num(f.minute, n)),
                    _ => return Err(bad("minute must either be \"m\" or \"mm\"")),
                },
                b's' => match n {
                    1 | 2 => out.push_str(&num(f.second, n)),
                    _ => return Err(bad("second must either be \"s\" or \"ss\"")),
                },
                b'Z' => match n {
                    1 => out.push_str(&t.zone("Z07:00")),
                    3 => {
                        let z = t.zone("-0700");
                        out.push_str(if z == "+0000" { "UTC" } else { &z });
                    }
                    4 => out.push_str(&t.zone("-0700")),
                    5 => out.push_str(&t.zone("-07:00")),
                    _ => return Err(bad("timezone must be Z, ZZZZ, or ZZZZZ")),
                },
                _ => return Err(bad("")),
            }
            crate::limits::check_len(out.len())?;
            continue;
        }
        while i < b.len() && b[i] != b'\'' && !is_verb(b[i]) {
            i += 1;
        }
        out.push_str(&fmt[start..i]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fd(fmt: &str, ts: &str) -> String {
        match parse_timestamp(ts) {
            Ok(t) => format_date(fmt, &t).unwrap_or_else(|e| format!("ERR {}", e.message)),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn formatdate_like_cty() {
        let ts = "2017-03-04T22:45:09.005Z";
        assert_eq!(fd("DD MMM YYYY hh:mm ZZZ", ts), "04 Mar 2017 22:45 UTC");
        assert_eq!(
            fd("EEEE, DD-MMM-YY hh:mm:ss ZZZ", ts),
            "Saturday, 04-Mar-17 22:45:09 UTC"
        );
        assert_eq!(
            fd("EEE, DD MMM YYYY hh:mm:ss ZZZ", "2018-01-02T23:12:01-08:00"),
            "Tue, 02 Jan 2018 23:12:01 -0800"
        );
        assert_eq!(fd("h:mm AA", "2018-01-02T00:05:00Z"), "0:05 AM");
        assert_eq!(fd("H:mm aa", "2018-01-02T13:05:00Z"), "1:05 pm");
        assert_eq!(fd("'quoted ''text'''", ts), "quoted 'text'");
        assert_eq!(fd("''", ts), "'");
        assert_eq!(
            fd("YYYY-MM-DD'T'hh:mm:ssZ", "2018-01-02T23:12:01+05:30"),
            "2018-01-02T23:12:01+05:30"
        );
        assert_eq!(fd("ZZZZZ", "2018-01-02T23:12:01Z"), "+00:00");
        assert!(fd("YYY", ts).contains("year must either be"));
        assert!(fd("'abc", ts).contains("unterminated literal"));
        assert!(fd("Q", ts).contains("invalid date format verb \"Q\""));
    }

    #[test]
    fn parse_errors() {
        assert_eq!(
            fd("Y", "2017-11-22 10:00:00Z"),
            "ERR not a valid RFC3339 timestamp: missing required time introducer 'T'"
        );
        assert_eq!(
            fd("Y", "2017-02-30T10:00:00Z"),
            "ERR not a valid RFC3339 timestamp: day out of range"
        );
        assert_eq!(
            fd("Y", "2017-11-22T10:00:00"),
            "ERR not a valid RFC3339 timestamp: end of string before UTC offset"
        );
        assert!(fd("Y", "2017-11-22T10:00:00Zjunk").starts_with("ERR not a valid"));
        assert!(fd("Y", "20").starts_with("ERR not a valid"));
        assert!(fd("Y", "2017-1-22T10:00:00Z").starts_with("ERR not a valid"));
        assert_eq!(fd("h", "2017-11-22T1:00:00Z"), "1");
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(parse_duration("-1.5s"), Ok(-1_500_000_000));
        assert_eq!(parse_duration("300ms"), Ok(300_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration(".5s"), Ok(500_000_000));
        assert!(parse_duration("1").is_err_and(|e| e.contains("missing unit")));
        assert!(parse_duration("1d").is_err_and(|e| e.contains("unknown unit \"d\"")));
        assert!(parse_duration("").is_err());
        assert!(parse_duration("99999999999h").is_err());
    }

    #[test]
    fn timeadd_keeps_offset() {
        let t = parse_timestamp("2017-11-22T00:00:00+10:00").ok();
        let r = t.and_then(|t| t.add_nanos(86_400_000_000_000 + 1_500_000_000));
        assert_eq!(
            r.map(|t| t.rfc3339()).as_deref(),
            Some("2017-11-23T00:00:01+10:00")
        );
        let t = parse_timestamp("2017-11-22T00:00:00Z").ok();
        let r = t.and_then(|t| t.add_nanos(-1));
        assert_eq!(
            r.map(|t| t.rfc3339()).as_deref(),
            Some("2017-11-21T23:59:59Z")
        );
    }
}
