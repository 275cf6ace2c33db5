//! `fnhcl-loadtest`: drives `fn-hcl serve --insecure` over loopback with
//! many concurrent gRPC clients for a bounded number of requests / time,
//! and reports throughput, latency percentiles, errors and the server's
//! RSS (idle, during the run, peak).
//!
//! ```text
//! cargo build --release -p fnhcl-cli -p fnhcl-bench
//! target/release/fnhcl-loadtest --requests 100000 --clients 32 --resources 10
//! ```
//!
//! By default it starts `fn-hcl serve` from the same directory as itself on
//! a free port; `--server PATH` names another binary, `--connect HOST:PORT
//! --pid PID` uses a server that is already running. Without an `fn-hcl`
//! next to it, it starts itself as the server process (`--serve ADDR`
//! runs `fnhcl_server::serve_blocking`, exactly what `fn-hcl serve` runs).
//!
//! Other modes (`--mode`):
//!
//! - `cpu`: the server's CPU (user + system time of the whole process,
//!   from `/proc/<pid>/stat`) per call, over `--requests` calls from
//!   `--clients` clients, for each program size of `--sizes` (default
//!   `1,50`) of `--workload` (`buckets`: function-starlark's bucket
//!   workload, the default here; `composition`: the benchmark
//!   composition), and the cost per extra resource between the first and
//!   last size. `--client python` sends the calls from grpcio with the
//!   stubs of crossplane-function-sdk-python instead (one client;
//!   `--python PATH`, default `target/pyvenv/bin/python`, the virtualenv
//!   `crates/fnhcl-server/tests/python/run.sh` sets up); `--client
//!   python-raw` the same without the stubs' serializer and deserializer
//!   (the request's bytes sent as they are, each response's bytes compared
//!   with the first's, which is decoded once and checked).
//!   `--empty-server` measures the floor instead: the SDK's server on the
//!   same runtime answering every call with an empty response;
//!   `--sdk-server` serves fn-hcl's function from that same server (the
//!   same stack as the floor, without fn-hcl's own layers).
//!   `--bare-server` serves the function from a bare tonic server (no
//!   layers, prost's codec) instead, `--split-frames` with it sends small
//!   responses in one write as `fn-hcl serve` now does (see
//!   `loadtest/bare.rs`).
//! - `fairness`: `--heavy N` clients keep a heavy request each in flight
//!   (`fnhcl_bench::heavy_composition(--heavy-rows)`, ~0.25 s of
//!   evaluation at 100 rows) while one client sends a trivial request (one
//!   bucket) every `--interval-ms`; reports the trivial requests' latency
//!   p50 / p99 / max over `--duration` seconds.
//! - `split`: in one process, the median round trip of `--resources`
//!   (default 10) through `fnhcl_server::serve` (fn-hcl's server), the
//!   same function behind a bare tonic server, an empty call through the
//!   SDK's server, the same messages through the SDK's server with the
//!   response precomputed ("same bytes": the transport floor for them), and
//!   the in-process run (`fnhcl_bench::serve_bytes`: prost's decode, the
//!   run, prost's encode, what the server does per call); `--requests` calls each, in
//!   alternating rounds.
//!
//! Size: a benchmark binary, one function per mode; the server, client and
//! measurement helpers are shared by the modes.

use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use fnhcl_crossplane::proto::function_runner_service_server::{
    FunctionRunnerService, FunctionRunnerServiceServer,
};
use fnhcl_crossplane::proto::{RunFunctionRequest, RunFunctionResponse, Severity};
use tonic::transport::Channel;

#[path = "loadtest/bare.rs"]
mod bare;
#[path = "loadtest/peers.rs"]
mod peers;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Load,
    Cpu,
    Fairness,
    Split,
    Peers,
}

/// What `--mode fairness`'s heavy clients send (`--hostile`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hostile {
    /// `fnhcl_bench::heavy_composition`: legitimate, long.
    Heavy,
    /// A template loop over a 16 MB string: stopped by the bytes budget.
    Template,
    /// Nested `for`s: stopped by the steps budget.
    Steps,
    /// A new 4 MB program each call (a chain of 180,000 locals): compiled
    /// every time.
    Compile,
    /// An XR nested 3,000 levels that the program reads whole: decoded,
    /// then refused by the conversion's depth limit.
    Deep,
    /// A 3.5 MB XR that the program reads whole.
    Large,
}

impl Hostile {
    const ALL: [Hostile; 6] = [
        Hostile::Heavy,
        Hostile::Template,
        Hostile::Steps,
        Hostile::Compile,
        Hostile::Deep,
        Hostile::Large,
    ];

