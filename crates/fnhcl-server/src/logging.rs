//! Logging that never stops the server.
//!
//! The SDK's logging writes each line to stderr on the thread that logs
//! it. When nothing reads the pipe (a stuck log collector), the write
//! blocks, and with it a tokio worker; after a few hundred calls every
//! worker is blocked and the server stops answering for good. Here lines
//! go to a bounded queue that one thread of its own writes to stderr; when
//! the queue is full (the sink is not keeping up), a line is dropped and
//! counted ([`dropped_lines`], exported as the metric
//! `function_hcl_log_lines_dropped_total`). The queue is bounded by lines
//! and by bytes ([`QUEUE_BYTES`]), and one line by [`MAX_LINE_BYTES`] (a
//! longer one is cut and says so), so what waits for a stuck sink stays
//! small whatever a request carries.
//!
//! Format and levels are the SDK's (`function_sdk_rust::logging`): JSON
//! lines at INFO; with `--debug` human-readable at DEBUG, the gRPC
//! transport crates kept at INFO; `RUST_LOG` (`target=level` directives)
//! replaces the level selection.

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, OnceLock};

use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

/// Lines that may wait for the sink before new ones are dropped.
pub const QUEUE_LINES: usize = 1024;
/// Bytes that may wait for the sink before new lines are dropped: 4 MiB.
pub const QUEUE_BYTES: usize = 4 << 20;
/// The longest line written; a longer one is cut to this, ending with
/// [`CUT_MARK`] and a newline.
pub const MAX_LINE_BYTES: usize = 64 << 10;
/// What ends a line that was cut.
pub const CUT_MARK: &str = " [line cut]";

/// The transport crates whose DEBUG output buries the function's own.
const TRANSPORT_TARGETS: [&str; 6] = ["h2", "hyper", "hyper_util", "tonic", "tower", "rustls"];

static DROPPED: OnceLock<Arc<AtomicU64>> = OnceLock::new();

/// Log lines dropped because the sink did not keep up (0 before
/// [`init`]).
pub fn dropped_lines() -> u64 {
    DROPPED.get().map_or(0, |d| d.load(Ordering::Relaxed))
}

/// A writer factory: each event's bytes become one queued line.
#[derive(Clone)]
pub struct LossyWriter {
    tx: SyncSender<Vec<u8>>,
    dropped: Arc<AtomicU64>,
    /// Bytes queued and not yet written.
    queued: Arc<AtomicUsize>,
    max_bytes: usize,
}

impl LossyWriter {
    /// A queue of at most `lines` lines and `bytes` bytes drained into
    /// `sink` by a thread of its own.
    pub fn new<W: Write + Send + 'static>(sink: W, lines: usize, bytes: usize) -> LossyWriter {
        let (tx, rx) = sync_channel(lines);
        let dropped = Arc::new(AtomicU64::new(0));
        let queued = Arc::new(AtomicUsize::new(0));
        // Without the thread (spawning failed) every line is dropped and
        // counted: still better than blocking the server.
        let drained = queued.clone();
        let _ = std::thread::Builder::new()
            .name("log-writer".to_owned())
            .spawn(move || drain(rx, sink, &drained));
        LossyWriter {
            tx,
            dropped,
            queued,
            max_bytes: bytes,
        }
    }

    /// Lines dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

fn drain<W: Write>(rx: Receiver<Vec<u8>>, mut sink: W, queued: &AtomicUsize) {
    for line in rx {
        if sink.write_all(&line).is_ok() {
            let _ = sink.flush();
        }
        queued.fetch_sub(line.len(), Ordering::Relaxed);
    }
}

/// One event's text, queued when the event is complete.
pub struct Line {
    buf: Vec<u8>,
    /// Whether bytes past [`MAX_LINE_BYTES`] were left out.
    cut: bool,
    writer: LossyWriter,
}

