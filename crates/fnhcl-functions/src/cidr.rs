//! IP network functions: cidrhost cidrnetmask cidrsubnet cidrsubnets.
//!
//! Parsing follows Go 1.16's `net.ParseCIDR` as vendored by Terraform
//! (`internal/ipaddr`): IPv4 octets may have leading zeros (decimal), IPv6
//! may embed a dotted IPv4 tail. Address arithmetic follows
//! `github.com/apparentlymart/go-cidr` v1.1.0 with big integers, including
//! its quirks (negative host numbers count from the end, `cidrsubnets`
//! cannot allocate from a network starting at the zero address).

use fnhcl_value::{Type, Value};
use num_bigint::{BigInt, Sign};
use num_traits::{One, Signed};

use crate::args::{int_arg, str_arg};
use crate::error::CallError;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    r.add(
        FuncDef::new(
            "cidrhost",
            "Calculates a full host IP address within a given IP network address prefix.",
        )
        .param(Param::new("prefix", Type::String))
        .param(Param::new("hostnum", Type::Number))
        .returns(Type::String)
        .implement(|a| {
            let num = bigint_arg(a, 1)?;
            let net = parse_cidr(str_arg(a, 0)?)
                .map_err(|e| CallError::new(format!("invalid CIDR expression: {e}")))?;
            host(&net, num).map(Value::string).map_err(CallError::new)
        }),
    );
    r.add(
        FuncDef::new(
            "cidrnetmask",
            "Converts an IPv4 address prefix given in CIDR notation into a subnet mask address.",
        )
        .param(Param::new("prefix", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let net = parse_cidr(s)
                .map_err(|e| CallError::new(format!("invalid CIDR expression: {e}")))?;
            if to4(&net.ip).is_none() {
                return Err(CallError::new(format!(
                    "IPv6 addresses cannot have a netmask: {s}"
                )));
            }
            Ok(Value::string(ip_string(&net.mask)))
        }),
    );
    r.add(
        FuncDef::new(
            "cidrsubnet",
            "Calculates a subnet address within a given IP network address prefix.",
        )
        .param(Param::new("prefix", Type::String))
        .param(Param::new("newbits", Type::Number))
        .param(Param::new("netnum", Type::Number))
        .returns(Type::String)
        .implement(|a| {
            let newbits = int_arg(a, 1)?;
            let num = bigint_arg(a, 2)?;
            let net = parse_cidr(str_arg(a, 0)?)
                .map_err(|e| CallError::new(format!("invalid CIDR expression: {e}")))?;
            subnet(&net, newbits, num)
                .map(|n| Value::string(net_string(&n)))
                .map_err(CallError::new)
        }),
    );
    r.add(
        FuncDef::new(
            "cidrsubnets",
            "Calculates a sequence of consecutive IP address ranges within a particular CIDR prefix.",
        )
        .param(Param::new("prefix", Type::String))
        .variadic(Param::new("newbits", Type::Number))
        .returns_with("list(string)", |_| Ok(Type::list(Type::String)))
        .implement(subnets),
    );
}

fn bigint_arg(a: &[Value], i: usize) -> Result<BigInt, CallError> {
    a.get(i)
        .and_then(Value::as_number)
        .and_then(|n| n.to_bigint())
        .ok_or_else(|| CallError::arg(i, "value must be a whole number"))
}

/// An IP network as Go's `net.IPNet`: `ip` and `mask` are 4 or 16 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Net {
    ip: Vec<u8>,
    mask: Vec<u8>,
}

fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n = 0u32;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + (s[i] - b'0') as u32;
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
    let mut n = 0u32;
    let mut i = 0;
    while i < s.len() {
        let Some(d) = (s[i] as char).to_digit(16) else {
            break;
        };
        n = n * 16 + d;
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

fn parse_ipv4(mut s: &[u8]) -> Option<[u8; 4]> {
    let mut p = [0u8; 4];
    for (i, o) in p.iter_mut().enumerate() {
        if s.is_empty() {
            return None;
        }
        if i > 0 {
            if s[0] != b'.' {
                return None;
            }
            s = &s[1..];
        }
        let (n, c) = dtoi(s)?;
        if n > 0xFF {
            return None;
        }
        s = &s[c..];
        *o = n as u8;
    }
    s.is_empty().then_some(p)
}

fn parse_ipv6(mut s: &[u8]) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if s.len() >= 2 && s[0] == b':' && s[1] == b':' {
        ellipsis = Some(0);
        s = &s[2..];
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let (n, c) = xtoi(s)?;
        if n > 0xFFFF {
            return None;
        }
        if c < s.len() && s[c] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return None;
            }
            if i + 4 > 16 {
                return None;
            }
            let v4 = parse_ipv4(s)?;
            ip[i..i + 4].copy_from_slice(&v4);
            s = &[];
            i += 4;
            break;
        }
        ip[i] = (n >> 8) as u8;
        ip[i + 1] = n as u8;
        i += 2;
        s = &s[c..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return None;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    if i < 16 {
        let e = ellipsis?;
        let n = 16 - i;
        for j in (e..i).rev() {
            ip[j + n] = ip[j];
        }
        for b in ip.iter_mut().skip(e).take(n) {
            *b = 0;
        }
    } else if ellipsis.is_some() {
        return None;
    }
    Some(ip)
}

fn cidr_mask(ones: usize, bits: usize) -> Vec<u8> {
    let mut m = vec![0u8; bits / 8];
    let mut n = ones;
    for b in m.iter_mut() {
        if n >= 8 {
            *b = 0xff;
            n -= 8;
        } else {
            *b = !(0xffu8 >> n);
            n = 0;
        }
    }
    m
}

/// Go 1.16 `net.ParseCIDR`, returning the masked network. The error text
/// is Go's `ParseError`.
pub(crate) fn parse_cidr(s: &str) -> Result<Net, String> {
    let err = || format!("invalid CIDR address: {s}");
    let Some(slash) = s.find('/') else {
        return Err(err());
    };
    let (addr, mask) = (&s.as_bytes()[..slash], &s.as_bytes()[slash + 1..]);
    let (ip, iplen): (Vec<u8>, usize) = match parse_ipv4(addr) {
        Some(v4) => (v4.to_vec(), 4),
        None => match parse_ipv6(addr) {
            Some(v6) => (v6.to_vec(), 16),
            None => return Err(err()),
        },
    };
    let Some((n, i)) = dtoi(mask) else {
        return Err(err());
    };
    if i != mask.len() || n as usize > 8 * iplen {
        return Err(err());
    }
    let m = cidr_mask(n as usize, 8 * iplen);
    let masked = ip.iter().zip(m.iter()).map(|(a, b)| a & b).collect();
    Ok(Net {
        ip: masked,
        mask: m,
    })
}

/// Go's `IP.To4`.
fn to4(ip: &[u8]) -> Option<Vec<u8>> {
    match ip.len() {
        4 => Some(ip.to_vec()),
        16 if ip[..10].iter().all(|&b| b == 0) && ip[10] == 0xff && ip[11] == 0xff => {
            Some(ip[12..].to_vec())
        }
        _ => None,
    }
}

/// Go's `IP.String`.
fn ip_string(ip: &[u8]) -> String {
    if let Some(v4) = to4(ip) {
        return format!("{}.{}.{}.{}", v4[0], v4[1], v4[2], v4[3]);
    }
    if ip.len() != 16 {
        let hex: String = ip.iter().map(|b| format!("{b:02x}")).collect();
        return format!("?{hex}");
    }
    let (mut e0, mut e1) = (-1i32, -1i32);
    let mut i = 0usize;
    while i < 16 {
        let mut j = i;
        while j < 16 && ip[j] == 0 && ip[j + 1] == 0 {
            j += 2;
        }
        if j > i && (j - i) as i32 > e1 - e0 {
            e0 = i as i32;
            e1 = j as i32;
            i = j;
        }
        i += 2;
    }
    if e1 - e0 <= 2 {
        e0 = -1;
        e1 = -1;
    }
    let mut out = String::new();
    let mut i = 0i32;
    while i < 16 {
        if i == e0 {
            out.push_str("::");
            i = e1;
            if i >= 16 {
                break;
            }
        } else if i > 0 {
            out.push(':');
        }
        let g = ((ip[i as usize] as u16) << 8) | ip[i as usize + 1] as u16;
        out.push_str(&format!("{g:x}"));
        i += 2;
    }
    out
}

