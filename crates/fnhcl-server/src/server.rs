//! The gRPC server, assembled here from tonic's parts (it was
//! function-sdk-rust's `Server`, which binds the socket and builds tonic's
//! server itself): what it served is served the same way, with the SDK's
//! command line ([`Args`]) and errors, and three changes the SDK's did not
//! allow (docs/notes/function-server.md, "The server"):
//!
//! - RunFunction is our own service: tonic's `Grpc::unary` with our codec
//!   (`codec.rs`: prost without its recursion limit, behind a nesting
//!   check, and a request prost refuses answered with a Fatal result); the
//!   call layer hands it RunFunction's calls without tonic's router;
//! - small responses leave in one write ([`crate::calls`]);
//! - the `grpc_server_*` counters are looked up once
//!   ([`crate::grpc_metrics`]).
//!
//! Also served: TLS from `--tls-certs-dir` (`tls.crt`, `tls.key`, and
//! `ca.crt` to verify clients, whose certificates are required) unless
//! `--insecure`; the gRPC health service (`""` and the function's service
//! SERVING); reflection v1 and v1alpha of the v1 API; `/metrics` at
//! `--metrics-address`; `--max-recv-message-size`; graceful shutdown on
//! SIGTERM or SIGINT.
//!
//! Size: the whole assembly (listeners, TLS, the services, limits on bytes
//! in flight, shutdown) in one place, with its unit tests.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use function_sdk_rust::proto::v1::RunFunctionResponse;
use function_sdk_rust::{Args, Error};
use prometheus_client::registry::Registry;
use tonic::codegen::{BoxFuture, StdError};
use tonic::server::{Grpc, NamedService, UnaryService};
use tonic::transport::{Certificate, Identity, ServerTlsConfig};
use tonic::{Request, Response, Status};

use crate::calls::CallLayer;
use crate::codec::{Decoded, Received, RunFunctionCodec};
use crate::grpc_metrics::{FUNCTION_SERVICE, GrpcMetrics};
use crate::transport::Transport;
use crate::{CacheCollector, HclFunction, Metrics, metrics};

pub(crate) const RUN_FUNCTION: &str =
    "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction";

/// The largest request of the health and reflection services (a service,
/// file or symbol name). prost reads them with tonic's codec, without the
/// nesting check of RunFunction's (`codec.rs`): this bound keeps what prost
/// may recurse into (nested groups, two bytes a level) within any thread's
/// stack.
const SMALL_REQUEST_BYTES: usize = 4 << 10;

/// `FunctionRunnerService` with [`RunFunctionCodec`]: what the SDK's
/// generated `FunctionRunnerServiceServer` does, but for the codec (and no
/// compression, which that server enabled none of either).
#[derive(Clone)]
pub struct RunFunctionService {
    function: Arc<HclFunction>,
    max_decoding_message_size: Option<usize>,
    in_flight: Arc<InFlight>,
}

impl RunFunctionService {
    /// Serves `function`; requests over `max_decoding_message_size` bytes
    /// (tonic's default, 4 MiB, when `None`) are refused.
    pub fn new(function: HclFunction, max_decoding_message_size: Option<usize>) -> Self {
        RunFunctionService {
            function: Arc::new(function),
            max_decoding_message_size,
            in_flight: InFlight::new(crate::transport::DEFAULT_MAX_REQUEST_BYTES_IN_FLIGHT),
        }
    }

    /// With a bound of the request bytes held at once other than the
    /// default ([`crate::Transport::max_request_bytes_in_flight`]).
    pub fn with_request_bytes_in_flight(mut self, limit: usize) -> Self {
        self.in_flight = InFlight::new(limit);
        self
    }
}

