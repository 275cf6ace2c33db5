//! `fn-hcl eval`: the expression console and its JSON-lines mode.

use std::io::Write;
use std::process::{Command, Stdio};

fn fn_hcl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fn-hcl"))
}

/// `fn-hcl eval --jsonl` with its input and output piped.
fn jsonl_child() -> std::process::Child {
    fn_hcl()
        .args(["eval", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn")
}

#[test]
fn prints_the_value_as_json() {
    let out = fn_hcl()
        .args(["eval", "{a = [for x in [1, 2] : x * 10], b = upper(\"s\")}"])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"a\":[10,20],\"b\":\"S\"}\n"
    );
}

#[test]
fn errors_show_a_code_frame_and_exit_1() {
    let out = fn_hcl().args(["eval", "{a = 1}.b"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: Unsupported attribute"), "{err}");
    assert!(err.contains("<expr>:1:8"), "{err}");
    assert!(
        err.contains("This object does not have an attribute named \"b\"."),
        "{err}"
    );
    let out = fn_hcl().args(["eval", "[1,"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    // A parse error carries `fn-hcl analyze`'s code; the console shows none.
    let out = fn_hcl().args(["eval", "1 +"]).output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: Missing expression\n"), "{err}");
}

#[test]
fn vars_file_and_unknowns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("vars.json");
    std::fs::write(&path, r#"{"req": {"n": 2}, "u": {"$unknown": "string"}}"#).expect("write");
    let out = fn_hcl()
        .args([
            "eval",
            "--vars",
            path.to_str().expect("utf-8"),
            "req.n * 21",
        ])
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "42\n");
    let out = fn_hcl()
        .args([
            "eval",
            "--vars",
            path.to_str().expect("utf-8"),
            "\"x-${u}\"",
        ])
        .output()
        .expect("run");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "(unknown string)\n");
}

#[test]
fn jsonl_protocol() {
    let mut child = jsonl_child();
    let input = concat!(
        r#"{"id":"1","expr":"[1, \"a\"]"}"#,
        "\n",
        r#"{"id":"2","expr":"x.a","vars":{"x":{"$unknown":"object({a: number})"}}}"#,
        "\n",
        r#"{"id":"3","expr":"nosuch"}"#,
        "\n",
        r#"{"id":"4","expr":"1 +"}"#,
        "\n",
        r#"{"id":"5","expr":"s","vars":{"s":{"$sensitive":"p"}}}"#,
        "\n",
    );
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines: Vec<&str> = text.lines().collect();
    // The parse error's shape (its wording is tested with fnhcl-syntax).
    assert!(
        lines[3].starts_with(r#"{"id":"4","error":"expr.hcl:1,"#)
            && lines[3].ends_with(r#","phase":"parse"}"#),
        "{}",
        lines[3]
    );
    lines.remove(3);
    assert_eq!(
        lines,
        vec![
            r#"{"id":"1","type":"tuple([number, string])","value":[1,"a"]}"#,
            r#"{"id":"2","type":"number","unknown":true}"#,
            r#"{"id":"3","error":"expr.hcl:1,1-7: Unknown variable \"nosuch\"; There is no variable named \"nosuch\".","phase":"eval"}"#,
            r#"{"id":"5","type":"string","sensitive":true,"value":"p"}"#,
        ]
    );
}

/// The line reader: `\r\n` and `\n` endings, blank lines, lines longer
/// than a read block, a last line without an ending; a line that is not
/// UTF-8 stops the run after the answers before it.
#[test]
fn jsonl_lines_across_blocks() {
    let run = |input: Vec<u8>| {
        let mut child = jsonl_child();
        let mut stdin = child.stdin.take().expect("stdin");
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let out = child.wait_with_output().expect("wait");
        writer.join().expect("join").expect("write");
        out
    };
    let long = "y".repeat(150_000);
    let mut input = String::new();
    input.push_str("{\"id\":\"a\",\"expr\":\"1 + 1\"}\r\n\n   \n");
    input.push_str(&format!(
        "{{\"id\":\"b\",\"expr\":\"length(x)\",\"vars\":{{\"x\":\"{long}\",\"z\":\"{long}\"}}}}\n"
    ));
    input.push_str("{\"id\":\"c\",\"expr\":\"\\\"x\\\"\"}");
    let out = run(input.clone().into_bytes());
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        concat!(
            "{\"id\":\"a\",\"type\":\"number\",\"value\":2}\n",
            "{\"id\":\"b\",\"type\":\"number\",\"value\":150000}\n",
            "{\"id\":\"c\",\"type\":\"string\",\"value\":\"x\"}\n",
        )
    );
    let mut bad = b"{\"id\":\"a\",\"expr\":\"1\"}\n{\"id\":\"\xff\"}\n".to_vec();
    bad.extend_from_slice(b"{\"id\":\"c\",\"expr\":\"2\"}\n");
    let out = run(bad);
    assert!(!out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"id\":\"a\",\"type\":\"number\",\"value\":1}\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("stream did not contain valid UTF-8"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A client that waits for each answer before it writes the next line
/// gets it: answers are flushed before the command waits for more input
/// (not after every line), and the same expression twice is answered
/// with each line's own variables.
#[test]
fn jsonl_answers_a_line_before_waiting_for_the_next() {
    use std::io::{BufRead, BufReader};
    let mut child = jsonl_child();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    for n in [1, 2, 3] {
        writeln!(stdin, r#"{{"id":"{n}","expr":"x * 2","vars":{{"x":{n}}}}}"#).expect("write");
        stdin.flush().expect("flush");
        let mut answer = String::new();
        stdout.read_line(&mut answer).expect("read");
        assert_eq!(
            answer,
            format!(
                "{{\"id\":\"{n}\",\"type\":\"number\",\"value\":{}}}\n",
                n * 2
            )
        );
    }
    drop(stdin);
    assert!(child.wait().expect("wait").success());
}
