//! Responsiveness of `fn-hcl lsp` (issue 15's targets), numbers for
//! docs/benchmarks.md:
//!
//! 1. diagnostics after `didChange` on a generated 2,000-line program;
//! 2. completion latency (whatever completion exists: the request is sent
//!    when the server advertises it, so re-running measures it later);
//! 3. a generated 5 MB CRD directory loading in the background while
//!    requests are answered (their latency during the load);
//! 4. the RSS of a `fn-hcl lsp` process with that CRD directory loaded
//!    (read from /proc; needs the binary: `FN_HCL_BIN` or
//!    target/release/fn-hcl).
//!
//! 1–3 drive the server in-process (`run_connection` over an in-memory
//! connection); 4 talks LSP over the child's stdio.
//!
//! ```sh
//! cargo run --release -p fnhcl-lsp --example lsp_bench
//! ```

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use fnhcl_lsp::lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

struct Client {
    tx: Sender<Message>,
    rx: Receiver<Message>,
    next_id: i32,
}

impl Client {
    fn notify(&self, method: &str, params: Value) {
        let _ = self.tx.send(Message::Notification(Notification::new(
            method.to_owned(),
            params,
        )));
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let _ = self.tx.send(Message::Request(Request::new(
            id.clone(),
            method.to_owned(),
            params,
        )));
        loop {
            match self.rx.recv_timeout(Duration::from_secs(120)) {
                Ok(Message::Response(r)) if r.id == id => {
                    return r.response_result.unwrap_or(Value::Null);
                }
                Ok(Message::Request(r)) => {
                    let resp = fnhcl_lsp::lsp_server::Response::new_ok(r.id, Value::Null);
                    let _ = self.tx.send(Message::Response(resp));
                }
                Ok(_) => {}
                Err(_) => panic!("no answer to {method}"),
            }
        }
    }

    /// Waits for a notification matching `pred`.
    fn wait(&mut self, method: &str, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            match self.rx.recv_timeout(Duration::from_secs(120)) {
                Ok(Message::Notification(n)) if n.method == method && pred(&n.params) => {
                    return n.params;
                }
                Ok(Message::Request(r)) => {
                    let resp = fnhcl_lsp::lsp_server::Response::new_ok(r.id, Value::Null);
                    let _ = self.tx.send(Message::Response(resp));
                }
                Ok(_) => {}
                Err(_) => panic!("no {method} notification"),
            }
        }
    }

    fn initialize(&mut self) -> Value {
        let r = self.request("initialize", json!({ "capabilities": {} }));
        self.notify("initialized", json!({}));
        r["capabilities"].clone()
    }

    fn open(&self, path: &Path, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "hcl", "version": 1, "text": text } }),
        );
    }
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

fn in_process() -> (Client, std::thread::JoinHandle<()>) {
    let (server, client) = Connection::memory();
    let h = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || {
            let _ = fnhcl_lsp::run_connection(&server);
        })
        .expect("spawn the server");
    let c = Client {
        tx: client.sender,
        rx: client.receiver,
        next_id: 0,
    };
    (c, h)
}

/// A 2,000-line program: 80 resources of 25 lines each, with locals,
/// templates, function calls and references between them.
fn program() -> String {
    let mut s = String::from(
        "locals {\n  region = req.composite.spec.region\n  names  = req.composite.spec.buckets\n}\n\n",
    );
    for i in 0..80 {
        s.push_str(&format!(
            r#"resource bucket{i} {{
  locals {{
    name   = "bucket-{i}-${{region}}"
    tags   = {{ index = "{i}", owner = upper("team-{i}") }}
    prev   = {prev}
  }}
  body = {{
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata = {{
      name = name
      labels = merge(tags, {{ region = region }})
    }}
    spec = {{
      forProvider = {{
        region = region
        tags   = tags
      }}
      deletionPolicy = length(names) > {i} ? "Delete" : "Orphan"
    }}
  }}
  composite status {{
    body = {{ bucket{i} = {{ name = name, previous = prev }} }}
  }}
}}

"#,
            prev = if i == 0 {
                "\"none\"".to_owned()
            } else {
                format!("\"bucket{}\"", i - 1)
            }
        ));
    }
    s
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/workspaces/storage")
}

