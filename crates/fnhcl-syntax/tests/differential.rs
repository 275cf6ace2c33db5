//! The fast parser against the hcl-edit path, on every HCL text of the
//! repository and on seeded random mutations of them: whenever the fast
//! parser accepts a text, the hcl-edit path must accept it too, without a
//! diagnostic, and give the same AST (spans included). Texts the fast
//! parser gives up on are the hcl-edit path's alone, by construction.
//!
//! `FNHCL_DIFF_MUTATIONS=n` sets the mutations per text (default 12).

use std::path::{Path, PathBuf};

use fnhcl_base::SourceMap;
use fnhcl_syntax::differential as d;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if !matches!(name, "target" | ".git" | "node_modules" | ".mirror") {
                walk(&p, out);
            }
        } else {
            out.push(p);
        }
    }
}

/// The `hcl: |` blocks of a YAML file (compositions), dedented.
fn yaml_blocks(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim_start();
        if t.starts_with("hcl: |") || t.starts_with("source: |") {
            let indent = l.len() - t.len();
            let mut block = Vec::new();
            let mut j = i + 1;
            while j < lines.len() {
                let m = lines[j];
                let mi = m.len() - m.trim_start().len();
                if !m.trim().is_empty() && mi <= indent {
                    break;
                }
                block.push(m);
                j += 1;
            }
            let cut = block
                .iter()
                .filter(|m| !m.trim().is_empty())
                .map(|m| m.len() - m.trim_start().len())
                .min()
                .unwrap_or(0);
            let mut s = String::new();
            for m in block {
                s.push_str(m.get(cut..).unwrap_or(""));
                s.push('\n');
            }
            out.push(s);
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// The HCL member texts of a txtar (or the whole text if it is none).
fn members(text: &str) -> Vec<String> {
    if !text.starts_with("-- ") && !text.contains("\n-- ") {
        return vec![text.to_owned()];
    }
    match fnhcl_base::txtar::parse(text) {
        Ok(files) => files
            .into_iter()
            .filter(|f| !f.name.ends_with(".yaml") && !f.name.ends_with(".json"))
            .map(|f| f.data)
            .collect(),
        Err(_) => vec![text.to_owned()],
    }
}

/// The `"expr"` strings of a JSON-lines file.
fn jsonl_exprs(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("expr")?.as_str().map(str::to_owned))
        .collect()
}

struct Corpus {
    files: Vec<(String, String)>,
    exprs: Vec<(String, String)>,
}

fn corpus() -> Corpus {
    let mut paths = Vec::new();
    walk(&root(), &mut paths);
    let mut files = Vec::new();
    let mut exprs = Vec::new();
    for p in paths {
        let name = p.display().to_string();
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        match p.extension().and_then(|e| e.to_str()) {
            Some("hcl") => files.push((name, text)),
            Some("txtar") => {
                for (i, m) in members(&text).into_iter().enumerate() {
                    files.push((format!("{name}#{i}"), m));
                }
            }
            Some("yaml") => {
                for (i, b) in yaml_blocks(&text).into_iter().enumerate() {
                    for (j, m) in members(&b).into_iter().enumerate() {
                        files.push((format!("{name}#{i}.{j}"), m));
                    }
                }
            }
            Some("jsonl") => {
                for (i, e) in jsonl_exprs(&text).into_iter().enumerate() {
                    exprs.push((format!("{name}#{i}"), e));
                }
            }
            _ => {}
        }
    }
    Corpus { files, exprs }
}

/// Compares the two paths on `text` as a file; returns whether the fast
/// parser accepted it.
fn check_file(name: &str, text: &str) -> bool {
    let mut sm = SourceMap::new();
    let f = sm.add("main.hcl", text);
    let Some(fast) = d::fast_file(&sm, f) else {
        return false;
    };
    let (slow, diags) = d::hcl_edit_file(&sm, f);
    assert!(
        diags.is_empty(),
        "{name}: the fast parser accepted a text the hcl-edit path rejects: {diags:?}\n---\n{text}"
    );
    assert_eq!(fast, slow, "{name}: the ASTs differ\n---\n{text}");
    true
}

/// The same for `text` as one expression.
fn check_expr(name: &str, text: &str) -> bool {
    let mut sm = SourceMap::new();
    let f = sm.add("expr.hcl", text);
    let Some(fast) = d::fast_expr(&sm, f) else {
        return false;
    };
    let (slow, diags) = d::hcl_edit_expr(&sm, f);
    assert!(
        diags.is_empty(),
        "{name}: the fast parser accepted an expression the hcl-edit path rejects: {diags:?}\n---\n{text}"
    );
    assert_eq!(Some(fast), slow, "{name}: the ASTs differ\n---\n{text}");
    true
}

/// The attribute values of a file, as expression texts.
fn attribute_exprs(text: &str) -> Vec<String> {
    let mut sm = SourceMap::new();
    let f = sm.add("main.hcl", text);
    let (body, _) = d::hcl_edit_file(&sm, f);
    let mut out = Vec::new();
    fn walk(b: &fnhcl_syntax::ast::Body, text: &str, out: &mut Vec<String>) {
        for s in &b.items {
            match s {
                fnhcl_syntax::ast::Structure::Attribute(a) => {
                    let sp = a.expr.span;
                    out.push(text[sp.start as usize..sp.end as usize].to_owned());
                }
                fnhcl_syntax::ast::Structure::Block(b) => walk(&b.body, text, out),
            }
        }
    }
    walk(&body, text, &mut out);
    out
}

/// xorshift64*: deterministic mutations without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    "\n",
    "${",
    "%{",
    "~",
    "}",
    "#",
    "//",
    "/*",
    "*/",
    ".",
    "*",
    ",",
    "=",
    "==",
    "-",
    " ",
    "\t",
    "<<EOT\n",
    "\nEOT\n",
    "<<-EOT\n",
    "...",
    "?",
    ":",
    "for ",
    " in ",
    "if ",
    "else",
    "endif",
    "endfor",
    "\\",
    "\\n",
    "0",
    "1.5e3",
    "é",
    "$${",
    "%%{",
    "!",
    "&&",
    "||",
    "=>",
    "x",
    "null",
    "\r",
    "\"a\" = 1\n",
    "a = 1\n",
    "[*]",
    ".*",
    ".0",
];

