//! Hash and crypto functions: base64sha256 base64sha512 md5 sha1 sha256
//! sha512 rsadecrypt uuidv5.

use fnhcl_value::{Type, Value};
use md5::Md5;
use sha1::{Digest, Sha1};
use sha2::{Sha256, Sha512};

use crate::args::str_arg;
use crate::base64::{base64_decode, base64_encode};
use crate::error::CallError;
use crate::registry::{FuncDef, Param, Registry};

pub(crate) fn register(r: &mut Registry) {
    fn hash_fn(name: &'static str, description: &'static str) -> FuncDef {
        FuncDef::new(name, description)
            .param(Param::new("str", Type::String))
            .returns(Type::String)
    }
    r.add(
        hash_fn(
            "md5",
            "Computes the MD5 hash of a given string and encodes it with hexadecimal digits.",
        )
        .implement(|a| Ok(Value::string(hex_md5(str_arg(a, 0)?.as_bytes())))),
    );
    r.add(
        hash_fn(
            "sha1",
            "Computes the SHA1 hash of a given string and encodes it with hexadecimal digits.",
        )
        .implement(|a| Ok(Value::string(hex_sha1(str_arg(a, 0)?.as_bytes())))),
    );
    r.add(
        hash_fn(
            "sha256",
            "Computes the SHA256 hash of a given string and encodes it with hexadecimal digits.",
        )
        .implement(|a| Ok(Value::string(hex_sha256(str_arg(a, 0)?.as_bytes())))),
    );
    r.add(
        hash_fn(
            "sha512",
            "Computes the SHA512 hash of a given string and encodes it with hexadecimal digits.",
        )
        .implement(|a| Ok(Value::string(hex_sha512(str_arg(a, 0)?.as_bytes())))),
    );
    r.add(
        hash_fn(
            "base64sha256",
            "Computes the SHA256 hash of a given string and encodes it with Base64.",
        )
        .implement(|a| {
            let d = Sha256::digest(str_arg(a, 0)?.as_bytes());
            Ok(Value::string(base64_encode(&d)))
        }),
    );
    r.add(
        hash_fn(
            "base64sha512",
            "Computes the SHA512 hash of a given string and encodes it with Base64.",
        )
        .implement(|a| {
            let d = Sha512::digest(str_arg(a, 0)?.as_bytes());
            Ok(Value::string(base64_encode(&d)))
        }),
    );
    r.add(
        FuncDef::new(
            "uuidv5",
            "Generates a name-based UUID (version 5) from a namespace (dns, url, oid, x500 or a UUID) and a name.",
        )
        .param(Param::new("namespace", Type::String))
        .param(Param::new("name", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let ns_text = str_arg(a, 0)?;
            let name = str_arg(a, 1)?;
            let ns = namespace(ns_text).map_err(|e| {
                CallError::new(format!(
                    "uuidv5() doesn't support namespace {ns_text} ({e})"
                ))
            })?;
            Ok(Value::string(uuidv5(&ns, name.as_bytes())))
        }),
    );
    r.add(
        FuncDef::new(
            "rsadecrypt",
            "Decrypts an RSA-encrypted (PKCS #1 v1.5) base64 ciphertext with a PEM private key.",
        )
        .param(Param::new("ciphertext", Type::String))
        .param(Param::new("privatekey", Type::String))
        .returns(Type::String)
        .implement(|a| {
            let s = str_arg(a, 0)?;
            let key = str_arg(a, 1)?;
            rsa_decrypt(s, key).map(Value::string)
        }),
    );
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

fn hex_md5(b: &[u8]) -> String {
    hex(&Md5::digest(b))
}
fn hex_sha1(b: &[u8]) -> String {
    hex(&Sha1::digest(b))
}
fn hex_sha256(b: &[u8]) -> String {
    hex(&Sha256::digest(b))
}
fn hex_sha512(b: &[u8]) -> String {
    hex(&Sha512::digest(b))
}

/// The well-known namespaces, or a UUID in one of the forms Go's
/// `uuid.Parse` accepts.
fn namespace(s: &str) -> Result<[u8; 16], String> {
    match s {
        "dns" => return parse_uuid("6ba7b810-9dad-11d1-80b4-00c04fd430c8"),
        "url" => return parse_uuid("6ba7b811-9dad-11d1-80b4-00c04fd430c8"),
        "oid" => return parse_uuid("6ba7b812-9dad-11d1-80b4-00c04fd430c8"),
        "x500" => return parse_uuid("6ba7b814-9dad-11d1-80b4-00c04fd430c8"),
        _ => {}
    }
    parse_uuid(s)
}

/// Go's `uuid.Parse` (github.com/google/uuid).
fn parse_uuid(s: &str) -> Result<[u8; 16], String> {
    let b = s.as_bytes();
    let body: &[u8] = match b.len() {
        36 => b,
        38 => {
            if b[0] != b'{' || b[37] != b'}' {
                return Err("invalid UUID format".into());
            }
            &b[1..37]
        }
        45 => {
            if !s[..9].eq_ignore_ascii_case("urn:uuid:") {
                return Err(format!("invalid urn prefix: {:?}", &s[..9]));
            }
            &b[9..]
        }
        32 => {
            let mut out = [0u8; 16];
            for (i, o) in out.iter_mut().enumerate() {
                *o = hex_byte(b[2 * i], b[2 * i + 1]).ok_or("invalid UUID format")?;
            }
            return Ok(out);
        }
        n => return Err(format!("invalid UUID length: {n}")),
    };
    if body[8] != b'-' || body[13] != b'-' || body[18] != b'-' || body[23] != b'-' {
        return Err("invalid UUID format".into());
    }
    let mut out = [0u8; 16];
    let starts = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
    for (o, &x) in out.iter_mut().zip(starts.iter()) {
        *o = hex_byte(body[x], body[x + 1]).ok_or("invalid UUID format")?;
    }
    Ok(out)
}

fn hex_byte(a: u8, b: u8) -> Option<u8> {
    let h = (a as char).to_digit(16)?;
    let l = (b as char).to_digit(16)?;
    Some((h * 16 + l) as u8)
}

fn uuidv5(ns: &[u8; 16], name: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(ns);
    h.update(name);
    let d = h.finalize();
    let mut u = [0u8; 16];
    u.copy_from_slice(&d[..16]);
    u[6] = (u[6] & 0x0f) | 0x50;
    u[8] = (u[8] & 0x3f) | 0x80;
    let x = hex(&u);
    format!(
        "{}-{}-{}-{}-{}",
        &x[0..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..32]
    )
}

/// Terraform's `rsadecrypt`: base64 ciphertext, PEM key in PKCS #1 or
/// PKCS #8 form (as Go's `ssh.ParseRawPrivateKey` accepts), PKCS #1 v1.5
/// padding.
fn rsa_decrypt(ciphertext: &str, key: &str) -> Result<String, CallError> {
    use rsa::pkcs1::DecodeRsaPrivateKey;
    use rsa::pkcs8::DecodePrivateKey;
    let Ok(data) = base64_decode(ciphertext) else {
        return Err(CallError::arg(
            0,
            format!(
                "failed to decode input {}: cipher text must be base64-encoded",
                crate::quote::go_quote(ciphertext)
            ),
        ));
    };
    let Some((label, headers)) = pem_block(key) else {
        return Err(CallError::arg(1, "invalid private key: ssh: no key found"));
    };
    if headers.contains("ENCRYPTED") {
        return Err(CallError::arg(
            1,
            "invalid private key: ssh: this private key is passphrase protected",
        ));
    }
    let parsed = match label.as_str() {
        "RSA PRIVATE KEY" => rsa::RsaPrivateKey::from_pkcs1_pem(key.trim())
            .map_err(|e| format!("invalid ASN1 data in the given private key: {e}")),
        "PRIVATE KEY" => rsa::RsaPrivateKey::from_pkcs8_pem(key.trim())
            .map_err(|e| format!("invalid private key: {e}")),
        "OPENSSH PRIVATE KEY" => openssh_rsa_key(key),
        "EC PRIVATE KEY" | "DSA PRIVATE KEY" => Err(format!(
            "invalid private key type (a {label} is not an RSA key)"
        )),
        other => Err(format!(
            "invalid private key: ssh: unsupported key type {other:?}"
        )),
    };
    let pk = parsed.map_err(|m| CallError::arg(1, m))?;
    let out = pk
        .decrypt(rsa::Pkcs1v15Encrypt, &data)
        .map_err(|_| CallError::new("failed to decrypt: crypto/rsa: decryption error"))?;
    String::from_utf8(out)
        .map_err(|_| CallError::new("failed to decrypt: the plaintext is not valid UTF-8"))
}

/// An unencrypted RSA key in OpenSSH's own format ("openssh-key-v1"), as
/// Go's `ssh.ParseRawPrivateKey` reads it.
fn openssh_rsa_key(pem: &str) -> Result<rsa::RsaPrivateKey, String> {
    use rsa::BigUint;
    let bad = || "invalid private key: ssh: invalid openssh private key format".to_owned();
    let body: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----") && !l.contains(':'))
        .collect::<Vec<_>>()
        .concat();
    let data = base64_decode(body.trim()).map_err(|_| bad())?;
    let mut r = SshReader {
        b: data.strip_prefix(b"openssh-key-v1\0").ok_or_else(bad)?,
    };
    let cipher = r.string().ok_or_else(bad)?;
    let _kdf = r.string().ok_or_else(bad)?;
    let _kdf_opts = r.string().ok_or_else(bad)?;
    if cipher != b"none" {
        return Err("invalid private key: ssh: this private key is passphrase protected".into());
    }
    let n_keys = r.u32().ok_or_else(bad)?;
    if n_keys != 1 {
        return Err(format!(
            "invalid private key: ssh: multi-key files are not supported (found {n_keys} keys)"
        ));
    }
    let _public = r.string().ok_or_else(bad)?;
    let private = r.string().ok_or_else(bad)?;
    let mut p = SshReader { b: private };
    let (c1, c2) = (p.u32().ok_or_else(bad)?, p.u32().ok_or_else(bad)?);
    if c1 != c2 {
        return Err("invalid private key: ssh: checkint mismatch".into());
    }
    let kind = p.string().ok_or_else(bad)?;
    if kind != b"ssh-rsa" {
        return Err(format!(
            "invalid private key type (an OpenSSH {} key is not an RSA key)",
            String::from_utf8_lossy(kind)
        ));
    }
    let mut int = || p.string().map(BigUint::from_bytes_be).ok_or_else(bad);
    let (n, e, d, _iqmp, p1, q1) = (int()?, int()?, int()?, int()?, int()?, int()?);
    rsa::RsaPrivateKey::from_components(n, e, d, vec![p1, q1])
        .map_err(|e| format!("invalid private key: {e}"))
}

/// Reads SSH wire-format fields.
struct SshReader<'a> {
    b: &'a [u8],
}