/// Go's `IPMask.Size` for canonical masks (`None` otherwise).
fn mask_size(m: &[u8]) -> Option<usize> {
    let mut ones = 0;
    let mut done = false;
    for &b in m {
        if done {
            if b != 0 {
                return None;
            }
            continue;
        }
        if b == 0xff {
            ones += 8;
        } else {
            let lead = b.leading_ones() as usize;
            if b << lead != 0 {
                return None;
            }
            ones += lead;
            done = true;
        }
    }
    Some(ones)
}

/// Go's `IPNet.String`.
fn net_string(n: &Net) -> String {
    let ip = match to4(&n.ip) {
        Some(v4) => v4,
        None if n.ip.len() == 16 => n.ip.clone(),
        None => return "<nil>".into(),
    };
    let m: &[u8] = match n.mask.len() {
        4 if ip.len() != 4 => return "<nil>".into(),
        4 => &n.mask,
        16 if ip.len() == 4 => &n.mask[12..],
        16 => &n.mask,
        _ => return "<nil>".into(),
    };
    match mask_size(m) {
        Some(l) => format!("{}/{l}", ip_string(&ip)),
        None => {
            let hex: String = m.iter().map(|b| format!("{b:02x}")).collect();
            format!("{}/{hex}", ip_string(&ip))
        }
    }
}

fn ip_to_int(ip: &[u8]) -> BigInt {
    BigInt::from_bytes_be(Sign::Plus, ip)
}

/// go-cidr's `intToIP`: Go panics when the number does not fit; that is
/// an error here.
fn int_to_ip(v: &BigInt, bits: usize) -> Result<Vec<u8>, String> {
    let (_, bytes) = v.to_bytes_be();
    let n = bits / 8;
    if bytes.len() > n {
        return Err("the resulting address does not fit in the address family".into());
    }
    let mut out = vec![0u8; n];
    if !(bytes.len() == 1 && bytes[0] == 0) {
        out[n - bytes.len()..].copy_from_slice(&bytes);
    }
    Ok(out)
}

fn insert_num(ip: &[u8], num: &BigInt, prefix_len: i64) -> Result<Vec<u8>, String> {
    let total = (ip.len() * 8) as i64;
    let shift = total - prefix_len;
    let shifted = if shift >= 0 {
        num << (shift as usize)
    } else {
        num >> ((-shift) as usize)
    };
    let v = ip_to_int(ip) | shifted;
    int_to_ip(&v, ip.len() * 8)
}

/// `big.Int.Uint64` (low 64 bits of the magnitude).
fn low_u64(v: &BigInt) -> u64 {
    let (_, digits) = v.to_u64_digits();
    digits.first().copied().unwrap_or(0)
}

fn host(net: &Net, mut num: BigInt) -> Result<String, String> {
    let parent = mask_size(&net.mask).unwrap_or(0);
    let host_len = net.mask.len() * 8 - parent;
    let max = (BigInt::one() << host_len) - 1;
    let mut num_u = BigInt::from(low_u64(&num) as i64);
    if num.is_negative() {
        num_u = -&num - 1;
        num = &max - &num_u;
    }
    if num_u > max {
        return Err(format!(
            "prefix of {parent} does not accommodate a host numbered {num}"
        ));
    }
    let bitlength = if to4(&net.ip).is_some() { 32 } else { 128 };
    let ip = insert_num(&net.ip, &num, bitlength)?;
    Ok(ip_string(&ip))
}

