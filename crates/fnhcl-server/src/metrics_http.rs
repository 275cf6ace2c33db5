//! The `/metrics` endpoint at `--metrics-address` (the Go SDK's `:8080`
//! by default; empty serves nothing): a plain HTTP/1 listener beside the
//! gRPC server, answering `GET /metrics` with the registry as OpenMetrics
//! 1.0 text, or as the classic Prometheus text format when the request's
//! `Accept` header asks for `text/plain` and not for OpenMetrics. Any other
//! path is a 404. One request per connection.

use std::sync::Arc;
use std::time::Duration;

use prometheus_client::registry::Registry;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
const CLASSIC: &str = "text/plain; version=0.0.4";
/// Most bytes of a request head read.
const HEAD_LIMIT: usize = 8192;
/// A client that sends no complete request head in this time is dropped.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// The registry as OpenMetrics text.
pub(crate) fn openmetrics(registry: &Registry) -> String {
    let mut out = String::new();
    // Writing into a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut out, registry);
    out
}

/// The classic text format from the OpenMetrics text: the samples are the
/// same; a counter's HELP and TYPE lines name it with its `_total` suffix
/// (OpenMetrics names the family without it), and there is no `# EOF`.
pub(crate) fn classic(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE ")?.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len() + 64);
    for line in openmetrics.lines() {
        if line == "# EOF" {
            continue;
        }
        let renamed = ["# HELP ", "# TYPE "].iter().find_map(|prefix| {
            let rest = line.strip_prefix(prefix)?;
            let (name, tail) = rest.split_once(' ')?;
            counters
                .contains(name)
                .then(|| format!("{prefix}{name}_total {tail}"))
        });
        match renamed {
            Some(l) => out.push_str(&l),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Whether a request head asks for the classic format: an `Accept` header
/// naming `text/plain` and not OpenMetrics. No header, `*/*` or any
/// mention of OpenMetrics gets OpenMetrics.
pub(crate) fn wants_classic(head: &str) -> bool {
    head.lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("accept"))
        .is_some_and(|(_, value)| {
            value.contains("text/plain") && !value.contains("application/openmetrics-text")
        })
}

/// The HTTP response to a request head.
pub(crate) fn respond(head: &str, registry: &Registry) -> String {
    let path = head.split_whitespace().nth(1).unwrap_or_default();
    if path != "/metrics" {
        return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into();
    }
    let text = openmetrics(registry);
    let (body, content_type) = if wants_classic(head) {
        (classic(&text), CLASSIC)
    } else {
        (text, OPENMETRICS)
    };
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Reads a request head (up to the blank line, [`HEAD_LIMIT`] bytes, the
/// end of the stream or [`READ_TIMEOUT`], whichever comes first).
async fn read_head(conn: &mut tokio::net::TcpStream) -> String {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    let reading = async {
        while buf.len() < HEAD_LIMIT && !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    };
    let _ = tokio::time::timeout(READ_TIMEOUT, reading).await;
    String::from_utf8_lossy(&buf).into_owned()
}

/// Binds `address` (`:PORT` means every interface, as in Go) and serves
/// the registry until the process ends.
pub(crate) async fn serve(address: &str, registry: Arc<Registry>) -> std::io::Result<()> {
    let address = match address.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => address.to_owned(),
    };
    let listener = tokio::net::TcpListener::bind(&address).await?;
    tracing::info!(address = %address, "serving metrics");
    loop {
        let Ok((mut conn, _)) = listener.accept().await else {
            continue;
        };
        let registry = registry.clone();
        tokio::spawn(async move {
            let head = read_head(&mut conn).await;
            let response = respond(&head, &registry);
            let _ = conn.write_all(response.as_bytes()).await;
            let _ = conn.shutdown().await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::metrics::counter::Counter;
    use prometheus_client::metrics::gauge::Gauge;

    fn registry() -> Registry {
        let mut r = Registry::default();
        let c = Counter::<u64>::default();
        c.inc();
        r.register("things", "Things seen", c);
        r.register("level", "A level", Gauge::<i64>::default());
        r
    }

    #[test]
    fn openmetrics_unless_the_client_asks_for_classic_text_only() {
        assert!(!wants_classic("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
        assert!(!wants_classic(
            "GET /metrics HTTP/1.1\r\nAccept: */*\r\n\r\n"
        ));
        assert!(!wants_classic(
            "GET /metrics HTTP/1.1\r\naccept: application/openmetrics-text;version=1.0.0;q=0.9,text/plain;version=0.0.4;q=0.5\r\n\r\n"
        ));
        assert!(wants_classic(
            "GET /metrics HTTP/1.1\r\nACCEPT: text/plain; version=0.0.4\r\n\r\n"
        ));
    }

    #[test]
    fn the_two_formats_differ_only_in_counter_names_and_eof() {
        let om = openmetrics(&registry());
        assert!(om.contains("# HELP things Things seen.\n"), "{om}");
        assert!(om.contains("# TYPE things counter\n"), "{om}");
        assert!(om.contains("things_total 1\n"), "{om}");
        assert!(om.ends_with("# EOF\n"), "{om}");
        let text = classic(&om);
        assert!(
            text.contains("# HELP things_total Things seen.\n"),
            "{text}"
        );
        assert!(text.contains("# TYPE things_total counter\n"), "{text}");
        assert!(text.contains("things_total 1\n"), "{text}");
        assert!(text.contains("# TYPE level gauge\n"), "{text}");
        assert!(!text.contains("# EOF"), "{text}");
    }

    #[test]
    fn responses_name_their_format_and_length() {
        let r = registry();
        let om = respond("GET /metrics HTTP/1.1\r\n\r\n", &r);
        assert!(om.starts_with("HTTP/1.1 200 OK\r\nContent-Type: application/openmetrics-text; version=1.0.0; charset=utf-8\r\n"), "{om}");
        let (head, body) = om.split_once("\r\n\r\n").expect("head");
        assert!(
            head.contains(&format!("Content-Length: {}", body.len())),
            "{om}"
        );
        let text = respond("GET /metrics HTTP/1.1\r\nAccept: text/plain\r\n\r\n", &r);
        assert!(
            text.contains("Content-Type: text/plain; version=0.0.4\r\n"),
            "{text}"
        );
        let missing = respond("GET / HTTP/1.1\r\n\r\n", &r);
        assert!(
            missing.starts_with("HTTP/1.1 404 Not Found\r\n"),
            "{missing}"
        );
    }
}
