//! The server over real gRPC on a loopback port: insecure and mTLS,
//! concurrency, health, and the pipeline-merge guarantees (D17, D18).
//!
//! Size: every test starts the same server and client helpers of this file;
//! one file keeps them one copy (a test crate per topic would repeat them).

use std::collections::HashMap;
use std::time::Duration;

use fnhcl_crossplane::convert::{json_to_struct, struct_to_json};
use fnhcl_crossplane::proto::function_runner_service_client::FunctionRunnerServiceClient;
use fnhcl_crossplane::proto::{
    Capability, RequestMeta, Resource, RunFunctionRequest, RunFunctionResponse, Severity, State,
    Status,
};
use fnhcl_server::{Args, HclFunction};
use serde_json::json;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};

const BUCKET: &str = r#"-- main.hcl --
resource my-bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    metadata   = { name = "${req.composite.metadata.name}-bucket" }
    spec       = { forProvider = { region = req.composite.spec.parameters.region } }
  }
}
"#;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind an ephemeral port")
        .local_addr()
        .expect("local address")
        .port()
}

fn args(port: u16, tls_dir: Option<std::path::PathBuf>) -> Args {
    Args {
        debug: false,
        address: format!("127.0.0.1:{port}"),
        insecure: tls_dir.is_none(),
        tls_certs_dir: tls_dir,
        max_recv_message_size: None,
        metrics_address: String::new(),
    }
}

/// Starts a server on a free port; returns the port.
fn start(tls_dir: Option<std::path::PathBuf>) -> u16 {
    start_with_metrics(tls_dir, None)
}

fn start_with_metrics(tls_dir: Option<std::path::PathBuf>, metrics_port: Option<u16>) -> u16 {
    let port = free_port();
    let mut a = args(port, tls_dir);
    if let Some(m) = metrics_port {
        a.metrics_address = format!("127.0.0.1:{m}");
    }
    tokio::spawn(async move {
        let function = HclFunction::standard().with_debug_sink(std::sync::Arc::new(|_: &str| {}));
        fnhcl_server::serve(function, &a)
            .await
            .expect("server must start");
    });
    port
}