fn subnet(net: &Net, newbits: i64, num: BigInt) -> Result<Net, String> {
    let parent = mask_size(&net.mask).unwrap_or(0) as i64;
    let addr_len = (net.mask.len() * 8) as i64;
    let new_len = parent + newbits;
    if new_len > addr_len {
        return Err(format!(
            "insufficient address space to extend prefix of {parent} by {newbits}"
        ));
    }
    let max = if (0..64).contains(&newbits) {
        (1u64 << newbits).wrapping_sub(1)
    } else {
        u64::MAX
    };
    if low_u64(&num) > max {
        return Err(format!(
            "prefix extension of {newbits} does not accommodate a subnet numbered {num}"
        ));
    }
    let ip = insert_num(&net.ip, &num, new_len)?;
    let mask = if new_len < 0 {
        Vec::new()
    } else {
        cidr_mask(new_len as usize, addr_len as usize)
    };
    Ok(Net { ip, mask })
}

fn v4_or_self(ip: &[u8]) -> Vec<u8> {
    to4(ip).unwrap_or_else(|| ip.to_vec())
}

fn dec(ip: &[u8]) -> Vec<u8> {
    let mut out = ip.to_vec();
    for b in out.iter_mut().rev() {
        let (v, borrow) = b.overflowing_sub(1);
        *b = v;
        if !borrow {
            break;
        }
    }
    out
}

fn inc(ip: &[u8]) -> Vec<u8> {
    let mut out = ip.to_vec();
    for b in out.iter_mut().rev() {
        let (v, carry) = b.overflowing_add(1);
        *b = v;
        if !carry {
            break;
        }
    }
    out
}

fn apply_mask(ip: &[u8], mask: &[u8]) -> Vec<u8> {
    let ip = if mask.len() == 4 && ip.len() == 16 {
        v4_or_self(ip)
    } else {
        ip.to_vec()
    };
    ip.iter().zip(mask.iter()).map(|(a, b)| a & b).collect()
}

fn last_address(n: &Net) -> Vec<u8> {
    n.ip.iter()
        .zip(n.mask.iter())
        .map(|(a, m)| a | !m)
        .collect()
}

fn contains(n: &Net, ip: &[u8]) -> bool {
    let ip = if n.ip.len() == 4 {
        v4_or_self(ip)
    } else {
        ip.to_vec()
    };
    ip.len() == n.ip.len()
        && ip
            .iter()
            .zip(n.mask.iter())
            .zip(n.ip.iter())
            .all(|((a, m), b)| a & m == b & m)
}

fn is_zero(ip: &[u8]) -> bool {
    ip.iter().all(|&b| b == 0)
}

