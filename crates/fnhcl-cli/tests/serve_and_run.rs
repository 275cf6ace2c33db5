//! `fn-hcl serve` and `fn-hcl run` are the same function: the binary's
//! server answers a request exactly as `fn-hcl run` prints it (JSON and
//! YAML, file and stdin), and the server shuts down cleanly on SIGTERM.

use std::io::Write as _;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use fnhcl_crossplane::proto::{RunFunctionRequest, RunFunctionResponse};

const BIN: &str = env!("CARGO_BIN_EXE_fn-hcl");

/// A request with everything a pipeline step can receive: capabilities,
/// observed and desired state from earlier steps, context, required
/// resources, connection details (protojson base64 bytes).
const REQUEST: &str = r#"{
  "meta": {"tag": "run-vs-serve", "capabilities": ["CAPABILITY_CAPABILITIES", "CAPABILITY_REQUIRED_RESOURCES"]},
  "observed": {
    "composite": {
      "resource": {
        "apiVersion": "example.com/v1", "kind": "XS3Bucket",
        "metadata": {"name": "bucket-36f7e", "managedFields": [{"manager": "x"}]},
        "spec": {"parameters": {"region": "eu-west-1", "replicas": 2}}
      },
      "connectionDetails": {"password": "c2VjcmV0"}
    },
    "resources": {
      "my-bucket": {"resource": {"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
        "metadata": {"name": "bucket-36f7e-bucket"}, "status": {"atProvider": {"arn": "arn:aws:s3:::b"}}}}
    }
  },
  "desired": {
    "composite": {"resource": {"status": {"fromEarlierStep": true}}},
    "resources": {"earlier": {"resource": {"apiVersion": "v1", "kind": "ConfigMap"}, "ready": "READY_TRUE"}}
  },
  "context": {"apiextensions.crossplane.io/environment": {"env": "prod"}},
  "requiredResources": {"cfg": {"items": [{"resource": {"apiVersion": "v1", "kind": "ConfigMap", "data": {"k": "v"}}}]}},
  "input": {
    "apiVersion": "function-hcl/v1", "kind": "HclInput",
    "hcl": "-- main.hcl --\nresource my-bucket {\n  body = {\n    apiVersion = \"s3.aws.upbound.io/v1beta1\"\n    kind       = \"Bucket\"\n    metadata   = { name = \"${req.composite.metadata.name}-bucket\" }\n    spec       = { forProvider = { region = req.composite.spec.parameters.region } }\n  }\n}\ncomposite status {\n  body = { arn = req.resource.my-bucket.status.atProvider.arn, missing = req.resource.nope.status }\n}\ncomposite status {\n  body = { replicas = req.composite.spec.parameters.replicas }\n}\ncontext {\n  key   = \"example.com/out\"\n  value = { cfg = req.extra_resources.cfg[0].data.k }\n}\nrequirement cfg {\n  select {\n    apiVersion = \"v1\"\n    kind       = \"ConfigMap\"\n    matchName  = \"settings\"\n  }\n}\n"
  }
}"#;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind an ephemeral port")
        .local_addr()
        .expect("local address")
        .port()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A client of the `fn-hcl serve` at `address`, once it accepts
