//! TEMPORARY: a bare tonic server around the function, with h2 settings
//! from the environment, to measure the SDK's per-call cost.

use std::time::Duration;

use function_sdk_rust::proto::v1::function_runner_service_server::FunctionRunnerServiceServer;

use crate::HclFunction;

fn knob(name: &str) -> Option<u32> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

pub async fn serve_bare(function: HclFunction, address: &str) -> Result<(), String> {
    let address: std::net::SocketAddr = address.parse().map_err(|e| format!("{e}"))?;
    let mut b = tonic::transport::Server::builder();
    if let Some(w) = knob("FNHCL_H2_WINDOW") {
        b = b
            .initial_stream_window_size(w)
            .initial_connection_window_size(w);
    }
    if let Some(f) = knob("FNHCL_H2_FRAME") {
        b = b.max_frame_size(f);
    }
    if knob("FNHCL_H2_NODELAY0").is_some() {
        b = b.tcp_nodelay(false);
    }
    if let Some(s) = knob("FNHCL_H2_KEEPALIVE") {
        b = b.http2_keepalive_interval(Some(Duration::from_secs(s.into())));
    }
    if knob("FNHCL_SPLIT").is_some() {
        return b
            .layer(SplitLayer)
            .add_service(FunctionRunnerServiceServer::new(function))
            .serve_with_shutdown(address, async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| e.to_string());
    }
    b.add_service(FunctionRunnerServiceServer::new(function))
        .serve_with_shutdown(address, async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};

/// Splits small responses' DATA into chunks under h2's chain threshold.
#[derive(Clone, Copy)]
pub struct SplitLayer;

impl<S> tower_layer::Layer<S> for SplitLayer {
    type Service = Split<S>;
    fn layer(&self, inner: S) -> Split<S> {
        Split { inner }
    }
}

#[derive(Clone)]
pub struct Split<S> {
    inner: S,
}

impl<S, B> tower_service::Service<http::Request<B>> for Split<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<SplitBody>;
    type Error = S::Error;
    type Future = Pin<
        Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>,
    >;
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }
    fn call(&mut self, req: http::Request<B>) -> Self::Future {
        let f = self.inner.call(req);
        Box::pin(async move {
            let rsp = f.await?;
            Ok(rsp.map(|inner| SplitBody {
                inner,
                rest: Bytes::new(),
            }))
        })
    }
}

pub struct SplitBody {
    inner: tonic::body::Body,
    rest: Bytes,
}

const CHUNK: usize = 255;
const SPLIT_UP_TO: usize = 4096;

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
                Ok(mut data) => {
                    if data.remaining() > CHUNK && data.remaining() <= SPLIT_UP_TO {
                        let first = data.split_to(CHUNK);
                        this.rest = data;
                        Poll::Ready(Some(Ok(http_body::Frame::data(first))))
                    } else {
                        Poll::Ready(Some(Ok(http_body::Frame::data(data))))
                    }
                }
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            other => Poll::Ready(other),
        }
    }
    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }
}
