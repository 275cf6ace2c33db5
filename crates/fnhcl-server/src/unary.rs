//! RunFunction's unary call read and answered here, not through tonic's
//! `Grpc::unary` (its streaming decoder, the boxed and mapped request body,
//! the 8 KiB buffer every request was copied into, the encoder's buffer
//! the response was copied into, the one-message stream around the
//! response): the request's message is taken out of the DATA frames that
//! carry it (sliced, not copied, when one frame holds it, which is the
//! common case), and the response's message leaves as one buffer, its
//! 5-byte gRPC prefix written in front of it in the space the function's
//! writer leaves there ([`fnhcl_crossplane::wire::Encoded::into_parts`]).
//!
//! What a client sees is what tonic's unary handling gave: the same
//! statuses with the same messages for a compressed-flag or oversized
//! message, a request that ends early or carries no message; more messages
//! after the first are read (checked the same way) and dropped; a body
//! error ends the call with the error's status, except a cancellation,
//! which ends the request's body. A request naming a `grpc-encoding` other
//! than `identity` is not handled here (the service hands it to tonic,
//! which refuses it as before).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf as _, BufMut as _, Bytes, BytesMut};
use fnhcl_crossplane::wire::Encoded;
use http_body::{Body, Frame, SizeHint};
use tonic::{Code, Status};

/// A gRPC message's prefix: the compressed flag and the length.
const PREFIX: usize = 5;

/// tonic's default limit on a received message (4 MiB).
pub(crate) const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// Whether a request's `grpc-encoding` (if any) lets it be read here: none
/// or `identity`.
pub(crate) fn plain_encoding(headers: &http::HeaderMap) -> bool {
    headers
        .get("grpc-encoding")
        .is_none_or(|v| v.as_bytes() == b"identity")
}

/// The bytes received so far and not yet taken as messages.
enum Pending {
    None,
    /// One frame's bytes (sliced without a copy).
    One(Bytes),
    /// Several frames' bytes, gathered.
    Many(BytesMut),
}

impl Pending {
    fn len(&self) -> usize {
        match self {
            Pending::None => 0,
            Pending::One(b) => b.len(),
            Pending::Many(b) => b.len(),
        }
    }

    fn push(&mut self, data: Bytes) {
        *self = match std::mem::replace(self, Pending::None) {
            Pending::None => Pending::One(data),
            Pending::One(first) if first.is_empty() => Pending::One(data),
            Pending::One(first) => {
                let mut all = BytesMut::with_capacity(first.len() + data.len());
                all.put_slice(&first);
                all.put_slice(&data);
                Pending::Many(all)
            }
            Pending::Many(mut all) => {
                all.put_slice(&data);
                Pending::Many(all)
            }
        };
    }

    /// The first `n` bytes (at least `n` are there).
    fn take(&mut self, n: usize) -> Bytes {
        match self {
            Pending::None => Bytes::new(),
            Pending::One(b) => b.split_to(n),
            Pending::Many(b) => b.split_to(n).freeze(),
        }
    }

    fn peek_prefix(&self) -> [u8; PREFIX] {
        let mut out = [0; PREFIX];
        match self {
            Pending::None => {}
            Pending::One(b) => out.copy_from_slice(&b[..PREFIX]),
            Pending::Many(b) => out.copy_from_slice(&b[..PREFIX]),
        }
        out
    }
}

/// Splits a request body's bytes into gRPC messages, keeping the first.
struct Reader {
    pending: Pending,
    /// The length of the message whose prefix has been read.
    body: Option<usize>,
    first: Option<Bytes>,
    limit: usize,
}

impl Reader {
    fn new(limit: usize) -> Reader {
        Reader {
            pending: Pending::None,
            body: None,
            first: None,
            limit,
        }
    }

