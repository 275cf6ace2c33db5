//! The language server, `fn-hcl lsp`: LSP over stdio (or TCP) for
//! function-hcl programs.
//!
//! The workspace is a set of [`project::Project`]s, one per composition
//! directory with an open file (a module directory belongs to the program
//! that imports it). Open buffers overlay the disk; every change makes a new
//! [`fnhcl_ide::Snapshot`] of the project, from which requests are answered
//! and diagnostics published. CRDs load on one background thread, one
//! source at a time (`crds_loader`).
//!
//! Synchronous by design, as the evaluator is: one thread runs the message
//! loop ([`server`]); a reader and a writer thread do the framing
//! ([`transport`], by hand: `lsp-server`'s own IO threads abort or exit on
//! bad input).

mod convert;
mod crds_loader;
mod documents;
mod handlers;
mod preview;
mod project;
mod server;
mod transport;

use anyhow::Context as _;
use lsp_server::Connection;

/// What the server is started with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The budget of CRD text one CRD source may load (bytes; `fn-hcl lsp
    /// --crds-max-bytes`, default [`fnhcl_project::crds::Limits`]'s).
    pub crds_max_bytes: u64,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            crds_max_bytes: fnhcl_project::crds::Limits::default().max_bytes,
        }
    }
}

/// Serves one client over stdin/stdout until it exits.
pub fn run_stdio() -> anyhow::Result<()> {
    run_stdio_with(&Settings::default())
}

/// [`run_stdio`] with `settings`.
pub fn run_stdio_with(settings: &Settings) -> anyhow::Result<()> {
    run_io_with(std::io::stdin(), std::io::stdout(), settings).context("stdio")
}

/// Listens on `127.0.0.1:port` and serves the first client that connects
/// until it exits.
pub fn run_tcp(port: u16) -> anyhow::Result<()> {
    run_tcp_with(port, &Settings::default())
}

/// [`run_tcp`] with `settings`.
pub fn run_tcp_with(port: u16, settings: &Settings) -> anyhow::Result<()> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", port))
        .with_context(|| format!("listen on port {port}"))?;
    let (stream, _) = listener.accept().context("accept a client")?;
    run_io_with(stream.try_clone()?, stream, settings).context("socket")
}

/// Serves one client that writes LSP's base protocol to `input` and reads
/// it from `output`, until it exits or `input` ends. Input that is not a
/// message is answered with an error and skipped ([`transport`]).
pub fn run_io(
    input: impl std::io::Read + Send + 'static,
    output: impl std::io::Write + Send + 'static,
) -> anyhow::Result<()> {
    run_io_with(input, output, &Settings::default())
}

fn run_io_with(
    input: impl std::io::Read + Send + 'static,
    output: impl std::io::Write + Send + 'static,
    settings: &Settings,
) -> anyhow::Result<()> {
    let (conn, io) = transport::connect(input, output);
    let served = server::run(&conn, settings);
    drop(conn);
    io.join()?;
    served
}

/// Serves one client over an in-memory connection (tests, benchmarks).
pub fn run_connection(conn: &Connection) -> anyhow::Result<()> {
    server::run(conn, &Settings::default())
}

/// [`run_connection`] with `settings`.
pub fn run_connection_with(conn: &Connection, settings: &Settings) -> anyhow::Result<()> {
    server::run(conn, settings)
}

pub use lsp_server;
pub use lsp_types;