/// The bytes of the RunFunction requests the server holds, over every
/// connection: each request's are counted as they arrive (its body,
/// [`Counted`]) and given back when it is answered ([`Held`]). A request
/// that would go past the limit is refused: its body stops being read and
/// it is answered with a Fatal result naming the limit (Crossplane calls
/// again), so no number of connections and streams makes the server hold
/// more.
#[derive(Debug)]
pub struct InFlight {
    limit: usize,
    used: AtomicUsize,
}

impl InFlight {
    pub fn new(limit: usize) -> Arc<InFlight> {
        Arc::new(InFlight {
            limit,
            used: AtomicUsize::new(0),
        })
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

/// One request's bytes counted in an [`InFlight`]; given back when the
/// last reference (its body's, its call's) goes.
#[derive(Debug)]
struct Held {
    in_flight: Arc<InFlight>,
    bytes: AtomicUsize,
    /// The request went past the limit.
    refused: std::sync::atomic::AtomicBool,
}

impl Held {
    /// Counts `n` more bytes, if they fit.
    fn add(&self, n: usize) -> bool {
        let limit = self.in_flight.limit;
        let fits = self
            .in_flight
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                u.checked_add(n).filter(|&after| after <= limit)
            })
            .is_ok();
        if fits {
            self.bytes.fetch_add(n, Ordering::Relaxed);
        } else {
            self.refused.store(true, Ordering::Relaxed);
        }
        fits
    }

    /// What a refused request is told.
    fn refusal(&self) -> String {
        format!(
            "the server holds {} bytes of requests in progress, its limit (--max-request-bytes-in-flight): try again",
            self.in_flight.limit
        )
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.in_flight
            .used
            .fetch_sub(*self.bytes.get_mut(), Ordering::AcqRel);
    }
}

/// A request body whose DATA is counted in its [`Held`] as it arrives.
struct Counted<B> {
    inner: Pin<Box<B>>,
    held: Arc<Held>,
}

