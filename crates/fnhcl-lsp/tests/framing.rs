//! The server over OS pipes, as `fn-hcl lsp` serves stdin/stdout: input
//! that is no message (a body over the size limit, a body that is not JSON,
//! a malformed header) is answered with JSON-RPC errors, and the server goes
//! on to answer `initialize` and `shutdown` and to end at `exit`; a
//! `Content-Length` of 100 GB neither allocates nor ends the server.
//!
//! Bounded in time: every wait gives up after a minute.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(60);

/// The server's limit on a body (`transport::MAX_CONTENT_LENGTH`).
const LIMIT: usize = 64 << 20;

fn frame(body: &str) -> Vec<u8> {
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn request(id: i32, method: &str, params: Value) -> Vec<u8> {
    frame(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string())
}

fn notification(method: &str) -> Vec<u8> {
    frame(&json!({"jsonrpc": "2.0", "method": method, "params": {}}).to_string())
}

/// Reads the server's frames, each a JSON value, onto a channel until its
/// output ends.
fn read_frames(out: impl Read + Send + 'static) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut out = BufReader::new(out);
        loop {
            let mut length = None;
            loop {
                let mut line = String::new();
                if out.read_line(&mut line).unwrap() == 0 {
                    return;
                }
                let line = line.strip_suffix("\r\n").expect("CRLF");
                if line.is_empty() {
                    break;
                }
                if let Some(n) = line.strip_prefix("Content-Length: ") {
                    length = Some(n.parse().unwrap());
                }
            }
            let mut body = vec![0; length.expect("Content-Length")];
            out.read_exact(&mut body).unwrap();
            if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                return;
            }
        }
    });
    rx
}

/// Starts the server on pipes; returns its input, its frames and its end.
fn start() -> (
    io::PipeWriter,
    mpsc::Receiver<Value>,
    mpsc::Receiver<anyhow::Result<()>>,
) {
    let (in_r, in_w) = io::pipe().unwrap();
    let (out_r, out_w) = io::pipe().unwrap();
    let (done_tx, done_rx) = mpsc::channel();
    thread::spawn(move || done_tx.send(fnhcl_lsp::run_io(in_r, out_w)));
    (in_w, read_frames(out_r), done_rx)
}

fn error_code(v: &Value) -> Option<i64> {
    assert_eq!(v["id"], Value::Null, "{v}");
    v["error"]["code"].as_i64()
}

#[test]
fn bad_input_is_answered_and_the_server_goes_on() {
    let (mut input, frames, done) = start();
    // Written from a thread, as the body over the limit is larger than a
    // pipe holds.
    let client = thread::spawn(move || -> io::Result<()> {
        input.write_all(format!("Content-Length: {}\r\n\r\n", LIMIT + 1).as_bytes())?;
        let chunk = vec![b' '; 1 << 20];
        for _ in 0..LIMIT >> 20 {
            input.write_all(&chunk)?;
        }
        input.write_all(b"{")?;
        input.write_all(&frame(r#"{"jsonrpc": "2.0", "id": 7, "method": garbage}"#))?;
        input.write_all(b"Content-Length: twelve\r\n\r\n")?;
        input.write_all(&request(1, "initialize", json!({"capabilities": {}})))?;
        input.write_all(&notification("initialized"))?;
        input.write_all(&request(2, "shutdown", Value::Null))?;
        input.write_all(&notification("exit"))
    });
    let mut got = Vec::new();
    while let Ok(v) = frames.recv_timeout(WAIT) {
        got.push(v);
    }
    client.join().unwrap().unwrap();
    done.recv_timeout(WAIT)
        .expect("the server ends at exit")
        .unwrap();

    assert_eq!(got.len(), 5, "{got:#?}");
    // Each error is written before the next frame is read, so they come
    // first, in order.
    let codes: Vec<_> = got[..3].iter().map(error_code).collect();
    assert_eq!(
        codes,
        [Some(-32600), Some(-32700), Some(-32600)],
        "{got:#?}"
    );
    let message = |i: usize| got[i]["error"]["message"].as_str().unwrap();
    assert!(
        message(0).contains(&(LIMIT + 1).to_string()),
        "{}",
        message(0)
    );
    assert!(message(2).contains("twelve"), "{}", message(2));
    assert_eq!(got[3]["id"], 1);
    assert_eq!(
        got[3]["result"]["serverInfo"]["name"], "fn-hcl",
        "{}",
        got[3]
    );
    assert!(got[3]["result"]["capabilities"].is_object(), "{}", got[3]);
    assert_eq!(got[4], json!({"jsonrpc": "2.0", "id": 2, "result": null}));
}

#[test]
fn a_100_gb_content_length_is_refused_and_input_end_ends_the_server() {
    let (mut input, frames, done) = start();
    input
        .write_all(b"Content-Length: 100000000000\r\n\r\n{\"jsonrpc\": \"2.0\"")
        .unwrap();
    drop(input);
    let answer = frames.recv_timeout(WAIT).expect("an answer");
    assert_eq!(error_code(&answer), Some(-32600), "{answer}");
    done.recv_timeout(WAIT)
        .expect("the server ends at end of input")
        .unwrap();
    assert!(frames.recv_timeout(WAIT).is_err(), "nothing more");
}