/// connections (failing if the server exits first).
async fn connect(
    address: &str,
    server: &mut Server,
) -> FunctionRunnerServiceClient<tonic::transport::Channel> {
    // A hang guard (20 s), not a timing: a loaded machine starts slowly.
    for _ in 0..400 {
        if let Ok(c) = FunctionRunnerServiceClient::connect(format!("http://{address}")).await {
            return c;
        }
        assert!(
            server.0.try_wait().expect("server status").is_none(),
            "fn-hcl serve exited early"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("could not connect to fn-hcl serve at {address}");
}

/// `fn-hcl serve --insecure` on `address`, without metrics, with `extra`
/// flags.
fn serve(address: &str, extra: &[&str]) -> Server {
    Server(
        Command::new(BIN)
            .args([
                "serve",
                "--insecure",
                "--address",
                address,
                "--metrics-address",
                "",
            ])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn fn-hcl serve"),
    )
}

fn run_cli(args: &[&str], stdin: Option<&str>) -> String {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fn-hcl");
    if let Some(text) = stdin {
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(text.as_bytes())
            .expect("write stdin");
    } else {
        drop(child.stdin.take());
    }
    let out = child.wait_with_output().expect("fn-hcl run");
    assert!(
        out.status.success(),
        "fn-hcl {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_prints_what_the_server_answers() {
    let request: RunFunctionRequest = serde_json::from_str(REQUEST).expect("valid request");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("request.json");
    std::fs::write(&path, REQUEST).expect("write request");
    let path = path.to_str().expect("utf-8 path");

    let address = format!("127.0.0.1:{}", free_port());
    let mut server = serve(&address, &[]);
    let mut client = connect(&address, &mut server).await;
    let served = client
        .run_function(request)
        .await
        .expect("RunFunction")
        .into_inner();
    assert_eq!(served.meta.as_ref().expect("meta").tag, "run-vs-serve");
    assert!(
        served
            .desired
            .as_ref()
            .expect("desired")
            .resources
            .contains_key("earlier")
    );

    let json_out = run_cli(&["run", "--request", path, "--output", "json"], None);
    let from_json: RunFunctionResponse = serde_json::from_str(&json_out).expect("JSON response");
    assert_eq!(
        from_json, served,
        "fn-hcl run (JSON) differs from the server"
    );

    let yaml_out = run_cli(&["run", "--request", "-"], Some(REQUEST));
    let yaml_value = fnhcl_render::yaml::load_first(&yaml_out)
        .expect("YAML response")
        .unwrap_or_default();
    let from_yaml: RunFunctionResponse = serde_json::from_value(yaml_value).expect("response");
    assert_eq!(
        from_yaml, served,
        "fn-hcl run (YAML) differs from the server"
    );

    // A YAML request reads the same as its JSON form.
    let yaml_request = fnhcl_render::yaml::to_yaml(
        &serde_json::from_str::<serde_json::Value>(REQUEST).expect("json"),
    )
    .expect("yaml");
    let yaml_path = dir.path().join("request.yaml");
    std::fs::write(&yaml_path, yaml_request).expect("write");
    let out = run_cli(
        &["run", "-r", yaml_path.to_str().expect("path"), "-o", "json"],
        None,
    );
    let from_yaml_request: RunFunctionResponse = serde_json::from_str(&out).expect("response");
    assert_eq!(from_yaml_request, served);

    // Graceful shutdown on SIGTERM: exit status 0.
    let exited = sigterm_and_wait(&mut server, 100).await;
    let exited = exited.expect("fn-hcl serve stops on SIGTERM");
    assert!(exited.success(), "fn-hcl serve exited with {exited}");
}

/// Sends SIGTERM to the server and polls for its exit every 50 ms, at most
/// `polls` times: the exit status, or `None` if it is still running.
async fn sigterm_and_wait(server: &mut Server, polls: u32) -> Option<std::process::ExitStatus> {
    let status = Command::new("kill")
        .args(["-TERM", &server.0.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    for _ in 0..polls {
        if let Some(s) = server.0.try_wait().expect("server status") {
            return Some(s);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

/// SIGTERM ends `fn-hcl serve` whatever clients do: a connection that
/// never says anything (no HTTP/2 preface) and a client that keeps its
/// connection idle do not hold the shutdown past the drain deadline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_exits_with_silent_and_idle_connections_open() {
    let address = format!("127.0.0.1:{}", free_port());
    let mut server = serve(&address, &["--drain-seconds", "1"]);
    // An idle client (connected, no call) and a silent TCP connection.
    let _idle = connect(&address, &mut server).await;
    let mut silent = tokio::net::TcpStream::connect(&address)
        .await
        .expect("a raw connection");
    // The HTTP/2 preface, then nothing: the server waits for SETTINGS
    // (without a drain deadline it would wait forever).
    tokio::io::AsyncWriteExt::write_all(&mut silent, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .expect("write the preface");
    // A hang guard, not a timing: the drain deadline is one second.
    let exited = sigterm_and_wait(&mut server, 600).await;
    let exited = exited.expect("fn-hcl serve stops on SIGTERM with connections open");
    assert!(exited.success(), "fn-hcl serve exited with {exited}");
}

#[test]
fn run_rejects_what_is_not_a_request() {
    let out = Command::new(BIN)
        .args(["run", "--request", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .expect("stdin")
                .write_all(b"meta: [1, 2]\n")?;
            c.wait_with_output()
        })
        .expect("fn-hcl run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a RunFunctionRequest"), "{err}");
}

#[test]
fn run_debug_prints_the_dumps_to_stderr() {
    let out = Command::new(BIN)
        .args(["run", "--request", "-", "--debug"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin
                .take()
                .expect("stdin")
                .write_all(REQUEST.as_bytes())?;
            c.wait_with_output()
        })
        .expect("fn-hcl run");
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("## start request ##\n"), "{err}");
    assert!(err.contains("-- context-apiextensions.crossplane.io--environment.json --"));
    assert!(err.contains("# desired object: my-bucket\n"), "{err}");
    assert!(err.contains("## end response ##"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        !stdout.contains("## start request ##"),
        "dumps stay off stdout"
    );
}

/// `GET /metrics` on `address`, once it answers with the function's series.
fn scrape_metrics(address: &str, server: &mut Server) -> String {
    use std::io::Read as _;
    for _ in 0..200 {
        assert!(
            server.0.try_wait().expect("server status").is_none(),
            "fn-hcl serve exited early"
        );
        if let Ok(mut conn) = std::net::TcpStream::connect(address) {
            let request =
                format!("GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
            let mut text = String::new();
            if conn.write_all(request.as_bytes()).is_ok()
                && conn.read_to_string(&mut text).is_ok()
                && text.contains("function_hcl_cache_entries")
            {
                return text;
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("no metrics at {address}");
}

#[test]
fn serve_takes_cache_bounds_from_flags_and_environment() {
    let metrics = format!("127.0.0.1:{}", free_port());
    let mut server = Server(
        Command::new(BIN)
            .args([
                "serve",
                "--insecure",
                "--address",
                &format!("127.0.0.1:{}", free_port()),
                "--metrics-address",
                &metrics,
                "--program-cache-entries",
                "3",
                "--files-cache-bytes",
                "100000",
            ])
            .env("FNHCL_PROGRAM_CACHE_BYTES", "5000000")
            .env("FNHCL_FILES_CACHE_ENTRIES", "7")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn fn-hcl serve"),
    );
    let text = scrape_metrics(&metrics, &mut server);
    for line in [
        "function_hcl_cache_max_entries{cache=\"program\"} 3",
        "function_hcl_cache_max_bytes{cache=\"program\"} 5000000",
        "function_hcl_cache_max_entries{cache=\"filesystem\"} 7",
        "function_hcl_cache_max_bytes{cache=\"filesystem\"} 100000",
        "function_hcl_cache_entries{cache=\"program\"} 0",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

/// A log sink nobody reads (stderr piped, never drained) must not stop the
/// server: every call of a few thousand is answered, and the lines that
/// could not be written are counted in the metrics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stuck_log_sink_never_stops_the_server() {
    let request: RunFunctionRequest = serde_json::from_str(REQUEST).expect("valid request");
    let address = format!("127.0.0.1:{}", free_port());
    let metrics = format!("127.0.0.1:{}", free_port());
    // --debug: a log line (and more) for every call. The pipe's buffer
    // fills after a few hundred lines; its read end stays open, unread.
    let mut server = Server(
        Command::new(BIN)
            .args([
                "serve",
                "--insecure",
                "--debug",
                "--address",
                &address,
                "--metrics-address",
                &metrics,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn fn-hcl serve"),
    );
    let client = connect(&address, &mut server).await;
    let calls = 3000;
    let mut tasks = Vec::new();
    for worker in 0..8 {
        let mut client = client.clone();
        let request = request.clone();
        tasks.push(tokio::spawn(async move {
            let mut answered = 0;
            for _ in (worker..calls).step_by(8) {
                let call = client.run_function(request.clone());
                let rsp = tokio::time::timeout(Duration::from_secs(20), call)
                    .await
                    .expect("the server answers within 20 s")
                    .expect("RunFunction");
                assert!(rsp.into_inner().desired.is_some());
                answered += 1;
            }
            answered
        }));
    }
    let mut answered = 0;
    for t in tasks {
        answered += t.await.expect("task");
    }
    assert_eq!(answered, calls);
    let text = tokio::task::spawn_blocking(move || {
        let text = scrape_metrics(&metrics, &mut server);
        drop(server);
        text
    })
    .await
    .expect("scrape");
    let dropped: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("function_hcl_log_lines_dropped_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no dropped-lines counter in\n{text}"));
    assert!(
        dropped > 0,
        "the unread pipe filled up, so lines were dropped"
    );
}