impl<B> http_body::Body for Counted<B>
where
    B: http_body::Body,
    B::Error: Into<StdError>,
{
    type Data = B::Data;
    type Error = StdError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<B::Data>, StdError>>> {
        use bytes::Buf as _;
        let frame = match std::task::ready!(self.inner.as_mut().poll_frame(cx)) {
            None => return std::task::Poll::Ready(None),
            Some(Err(e)) => return std::task::Poll::Ready(Some(Err(e.into()))),
            Some(Ok(frame)) => frame,
        };
        if let Some(data) = frame.data_ref()
            && !self.held.add(data.remaining())
        {
            // Read no further; the call answers with a Fatal result.
            let busy = Status::resource_exhausted(self.held.refusal());
            return std::task::Poll::Ready(Some(Err(Box::new(busy))));
        }
        std::task::Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

impl NamedService for RunFunctionService {
    const NAME: &'static str = FUNCTION_SERVICE;
}

/// One RunFunction call.
struct RunFunction(Arc<HclFunction>);

/// The answer to a request refused before it was read: a Fatal result.
struct Refused(Arc<HclFunction>, String);

impl UnaryService<Decoded> for Refused {
    type Response = RunFunctionResponse;
    type Future = BoxFuture<Response<RunFunctionResponse>, Status>;

    fn call(&mut self, _request: Request<Decoded>) -> Self::Future {
        let rsp = self.0.refuse(std::mem::take(&mut self.1));
        Box::pin(async move { Ok(Response::new(rsp)) })
    }
}

/// A request body of one DATA frame.
struct OneFrame(Option<bytes::Bytes>);

impl http_body::Body for OneFrame {
    type Data = bytes::Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, Infallible>>> {
        std::task::Poll::Ready(
            self.get_mut()
                .0
                .take()
                .map(|b| Ok(http_body::Frame::data(b))),
        )
    }
}

impl UnaryService<Decoded> for RunFunction {
    type Response = RunFunctionResponse;
    type Future = BoxFuture<Response<RunFunctionResponse>, Status>;

    fn call(&mut self, request: Request<Decoded>) -> Self::Future {
        let function = self.0.clone();
        // The request's bytes stay counted until it is answered.
        let held = request.extensions().get::<Arc<Held>>().cloned();
        Box::pin(async move {
            let _held = held;
            match request.into_inner() {
                Ok(Received::Message(req, len)) => {
                    function.handle_received(req, len).await.map(Response::new)
                }
                Ok(Received::Bytes(bytes)) => function.handle_bytes(bytes).await.map(Response::new),
                Err(e) => Ok(Response::new(
                    function.refuse(format!("invalid request: {e}")),
                )),
            }
        })
    }
}

impl<B> tower_service::Service<http::Request<B>> for RunFunctionService
where
    B: http_body::Body + Send + 'static,
    B::Error: Into<StdError> + Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Infallible>;

    fn poll_ready(
        &mut self,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Infallible>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        if req.uri().path() != RUN_FUNCTION {
            return Box::pin(async { Ok(Status::unimplemented("").into_http()) });
        }
        let function = self.function.clone();
        let max = self.max_decoding_message_size;
        let held = Arc::new(Held {
            in_flight: self.in_flight.clone(),
            bytes: AtomicUsize::new(0),
            refused: std::sync::atomic::AtomicBool::new(false),
        });
        let (mut parts, body) = req.into_parts();
        parts.extensions.insert(held.clone());
        let req = http::Request::from_parts(
            parts,
            Counted {
                inner: Box::pin(body),
                held: held.clone(),
            },
        );
        Box::pin(async move {
            let mut grpc = Grpc::new(RunFunctionCodec).apply_max_message_size_config(max, None);
            let rsp = grpc.unary(RunFunction(function.clone()), req).await;
            if !held.refused.load(Ordering::Relaxed) {
                return Ok(rsp);
            }
            // Refused while it arrived: answered as a request that cannot
            // be taken is, with a Fatal result (through an empty message,
            // so that tonic frames the answer).
            let message = held.refusal();
            drop(held);
            let mut empty =
                http::Request::new(OneFrame(Some(bytes::Bytes::from_static(&[0, 0, 0, 0, 0]))));
            *empty.uri_mut() = http::Uri::from_static(RUN_FUNCTION);
            Ok(grpc.unary(Refused(function, message), empty).await)
        })
    }
}

/// The TLS settings from `dir`: the server's `tls.crt` and `tls.key`, and
/// `ca.crt`, which a client's (required) certificate must be signed by.
fn tls_config(dir: &Path) -> Result<ServerTlsConfig, Error> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read(&path).map_err(|source| Error::ReadCertificate { path, source })
    };
    let (cert, key, ca) = (read("tls.crt")?, read("tls.key")?, read("ca.crt")?);
    Ok(ServerTlsConfig::new()
        .identity(Identity::from_pem(cert, key))
        .client_ca_root(Certificate::from_pem(ca))
        .client_auth_optional(false))
}

/// Completes on SIGTERM or SIGINT.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM; stopping on SIGINT only");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
    tracing::info!("shutting down");
}

/// [`serve_with`] the default [`Transport`] bounds.
pub async fn serve(function: HclFunction, args: &Args) -> Result<(), Error> {
    serve_with(function, args, Transport::default()).await
}

