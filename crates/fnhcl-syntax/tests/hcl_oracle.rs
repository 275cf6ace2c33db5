//! Our parser against hashicorp/hcl itself: every HCL text of the
//! repository, each parse-error case, and seeded random mutations of the
//! texts (deleted, inserted and duplicated characters and tokens) are
//! parsed by both, as a file and as one expression, and the first
//! diagnostic (or `OK`) must be the same text: summary, detail and range.
//!
//! HCL runs as `tests/hcl-parse-oracle` (a few lines of Go on
//! hashicorp/hcl v2.24.0, the version the Go function-hcl uses), built with
//! `go build`; the test is `#[ignore]`d for that reason and run by
//! `tests/crossplane/run.sh`. `FNHCL_DIFF_MUTATIONS=n` sets the mutations
//! per text (default 12).

use std::path::{Path, PathBuf};

use fnhcl_base::SourceMap;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The repository's files: those git tracks (so the texts, and the
/// mutations drawn for them, are the same in every checkout).
fn tracked() -> Vec<PathBuf> {
    let out = std::process::Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git (this test reads the repository's files)");
    assert!(out.status.success(), "git ls-files failed");
    let mut paths: Vec<PathBuf> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| root().join(String::from_utf8_lossy(p).as_ref()))
        .collect();
    paths.sort();
    paths
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
    let paths = tracked();
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

/// One or two small corruptions of `text`, deterministic for a seeded
/// `fastrand` generator.
fn mutate(rng: &mut fastrand::Rng, text: &str) -> String {
    let mut s = text.to_owned();
    for _ in 0..rng.usize(1..=2) {
        let mut at = rng.usize(..=s.len());
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        match rng.usize(..4) {
            0 => {
                // delete a few characters
                let mut end = (at + rng.usize(1..=3)).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                s.replace_range(at..end, "");
            }
            1 | 2 => s.insert_str(at, PIECES[rng.usize(..PIECES.len())]),
            _ => {
                // duplicate a short piece
                let mut end = (at + rng.usize(1..=12)).min(s.len());
                while !s.is_char_boundary(end) {
                    end += 1;
                }
                let piece = s[at..end].to_owned();
                let mut to = rng.usize(..=s.len());
                while !s.is_char_boundary(to) {
                    to -= 1;
                }
                s.insert_str(to, &piece);
            }
        }
    }
    s
}

/// Our first diagnostic, as HCL's `Diagnostic.Error()` prints it.
fn first(text: &str, expr: bool) -> String {
    let mut sm = SourceMap::new();
    let f = sm.add("main.hcl", text);
    let diags = if expr {
        fnhcl_syntax::parse_expr(&sm, f).1
    } else {
        fnhcl_syntax::parse_file(&sm, f).1
    };
    diags
        .first()
        .map_or("OK".to_owned(), |d| d.to_hcl_string(&sm))
}

/// HCL's first diagnostics for `cases` (text, as an expression?).
fn hcl_first(cases: &[(String, bool)]) -> Vec<String> {
    use std::io::Write;
    let root = root();
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hcl-parse-oracle");
    let status = std::process::Command::new("go")
        .args(["build", "-o"])
        .arg(&bin)
        .arg(".")
        .current_dir(root.join("tests/hcl-parse-oracle"))
        .status()
        .expect("go (this test needs the Go toolchain)");
    assert!(status.success(), "go build failed");
    let mut child = std::process::Command::new(&bin)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("hcl-parse-oracle");
    let mut stdin = child.stdin.take().expect("stdin");
    let lines: Vec<String> = cases
        .iter()
        .enumerate()
        .map(|(i, (t, expr))| {
            serde_json::json!({"id": i.to_string(), "text": t, "expr": expr}).to_string()
        })
        .collect();
    let writer = std::thread::spawn(move || {
        for l in lines {
            writeln!(stdin, "{l}").expect("write");
        }
    });
    let out = child.wait_with_output().expect("hcl-parse-oracle");
    writer.join().expect("writer");
    String::from_utf8(out.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("json");
            v["first"].as_str().expect("first").to_owned()
        })
        .collect()
}

/// Whether two diagnostics differ only in their columns, in a text with a
/// character that extends the grapheme cluster before it (a combining
/// mark, an emoji modifier, a joiner): HCL counts a token's columns from
/// the token's own start, so such a character opening a token is a column
/// of its own; we count the grapheme clusters of the whole line, where it
/// joins the character before it.
fn extender_columns_only(text: &str, a: &str, b: &str) -> bool {
    let strip = |s: &str| s.split_once(": ").map(|(_, rest)| rest.to_owned());
    strip(a) == strip(b)
        && text.chars().any(|c| {
            ('\u{300}'..='\u{36f}').contains(&c)
                || ('\u{1f3fb}'..='\u{1f3ff}').contains(&c)
                || c == '\u{200d}'
                || c == '\u{fe0f}'
        })
}

