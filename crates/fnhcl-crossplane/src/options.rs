//! How a [`crate::Function`] behaves: its [`Options`] and the resource
//! [`Limits`] of each request, with their defaults, and the
//! [`DirectoryReader`] the `FileSystem` source reads through.

use std::sync::Arc;
use std::time::Duration;

use fnhcl_base::txtar::TxtarFile;

use crate::{convert, schemas};

/// The response TTL unless the input overrides it (D22: the Go SDK's).
pub const DEFAULT_TTL: Duration = Duration::from_secs(60);
/// Stack size each run gets (see [`crate::Function::run_outcome`]); only the
/// pages a run touches are ever committed.
pub const RUN_STACK_BYTES: usize = 64 << 20;
/// Stack size for threads that call [`crate::Function::run`] often (a server's
/// pool): enough that runs need no stack of their own.
pub const THREAD_STACK_BYTES: usize = RUN_STACK_BYTES + (2 << 20);
/// Compiled programs kept by default.
pub const DEFAULT_CACHE_MAX_ENTRIES: usize = 64;
/// Default budget of the compiled-program cache: 128 MiB of estimated
/// memory (see [`PROGRAM_BYTES_PER_SOURCE_BYTE`]), enough for a program
/// of the largest allowed size (4 MiB of sources, ~80 MiB compiled) or
/// for 64 programs of ~100 KiB.
pub const DEFAULT_CACHE_MAX_BYTES: usize = 128 << 20;
/// What a compiled program is estimated to occupy per byte of its
/// sources (the sources themselves included). Measured by the resident
/// memory of compiled programs (`fnhcl_bench` compositions of 10, 50 and
/// 500 resources, 50 files, modules): 16–25 bytes per source byte, the
/// higher ratios for the smallest programs, whose fixed costs the
/// per-entry [`PROGRAM_BYTES_FIXED`] covers. The compiled expressions
/// (`fnhcl_expr::Compiled`, beside the AST) added ~38%: `composition(500)`
/// went from 14.8 to 20.5 bytes per source byte (counted live heap bytes,
/// `--bench memory` with `count-alloc`); smaller syntax-tree and
/// compiled nodes then brought it to 13.0 (docs/notes/memory-and-jsonl.md),
/// and compiling literal objects' key order, `for`, splats and template
/// directives to 14.3 (12–15 for the generated programs of 12 KB and more,
/// 21.6 for `composition(10)`, 32.8 for the 235-byte `heavy_composition(20)`:
/// `cargo run -p fnhcl-bench --features count-alloc --example program_bytes`).
/// With [`PROGRAM_BYTES_FIXED`] this bounds every one of them.
pub const PROGRAM_BYTES_PER_SOURCE_BYTE: usize = 20;
/// The fixed part of a compiled program's estimated size.
pub const PROGRAM_BYTES_FIXED: usize = 16 << 10;

/// Reads the program of a `source: FileSystem` input (D3).
pub trait DirectoryReader: Send + Sync {
    /// Every `*.hcl` file under `path`, subdirectories included (a
    /// subdirectory that an `import` names is a module, D24), as (name,
    /// contents) sorted by name. Names are relative to `path` with `/`
    /// separators (`main.hcl`, `modules/bucket/main.hcl`), the form import
    /// paths and inline txtar members use. Hidden entries (names starting
    /// with `.`, such as a ConfigMap volume's `..data`) are skipped.
    /// Implementations may cache and should reload when any file under
    /// `path` changes; they should bound what they read (depth, file count,
    /// bytes) and return an error rather than loop on cyclic symlinks.
    fn read_hcl_files(&self, path: &str) -> Result<Arc<Vec<TxtarFile>>, String>;
}

