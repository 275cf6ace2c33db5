//! Every example of `docs/language.md` is checked. The page's fenced
//! blocks follow these conventions (the words after the opening fence are
//! its "tags"):
//!
//! - ` ```hcl `: a program, one file `main.hcl`, or several files when it
//!   has txtar marker lines (`-- modules/bucket/main.hcl --`). It is
//!   analysed as `fn-hcl analyze` analyses a composition
//!   ([`fnhcl_analyze::analyze`]): no error is allowed (warnings are).
//! - ` ```hcl error E0301 `: the program must have at least one error, and
//!   every code named after `error` among its findings (for examples of
//!   what does not work).
//! - ` ```hcl file=PATH `: also, the block must be the file PATH of the
//!   repository, byte for byte; when PATH's directory is a `fn-hcl test`
//!   case, the case is run and must pass. Such a block may be followed
//!   by ` ```yaml step=N ` blocks: documents that the case's
//!   `steps/N/expected.yaml` must contain (matched as `expected` below).
//! - A program may be followed by blocks that render it, as `fn-hcl render
//!   -r -c` renders a case directory holding it: ` ```yaml xr ` (the XR;
//!   more words after `xr` are render flags, e.g. `--crossplane-version=2.2`),
//!   then optionally ` ```yaml observed ` (observed composed resources),
//!   ` ```yaml extra-resources `, and ` ```yaml expected ` (documents the
//!   output must contain: each is matched by a document of the output that
//!   has the same `kind` and `metadata.name` and holds every field it
//!   shows; of a list, the elements shown must appear in that order) or ` ```text render-error `
//!   (the render must fail with a message containing that text). These
//!   blocks belong to the nearest ` ```hcl ` block above them; a block
//!   with other tags between them ends the group.
//!
//! Other blocks (` ```yaml ` without a tag, ` ```sh `, ` ```text `) are
//! not checked.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use fnhcl_base::{Diagnostic, SourceMap};
use serde_json::Value;

const PAGE: &str = "docs/language.md";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fenced block: its language, its tags, its text and the line of its
/// first text line (1-based).
#[derive(Debug)]
struct Fence {
    lang: String,
    tags: Vec<String>,
    text: String,
    line: usize,
}

fn fences(markdown: &str) -> Vec<Fence> {
    let mut out = Vec::new();
    let mut current: Option<Fence> = None;
    for (i, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut current {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let mut words = info.split_whitespace().map(str::to_owned);
                    current = Some(Fence {
                        lang: words.next().unwrap_or_default(),
                        tags: words.collect(),
                        text: String::new(),
                        line: i + 2,
                    });
                }
            }
            Some(f) => {
                if trimmed == "```" {
                    out.extend(current.take());
                } else {
                    f.text.push_str(line);
                    f.text.push('\n');
                }
            }
        }
    }
    assert!(current.is_none(), "{PAGE}: unterminated fenced block");
    out
}

/// The render blocks that may follow a program.
const RENDER_TAGS: &[&str] = &[
    "xr",
    "observed",
    "extra-resources",
    "expected",
    "render-error",
];

fn render_tag(f: &Fence) -> Option<&str> {
    let tag = f.tags.first()?;
    if tag.starts_with("step=") {
        return Some(tag);
    }
    RENDER_TAGS.iter().copied().find(|t| t == tag)
}

/// A program and the blocks that render it.
struct Example<'a> {
    program: &'a Fence,
    render: Vec<&'a Fence>,
}

fn examples(fences: &[Fence]) -> Vec<Example<'_>> {
    let mut out: Vec<Example<'_>> = Vec::new();
    let mut open = false;
    for f in fences {
        if f.lang == "hcl" {
            out.push(Example {
                program: f,
                render: Vec::new(),
            });
            open = true;
        } else if let Some(tag) = render_tag(f) {
            let last = out.last_mut().filter(|_| open).unwrap_or_else(|| {
                panic!(
                    "{PAGE}:{}: a ```{} {tag} block must follow a ```hcl block",
                    f.line, f.lang
                )
            });
            last.render.push(f);
        } else {
            open = false;
        }
    }
    out
}

/// The files of a program block (txtar members, or one `main.hcl`).
fn files(text: &str) -> Vec<(String, String)> {
    fnhcl_base::txtar::parse(text)
        .expect("valid txtar")
        .into_iter()
        .map(|f| (f.name, f.data))
        .collect()
}

fn analyze(files: &[(String, String)]) -> (Vec<Diagnostic>, Arc<SourceMap>) {
    let mut sources = SourceMap::new();
    for (name, text) in files {
        sources.add(name.clone(), text.clone());
    }
    let sources = Arc::new(sources);
    (fnhcl_analyze::analyze(&sources), sources)
}

