//! The language server, `fn-hcl lsp`: LSP over stdio (or TCP) for
//! function-hcl programs.
//!
//! The workspace is a set of [`project::Project`]s, one per composition
//! directory with an open file (a module directory belongs to the program
//! that imports it). Open buffers overlay the disk; every change makes a new
//! [`fnhcl_ide::Snapshot`] of the project, from which requests are answered
//! and diagnostics published. CRDs load on a background thread.
//!
//! Synchronous by design, as the evaluator is: one thread runs the message
//! loop ([`server`]); a reader and a writer thread do the framing
//! ([`transport`], by hand: `lsp-server`'s own IO threads abort or exit on
//! bad input).

mod convert;
mod documents;
mod handlers;
mod preview;
mod project;
mod server;
mod transport;

use anyhow::Context as _;
use lsp_server::Connection;

/// Serves one client over stdin/stdout until it exits.
pub fn run_stdio() -> anyhow::Result<()> {
    run_io(std::io::stdin(), std::io::stdout()).context("stdio")
}

/// Listens on `127.0.0.1:port` and serves the first client that connects
/// until it exits.
pub fn run_tcp(port: u16) -> anyhow::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("listen on port {port}"))?;
    let (stream, _) = listener.accept().context("accept a client")?;
    run_io(stream.try_clone()?, stream).context("socket")
}

/// Serves one client that writes LSP's base protocol to `input` and reads
/// it from `output`, until it exits or `input` ends. Input that is not a
/// message is answered with an error and skipped ([`transport`]).
pub fn run_io(
    input: impl std::io::Read + Send + 'static,
    output: impl std::io::Write + Send + 'static,
) -> anyhow::Result<()> {
    let (conn, io) = transport::connect(input, output);
    let served = server::run(&conn);
    drop(conn);
    io.join()?;
    served
}

/// Serves one client over an in-memory connection (tests, benchmarks).
pub fn run_connection(conn: &Connection) -> anyhow::Result<()> {
    server::run(conn)
}

pub use lsp_server;
pub use lsp_types;
