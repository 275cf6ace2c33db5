//! Never crashes on broken text: the server, driven in-process, gets a few
//! thousand random edits of a real program and, after each, every request
//! it advertises at random positions. Every request must be answered with a
//! result or an ordinary error; an InternalError means a feature panicked
//! (the server catches it) and fails the test. The server must still answer
//! at the end.
//!
//! Deterministic: a seeded `fastrand` generator (`FNHCL_FUZZ_SEED` to try
//! another seed, `FNHCL_FUZZ_EDITS` for another number of edits).

use std::path::{Path, PathBuf};
use std::time::Duration;

use fnhcl_lsp::lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

const FRAGMENTS: &[&str] = &[
    "{",
    "}",
    "\"",
    "${",
    "req.",
    ".",
    "[",
    "]",
    "(",
    ")",
    "=",
    "\n",
    "é",
    "😀",
    "%{",
    "~",
    "#",
    "//",
    "/*",
    "*/",
    "<<EOT\n",
    "EOT\n",
    "each.",
    "self.",
    "local",
    "locals {",
    "resource x {",
    "invoke(\"",
    "length(",
    ",",
    ":",
    "?",
    "=>",
    "for k, v in ",
    " ",
    "\t",
    "req.composite.spec.",
    "req.resource.",
    "0x",
    "1e999",
    "\\",
    "\r\n",
    "body = {",
    "template {",
    "...",
    "*",
];

/// A char boundary of `text` at or before `i`.
fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The LSP position (line, UTF-16 column) of byte offset `i`.
fn position(text: &str, i: usize) -> Value {
    let before = &text[..i];
    let line = before.matches('\n').count();
    let start = before.rfind('\n').map_or(0, |n| n + 1);
    let col: usize = before[start..].chars().map(char::len_utf16).sum();
    json!({ "line": line, "character": col })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), dst).unwrap();
        }
    }
}

struct Client {
    conn: Connection,
    next_id: i32,
}

impl Client {
    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.conn.sender.send(Message::Notification(n)).unwrap();
    }

    /// Sends a request and waits for its response, answering the server's
    /// own requests (registrations) on the way.
    fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let req = Request::new(id.clone(), method.to_owned(), params);
        self.conn.sender.send(Message::Request(req)).unwrap();
        loop {
            let msg = self
                .conn
                .receiver
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("no response to {method}"));
            match msg {
                Message::Response(r) if r.id == id => return r,
                Message::Response(r) => panic!("response to an unknown request: {r:?}"),
                Message::Request(r) => {
                    let resp = Response::new_ok(r.id, Value::Null);
                    self.conn.sender.send(Message::Response(resp)).unwrap();
                }
                Message::Notification(_) => {}
            }
        }
    }
}

/// The requests to send, from the advertised capabilities: (method, needs a
/// position, extra params).
fn requests(caps: &Value) -> Vec<(&'static str, bool, Value)> {
    let has = |k: &str| {
        caps.get(k)
            .is_some_and(|v| !v.is_null() && *v != json!(false))
    };
    let mut out = Vec::new();
    let table: &[(&str, &str, bool, Value)] = &[
        (
            "completionProvider",
            "textDocument/completion",
            true,
            json!({}),
        ),
        ("hoverProvider", "textDocument/hover", true, json!({})),
        (
            "signatureHelpProvider",
            "textDocument/signatureHelp",
            true,
            json!({}),
        ),
        (
            "definitionProvider",
            "textDocument/definition",
            true,
            json!({}),
        ),
        (
            "typeDefinitionProvider",
            "textDocument/typeDefinition",
            true,
            json!({}),
        ),
        (
            "implementationProvider",
            "textDocument/implementation",
            true,
            json!({}),
        ),
        (
            "referencesProvider",
            "textDocument/references",
            true,
            json!({ "context": { "includeDeclaration": true } }),
        ),
        (
            "documentHighlightProvider",
            "textDocument/documentHighlight",
            true,
            json!({}),
        ),
        (
            "renameProvider",
            "textDocument/rename",
            true,
            json!({ "newName": "renamed" }),
        ),
        (
            "documentSymbolProvider",
            "textDocument/documentSymbol",
            false,
            json!({}),
        ),
        (
            "foldingRangeProvider",
            "textDocument/foldingRange",
            false,
            json!({}),
        ),
        (
            "documentFormattingProvider",
            "textDocument/formatting",
            false,
            json!({ "options": { "tabSize": 2, "insertSpaces": true } }),
        ),
        (
            "workspaceSymbolProvider",
            "workspace/symbol",
            false,
            json!({ "query": "b" }),
        ),
    ];
    for (cap, method, pos, extra) in table {
        if has(cap) {
            out.push((*method, *pos, extra.clone()));
        }
    }
    if caps["renameProvider"].get("prepareProvider") == Some(&json!(true)) {
        out.push(("textDocument/prepareRename", true, json!({})));
    }
    if has("selectionRangeProvider") {
        out.push(("textDocument/selectionRange", false, json!({})));
    }
    if has("semanticTokensProvider") {
        if caps["semanticTokensProvider"]
            .get("full")
            .is_some_and(|f| *f != json!(false))
        {
            out.push(("textDocument/semanticTokens/full", false, json!({})));
        }
        if caps["semanticTokensProvider"].get("range") == Some(&json!(true)) {
            out.push(("textDocument/semanticTokens/range", false, json!({})));
        }
    }
    // Range requests get their range below.
    if has("codeActionProvider") {
        out.push((
            "textDocument/codeAction",
            false,
            json!({ "context": { "diagnostics": [] } }),
        ));
    }
    if has("inlayHintProvider") {
        out.push(("textDocument/inlayHint", false, json!({})));
    }
    if has("documentRangeFormattingProvider") {
        out.push((
            "textDocument/rangeFormatting",
            false,
            json!({ "options": { "tabSize": 2, "insertSpaces": true } }),
        ));
    }
    out
}

