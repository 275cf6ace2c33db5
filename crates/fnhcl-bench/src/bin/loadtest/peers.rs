//! `--mode peers`: the same workload through `fn-hcl serve` and its peers,
//! in one run, from the same client: function-starlark's published bucket
//! workload (`n` S3 buckets with labels and tags from the XR's name and
//! region, and the XR's status), written in each function's language,
//! and a deferral-heavy workload for the functions that defer (the Go
//! function-hcl: `n` buckets, each reading the previous one's observed
//! ARN, half of them observed, so the other half is deferred).
//!
//! For each function and size: the server started on loopback, 200 calls
//! to warm it up (its answer checked: no error, the expected number of
//! resources), then `--requests` calls from `--clients` clients; the
//! median and p99 latency, the server's CPU per call (all its threads,
//! `/proc/<pid>/task/*/schedstat`) and its RSS afterwards.
//!
//! The peers' binaries are built from the Go module proxy by
//! `FNHCL_PEERS=1 tests/crossplane/run.sh` (`target/crossplane-bin/`):
//! `--go-function-hcl PATH`, `--starlark PATH`; the same script installs
//! function-pythonic from PyPI in a virtualenv: `--pythonic
//! target/pythonicvenv/bin/function-pythonic`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fnhcl_crossplane::convert::{json_to_struct, struct_to_json};
use fnhcl_crossplane::proto::{Resource, RunFunctionRequest, RunFunctionResponse, State};
use serde_json::json;

use super::{Config, Server, connect, cpu_ns, drive, free_port, percentile, status_kib};

/// A function under test.
struct Peer {
    name: &'static str,
    bin: String,
    /// Its arguments; `ADDR` is replaced by the address to listen on,
    /// else `--address=ADDR` is added.
    args: Vec<&'static str>,
    kind: Language,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Language {
    Hcl,
    Starlark,
    /// function-pythonic: a `BaseComposite` class in the input.
    Python,
    /// The floor: the SDK's server on `fn-hcl`'s runtime answering every
    /// call with an empty response (`fnhcl-loadtest --serve-empty`).
    Empty,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Workload {
    Buckets,
    Deferral,
}

/// The peer's process on a free loopback port (stopped when dropped).
fn start(p: &Peer) -> Result<Server, String> {
    let port = free_port().map_err(|e| e.to_string())?;
    let addr = format!("127.0.0.1:{port}");
    let mut args: Vec<String> = p
        .args
        .iter()
        .map(|s| {
            if *s == "ADDR" {
                addr.clone()
            } else {
                (*s).to_owned()
            }
        })
        .collect();
    if !p.args.contains(&"ADDR") {
        args.push(format!("--address={addr}"));
    }
    let child = Command::new(&p.bin)
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {} ({}): {e}", p.name, p.bin))?;
    let pid = Some(child.id());
    Ok(Server {
        child: Some(child),
        addr,
        pid,
    })
}

fn xr() -> serde_json::Value {
    json!({
        "apiVersion": "example.crossplane.io/v1",
        "kind": "XBucket",
        "metadata": {"name": "bench"},
        "spec": {"region": "us-east-1"},
    })
}

/// The bucket workload in HCL (the same program for both HCL functions).
fn buckets_hcl(n: usize) -> String {
    format!(
        r#"locals {{
  region = req.composite.spec.region
  name   = req.composite.metadata.name
}}

resources bucket {{
  for_each = range({n})
  template {{
    body = {{
      apiVersion = "s3.aws.upbound.io/v1beta1"
      kind       = "Bucket"
      metadata = {{
        name   = "${{name}}-bucket-${{each.value}}"
        labels = {{ env = "prod", index = tostring(each.value) }}
      }}
      spec = {{
        forProvider = {{
          region = region
          tags   = {{ ManagedBy = "crossplane", Index = tostring(each.value) }}
        }}
      }}
    }}
  }}
}}

composite status {{
  body = {{ bucketCount = {n}, region = region }}
}}
"#
    )
}

/// The bucket workload as function-starlark publishes it.
fn buckets_starlark(n: usize) -> String {
    format!(
        r#"region = get(oxr, "spec.region", "us-east-1")
name = get(oxr, "metadata.name", "bench")

for i in range({n}):
    Resource("bucket-%d" % i, {{
        "apiVersion": "s3.aws.upbound.io/v1beta1",
        "kind": "Bucket",
        "metadata": {{
            "name": "%s-bucket-%d" % (name, i),
            "labels": {{"env": "prod", "index": str(i)}},
        }},
        "spec": {{
            "forProvider": {{
                "region": region,
                "tags": {{"ManagedBy": "crossplane", "Index": str(i)}},
            }},
        }},
    }})

dxr["status"] = {{"bucketCount": {n}, "region": region}}
"#
    )
}

