//! The connection to the client over a byte stream (stdin/stdout, a TCP
//! socket): LSP's base protocol, a block of `Name: value` header lines
//! ending in a blank line, then a JSON body of `Content-Length` bytes.
//!
//! Framing is read here by hand rather than by `lsp-server`'s IO threads,
//! which trust their input: they allocate whatever `Content-Length` says
//! (`Content-Length: 100000000000` aborts the process), buffer a header line
//! of any length, and end the connection on a malformed header or a body
//! that is not JSON, so the server exits. Here nothing is buffered beyond a
//! limit ([`MAX_CONTENT_LENGTH`], [`MAX_HEADER_LINE`]), and input that is no
//! message is answered with a JSON-RPC error (id null) and skipped:
//!
//! - a body over the limit is read and discarded in small chunks, answered
//!   with Invalid Request;
//! - a body that is not JSON is answered with Parse error, JSON that is no
//!   message with Invalid Request;
//! - a header block with a malformed line (no colon, a bad name, a length
//!   that is not a number, a line over the limit) or without
//!   `Content-Length` is read to its blank line and answered with Invalid
//!   Request; its body is skipped if its length is known, otherwise the
//!   next bytes are read as the next header block.
//!
//! End of input ends the connection normally. The messages are still
//! `lsp-server`'s [`Message`]s, and are written with its `Message::write`.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::thread::{self, JoinHandle};

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{Connection, ErrorCode, Message};

/// The largest body read; a longer one is discarded unread.
pub(crate) const MAX_CONTENT_LENGTH: u64 = 64 << 20;

/// The longest header line kept; a longer one is discarded and is an error.
pub(crate) const MAX_HEADER_LINE: usize = 4096;

/// What one frame of input is.
#[derive(Debug)]
pub(crate) enum Frame {
    Message(Message),
    /// Input that is no message, to be answered with this error (id null).
    Invalid(ErrorCode, String),
}

/// Reads the next frame; `None` at the end of input (also in the middle of
/// a frame).
pub(crate) fn read_frame(r: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut line = Vec::new();
    let mut length = None;
    let mut problem = None;
    let mut started = false;
    loop {
        match read_line(r, &mut line)? {
            Line::Eof => return Ok(None),
            // Blank lines between frames are no frame.
            Line::Text if line.is_empty() && !started => continue,
            Line::Text if line.is_empty() => break,
            Line::TooLong => {
                problem.get_or_insert(format!("header line over {MAX_HEADER_LINE} bytes"));
            }
            Line::Text => match parse_header(&line) {
                Ok(Some(n)) => length = Some(n),
                Ok(None) => {}
                Err(e) => {
                    problem.get_or_insert(e);
                }
            },
        }
        started = true;
    }
    let Some(length) = length else {
        let problem = problem.unwrap_or_else(|| "no Content-Length header".to_owned());
        return Ok(Some(invalid(problem)));
    };
    if length > MAX_CONTENT_LENGTH {
        io::copy(&mut r.by_ref().take(length), &mut io::sink())?;
        return Ok(Some(invalid(format!(
            "message of {length} bytes, over the limit of {MAX_CONTENT_LENGTH}"
        ))));
    }
    // Grows as bytes arrive: a length that lies costs nothing.
    let mut body = Vec::new();
    r.by_ref().take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Ok(None);
    }
    if let Some(problem) = problem {
        return Ok(Some(invalid(problem)));
    }
    Ok(Some(match serde_json::from_slice(&body) {
        Ok(msg) => Frame::Message(msg),
        Err(e) if e.is_data() => invalid(format!("not a JSON-RPC message: {e}")),
        Err(e) => Frame::Invalid(ErrorCode::ParseError, format!("invalid JSON: {e}")),
    }))
}

fn invalid(message: String) -> Frame {
    Frame::Invalid(ErrorCode::InvalidRequest, message)
}

enum Line {
    Text,
    TooLong,
    Eof,
}

