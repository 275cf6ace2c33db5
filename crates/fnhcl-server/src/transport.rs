//! The bounds of the server's connections (docs/limits.md): HTTP/2
//! streams per connection, a deadline per call, keepalive, a TLS handshake
//! deadline, a connection's longest life, and how long a shutdown waits for
//! connections to drain. And the accept loop's back-off: a listener that
//! fails to accept (out of file descriptors) is retried after a pause,
//! never in a busy loop.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::time::Sleep;
use tokio_stream::Stream;

/// See the module documentation; `Default` gives the documented defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transport {
    /// HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`: calls in flight on one
    /// connection (each may hold a request of up to the message limit).
    pub max_concurrent_streams: u32,
    /// A call (upload, evaluation, answer) that takes longer is cancelled.
    pub request_timeout: Duration,
    /// A TLS connection whose handshake takes longer is closed.
    pub tls_handshake_timeout: Duration,
    /// HTTP/2 pings (and TCP keepalive) this often; a peer that does not
    /// answer a ping within a third of it is disconnected.
    pub keepalive: Duration,
    /// A connection older than this is asked to go away (clients
    /// reconnect), and closed a minute later: no connection, idle or
    /// silent, lives forever.
    pub max_connection_age: Duration,
    /// After SIGTERM, how long calls in flight may finish; then every
    /// connection is closed and the server exits.
    pub drain_timeout: Duration,
    /// Bytes of RunFunction requests the server holds at once, over every
    /// connection, from their first byte received until they are answered
    /// ([`crate::server::InFlight`]); a request that would go past it is
    /// not read further and gets a Fatal result naming the limit.
    pub max_request_bytes_in_flight: usize,
}

impl Default for Transport {
    fn default() -> Transport {
        Transport {
            max_concurrent_streams: DEFAULT_MAX_CONCURRENT_STREAMS,
            request_timeout: Duration::from_secs(60),
            tls_handshake_timeout: Duration::from_secs(10),
            keepalive: Duration::from_secs(60),
            max_connection_age: Duration::from_secs(30 * 60),
            drain_timeout: Duration::from_secs(10),
            max_request_bytes_in_flight: DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT,
        }
    }
}

/// Default of [`Transport::max_request_bytes_in_flight`]: 128 MiB, 32
/// requests of the largest size (4 MiB) or thousands of usual ones.
pub const DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT: usize = 128 << 20;

/// Default of [`Transport::max_concurrent_streams`].
pub const DEFAULT_MAX_CONCURRENT_STREAMS: u32 = 32;

/// The grace after [`Transport::max_connection_age`] before a connection
/// is closed whatever it does.
pub const CONNECTION_AGE_GRACE: Duration = Duration::from_secs(60);

/// First and longest pause after a failed accept.
const FIRST_PAUSE: Duration = Duration::from_millis(5);
const LONGEST_PAUSE: Duration = Duration::from_secs(1);

/// Accepted connections of a listener. A failed accept (typically out of
/// file descriptors) pauses the loop, 5 ms at first and twice as long each
/// time up to a second, and is logged; it is never handed on (the server
/// would retry at once, spinning).
pub struct Incoming {
    listener: TcpListener,
    pause: Duration,
    sleep: Option<Pin<Box<Sleep>>>,
}

impl Incoming {
    pub fn new(listener: TcpListener) -> Incoming {
        Incoming {
            listener,
            pause: FIRST_PAUSE,
            sleep: None,
        }
    }

    /// The next pause after a failed accept.
    fn backoff(&mut self) -> Duration {
        let now = self.pause;
        self.pause = (self.pause * 2).min(LONGEST_PAUSE);
        now
    }
}

impl Stream for Incoming {
    type Item = io::Result<TcpStream>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            if let Some(sleep) = self.sleep.as_mut() {
                if sleep.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                self.sleep = None;
            }
            match self.listener.poll_accept(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Ok((stream, _))) => {
                    self.pause = FIRST_PAUSE;
                    // gRPC answers are small and latency matters.
                    let _ = stream.set_nodelay(true);
                    return Poll::Ready(Some(Ok(stream)));
                }
                Poll::Ready(Err(e)) => {
                    let pause = self.backoff();
                    tracing::warn!(error = %e, pause_ms = pause.as_millis() as u64, "cannot accept a connection; pausing");
                    self.sleep = Some(Box::pin(tokio::time::sleep(pause)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn failed_accepts_back_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let mut incoming = Incoming::new(listener);
        let pauses: Vec<Duration> = (0..10).map(|_| incoming.backoff()).collect();
        assert_eq!(pauses[0], Duration::from_millis(5));
        assert_eq!(pauses[1], Duration::from_millis(10));
        assert!(pauses.windows(2).all(|w| w[1] >= w[0]));
        assert_eq!(pauses[9], LONGEST_PAUSE);
    }
}
