//! `--bare-server [--split-frames]`: the function behind a bare tonic
//! server (no SDK layers: no metrics, health, reflection, readiness gate),
//! to measure what function-sdk-rust's `Server` adds per call; with
//! `--split-frames`, small responses go out as DATA frames under h2's
//! chain threshold, so that a call's response leaves in one `writev`
//! instead of two (see docs/notes/function-server.md, "What a call
//! costs").
//!
//! Why the split matters: h2 (0.4) copies a DATA payload shorter than 256
//! bytes into its write buffer but "chains" a longer one (written from
//! the caller's buffer by the next flush); a frame buffered after a
//! chained one needs that flush first. A unary gRPC response is HEADERS,
//! one DATA frame holding the whole message and a trailers HEADERS frame,
//! so every response over 256 bytes costs two `writev`s (two loopback TCP
//! segments, two wake-ups of the client) where one would do.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use fnhcl_crossplane::proto::function_runner_service_server::FunctionRunnerServiceServer;

/// h2's chain threshold is 256 bytes: shorter payloads are copied.
const CHUNK: usize = 255;
/// Responses up to this size are split (16 frames at most); bigger ones
/// pay the second write once against many more bytes.
const SPLIT_UP_TO: usize = 4096;

/// Serves `HclFunction::standard()` at `address` until SIGINT/SIGTERM.
pub(crate) async fn serve(address: &str, split: bool) -> Result<(), String> {
    let address: std::net::SocketAddr = address.parse().map_err(|e| format!("{e}"))?;
    let function = fnhcl_server::HclFunction::standard();
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let mut builder = tonic::transport::Server::builder();
    let served = if split {
        builder
            .layer(SplitLayer)
            .add_service(FunctionRunnerServiceServer::new(function))
            .serve_with_shutdown(address, shutdown)
            .await
    } else {
        builder
            .add_service(FunctionRunnerServiceServer::new(function))
            .serve_with_shutdown(address, shutdown)
            .await
    };
    served.map_err(|e| e.to_string())
}

/// Wraps each response body in a [`SplitBody`].
#[derive(Clone, Copy)]
struct SplitLayer;

impl<S> tower_layer::Layer<S> for SplitLayer {
    type Service = Split<S>;
    fn layer(&self, inner: S) -> Split<S> {
        Split { inner }
    }
}

#[derive(Clone)]
struct Split<S> {
    inner: S,
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

impl<S, B> tower_service::Service<http::Request<B>> for Split<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<SplitBody>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let response = self.inner.call(req);
        Box::pin(async move {
            Ok(response.await?.map(|inner| SplitBody {
                inner,
                rest: Bytes::new(),
            }))
        })
    }
}

/// A response body whose DATA frames of at most [`SPLIT_UP_TO`] bytes are
/// cut into [`CHUNK`]-byte pieces (`Bytes::split_to`: no copy).
struct SplitBody {
    inner: tonic::body::Body,
    rest: Bytes,
}

impl http_body::Body for SplitBody {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, tonic::Status>>> {
        let this = self.get_mut();
        if !this.rest.is_empty() {
            let n = this.rest.len().min(CHUNK);
            return Poll::Ready(Some(Ok(http_body::Frame::data(this.rest.split_to(n)))));
        }
        match std::task::ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(mut data) if data.remaining() > CHUNK && data.remaining() <= SPLIT_UP_TO => {
                    let first = data.split_to(CHUNK);
                    this.rest = data;
                    Poll::Ready(Some(Ok(http_body::Frame::data(first))))
                }
                Ok(data) => Poll::Ready(Some(Ok(http_body::Frame::data(data)))),
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => Poll::Ready(other),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }
}
