//! The tower layer around every call the gRPC server routes: counts the
//! unary calls in the `grpc_server_*` series ([`crate::grpc_metrics`]),
//! hands RunFunction calls to [`RunFunctionService`] itself (not through
//! tonic's router: axum's path match, the per-call clone of the boxed route
//! and the request and response bodies boxed twice more on the way cost
//! more than the call's own handling; every other path, RunFunction's
//! service's other methods included, is routed as before) and cuts a small
//! response's message into DATA frames short enough for h2 to copy, so
//! that the whole response leaves in one write.
//!
//! Why the cut: h2 (0.4) copies a DATA payload shorter than 256 bytes into
//! its write buffer but "chains" a longer one (writes it from the caller's
//! buffer at the next flush), and a frame queued after a chained one waits
//! for that flush. A unary gRPC response is HEADERS, one DATA frame with the
//! whole message and a trailers HEADERS frame: every response over 256
//! bytes left in two `writev`s (two loopback segments, two wake-ups of the
//! client), the second carrying only the trailers. Cut into 255-byte
//! frames (no copy: `Bytes::split_to`), all of it leaves in one. Responses
//! over [`CUT_UP_TO`] are sent as they are: 16 frame headers more than the
//! one write saves would not pay, and the second write is then small
//! against the rest.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes};
use http_body::{Body, Frame, SizeHint};

use crate::grpc_metrics::{CANCELED, GrpcMetrics, Method, UNKNOWN};
use crate::server::{RUN_FUNCTION, RunFunctionService};

/// Longest DATA payload h2 copies into its buffer (it chains 256 bytes or
/// more).
pub(crate) const FRAME: usize = 255;
/// Messages up to this size are cut into [`FRAME`]-byte frames.
pub(crate) const CUT_UP_TO: usize = 4096;

/// Wraps the router: see the module documentation.
#[derive(Clone)]
pub(crate) struct CallLayer {
    metrics: Arc<GrpcMetrics>,
    run_function: RunFunctionService,
}

impl CallLayer {
    /// Counts calls in `metrics`; RunFunction calls go to `run_function`.
    pub(crate) fn new(metrics: Arc<GrpcMetrics>, run_function: RunFunctionService) -> CallLayer {
        CallLayer {
            metrics,
            run_function,
        }
    }
}

impl<S> tower_layer::Layer<S> for CallLayer {
    type Service = Calls<S>;

    fn layer(&self, inner: S) -> Calls<S> {
        Calls {
            inner,
            metrics: self.metrics.clone(),
            run_function: self.run_function.clone(),
        }
    }
}

/// The service [`CallLayer`] makes.
#[derive(Clone)]
pub(crate) struct Calls<S> {
    inner: S,
    metrics: Arc<GrpcMetrics>,
    run_function: RunFunctionService,
}

/// A call's response on its way: from RunFunction's service directly, or
/// from the router.
enum Pending<F> {
    Direct(
        <RunFunctionService as tower_service::Service<http::Request<tonic::body::Body>>>::Future,
    ),
    Routed(F),
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send>>;

/// Reads a numeric `grpc-status` header.
fn status_in(headers: &http::HeaderMap) -> Option<u32> {
    headers.get("grpc-status")?.to_str().ok()?.parse().ok()
}

impl<S> tower_service::Service<http::Request<tonic::body::Body>> for Calls<S>
where
    S: tower_service::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
        >,
    S::Future: Send + 'static,
{
    type Response = http::Response<CallBody>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        let report = Method::of_path(req.uri().path()).map(|method| {
            self.metrics.start(method);
            Report {
                metrics: self.metrics.clone(),
                method,
                done: false,
            }
        });
        let pending = if req.uri().path() == RUN_FUNCTION {
            Pending::Direct(self.run_function.call(req))
        } else {
            Pending::Routed(self.inner.call(req))
        };
        Box::pin(async move {
            let mut report = report;
            let response = match pending {
                Pending::Direct(f) => match f.await {
                    Ok(response) => response,
                    Err(never) => match never {},
                },
                Pending::Routed(f) => f.await?,
            };
            let (parts, inner) = response.into_parts();
            // A trailers-only response (an error status, a refusal)
            // carries its status in the headers.
            if let Some(code) = status_in(&parts.headers)
                && let Some(r) = report.as_mut()
            {
                r.finish(code);
            }
            let body = CallBody {
                inner,
                rest: Bytes::new(),
                report,
            };
            Ok(http::Response::from_parts(parts, body))
        })
    }
}

/// One counted call's status, reported once: when the trailers (or a
/// trailers-only response) give it, as Unknown when the body fails or ends
/// without one, as Canceled when the response is dropped first (the caller
/// went away).
struct Report {
    metrics: Arc<GrpcMetrics>,
    method: Method,
    done: bool,
}