/// The bucket workload in function-pythonic's Python.
fn buckets_python(n: usize) -> String {
    format!(
        r#"class Buckets(BaseComposite):
    def compose(self):
        region = self.spec.region
        name = self.metadata.name
        for i in range({n}):
            bucket = self.resources[f"bucket-{{i}}"]("s3.aws.upbound.io/v1beta1", "Bucket")
            bucket.metadata.name = f"{{name}}-bucket-{{i}}"
            bucket.metadata.labels = {{"env": "prod", "index": str(i)}}
            bucket.spec.forProvider.region = region
            bucket.spec.forProvider.tags = {{"ManagedBy": "crossplane", "Index": str(i)}}
        self.status.bucketCount = {n}
        self.status.region = region
"#
    )
}

/// The deferral workload: bucket-i reads bucket-(i-1)'s observed ARN.
fn deferral_hcl(n: usize) -> String {
    let mut s = String::from("locals {\n  region = req.composite.spec.region\n}\n\n");
    for i in 0..n {
        let arn = if i == 0 {
            "\"none\"".to_owned()
        } else {
            format!("req.resource.bucket-{}.status.atProvider.arn", i - 1)
        };
        let _ = write!(
            s,
            r#"resource bucket-{i} {{
  body = {{
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = {{ name = "${{req.composite.metadata.name}}-bucket-{i}" }}
    spec = {{
      forProvider = {{
        region   = region
        previous = {arn}
      }}
    }}
  }}
}}

"#
        );
    }
    s
}

/// How many resources the answer must hold.
fn expected_resources(w: Workload, n: usize) -> usize {
    match w {
        Workload::Buckets => n,
        // The observed half and the first one after it.
        Workload::Deferral => n.div_ceil(2) + usize::from(n > 1),
    }
    .min(n)
}

fn request(language: Language, w: Workload, n: usize) -> RunFunctionRequest {
    let input = match language {
        Language::Hcl => json!({
            "apiVersion": "function-hcl/v1",
            "kind": "HclInput",
            // txtar, which the Go function-hcl requires.
            "hcl": format!("-- main.hcl --\n{}", match w {
                Workload::Buckets => buckets_hcl(n),
                Workload::Deferral => deferral_hcl(n),
            }),
        }),
        Language::Empty => json!({}),
        Language::Starlark => json!({
            "apiVersion": "starlark.fn.crossplane.io/v1alpha1",
            "kind": "StarlarkInput",
            "spec": {"source": buckets_starlark(n)},
        }),
        Language::Python => json!({
            "apiVersion": "pythonic.fn.crossplane.io/v1alpha1",
            "kind": "Composite",
            "composite": buckets_python(n),
        }),
    };
    let mut resources = HashMap::new();
    if w == Workload::Deferral {
        for i in 0..n.div_ceil(2) {
            resources.insert(
                format!("bucket-{i}"),
                Resource {
                    resource: json_to_struct(&json!({
                        "apiVersion": "s3.aws.upbound.io/v1beta1",
                        "kind": "Bucket",
                        "metadata": {"name": format!("bench-bucket-{i}")},
                        "status": {"atProvider": {"arn": format!("arn:aws:s3:::bench-bucket-{i}")}},
                    })),
                    ..Default::default()
                },
            );
        }
    }
    RunFunctionRequest {
        observed: Some(State {
            composite: Some(Resource {
                resource: json_to_struct(&xr()),
                ..Default::default()
            }),
            resources,
        }),
        input: json_to_struct(&input),
        ..Default::default()
    }
}

/// The desired resources' names and kinds, sorted.
fn names_and_kinds(rsp: &RunFunctionResponse) -> Vec<(String, String)> {
    let mut v: Vec<_> = rsp
        .desired
        .iter()
        .flat_map(|d| &d.resources)
        .map(|(name, r)| {
            let body = r.resource.as_ref().map(struct_to_json).unwrap_or_default();
            (name.clone(), body["kind"].as_str().unwrap_or("").to_owned())
        })
        .collect();
    v.sort();
    v
}

struct Row {
    function: &'static str,
    workload: Workload,
    size: usize,
    median_us: u32,
    p99_us: u32,
    cpu_us: f64,
    rss_mib: f64,
}

