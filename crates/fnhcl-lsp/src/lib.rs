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
//! loop ([`server`]); `lsp-server` does the framing on its own IO threads.

mod convert;
mod documents;
mod handlers;
mod preview;
mod project;
mod server;

use anyhow::Context as _;
use lsp_server::Connection;

/// Serves one client over stdin/stdout until it exits.
pub fn run_stdio() -> anyhow::Result<()> {
    let (conn, io) = Connection::stdio();
    server::run(&conn)?;
    drop(conn);
    io.join().context("stdio")?;
    Ok(())
}

/// Listens on `127.0.0.1:port` and serves the first client that connects
/// until it exits.
pub fn run_tcp(port: u16) -> anyhow::Result<()> {
    let (conn, io) = Connection::listen(("127.0.0.1", port))
        .with_context(|| format!("listen on port {port}"))?;
    server::run(&conn)?;
    drop(conn);
    io.join().context("socket")?;
    Ok(())
}

/// Serves one client over an in-memory connection (tests, benchmarks).
pub fn run_connection(conn: &Connection) -> anyhow::Result<()> {
    server::run(conn)
}

pub use lsp_server;
pub use lsp_types;