impl<'a> SshReader<'a> {
    fn u32(&mut self) -> Option<u32> {
        let (head, rest) = self.b.split_first_chunk::<4>()?;
        self.b = rest;
        Some(u32::from_be_bytes(*head))
    }
    fn string(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        if n > self.b.len() {
            return None;
        }
        let (s, rest) = self.b.split_at(n);
        self.b = rest;
        Some(s)
    }
}

/// The label and header lines of the first PEM block in `s`.
fn pem_block(s: &str) -> Option<(String, String)> {
    let start = s.find("-----BEGIN ")?;
    let rest = &s[start + 11..];
    let end = rest.find("-----")?;
    let label = rest[..end].to_owned();
    let body = &rest[end + 5..];
    let close = format!("-----END {label}-----");
    let body_end = body.find(&close)?;
    let headers: String = body[..body_end]
        .lines()
        .filter(|l| l.contains(':'))
        .collect::<Vec<_>>()
        .join("\n");
    Some((label, headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids() {
        let dns = namespace("dns").unwrap_or_default();
        assert_eq!(
            uuidv5(&dns, b"www.terraform.io"),
            "a5008fae-b28c-5ba5-96cd-82b4c53552d6"
        );
        assert_eq!(
            namespace("tada").err().as_deref(),
            Some("invalid UUID length: 4")
        );
        assert_eq!(
            namespace("{6ba7b810-9dad-11d1-80b4-00c04fd430c8}").ok(),
            Some(dns)
        );
        assert_eq!(
            namespace("urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8").ok(),
            Some(dns)
        );
        assert_eq!(
            namespace("6ba7b8109dad11d180b400c04fd430c8").ok(),
            Some(dns)
        );
        assert!(namespace("6ba7b810-9dad-11d1-80b4-00c04fd430cg").is_err());
    }

    #[test]
    fn hashes() {
        assert_eq!(hex_md5(b"hello world"), "5eb63bbbe01eeed093cb22bb8f5acdc3");
        assert_eq!(
            hex_sha1(b"test"),
            "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3"
        );
    }

    #[test]
    fn rsa() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/keys/");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).unwrap_or_default();
        let ct = read("hello.b64");
        assert_eq!(
            rsa_decrypt(ct.trim(), &read("rsa1024-pkcs1.pem"))
                .ok()
                .as_deref(),
            Some("Hello, RSA!")
        );
        assert_eq!(
            rsa_decrypt(ct.trim(), &read("rsa1024-pkcs8.pem"))
                .ok()
                .as_deref(),
            Some("Hello, RSA!")
        );
        assert!(rsa_decrypt("!!", &read("rsa1024-pkcs1.pem")).is_err());
        let e = rsa_decrypt(ct.trim(), "not a key").err();
        assert_eq!(
            e.map(|e| e.message),
            Some("invalid private key: ssh: no key found".to_owned())
        );
        assert!(rsa_decrypt("AAAA", &read("rsa1024-pkcs1.pem")).is_err());
        // A key written by ssh-keygen in OpenSSH's format.
        let ct = read("hello-openssh.b64");
        assert_eq!(
            rsa_decrypt(ct.trim(), &read("rsa1024-openssh.pem"))
                .ok()
                .as_deref(),
            Some("Hello, OpenSSH!")
        );
        let broken =
            read("rsa1024-openssh.pem").replace("b3BlbnNzaC1rZXktdjE", "b3BlbnNzaC1rZXktdjI");
        assert!(rsa_decrypt(ct.trim(), &broken).is_err());
    }
}
