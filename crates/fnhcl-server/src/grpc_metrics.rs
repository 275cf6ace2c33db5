//! The `grpc_server_*` series Crossplane's Go function SDK serves (from the
//! grpc-prometheus interceptor it installs), with its names, labels and
//! help texts, so that dashboards work across Go and Rust functions:
//! `grpc_server_started_total`, `grpc_server_handled_total`,
//! `grpc_server_msg_received_total`, `grpc_server_msg_sent_total`.
//!
//! As there, only unary methods are counted (RunFunction and the health
//! Check; the streaming ones, health Watch and reflection, are present as
//! series that stay zero), every series of every method starts at zero
//! (its InitializeMetrics), and there is no handling-time histogram.
//!
//! Every counter a call can touch is looked up once, when the server
//! starts: counting a call is a few atomic increments, where a lookup by
//! labels builds and hashes a vector of label strings.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;

pub(crate) const FUNCTION_SERVICE: &str = "apiextensions.fn.proto.v1.FunctionRunnerService";
const HEALTH_SERVICE: &str = "grpc.health.v1.Health";

/// The gRPC status code names by wire value, as grpc-go's `codes` package
/// spells them (the `grpc_code` label's values).
const CODE_NAMES: [&str; 17] = [
    "OK",
    "Canceled",
    "Unknown",
    "InvalidArgument",
    "DeadlineExceeded",
    "NotFound",
    "AlreadyExists",
    "PermissionDenied",
    "ResourceExhausted",
    "FailedPrecondition",
    "Aborted",
    "OutOfRange",
    "Unimplemented",
    "Internal",
    "Unavailable",
    "DataLoss",
    "Unauthenticated",
];

/// `Canceled`: a call whose response was dropped before its status.
pub(crate) const CANCELED: u32 = 1;
/// `Unknown`: a response without a readable status.
pub(crate) const UNKNOWN: u32 = 2;

/// Every method of the services the server carries: (type, service,
/// method). The unary ones come first, in [`Method`]'s order.
const METHODS: [(&str, &str, &str); 5] = [
    ("unary", FUNCTION_SERVICE, "RunFunction"),
    ("unary", HEALTH_SERVICE, "Check"),
    ("server_stream", HEALTH_SERVICE, "Watch"),
    (
        "bidi_stream",
        "grpc.reflection.v1.ServerReflection",
        "ServerReflectionInfo",
    ),
    (
        "bidi_stream",
        "grpc.reflection.v1alpha.ServerReflection",
        "ServerReflectionInfo",
    ),
];

/// A counted (unary) method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    RunFunction = 0,
    Check = 1,
}

impl Method {
    /// The counted method a request path names.
    pub(crate) fn of_path(path: &str) -> Option<Method> {
        match path {
            "/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction" => {
                Some(Method::RunFunction)
            }
            "/grpc.health.v1.Health/Check" => Some(Method::Check),
            _ => None,
        }
    }
}

/// One counted method's series.
struct Series {
    started: Counter,
    received: Counter,
    sent: Counter,
    /// By status code.
    handled: [Counter; 17],
}

/// The four families and, for the counted methods, their series.
pub(crate) struct GrpcMetrics {
    methods: [Series; 2],
}