fn mutate(rng: &mut Rng, text: &str) -> String {
    let mut s = text.to_owned();
    for _ in 0..1 + rng.below(2) {
        let mut at = rng.below(s.len() + 1);
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.below(4) {
            0 => {
                // delete a few characters
                let mut end = (at + 1 + rng.below(3)).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                s.replace_range(at..end, "");
            }
            1 | 2 => s.insert_str(at, PIECES[rng.below(PIECES.len())]),
            _ => {
                // duplicate a short piece
                let mut end = (at + 1 + rng.below(12)).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                let piece = s[at..end].to_owned();
                let mut to = rng.below(s.len() + 1);
                while !s.is_char_boundary(to) {
                    to -= 1;
                }
                s.insert_str(to, &piece);
            }
        }
    }
    s
}

#[test]
fn fast_parser_agrees_with_hcl_edit_on_the_repository() {
    let c = corpus();
    assert!(c.files.len() > 300, "corpus too small: {}", c.files.len());
    let (mut accepted, mut rejected_by_both, mut given_up) = (0, 0, 0);
    let mut exprs: Vec<(String, String)> = c.exprs.clone();
    for (name, text) in &c.files {
        let mut sm = SourceMap::new();
        let f = sm.add("main.hcl", text.as_str());
        let slow_ok = d::hcl_edit_file(&sm, f).1.is_empty();
        if check_file(name, text) {
            accepted += 1;
        } else if slow_ok {
            given_up += 1;
        } else {
            rejected_by_both += 1;
        }
        for (i, e) in attribute_exprs(text).into_iter().enumerate() {
            exprs.push((format!("{name}@{i}"), e));
        }
    }
    let mut expr_accepted = 0;
    for (name, e) in &exprs {
        expr_accepted += usize::from(check_expr(name, e));
    }
    eprintln!(
        "files: {accepted} accepted by both, {rejected_by_both} rejected by both, {given_up} left to hcl-edit; expressions: {expr_accepted} of {}",
        exprs.len()
    );
    // The fast path must be the common path: almost every valid file.
    assert!(
        given_up * 20 < accepted,
        "the fast parser gave up on {given_up} valid files (accepted {accepted})"
    );
    assert!(expr_accepted * 10 > exprs.len() * 8);
}