async fn measure(p: &Peer, w: Workload, n: usize, cfg: &Config) -> Result<Row, String> {
    let server = start(p)?;
    let pid = server.pid.ok_or("the peer has no pid")?;
    let mut c = connect(&server.addr).await?;
    let req = request(p.kind, w, n);
    let first = c
        .run_function(req.clone())
        .await
        .map_err(|e| format!("{} ({n}): {e}", p.name))?
        .into_inner();
    let got = first.desired.as_ref().map_or(0, |d| d.resources.len());
    let want = expected_resources(w, n);
    if p.kind != Language::Empty && (got != want || super::is_fatal(&first)) {
        return Err(format!(
            "{} ({n}): {got} resources, expected {want}; results {:?}",
            p.name, first.results
        ));
    }
    // Every function's answer to the bucket workload has the same names and kinds.
    let mut want: Vec<_> = (0..n)
        .map(|i| (format!("bucket-{i}"), "Bucket".to_owned()))
        .collect();
    want.sort();
    if w == Workload::Buckets && p.kind != Language::Empty && names_and_kinds(&first) != want {
        return Err(format!(
            "{} ({n}): desired resources {:?}, expected {want:?}",
            p.name,
            names_and_kinds(&first)
        ));
    }
    drive(&server.addr, &req, 1, 200).await?;
    let before = cpu_ns(pid).ok_or("cannot read the server's CPU time")?;
    let lat = drive(&server.addr, &req, cfg.clients, cfg.requests).await?;
    let after = cpu_ns(pid).ok_or("cannot read the server's CPU time")?;
    let rss = status_kib(pid, "VmRSS:").unwrap_or(0);
    Ok(Row {
        function: p.name,
        workload: w,
        size: n,
        median_us: percentile(&lat, 0.5),
        p99_us: percentile(&lat, 0.99),
        cpu_us: (after - before) as f64 / 1000.0 / cfg.requests.max(1) as f64,
        rss_mib: rss as f64 / 1024.0,
    })
}

/// `--mode peers`.
pub(super) async fn run(cfg: Config) -> Result<bool, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let ours = cfg
        .server
        .clone()
        .unwrap_or_else(|| me.with_file_name("fn-hcl").display().to_string());
    let mut peers = vec![Peer {
        name: "fn-hcl",
        bin: ours,
        args: vec!["serve", "--insecure", "--metrics-address", ""],
        kind: Language::Hcl,
    }];
    if let Some(bin) = cfg.go_hcl.clone() {
        peers.push(Peer {
            name: "function-hcl (Go)",
            bin,
            args: vec!["--insecure"],
            kind: Language::Hcl,
        });
    }
    if let Some(bin) = cfg.starlark.clone() {
        peers.push(Peer {
            name: "function-starlark",
            bin,
            args: vec!["--insecure"],
            kind: Language::Starlark,
        });
    }
    if let Some(bin) = cfg.pythonic.clone() {
        peers.push(Peer {
            name: "function-pythonic",
            bin,
            args: vec!["grpc", "--insecure"],
            kind: Language::Python,
        });
    }
    peers.push(Peer {
        name: "floor (empty call)",
        bin: me.display().to_string(),
        args: vec!["--serve-empty", "ADDR"],
        kind: Language::Empty,
    });
    println!("fnhcl-loadtest --mode peers");
    println!("  clients        {}", cfg.clients);
    println!("  calls          {} per function and size", cfg.requests);
    let started = Instant::now();
    let mut rows = Vec::new();
    for w in [Workload::Buckets, Workload::Deferral] {
        for &n in &cfg.sizes {
            for p in &peers {
                if w == Workload::Deferral
                    && matches!(p.kind, Language::Starlark | Language::Python)
                {
                    continue;
                }
                rows.push(measure(p, w, n, &cfg).await?);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    println!();
    println!(
        "| workload | size | function | median µs | p99 µs | server CPU µs/call | RSS MiB | median vs fn-hcl | CPU vs fn-hcl |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|");
    for r in &rows {
        let base = rows
            .iter()
            .find(|b| b.function == "fn-hcl" && b.size == r.size && b.workload == r.workload)
            .expect("fn-hcl runs every workload");
        println!(
            "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {:.1}× | {:.1}× |",
            match r.workload {
                Workload::Buckets => "buckets",
                Workload::Deferral => "deferral",
            },
            r.size,
            r.function,
            r.median_us,
            r.p99_us,
            r.cpu_us,
            r.rss_mib,
            f64::from(r.median_us) / f64::from(base.median_us.max(1)),
            r.cpu_us / base.cpu_us.max(0.001),
        );
    }
    println!();
    println!("  ({:.0} s)", started.elapsed().as_secs_f64());
    Ok(true)
}
