//! The function's own Prometheus series, served beside the SDK's
//! `grpc_server_*` ones at `--metrics-address`.

use std::sync::Arc;

use fnhcl_crossplane::CacheStats;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::{ConstCounter, Counter};
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

type Labels = Vec<(String, String)>;

/// Counters and timings of function runs.
pub struct Metrics {
    // The four series a run can touch, looked up once: a lookup by labels
    // builds and hashes a label vector (four strings) on every call.
    success: Counter,
    fatal: Counter,
    hit: Counter,
    miss: Counter,
    duration: Histogram,
}

fn series(family: &Family<Labels, Counter>, key: &str, value: &str) -> Counter {
    family
        .get_or_create(&vec![(key.to_owned(), value.to_owned())])
        .clone()
}

impl Metrics {
    /// Creates the series and registers them in `registry`.
    pub fn register(registry: &mut Registry) -> Metrics {
        let runs = Family::<Labels, Counter>::default();
        let cache = Family::<Labels, Counter>::default();
        let m = Metrics {
            success: series(&runs, "result", "success"),
            fatal: series(&runs, "result", "fatal"),
            hit: series(&cache, "outcome", "hit"),
            miss: series(&cache, "outcome", "miss"),
            // 100µs .. ~3.3s
            duration: Histogram::new(exponential_buckets(0.0001, 2.0, 16)),
        };
        registry.register(
            "function_hcl_runs",
            "RunFunction requests handled, by result (success or fatal)",
            runs,
        );
        registry.register(
            "function_hcl_program_cache_lookups",
            "Compiled-program cache lookups, by outcome (hit or miss)",
            cache,
        );
        registry.register(
            "function_hcl_run_duration_seconds",
            "Time to run one request: decoding, evaluation and response assembly",
            m.duration.clone(),
        );
        m
    }

    pub(crate) fn observe(&self, fatal: bool, cache_hit: Option<bool>, seconds: f64) {
        if fatal { &self.fatal } else { &self.success }.inc();
        match cache_hit {
            Some(true) => {
                self.hit.inc();
            }
            Some(false) => {
                self.miss.inc();
            }
            None => {}
        }
        self.duration.observe(seconds);
    }
}

/// Reads one cache's numbers at scrape time.
pub type StatsSource = Arc<dyn Fn() -> CacheStats + Send + Sync>;

/// The caches' size, bounds and evictions, read on every scrape and
/// labelled `cache="program"` (compiled programs) or `cache="filesystem"`
/// (the `FileSystem` source's files):
/// `function_hcl_cache_entries`, `function_hcl_cache_bytes`,
/// `function_hcl_cache_max_entries`, `function_hcl_cache_max_bytes` and
/// `function_hcl_cache_evictions_total`.
pub struct CacheCollector {
    caches: Vec<(&'static str, StatsSource)>,
}

impl std::fmt::Debug for CacheCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.caches.iter().map(|(n, _)| *n).collect();
        f.debug_struct("CacheCollector")
            .field("caches", &names)
            .finish()
    }
}