/// Serves until SIGTERM/SIGINT, then shuts down gracefully: calls in
/// flight are answered for up to [`Transport::drain_timeout`], then every
/// connection is closed. The function's own metrics are served with the
/// `grpc_server_*` ones at `--metrics-address`.
pub async fn serve_with(
    function: HclFunction,
    args: &Args,
    transport: Transport,
) -> Result<(), Error> {
    let address: SocketAddr = args.address.parse()?;
    let mut builder = tonic::transport::Server::builder()
        .max_concurrent_streams(transport.max_concurrent_streams)
        .timeout(transport.request_timeout)
        .http2_keepalive_interval(Some(transport.keepalive))
        .http2_keepalive_timeout(Some(transport.keepalive / 3))
        .max_connection_age(transport.max_connection_age)
        .max_connection_age_grace(crate::transport::CONNECTION_AGE_GRACE);
    if !args.insecure {
        let dir = args
            .tls_certs_dir
            .as_deref()
            .ok_or(Error::MissingTlsCertsDir)?;
        builder = builder.tls_config(tls_config(dir)?.timeout(transport.tls_handshake_timeout))?;
    }

    let mut registry = Registry::default();
    CacheCollector::register(&mut registry, function.cache_sources());
    metrics::LogCollector::register(&mut registry);
    metrics::EvalMemoryCollector::register(&mut registry, function.crossplane_function());
    let function = function.with_metrics(Arc::new(Metrics::register(&mut registry)));
    let grpc_metrics = Arc::new(GrpcMetrics::register(&mut registry));

    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(function_sdk_rust::proto::FILE_DESCRIPTOR_SET)
        .build_v1()?
        .max_decoding_message_size(SMALL_REQUEST_BYTES);
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(function_sdk_rust::proto::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?
        .max_decoding_message_size(SMALL_REQUEST_BYTES);
    // SERVING before the server listens: no probe sees anything else.
    let (health, health_service) = tonic_health::server::health_reporter();
    for service in ["", FUNCTION_SERVICE] {
        health
            .set_service_status(service, tonic_health::ServingStatus::Serving)
            .await;
    }

    // A failure to serve metrics is logged; the function goes on.
    if !args.metrics_address.is_empty() {
        let metrics_address = args.metrics_address.clone();
        let registry = Arc::new(registry);
        tokio::spawn(async move {
            if let Err(e) = crate::metrics_http::serve(&metrics_address, registry).await {
                tracing::error!(error = %e, "cannot serve metrics");
            }
        });
    }

    let listener = tokio::net::TcpListener::bind(address)
        .await
        .map_err(|e| Error::NotReady(format!("cannot listen on {address}: {e}").into()))?;
    tracing::info!(%address, insecure = args.insecure, "serving FunctionRunnerService");
    let run_function = RunFunctionService::new(function, args.max_recv_message_size)
        .with_request_bytes_in_flight(transport.max_request_bytes_in_flight);
    // The drain deadline starts when the signal arrives.
    let (stopping, mut stopped) = tokio::sync::watch::channel(false);
    let signal = async move {
        shutdown_signal().await;
        let _ = stopping.send(true);
    };
    let server = builder
        .layer(CallLayer::new(grpc_metrics, run_function.clone()))
        // RunFunction's calls are handed over by the layer; the service's
        // other paths still come through the router.
        .add_service(run_function)
        .add_service(health_service.max_decoding_message_size(SMALL_REQUEST_BYTES))
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .serve_with_incoming_shutdown(crate::transport::Incoming::new(listener), signal);
    let deadline = async {
        while !*stopped.borrow() {
            if stopped.changed().await.is_err() {
                return std::future::pending::<()>().await;
            }
        }
        tokio::time::sleep(transport.drain_timeout).await;
    };
    tokio::select! {
        served = server => served?,
        () = deadline => {
            tracing::warn!(
                drain_seconds = transport.drain_timeout.as_secs_f64(),
                "connections still open after the drain deadline; closing them"
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use http_body::Body as _;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tower_service::Service as _;

    /// A gRPC message: the compressed flag, the length, the bytes.
    fn grpc_message(flag: u8, bytes: &[u8]) -> Vec<u8> {
        let mut m = vec![flag];
        m.extend_from_slice(&u32::try_from(bytes.len()).expect("length").to_be_bytes());
        m.extend_from_slice(bytes);
        m
    }

    /// A request body: the given DATA frames.
    struct Chunks(std::collections::VecDeque<Bytes>);

    impl http_body::Body for Chunks {
        type Data = Bytes;
        type Error = Status;

        fn poll_frame(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<http_body::Frame<Bytes>, Status>>> {
            Poll::Ready(
                self.get_mut()
                    .0
                    .pop_front()
                    .map(|b| Ok(http_body::Frame::data(b))),
            )
        }
    }

    fn run_function_request(
        encoding: Option<&str>,
        chunks: Vec<Vec<u8>>,
    ) -> http::Request<tonic::body::Body> {
        let mut req = http::Request::builder().uri(RUN_FUNCTION);
        if let Some(e) = encoding {
            req = req.header("grpc-encoding", e);
        }
        let body = Chunks(chunks.into_iter().map(Bytes::from).collect());
        req.body(tonic::body::Body::new(body)).expect("request")
    }

    /// The response's DATA bytes and trailers.
    async fn collect(
        rsp: http::Response<tonic::body::Body>,
    ) -> (http::HeaderMap, Vec<u8>, Option<http::HeaderMap>) {
        let (parts, mut body) = rsp.into_parts();
        let mut data = Vec::new();
        let mut trailers = None;
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            match frame.expect("frame").into_data() {
                Ok(d) => data.extend_from_slice(&d),
                Err(f) => trailers = f.into_trailers().ok(),
            }
        }
        (parts.headers, data, trailers)
    }

    /// A new service's answer to RunFunction with these DATA frames.
    async fn answer(
        encoding: Option<&str>,
        chunks: Vec<Vec<u8>>,
        max: Option<usize>,
    ) -> (http::HeaderMap, Vec<u8>, Option<http::HeaderMap>) {
        let mut service = RunFunctionService::new(HclFunction::standard(), max);
        let rsp = service
            .call(run_function_request(encoding, chunks))
            .await
            .expect("infallible");
        collect(rsp).await
    }

    fn status_of(headers: &http::HeaderMap) -> Option<(&str, &str)> {
        Some((
            headers.get("grpc-status")?.to_str().ok()?,
            headers
                .get("grpc-message")
                .and_then(|v| v.to_str().ok())
                .unwrap_or(""),
        ))
    }

    #[tokio::test]
    async fn run_function_answers_with_the_function_s_response() {
        use prost::Message as _;
        // No input: a Fatal result, the tag echoed.
        let request = function_sdk_rust::proto::v1::RunFunctionRequest {
            meta: Some(function_sdk_rust::proto::v1::RequestMeta {
                tag: "t".to_owned(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let expected = crate::standard_function().run(&request);
        let framed = grpc_message(0, &request.encode_to_vec());
        // One DATA frame, or the message cut anywhere across two.
        for cut in [framed.len(), 1, 5, 6, framed.len() / 2] {
            let chunks = vec![framed[..cut].to_vec(), framed[cut..].to_vec()];
            let (headers, data, trailers) = answer(None, chunks, None).await;
            assert_eq!(
                headers.get("content-type").map(|v| v.as_bytes()),
                Some(b"application/grpc".as_slice())
            );
            let got = RunFunctionResponse::decode(&data[5..]).expect("a response");
            assert_eq!(got, expected, "cut at {cut}");
            assert_eq!(status_of(&trailers.expect("trailers")), Some(("0", "")));
        }
    }

    #[tokio::test]
    async fn a_request_prost_refuses_is_a_fatal_result_naming_the_problem() {
        use prost::Message as _;
        // Field 1 (meta) as a varint: the wrong wire type.
        let chunks = vec![grpc_message(0, &[0x08, 0x01])];
        let (_, data, trailers) = answer(None, chunks, None).await;
        assert_eq!(status_of(&trailers.expect("trailers")), Some(("0", "")));
        let got = RunFunctionResponse::decode(&data[5..]).expect("a response");
        assert_eq!(got.results.len(), 1, "{got:?}");
        let result = &got.results[0];
        assert_eq!(
            result.severity,
            function_sdk_rust::proto::v1::Severity::Fatal as i32
        );
        assert!(
            result
                .message
                .starts_with("invalid request: failed to decode"),
            "{}",
            result.message
        );
    }

    #[tokio::test]
    async fn requests_nested_deeper_than_prost_s_default_limit_are_answered() {
        use prost::Message as _;
        let fatal = |data: &[u8]| {
            let got = RunFunctionResponse::decode(&data[5..]).expect("a response");
            assert_eq!(got.results.len(), 1, "{got:?}");
            got.results[0].message.clone()
        };
        // 250 object levels (753 nested messages, past the 100 of prost's
        // default): read, then refused by the conversion's limit, since
        // the program reads the whole composite.
        let mut s = pbjson_types::Struct::default();
        for _ in 0..250 {
            let mut outer = pbjson_types::Struct::default();
            outer.fields.insert(
                "a".to_owned(),
                pbjson_types::Value {
                    kind: Some(pbjson_types::value::Kind::StructValue(s)),
                },
            );
            s = outer;
        }
        let program = "resource r {\n  body = { apiVersion = \"v1\", kind = \"ConfigMap\", data = { n = length(req.composite) } }\n}\n";
        let request = function_sdk_rust::proto::v1::RunFunctionRequest {
            observed: Some(function_sdk_rust::proto::v1::State {
                composite: Some(function_sdk_rust::proto::v1::Resource {
                    resource: Some(s),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            input: fnhcl_crossplane::convert::json_to_struct(&serde_json::json!({
                "apiVersion": "hcl.fn.crossplane.io/v1beta1",
                "kind": "HclInput",
                "hcl": program,
            })),
            ..Default::default()
        };
        let (_, data, _) =
            answer(None, vec![grpc_message(0, &request.encode_to_vec())], None).await;
        let message = fatal(&data);
        assert!(
            message.contains("nested deeper than the limit of 200 levels"),
            "{message}"
        );
        // Deeper than Go's protobuf reads (groups of an unknown field):
        // refused before prost reads it.
        let mut bytes = vec![0x0b; 10_001];
        bytes.extend(std::iter::repeat_n(0x0c, 10_001));
        let (_, data, _) = answer(None, vec![grpc_message(0, &bytes)], None).await;
        assert_eq!(
            fatal(&data),
            "invalid request: failed to decode Protobuf message: messages are nested deeper than 10000 levels"
        );
    }

    #[tokio::test]
    async fn large_requests_are_decoded_on_a_pool_thread_with_the_same_answers() {
        use prost::Message as _;
        // Over the inline bound: handed over as bytes.
        let request = function_sdk_rust::proto::v1::RunFunctionRequest {
            meta: Some(function_sdk_rust::proto::v1::RequestMeta {
                tag: "x".repeat(300 << 10),
                ..Default::default()
            }),
            ..Default::default()
        };
        let bytes = request.encode_to_vec();
        assert!(bytes.len() > crate::lanes::SMALL_REQUEST_BYTES);
        let expected = crate::standard_function().run(&request);
        let (_, data, trailers) = answer(None, vec![grpc_message(0, &bytes)], None).await;
        assert_eq!(status_of(&trailers.expect("trailers")), Some(("0", "")));
        let got = RunFunctionResponse::decode(&data[5..]).expect("a response");
        assert_eq!(got, expected);
        // Bytes prost refuses, large (the same request with groups of an
        // unknown field nested too deep): the same Fatal result as small
        // ones.
        let mut padded = bytes;
        padded.extend(std::iter::repeat_n(0x0b, 10_001));
        padded.extend(std::iter::repeat_n(0x0c, 10_001));
        let (_, data, _) = answer(None, vec![grpc_message(0, &padded)], None).await;
        let got = RunFunctionResponse::decode(&data[5..]).expect("a response");
        assert_eq!(
            got.results.first().map(|r| r.message.as_str()),
            Some(
                "invalid request: failed to decode Protobuf message: messages are nested deeper than 10000 levels"
            )
        );
    }

    #[tokio::test]
    async fn request_bytes_in_flight_are_bounded_and_given_back() {
        use prost::Message as _;
        let mut service = RunFunctionService::new(HclFunction::standard(), None)
            .with_request_bytes_in_flight(1_000);
        let in_flight = service.in_flight.clone();
        let request = |tag: usize| {
            function_sdk_rust::proto::v1::RunFunctionRequest {
                meta: Some(function_sdk_rust::proto::v1::RequestMeta {
                    tag: "t".repeat(tag),
                    ..Default::default()
                }),
                ..Default::default()
            }
            .encode_to_vec()
        };
        // Over the bound: refused with a Fatal result, and nothing stays
        // counted.
        let rsp = service
            .call(run_function_request(
                None,
                vec![grpc_message(0, &request(2_000))],
            ))
            .await
            .expect("infallible");
        let (_, data, trailers) = collect(rsp).await;
        assert_eq!(status_of(&trailers.expect("trailers")), Some(("0", "")));
        let got = RunFunctionResponse::decode(&data[5..]).expect("a response");
        assert_eq!(got.results.len(), 1, "{got:?}");
        assert_eq!(
            got.results[0].severity,
            function_sdk_rust::proto::v1::Severity::Fatal as i32
        );
        assert_eq!(
            got.results[0].message,
            "the server holds 1000 bytes of requests in progress, its limit (--max-request-bytes-in-flight): try again"
        );
        assert_eq!(in_flight.used(), 0);
        // Within it: answered, and given back.
        let rsp = service
            .call(run_function_request(
                None,
                vec![grpc_message(0, &request(100))],
            ))
            .await
            .expect("infallible");
        let (_, data, trailers) = collect(rsp).await;
        assert_eq!(status_of(&trailers.expect("trailers")), Some(("0", "")));
        assert!(RunFunctionResponse::decode(&data[5..]).is_ok());
        assert_eq!(in_flight.used(), 0);
    }

    #[tokio::test]
    async fn run_function_refuses_what_tonic_refused_with_its_statuses() {
        let cases: Vec<(Option<&str>, Vec<Vec<u8>>, Option<usize>, &str, &str)> = vec![
            (
                Some("gzip"),
                vec![grpc_message(0, b"")],
                None,
                "12",
                "Content is compressed with `gzip` which isn't supported",
            ),
            (
                None,
                vec![grpc_message(1, b"x")],
                None,
                "13",
                "protocol error: received message with compressed-flag but no grpc-encoding was specified",
            ),
            (
                None,
                vec![grpc_message(0, &[0; 100])],
                Some(99),
                "11",
                "Error, decoded message length too large: found 100 bytes, the limit is: 99 bytes",
            ),
            (None, vec![], None, "13", "Missing request message."),
            (
                None,
                vec![grpc_message(0, b"abc")[..6].to_vec()],
                None,
                "13",
                "Unexpected EOF decoding stream.",
            ),
        ];
        for (encoding, chunks, max, code, message) in cases {
            let (headers, data, _) = answer(encoding, chunks, max).await;
            assert!(data.is_empty());
            let status = status_of(&headers).expect("a trailers-only response");
            assert_eq!(status.0, code, "{message}");
            // grpc-message is percent-encoded: compare the decoded text.
            let decoded = Status::from_header_map(&headers).expect("status");
            assert_eq!(decoded.message(), message);
        }
    }

    #[tokio::test]
    async fn other_methods_of_the_service_are_unimplemented() {
        let mut service = RunFunctionService::new(HclFunction::standard(), None);
        let req = http::Request::builder()
            .uri("/apiextensions.fn.proto.v1.FunctionRunnerService/Other")
            .body(tonic::body::Body::empty())
            .expect("request");
        let rsp = service.call(req).await.expect("infallible");
        assert_eq!(
            rsp.headers().get("grpc-status").map(|v| v.as_bytes()),
            Some(b"12".as_slice()),
            "{:?}",
            rsp.headers()
        );
    }
}