impl Report {
    fn finish(&mut self, code: u32) {
        if !self.done {
            self.done = true;
            self.metrics.finish(self.method, code);
        }
    }
}

impl Drop for Report {
    fn drop(&mut self) {
        self.finish(CANCELED);
    }
}

/// A response body: small messages cut into [`FRAME`]-byte DATA frames, the
/// call's status reported when it passes.
pub(crate) struct CallBody {
    inner: tonic::body::Body,
    /// What is left of a message being cut.
    rest: Bytes,
    report: Option<Report>,
}

impl CallBody {
    #[cfg(test)]
    fn new(inner: tonic::body::Body) -> CallBody {
        CallBody {
            inner,
            rest: Bytes::new(),
            report: None,
        }
    }

    fn finish(&mut self, code: u32) {
        if let Some(r) = self.report.as_mut() {
            r.finish(code);
        }
    }
}

impl Body for CallBody {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        let this = self.get_mut();
        if !this.rest.is_empty() {
            let n = this.rest.len().min(FRAME);
            return Poll::Ready(Some(Ok(Frame::data(this.rest.split_to(n)))));
        }
        let frame = match std::task::ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => frame,
            Some(Err(e)) => {
                this.finish(UNKNOWN);
                return Poll::Ready(Some(Err(e)));
            }
            None => {
                // Out of spec: a stream that ends without a status.
                this.finish(UNKNOWN);
                return Poll::Ready(None);
            }
        };
        match frame.into_data() {
            Ok(mut data) if data.remaining() > FRAME && data.remaining() <= CUT_UP_TO => {
                let first = data.split_to(FRAME);
                this.rest = data;
                Poll::Ready(Some(Ok(Frame::data(first))))
            }
            Ok(data) => Poll::Ready(Some(Ok(Frame::data(data)))),
            Err(frame) => {
                if let Some(trailers) = frame.trailers_ref() {
                    this.finish(status_in(trailers).unwrap_or(UNKNOWN));
                }
                Poll::Ready(Some(Ok(frame)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.rest.is_empty() && self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        let inner = self.inner.size_hint();
        let rest = self.rest.len() as u64;
        let mut hint = SizeHint::new();
        hint.set_lower(inner.lower().saturating_add(rest));
        if let Some(upper) = inner.upper() {
            hint.set_upper(upper.saturating_add(rest));
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A body that yields the given frames.
    struct Frames(VecDeque<Frame<Bytes>>);

    impl Body for Frames {
        type Data = Bytes;
        type Error = tonic::Status;

        fn poll_frame(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
            Poll::Ready(self.get_mut().0.pop_front().map(Ok))
        }
    }

    /// A body of one DATA frame of `n` bytes, then trailers.
    fn unary_body(n: usize) -> tonic::body::Body {
        let data: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
        let mut trailers = http::HeaderMap::new();
        trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
        tonic::body::Body::new(Frames(VecDeque::from([
            Frame::data(Bytes::from(data)),
            Frame::trailers(trailers),
        ])))
    }

    async fn frames(body: CallBody) -> (Vec<usize>, Vec<u8>, bool) {
        let mut body = body;
        let mut sizes = Vec::new();
        let mut bytes = Vec::new();
        let mut trailers = false;
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame = frame.expect("frame");
            match frame.into_data() {
                Ok(d) => {
                    sizes.push(d.len());
                    bytes.extend_from_slice(&d);
                }
                Err(f) => trailers |= f.is_trailers(),
            }
        }
        (sizes, bytes, trailers)
    }

    #[tokio::test]
    async fn small_messages_are_cut_under_the_chain_threshold() {
        for n in [0, 1, FRAME, FRAME + 1, 1000, CUT_UP_TO] {
            let (sizes, bytes, trailers) = frames(CallBody::new(unary_body(n))).await;
            let expected: Vec<u8> = (0..n).map(|i| (i % 251) as u8).collect();
            assert_eq!(bytes, expected, "{n} bytes come through in order");
            assert!(trailers, "{n}: trailers follow");
            assert!(sizes.iter().all(|s| *s <= FRAME), "{n}: {sizes:?}");
            assert_eq!(sizes.len(), n.div_ceil(FRAME).max(1), "{n}: {sizes:?}");
        }
    }

    #[tokio::test]
    async fn big_messages_go_whole() {
        let n = CUT_UP_TO + 1;
        let (sizes, bytes, trailers) = frames(CallBody::new(unary_body(n))).await;
        assert_eq!(sizes, vec![n]);
        assert_eq!(bytes.len(), n);
        assert!(trailers);
    }
}
