//! The language server's CRD loads under a storm of file-change
//! notifications: every `workspace/didChangeWatchedFiles` used to start a
//! thread of its own, and one whose glob matched a FIFO (or took
//! exponential time) never ended. Now loads run one at a time on one
//! thread, a burst is coalesced, and a FIFO is never opened. The CRD budget
//! (`fn-hcl lsp --crds-max-bytes`) is reported in the client's log.
//!
//! Bounded in time: every wait gives up after 30 s.

use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use fnhcl_lsp::lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// The tests of this file count the process's threads: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

const CRD: &str = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.org
spec:
  group: example.org
  names:
    kind: Thing
    plural: things
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
";

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

struct Client {
    conn: Connection,
    next_id: i32,
}

impl Client {
    fn start(settings: fnhcl_lsp::Settings) -> (Client, std::thread::JoinHandle<()>) {
        let (server_side, client_side) = Connection::memory();
        let server = std::thread::spawn(move || {
            fnhcl_lsp::run_connection_with(&server_side, &settings).expect("server");
        });
        let mut client = Client {
            conn: client_side,
            next_id: 0,
        };
        client.request("initialize", json!({ "capabilities": {} }));
        client.notify("initialized", json!({}));
        (client, server)
    }

    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.conn
            .sender
            .send(Message::Notification(n))
            .expect("send");
    }

    fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let req = Request::new(id.clone(), method.to_owned(), params);
        self.conn.sender.send(Message::Request(req)).expect("send");
        loop {
            match self.conn.receiver.recv_timeout(WAIT).expect("a response") {
                Message::Response(r) if r.id == id => return r,
                _ => {}
            }
        }
    }

    /// Waits for a `window/logMessage` containing `text`, and returns it.
    fn log_containing(&self, text: &str) -> String {
        loop {
            let msg = self
                .conn
                .receiver
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("no log message with {text:?}"));
            if let Message::Notification(n) = msg
                && n.method == "window/logMessage"
            {
                let m = n.params["message"].as_str().unwrap_or("").to_owned();
                if m.contains(text) {
                    return m;
                }
            }
        }
    }

    fn stop(mut self, server: std::thread::JoinHandle<()>) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        server.join().expect("server ends");
    }
}

/// The threads of this process (Linux).
fn threads() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .and_then(|n| n.trim().parse().ok())
        .expect("Threads:")
}

/// A workspace whose `.crd-sources.yaml` glob also matches a FIFO and
/// walks a few thousand entries, then 300 change notifications for it:
/// once the server has taken them all (it answers a request sent after
/// them), the process has no more threads than before them, and the CRDs
/// load in the end (the FIFO is never opened).
#[cfg(target_os = "linux")]
#[test]
fn a_storm_of_changes_starts_no_threads() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::create_dir(root.join(".git")).expect(".git");
    write(&root, "crds/thing.yaml", CRD);
    let made = std::process::Command::new("mkfifo")
        .arg(root.join("crds/fifo.yaml"))
        .status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo is not available: skipped");
        return;
    }
    for i in 0..40 {
        for j in 0..50 {
            write(&root, &format!("crds/junk/{i}/{j}.txt"), "");
        }
    }
    write(&root, ".crd-sources.yaml", "paths:\n  - crds/**/*.yaml\n");
    write(
        &root,
        "comp/main.hcl",
        "resource thing {\n  body = {\n    apiVersion = \"example.org/v1\"\n    kind = \"Thing\"\n  }\n}\n",
    );

    let (mut client, server) = Client::start(fnhcl_lsp::Settings::default());
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri(&root.join("comp/main.hcl")), "languageId": "hcl",
                "version": 1, "text": std::fs::read_to_string(root.join("comp/main.hcl")).expect("read") } }),
    );
    client.log_containing("1 kinds loaded from CRD sources");
    let before = threads();
    let sources = uri(&root.join(".crd-sources.yaml"));
    for _ in 0..300 {
        client.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": [{ "uri": sources, "type": 2 }] }),
        );
    }
    client.request("workspace/symbol", json!({ "query": "" }));
    let after = threads();
    assert!(
        after <= before,
        "{before} threads before 300 notifications, {after} once they are taken"
    );
    client.log_containing("1 kinds loaded from CRD sources");
    client.stop(server);
}

/// Over the budget, the client's log says which budget and how to raise it.
#[test]
fn the_crd_budget_is_reported() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    write(&root, ".crds/thing.yaml", CRD);
    write(&root, "comp/main.hcl", "locals {\n  a = 1\n}\n");
    let (client, server) = Client::start(fnhcl_lsp::Settings {
        crds_max_bytes: 100,
    });
    client.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri(&root.join("comp/main.hcl")), "languageId": "hcl",
                "version": 1, "text": "locals {\n  a = 1\n}\n" } }),
    );
    let m = client.log_containing("cannot load CRDs");
    assert!(
        m.contains("more than the budget of 100 bytes; raise it with --crds-max-bytes"),
        "{m}"
    );
    client.stop(server);
}
