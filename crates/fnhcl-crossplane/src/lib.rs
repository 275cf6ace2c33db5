//! Pure RunFunctionRequest -> RunFunctionResponse mapping: the function
//! itself, without a transport. The gRPC server (`fnhcl-server`), `fn-hcl
//! run` and `fn-hcl render` all call [`Function::run`] (or [`run`]), so
//! in-cluster and local behaviour cannot drift.
//!
//! No IO: the one input that lives on disk, the `FileSystem` source (D3),
//! is read through a [`DirectoryReader`] the caller provides.

pub mod cache;
pub mod connection;
pub mod convert;
pub mod debug;
pub mod decode;
pub mod dependencies;
pub mod input;
pub mod memory;
pub mod operation;
mod options;
pub mod ready;
pub mod request;
pub mod response;
pub mod schemas;

/// The protocol types (`RunFunctionRequest`, `RunFunctionResponse`, ...).
pub use function_sdk_rust::proto::v1 as proto;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use fnhcl_base::txtar::TxtarFile;
use fnhcl_base::{Diagnostic, SourceMap};
use fnhcl_eval::Program;
use function_sdk_rust::proto::v1::{RunFunctionRequest, RunFunctionResponse};
use pbjson_types::Struct;

pub use crate::cache::CacheStats;
use crate::cache::LruCache;
pub use crate::decode::{MAX_MESSAGE_NESTING, decode_request};
use crate::input::{HclInput, Source};
pub use crate::options::*;
pub use fnhcl_eval::{INTERRUPT_INTERVAL, INTERRUPTED_DETAIL, Interrupt};

/// A compiled program with its sources, or why it could not be compiled.
struct Compiled {
    result: Result<Program, String>,
    /// Every diagnostic of a failed compile, when there are several.
    details: Vec<String>,
    /// Estimated memory of `result`.
    bytes: usize,
}

impl Compiled {
    fn failed(message: String) -> Compiled {
        Compiled {
            bytes: message.len(),
            result: Err(message),
            details: Vec::new(),
        }
    }

    fn weigh(&self) -> usize {
        self.bytes
    }
}

/// The composite resource a request is about (for logs): its API version,
/// kind, name and namespace, kept in one string (one allocation per run,
/// none when all are empty).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XrRef {
    text: String,
    /// Where each part ends in `text`.
    ends: [usize; 4],
}

impl XrRef {
    pub fn new(api_version: &str, kind: &str, name: &str, namespace: &str) -> XrRef {
        let parts = [api_version, kind, name, namespace];
        let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum());
        let mut ends = [0; 4];
        for (end, p) in ends.iter_mut().zip(parts) {
            text.push_str(p);
            *end = text.len();
        }
        XrRef { text, ends }
    }

    fn part(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    pub fn api_version(&self) -> &str {
        self.part(0)
    }

    pub fn kind(&self) -> &str {
        self.part(1)
    }

    pub fn name(&self) -> &str {
        self.part(2)
    }

    pub fn namespace(&self) -> &str {
        self.part(3)
    }
}

/// Everything one run produced: the response plus what a server logs.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub response: RunFunctionResponse,
    /// The XR the request was about.
    pub xr: XrRef,
    /// The request's `meta.tag`.
    pub tag: String,
    /// The fatal error message, if the run failed.
    pub error: Option<String>,
    /// When the failed run had several diagnostics, all of them, one a
    /// line (the message names the first and counts the others): for
    /// tools that show them all (`fn-hcl render`).
    pub error_details: Vec<String>,
    /// Number of Warning results.
    pub warnings: usize,
    /// Whether the compiled program came from the cache (`None` when the
    /// run stopped before a program was needed).
    pub cache_hit: Option<bool>,
    /// The debug dump of the request (upstream §9), when debug is on.
    pub debug_request: Option<String>,
    /// The debug dump of the response, when debug is on and the run
    /// succeeded.
    pub debug_response: Option<String>,
}

/// The composition function: program cache plus options. Cheap to share
/// between threads (`&self` everywhere).
pub struct Function {
    options: Options,
    cache: LruCache<Compiled>,
    schemas: schemas::SchemaCache,
    /// The last input decoded, with its message: a server's requests carry
    /// the same input call after call, and comparing it costs less than
    /// decoding it (a map and a copy of the program text).
    last_input: std::sync::Mutex<Option<(Arc<Struct>, Arc<Input>)>>,
    /// What the runs in progress build, together.
    memory: Arc<memory::MemoryPool>,
    /// Turns to compile large programs.
    compiles: memory::CompileGate,
}