async fn connect(port: u16) -> FunctionRunnerServiceClient<Channel> {
    for _ in 0..100 {
        if let Ok(c) =
            FunctionRunnerServiceClient::connect(format!("http://127.0.0.1:{port}")).await
        {
            return c;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("cannot connect to the server");
}

/// A plain channel to the server on `port`, once it accepts connections.
async fn channel(port: u16) -> Channel {
    let _ = connect(port).await;
    Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
        .expect("uri")
        .connect()
        .await
        .expect("connect")
}

fn xr(name: &str) -> Resource {
    Resource {
        resource: json_to_struct(&json!({
            "apiVersion": "example.com/v1", "kind": "XS3Bucket",
            "metadata": {"name": name}, "spec": {"parameters": {"region": "eu-west-1"}}
        })),
        ..Default::default()
    }
}

fn request(hcl: &str, xr_name: &str) -> RunFunctionRequest {
    RunFunctionRequest {
        meta: Some(RequestMeta {
            tag: format!("tag-{xr_name}"),
            capabilities: vec![],
        }),
        observed: Some(State {
            composite: Some(xr(xr_name)),
            resources: HashMap::new(),
        }),
        input: json_to_struct(&json!({
            "apiVersion": "function-hcl/v1", "kind": "HclInput", "source": "Inline", "hcl": hcl
        })),
        ..Default::default()
    }
}

/// [`request`] with a `source: FileSystem` input reading `dir`.
fn filesystem_request(dir: &std::path::Path, xr_name: &str) -> RunFunctionRequest {
    let mut req = request(BUCKET, xr_name);
    req.input = json_to_struct(&json!({
        "apiVersion": "function-hcl/v1", "kind": "HclInput",
        "source": "FileSystem", "path": dir.to_str().expect("utf-8 path")
    }));
    req
}

fn body(rsp: &RunFunctionResponse, name: &str) -> serde_json::Value {
    let r = &rsp.desired.as_ref().expect("desired").resources[name];
    struct_to_json(r.resource.as_ref().expect("body"))
}

fn check_bucket(rsp: &RunFunctionResponse, xr_name: &str) {
    assert_eq!(
        rsp.meta.as_ref().expect("meta").tag,
        format!("tag-{xr_name}")
    );
    assert_eq!(
        rsp.meta
            .as_ref()
            .and_then(|m| m.ttl.as_ref())
            .map(|t| t.seconds),
        Some(60)
    );
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    assert_eq!(
        body(rsp, "my-bucket"),
        json!({
            "apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
            "metadata": {"name": format!("{xr_name}-bucket")},
            "spec": {"forProvider": {"region": "eu-west-1"}}
        })
    );
    let conds: Vec<(&str, i32, &str)> = rsp
        .conditions
        .iter()
        .map(|c| (c.r#type.as_str(), c.status, c.reason.as_str()))
        .collect();
    assert_eq!(
        conds,
        vec![
            (
                "FullyResolved",
                Status::ConditionTrue as i32,
                "AllItemsProcessed"
            ),
            ("HclDiagnostics", Status::ConditionTrue as i32, "Eval"),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn insecure_server_runs_a_composition() {
    let port = start(None);
    let mut client = connect(port).await;
    let rsp = client
        .run_function(request(BUCKET, "bucket-1"))
        .await
        .expect("RunFunction")
        .into_inner();
    check_bucket(&rsp, "bucket-1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_are_answered_independently() {
    let port = start(None);
    let client = connect(port).await;
    let mut tasks = Vec::new();
    for i in 0..24 {
        let mut c = client.clone();
        tasks.push(tokio::spawn(async move {
            let name = format!("xr-{i}");
            let rsp = c
                .run_function(request(BUCKET, &name))
                .await
                .expect("RunFunction")
                .into_inner();
            check_bucket(&rsp, &name);
        }));
    }
    for t in tasks {
        t.await.expect("task");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_is_one_fatal_result_and_the_server_keeps_serving() {
    let port = start(None);
    let mut client = connect(port).await;
    let mut req = request(BUCKET, "x");
    req.input = json_to_struct(&json!({"hcl": BUCKET, "hlc": "typo"}));
    req.desired = Some(State {
        composite: Some(xr("x")),
        resources: HashMap::new(),
    });
    let rsp = client
        .run_function(req.clone())
        .await
        .expect("rpc")
        .into_inner();
    assert_eq!(rsp.results.len(), 1);
    assert_eq!(rsp.results[0].severity, Severity::Fatal as i32);
    assert!(
        rsp.results[0].message.contains("\"hlc\""),
        "{}",
        rsp.results[0].message
    );
    assert_eq!(rsp.desired, req.desired, "desired state passes through");
    assert!(rsp.conditions.is_empty());
    let ok = client
        .run_function(request(BUCKET, "after"))
        .await
        .expect("rpc")
        .into_inner();
    check_bucket(&ok, "after");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn earlier_pipeline_steps_lose_nothing() {
    let hcl = r#"-- main.hcl --
resource my-bucket {
  body = {
    apiVersion = "s3.aws.upbound.io/v1beta1"
    kind       = "Bucket"
    spec       = { region = req.composite.spec.parameters.region }
  }
}
composite status {
  body = { ours = { ready = true }, shared = { fromHcl = 1 } }
}
composite connection {
  body = { hcl-key = base64encode("from-hcl") }
}
context {
  key   = "hcl-key"
  value = { a = 1 }
}
context {
  key   = "replaced"
  value = "by hcl"
}
"#;
    let mut req = request(hcl, "xr");
    let mut earlier_xr = Resource {
        resource: json_to_struct(&json!({
            "apiVersion": "example.com/v1", "kind": "XS3Bucket",
            "metadata": {"name": "xr"},
            "status": {"earlier": "kept", "shared": {"fromEarlier": 2}}
        })),
        ..Default::default()
    };
    earlier_xr
        .connection_details
        .insert("earlier-key".into(), b"earlier".to_vec());
    let mut resources = HashMap::new();
    resources.insert(
        "earlier-resource".to_owned(),
        Resource {
            resource: json_to_struct(&json!({"apiVersion": "v1", "kind": "ConfigMap"})),
            ready: 1,
            ..Default::default()
        },
    );
    resources.insert(
        "my-bucket".to_owned(),
        Resource {
            resource: json_to_struct(&json!({"apiVersion": "old", "kind": "Old"})),
            ..Default::default()
        },
    );
    req.desired = Some(State {
        composite: Some(earlier_xr),
        resources,
    });
    req.context = json_to_struct(&json!({
        "earlier-key": {"x": [1, 2]},
        "replaced": {"by": "earlier"},
        "apiextensions.crossplane.io/environment": {"env": "prod"}
    }));

    let port = start(None);
    let mut client = connect(port).await;
    let rsp = client.run_function(req).await.expect("rpc").into_inner();
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let desired = rsp.desired.as_ref().expect("desired");

    // Resources: the earlier one kept, ours replaces the same name.
    assert_eq!(
        body(&rsp, "earlier-resource"),
        json!({"apiVersion": "v1", "kind": "ConfigMap"})
    );
    assert_eq!(desired.resources["earlier-resource"].ready, 1);
    assert_eq!(body(&rsp, "my-bucket")["kind"], json!("Bucket"));

    // Composite: earlier status kept, ours merged in.
    let composite = desired.composite.as_ref().expect("composite");
    assert_eq!(
        struct_to_json(composite.resource.as_ref().expect("xr")),
        json!({
            "apiVersion": "example.com/v1", "kind": "XS3Bucket", "metadata": {"name": "xr"},
            "status": {
                "earlier": "kept",
                "ours": {"ready": true},
                "shared": {"fromEarlier": 2, "fromHcl": 1}
            }
        })
    );
    assert_eq!(composite.connection_details["earlier-key"], b"earlier");
    assert_eq!(composite.connection_details["hcl-key"], b"from-hcl");

    // Context: other keys pass through, ours replace theirs.
    assert_eq!(
        struct_to_json(rsp.context.as_ref().expect("context")),
        json!({
            "earlier-key": {"x": [1, 2]},
            "hcl-key": {"a": 1},
            "replaced": "by hcl",
            "apiextensions.crossplane.io/environment": {"env": "prod"}
        })
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requirements_use_the_field_crossplane_understands() {
    let hcl = r#"-- main.hcl --
requirement cfg {
  select {
    apiVersion = "v1"
    kind       = "ConfigMap"
    matchName  = "settings"
  }
}
"#;
    let port = start(None);
    let mut client = connect(port).await;
    let legacy = client
        .run_function(request(hcl, "xr"))
        .await
        .expect("rpc")
        .into_inner();
    let reqs = legacy.requirements.expect("requirements");
    assert!(reqs.resources.is_empty());
    assert_eq!(reqs.extra_resources["cfg"].kind, "ConfigMap");

    let mut modern = request(hcl, "xr");
    if let Some(m) = modern.meta.as_mut() {
        m.capabilities = vec![
            Capability::Capabilities as i32,
            Capability::RequiredResources as i32,
        ];
    }
    let rsp = client.run_function(modern).await.expect("rpc").into_inner();
    let reqs = rsp.requirements.expect("requirements");
    assert!(reqs.extra_resources.is_empty());
    assert_eq!(reqs.resources["cfg"].api_version, "v1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_service_reports_serving() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let port = start(None);
    let channel = channel(port).await;
    let mut health = HealthClient::new(channel);
    let rsp = health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health check")
        .into_inner();
    assert_eq!(
        rsp.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
}

struct Pki {
    ca: String,
    server_cert: String,
    server_key: String,
    client_cert: String,
    client_key: String,
}

fn pki() -> Pki {
    use rcgen::{
        BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
        KeyPair, KeyUsagePurpose,
    };
    let ca_key = KeyPair::generate().expect("ca key");
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "fn-hcl test CA");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca_cert = ca_params.self_signed(&ca_key).expect("ca cert");
    let issuer = Issuer::new(ca_params, ca_key);

    let leaf = |names: Vec<String>, usage: ExtendedKeyUsagePurpose| {
        let key = KeyPair::generate().expect("key");
        let mut params = CertificateParams::new(names).expect("params");
        params
            .distinguished_name
            .push(DnType::CommonName, "fn-hcl test");
        params.extended_key_usages = vec![usage];
        let cert = params.signed_by(&key, &issuer).expect("sign");
        (cert.pem(), key.serialize_pem())
    };
    let (server_cert, server_key) = leaf(
        vec!["localhost".into(), "127.0.0.1".into()],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (client_cert, client_key) = leaf(
        vec!["crossplane".into()],
        ExtendedKeyUsagePurpose::ClientAuth,
    );
    Pki {
        ca: ca_cert.pem(),
        server_cert,
        server_key,
        client_cert,
        client_key,
    }
}

async fn tls_channel(port: u16, pki: &Pki, with_client_cert: bool) -> Result<Channel, String> {
    let mut tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(pki.ca.clone()))
        .domain_name("localhost");
    if with_client_cert {
        tls = tls.identity(Identity::from_pem(
            pki.client_cert.clone(),
            pki.client_key.clone(),
        ));
    }
    Endpoint::from_shared(format!("https://127.0.0.1:{port}"))
        .map_err(|e| e.to_string())?
        .tls_config(tls)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| e.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mtls_needs_a_client_certificate() {
    let pki = pki();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("tls.crt"), &pki.server_cert).expect("write");
    std::fs::write(dir.path().join("tls.key"), &pki.server_key).expect("write");
    std::fs::write(dir.path().join("ca.crt"), &pki.ca).expect("write");
    let port = start(Some(dir.path().to_path_buf()));

    let mut channel = None;
    for _ in 0..100 {
        match tls_channel(port, &pki, true).await {
            Ok(c) => {
                channel = Some(c);
                break;
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
    let mut client = FunctionRunnerServiceClient::new(channel.expect("mTLS connection"));
    let rsp = client
        .run_function(request(BUCKET, "secure"))
        .await
        .expect("RunFunction over mTLS")
        .into_inner();
    check_bucket(&rsp, "secure");

    // Without a client certificate the handshake (or the first call) fails.
    let refused = match tls_channel(port, &pki, false).await {
        Err(_) => true,
        Ok(ch) => FunctionRunnerServiceClient::new(ch)
            .run_function(request(BUCKET, "anon"))
            .await
            .is_err(),
    };
    assert!(refused, "a client without a certificate must be refused");

    // Plain text is refused too.
    let plain = FunctionRunnerServiceClient::connect(format!("http://127.0.0.1:{port}")).await;
    let refused = match plain {
        Err(_) => true,
        Ok(mut c) => c.run_function(request(BUCKET, "plain")).await.is_err(),
    };
    assert!(refused, "a plain-text client must be refused");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_source_reads_a_mounted_directory_and_sees_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("a-locals.hcl"),
        "locals {\n  region = req.composite.spec.parameters.region\n}\n",
    )
    .expect("write");
    let resource = |kind: &str| {
        format!(
            "resource r {{\n  body = {{ apiVersion = \"v1\", kind = \"{kind}\", region = region }}\n}}\n"
        )
    };
    std::fs::write(dir.path().join("b-main.hcl"), resource("First")).expect("write");
    let req = filesystem_request(dir.path(), "fs");

    let port = start(None);
    let mut client = connect(port).await;
    let rsp = client
        .run_function(req.clone())
        .await
        .expect("rpc")
        .into_inner();
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    assert_eq!(
        body(&rsp, "r"),
        json!({"apiVersion": "v1", "kind": "First", "region": "eu-west-1"})
    );

    // A changed file (new size) is picked up without a restart.
    std::fs::write(dir.path().join("b-main.hcl"), resource("SecondKind")).expect("write");
    let rsp = client.run_function(req).await.expect("rpc").into_inner();
    assert_eq!(body(&rsp, "r")["kind"], json!("SecondKind"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_source_loads_module_subdirectories_and_sees_their_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "main.hcl",
        "import \"modules/bucket\" {}\n\nmodule \"bucket\" \"logs\" {\n  region = req.composite.spec.parameters.region\n}\n",
    );
    let module = |kind: &str| {
        format!(
            "param \"region\" {{}}\n\nresource bucket {{\n  body = {{ apiVersion = \"v1\", kind = \"{kind}\", region = param.region }}\n}}\n"
        )
    };
    write("modules/bucket/main.hcl", &module("Bucket"));
    // A ConfigMap volume's machinery and VCS metadata are not program files.
    write("..data/broken.hcl", "not hcl {");
    write(".git/broken.hcl", "not hcl {");
    let req = filesystem_request(dir.path(), "fs-modules");

    let port = start(None);
    let mut client = connect(port).await;
    let rsp = client
        .run_function(req.clone())
        .await
        .expect("rpc")
        .into_inner();
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    assert_eq!(
        body(&rsp, "logs-bucket"),
        json!({"apiVersion": "v1", "kind": "Bucket", "region": "eu-west-1"})
    );

    // A change inside the module directory is picked up without a restart.
    write("modules/bucket/main.hcl", &module("BucketV2"));
    let rsp = client.run_function(req).await.expect("rpc").into_inner();
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    assert_eq!(body(&rsp, "logs-bucket")["kind"], json!("BucketV2"));
}

/// A program file rewritten in place (truncated, then written in pieces)
/// while calls come in: every answer is either the whole program's
/// resources or a Fatal result, never a success with fewer resources,
/// which Crossplane would turn into deletions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_program_rewritten_in_place_is_never_read_torn() {
    use std::io::Write as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let main = dir.path().join("main.hcl");
    let program = "resource one {\n  body = { apiVersion = \"v1\", kind = \"One\" }\n}\n\nresource two {\n  body = { apiVersion = \"v1\", kind = \"Two\" }\n}\n";
    std::fs::write(&main, program).expect("write");
    let mut req = filesystem_request(dir.path(), "fs-torn");
    let observed = |kind: &str| Resource {
        resource: json_to_struct(&json!({"apiVersion": "v1", "kind": kind})),
        ..Default::default()
    };
    let resources = &mut req.observed.as_mut().expect("observed").resources;
    resources.insert("one".into(), observed("One"));
    resources.insert("two".into(), observed("Two"));

    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = {
        let (main, done) = (main.clone(), done.clone());
        std::thread::spawn(move || {
            let (head, tail) = program.split_at(program.find("resource two").expect("two"));
            for _ in 0..150 {
                let mut f = std::fs::File::create(&main).expect("truncate");
                std::thread::sleep(Duration::from_micros(300));
                f.write_all(head.as_bytes()).expect("write");
                std::thread::sleep(Duration::from_micros(300));
                f.write_all(tail.as_bytes()).expect("write");
                drop(f);
                std::thread::sleep(Duration::from_millis(2));
            }
            done.store(true, std::sync::atomic::Ordering::SeqCst);
        })
    };
    let f = quiet();
    let (mut whole, mut fatal) = (0, 0);
    while !done.load(std::sync::atomic::Ordering::SeqCst) {
        let rsp = f.handle(req.clone()).await.expect("run");
        if rsp
            .results
            .iter()
            .any(|r| r.severity == Severity::Fatal as i32)
        {
            fatal += 1;
            continue;
        }
        let desired = rsp.desired.as_ref().expect("desired");
        let mut names: Vec<_> = desired.resources.keys().cloned().collect();
        names.sort();
        assert_eq!(names, ["one", "two"], "a success lost resources: {rsp:?}");
        whole += 1;
    }
    writer.join().expect("writer");
    // Left alone, the file is read whole.
    let rsp = f.handle(req).await.expect("run");
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    assert_eq!(body(&rsp, "two")["kind"], json!("Two"));
    eprintln!("while rewritten: {whole} whole answers, {fatal} Fatal");
}

/// An empty program file is a Fatal naming it, not a program of no
/// resources.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_filesystem_program_file_is_fatal() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("main.hcl"),
        "resource r {\n  body = { apiVersion = \"v1\", kind = \"R\" }\n}\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("z.hcl"), " \n").expect("write");
    let req = filesystem_request(dir.path(), "fs-empty");
    let rsp = quiet().handle(req).await.expect("run");
    assert_eq!(rsp.results.len(), 1, "{:?}", rsp.results);
    assert_eq!(rsp.results[0].severity, Severity::Fatal as i32);
    assert!(
        rsp.results[0].message.contains("z.hcl: the file is empty"),
        "{}",
        rsp.results[0].message
    );
}

async fn http_get_metrics(port: u16) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    for _ in 0..100 {
        let Ok(mut conn) = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}")).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        conn.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .expect("write request");
        let mut out = Vec::new();
        let _ = conn.read_to_end(&mut out).await;
        return String::from_utf8_lossy(&out).into_owned();
    }
    panic!("cannot connect to the metrics endpoint");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_runs_and_cache_lookups() {
    let metrics_port = free_port();
    let port = start_with_metrics(None, Some(metrics_port));
    let mut client = connect(port).await;
    for name in ["a", "b"] {
        let rsp = client
            .run_function(request(BUCKET, name))
            .await
            .expect("rpc")
            .into_inner();
        check_bucket(&rsp, name);
    }
    let mut bad = request(BUCKET, "c");
    bad.input = json_to_struct(&json!({"hlc": "typo"}));
    client.run_function(bad).await.expect("rpc");

    let text = http_get_metrics(metrics_port).await;
    for line in [
        "function_hcl_runs_total{result=\"success\"} 2",
        "function_hcl_runs_total{result=\"fatal\"} 1",
        "function_hcl_program_cache_lookups_total{outcome=\"miss\"} 1",
        "function_hcl_program_cache_lookups_total{outcome=\"hit\"} 1",
        "function_hcl_run_duration_seconds_count 3",
        "function_hcl_cache_entries{cache=\"program\"} 1",
        "function_hcl_cache_entries{cache=\"filesystem\"} 0",
        "function_hcl_cache_max_entries{cache=\"program\"} 64",
        "function_hcl_cache_max_bytes{cache=\"filesystem\"} 67108864",
        "function_hcl_cache_evictions_total{cache=\"program\"} 0",
        // Every run has given its memory back.
        "function_hcl_eval_memory_bytes 0",
        "function_hcl_eval_memory_max_bytes 134217728",
        "grpc_server_handled_total{",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
}

// --- Scheduling (fnhcl_server::lanes) ---

fn quiet() -> HclFunction {
    HclFunction::standard().with_debug_sink(std::sync::Arc::new(|_: &str| {}))
}

fn heavy_request(rows: usize) -> RunFunctionRequest {
    let hcl = format!(
        "-- main.hcl --\nlocals {{\n  grid = [for a in range({rows}) : [for b in range(1024) : a * b + 1]]\n}}\n\nresource heavy {{\n  body = {{\n    apiVersion = \"example.com/v1\"\n    kind       = \"Heavy\"\n    spec       = {{ total = length(flatten(grid)) }}\n  }}\n}}\n"
    );
    request(&hcl, "heavy")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_run_moves_to_the_pool_and_a_small_one_still_runs_inline() {
    // One light slot, one heavy slot: a long run starts inline, is stopped
    // at its first check and runs again in the pool, where it moves to the
    // heavy lane; small requests meanwhile run inline, whatever the pool
    // is doing.
    let f = std::sync::Arc::new(quiet().with_lanes(fnhcl_server::LaneLimits {
        light: 1,
        heavy_running: 1,
        heavy_total: 4,
        demote_after_checks: 1,
        heavy_slice_checks: 50,
    }));
    let heavy: Vec<_> = (0..3)
        .map(|_| {
            let f = f.clone();
            tokio::spawn(async move { f.handle(heavy_request(20)).await })
        })
        .collect();
    let rsp = f.handle(request(BUCKET, "small")).await.expect("run");
    check_bucket(&rsp, "small");
    for h in heavy {
        let rsp = h.await.expect("task").expect("run");
        assert!(rsp.results.is_empty(), "{:?}", rsp.results);
        let total = body(&rsp, "heavy")["spec"]["total"].clone();
        assert_eq!(total, json!(20 * 1024));
    }
    let s = f.lane_stats();
    assert_eq!(s.inline, 1, "{s:?}");
    assert_eq!((s.moved, s.admitted, s.demoted), (3, 3, 3), "{s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_caller_has_gone_stops() {
    let f = std::sync::Arc::new(quiet().with_lanes(fnhcl_server::LaneLimits {
        light: 1,
        heavy_running: 1,
        heavy_total: 4,
        demote_after_checks: 1,
        heavy_slice_checks: 50,
    }));
    // A run far longer than this test: ~900,000 elements.
    let task = {
        let f = f.clone();
        tokio::spawn(async move { f.handle(heavy_request(900)).await })
    };
    // Once it is in the pool, the caller goes away (tonic drops the
    // handler the same way on a cancel or a passed deadline).
    while f.lane_stats().admitted == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    task.abort();
    assert!(task.await.is_err_and(|e| e.is_cancelled()));
    // The evaluation notices at its next check (or, had it not started
    // yet, is never started) and gives its slot back: the next long
    // request gets the only light slot.
    while f.lane_stats().interrupted + f.lane_stats().skipped == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let rsp = f.handle(heavy_request(2)).await.expect("run");
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
    let s = f.lane_stats();
    assert_eq!((s.interrupted + s.skipped, s.admitted), (1, 2), "{s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_small_request_runs_inline() {
    let f = quiet();
    let rsp = f.handle(request(BUCKET, "inline")).await.expect("run");
    check_bucket(&rsp, "inline");
    let s = f.lane_stats();
    assert_eq!((s.inline, s.moved, s.admitted), (1, 0, 0), "{s:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filesystem_program_is_read_in_the_pool_not_inline() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("main.hcl"),
        BUCKET.trim_start_matches("-- main.hcl --\n"),
    )
    .expect("write");
    let req = filesystem_request(dir.path(), "fs-pool");
    let f = quiet();
    let rsp = f.handle(req).await.expect("run");
    check_bucket(&rsp, "fs-pool");
    let s = f.lane_stats();
    assert_eq!((s.inline, s.moved, s.admitted), (0, 0, 1), "{s:?}");
}

// --- What function-sdk-rust's server served, now assembled here ---

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_the_function_service_serving_too() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let port = start(None);
    let channel = channel(port).await;
    let mut health = HealthClient::new(channel);
    let check = |service: &str| HealthCheckRequest {
        service: service.to_owned(),
    };
    let rsp = health
        .check(check("apiextensions.fn.proto.v1.FunctionRunnerService"))
        .await
        .expect("health check")
        .into_inner();
    assert_eq!(rsp.status, ServingStatus::Serving as i32);
    let unknown = health
        .check(check("no.such.Service"))
        .await
        .expect_err("an unknown service");
    assert_eq!(unknown.code(), tonic::Code::NotFound);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_v1_and_v1alpha_list_the_service_and_describe_it() {
    use tonic_reflection::pb::{v1, v1alpha};
    let port = start(None);
    let channel = channel(port).await;

    let mut client = v1::server_reflection_client::ServerReflectionClient::new(channel.clone());
    let ask = |m: v1::server_reflection_request::MessageRequest| v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(m),
    };
    let requests = vec![
        ask(v1::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
        ask(
            v1::server_reflection_request::MessageRequest::FileContainingSymbol(
                "apiextensions.fn.proto.v1.FunctionRunnerService".into(),
            ),
        ),
    ];
    let mut answers = client
        .server_reflection_info(tokio_stream::iter(requests))
        .await
        .expect("reflection v1")
        .into_inner();
    let list = answers.message().await.expect("answer").expect("one");
    let Some(v1::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        list.message_response
    else {
        panic!("not a service list: {list:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(
        names.contains(&"apiextensions.fn.proto.v1.FunctionRunnerService".to_owned()),
        "{names:?}"
    );
    let file = answers.message().await.expect("answer").expect("two");
    let Some(v1::server_reflection_response::MessageResponse::FileDescriptorResponse(file)) =
        file.message_response
    else {
        panic!("not a file descriptor: {file:?}");
    };
    assert!(!file.file_descriptor_proto.is_empty());

    let mut client = v1alpha::server_reflection_client::ServerReflectionClient::new(channel);
    let request = v1alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(
            v1alpha::server_reflection_request::MessageRequest::ListServices(String::new()),
        ),
    };
    let mut answers = client
        .server_reflection_info(tokio_stream::iter(vec![request]))
        .await
        .expect("reflection v1alpha")
        .into_inner();
    let list = answers.message().await.expect("answer").expect("one");
    let Some(v1alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        list.message_response
    else {
        panic!("not a service list: {list:?}");
    };
    assert!(
        list.service
            .iter()
            .any(|s| s.name == "apiextensions.fn.proto.v1.FunctionRunnerService"),
        "{:?}",
        list.service
    );
}

async fn http_get(port: u16, head: &str) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    for _ in 0..100 {
        let Ok(mut conn) = tokio::net::TcpStream::connect(format!("127.0.0.1:{port}")).await else {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        };
        conn.write_all(head.as_bytes())
            .await
            .expect("write request");
        let mut out = Vec::new();
        let _ = conn.read_to_end(&mut out).await;
        return String::from_utf8_lossy(&out).into_owned();
    }
    panic!("cannot connect to the metrics endpoint");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_server_series_count_calls_by_method_and_code() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_client::HealthClient;
    let metrics_port = free_port();
    let port = start_with_metrics(None, Some(metrics_port));
    let mut client = connect(port).await;
    for name in ["a", "b", "c"] {
        client
            .run_function(request(BUCKET, name))
            .await
            .expect("rpc");
    }
    let channel = channel(port).await;
    let mut health = HealthClient::new(channel);
    health
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .expect("health");
    let _ = health
        .check(HealthCheckRequest {
            service: "no.such.Service".into(),
        })
        .await;

    let om = http_get(
        metrics_port,
        "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    )
    .await;
    let run = "grpc_type=\"unary\",grpc_service=\"apiextensions.fn.proto.v1.FunctionRunnerService\",grpc_method=\"RunFunction\"";
    let check = "grpc_type=\"unary\",grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Check\"";
    for line in [
        "Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8".to_owned(),
        "# HELP grpc_server_started Total number of RPCs started on the server.".to_owned(),
        "# TYPE grpc_server_handled counter".to_owned(),
        format!("grpc_server_started_total{{{run}}} 3"),
        format!("grpc_server_msg_received_total{{{run}}} 3"),
        format!("grpc_server_msg_sent_total{{{run}}} 3"),
        format!("grpc_server_handled_total{{{run},grpc_code=\"OK\"}} 3"),
        format!("grpc_server_handled_total{{{run},grpc_code=\"Unavailable\"}} 0"),
        format!("grpc_server_started_total{{{check}}} 2"),
        format!("grpc_server_handled_total{{{check},grpc_code=\"OK\"}} 1"),
        format!("grpc_server_handled_total{{{check},grpc_code=\"NotFound\"}} 1"),
        format!("grpc_server_msg_sent_total{{{check}}} 1"),
        "grpc_server_started_total{grpc_type=\"server_stream\",grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Watch\"} 0".to_owned(),
        "function_hcl_runs_total{result=\"success\"} 3".to_owned(),
        "# EOF".to_owned(),
    ] {
        assert!(om.contains(&line), "missing {line:?} in\n{om}");
    }
    // The function's own series come first, the gRPC server's after them.
    let own = om.find("# HELP function_hcl_runs").expect("own series");
    let grpc = om.find("# HELP grpc_server_started").expect("grpc series");
    assert!(own < grpc, "{om}");

    let classic = http_get(
        metrics_port,
        "GET /metrics HTTP/1.1\r\nAccept: text/plain;version=0.0.4\r\nConnection: close\r\n\r\n",
    )
    .await;
    for line in [
        "Content-Type: text/plain; version=0.0.4",
        "# TYPE grpc_server_started_total counter",
        "# HELP grpc_server_started_total Total number of RPCs started on the server.",
    ] {
        assert!(classic.contains(line), "missing {line:?} in\n{classic}");
    }
    assert!(!classic.contains("# EOF"), "{classic}");
    let missing = http_get(metrics_port, "GET /other HTTP/1.1\r\n\r\n").await;
    assert!(missing.starts_with("HTTP/1.1 404"), "{missing}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_over_max_recv_message_size_are_refused() {
    let port = free_port();
    let mut a = args(port, None);
    a.max_recv_message_size = Some(2048);
    tokio::spawn(async move {
        fnhcl_server::serve(quiet(), &a)
            .await
            .expect("server must start");
    });
    let mut client = connect(port).await;
    let small = request(BUCKET, "small");
    let rsp = client.run_function(small).await.expect("a small request");
    check_bucket(&rsp.into_inner(), "small");
    let mut big = request(BUCKET, "big");
    big.context = json_to_struct(&json!({ "padding": "x".repeat(4096) }));
    let refused = client.run_function(big).await.expect_err("too big");
    assert_eq!(refused.code(), tonic::Code::OutOfRange, "{refused:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_needs_its_files_and_refuses_another_cas_client() {
    // No --tls-certs-dir and not --insecure: the SDK's error.
    let mut a = args(free_port(), None);
    a.insecure = false;
    let e = fnhcl_server::serve(quiet(), &a).await.expect_err("no TLS");
    assert!(e.to_string().contains("--tls-certs-dir"), "{e}");
    // A directory without the files.
    let empty = tempfile::tempdir().expect("tempdir");
    let a = args(free_port(), Some(empty.path().to_path_buf()));
    let e = fnhcl_server::serve(quiet(), &a)
        .await
        .expect_err("no files");
    assert!(e.to_string().contains("tls.crt"), "{e}");

    // A client certificate from another CA is refused.
    let pki = pki();
    let other = self::pki();
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("tls.crt"), &pki.server_cert).expect("write");
    std::fs::write(dir.path().join("tls.key"), &pki.server_key).expect("write");
    std::fs::write(dir.path().join("ca.crt"), &pki.ca).expect("write");
    let port = start(Some(dir.path().to_path_buf()));
    let mut ok = false;
    for _ in 0..100 {
        if tls_channel(port, &pki, true).await.is_ok() {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ok, "the server accepts its own CA's client");
    let stranger = Pki {
        ca: pki.ca.clone(),
        client_cert: other.client_cert,
        client_key: other.client_key,
        ..other
    };
    let refused = match tls_channel(port, &stranger, true).await {
        Err(_) => true,
        Ok(ch) => FunctionRunnerServiceClient::new(ch)
            .run_function(request(BUCKET, "stranger"))
            .await
            .is_err(),
    };
    assert!(refused, "a certificate from another CA must be refused");
}

/// The server announces its bound of calls in flight per connection
/// (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_bounds_streams_per_connection() {
    let port = free_port();
    let a = args(port, None);
    tokio::spawn(async move {
        let transport = fnhcl_server::Transport {
            max_concurrent_streams: 7,
            ..fnhcl_server::Transport::default()
        };
        fnhcl_server::serve_with(quiet(), &a, transport)
            .await
            .expect("server must start");
    });
    let mut tcp = None;
    for _ in 0..100 {
        if let Ok(t) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await {
            tcp = Some(t);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (_client, mut connection) = h2::client::handshake(tcp.expect("connected"))
        .await
        .expect("HTTP/2 handshake");
    // Drive the connection until the server's SETTINGS have been read.
    let mut announced = connection.max_concurrent_send_streams();
    for _ in 0..100 {
        let _ = tokio::time::timeout(Duration::from_millis(50), &mut connection).await;
        announced = connection.max_concurrent_send_streams();
        if announced == 7 {
            break;
        }
    }
    assert_eq!(announced, 7);
}

/// Sends and receives messages as the bytes they are.
#[derive(Clone, Copy, Default)]
struct RawCodec;

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(
        &mut self,
        item: Vec<u8>,
        dst: &mut tonic::codec::EncodeBuf<'_>,
    ) -> Result<(), tonic::Status> {
        use bytes::BufMut as _;
        dst.put_slice(&item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn decode(
        &mut self,
        src: &mut tonic::codec::DecodeBuf<'_>,
    ) -> Result<Option<Vec<u8>>, tonic::Status> {
        use bytes::Buf as _;
        Ok(Some(src.copy_to_bytes(src.remaining()).to_vec()))
    }
}

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;
    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }
    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_groups_in_a_health_check_cannot_exhaust_the_stack() {
    // prost reads without a recursion limit, and skips unknown groups
    // recursively: the health service's message size bound keeps that
    // within a thread's stack.
    let port = start(None);
    let channel = channel(port).await;
    let mut grpc = tonic::client::Grpc::new(channel);
    let path = http::uri::PathAndQuery::from_static("/grpc.health.v1.Health/Check");
    // Unknown field 2 opening and closing `n` groups: two bytes a level.
    let groups = |n: usize| {
        let mut b = vec![0x13; n];
        b.extend(std::iter::repeat_n(0x14, n));
        b
    };
    for (n, ok) in [(2_000, true), (1_000_000, false)] {
        grpc.ready().await.expect("ready");
        let answer = grpc
            .unary(tonic::Request::new(groups(n)), path.clone(), RawCodec)
            .await;
        if ok {
            // An empty service name: SERVING.
            assert!(answer.is_ok(), "{n}: {answer:?}");
        } else {
            let status = answer.expect_err("too large");
            assert_eq!(status.code(), tonic::Code::OutOfRange, "{status:?}");
        }
    }
    // And the server goes on.
    let mut client = connect(port).await;
    let rsp = client
        .run_function(request("", "xr"))
        .await
        .expect("rpc")
        .into_inner();
    assert!(!rsp.results.is_empty() || rsp.desired.is_some());
}

/// Requests past `--max-request-bytes-in-flight` are not read further and
/// get a Fatal result naming the limit, over a real connection; smaller
/// ones are answered as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_past_the_bytes_in_flight_get_a_fatal_result() {
    let port = free_port();
    let a = args(port, None);
    tokio::spawn(async move {
        let transport = fnhcl_server::Transport {
            max_request_bytes_in_flight: 64 << 10,
            ..fnhcl_server::Transport::default()
        };
        fnhcl_server::serve_with(quiet(), &a, transport)
            .await
            .expect("server must start");
    });
    let mut client = connect(port).await;
    let big = format!(
        "resource r {{\n  body = {{ apiVersion = \"v1\", kind = \"ConfigMap\", data = {{ pad = \"{}\" }} }}\n}}\n",
        "x".repeat(200 << 10)
    );
    let rsp = client
        .run_function(request(&big, "xr"))
        .await
        .expect("an answer, not a gRPC error")
        .into_inner();
    let messages: Vec<&str> = rsp.results.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "the server holds 65536 bytes of requests in progress, its limit (--max-request-bytes-in-flight): try again"
        ],
    );
    assert_eq!(rsp.results[0].severity, Severity::Fatal as i32);
    // The connection and the server go on.
    let small = "resource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\" }\n}\n";
    let rsp = client
        .run_function(request(small, "xr"))
        .await
        .expect("rpc")
        .into_inner();
    assert!(rsp.results.is_empty(), "{:?}", rsp.results);
}