impl Write for Line {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let room = MAX_LINE_BYTES.saturating_sub(self.buf.len());
        if bytes.len() > room {
            self.cut = true;
        }
        self.buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        if self.cut {
            // Cut at the start of a character (the formatter writes
            // UTF-8), marked, still one line.
            let mut end = MAX_LINE_BYTES - CUT_MARK.len() - 1;
            while end > 0 && self.buf[end] & 0xC0 == 0x80 {
                end -= 1;
            }
            self.buf.truncate(end);
            self.buf.extend_from_slice(CUT_MARK.as_bytes());
            self.buf.push(b'\n');
        }
        let w = &self.writer;
        let len = self.buf.len();
        let drop_it = w.queued.fetch_add(len, Ordering::Relaxed) + len > w.max_bytes
            || match w.tx.try_send(std::mem::take(&mut self.buf)) {
                Ok(()) => false,
                Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => true,
            };
        if drop_it {
            w.queued.fetch_sub(len, Ordering::Relaxed);
            w.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl<'a> MakeWriter<'a> for LossyWriter {
    type Writer = Line;

    fn make_writer(&'a self) -> Line {
        Line {
            buf: Vec::new(),
            cut: false,
            writer: self.clone(),
        }
    }
}

/// The level filter, as the SDK's: `rust_log` when set and valid, else
/// INFO, or under debug DEBUG but for the transport crates.
fn filter(debug: bool, rust_log: Option<&str>) -> (Targets, Option<String>) {
    let ignored = match rust_log.map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(set) => match set.parse::<Targets>() {
            Ok(f) => return (f, None),
            Err(e) => Some(e.to_string()),
        },
    };
    if !debug {
        return (Targets::new().with_default(LevelFilter::INFO), ignored);
    }
    let f = TRANSPORT_TARGETS
        .iter()
        .fold(Targets::new().with_default(LevelFilter::DEBUG), |f, t| {
            f.with_target(*t, LevelFilter::INFO)
        });
    (f, ignored)
}

/// Installs the process-wide subscriber writing through a
/// [`LossyWriter`] to stderr. Call once, before serving; later calls do
/// nothing.
pub fn init(debug: bool) {
    if DROPPED.get().is_some() {
        return;
    }
    let writer = LossyWriter::new(std::io::stderr(), QUEUE_LINES, QUEUE_BYTES);
    let _ = DROPPED.set(writer.dropped.clone());
    let rust_log = std::env::var("RUST_LOG").ok();
    let (targets, ignored) = filter(debug, rust_log.as_deref());
    let builder = tracing_subscriber::fmt()
        .with_max_level(LevelFilter::TRACE)
        .with_writer(writer)
        .with_file(true)
        .with_line_number(true);
    let installed = if debug {
        builder.finish().with(targets).try_init()
    } else {
        builder.json().finish().with(targets).try_init()
    };
    if installed.is_ok()
        && let Some(error) = ignored
    {
        tracing::warn!(%error, "ignoring RUST_LOG, which takes only target=level directives");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Condvar, Mutex};

    /// A sink that hands each write on to a channel.
    struct Chan(std::sync::mpsc::Sender<Vec<u8>>);

    impl Write for Chan {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let _ = self.0.send(b.to_vec());
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A sink that blocks until released, like a pipe nobody reads.
    struct Stuck(Arc<(Mutex<bool>, Condvar)>);

    impl Write for Stuck {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let (lock, cv) = &*self.0;
            let mut open = lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            while !*open {
                open = cv
                    .wait(open)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_sink_drops_lines_instead_of_blocking() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        let w = LossyWriter::new(Stuck(gate.clone()), 8, 1 << 20);
        // Far more lines than the queue holds: every write returns at once.
        for i in 0..1000 {
            let mut line = w.make_writer();
            writeln!(line, "line {i}").expect("write");
        }
        // The drain thread holds one line, the queue 8: the rest dropped.
        assert!(w.dropped() >= 1000 - 9, "{}", w.dropped());
        let (lock, cv) = &*gate;
        *lock.lock().expect("lock") = true;
        cv.notify_all();
    }

    #[test]
    fn a_working_sink_gets_every_line() {
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let w = LossyWriter::new(Chan(tx), 64, 1 << 20);
        for i in 0..10 {
            let mut line = w.make_writer();
            write!(line, "a{i}").expect("write");
            writeln!(line, "b").expect("write");
        }
        let got: Vec<String> = (0..10)
            .map(|_| String::from_utf8(rx.recv().expect("line")).expect("utf-8"))
            .collect();
        assert_eq!(got[3], "a3b\n");
        assert_eq!(w.dropped(), 0);
    }

    #[test]
    fn the_queue_is_bounded_by_bytes_and_long_lines_are_cut() {
        let gate = Arc::new((Mutex::new(false), Condvar::new()));
        // Room for 1,000 lines by count, 200 KiB by bytes.
        let w = LossyWriter::new(Stuck(gate.clone()), 1000, 200 << 10);
        let big = "x".repeat(3 << 20);
        for _ in 0..100 {
            let mut line = w.make_writer();
            writeln!(line, "{{\"tag\":\"{big}\"}}").expect("write");
        }
        // Each line is cut to 64 KiB: the drain thread holds one, the
        // byte bound lets three more wait, the rest are dropped.
        assert!(w.queued.load(Ordering::Relaxed) <= 200 << 10);
        assert!(w.dropped() >= 100 - 4, "{}", w.dropped());
        let (lock, cv) = &*gate;
        *lock.lock().expect("lock") = true;
        cv.notify_all();

        // A cut line keeps its start, says it was cut, and is one line.
        let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let w = LossyWriter::new(Chan(tx), 8, 1 << 20);
        {
            let mut line = w.make_writer();
            // Multi-byte characters across the cut.
            writeln!(line, "start {}", "é".repeat(MAX_LINE_BYTES)).expect("write");
        }
        let got = String::from_utf8(rx.recv().expect("line")).expect("utf-8");
        assert!(got.len() <= MAX_LINE_BYTES, "{}", got.len());
        assert!(got.starts_with("start é"));
        assert!(got.ends_with(&format!("{CUT_MARK}\n")));
        assert_eq!(got.matches('\n').count(), 1);
    }

    #[test]
    fn levels_follow_the_sdk() {
        let (f, _) = filter(false, None);
        assert!(f.would_enable("fnhcl_server", &tracing::Level::INFO));
        assert!(!f.would_enable("fnhcl_server", &tracing::Level::DEBUG));
        let (f, _) = filter(true, None);
        assert!(f.would_enable("fnhcl_server", &tracing::Level::DEBUG));
        assert!(!f.would_enable("h2", &tracing::Level::DEBUG));
        let (f, ignored) = filter(false, Some("fnhcl_server=debug"));
        assert!(ignored.is_none());
        assert!(f.would_enable("fnhcl_server", &tracing::Level::DEBUG));
    }
}