/// Reads a line into `line`, without its `\n` or `\r\n`, keeping at most
/// [`MAX_HEADER_LINE`] bytes.
fn read_line(r: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let buf = match r.fill_buf() {
            Ok([]) => return Ok(Line::Eof),
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let end = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..end.unwrap_or(buf.len())];
        // Room for the line and a `\r`.
        let room = MAX_HEADER_LINE + 1 - line.len();
        too_long |= chunk.len() > room;
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = end.map_or(buf.len(), |i| i + 1);
        r.consume(used);
        if end.is_some() {
            break;
        }
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    too_long |= line.len() > MAX_HEADER_LINE;
    Ok(if too_long { Line::TooLong } else { Line::Text })
}

/// Parses a header line: the length if it is `Content-Length`, `None` for
/// another header (`Content-Type`, which is not checked, or any other).
fn parse_header(line: &[u8]) -> Result<Option<u64>, String> {
    let text = String::from_utf8_lossy(line);
    let malformed = || format!("malformed header line {text:?}");
    let (name, value) = text.split_once(':').ok_or_else(malformed)?;
    let token = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(token) {
        return Err(malformed());
    }
    if !name.eq_ignore_ascii_case("Content-Length") {
        return Ok(None);
    }
    let value = value.trim_matches([' ', '\t']);
    match value.parse() {
        Ok(n) if value.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(n)),
        _ => Err(format!("Content-Length {value:?} is not a valid length")),
    }
}

/// The error response to input that is no message.
fn error_response(code: ErrorCode, message: &str) -> String {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": { "code": code as i32, "message": message },
    })
    .to_string()
}