fn labels(values: &[&str], keys: &[&str]) -> Labels {
    keys.iter()
        .zip(values)
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

const METHOD_KEYS: [&str; 3] = ["grpc_type", "grpc_service", "grpc_method"];
const HANDLED_KEYS: [&str; 4] = ["grpc_type", "grpc_service", "grpc_method", "grpc_code"];

impl GrpcMetrics {
    /// Creates every series at zero and registers the families in
    /// `registry` (after whatever it holds, as the Go SDK adds them to the
    /// function's registry).
    pub(crate) fn register(registry: &mut Registry) -> GrpcMetrics {
        let started = Family::<Labels, Counter>::default();
        let handled = Family::<Labels, Counter>::default();
        let received = Family::<Labels, Counter>::default();
        let sent = Family::<Labels, Counter>::default();
        let get = |family: &Family<Labels, Counter>, values: &[&str], keys: &[&str]| {
            family.get_or_create(&labels(values, keys)).clone()
        };
        let series = |(kind, service, method): (&str, &str, &str)| {
            let m = [kind, service, method];
            Series {
                started: get(&started, &m, &METHOD_KEYS),
                received: get(&received, &m, &METHOD_KEYS),
                sent: get(&sent, &m, &METHOD_KEYS),
                handled: CODE_NAMES
                    .map(|code| get(&handled, &[kind, service, method, code], &HANDLED_KEYS)),
            }
        };
        // The streaming methods' series exist (at zero) and stay zero.
        for m in &METHODS[2..] {
            let _ = series(*m);
        }
        let methods = [series(METHODS[0]), series(METHODS[1])];
        // The OpenMetrics encoder appends `_total` to a counter's name and
        // a period to its help: registered without them, the text is the
        // Go SDK's.
        registry.register(
            "grpc_server_started",
            "Total number of RPCs started on the server",
            started,
        );
        registry.register(
            "grpc_server_handled",
            "Total number of RPCs completed on the server, regardless of success or failure",
            handled,
        );
        registry.register(
            "grpc_server_msg_received",
            "Total number of RPC stream messages received on the server",
            received,
        );
        registry.register(
            "grpc_server_msg_sent",
            "Total number of gRPC stream messages sent by the server",
            sent,
        );
        GrpcMetrics { methods }
    }

    fn series(&self, method: Method) -> &Series {
        &self.methods[method as usize]
    }

    /// A call of `method` has started (and its one message arrived).
    pub(crate) fn start(&self, method: Method) {
        let s = self.series(method);
        s.started.inc();
        s.received.inc();
    }

    /// A call of `method` ended with status `code` (and sent its message
    /// when OK).
    pub(crate) fn finish(&self, method: Method, code: u32) {
        let s = self.series(method);
        let code = if (code as usize) < CODE_NAMES.len() {
            code
        } else {
            UNKNOWN
        };
        s.handled[code as usize].inc();
        if code == 0 {
            s.sent.inc();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(registry: &Registry) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, registry).expect("encode");
        out
    }

    #[test]
    fn series_have_the_go_sdk_names_help_and_zero_values() {
        let mut registry = Registry::default();
        let _m = GrpcMetrics::register(&mut registry);
        let text = text(&registry);
        for line in [
            "# HELP grpc_server_started Total number of RPCs started on the server.",
            "# TYPE grpc_server_started counter",
            "# HELP grpc_server_handled Total number of RPCs completed on the server, regardless of success or failure.",
            "# HELP grpc_server_msg_received Total number of RPC stream messages received on the server.",
            "# HELP grpc_server_msg_sent Total number of gRPC stream messages sent by the server.",
            "grpc_server_started_total{grpc_type=\"unary\",grpc_service=\"apiextensions.fn.proto.v1.FunctionRunnerService\",grpc_method=\"RunFunction\"} 0",
            "grpc_server_handled_total{grpc_type=\"unary\",grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Check\",grpc_code=\"Unauthenticated\"} 0",
            "grpc_server_msg_sent_total{grpc_type=\"server_stream\",grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Watch\"} 0",
            "grpc_server_msg_received_total{grpc_type=\"bidi_stream\",grpc_service=\"grpc.reflection.v1alpha.ServerReflection\",grpc_method=\"ServerReflectionInfo\"} 0",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        // 5 methods x (started, received, sent, 17 codes).
        let samples = text
            .lines()
            .filter(|l| l.starts_with("grpc_server_"))
            .count();
        assert_eq!(samples, 5 * (3 + 17), "{text}");
    }

    #[test]
    fn calls_count_in_their_method_and_code() {
        let mut registry = Registry::default();
        let m = GrpcMetrics::register(&mut registry);
        m.start(Method::RunFunction);
        m.finish(Method::RunFunction, 0);
        m.start(Method::RunFunction);
        m.finish(Method::RunFunction, 3);
        m.start(Method::Check);
        m.finish(Method::Check, 99);
        let text = text(&registry);
        let run = "grpc_type=\"unary\",grpc_service=\"apiextensions.fn.proto.v1.FunctionRunnerService\",grpc_method=\"RunFunction\"";
        let check =
            "grpc_type=\"unary\",grpc_service=\"grpc.health.v1.Health\",grpc_method=\"Check\"";
        for line in [
            format!("grpc_server_started_total{{{run}}} 2"),
            format!("grpc_server_msg_received_total{{{run}}} 2"),
            format!("grpc_server_msg_sent_total{{{run}}} 1"),
            format!("grpc_server_handled_total{{{run},grpc_code=\"OK\"}} 1"),
            format!("grpc_server_handled_total{{{run},grpc_code=\"InvalidArgument\"}} 1"),
            format!("grpc_server_handled_total{{{check},grpc_code=\"Unknown\"}} 1"),
            format!("grpc_server_msg_sent_total{{{check}}} 0"),
        ] {
            assert!(text.contains(&line), "missing {line:?} in\n{text}");
        }
    }

    #[test]
    fn only_unary_methods_are_counted() {
        assert_eq!(
            Method::of_path("/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction"),
            Some(Method::RunFunction)
        );
        assert_eq!(
            Method::of_path("/grpc.health.v1.Health/Check"),
            Some(Method::Check)
        );
        assert_eq!(Method::of_path("/grpc.health.v1.Health/Watch"), None);
        assert_eq!(
            Method::of_path("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"),
            None
        );
    }
}