/// A project directory: the storage fixture's XRD, composition.yaml and
/// xr.yaml, the generated program, and `.crds/` filled with `crd_copies`
/// renamed copies of the real CRDs (none: the fixture's two).
fn project(name: &str, crd_copies: usize) -> (PathBuf, u64) {
    let dir = std::env::temp_dir().join(format!("fnhcl-lsp-bench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".crds")).expect("mkdir");
    for f in ["composition.yaml", "xrd.yaml", "xr.yaml"] {
        std::fs::copy(fixture().join(f), dir.join(f)).expect("copy");
    }
    std::fs::write(dir.join("main.hcl"), program()).expect("write");
    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fnhcl-schema/tests/data/crds");
    let mut bytes = 0u64;
    let crds: Vec<(String, String)> = std::fs::read_dir(&real)
        .expect("crds")
        .filter_map(Result::ok)
        .map(|e| {
            let text = std::fs::read_to_string(e.path()).expect("read");
            (e.file_name().to_string_lossy().into_owned(), text)
        })
        .collect();
    let copies = crd_copies.max(1);
    for n in 0..copies {
        for (file, text) in &crds {
            let (text, file) = if crd_copies == 0 {
                (text.clone(), file.clone())
            } else {
                // `<kind>s.<group>` → a group of its own per copy.
                let group = group_of(text);
                let new_group = format!("copy{n}.{group}");
                (
                    text.replace(&group, &new_group),
                    file.replace(&group, &new_group),
                )
            };
            bytes += text.len() as u64;
            std::fs::write(dir.join(".crds").join(file), text).expect("write crd");
        }
    }
    (dir, bytes)
}

fn group_of(crd: &str) -> String {
    crd.lines()
        .find_map(|l| l.trim().strip_prefix("group: "))
        .unwrap_or("example.com")
        .trim()
        .to_owned()
}

/// Where the edits go: just after `${region` in the bucket-3 resource.
fn edit_point(text: &str) -> (u32, u32) {
    let line = text
        .lines()
        .position(|l| l.contains("\"bucket-3-"))
        .expect("line") as u32;
    let col = text
        .lines()
        .nth(line as usize)
        .and_then(|l| l.find("region}"))
        .expect("col") as u32
        + 6;
    (line, col)
}

/// Breaks (even versions: `${regionx}`) or fixes (odd) the reference at
/// `at` and returns the time until that version's diagnostics arrive: the
/// diagnostics change each time, so each edit is published (the server
/// publishes only what changed), and the whole program is re-analysed.
fn break_or_fix(c: &mut Client, key: &str, at: (u32, u32), v: i32) -> Duration {
    let (line, col) = at;
    let t = Instant::now();
    let (end, insert) = if v % 2 == 0 {
        (col, "x")
    } else {
        (col + 1, "")
    };
    c.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": key, "version": v },
            "contentChanges": [{
                "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": end } },
                "text": insert,
            }],
        }),
    );
    c.wait("textDocument/publishDiagnostics", |p| {
        p["uri"] == key && p["version"] == v
    });
    t.elapsed()
}

fn stats(name: &str, mut xs: Vec<Duration>, target: Option<Duration>) {
    xs.sort();
    let med = xs[xs.len() / 2];
    let p90 = xs[xs.len() * 9 / 10];
    let max = xs[xs.len() - 1];
    let verdict = match target {
        Some(t) if p90 <= t => format!("(target ≤ {t:?}: met)"),
        Some(t) => format!("(target ≤ {t:?}: MISSED)"),
        None => String::new(),
    };
    println!(
        "{name}: median {med:.2?}, p90 {p90:.2?}, max {max:.2?} over {} {verdict}",
        xs.len()
    );
}

fn diagnostics_and_completion() {
    let (dir, _) = project("edit", 0);
    let main = dir.join("main.hcl");
    let text = std::fs::read_to_string(&main).expect("read");
    println!(
        "program: {} lines, {} bytes",
        text.lines().count(),
        text.len()
    );
    let (mut c, server) = in_process();
    let caps = c.initialize();
    c.open(&main, &text);
    let key = uri(&main);
    // CRDs loaded and first diagnostics out.
    c.wait("window/logMessage", |p| {
        p["message"].as_str().is_some_and(|m| m.contains("CRD"))
    });
    let mut times = Vec::new();
    // Break and fix a reference (`${region}` ↔ `${regionx}`).
    let (line, col) = edit_point(&text);
    for v in 2..42 {
        times.push(break_or_fix(&mut c, &key, (line, col), v));
    }
    stats(
        "diagnostics after didChange (2,000 lines)",
        times,
        Some(Duration::from_millis(50)),
    );

    // The live preview (xr.yaml is beside the program): computed once per
    // change, then cached.
    let hints = json!({ "textDocument": { "uri": key }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 9999, "character": 0 } } });
    let mut first = Vec::new();
    let mut cached = Vec::new();
    for v in 42..52 {
        let insert = if v % 2 == 0 { "x" } else { "" };
        let end = if v % 2 == 0 { col } else { col + 1 };
        c.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": key, "version": v },
                "contentChanges": [{
                    "range": { "start": { "line": line, "character": col }, "end": { "line": line, "character": end } },
                    "text": insert,
                }],
            }),
        );
        let t = Instant::now();
        let r = c.request("textDocument/inlayHint", hints.clone());
        first.push(t.elapsed());
        let t = Instant::now();
        c.request("textDocument/inlayHint", hints.clone());
        cached.push(t.elapsed());
        if v == 43 {
            println!("inlay hints: {}", r.as_array().map_or(0, Vec::len));
        }
    }
    stats(
        "inlay hints after an edit (preview of 80 resources)",
        first,
        None,
    );
    stats("inlay hints, cached", cached, None);

    if caps.get("completionProvider").is_some_and(|v| !v.is_null()) {
        let mut times = Vec::new();
        let lines: Vec<&str> = text.lines().collect();
        let spots: Vec<(u32, u32)> = lines
            .iter()
            .enumerate()
            .filter_map(|(i, l)| {
                l.find("region = region")
                    .map(|c| (i as u32, (c + "region = re".len()) as u32))
            })
            .take(30)
            .collect();
        for (line, character) in spots {
            let t = Instant::now();
            let _ = c.request(
                "textDocument/completion",
                json!({ "textDocument": { "uri": key }, "position": { "line": line, "character": character } }),
            );
            times.push(t.elapsed());
        }
        stats("completion", times, Some(Duration::from_millis(20)));
    } else {
        println!("completion: not advertised by this build");
    }
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let _ = server.join();
    let _ = std::fs::remove_dir_all(dir);
}

