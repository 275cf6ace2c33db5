//! `base64gzip` against Go's `compress/gzip`: `tests/data/gzip_go.tsv` holds,
//! per input, the SHA-256 of Terraform's answer (written by
//! `scripts/gen-gzip-corpus`, a Go program run on demand). The inputs are
//! generated here as there, from each line's kind, seed and length.

use std::fmt::Write as _;
use std::path::Path;

use fnhcl_value::Value;

/// splitmix64, as the generator's.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: [&str; 16] = [
    "the",
    "resource",
    "bucket",
    "name",
    "region",
    "us-east-1",
    "spec",
    "forProvider",
    "a",
    "of",
    "\n",
    "  ",
    "value",
    "true",
    "0",
    "cloud-init",
];

const CHARS: [char; 12] = [
    'a', 'b', 'z', ' ', '\n', 'é', 'ß', '✓', '中', '😀', '0', '9',
];

fn input(kind: &str, seed: u64, n: usize) -> String {
    let mut r = Rng(seed);
    let mut s = String::new();
    for i in 0..n {
        match kind {
            "ascii" => s.push(char::from(32 + r.below(95) as u8)),
            "words" => {
                s.push_str(WORDS[r.below(WORDS.len())]);
                s.push(' ');
            }
            "runs" => {
                let c = char::from(b'a' + r.below(4) as u8);
                let len = r.below(300) + 1;
                s.extend(std::iter::repeat_n(c, len));
            }
            "unicode" => s.push(CHARS[r.below(CHARS.len())]),
            "yaml" => {
                let v = r.below(1000);
                let _ = write!(s, "- name: item-{i}\n  value: {v}\n");
            }
            _ => panic!("unknown kind {kind}"),
        }
    }
    s
}

#[test]
fn base64gzip_is_byte_identical_to_go() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gzip_go.tsv");
    let text = std::fs::read_to_string(path).expect("gzip_go.tsv exists");
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<&str> = line.split(' ').collect();
        let [kind, seed, n, len, want] = w[..] else {
            panic!("malformed line: {line}")
        };
        let s = input(kind, seed.parse().expect("seed"), n.parse().expect("units"));
        assert_eq!(s.len().to_string(), len, "input of {line}");
        let call = |f: &str, v: Value| fnhcl_functions::call(f, &[v]).expect(f).expect(f);
        let got = call("sha256", call("base64gzip", Value::string(s)));
        assert_eq!(got, Value::string(want), "base64gzip of {kind} {seed} {n}");
        checked += 1;
    }
    assert!(checked >= 50, "only {checked} inputs");
}