/// A decoded input with the hash of its program's cache key, computed
/// once: the last input is reused call after call, and hashing its program
/// text each time cost more than comparing it.
struct Input {
    input: HclInput,
    /// [`cache::hash_parts`] of the `Inline` key, when first needed.
    inline_hash: OnceLock<u64>,
    /// The cached program the `Inline` key gave last: found again in the
    /// cache by identity, its text is not compared a second time (the
    /// input's message was compared already).
    inline_program: std::sync::Mutex<std::sync::Weak<Compiled>>,
}

impl Input {
    fn new(input: HclInput) -> Arc<Input> {
        Arc::new(Input {
            input,
            inline_hash: OnceLock::new(),
            inline_program: std::sync::Mutex::new(std::sync::Weak::new()),
        })
    }
}

/// Inputs longer than this are not kept as [`Function`]'s last input.
const LAST_INPUT_MAX: usize = 1 << 20;

impl Default for Function {
    fn default() -> Function {
        Function::new(Options::default())
    }
}

/// Runs one request through a process-wide [`Function`] with default
/// options (no `FileSystem` source).
pub fn run(req: &RunFunctionRequest) -> RunFunctionResponse {
    static DEFAULT: OnceLock<Function> = OnceLock::new();
    DEFAULT.get_or_init(Function::default).run(req)
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

/// Upstream's fatal text for a list of diagnostics (§5.9): errors first,
/// the first as `<range>: <summary>; <detail>`, then a count of the rest.
pub fn diagnostics_message(diags: &[Diagnostic], sources: &SourceMap) -> String {
    fnhcl_eval::fatal_message(diags, sources)
}

/// Splits an inline `hcl` text into files (upstream §1.3, D2).
fn inline_files(hcl: &str) -> Result<Vec<TxtarFile>, String> {
    fnhcl_base::txtar::parse(hcl).map_err(|e| e.to_string())
}

fn compile_files(files: &[TxtarFile], interrupt: Option<&Interrupt>) -> Result<Compiled, String> {
    match source_map(files) {
        Ok((sources, bytes)) => compile_sources(sources, bytes, interrupt),
        Err(failed) => Ok(failed),
    }
}

/// The files as a source map, and their size for the cache's estimate.
fn source_map(files: &[TxtarFile]) -> Result<(Arc<SourceMap>, usize), Compiled> {
    if files.is_empty() {
        return Err(Compiled::failed(
            "no HCL input files found, are you using the txtar format?".to_owned(),
        ));
    }
    let mut sources = SourceMap::new();
    for f in files {
        sources.add(f.name.clone(), f.data.as_str());
    }
    let source_bytes: usize = files.iter().map(|f| f.name.len() + f.data.len()).sum();
    Ok((Arc::new(sources), source_bytes))
}

/// The compiled program, or why it could not be compiled (cached as it
/// is); `Err` when `interrupt` stopped the compile (nothing to cache).
fn compile_sources(
    sources: Arc<SourceMap>,
    source_bytes: usize,
    interrupt: Option<&Interrupt>,
) -> Result<Compiled, String> {
    Ok(
        match fnhcl_eval::compile_interruptible(sources.clone(), interrupt) {
            Ok(program) => Compiled {
                result: Ok(program),
                details: Vec::new(),
                bytes: source_bytes
                    .saturating_mul(PROGRAM_BYTES_PER_SOURCE_BYTE)
                    .saturating_add(PROGRAM_BYTES_FIXED),
            },
            Err(fnhcl_eval::NotCompiled::Interrupted) => {
                return Err(fnhcl_eval::COMPILE_INTERRUPTED_DETAIL.to_owned());
            }
            Err(fnhcl_eval::NotCompiled::Diagnostics(diags)) => {
                let lines = fnhcl_eval::diagnostic_lines(&diags, &sources);
                Compiled {
                    details: if lines.len() > 1 { lines } else { Vec::new() },
                    ..Compiled::failed(diagnostics_message(&diags, &sources))
                }
            }
        },
    )
}

impl Function {
    pub fn new(options: Options) -> Function {
        Function {
            cache: LruCache::new(
                options.cache_max_entries,
                options.cache_max_bytes,
                Compiled::weigh,
            ),
            schemas: schemas::SchemaCache::new(
                options.schema_cache_max_entries,
                options.schema_cache_max_bytes,
            ),
            last_input: std::sync::Mutex::new(None),
            memory: memory::MemoryPool::new(options.limits.max_eval_memory),
            compiles: memory::CompileGate::new(options.limits.max_compile_memory),
            options,
        }
    }

    /// Size, bounds and counters of the compiled-program cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Bytes of values the runs in progress hold, of
    /// [`Limits::max_eval_memory`].
    pub fn eval_memory_taken(&self) -> u64 {
        self.memory.taken()
    }

    /// [`Limits::max_eval_memory`].
    pub fn eval_memory_limit(&self) -> u64 {
        self.memory.limit()
    }

    /// Size, bounds and counters of the compiled-schema cache.
    pub fn schema_cache_stats(&self) -> CacheStats {
        self.schemas.stats()
    }

    /// Runs one request and returns the response.
    pub fn run(&self, req: &RunFunctionRequest) -> RunFunctionResponse {
        self.run_outcome(req).response
    }

    /// The request's input (a `Struct` message), decoded: the last input
    /// decoded when it is the same message (a server's requests carry the
    /// same input call after call, and comparing it costs less than
    /// decoding it), else decoded now and kept as the last.
    fn input(&self, raw: Option<&Struct>) -> Result<Arc<Input>, String> {
        let Some(raw) = raw else {
            return HclInput::decode(None).map(Input::new);
        };
        if let Ok(slot) = self.last_input.lock()
            && let Some((last, input)) = &*slot
            && **last == *raw
        {
            return Ok(input.clone());
        }
        let input = Input::new(HclInput::decode(Some(raw))?);
        if input_size(raw) <= LAST_INPUT_MAX
            && let Ok(mut slot) = self.last_input.lock()
        {
            *slot = Some((Arc::new(raw.clone()), input.clone()));
        }
        Ok(input)
    }

    /// The compiled program of the input, cached. A program over
    /// [`memory::GATED_PROGRAM_BYTES`] (never run inline by a server)
    /// compiles through the compile gate and asks `interrupt` now and then
    /// whether to go on; a compile it stops is not cached.
    fn program(
        &self,
        decoded: &Input,
        interrupt: Option<&Interrupt>,
    ) -> Result<(Arc<Compiled>, bool), String> {
        let input = &decoded.input;
        let max_program = self.options.limits.max_program_bytes;
        let too_big = |n: usize| {
            format!("the program is {n} bytes, more than the limit of {max_program} bytes")
        };
        match input.source {
            Source::Inline => {
                if input.hcl.len() > max_program {
                    return Err(too_big(input.hcl.len()));
                }
                let key = [b"inline".as_slice(), input.hcl.as_bytes()];
                let hash = *decoded.inline_hash.get_or_init(|| cache::hash_parts(&key));
                let slot = || {
                    decoded
                        .inline_program
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                };
                // Not locked while compiling: another request with this
                // input may compile it too (the cache keeps one).
                let last = slot().clone();
                let large = input.hcl.len() > memory::GATED_PROGRAM_BYTES;
                let found = self.cache.get_or_insert_with_hash(hash, &key, &last, || {
                    let _turn = large.then(|| self.compiles.enter(input.hcl.len()));
                    match inline_files(&input.hcl) {
                        // The split text is a copy of the input: let it
                        // go before the compile's peak (the source map
                        // holds the text the program keeps).
                        Ok(files) => match source_map(&files) {
                            Ok((sources, bytes)) => {
                                drop(files);
                                compile_sources(sources, bytes, interrupt.filter(|_| large))
                            }
                            Err(failed) => Ok(failed),
                        },
                        Err(e) => Ok(Compiled::failed(e)),
                    }
                })?;
                if !std::ptr::eq(last.as_ptr(), Arc::as_ptr(&found.0)) {
                    *slot() = Arc::downgrade(&found.0);
                }
                Ok(found)
            }
            Source::FileSystem => {
                let reader = self.options.directory_reader.as_ref().ok_or_else(|| {
                    "source: FileSystem is not available here (no directory reader)".to_owned()
                })?;
                let files = reader
                    .read_hcl_files(&input.path)
                    .map_err(|e| format!("cannot read HCL files from {:?}: {e}", input.path))?;
                let mut parts: Vec<&[u8]> = vec![b"filesystem".as_slice()];
                for f in files.iter() {
                    parts.push(f.name.as_bytes());
                    parts.push(f.data.as_bytes());
                }
                if files.is_empty() {
                    return Err(format!("no *.hcl files found in {:?}", input.path));
                }
                let size: usize = files.iter().map(|f| f.data.len()).sum();
                if size > max_program {
                    return Err(too_big(size));
                }
                let large = size > memory::GATED_PROGRAM_BYTES;
                self.cache.get_or_insert_with(&parts, || {
                    let _turn = large.then(|| self.compiles.enter(size));
                    compile_files(&files, interrupt.filter(|_| large))
                })
            }
        }
    }

    /// Runs one request and returns the response together with what a
    /// server logs (XR, errors, debug dumps).
    ///
    /// The run gets a stack of [`RUN_STACK_BYTES`], whatever thread calls
    /// it (tokio's pool threads have 2 MiB): deeply nested data must not
    /// overflow the stack, which would abort the whole process. A thread
    /// that already has that much stack left (the server's, see
    /// [`THREAD_STACK_BYTES`]) runs it in place; others get a fresh stack
    /// (a mapping per run, which costs microseconds).
    /// A panic anywhere (input decoding, debug dumps, evaluation) becomes
    /// a Fatal result for this request.
    pub fn run_outcome(&self, req: &RunFunctionRequest) -> Outcome {
        self.run_outcome_with(req, None)
    }

    /// [`Function::run_outcome`] with a check the evaluation calls every
    /// few thousand steps ([`fnhcl_eval::Limits::interrupt`]): when it
    /// says stop, the run ends with a Fatal result (the server's caller
    /// has gone, nobody reads it). The check may also block for a while:
    /// the server parks long runs there (see `fnhcl-server`).
    pub fn run_outcome_with(
        &self,
        req: &RunFunctionRequest,
        interrupt: Option<Interrupt>,
    ) -> Outcome {
        stacker::maybe_grow(RUN_STACK_BYTES - (1 << 20), RUN_STACK_BYTES, || {
            catch_unwind(AssertUnwindSafe(|| self.run_outcome_inner(req, interrupt)))
                .unwrap_or_else(|p| {
                    let message = format!(
                        "internal error: the function panicked: {}",
                        panic_message(&*p)
                    );
                    Outcome {
                        response: response::fatal(req, self.options.default_ttl, message.clone()),
                        xr: catch_unwind(|| xr_facts(req).0).unwrap_or_default(),
                        tag: tag(req).to_owned(),
                        error: Some(message),
                        error_details: Vec::new(),
                        warnings: 0,
                        cache_hit: None,
                        debug_request: None,
                        debug_response: None,
                    }
                })
        })
    }

    fn run_outcome_inner(&self, req: &RunFunctionRequest, interrupt: Option<Interrupt>) -> Outcome {
        let (xr, debug_annotation) = xr_facts(req);
        let mut outcome = Outcome {
            response: RunFunctionResponse::default(),
            xr,
            tag: tag(req).to_owned(),
            error: None,
            error_details: Vec::new(),
            warnings: 0,
            cache_hit: None,
            debug_request: None,
            debug_response: None,
        };
        let mut ttl = self.options.default_ttl;
        let result = (|| -> Result<RunFunctionResponse, String> {
            let decoded = self
                .input(req.input.as_ref())
                .map_err(|e| format!("invalid function input: {e}"))?;
            let input = &decoded.input;
            if let Some(t) = input.ttl {
                ttl = t;
            }
            input.check()?;
            let no_observed = req.observed.as_ref().is_none_or(|o| o.resources.is_empty());
            let debug_on = self.options.always_debug
                || debug_annotation
                || input.debug
                || (input.debug_new && no_observed);
            if debug_on {
                outcome.debug_request = Some(debug::request_dump(req));
            }
            let ran = catch_unwind(AssertUnwindSafe(|| {
                let (compiled, hit) = self.program(&decoded, interrupt.as_ref())?;
                outcome.cache_hit = Some(hit);
                let program = compiled.result.as_ref().map_err(|e| {
                    outcome.error_details.clone_from(&compiled.details);
                    e.clone()
                })?;
                // D39: a request without a composite is an operation's.
                let operation = operation::is_operation(req);
                if operation {
                    operation::check_program(program)?;
                }
                let limits = &self.options.limits;
                let eval_req =
                    request::eval_request_within(req, program.demand(), limits.max_request_depth)
                        .map_err(|what| {
                        format!(
                            "{what} is nested deeper than the limit of {} levels",
                            limits.max_request_depth
                        )
                    })?;
                let clock = Arc::new(EvalClock::new(limits.max_eval_time));
                let eval_limits = fnhcl_eval::Limits {
                    interrupt: Some(clock.clone().interrupt(interrupt)),
                    memory: Some(Arc::new(memory::RunMemory::new(self.memory.clone()))),
                    ..limits.eval.clone()
                };
                let mut output = fnhcl_eval::evaluate_with_limits(program, &eval_req, &eval_limits)
                    .map_err(|f| {
                        let lines = f.lines();
                        if lines.len() > 1 {
                            outcome.error_details =
                                lines.into_iter().map(|l| clock.explain(l)).collect();
                        }
                        clock.explain(f.message())
                    })?;
                // The request's values are not read again: their memory
                // is not part of the response's peak.
                drop(eval_req);
                if operation {
                    operation::check_output(req, program, &output)?;
                } else {
                    operation::check_composition(&output)?;
                    dependencies::apply(req, &mut output, input.auto_ready)?;
                }
                let settings = response::Settings {
                    gating: input.readiness_gating,
                    auto_ready: input.auto_ready,
                    connection: connection::Policy {
                        secret: input.connection_secret,
                        declared: program.declares_composite_connection(),
                    },
                };
                let mut rsp = if operation {
                    response::operation(req, ttl, &output)?
                } else {
                    response::success(req, ttl, &output, settings)?
                };
                // Schema validation adds results and requirements.
                let capable = req.meta.as_ref().is_some_and(|m| {
                    m.capabilities
                        .contains(&(proto::Capability::RequiredSchemas as i32))
                });
                if input.schema_validation != input::SchemaValidation::Off && capable {
                    schemas::apply(
                        req,
                        input.schema_validation,
                        &output,
                        &self.schemas,
                        &mut rsp,
                    )?;
                }
                let shown = debug_on.then(|| debug::shown_response(&rsp, &output));
                drop(output);
                let size = prost::Message::encoded_len(&rsp);
                if size > limits.max_output_bytes {
                    return Err(format!(
                        "the response would be {size} bytes, more than the limit of {} bytes",
                        limits.max_output_bytes
                    ));
                }
                Ok((rsp, shown))
            }));
            let (rsp, shown) = match ran {
                Ok(r) => r?,
                Err(p) => {
                    return Err(format!(
                        "internal error: evaluation panicked: {}",
                        panic_message(&*p)
                    ));
                }
            };
            if let Some(shown) = shown {
                outcome.debug_response = Some(debug::response_dump(req, &shown));
            }
            Ok(rsp)
        })();
        match result {
            Ok(rsp) => {
                outcome.warnings = rsp
                    .results
                    .iter()
                    .filter(|r| r.severity == proto::Severity::Warning as i32)
                    .count();
                outcome.response = rsp;
            }
            Err(message) => {
                outcome.error = Some(message.clone());
                outcome.response = response::fatal(req, ttl, message);
            }
        }
        outcome
    }
}

/// How long a run has evaluated, the time its caller's interrupt held it
/// (parked by a scheduler) left out, against [`Limits::max_eval_time`].
struct EvalClock {
    start: std::time::Instant,
    limit: Duration,
    /// Time spent inside the caller's interrupt, in nanoseconds.
    held: std::sync::atomic::AtomicU64,
    /// Whether the limit stopped the run.
    expired: std::sync::atomic::AtomicBool,
}

impl EvalClock {
    fn new(limit: Duration) -> EvalClock {
        EvalClock {
            start: std::time::Instant::now(),
            limit,
            held: std::sync::atomic::AtomicU64::new(0),
            expired: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// The interrupt the evaluation calls: the caller's (timed), then the
    /// clock's own check.
    fn interrupt(self: Arc<EvalClock>, caller: Option<Interrupt>) -> Interrupt {
        use std::sync::atomic::Ordering::Relaxed;
        Interrupt::new(move || {
            if let Some(caller) = &caller {
                let before = std::time::Instant::now();
                let go_on = caller.check();
                let held = u64::try_from(before.elapsed().as_nanos()).unwrap_or(u64::MAX);
                self.held.fetch_add(held, Relaxed);
                if !go_on {
                    return false;
                }
            }
            let held = Duration::from_nanos(self.held.load(Relaxed));
            if self.start.elapsed().saturating_sub(held) > self.limit {
                self.expired.store(true, Relaxed);
                return false;
            }
            true
        })
    }

    /// The run's fatal message, saying so when the time limit stopped it
    /// (the evaluator only knows that its interrupt said stop).
    fn explain(&self, message: String) -> String {
        if !self.expired.load(std::sync::atomic::Ordering::Relaxed) {
            return message;
        }
        message.replace(
            INTERRUPTED_DETAIL,
            &format!(
                "The evaluation took longer than the limit of {} s; simplify the program or reduce the data it works on.",
                self.limit.as_secs_f64()
            ),
        )
    }
}

/// The request's `meta.tag`.
fn tag(req: &RunFunctionRequest) -> &str {
    req.meta.as_ref().map_or("", |m| m.tag.as_str())
}

/// An estimate of an input's size: the bytes of its strings, keys
/// included (the program text is most of it).
fn input_size(s: &Struct) -> usize {
    fn value(v: &pbjson_types::Value) -> usize {
        use pbjson_types::value::Kind;
        match &v.kind {
            Some(Kind::StringValue(s)) => s.len(),
            Some(Kind::StructValue(s)) => input_size(s),
            Some(Kind::ListValue(l)) => l.values.iter().map(value).sum(),
            _ => 8,
        }
    }
    s.fields.iter().map(|(k, v)| k.len() + value(v)).sum()
}

/// The XR of a request (its observed composite's body), for logs, and
/// whether its debug annotation ([`debug::DEBUG_ANNOTATION`]) is the
/// string `"true"`.
fn xr_facts(req: &RunFunctionRequest) -> (XrRef, bool) {
    use pbjson_types::value::Kind;
    let Some(body) = req
        .observed
        .as_ref()
        .and_then(|o| o.composite.as_ref())
        .and_then(|c| c.resource.as_ref())
    else {
        return (XrRef::default(), false);
    };
    fn s<'a>(m: &'a Struct, key: &str) -> &'a str {
        match m.fields.get(key).and_then(|v| v.kind.as_ref()) {
            Some(Kind::StringValue(s)) => s,
            _ => "",
        }
    }
    fn obj<'a>(m: &'a Struct, key: &str) -> Option<&'a Struct> {
        match m.fields.get(key).and_then(|v| v.kind.as_ref()) {
            Some(Kind::StructValue(s)) => Some(s),
            _ => None,
        }
    }
    let metadata = obj(body, "metadata");
    let debug = metadata
        .and_then(|m| obj(m, "annotations"))
        .is_some_and(|a| s(a, debug::DEBUG_ANNOTATION) == "true");
    let (name, namespace) = metadata.map_or(("", ""), |m| (s(m, "name"), s(m, "namespace")));
    (
        XrRef::new(s(body, "apiVersion"), s(body, "kind"), name, namespace),
        debug,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request whose observed composite has `json` as its body.
    fn body(json: serde_json::Value) -> RunFunctionRequest {
        RunFunctionRequest {
            observed: Some(proto::State {
                composite: Some(proto::Resource {
                    resource: crate::convert::json_to_struct(&json),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn xr_facts_reads_the_names_and_the_debug_annotation() {
        let on = body(serde_json::json!({
            "apiVersion": "example.org/v1", "kind": "XBucket",
            "metadata": {"name": "b", "namespace": "ns",
                         "annotations": {debug::DEBUG_ANNOTATION: "true", "n": 1}}
        }));
        let (xr, debug_on) = xr_facts(&on);
        assert_eq!(xr, XrRef::new("example.org/v1", "XBucket", "b", "ns"));
        assert!(debug_on);
        // Only the string "true" turns it on.
        for value in [
            serde_json::json!("false"),
            serde_json::json!(true),
            serde_json::json!(1),
        ] {
            let b = body(serde_json::json!({
                "metadata": {"annotations": {debug::DEBUG_ANNOTATION: value}}
            }));
            assert!(!xr_facts(&b).1, "{value}");
        }
        assert!(!xr_facts(&body(serde_json::json!({"metadata": {"name": "x"}}))).1);
        assert_eq!(
            xr_facts(&RunFunctionRequest::default()),
            (XrRef::default(), false)
        );
    }
}