fn crd_load_in_background() -> PathBuf {
    let (dir, bytes) = project("crds", 32);
    println!("CRD directory: {:.1} MB", bytes as f64 / 1e6);
    let main = dir.join("main.hcl");
    let text = std::fs::read_to_string(&main).expect("read");
    let (mut c, server) = in_process();
    c.initialize();
    let start = Instant::now();
    c.open(&main, &text);
    let key = uri(&main);
    let mut times = Vec::new();
    let loaded = loop {
        let t = Instant::now();
        c.request(
            "textDocument/formatting",
            json!({ "textDocument": { "uri": key }, "options": { "tabSize": 2, "insertSpaces": true } }),
        );
        times.push(t.elapsed());
        // Did the load finish meanwhile?
        let mut done = None;
        while let Ok(m) = c.rx.try_recv() {
            if let Message::Notification(n) = m
                && n.method == "window/logMessage"
                && let Some(msg) = n.params["message"].as_str()
                && (msg.contains("kinds loaded") || msg.contains("cannot load"))
            {
                done = Some(msg.to_owned());
            }
        }
        if let Some(msg) = done {
            break msg;
        }
        if start.elapsed() > Duration::from_secs(600) {
            panic!("CRDs did not load");
        }
    };
    println!("CRD load: {:.2?} ({loaded})", start.elapsed());
    stats("requests during the CRD load (formatting)", times, None);
    // The first request after the load waits for the analysis with the
    // new kinds; then edits are analysed against all 160 kinds.
    let t = Instant::now();
    c.request(
        "textDocument/formatting",
        json!({ "textDocument": { "uri": key }, "options": { "tabSize": 2, "insertSpaces": true } }),
    );
    println!("first request after the load: {:.2?}", t.elapsed());
    let (line, col) = edit_point(&text);
    let mut edits = Vec::new();
    for v in 2..22 {
        edits.push(break_or_fix(&mut c, &key, (line, col), v));
    }
    stats(
        "diagnostics after didChange with the 160 kinds",
        edits,
        Some(Duration::from_millis(50)),
    );
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let _ = server.join();
    dir
}

fn rss(dir: &Path) {
    let bin = std::env::var("FN_HCL_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/fn-hcl")
        });
    let Ok(mut child) = Command::new(&bin)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    else {
        println!("memory: cannot start {} (set FN_HCL_BIN)", bin.display());
        return;
    };
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, wrx) = crossbeam_channel::unbounded::<Message>();
    let (rtx, rx) = crossbeam_channel::unbounded::<Message>();
    std::thread::spawn(move || {
        for m in wrx {
            if m.write(&mut stdin).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        while let Ok(Some(m)) = Message::read(&mut stdout) {
            if rtx.send(m).is_err() {
                break;
            }
        }
    });
    let mut c = Client { tx, rx, next_id: 0 };
    c.initialize();
    let status = |field: &str| -> String {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap_or_default()
            .lines()
            .find(|l| l.starts_with(field))
            .map(|l| l[field.len()..].trim().to_owned())
            .unwrap_or_default()
    };
    println!("memory at start: VmRSS {}", status("VmRSS:"));
    let main = dir.join("main.hcl");
    let text = std::fs::read_to_string(&main).expect("read");
    c.open(&main, &text);
    c.wait("window/logMessage", |p| {
        p["message"]
            .as_str()
            .is_some_and(|m| m.contains("kinds loaded"))
    });
    // The analysis with the CRDs is published meanwhile; the inlay hints
    // make the preview. Then measure.
    c.request(
        "textDocument/inlayHint",
        json!({ "textDocument": { "uri": uri(&main) }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 9999, "character": 0 } } }),
    );
    println!(
        "memory with the CRD directory loaded: VmRSS {}, peak VmHWM {} (target ≤ 100 MB)",
        status("VmRSS:"),
        status("VmHWM:")
    );
    c.request("shutdown", Value::Null);
    c.notify("exit", Value::Null);
    let _ = child.wait();
}

fn main() {
    // `LSP_BENCH_ONLY=crds`: the CRD phases alone (for a profiler).
    if std::env::var("LSP_BENCH_ONLY").as_deref() != Ok("crds") {
        diagnostics_and_completion();
    }
    let dir = crd_load_in_background();
    rss(&dir);
    let _ = std::fs::remove_dir_all(dir);
}