fn subnets(a: &[Value]) -> Result<Value, CallError> {
    let net = parse_cidr(str_arg(a, 0)?)
        .map_err(|e| CallError::arg(0, format!("invalid CIDR expression: {e}")))?;
    let start = mask_size(&net.mask).unwrap_or(0) as i64;
    let lens = &a[1..];
    if lens.is_empty() {
        return Ok(Value::list(Type::String, Vec::new()));
    }
    let first = int_arg(a, 1)? + start;
    let bits = net.ip.len() * 8;
    // go-cidr's PreviousSubnet.
    let start_ip = v4_or_self(&net.ip);
    // Go's CIDRMask gives no mask for an impossible length (an IPv4-mapped
    // network's prefix counts 128 bits but the address is handled as 4
    // bytes); the network then prints as "<nil>".
    let first_mask = if (0..=(start_ip.len() * 8) as i64).contains(&first) {
        cidr_mask(first as usize, start_ip.len() * 8)
    } else {
        Vec::new()
    };
    let mut current = Net {
        ip: apply_mask(&dec(&start_ip), &first_mask),
        mask: first_mask,
    };
    let mut out = Vec::with_capacity(lens.len());
    for i in 1..a.len() {
        let mut length = int_arg(a, i)?;
        if length < 1 {
            return Err(CallError::arg(i, "must extend prefix by at least one bit"));
        }
        if length > 32 {
            return Err(CallError::arg(
                i,
                "may not extend prefix by more than 32 bits",
            ));
        }
        length += start;
        if length > bits as i64 {
            let protocol = if bits == 32 { "IPv4" } else { "IPv6" };
            return Err(CallError::arg(
                i,
                format!(
                    "would extend prefix to {length} bits, which is too long for an {protocol} address"
                ),
            ));
        }
        // go-cidr's NextSubnet.
        let cur_last = last_address(&current);
        let mask = cidr_mask(length as usize, cur_last.len() * 8);
        let cur_sub = Net {
            ip: apply_mask(&cur_last, &mask),
            mask: mask.clone(),
        };
        let last = inc(&last_address(&cur_sub));
        let next = Net {
            ip: apply_mask(&last, &mask),
            mask,
        };
        if is_zero(&last) || !contains(&net, &next.ip) {
            return Err(CallError::arg(
                i,
                format!(
                    "not enough remaining address space for a subnet with a prefix of {length} bits after {}",
                    net_string(&current)
                ),
            ));
        }
        current = next;
        out.push(Value::string(net_string(&current)));
    }
    Ok(Value::list(Type::String, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host_of(cidr: &str, n: i64) -> String {
        match parse_cidr(cidr) {
            Ok(net) => host(&net, BigInt::from(n)).unwrap_or_else(|e| format!("ERR {e}")),
            Err(e) => format!("ERR {e}"),
        }
    }
    fn subnet_of(cidr: &str, bits: i64, n: i64) -> String {
        match parse_cidr(cidr) {
            Ok(net) => subnet(&net, bits, BigInt::from(n))
                .map(|n| net_string(&n))
                .unwrap_or_else(|e| format!("ERR {e}")),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn hosts() {
        assert_eq!(host_of("10.12.112.0/20", 268), "10.12.113.12");
        assert_eq!(host_of("192.168.1.0/24", -5), "192.168.1.251");
        assert_eq!(host_of("192.168.1.0/24", -256), "192.168.1.0");
        assert_eq!(
            host_of("192.168.1.0/24", -257),
            "ERR prefix of 24 does not accommodate a host numbered -1"
        );
        assert_eq!(host_of("010.001.0.0/24", 6), "10.1.0.6");
        assert_eq!(
            host_of("192.168.1.0/30", 255),
            "ERR prefix of 30 does not accommodate a host numbered 255"
        );
        assert_eq!(host_of("fd00::/64", 1), "fd00::1");
        assert!(host_of("10.256.0.0/8", 6).starts_with("ERR invalid CIDR address"));
    }

    #[test]
    fn subnet_cases() {
        assert_eq!(subnet_of("172.16.0.0/12", 4, 2), "172.18.0.0/16");
        assert_eq!(
            subnet_of("fd00:fd12:3456:7890::/56", 16, 162),
            "fd00:fd12:3456:7800:a200::/72"
        );
        assert_eq!(subnet_of("fe80::/48", 16, 6), "fe80:0:0:6::/64");
        assert_eq!(subnet_of("::ffff:192.168.0.0/112", 8, 6), "192.168.6.0/24");
        assert_eq!(subnet_of("fe80::/48", 33, 6), "fe80::3:0:0:0/81");
        assert_eq!(
            subnet_of("192.168.0.0/30", 4, 6),
            "ERR insufficient address space to extend prefix of 30 by 4"
        );
        assert!(subnet_of("192.168.0.0/168", 2, 16).starts_with("ERR invalid CIDR address"));
        assert_eq!(subnet_of("10.0.0.0/8", 0, 0), "10.0.0.0/8");
    }

    #[test]
    fn ip_parsing_and_printing() {
        assert_eq!(
            parse_ipv6(b"::").map(|i| ip_string(&i)).as_deref(),
            Some("::")
        );
        assert_eq!(
            parse_ipv6(b"1:0:0:1::").map(|i| ip_string(&i)).as_deref(),
            Some("1:0:0:1::")
        );
        assert_eq!(
            parse_ipv6(b"1::2:0:0:3").map(|i| ip_string(&i)).as_deref(),
            Some("1::2:0:0:3")
        );
        assert!(parse_ipv6(b"1::2::3").is_none());
        assert!(parse_ipv6(b"1:2:3:4:5:6:7:8::").is_none());
        assert_eq!(parse_ipv4(b"010.001.0.0"), Some([10, 1, 0, 0]));
        assert!(parse_ipv4(b"1.2.3").is_none());
        assert!(parse_cidr("10.0.0.0/33").is_err());
        assert!(parse_cidr("10.0.0.0/+8").is_err());
    }
}