/// Checks one program; the problems found, if any.
fn check_program(ex: &Example<'_>) -> Vec<String> {
    let f = ex.program;
    let at = format!("{PAGE}:{}", f.line);
    let mut problems = Vec::new();
    let program_files = files(&f.text);
    let (diags, sources) = analyze(&program_files);
    let errors: Vec<&Diagnostic> = diags.iter().filter(|d| d.is_error()).collect();
    let want_error = f.tags.first().is_some_and(|t| t == "error");
    if want_error {
        if errors.is_empty() {
            problems.push(format!(
                "{at}: marked `error`, but the program has no error"
            ));
        }
        for code in &f.tags[1..] {
            if !diags.iter().any(|d| d.code == Some(code.as_str())) {
                problems.push(format!(
                    "{at}: expected a finding {code}, got:\n{}",
                    fnhcl_base::render_frames(&diags, &sources)
                ));
            }
        }
        if !ex.render.is_empty() {
            problems.push(format!("{at}: a program marked `error` cannot be rendered"));
        }
    } else if !errors.is_empty() {
        let errors: Vec<Diagnostic> = errors.into_iter().cloned().collect();
        problems.push(format!(
            "{at}: the example has errors (mark the fence `hcl error` if that is the point):\n{}",
            fnhcl_base::render_frames(&errors, &sources)
        ));
    }
    let file = f.tags.iter().find_map(|t| t.strip_prefix("file="));
    if let Some(path) = file {
        problems.extend(check_file(&at, path, &f.text));
    }
    let (steps, render): (Vec<&Fence>, Vec<&Fence>) = ex
        .render
        .iter()
        .partition(|b| b.tags[0].starts_with("step="));
    for block in steps {
        match file {
            Some(path) => problems.extend(check_step(path, block)),
            None => problems.push(format!(
                "{PAGE}:{}: a step= block needs a program with file=",
                block.line
            )),
        }
    }
    if !render.is_empty()
        && problems.is_empty()
        && let Err(e) = check_render(&at, &program_files, &render)
    {
        problems.push(e);
    }
    problems
}