impl CacheCollector {
    /// Registers a collector for `caches` (name, source) in `registry`.
    pub fn register(registry: &mut Registry, caches: Vec<(&'static str, StatsSource)>) {
        registry.register_collector(Box::new(CacheCollector { caches }));
    }
}

/// Writes one series per cache, labelled with the cache's name.
fn encode_series<M: EncodeMetric>(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    values: &[(&str, M)],
) -> Result<(), std::fmt::Error> {
    let Some((_, first)) = values.first() else {
        return Ok(());
    };
    let mut family = encoder.encode_descriptor(name, help, None, first.metric_type())?;
    for (cache, metric) in values {
        let labels = [("cache", *cache)];
        metric.encode(family.encode_family(&labels)?)?;
    }
    Ok(())
}

/// A gauge value from a size (sizes beyond `i64` cannot happen).
fn gauge(n: usize) -> ConstGauge {
    ConstGauge::new(i64::try_from(n).unwrap_or(i64::MAX))
}

impl Collector for CacheCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let stats: Vec<(&str, CacheStats)> = self
            .caches
            .iter()
            .map(|(n, source)| (*n, source()))
            .collect();
        let gauges = |f: fn(&CacheStats) -> usize| -> Vec<(&str, ConstGauge)> {
            stats.iter().map(|(n, s)| (*n, gauge(f(s)))).collect()
        };
        encode_series(
            &mut encoder,
            "function_hcl_cache_entries",
            "Entries in the cache, by cache (program: compiled programs; filesystem: the FileSystem source's directories)",
            &gauges(|s| s.entries),
        )?;
        encode_series(
            &mut encoder,
            "function_hcl_cache_bytes",
            "Estimated memory of the cache's entries, by cache",
            &gauges(|s| s.bytes),
        )?;
        encode_series(
            &mut encoder,
            "function_hcl_cache_max_entries",
            "Most entries the cache keeps, by cache",
            &gauges(|s| s.max_entries),
        )?;
        encode_series(
            &mut encoder,
            "function_hcl_cache_max_bytes",
            "Most estimated memory the cache keeps, by cache",
            &gauges(|s| s.max_bytes),
        )?;
        let evictions: Vec<(&str, ConstCounter)> = stats
            .iter()
            .map(|(n, s)| (*n, ConstCounter::new(s.evictions)))
            .collect();
        encode_series(
            &mut encoder,
            "function_hcl_cache_evictions",
            "Entries dropped from the cache to make room, by cache",
            &evictions,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_numbers_are_read_at_scrape_time() {
        let program = Arc::new(std::sync::Mutex::new(CacheStats {
            entries: 3,
            bytes: 4096,
            max_entries: 64,
            max_bytes: 1 << 20,
            hits: 7,
            misses: 5,
            evictions: 2,
        }));
        let source = program.clone();
        let mut registry = Registry::default();
        CacheCollector::register(
            &mut registry,
            vec![
                ("program", Arc::new(move || *source.lock().expect("stats"))),
                ("filesystem", Arc::new(CacheStats::default)),
            ],
        );
        let scrape = |registry: &Registry| {
            let mut text = String::new();
            prometheus_client::encoding::text::encode(&mut text, registry).expect("encode");
            text
        };
        let text = scrape(&registry);
        for line in [
            "# TYPE function_hcl_cache_entries gauge",
            "function_hcl_cache_entries{cache=\"program\"} 3",
            "function_hcl_cache_entries{cache=\"filesystem\"} 0",
            "function_hcl_cache_bytes{cache=\"program\"} 4096",
            "function_hcl_cache_max_entries{cache=\"program\"} 64",
            "function_hcl_cache_max_bytes{cache=\"program\"} 1048576",
            "# TYPE function_hcl_cache_evictions counter",
            "function_hcl_cache_evictions_total{cache=\"program\"} 2",
            "function_hcl_cache_evictions_total{cache=\"filesystem\"} 0",
        ] {
            assert!(text.contains(line), "missing {line:?} in\n{text}");
        }
        program.lock().expect("stats").evictions = 9;
        let text = scrape(&registry);
        assert!(
            text.contains("function_hcl_cache_evictions_total{cache=\"program\"} 9"),
            "{text}"
        );
    }
}

/// `function_hcl_log_lines_dropped_total`: log lines dropped because the
/// log sink (stderr) did not keep up, read at scrape time from
/// [`crate::logging::dropped_lines`].
#[derive(Debug)]
pub(crate) struct LogCollector;

impl LogCollector {
    pub(crate) fn register(registry: &mut Registry) {
        registry.register_collector(Box::new(LogCollector));
    }
}

impl Collector for LogCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let counter = ConstCounter::new(crate::logging::dropped_lines());
        let metric = encoder.encode_descriptor(
            "function_hcl_log_lines_dropped",
            "Log lines dropped because the log sink (stderr) did not keep up",
            None,
            counter.metric_type(),
        )?;
        counter.encode(metric)
    }
}

/// `function_hcl_eval_memory_bytes`: what the runs in progress hold of the
/// evaluation memory pool (`--max-eval-memory`), and
/// `function_hcl_eval_memory_max_bytes`, the pool's size.
pub(crate) struct EvalMemoryCollector(pub(crate) Arc<fnhcl_crossplane::Function>);

impl EvalMemoryCollector {
    pub(crate) fn register(registry: &mut Registry, function: Arc<fnhcl_crossplane::Function>) {
        registry.register_collector(Box::new(EvalMemoryCollector(function)));
    }
}

impl std::fmt::Debug for EvalMemoryCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EvalMemoryCollector")
    }
}

impl Collector for EvalMemoryCollector {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        for (name, help, value) in [
            (
                "function_hcl_eval_memory_bytes",
                "Bytes of values the evaluations in progress hold of the shared pool",
                self.0.eval_memory_taken(),
            ),
            (
                "function_hcl_eval_memory_max_bytes",
                "Size of the evaluation memory pool (--max-eval-memory)",
                self.0.eval_memory_limit(),
            ),
        ] {
            let gauge = ConstGauge::new(i64::try_from(value).unwrap_or(i64::MAX));
            let metric = encoder.encode_descriptor(name, help, None, gauge.metric_type())?;
            gauge.encode(metric)?;
        }
        Ok(())
    }
}