    fn name(self) -> &'static str {
        match self {
            Hostile::Heavy => "heavy",
            Hostile::Template => "template",
            Hostile::Steps => "steps",
            Hostile::Compile => "compile",
            Hostile::Deep => "deep",
            Hostile::Large => "large",
        }
    }

    /// The bytes of this kind's request, and how to make the `n`th from
    /// them: encoded once (the client's encoding must not take the cores
    /// the server is measured on), a `compile` request's number written
    /// into its program's first line, so that every call compiles.
    fn encoded(self, rows: usize) -> (bytes::Bytes, Option<usize>) {
        use prost::Message as _;
        let bytes = self.request(rows, 0).encode_to_vec();
        let number = (self == Hostile::Compile).then(|| {
            let marker = format!("# call {:0>20}", 0);
            bytes
                .windows(marker.len())
                .position(|w| w == marker.as_bytes())
                .map(|at| at + "# call ".len())
        });
        (bytes.into(), number.flatten())
    }

    /// The `n`th request of this kind.
    fn request(self, rows: usize, n: u64) -> RunFunctionRequest {
        use pbjson_types::value::Kind;
        let reads_xr = "resource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = length(jsonencode(req.composite)) } }\n}\n";
        match self {
            Hostile::Heavy => fnhcl_bench::request(0, &fnhcl_bench::heavy_composition(rows)),
            Hostile::Template => fnhcl_bench::request(
                0,
                "locals {\n  k = join(\"\", [for i in range(1000) : \"0123456789abcdef\"])\n  m = join(\"\", [for i in range(1000) : k])\n  s = [for i in range(200) : \"${m}${i}\"]\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = length(s) } }\n}\n",
            ),
            Hostile::Steps => fnhcl_bench::request(
                0,
                "locals {\n  xs = [for a in range(1000) : [for b in range(1000) : [for c in range(1000) : a + b + c]]]\n}\nresource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = length(xs) } }\n}\n",
            ),
            Hostile::Compile => {
                let mut hcl = format!("# call {n:0>20}\nlocals {{\n  a0 = 0\n");
                for i in 1..180_000 {
                    hcl.push_str(&format!("  a{i} = a{}\n", i - 1));
                }
                hcl.push_str("}\n");
                hcl.push_str(reads_xr);
                fnhcl_bench::request(0, &hcl)
            }
            Hostile::Deep | Hostile::Large => {
                let mut req = fnhcl_bench::request(0, reads_xr);
                let value = if self == Hostile::Deep {
                    Kind::StructValue(fnhcl_bench::deep_struct(3_000))
                } else {
                    let items = (0..35_000)
                        .map(|i| pbjson_types::Value {
                            kind: Some(Kind::StringValue(format!("{i:0>90}"))),
                        })
                        .collect();
                    Kind::ListValue(pbjson_types::ListValue { values: items })
                };
                fnhcl_bench::set_composite_field(&mut req, "payload", value);
                req
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Workload {
    Composition,
    Buckets,
}

struct Config {
    mode: Mode,
    workload: Option<Workload>,
    sizes: Vec<usize>,
    heavy: usize,
    heavy_rows: usize,
    /// `--mode fairness`: what the heavy clients send.
    hostile: Hostile,
    /// `--hostile all`: each kind in turn.
    hostile_all: bool,
    interval: Duration,
    python: Option<String>,
    /// `--client python-raw`: grpcio without the stubs' (de)serializers.
    python_raw: bool,
    empty_server: bool,
    sdk_server: bool,
    bare_server: bool,
    split_frames: bool,
    server: Option<String>,
    connect: Option<String>,
    pid: Option<u32>,
    clients: usize,
    requests: u64,
    duration: Duration,
    resources: usize,
    /// `--mode peers`: the Go function-hcl's and function-starlark's
    /// binaries, function-pythonic's command.
    go_hcl: Option<String>,
    starlark: Option<String>,
    pythonic: Option<String>,
}

fn usage() -> &'static str {
    "usage: fnhcl-loadtest [--mode load|cpu|fairness|split|peers] \
     [--server PATH | --connect HOST:PORT [--pid PID]] \
     [--clients N] [--requests N] [--duration SECS] [--resources N] \
     [--workload buckets|composition] [--sizes N,N,..] [--client tonic|python|python-raw] [--python PATH] \
     [--empty-server | --sdk-server | --bare-server [--split-frames]] \
     [--heavy N] [--heavy-rows N] [--hostile heavy|template|steps|compile|deep|large|all] [--interval-ms N] \
     [--go-function-hcl PATH] [--starlark PATH] [--pythonic PATH]"
}

fn parse_args() -> Result<Config, String> {
    let mut c = Config {
        mode: Mode::Load,
        workload: None,
        sizes: vec![1, 50],
        heavy: 8,
        heavy_rows: 100,
        hostile: Hostile::Heavy,
        hostile_all: false,
        interval: Duration::from_millis(5),
        python: None,
        python_raw: false,
        empty_server: false,
        sdk_server: false,
        bare_server: false,
        split_frames: false,
        server: None,
        connect: None,
        pid: None,
        clients: 32,
        requests: 100_000,
        duration: Duration::from_secs(300),
        resources: 10,
        go_hcl: None,
        starlark: None,
        pythonic: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{a} needs a value"));
        let num = |s: String| s.parse::<u64>().map_err(|e| format!("{a}: {e}"));
        match a.as_str() {
            "--server" => c.server = Some(val()?),
            "--connect" => c.connect = Some(val()?),
            "--pid" => c.pid = Some(num(val()?)? as u32),
            "--clients" => c.clients = num(val()?)?.max(1) as usize,
            "--requests" => c.requests = num(val()?)?,
            "--duration" => c.duration = Duration::from_secs(num(val()?)?),
            "--resources" => c.resources = num(val()?)? as usize,
            "--mode" => {
                c.mode = match val()?.as_str() {
                    "load" => Mode::Load,
                    "cpu" => Mode::Cpu,
                    "fairness" => Mode::Fairness,
                    "split" => Mode::Split,
                    "peers" => Mode::Peers,
                    m => return Err(format!("unknown mode {m}\n{}", usage())),
                }
            }
            "--workload" => {
                c.workload = Some(match val()?.as_str() {
                    "buckets" => Workload::Buckets,
                    "composition" => Workload::Composition,
                    w => return Err(format!("unknown workload {w}\n{}", usage())),
                })
            }
            "--sizes" => {
                c.sizes = val()?
                    .split(',')
                    .map(|n| {
                        n.trim()
                            .parse::<usize>()
                            .map_err(|e| format!("--sizes: {e}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--client" => match val()?.as_str() {
                name @ ("python" | "python-raw") => {
                    c.python
                        .get_or_insert_with(|| "target/pyvenv/bin/python".to_owned());
                    c.python_raw = name == "python-raw";
                }
                "tonic" => c.python = None,
                other => return Err(format!("unknown client {other}\n{}", usage())),
            },
            "--python" => c.python = Some(val()?),
            "--empty-server" => c.empty_server = true,
            "--sdk-server" => c.sdk_server = true,
            "--bare-server" => c.bare_server = true,
            "--split-frames" => c.split_frames = true,
            "--heavy" => c.heavy = num(val()?)? as usize,
            "--heavy-rows" => c.heavy_rows = num(val()?)? as usize,
            "--hostile" => {
                let v = val()?;
                c.hostile_all = v == "all";
                if !c.hostile_all {
                    c.hostile = Hostile::ALL
                        .into_iter()
                        .find(|h| h.name() == v)
                        .ok_or_else(|| format!("--hostile: unknown kind {v:?}"))?;
                }
            }
            "--interval-ms" => c.interval = Duration::from_millis(num(val()?)?),
            "--go-function-hcl" => c.go_hcl = Some(val()?),
            "--starlark" => c.starlark = Some(val()?),
            "--pythonic" => c.pythonic = Some(val()?),
            "-h" | "--help" => return Err(usage().to_owned()),
            other => return Err(format!("unknown argument {other}\n{}", usage())),
        }
    }
    Ok(c)
}

/// A `/proc/<pid>/status` field in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// The process's user + system CPU time in clock ticks
/// (`/proc/<pid>/stat` fields 14 and 15; 100 ticks a second on Linux).
fn cpu_ticks(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3: utime is field 14, stime 15.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

const TICKS_PER_SECOND: f64 = 100.0;

/// The process's CPU time in nanoseconds, summed over its live threads
/// (`/proc/<pid>/task/*/schedstat`, first field): finer than the clock
/// ticks of [`cpu_ticks`], but blind to threads that exit in between.
fn cpu_ns(pid: u32) -> Option<u64> {
    let mut total = 0;
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = t.ok()?.path().join("schedstat");
        if let Ok(s) = std::fs::read_to_string(path) {
            total += s.split_whitespace().next()?.parse::<u64>().ok()?;
        }
    }
    Some(total)
}

/// Context switches (voluntary + involuntary) of the process's live
/// threads: each is a sleep and a wake-up, the main cost of a small call.
fn switches(pid: u32) -> Option<u64> {
    let mut total = 0;
    for t in std::fs::read_dir(format!("/proc/{pid}/task")).ok()? {
        let path = t.ok()?.path().join("status");
        if let Ok(s) = std::fs::read_to_string(path) {
            for l in s.lines() {
                if l.starts_with("voluntary_ctxt_switches:")
                    || l.starts_with("nonvoluntary_ctxt_switches:")
                {
                    total += l.split_whitespace().nth(1)?.parse::<u64>().ok()?;
                }
            }
        }
    }
    Some(total)
}

/// CPU readings: (clock ticks, nanoseconds, context switches).
fn cpu_now(pid: u32) -> Result<(u64, u64, u64), String> {
    let err = || "cannot read the server's /proc stat".to_owned();
    Ok((
        cpu_ticks(pid).ok_or_else(err)?,
        cpu_ns(pid).ok_or_else(err)?,
        switches(pid).ok_or_else(err)?,
    ))
}

fn workload_request(w: Workload, n: usize) -> RunFunctionRequest {
    let hcl = match w {
        Workload::Buckets => fnhcl_bench::bucket_composition(n),
        Workload::Composition => fnhcl_bench::composition(n),
    };
    fnhcl_bench::request(n, &hcl)
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

struct Server {
    child: Option<Child>,
    addr: String,
    pid: Option<u32>,
}

impl Drop for Server {
    /// Stops the server as Kubernetes would, with SIGTERM (it finishes
    /// and exits normally: an instrumented build writes its profile then,
    /// scripts/pgo-build.sh), and kills it if it has not exited after 5 s.
    fn drop(&mut self) {
        let Some(c) = &mut self.child else { return };
        let asked = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if asked {
            let until = Instant::now() + Duration::from_secs(5);
            while Instant::now() < until {
                if !matches!(c.try_wait(), Ok(None)) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        let _ = c.kill();
        let _ = c.wait();
    }
}

fn start_server(cfg: &Config) -> Result<Server, String> {
    if let Some(addr) = &cfg.connect {
        return Ok(Server {
            child: None,
            addr: addr.clone(),
            pid: cfg.pid,
        });
    }
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let port = free_port().map_err(|e| e.to_string())?;
    let addr = format!("127.0.0.1:{port}");
    let sibling = me.with_file_name("fn-hcl");
    let (bin, args): (std::path::PathBuf, Vec<&str>) = match &cfg.server {
        Some(p) => (p.into(), vec!["serve", "--insecure"]),
        None if cfg.empty_server => (me.clone(), vec!["--serve-empty", &addr]),
        None if cfg.sdk_server => (me.clone(), vec!["--serve-sdk", &addr]),
        None if cfg.bare_server && cfg.split_frames => {
            (me.clone(), vec!["--serve-bare-split", &addr])
        }
        None if cfg.bare_server => (me.clone(), vec!["--serve-bare", &addr]),
        None if sibling.exists() => (sibling, vec!["serve", "--insecure"]),
        None => (me.clone(), vec!["--serve", &addr]),
    };
    let mut args = args;
    if args[0] == "serve" {
        args.extend(["--address", &addr, "--metrics-address", ""]);
    }
    eprintln!(
        "fnhcl-loadtest: starting {} {}",
        bin.display(),
        args.join(" ")
    );
    let child = Command::new(&bin)
        .args(&args)
        .env_remove("DEBUG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
    let pid = child.id();
    Ok(Server {
        child: Some(child),
        addr,
        pid: Some(pid),
    })
}

async fn connect(addr: &str) -> Result<FunctionRunnerServiceClient<Channel>, String> {
    let mut last = String::new();
    for _ in 0..200 {
        match FunctionRunnerServiceClient::connect(format!("http://{addr}")).await {
            Ok(c) => return Ok(c),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("cannot connect to {addr}: {last}"))
}

/// A channel to `addr`, retried while the server starts.
async fn raw_channel(addr: &str) -> Result<Channel, String> {
    let mut last = String::new();
    for _ in 0..200 {
        match tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
            .map_err(|e| e.to_string())?
            .connect()
            .await
        {
            Ok(c) => return Ok(c),
            Err(e) => last = e.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!("cannot connect to {addr}: {last}"))
}

fn is_fatal(rsp: &fnhcl_crossplane::proto::RunFunctionResponse) -> bool {
    rsp.results
        .iter()
        .any(|r| r.severity == Severity::Fatal as i32)
}

#[derive(Default)]
struct ClientResult {
    latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
}

async fn client(
    mut c: FunctionRunnerServiceClient<Channel>,
    req: Arc<RunFunctionRequest>,
    issued: Arc<AtomicU64>,
    limit: u64,
    deadline: Instant,
) -> ClientResult {
    let mut out = ClientResult::default();
    while issued.fetch_add(1, Ordering::Relaxed) < limit && Instant::now() < deadline {
        let start = Instant::now();
        let r = c.run_function((*req).clone()).await;
        let us = start.elapsed().as_micros().min(u32::MAX as u128) as u32;
        out.latencies_us.push(us);
        let err = match r {
            Ok(rsp) if is_fatal(rsp.get_ref()) => Some(format!("{:?}", rsp.get_ref().results)),
            Ok(_) => None,
            Err(s) => Some(s.to_string()),
        };
        if let Some(e) = err {
            out.errors += 1;
            out.first_error.get_or_insert(e);
        }
    }
    out
}

fn percentile(sorted: &[u32], p: f64) -> u32 {
    if sorted.is_empty() {
        return 0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Sends `calls` copies of `req` from `clients` clients (one connection
/// each), failing on any error or Fatal result; the latencies in µs.
async fn drive(
    addr: &str,
    req: &RunFunctionRequest,
    clients: usize,
    calls: u64,
) -> Result<Vec<u32>, String> {
    let issued = Arc::new(AtomicU64::new(0));
    let req = Arc::new(req.clone());
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let c = connect(addr).await?;
        tasks.push(tokio::spawn(client(
            c,
            req.clone(),
            issued.clone(),
            calls,
            Instant::now() + Duration::from_secs(3600),
        )));
    }
    let mut lat = Vec::new();
    for t in tasks {
        let r = t.await.map_err(|e| e.to_string())?;
        if let Some(e) = r.first_error {
            return Err(e);
        }
        lat.extend(r.latencies_us);
    }
    lat.sort_unstable();
    Ok(lat)
}

/// `--mode cpu`: the server's CPU per call for each size.
async fn run_cpu(cfg: Config) -> Result<bool, String> {
    let server = start_server(&cfg)?;
    let pid = server
        .pid
        .ok_or("--mode cpu needs the server's pid (--pid with --connect)")?;
    connect(&server.addr).await?;
    let workload = cfg.workload.unwrap_or(Workload::Buckets);
    println!("fnhcl-loadtest --mode cpu");
    println!("  server         {}", server.addr);
    println!("  clients        {}", cfg.clients);
    println!("  calls          {} per size", cfg.requests);
    let mut rows = Vec::new();
    for &n in &cfg.sizes {
        let req = workload_request(workload, n);
        let (before, after, elapsed, p50) = match &cfg.python {
            Some(py) => python_calls(py, &server.addr, &req, pid, cfg.requests, cfg.python_raw)?,
            None => {
                // Warm up: compile and cache the program, grow the pools.
                drive(&server.addr, &req, cfg.clients, 200).await?;
                let before = cpu_now(pid)?;
                let start = Instant::now();
                let lat = drive(&server.addr, &req, cfg.clients, cfg.requests).await?;
                let elapsed = start.elapsed();
                let after = cpu_now(pid)?;
                (before, after, elapsed, percentile(&lat, 0.5))
            }
        };
        let calls = cfg.requests as f64;
        let us = (after.0 - before.0) as f64 / TICKS_PER_SECOND * 1e6 / calls;
        let us_ns = (after.1 - before.1) as f64 / 1e3 / calls;
        println!(
            "  {n:>5} resources: server CPU {us:7.1} us/call ({} ticks; {us_ns:.1} us by schedstat), {:.2} context switches/call, latency p50 {} us, {:.0} calls/s",
            after.0 - before.0,
            (after.2 - before.2) as f64 / calls,
            p50,
            cfg.requests as f64 / elapsed.as_secs_f64()
        );
        rows.push((n, us, us_ns));
    }
    if let (Some(&(n0, c0, s0)), Some(&(n1, c1, s1))) = (rows.first(), rows.last())
        && n1 > n0
    {
        println!(
            "  per extra resource: {:.2} us ({:.2} us by schedstat) ({n0} -> {n1})",
            (c1 - c0) / (n1 - n0) as f64,
            (s1 - s0) / (n1 - n0) as f64
        );
    }
    Ok(true)
}

/// The calls of `--client python`: `calls.py` warms up, says ready, then
/// sends `calls` requests while this reads the server's CPU time around
/// them. (before, after, elapsed, median latency in µs).
fn python_calls(
    python: &str,
    addr: &str,
    req: &RunFunctionRequest,
    pid: u32,
    calls: u64,
    raw: bool,
) -> Result<((u64, u64, u64), (u64, u64, u64), Duration, u32), String> {
    use std::io::{BufRead, Write};
    let dir = std::env::temp_dir().join(format!("fnhcl-loadtest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let script = dir.join("calls.py");
    std::fs::write(&script, include_str!("../../python/calls.py")).map_err(|e| e.to_string())?;
    let request = dir.join("request.pb");
    std::fs::write(&request, prost::Message::encode_to_vec(req)).map_err(|e| e.to_string())?;
    let mut child = Command::new(python)
        .arg(&script)
        .arg(addr)
        .arg(&request)
        .arg("200")
        .arg(calls.to_string())
        .args(raw.then_some("raw"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {python}: {e}"))?;
    let mut out = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut line = String::new();
    out.read_line(&mut line).map_err(|e| e.to_string())?;
    if line.trim() != "ready" {
        let _ = child.wait();
        return Err(format!("calls.py: {line}"));
    }
    let before = cpu_now(pid)?;
    let start = Instant::now();
    child
        .stdin
        .take()
        .ok_or("no stdin")?
        .write_all(b"go\n")
        .map_err(|e| e.to_string())?;
    line.clear();
    out.read_line(&mut line).map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    let after = cpu_now(pid)?;
    let status = child.wait().map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    if !status.success() {
        return Err(format!("calls.py failed: {status}"));
    }
    let p50 = line
        .trim()
        .parse()
        .map_err(|e| format!("calls.py said {line:?}: {e}"))?;
    Ok((before, after, elapsed, p50))
}

/// `--mode fairness`: trivial latency while heavy (or hostile) requests
/// are in flight, for `--hostile`'s kind or each kind in turn, each on a
/// server of its own (whose peak resident memory is reported).
async fn run_fairness(cfg: Config) -> Result<bool, String> {
    let trivial = workload_request(cfg.workload.unwrap_or(Workload::Buckets), 1);
    println!("fnhcl-loadtest --mode fairness");
    println!(
        "  {} clients keep a request of the kind in flight; one trivial call every {} ms for {} s",
        cfg.heavy,
        cfg.interval.as_millis(),
        cfg.duration.as_secs()
    );
    println!(
        "  kind       alone ms   done   answer of the kind (first 60 bytes)                trivial p50 / p99 / max ms  errors  peak RSS"
    );
    let kinds: Vec<Hostile> = if cfg.hostile_all {
        Hostile::ALL.to_vec()
    } else {
        vec![cfg.hostile]
    };
    let mut ok = true;
    for kind in kinds {
        let server = start_server(&cfg)?;
        ok &= fairness_round(&cfg, &server, &trivial, kind).await?;
    }
    Ok(ok)
}

/// One kind of `run_fairness`: prints its row.
async fn fairness_round(
    cfg: &Config,
    server: &Server,
    trivial: &RunFunctionRequest,
    kind: Hostile,
) -> Result<bool, String> {
    use prost::Message as _;
    let mut probe = connect(&server.addr).await?;
    // Compile the trivial program.
    probe
        .run_function(trivial.clone())
        .await
        .map_err(|e| e.to_string())?;
    let (bytes, number) = kind.encoded(cfg.heavy_rows);
    let nth = move |n: u64| -> bytes::Bytes {
        match number {
            Some(at) => {
                let mut b = bytes.to_vec();
                b[at..at + 20].copy_from_slice(format!("{n:0>20}").as_bytes());
                b.into()
            }
            None => bytes.clone(),
        }
    };
    let mut grpc = tonic::client::Grpc::new(raw_channel(&server.addr).await?);
    let t = Instant::now();
    let r = raw_call(&mut grpc, nth(0))
        .await
        .map_err(|e| e.to_string())?;
    let alone = t.elapsed();
    let r = RunFunctionResponse::decode(r).map_err(|e| e.to_string())?;
    let answer = match r.results.first() {
        Some(res) if res.severity == Severity::Fatal as i32 => res
            .message
            .chars()
            .take(60)
            .collect::<String>()
            .replace('\n', " "),
        _ => "success".to_owned(),
    };
    let stop = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicU64::new(0));
    let mut heavies = Vec::new();
    for client in 0..cfg.heavy {
        let mut grpc = tonic::client::Grpc::new(raw_channel(&server.addr).await?);
        let (stop, done, nth) = (stop.clone(), done.clone(), nth.clone());
        heavies.push(tokio::spawn(async move {
            let mut n = (client as u64 + 1) << 32;
            while stop.load(Ordering::Relaxed) == 0 {
                n += 1;
                if raw_call(&mut grpc, nth(n)).await.is_ok() {
                    done.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    // Let them fill the server.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut c = connect(&server.addr).await?;
    let mut lat = Vec::new();
    let mut errors = 0;
    let start = Instant::now();
    while start.elapsed() < cfg.duration {
        let t = Instant::now();
        match c.run_function(trivial.clone()).await {
            Ok(r) if !is_fatal(r.get_ref()) => {}
            _ => errors += 1,
        }
        lat.push(t.elapsed().as_micros().min(u32::MAX as u128) as u32);
        tokio::time::sleep(cfg.interval).await;
    }
    stop.store(1, Ordering::Relaxed);
    for h in heavies {
        h.abort();
    }
    lat.sort_unstable();
    let ms = |us: u32| f64::from(us) / 1000.0;
    let peak = server
        .pid
        .and_then(|p| status_kib(p, "VmHWM:"))
        .map_or("n/a".to_owned(), |k| {
            format!("{:.0} MiB", k as f64 / 1024.0)
        });
    println!(
        "  {:<10} {:>8.0} {:>6}   {:<60} {:>6.2} / {:>6.2} / {:>7.2}  {errors:>6}  {peak}",
        kind.name(),
        alone.as_secs_f64() * 1e3,
        done.load(Ordering::Relaxed),
        answer,
        ms(percentile(&lat, 0.5)),
        ms(percentile(&lat, 0.99)),
        ms(lat.last().copied().unwrap_or(0))
    );
    Ok(errors == 0)
}

/// Answers every call with an empty response (the empty-call floor).
struct Empty;

#[tonic::async_trait]
impl FunctionRunnerService for Empty {
    async fn run_function(
        &self,
        _request: tonic::Request<RunFunctionRequest>,
    ) -> Result<tonic::Response<RunFunctionResponse>, tonic::Status> {
        Ok(tonic::Response::new(RunFunctionResponse::default()))
    }
}

/// Answers every call with a finished response (cloned): the transport
/// floor for the same messages, without evaluation.
struct Canned(RunFunctionResponse);

#[tonic::async_trait]
impl FunctionRunnerService for Canned {
    async fn run_function(
        &self,
        _request: tonic::Request<RunFunctionRequest>,
    ) -> Result<tonic::Response<RunFunctionResponse>, tonic::Status> {
        Ok(tonic::Response::new(self.0.clone()))
    }
}

/// The raw client's codec: the request goes as the bytes it was encoded
/// to once, the response comes back as its bytes (checked, not decoded).
/// Crossplane decodes the response in Go on its side; what this leaves out
/// is only this client's own prost encoding and decoding.
#[derive(Clone, Copy, Default)]
struct RawCodec;

impl tonic::codec::Encoder for RawCodec {
    type Item = bytes::Bytes;
    type Error = tonic::Status;

    fn encode(
        &mut self,
        item: bytes::Bytes,
        buf: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        bytes::BufMut::put_slice(buf, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = bytes::Bytes;
    type Error = tonic::Status;

    fn decode(
        &mut self,
        src: &mut tonic::codec::DecodeBuf<'_>,
    ) -> Result<Option<bytes::Bytes>, tonic::Status> {
        use bytes::Buf as _;
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

impl tonic::codec::Codec for RawCodec {
    type Encode = bytes::Bytes;
    type Decode = bytes::Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

/// One RunFunction call through [`RawCodec`]: the response's bytes.
async fn raw_call(
    grpc: &mut tonic::client::Grpc<Channel>,
    request: bytes::Bytes,
) -> Result<bytes::Bytes, tonic::Status> {
    grpc.ready()
        .await
        .map_err(|e| tonic::Status::unavailable(e.to_string()))?;
    let path = http::uri::PathAndQuery::from_static(
        "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction",
    );
    grpc.unary(tonic::Request::new(request), path, RawCodec)
        .await
        .map(tonic::Response::into_inner)
}

fn sdk_args(port: u16) -> fnhcl_server::Args {
    fnhcl_server::Args {
        debug: false,
        address: format!("127.0.0.1:{port}"),
        insecure: true,
        tls_certs_dir: None,
        max_recv_message_size: None,
        metrics_address: String::new(),
    }
}

/// `--mode split`: round trip vs floor vs in-process, fn-hcl's server vs
/// bare tonic.
fn run_split(cfg: &Config) -> Result<bool, String> {
    let n = cfg.resources;
    let req = workload_request(cfg.workload.unwrap_or(Workload::Composition), n);
    let port = |()| free_port().map_err(|e| e.to_string());
    let (sdk, bare, empty, canned) = (port(())?, port(())?, port(())?, port(())?);
    let canned_rsp = fnhcl_server::standard_function().run(&req);
    let canned_copy = canned_rsp.clone();
    std::thread::spawn(move || {
        let Ok(rt) = fnhcl_server::runtime() else {
            return;
        };
        rt.block_on(async move {
            let quiet = |f: fnhcl_server::HclFunction| f.with_debug_sink(Arc::new(|_: &str| {}));
            let a = sdk_args(sdk);
            let e = sdk_args(empty);
            let c = sdk_args(canned);
            let bare_addr = format!("127.0.0.1:{bare}").parse().expect("address");
            let bare_service =
                FunctionRunnerServiceServer::new(quiet(fnhcl_server::HclFunction::standard()));
            tokio::join!(
                async {
                    let _ =
                        fnhcl_server::serve(quiet(fnhcl_server::HclFunction::standard()), &a).await;
                },
                async {
                    let _ = function_sdk_rust::serve(Empty, &e).await;
                },
                async {
                    let _ = function_sdk_rust::serve(Canned(canned_rsp), &c).await;
                },
                async {
                    let _ = tonic::transport::Server::builder()
                        .add_service(bare_service)
                        .serve(bare_addr)
                        .await;
                },
            );
        });
    });
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let mut clients = Vec::new();
    for p in [sdk, bare, empty, canned] {
        clients.push(rt.block_on(connect(&format!("127.0.0.1:{p}")))?);
    }
    // The raw client (pre-encoded request, response bytes compared with
    // what they must be) to fn-hcl's server, the empty server and the
    // same-bytes server.
    let mut raw = Vec::new();
    for p in [sdk, empty, canned] {
        let ch = rt.block_on(raw_channel(&format!("127.0.0.1:{p}")))?;
        raw.push(tonic::client::Grpc::new(ch));
    }
    let req_bytes = bytes::Bytes::from(prost::Message::encode_to_vec(&req));
    let ours = prost::Message::encode_to_vec(&fnhcl_server::standard_function().run(&req));
    let raw_cases: [(bytes::Bytes, Vec<u8>); 3] = [
        (req_bytes.clone(), ours),
        (bytes::Bytes::new(), Vec::new()),
        (
            req_bytes.clone(),
            prost::Message::encode_to_vec(&canned_copy),
        ),
    ];
    let raw_names = ["fn-hcl raw", "empty raw", "same raw"];
    let mut raw_lat: Vec<Vec<u32>> = vec![Vec::new(); 3];
    let names = ["fn-hcl server", "bare tonic", "empty call", "same bytes"];
    let mut lat: Vec<Vec<u32>> = vec![Vec::new(); 4];
    let rounds = 10;
    let per = (cfg.requests / rounds).max(1);
    for round in 0..=rounds {
        for (i, c) in clients.iter_mut().enumerate() {
            let r = if i == 2 {
                RunFunctionRequest::default()
            } else {
                req.clone()
            };
            for _ in 0..per {
                let t = Instant::now();
                let rsp = rt
                    .block_on(c.run_function(r.clone()))
                    .map_err(|e| e.to_string())?;
                let us = t.elapsed().as_micros().min(u32::MAX as u128) as u32;
                if is_fatal(rsp.get_ref()) {
                    return Err(format!("{}: {:?}", names[i], rsp.get_ref().results));
                }
                // Round 0 warms up (program cache, pools).
                if round > 0 {
                    lat[i].push(us);
                }
            }
        }
        for (i, g) in raw.iter_mut().enumerate() {
            let (request, expected) = &raw_cases[i];
            for _ in 0..per {
                let t = Instant::now();
                let rsp = rt
                    .block_on(raw_call(g, request.clone()))
                    .map_err(|e| format!("{}: {e}", raw_names[i]))?;
                let us = t.elapsed().as_micros().min(u32::MAX as u128) as u32;
                // prost writes maps in their (per-process) iteration
                // order: the length is what two encodings share.
                if rsp.len() != expected.len() {
                    return Err(format!(
                        "{}: {} response bytes, not the {} expected",
                        raw_names[i],
                        rsp.len(),
                        expected.len()
                    ));
                }
                if round > 0 {
                    raw_lat[i].push(us);
                }
            }
        }
    }
    // The tonic client's own share: cloning the SDK message, prost's
    // encoding of the request and decoding of the response.
    let client_side = {
        let rsp_bytes = raw_cases[0].1.clone();
        let mut v: Vec<u32> = (0..cfg.requests)
            .map(|_| {
                let t = Instant::now();
                let r = req.clone();
                let b = prost::Message::encode_to_vec(&r);
                let d: RunFunctionResponse =
                    prost::Message::decode(&rsp_bytes[..]).unwrap_or_default();
                std::hint::black_box((b, d));
                t.elapsed().as_nanos().min(u32::MAX as u128) as u32
            })
            .collect();
        v.sort_unstable();
        v
    };
    // In-process, on a thread with the server's stack size: what the
    // server does with a call's bytes (prost's decode, the run, prost's
    // encode).
    let inproc = std::thread::Builder::new()
        .stack_size(fnhcl_crossplane::THREAD_STACK_BYTES)
        .spawn({
            let bytes = prost::Message::encode_to_vec(&req);
            let count = cfg.requests;
            move || {
                let f = fnhcl_server::standard_function();
                let call = |bytes: &[u8]| {
                    let req: RunFunctionRequest = prost::Message::decode(bytes).unwrap_or_default();
                    prost::Message::encode_to_vec(&f.run(&req))
                };
                let _ = call(&bytes);
                let mut v: Vec<u32> = (0..count)
                    .map(|_| {
                        let t = Instant::now();
                        let o = call(&bytes);
                        std::hint::black_box(o);
                        t.elapsed().as_nanos().min(u32::MAX as u128) as u32
                    })
                    .collect();
                v.sort_unstable();
                v
            }
        })
        .map_err(|e| e.to_string())?
        .join()
        .map_err(|_| "in-process run panicked".to_owned())?;
    for l in &mut lat {
        l.sort_unstable();
    }
    let med = |v: &[u32]| percentile(v, 0.5);
    let inproc_us = f64::from(med(&inproc)) / 1000.0;
    println!(
        "fnhcl-loadtest --mode split ({n} resources, {} calls each, medians)",
        per * rounds
    );
    for (i, name) in names.iter().enumerate() {
        println!(
            "  {name:<12} p50 {:>6} us   p90 {:>6} us",
            med(&lat[i]),
            percentile(&lat[i], 0.9)
        );
    }
    for (i, name) in raw_names.iter().enumerate() {
        raw_lat[i].sort_unstable();
        println!(
            "  {name:<12} p50 {:>6} us   p90 {:>6} us",
            med(&raw_lat[i]),
            percentile(&raw_lat[i], 0.9)
        );
    }
    println!("  in-process   p50 {inproc_us:>8.1} us");
    println!(
        "  client prost p50 {:>8.1} us (clone + encode the request, decode the response)",
        f64::from(med(&client_side)) / 1000.0
    );
    let (raw_rt, raw_floor) = (f64::from(med(&raw_lat[0])), f64::from(med(&raw_lat[1])));
    println!(
        "  raw client: round trip - (empty call + in-process) = {:.1} us (bound: 30 us); round trip - (same bytes + in-process) = {:.1} us",
        raw_rt - raw_floor - inproc_us,
        raw_rt - f64::from(med(&raw_lat[2])) - inproc_us
    );
    let (rt_us, floor) = (f64::from(med(&lat[0])), f64::from(med(&lat[2])));
    println!(
        "  round trip - (empty call + in-process) = {:.1} us (bound: 30 us); fn-hcl - bare tonic = {:+} us",
        rt_us - floor - inproc_us,
        i64::from(med(&lat[0])) - i64::from(med(&lat[1]))
    );
    println!(
        "  round trip - (same bytes + in-process) = {:.1} us",
        rt_us - f64::from(med(&lat[3])) - inproc_us
    );
    Ok(true)
}

async fn run(cfg: Config) -> Result<bool, String> {
    match cfg.mode {
        Mode::Load => {}
        Mode::Cpu => return run_cpu(cfg).await,
        Mode::Fairness => return run_fairness(cfg).await,
        Mode::Split => unreachable!("split runs its own runtimes"),
        Mode::Peers => return peers::run(cfg).await,
    }
    let server = start_server(&cfg)?;
    let probe = connect(&server.addr).await?;
    let pid = server.pid;
    let rss = |field: &str| pid.and_then(|p| status_kib(p, field));
    let idle = rss("VmRSS:");

    let req = Arc::new(workload_request(
        cfg.workload.unwrap_or(Workload::Composition),
        cfg.resources,
    ));
    // One call compiles and caches the program.
    let first = probe
        .clone()
        .run_function((*req).clone())
        .await
        .map_err(|e| format!("first request failed: {e}"))?;
    if is_fatal(first.get_ref()) {
        return Err(format!("first request: {:?}", first.get_ref().results));
    }
    let after_first = rss("VmRSS:");

    // RSS sampler.
    let samples = Arc::new(std::sync::Mutex::new(Vec::<(u64, u64)>::new()));
    let done = Arc::new(AtomicU64::new(0));
    let issued = Arc::new(AtomicU64::new(0));
    let sampler = {
        let samples = samples.clone();
        let done = done.clone();
        let issued = issued.clone();
        tokio::spawn(async move {
            while done.load(Ordering::Relaxed) == 0 {
                if let Some(p) = pid
                    && let Some(kib) = status_kib(p, "VmRSS:")
                    && let Ok(mut s) = samples.lock()
                {
                    s.push((issued.load(Ordering::Relaxed), kib));
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };

    let mut clients = Vec::new();
    for _ in 0..cfg.clients {
        // One connection per client.
        clients.push(connect(&server.addr).await?);
    }
    let start = Instant::now();
    let deadline = start + cfg.duration;
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|c| {
            tokio::spawn(client(
                c,
                req.clone(),
                issued.clone(),
                cfg.requests,
                deadline,
            ))
        })
        .collect();
    let mut lat = Vec::new();
    let mut errors = 0;
    let mut first_error = None;
    for t in tasks {
        let r = t.await.map_err(|e| e.to_string())?;
        lat.extend(r.latencies_us);
        errors += r.errors;
        if first_error.is_none() {
            first_error = r.first_error;
        }
    }
    let elapsed = start.elapsed();
    done.store(1, Ordering::Relaxed);
    let _ = sampler.await;
    let end_rss = rss("VmRSS:");
    let peak = rss("VmHWM:");
    lat.sort_unstable();
    let n = lat.len() as u64;

    let kib = |v: Option<u64>| {
        v.map_or("n/a".to_owned(), |k| {
            format!("{:.1} MiB", k as f64 / 1024.0)
        })
    };
    println!("fnhcl-loadtest");
    println!("  server         {}", server.addr);
    println!("  resources      {}", cfg.resources);
    println!("  clients        {}", cfg.clients);
    println!("  requests       {n}");
    println!("  errors         {errors}");
    if let Some(e) = &first_error {
        println!("  first error    {e}");
    }
    println!("  elapsed        {:.2} s", elapsed.as_secs_f64());
    println!(
        "  throughput     {:.0} requests/s",
        n as f64 / elapsed.as_secs_f64()
    );
    println!("  latency p50    {} us", percentile(&lat, 0.50));
    println!("  latency p90    {} us", percentile(&lat, 0.90));
    println!("  latency p99    {} us", percentile(&lat, 0.99));
    println!("  latency max    {} us", lat.last().copied().unwrap_or(0));
    println!("  RSS idle       {}", kib(idle));
    println!("  RSS after 1st  {}", kib(after_first));
    let samples = samples.lock().map(|s| s.clone()).unwrap_or_default();
    if !samples.is_empty() {
        // RSS at each tenth of the run: flat memory shows as equal values.
        let line: Vec<String> = (0..=10)
            .map(|i| {
                let idx = ((samples.len() - 1) * i) / 10;
                format!("{:.1}", samples[idx].1 as f64 / 1024.0)
            })
            .collect();
        println!("  RSS by tenths  {} MiB", line.join(" "));
        let tenth = samples[(samples.len() - 1) / 10].1;
        let last = samples[samples.len() - 1].1;
        println!(
            "  RSS growth     {:+.1} MiB from 10% to end of run",
            (last as f64 - tenth as f64) / 1024.0
        );
    }
    println!("  RSS end        {}", kib(end_rss));
    println!("  RSS peak       {}", kib(peak));
    Ok(errors == 0)
}

/// `--serve ADDR`: be the server process (insecure, no metrics).
fn serve_child(addr: String) -> ExitCode {
    let args = fnhcl_server::Args {
        debug: false,
        address: addr,
        insecure: true,
        tls_certs_dir: None,
        max_recv_message_size: None,
        metrics_address: String::new(),
    };
    match fnhcl_server::serve_blocking(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fnhcl-loadtest --serve: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    if argv.len() == 3 && argv[1] == "--serve" {
        return serve_child(argv[2].clone());
    }
    if argv.len() == 3 && (argv[1] == "--serve-empty" || argv[1] == "--serve-sdk") {
        // The SDK's server on fn-hcl's runtime, answering every call with an
        // empty response (the floor) or with fn-hcl's function.
        let args = fnhcl_server::Args {
            address: argv[2].clone(),
            ..sdk_args(0)
        };
        let served = fnhcl_server::runtime()
            .map_err(|e| e.to_string())
            .and_then(|rt| {
                let served = if argv[1] == "--serve-empty" {
                    rt.block_on(function_sdk_rust::serve(Empty, &args))
                } else {
                    rt.block_on(function_sdk_rust::serve(
                        fnhcl_server::HclFunction::standard(),
                        &args,
                    ))
                };
                served.map_err(|e| e.to_string())
            });
        return match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fnhcl-loadtest {}: {e}", argv[1]);
                ExitCode::FAILURE
            }
        };
    }
    if argv.len() == 3 && (argv[1] == "--serve-bare" || argv[1] == "--serve-bare-split") {
        let split = argv[1] == "--serve-bare-split";
        let served = fnhcl_server::runtime()
            .map_err(|e| e.to_string())
            .and_then(|rt| rt.block_on(bare::serve(&argv[2], split)));
        return match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("fnhcl-loadtest {}: {e}", argv[1]);
                ExitCode::FAILURE
            }
        };
    }
    let cfg = match parse_args() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if cfg.mode == Mode::Split {
        return match run_split(&cfg) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("fnhcl-loadtest: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("fnhcl-loadtest: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(run(cfg)) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("fnhcl-loadtest: {e}");
            ExitCode::FAILURE
        }
    }
}
