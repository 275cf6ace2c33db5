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

use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use fnhcl_crossplane::proto::{RunFunctionRequest, Severity};
use tonic::transport::Channel;

struct Config {
    server: Option<String>,
    connect: Option<String>,
    pid: Option<u32>,
    clients: usize,
    requests: u64,
    duration: Duration,
    resources: usize,
}

fn usage() -> &'static str {
    "usage: fnhcl-loadtest [--server PATH | --connect HOST:PORT [--pid PID]] \
     [--clients N] [--requests N] [--duration SECS] [--resources N]"
}

fn parse_args() -> Result<Config, String> {
    let mut c = Config {
        server: None,
        connect: None,
        pid: None,
        clients: 32,
        requests: 100_000,
        duration: Duration::from_secs(300),
        resources: 10,
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
    fn drop(&mut self) {
        if let Some(c) = &mut self.child {
            let _ = c.kill();
            let _ = c.wait();
        }
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

async fn run(cfg: Config) -> Result<bool, String> {
    let server = start_server(&cfg)?;
    let probe = connect(&server.addr).await?;
    let pid = server.pid;
    let rss = |field: &str| pid.and_then(|p| status_kib(p, field));
    let idle = rss("VmRSS:");

    let hcl = fnhcl_bench::composition(cfg.resources);
    let req = Arc::new(fnhcl_bench::request(cfg.resources, &hcl));
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
    let cfg = match parse_args() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
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