/// Whether `text` ends with a heredoc's closing marker and no newline: as
/// one expression we take that marker as the heredoc's end (HCL wants the
/// newline after it; an expression on one line of a request or a JSON
/// line has none).
fn heredoc_marker_at_end(text: &str) -> bool {
    let last = text.rsplit('\n').next().unwrap_or("").trim();
    !last.is_empty()
        && (text.contains(&format!("<<{last}\n")) || text.contains(&format!("<<-{last}\n")))
}

#[test]
#[ignore = "needs Go: run by tests/crossplane/run.sh"]
fn first_diagnostics_are_hcl_s() {
    let per_text: usize = std::env::var("FNHCL_DIFF_MUTATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let c = corpus();
    let mut rng = fastrand::Rng::with_seed(0x9E37_79B9_7F4A_7C15);
    let mut cases: Vec<(String, bool)> = Vec::new();
    let errors = root().join("crates/fnhcl-syntax/tests/parse_errors");
    for p in fnhcl_cases::discover(&errors, |p| fnhcl_cases::has_extension(p, "hcl")) {
        cases.push((std::fs::read_to_string(p).expect("case"), false));
    }
    for (_, text) in c.files.iter().filter(|(_, t)| t.len() < 20_000) {
        cases.push((text.clone(), false));
        for _ in 0..per_text {
            cases.push((mutate(&mut rng, text), false));
        }
    }
    for (_, text) in &c.exprs {
        cases.push((text.clone(), true));
    }
    for (_, text) in c.exprs.iter().step_by(7) {
        for _ in 0..per_text / 3 {
            cases.push((mutate(&mut rng, text), true));
        }
    }
    let want = hcl_first(&cases);
    assert_eq!(want.len(), cases.len());
    let (mut differ, mut columns, mut heredocs) = (0, 0, 0);
    for ((text, expr), want) in cases.iter().zip(&want) {
        let got = first(text, *expr);
        if &got == want {
            continue;
        }
        if extender_columns_only(text, &got, want) {
            columns += 1;
            continue;
        }
        if *expr && got == "OK" && heredoc_marker_at_end(text) {
            heredocs += 1;
            continue;
        }
        differ += 1;
        eprintln!(
            "differs (as {}):\n  hcl:  {want}\n  ours: {got}\n---\n{text}\n---",
            if *expr { "an expression" } else { "a file" }
        );
    }
    eprintln!(
        "{} texts: {differ} differ, {columns} only in the columns of a grapheme extender, \
         {heredocs} expressions ending with a heredoc marker",
        cases.len()
    );
    assert_eq!(differ, 0);
}

/// Valid texts of every construct parse without a diagnostic.
const VALID: &[&str] = &[
    "a = 1\n",
    "a = 1",
    "a = -1.5e3 + x.y[0].z\n",
    "a = !b && c || d == e != f < g <= h > i >= j + k - l * m / n % o\n",
    "a = x ? y : z ? 1 : 2\n",
    "a = [1, 2,\n 3,]\nb = []\n",
    "a = { b = 1, c: 2\n \"d\" = 3 # c\n e = 4 // c\n}\n",
    "a = {}\nb = { }\n",
    "a = [for k, v in m : k if v]\nb = {for k, v in m : k => v... if v}\n",
    "a = f()\nb = f(x, y...)\nc = f(x,)\nd = f (x)\ne = provider::p::f(1)\n",
    "a = x[*].y.z\nb = x.*.y.z[0]\nc = x.0.y\nd = x[*]\ne = x.*\n",
    "a = \"plain \\n \\\" \\u00e9 \\U0001F600 $${x} %%{y}\"\n",
    "a = \"a ${b} c %{ if d }e%{ else }f%{ endif } ${~ g ~} h\"\n",
    "a = \"%{ for k, v in m ~} ${k}=${v} %{~ endfor }\"\n",
    "a = <<EOT\n  x ${y}\n  $${z}\nEOT\n",
    "a = <<-EOT\n    x\n      ${y}\n    %{ if z ~}\n    w\n    %{~ endif }\n  EOT\n",
    "a = <<EOT\nEOT\n",
    "block {\n}\nblock \"a\" b {\n  x = 1\n\n  inner {\n    y = 2\n  }\n}\n",
    "one { a = 1 }\nempty {}\nlabelled \"x\" { }\n",
    "# c\n/* c\n */\nresource \"a\" { // c\n  a = 1 /* c */ # c\n}\n",
    "a = (1 +\n 2)\nb = [\n  1\n  + 2,\n]\n",
    "a = x.y [0] .z\n",
    "a = null\nb = true\nc = false\nd = null_ish\n",
    "a-b = c-d\n",
    "é = \"ü\"\r\nb = é\r\n",
    "a = 1e999\n",
];

#[test]
fn valid_texts_parse_cleanly() {
    for text in VALID {
        assert_eq!(first(text, false), "OK", "{text:?}");
    }
    for text in [
        "1",
        " x.y \n",
        "a ? b : c # c\n",
        "[\n1,\n2\n]",
        "<<EOT\nx\nEOT\n",
        "<<EOT\nx\nEOT",
    ] {
        assert_eq!(first(text, true), "OK", "{text:?}");
    }
}