#[test]
fn random_edits_never_crash_the_server() {
    let seed: u64 = std::env::var("FNHCL_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_F00D);
    let edits: usize = std::env::var("FNHCL_FUZZ_EDITS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/workspaces/storage");
    let dir: PathBuf = std::env::temp_dir().join(format!("fnhcl-fuzz-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&fixture, &dir);
    let main = dir.join("main.hcl");
    let original = std::fs::read_to_string(&main).unwrap();
    let uri = format!("file://{}", main.display());

    let (server_side, client_side) = Connection::memory();
    let server = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || fnhcl_lsp::run_connection(&server_side))
        .unwrap();
    let mut client = Client {
        conn: client_side,
        next_id: 0,
    };
    let init = client.request(
        "initialize",
        json!({ "capabilities": { "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } } }),
    );
    let caps = init.response_result.expect("initialize result")["capabilities"].clone();
    client.notify("initialized", json!({}));
    let reqs = requests(&caps);
    // What the server advertised today, at least (others are added).
    for m in ["textDocument/formatting", "textDocument/inlayHint"] {
        assert!(reqs.iter().any(|r| r.0 == m), "{m} not advertised: {caps}");
    }

    let mut text = original.clone();
    let mut version = 1;
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "hcl", "version": version, "text": text } }),
    );
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut answered = 0usize;
    let mut errors: std::collections::BTreeMap<&str, usize> = Default::default();
    for n in 0..edits {
        // Back to the real program now and then, so edits keep hitting
        // almost-valid text rather than ever deeper garbage.
        let change = if n % 40 == 39 || text.len() > 4 * original.len() {
            text = original.clone();
            json!({ "text": text })
        } else {
            let a = boundary(&text, rng.usize(..=text.len()));
            let b = match rng.usize(..3) {
                0 => a,
                _ => boundary(&text, (a + rng.usize(..12)).min(text.len())),
            };
            let insert: String = match rng.usize(..4) {
                0 => String::new(),
                1 => {
                    let k = rng.usize(1..=4);
                    (0..k)
                        .map(|_| FRAGMENTS[rng.usize(..FRAGMENTS.len())])
                        .collect()
                }
                _ => FRAGMENTS[rng.usize(..FRAGMENTS.len())].to_string(),
            };
            let range = json!({ "start": position(&text, a), "end": position(&text, b) });
            text.replace_range(a..b, &insert);
            json!({ "range": range, "text": insert })
        };
        version += 1;
        client.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [change] }),
        );
        for (method, with_pos, extra) in &reqs {
            let at = boundary(&text, rng.usize(..=text.len()));
            let to = boundary(&text, (at + rng.usize(..200)).min(text.len()));
            let mut params = json!({ "textDocument": { "uri": uri } });
            if *with_pos {
                params["position"] = position(&text, at);
            }
            if matches!(
                *method,
                "textDocument/codeAction"
                    | "textDocument/inlayHint"
                    | "textDocument/rangeFormatting"
                    | "textDocument/semanticTokens/range"
            ) {
                params["range"] =
                    json!({ "start": position(&text, at), "end": position(&text, to) });
            }
            if *method == "textDocument/selectionRange" {
                params["positions"] = json!([position(&text, at)]);
            }
            if *method == "workspace/symbol" {
                params = json!({});
            }
            for (k, v) in extra.as_object().unwrap() {
                params[k] = v.clone();
            }
            let resp = client.request(method, params.clone());
            if let Err(e) = &resp.response_result {
                assert_ne!(
                    e.code,
                    fnhcl_lsp::lsp_server::ErrorCode::InternalError as i32,
                    "{method} panicked after edit {n} (seed {seed}) at {params}: {}\n--- text ---\n{text}",
                    e.message
                );
                *errors.entry(method).or_default() += 1;
            } else {
                answered += 1;
            }
        }
    }
    // Still serving.
    let last = client.request("shutdown", Value::Null);
    assert!(last.response_result.is_ok(), "{last:?}");
    client.notify("exit", Value::Null);
    server.join().unwrap().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{edits} edits, {answered} results, errors by method {errors:?} (seed {seed})");
    assert!(answered > edits, "most requests should have results");
}