/// A block that shows a file of the repository must be that file; a case
/// it belongs to must pass.
fn check_file(at: &str, path: &str, text: &str) -> Vec<String> {
    let full = repo().join(path);
    let on_disk = match std::fs::read_to_string(&full) {
        Ok(t) => t,
        Err(e) => return vec![format!("{at}: file={path}: {e}")],
    };
    if on_disk != text {
        return vec![format!(
            "{at}: the block differs from {path}:\n{}",
            fnhcl_testkit::case::line_diff(&on_disk, text)
        )];
    }
    let dir = full.parent().expect("a file has a directory");
    if !dir.join("xr.yaml").is_file() {
        return Vec::new();
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_fn-hcl"))
        .arg("test")
        .arg(dir)
        .output()
        .expect("run fn-hcl test");
    if out.status.success() {
        Vec::new()
    } else {
        vec![format!(
            "{at}: `fn-hcl test {}` fails:\n{}{}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )]
    }
}

/// A ```yaml step=N block: what the case of `path` expects at step N.
fn check_step(path: &str, block: &Fence) -> Vec<String> {
    let at = format!("{PAGE}:{}", block.line);
    let n = &block.tags[0]["step=".len()..];
    let case = repo().join(path);
    let file = case
        .parent()
        .expect("a file has a directory")
        .join("steps")
        .join(n)
        .join("expected.yaml");
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => return vec![format!("{at}: {}: {e}", file.display())],
    };
    let (docs, want) = match (
        fnhcl_render::yaml::load_stream(&text),
        fnhcl_render::yaml::load_stream(&block.text),
    ) {
        (Ok(d), Ok(w)) => (d, w),
        (Err(e), _) | (_, Err(e)) => return vec![format!("{at}: invalid YAML: {e}")],
    };
    want.iter()
        .filter_map(|w| find_match(w, &docs).err())
        .map(|why| format!("{at}: not what {} holds: {why}", file.display()))
        .collect()
}

fn check_render(at: &str, program: &[(String, String)], blocks: &[&Fence]) -> Result<(), String> {
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dir = tmp.path();
    let write = |name: &str, text: &str| -> Result<(), String> {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    for (name, text) in program {
        write(name, text)?;
    }
    let mut expected: Vec<&Fence> = Vec::new();
    let mut expected_error: Option<&Fence> = None;
    let mut has_xr = false;
    for b in blocks {
        match b.tags[0].as_str() {
            "xr" => {
                has_xr = true;
                write("xr.yaml", &b.text)?;
                let flags = &b.tags[1..];
                if !flags.is_empty() {
                    write("args", &format!("{}\n", flags.join(" ")))?;
                }
            }
            "observed" => write("observed.yaml", &b.text)?,
            "extra-resources" => write("extra-resources.yaml", &b.text)?,
            "expected" => expected.push(b),
            "render-error" => expected_error = Some(b),
            _ => unreachable!("a render tag"),
        }
    }
    if !has_xr {
        return Err(format!("{at}: render blocks without a ```yaml xr block"));
    }
    let run = fnhcl_testkit::case::render_case(dir, &fnhcl_crossplane::run)
        .map_err(|e| format!("{at}: {e}"))?;
    match (run.result, expected_error) {
        (Err(e), Some(want)) => {
            let want = want.text.trim();
            if e.message.contains(want) {
                Ok(())
            } else {
                Err(format!(
                    "{at}: the render fails with\n  {}\nwhich does not contain\n  {want}",
                    e.message
                ))
            }
        }
        (Err(e), None) => Err(format!("{at}: the render fails: {}", e.message)),
        (Ok(_), Some(want)) => Err(format!(
            "{at}: the render succeeds, but the page says it fails with {}",
            want.text.trim()
        )),
        (Ok(out), None) => {
            let mut problems = Vec::new();
            for block in expected {
                let docs = fnhcl_render::yaml::load_stream(&block.text)
                    .map_err(|e| format!("{PAGE}:{}: invalid expected YAML: {e}", block.line))?;
                for doc in docs {
                    if let Err(why) = find_match(&doc, &out.documents) {
                        problems.push(format!(
                            "{PAGE}:{}: the render output has no document like\n{}\n{why}\nthe output:\n{}",
                            block.line,
                            serde_json::to_string_pretty(&doc).unwrap_or_default(),
                            out.to_yaml().unwrap_or_default()
                        ));
                    }
                }
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("\n"))
            }
        }
    }
}

fn identity(doc: &Value) -> (Option<&str>, Option<&str>) {
    (
        doc.get("kind").and_then(Value::as_str),
        doc.pointer("/metadata/name").and_then(Value::as_str),
    )
}

/// The output document with the same kind and name as `want` (or, for a
/// document without a name such as a `Result`, any of that kind) must hold
/// what `want` shows.
fn find_match(want: &Value, docs: &[Value]) -> Result<(), String> {
    let id = identity(want);
    let candidates: Vec<&Value> = docs.iter().filter(|d| identity(d) == id).collect();
    if candidates.is_empty() {
        return Err(format!("no document of kind {:?} named {:?}", id.0, id.1));
    }
    let mut why = Vec::new();
    for c in candidates {
        match contains(c, want, "") {
            Ok(()) => return Ok(()),
            Err(e) => why.push(e),
        }
    }
    Err(why.join("\n"))
}

/// `have` holds every field of `want`: objects may have more fields, a
/// list the elements of `want`'s in that order (and others), numbers
/// compare by value.
fn contains(have: &Value, want: &Value, path: &str) -> Result<(), String> {
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => {
            for (k, wv) in w {
                let p = format!("{path}.{k}");
                let hv = h.get(k).ok_or_else(|| format!("{p}: missing"))?;
                contains(hv, wv, &p)?;
            }
            Ok(())
        }
        (Value::Array(h), Value::Array(w)) => {
            // The elements shown, in this order; others may be between.
            let mut rest = h.iter().enumerate();
            for (j, wv) in w.iter().enumerate() {
                let mut last = None;
                let found = rest.by_ref().any(|(i, hv)| {
                    let r = contains(hv, wv, &format!("{path}[{i}]"));
                    let ok = r.is_ok();
                    last = r.err();
                    ok
                });
                if !found {
                    return Err(last.unwrap_or_else(|| {
                        format!("{path}: no element like the {}. shown", j + 1)
                    }));
                }
            }
            Ok(())
        }
        (Value::Number(h), Value::Number(w)) if h.as_f64() == w.as_f64() => Ok(()),
        (h, w) if h == w => Ok(()),
        (h, w) => Err(format!("{path}: {h} instead of {w}")),
    }
}

#[test]
fn every_example_of_the_language_reference_holds() {
    let page = std::fs::read_to_string(repo().join(PAGE)).expect("read the page");
    let fences = fences(&page);
    let examples = examples(&fences);
    assert!(
        examples.len() >= 15,
        "{PAGE}: expected many ```hcl examples, found {}",
        examples.len()
    );
    assert!(
        examples.iter().any(|e| !e.render.is_empty()),
        "{PAGE}: no rendered example"
    );
    let problems: Vec<String> = examples.iter().flat_map(check_program).collect();
    assert!(
        problems.is_empty(),
        "{} problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

/// The conventions themselves: a broken example is caught.
#[test]
fn a_broken_example_fails() {
    let page = "```hcl\nresource x { body = { v = local.a } }\n```\n\
                ```hcl error E0301\nresource x { body = {} }\n```\n\
                ```hcl\nresource x { body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { a = req.composite.spec.a } } }\n```\n\
                ```yaml xr\napiVersion: example.com/v1\nkind: XApp\nmetadata:\n  name: app\nspec:\n  a: one\n```\n\
                ```yaml expected\napiVersion: v1\nkind: ConfigMap\ndata:\n  a: two\n```\n";
    let fences = fences(page);
    let examples = examples(&fences);
    assert_eq!(examples.len(), 3);
    let problems: Vec<Vec<String>> = examples.iter().map(check_program).collect();
    assert!(problems[0][0].contains("has errors"), "{:?}", problems[0]);
    assert!(problems[1][0].contains("no error"), "{:?}", problems[1]);
    assert!(
        problems[2][0].contains(".data.a: \"one\" instead of \"two\""),
        "{:?}",
        problems[2]
    );
}