/// Resource limits for one request. Exceeding one gives that request a
/// Fatal result saying which limit; other requests are unaffected.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Largest program (sum of the HCL files' bytes).
    pub max_program_bytes: usize,
    /// Largest encoded response (what Crossplane would have to receive; its
    /// gRPC client accepts 4 MiB by default).
    pub max_output_bytes: usize,
    /// Deepest nesting of request data (observed resources, context,
    /// extra resources), in objects and lists.
    pub max_request_depth: usize,
    /// Longest time one request may evaluate, time its run spends parked
    /// by the caller's interrupt (a server's scheduler) not counted.
    /// Checked every [`crate::INTERRUPT_INTERVAL`] steps: steps bound the work,
    /// this bounds the time whatever a step costs.
    pub max_eval_time: Duration,
    /// Evaluation limits: steps for the whole request, expression nesting,
    /// string and collection sizes.
    pub eval: fnhcl_eval::Limits,
    /// Bytes of values all the evaluations of one [`crate::Function`] running at
    /// once may build together ([`memory::MemoryPool`]); each one is also
    /// bounded by `eval.max_bytes`.
    pub max_eval_memory: u64,
    /// Estimated memory of the compiles of programs over
    /// [`memory::GATED_PROGRAM_BYTES`] running at once
    /// ([`memory::CompileGate`]).
    pub max_compile_memory: u64,
}

/// Default [`Limits::max_compile_memory`]: 160 MiB, one compile of the
/// largest program (4 MiB) at a time, or many of small ones.
pub const DEFAULT_MAX_COMPILE_MEMORY: u64 = 160 << 20;

/// Default [`Limits::max_eval_memory`]: 128 MiB, two requests building
/// the most one may (64 MiB), or many building less.
pub const DEFAULT_MAX_EVAL_MEMORY: u64 = 128 << 20;

/// Default [`Limits::max_program_bytes`]: 4 MiB.
pub const DEFAULT_MAX_PROGRAM_BYTES: usize = 4 << 20;
/// Default [`Limits::max_output_bytes`]: 4 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 4 << 20;
/// Default [`Limits::max_eval_time`]: 10 s.
pub const DEFAULT_MAX_EVAL_TIME: Duration = Duration::from_secs(10);
/// Default evaluation steps per request.
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_program_bytes: DEFAULT_MAX_PROGRAM_BYTES,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
            max_request_depth: convert::MAX_DEPTH,
            max_eval_time: DEFAULT_MAX_EVAL_TIME,
            eval: fnhcl_eval::Limits {
                max_steps: DEFAULT_MAX_STEPS,
                ..fnhcl_eval::Limits::default()
            },
            max_eval_memory: DEFAULT_MAX_EVAL_MEMORY,
            max_compile_memory: DEFAULT_MAX_COMPILE_MEMORY,
        }
    }
}

/// How a [`crate::Function`] behaves.
#[derive(Clone)]
pub struct Options {
    /// Most compiled programs kept (least recently used are dropped).
    pub cache_max_entries: usize,
    /// Most estimated memory the compiled programs kept may take, their
    /// sources included (least recently used are dropped; a program
    /// estimated above the whole budget is compiled for each request).
    pub cache_max_bytes: usize,
    /// Most compiled schemas kept (schema validation).
    pub schema_cache_max_entries: usize,
    /// Most estimated memory the compiled schemas kept may take.
    pub schema_cache_max_bytes: usize,
    /// Reader for `source: FileSystem`; without one that source is an error.
    pub directory_reader: Option<Arc<dyn DirectoryReader>>,
    /// TTL when the input sets none.
    pub default_ttl: Duration,
    /// Produce the debug dumps for every request, whatever the input's
    /// `debug`/`debugNew` switches and the XR's annotation say.
    pub always_debug: bool,
    /// Resource limits per request.
    pub limits: Limits,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            cache_max_entries: DEFAULT_CACHE_MAX_ENTRIES,
            cache_max_bytes: DEFAULT_CACHE_MAX_BYTES,
            schema_cache_max_entries: schemas::DEFAULT_CACHE_ENTRIES,
            schema_cache_max_bytes: schemas::DEFAULT_CACHE_BYTES,
            directory_reader: None,
            default_ttl: DEFAULT_TTL,
            always_debug: false,
            limits: Limits::default(),
        }
    }
}
