//! The function's own Prometheus series, served beside the SDK's
//! `grpc_server_*` ones at `--metrics-address`.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;

/// Counters and timings of function runs.
pub struct Metrics {
    runs: Family<Labels, Counter>,
    cache: Family<Labels, Counter>,
    duration: Histogram,
}

impl Metrics {
    /// Creates the series and registers them in `registry`.
    pub fn register(registry: &mut Registry) -> Metrics {
        let m = Metrics {
            runs: Family::default(),
            cache: Family::default(),
            // 100µs .. ~3.3s
            duration: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
        };
        registry.register(
            "function_hcl_runs",
            "RunFunction requests handled, by result (success or fatal)",
            m.runs.clone(),
        );
        registry.register(
            "function_hcl_program_cache_lookups",
            "Compiled-program cache lookups, by outcome (hit or miss)",
            m.cache.clone(),
        );
        registry.register(
            "function_hcl_run_duration_seconds",
            "Time to run one request: decoding, evaluation and response assembly",
            m.duration.clone(),
        );
        m
    }

    pub(crate) fn observe(&self, fatal: bool, cache_hit: Option<bool>, seconds: f64) {
        let result = if fatal { "fatal" } else { "success" };
        self.runs
            .get_or_create(&vec![("result".to_owned(), result.to_owned())])
            .inc();
        if let Some(hit) = cache_hit {
            let outcome = if hit { "hit" } else { "miss" };
            self.cache
                .get_or_create(&vec![("outcome".to_owned(), outcome.to_owned())])
                .inc();
        }
        self.duration.observe(seconds);
    }
}