/// The reader and writer threads of a connection.
pub(crate) struct IoThreads {
    reader: JoinHandle<io::Result<()>>,
    writer: JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits for the writer to write what the server sent (it ends when the
    /// connection is dropped), then returns the reader's error if it
    /// failed. A reader still waiting for input is left behind: the server
    /// is done.
    pub(crate) fn join(self) -> io::Result<()> {
        let written = self
            .writer
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        if self.reader.is_finished() {
            self.reader
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
        }
        written
    }
}

/// A connection over `input` and `output`, served by two threads. The
/// reader stops at the end of input or after the `exit` notification.
pub(crate) fn connect(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
) -> (Connection, IoThreads) {
    let (in_tx, in_rx) = crossbeam_channel::bounded(0);
    let (out_tx, out_rx) = crossbeam_channel::bounded(0);
    let (err_tx, err_rx) = crossbeam_channel::bounded(0);
    let reader = thread::Builder::new()
        .name("lsp-reader".to_owned())
        .spawn(move || read_loop(BufReader::new(input), &in_tx, &err_tx))
        .expect("spawn the LSP reader thread");
    let writer = thread::Builder::new()
        .name("lsp-writer".to_owned())
        .spawn(move || write_loop(BufWriter::new(output), &out_rx, err_rx))
        .expect("spawn the LSP writer thread");
    let conn = Connection {
        sender: out_tx,
        receiver: in_rx,
    };
    (conn, IoThreads { reader, writer })
}

fn read_loop(
    mut input: impl BufRead,
    messages: &Sender<Message>,
    errors: &Sender<String>,
) -> io::Result<()> {
    while let Some(frame) = read_frame(&mut input)? {
        match frame {
            Frame::Message(msg) => {
                let exit = matches!(&msg, Message::Notification(n) if n.method == "exit");
                if messages.send(msg).is_err() || exit {
                    break;
                }
            }
            Frame::Invalid(code, message) => {
                // The writer is gone only when the server is.
                let _ = errors.send(error_response(code, &message));
            }
        }
    }
    Ok(())
}

fn write_loop(
    mut out: impl Write,
    messages: &Receiver<Message>,
    mut errors: Receiver<String>,
) -> io::Result<()> {
    loop {
        select! {
            recv(messages) -> msg => match msg {
                Ok(msg) => msg.write(&mut out)?,
                Err(_) => break,
            },
            recv(errors) -> text => match text {
                Ok(text) => write_text(&mut out, &text)?,
                // The reader is done; the server may still write.
                Err(_) => errors = crossbeam_channel::never(),
            },
        }
    }
    // Answers to input read before the server stopped.
    for text in errors.try_iter() {
        write_text(&mut out, &text)?;
    }
    Ok(())
}

/// Writes a message's text, framed as `Message::write` does.
fn write_text(out: &mut impl Write, text: &str) -> io::Result<()> {
    write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    /// Every frame of `input`: a method name for a message, the code and
    /// message of an error.
    fn frames(input: &[u8]) -> Vec<Result<String, (i32, String)>> {
        let mut r = io::BufReader::with_capacity(64, input);
        let mut out = Vec::new();
        while let Some(f) = read_frame(&mut r).unwrap() {
            out.push(match f {
                Frame::Message(Message::Request(r)) => Ok(r.method),
                Frame::Message(Message::Notification(n)) => Ok(n.method),
                Frame::Message(Message::Response(r)) => Ok(format!("response {}", r.id)),
                Frame::Invalid(code, message) => Err((code as i32, message)),
            });
        }
        out
    }

    fn codes(input: &[u8]) -> Vec<Result<String, i32>> {
        frames(input)
            .into_iter()
            .map(|f| f.map_err(|(code, _)| code))
            .collect()
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
    const EXIT: &str = r#"{"jsonrpc":"2.0","method":"exit"}"#;

    fn ok(method: &str) -> Result<String, i32> {
        Ok(method.to_owned())
    }

    #[test]
    fn reads_messages_any_header_case_content_type_and_blank_lines() {
        // Blank lines between frames are skipped.
        let input = format!(
            "\r\n\n{}\r\ncontent-length: {}\r\nCONTENT-TYPE: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{EXIT}\
             Content-Type: x\r\nContent-Length:{}\n\n{INIT}",
            frame(INIT),
            EXIT.len(),
            INIT.len(),
        );
        assert_eq!(
            codes(input.as_bytes()),
            [ok("initialize"), ok("exit"), ok("initialize")]
        );
    }

    #[test]
    fn end_of_input_ends_anywhere() {
        assert!(codes(b"").is_empty());
        assert!(codes(b"Content-Length: 10\r\n").is_empty());
        assert!(codes(b"Content-Length: 10\r\n\r\n{\"a\"").is_empty());
        assert_eq!(
            codes(format!("{}Content-Len", frame(INIT)).as_bytes()),
            [ok("initialize")]
        );
    }

    #[test]
    fn huge_length_is_refused_unallocated() {
        // Body shorter than announced: the skip ends at end of input.
        let input = format!("Content-Length: 100000000000\r\n\r\n{INIT}");
        let got = frames(input.as_bytes());
        assert_eq!(got.len(), 1);
        let Err((code, message)) = &got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(*code, ErrorCode::InvalidRequest as i32);
        assert!(message.contains("100000000000"), "{message}");
        // A length beyond u64 is no number.
        let input = format!("Content-Length: 1{}\r\n\r\n{}", "0".repeat(30), frame(INIT));
        assert_eq!(codes(input.as_bytes()), [Err(-32600), ok("initialize")]);
    }

    #[test]
    fn body_over_the_limit_is_skipped_exactly() {
        let over = MAX_CONTENT_LENGTH as usize + 1;
        let mut input = format!("Content-Length: {over}\r\n\r\n").into_bytes();
        input.resize(input.len() + over, b'x');
        input.extend_from_slice(frame(INIT).as_bytes());
        assert_eq!(codes(&input), [Err(-32600), ok("initialize")]);
    }

    #[test]
    fn bad_bodies_are_errors() {
        let mut input = [
            frame("{not json"),
            frame("[1, 2]"),
            frame(r#"{"jsonrpc":"2.0","id":1}"#),
            frame("\u{feff}{}"),
            "Content-Length: 2\r\n\r\n".to_owned(),
        ]
        .concat()
        .into_bytes();
        input.extend_from_slice(b"\xff\xfe");
        input.extend_from_slice(frame(INIT).as_bytes());
        assert_eq!(
            codes(&input),
            [
                Err(-32700),
                Err(-32600),
                Err(-32600),
                Err(-32700),
                Err(-32700),
                ok("initialize")
            ]
        );
    }

    #[test]
    fn malformed_headers_are_errors_and_resynchronise() {
        let input = [
            // No colon; the block ends at the blank line.
            "garbage\r\nmore garbage\r\n\r\n".to_owned(),
            // A length that is no number: no body known.
            "Content-Length: ten\r\n\r\n".to_owned(),
            "Content-Length: -5\r\n\r\n".to_owned(),
            // No Content-Length at all.
            "Content-Type: application/vscode-jsonrpc\r\n\r\n".to_owned(),
            // A bad name with a good length: the body is skipped.
            format!(
                "Content-Length: {}\r\nBad Name: x\r\n\r\n{INIT}",
                INIT.len()
            ),
            frame(EXIT),
        ]
        .concat();
        let got = frames(input.as_bytes());
        let messages: Vec<_> = got.iter().map(|f| f.as_ref().map_err(|e| &e.1)).collect();
        assert_eq!(got.len(), 6, "{messages:#?}");
        assert!(
            got[..5].iter().all(|f| matches!(f, Err((-32600, _)))),
            "{messages:#?}"
        );
        assert!(matches!(&got[0], Err((_, m)) if m.contains("\"garbage\"")));
        assert!(matches!(&got[1], Err((_, m)) if m.contains("\"ten\"")));
        assert!(matches!(&got[3], Err((_, m)) if m.contains("no Content-Length")));
        assert_eq!(got[5], Ok("exit".to_owned()));
    }

    #[test]
    fn long_header_lines_are_bounded() {
        // Larger than any buffer: read in chunks, only the limit kept.
        let long = "X".repeat(MAX_HEADER_LINE * 256);
        let input = [
            format!("{long}\r\n\r\n"),
            format!("X-Long: {long}\r\n{}", frame(INIT)),
            frame(EXIT),
        ]
        .concat();
        let got = frames(input.as_bytes());
        assert_eq!(got.len(), 3, "{got:?}");
        for f in &got[..2] {
            assert!(
                matches!(f, Err((-32600, m)) if m.contains("header line over")),
                "{f:?}"
            );
        }
        assert_eq!(got[2], Ok("exit".to_owned()));
        // At the limit is fine, one over is not.
        let name = "X".repeat(MAX_HEADER_LINE - 3);
        assert_eq!(
            codes(format!("{name}: 1\r\n{}", frame(INIT)).as_bytes()),
            [ok("initialize")]
        );
        assert_eq!(
            codes(format!("{name}: 12\n{}", frame(INIT)).as_bytes()),
            [Err(-32600)]
        );
    }

    #[test]
    fn the_loops_answer_errors_and_stop_after_exit() {
        let input = [frame("{"), frame(INIT), frame(EXIT), frame(INIT)].concat();
        let (msg_tx, msg_rx) = crossbeam_channel::unbounded();
        let (err_tx, err_rx) = crossbeam_channel::unbounded();
        read_loop(input.as_bytes(), &msg_tx, &err_tx).unwrap();
        drop((msg_tx, err_tx));
        assert_eq!(msg_rx.len(), 2, "stops after exit");
        let mut out = Vec::new();
        write_loop(&mut out, &msg_rx, err_rx).unwrap();
        let bodies = bodies(&out);
        assert_eq!(bodies.len(), 3, "{bodies:?}");
        let errors: Vec<_> = bodies.iter().filter(|b| b.get("error").is_some()).collect();
        assert_eq!(
            errors,
            [&serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {
                    "code": -32700,
                    "message": "invalid JSON: EOF while parsing an object at line 1 column 1",
                },
            })]
        );
    }

    /// The JSON bodies of written frames, each checked to be as long as
    /// its Content-Length says.
    fn bodies(mut out: &[u8]) -> Vec<serde_json::Value> {
        let mut bodies = Vec::new();
        while !out.is_empty() {
            let text = std::str::from_utf8(out).unwrap();
            let (header, rest) = text.split_once("\r\n\r\n").unwrap();
            let length: usize = header
                .strip_prefix("Content-Length: ")
                .unwrap()
                .parse()
                .unwrap();
            bodies.push(serde_json::from_str(&rest[..length]).unwrap());
            out = &rest.as_bytes()[length..];
        }
        bodies
    }
}