    /// Takes in a DATA frame's bytes and every message they complete.
    fn push(&mut self, data: Bytes) -> Result<(), Status> {
        self.pending.push(data);
        loop {
            match self.body {
                None => {
                    if self.pending.len() < PREFIX {
                        return Ok(());
                    }
                    let prefix = self.pending.peek_prefix();
                    match prefix[0] {
                        0 => {}
                        1 => {
                            return Err(Status::internal(
                                "protocol error: received message with compressed-flag but no grpc-encoding was specified",
                            ));
                        }
                        f => {
                            return Err(Status::internal(format!(
                                "protocol error: received message with invalid compression flag: {f} (valid flags are 0 and 1), while sending request"
                            )));
                        }
                    }
                    let len = (&prefix[1..]).get_u32() as usize;
                    if len > self.limit {
                        return Err(Status::out_of_range(format!(
                            "Error, decoded message length too large: found {len} bytes, the limit is: {} bytes",
                            self.limit
                        )));
                    }
                    self.pending.take(PREFIX);
                    self.body = Some(len);
                }
                Some(len) => {
                    if self.pending.len() < len {
                        return Ok(());
                    }
                    let message = self.pending.take(len);
                    self.body = None;
                    if self.first.is_none() {
                        self.first = Some(message);
                    }
                }
            }
        }
    }

    /// The first message, once the body has ended (`eof`: ended, not
    /// cancelled or closed by trailers).
    fn finish(self, eof: bool) -> Result<Bytes, Status> {
        if eof && self.pending.len() > 0 {
            return Err(Status::internal("Unexpected EOF decoding stream."));
        }
        self.first
            .ok_or_else(|| Status::internal("Missing request message."))
    }
}

/// Reads a unary request's message from its body (see the module's
/// documentation); messages over `limit` bytes are refused.
pub(crate) async fn read_message<B>(body: B, limit: usize) -> Result<Bytes, Status>
where
    B: Body,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut body = std::pin::pin!(body);
    let mut reader = Reader::new(limit);
    loop {
        match std::future::poll_fn(|cx| body.as_mut().poll_frame(cx)).await {
            Some(Ok(frame)) => match frame.into_data() {
                // `Bytes` hands itself over without a copy.
                Ok(mut data) => reader.push(data.copy_to_bytes(data.remaining()))?,
                // Trailers end the request.
                Err(_) => return reader.finish(false),
            },
            Some(Err(e)) => {
                let status = Status::from_error(e.into());
                if status.code() == Code::Cancelled {
                    return reader.finish(false);
                }
                return Err(status);
            }
            None => return reader.finish(true),
        }
    }
}

/// `message` with its gRPC prefix in front, in one buffer (written in
/// place when the encoder's buffer has room before the message, as it
/// nearly always has).
pub(crate) fn framed(message: Encoded) -> Bytes {
    let (mut buf, start) = message.into_parts();
    let len = buf.len() - start;
    let mut prefix = [0u8; PREFIX];
    prefix[1..].copy_from_slice(&(len as u32).to_be_bytes());
    if start >= PREFIX {
        let at = start - PREFIX;
        buf[at..start].copy_from_slice(&prefix);
        Bytes::from(buf).slice(at..)
    } else {
        let mut out = Vec::with_capacity(PREFIX + len);
        out.extend_from_slice(&prefix);
        out.extend_from_slice(&buf[start..]);
        Bytes::from(out)
    }
}

/// A successful unary response: the message's bytes in one DATA frame,
/// then the trailers with status OK.
pub(crate) fn ok_response(message: Encoded) -> http::Response<tonic::body::Body> {
    let body = UnaryBody {
        data: Some(framed(message)),
        trailers: true,
    };
    let mut response = http::Response::new(tonic::body::Body::new(body));
    response.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/grpc"),
    );
    response
}

/// The body of [`ok_response`].
struct UnaryBody {
    data: Option<Bytes>,
    trailers: bool,
}

