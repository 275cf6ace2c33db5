//! `fn-hcl`: the function server and the authoring tool in one binary.
//!
//! Each subcommand lives in its own module with an `Args` struct and a
//! `run(args) -> anyhow::Result<ExitCode>` entry point. What several
//! subcommands share has a module of its own (`findings`: analysis output)
//! or a crate (`fnhcl-project`: a composition directory's files, XRD and
//! CRD sources, shared with the language server), so no subcommand module
//! uses another.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cmd_analyze;
mod cmd_eval;
mod cmd_fmt;
mod cmd_functions;
mod cmd_lsp;
mod cmd_package;
mod cmd_render;
mod cmd_run;
mod cmd_serve;
mod cmd_test;
mod cmd_version;
mod findings;

// mimalloc: faster than glibc malloc for the many small, short-lived
// allocations of a run, and less fragmentation across the server's threads
// (see docs/benchmarks.md). Built with its `override` feature, mimalloc's
// object file defines `malloc`, `free` and the rest, so the system
// allocator is mimalloc's plain `mi_malloc`: the `mimalloc` crate's own
// `GlobalAlloc` goes through `mi_malloc_aligned` for every allocation,
// ~2.4 % more instructions per run (docs/notes/function-server.md).
#[global_allocator]
static GLOBAL: std::alloc::System = std::alloc::System;
// A reference into mimalloc's object file, so the linker takes it (and
// with it the `malloc` the system allocator calls).
#[used]
static LINK_MIMALLOC: &(dyn std::alloc::GlobalAlloc + Sync) = &mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "fn-hcl",
    version,
    about = "function-hcl: Crossplane composition function and authoring tools for HCL compositions"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the function over gRPC (what Crossplane runs).
    Serve(cmd_serve::Args),
    /// Render a composition locally, like `crossplane render`, without Docker.
    Render(cmd_render::Args),
    /// Run one RunFunctionRequest through the function and print the response.
    Run(cmd_run::Args),
    /// Evaluate an HCL expression.
    Eval(cmd_eval::Args),
    /// List the built-in functions.
    Functions(cmd_functions::Args),
    /// Format HCL files.
    Fmt(cmd_fmt::Args),
    /// Statically check a composition directory.
    Analyze(cmd_analyze::Args),
    /// Package a composition directory as a txtar bundle.
    Package(cmd_package::Args),
    /// Run render test cases.
    Test(cmd_test::Args),
    /// Print version information.
    Version(cmd_version::Args),
    /// Run the language server (LSP over stdio) for editors.
    Lsp(cmd_lsp::Args),
}

fn main() -> ExitCode {
    let result = if cmd_lsp::invoked_as_upstream() {
        cmd_lsp::run_upstream()
    } else {
        run(Cli::parse())
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Serve(a) => cmd_serve::run(a),
        Command::Render(a) => cmd_render::run(a),
        Command::Run(a) => cmd_run::run(a),
        Command::Eval(a) => cmd_eval::run(a),
        Command::Functions(a) => cmd_functions::run(a),
        Command::Fmt(a) => cmd_fmt::run(a),
        Command::Analyze(a) => cmd_analyze::run(a),
        Command::Package(a) => cmd_package::run(a),
        Command::Test(a) => cmd_test::run(a),
        Command::Version(a) => cmd_version::run(a),
        Command::Lsp(a) => cmd_lsp::run(a),
    }
}