#[test]
fn fast_parser_agrees_with_hcl_edit_on_mutations() {
    let per_text: usize = std::env::var("FNHCL_DIFF_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let c = corpus();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut files, mut accepted) = (0, 0);
    for (name, text) in c.files.iter().filter(|(_, t)| t.len() < 20_000) {
        for k in 0..per_text {
            let m = mutate(&mut rng, text);
            files += 1;
            accepted += usize::from(check_file(&format!("{name} mutation {k}"), &m));
        }
    }
    for (name, text) in c.exprs.iter().step_by(7) {
        for k in 0..per_text / 3 {
            let m = mutate(&mut rng, text);
            check_expr(&format!("{name} mutation {k}"), &m);
        }
    }
    eprintln!("mutations: {files} files, {accepted} accepted by the fast parser");
    assert!(accepted > 0 && accepted < files);
}

/// Texts the fast parser must read itself (and agree on).
const FAST: &[&str] = &[
    "a = 1\n",
    "a = 1",
    "a = -1.5e3 + x.y[0].z\n",
    "a = !b && c || d == e != f < g <= h > i >= j + k - l * m / n % o\n",
    "a = x ? y : z ? 1 : 2\n",
    "a = [1, 2,\n 3,]\nb = []\n",
    "a = { b = 1, c: 2\n \"d\" = 3 # c\n e = 4 // c\n}\n",
    "a = {}\nb = { }\n",
    "a = [for k, v in m : k if v]\nb = {for k, v in m : k => v... if v}\n",
    "a = [for x in xs: x]\n",
    "a = f()\nb = f(x, y...)\nc = f(x,)\nd = f (x)\n",
    "a = x[*].y.z\nb = x.*.y.z[0]\nc = x.0.y\nd = x[*]\ne = x.*\n",
    "a = \"plain \\n \\\" \\u00e9 \\U0001F600 $${x} %%{y}\"\n",
    "a = \"a ${b} c %{ if d }e%{ else }f%{ endif } ${~ g ~} h\"\n",
    "a = \"%{ for k, v in m ~} ${k}=${v} %{~ endfor }\"\n",
    "a = <<EOT\n  x ${y}\n  $${z}\nEOT\n",
    "a = <<-EOT\n    x\n      ${y}\n    %{ if z ~}\n    w\n    %{~ endif }\n  EOT\n",
    "block {\n}\nblock \"a\" b {\n  x = 1\n\n  inner {\n    y = 2\n  }\n}\n",
    "one { a = 1 }\nempty {}\nlabelled \"x\" { }\n",
    "# c\n/* c\n */\nresource \"a\" { // c\n  a = 1 /* c */ # c\n}\n",
    "a = (1 +\n 2)\nb = [\n  1\n  + 2,\n]\n",
    "a = x.y [0] .z\n",
    "a = null\nb = true\nc = false\nd = null_ish\n",
    "a-b = c-d\n",
];

/// Texts the fast parser must give up on: errors (the hcl-edit path's
/// diagnostics), and texts hcl-edit reads in a surprising way or that the
/// checks around it reject.
const GIVE_UP: &[&str] = &[
    "a = \n",
    "a = 1 b = 2\n",
    "a = 1\na = 2\n",
    "a = {b = 1, b = 2}\n",
    "a = {(x) = 1, (x) = 2}\n",
    "a = \"x\ny\"\n",
    "a = 1\r\n",
    "a = <<EOT\nx\nEOT",
    "a = <<EOT\nEOT\n",
    "a = <<EOT\nx\nEOT )\n",
    "a = - 1\n",
    "a = 1e999\n",
    "a = x.0.1\n",
    "a = x.*.y.*.z\n",
    "a = \"%{iffy}x%{endif}\"\n",
    "a = \"%{ if a }\\n%{ endif }\"\n",
    "a = [for x in xs: x iffy]\n",
    "a = provider::p::f(1)\n",
    "é = 1\n",
    "a = é\n",
    "a = \"${\"\n",
    "a = [1,,2]\n",
    "a = f(...)\n",
    "a = x.\n",
    "a = 1.x\n",
    "one { a = 1\n b = 2 }\n",
    "a = /* open\n",
];

#[test]
fn known_texts_fast_or_given_up() {
    for (i, text) in FAST.iter().enumerate() {
        assert!(
            check_file(&format!("FAST[{i}]"), text),
            "FAST[{i}] given up: {text:?}"
        );
    }
    for (i, text) in GIVE_UP.iter().enumerate() {
        assert!(
            !check_file(&format!("GIVE_UP[{i}]"), text),
            "GIVE_UP[{i}] accepted: {text:?}"
        );
    }
    // Expressions: blanks and comments around, newlines inside.
    for text in [
        "1",
        " x.y \n",
        "a ? b : c # c\n",
        "[\n1,\n2\n]",
        "<<EOT\nx\nEOT\n",
    ] {
        assert!(check_expr(text, text), "given up: {text:?}");
    }
    for text in ["", " ", "1 2", "a =", "<<EOT\nx\nEOT"] {
        assert!(!check_expr(text, text), "accepted: {text:?}");
    }
}