impl Body for UnaryBody {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Status>>> {
        let this = self.get_mut();
        if let Some(data) = this.data.take() {
            return Poll::Ready(Some(Ok(Frame::data(data))));
        }
        if std::mem::take(&mut this.trailers) {
            let mut trailers = http::HeaderMap::with_capacity(1);
            trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
            return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
        }
        Poll::Ready(None)
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none() && !self.trailers
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |d| d.len() as u64))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A gRPC message: its flag, its length, `body` (also the server's
    /// tests' request bodies).
    pub(crate) fn message(flag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![flag];
        out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    fn read(chunks: &[&[u8]], eof: bool, limit: usize) -> Result<Bytes, Status> {
        let mut r = Reader::new(limit);
        for c in chunks {
            r.push(Bytes::copy_from_slice(c))?;
        }
        r.finish(eof)
    }

    #[test]
    fn one_frame_or_many_give_the_same_message() {
        let m = message(0, b"hello, world");
        assert_eq!(read(&[&m], true, 100).unwrap(), &b"hello, world"[..]);
        for cut in 0..=m.len() {
            let (a, b) = m.split_at(cut);
            assert_eq!(read(&[a, b], true, 100).unwrap(), &b"hello, world"[..]);
        }
        let bytes: Vec<&[u8]> = m.chunks(1).collect();
        assert_eq!(read(&bytes, true, 100).unwrap(), &b"hello, world"[..]);
    }

    #[test]
    fn the_first_of_several_messages_is_taken_the_others_are_checked() {
        let mut m = message(0, b"one");
        m.extend(message(0, b""));
        m.extend(message(0, b"three"));
        assert_eq!(read(&[&m], true, 100).unwrap(), &b"one"[..]);
        let mut bad = message(0, b"one");
        bad.extend(message(1, b"x"));
        assert_eq!(read(&[&bad], true, 100).unwrap_err().code(), Code::Internal);
        let mut big = message(0, b"one");
        big.extend(message(0, &[7; 20]));
        assert_eq!(
            read(&[&big], true, 10).unwrap_err().code(),
            Code::OutOfRange
        );
    }

    #[test]
    fn an_empty_message_is_a_message() {
        assert_eq!(read(&[&message(0, b"")], true, 100).unwrap(), &b""[..]);
    }

    #[test]
    fn bad_prefixes_and_ends_have_tonics_statuses() {
        let e = read(&[&message(1, b"x")], true, 100).unwrap_err();
        assert_eq!(e.code(), Code::Internal);
        assert_eq!(
            e.message(),
            "protocol error: received message with compressed-flag but no grpc-encoding was specified"
        );
        let e = read(&[&message(2, b"x")], true, 100).unwrap_err();
        assert_eq!(
            e.message(),
            "protocol error: received message with invalid compression flag: 2 (valid flags are 0 and 1), while sending request"
        );
        let e = read(&[&message(0, &[1; 11])], true, 10).unwrap_err();
        assert_eq!(e.code(), Code::OutOfRange);
        assert_eq!(
            e.message(),
            "Error, decoded message length too large: found 11 bytes, the limit is: 10 bytes"
        );
        // The prefix alone is refused before the rest arrives.
        let m = message(0, &[1; 11]);
        assert_eq!(
            read(&[&m[..PREFIX]], false, 10).unwrap_err().code(),
            Code::OutOfRange
        );
        let e = read(&[], true, 10).unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (Code::Internal, "Missing request message.")
        );
        let m = message(0, b"hello");
        let e = read(&[&m[..7]], true, 10).unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (Code::Internal, "Unexpected EOF decoding stream.")
        );
        // Cut short by trailers or a cancellation: no EOF check, as tonic.
        let e = read(&[&m[..7]], false, 10).unwrap_err();
        assert_eq!(e.message(), "Missing request message.");
        let mut m2 = message(0, b"ok");
        m2.extend_from_slice(&[0, 0]);
        assert_eq!(read(&[&m2], false, 10).unwrap(), &b"ok"[..]);
        assert_eq!(
            read(&[&m2], true, 10).unwrap_err().message(),
            "Unexpected EOF decoding stream."
        );
    }

    #[test]
    fn framing_writes_the_prefix_in_front() {
        let mut w = fnhcl_crossplane::wire::RevWriter::with_capacity(4);
        w.put_slice(b"abcd");
        let tight = framed(w.finish());
        assert_eq!(&tight[..], &[0, 0, 0, 0, 4, b'a', b'b', b'c', b'd'][..]);
        let mut w = fnhcl_crossplane::wire::RevWriter::with_capacity(64);
        w.put_slice(b"abcd");
        let roomy = framed(w.finish());
        assert_eq!(roomy, tight);
    }
}
