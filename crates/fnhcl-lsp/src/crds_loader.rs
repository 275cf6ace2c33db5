//! Loads CRD sources in the background, one at a time, on one thread.
//!
//! Every change on disk that may touch a CRD source asks for a new load of
//! it (with a new generation). Requests are coalesced: a source waits for
//! its load in a table that keeps only its newest generation, and a request
//! for the source being loaded cancels that load (it stops at its next
//! check, between two directory entries, files or documents) and its result
//! is dropped. So a burst of file changes costs at most the load running
//! now plus one more per source, on the one thread, whatever the number of
//! notifications.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crossbeam_channel::Sender;

use crate::server::Background;

/// What loads a source: `(source, cancel)` to the loaded set, `None` when
/// it names none, or an error for people.
pub(crate) type LoadFn =
    dyn Fn(&Path, &AtomicBool) -> Result<Option<fnhcl_schema::SchemaSet>, String> + Send + Sync;

#[derive(Default)]
struct State {
    /// Sources waiting for a load, with the newest generation asked for.
    pending: BTreeMap<PathBuf, u64>,
    /// The load under way: its source, generation and cancel flag.
    running: Option<(PathBuf, u64, Arc<AtomicBool>)>,
    /// The server is gone: the thread ends.
    closed: bool,
    /// Threads started (one, once the first load is asked for).
    threads: usize,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in a load is caught before it can poison the lock; take
        // the state as it is anyway.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub(crate) struct Loader {
    shared: Arc<Shared>,
    results: Sender<Background>,
    load: Arc<LoadFn>,
}

impl Loader {
    pub(crate) fn new(results: Sender<Background>, load: Arc<LoadFn>) -> Loader {
        Loader {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                wake: Condvar::new(),
            }),
            results,
            load,
        }
    }

    /// Asks for a load of `source` as `generation` (newer than any asked
    /// before): replaces a waiting request for it and cancels its load
    /// under way. Starts the loader's thread the first time.
    pub(crate) fn request(&self, source: &Path, generation: u64) -> std::io::Result<()> {
        let mut state = self.shared.lock();
        state.pending.insert(source.to_path_buf(), generation);
        if let Some((running, _, cancel)) = &state.running
            && running == source
        {
            cancel.store(true, Ordering::Relaxed);
        }
        if state.threads == 0 {
            let shared = self.shared.clone();
            let results = self.results.clone();
            let load = self.load.clone();
            std::thread::Builder::new()
                .name("fn-hcl-crds".to_owned())
                .spawn(move || work(&shared, &results, &*load))?;
            state.threads = 1;
        }
        drop(state);
        self.shared.wake.notify_one();
        Ok(())
    }

    /// Threads started so far (tests).
    #[cfg(test)]
    fn threads(&self) -> usize {
        self.shared.lock().threads
    }
}

impl Drop for Loader {
    /// Ends the thread after its current load, which is cancelled (not
    /// waited for: a read blocked on a hung mount must not hold up the
    /// server's exit).
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.closed = true;
        if let Some((_, _, cancel)) = &state.running {
            cancel.store(true, Ordering::Relaxed);
        }
        drop(state);
        self.shared.wake.notify_all();
    }
}

/// The loader's thread: takes the waiting sources one at a time.
fn work(shared: &Shared, results: &Sender<Background>, load: &LoadFn) {
    loop {
        let (source, generation, cancel) = {
            let mut state = shared.lock();
            loop {
                if state.closed {
                    return;
                }
                if let Some((source, generation)) = state.pending.pop_first() {
                    let cancel = Arc::new(AtomicBool::new(false));
                    state.running = Some((source.clone(), generation, cancel.clone()));
                    break (source, generation, cancel);
                }
                state = shared.wake.wait(state).unwrap_or_else(|e| e.into_inner());
            }
        };
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| load(&source, &cancel)))
                .unwrap_or_else(|_| Err("internal error while loading CRDs".to_owned()));
        shared.lock().running = None;
        if cancel.load(Ordering::Relaxed) {
            // A newer load of the source is waiting (or the server is gone).
            continue;
        }
        if results
            .send(Background::Crds {
                source,
                generation,
                result,
            })
            .is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    const WAIT: Duration = Duration::from_secs(30);

    /// A burst of requests while a load is under way: the running load is
    /// cancelled, the burst is coalesced into one more load of the newest
    /// generation, and only its result is reported; one thread, never two
    /// loads at once.
    #[test]
    fn a_burst_of_changes_is_one_more_load_on_one_thread() {
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let loads = Arc::new(AtomicUsize::new(0));
        let submitted = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = crossbeam_channel::unbounded();
        let load: Arc<LoadFn> = {
            let (running, most, loads, submitted) = (
                running.clone(),
                most.clone(),
                loads.clone(),
                submitted.clone(),
            );
            Arc::new(move |_: &Path, cancel: &AtomicBool| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                loads.fetch_add(1, Ordering::SeqCst);
                let _ = started_tx.send(());
                // The first load runs until it is cancelled and the burst
                // is all in (bounded: 30,000 waits of 1 ms at most).
                if !submitted.load(Ordering::SeqCst) {
                    for _ in 0..30_000 {
                        if cancel.load(Ordering::SeqCst) && submitted.load(Ordering::SeqCst) {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
                running.fetch_sub(1, Ordering::SeqCst);
                Ok(None)
            })
        };
        let (tx, rx) = crossbeam_channel::unbounded();
        let loader = Loader::new(tx, load);
        let source = Path::new("/w/.crd-sources.yaml");
        loader.request(source, 1).expect("request");
        started_rx
            .recv_timeout(WAIT)
            .expect("the first load starts");
        for generation in 2..=1000 {
            loader.request(source, generation).expect("request");
        }
        submitted.store(true, Ordering::SeqCst);
        let Background::Crds { generation, .. } = rx.recv_timeout(WAIT).expect("a result");
        assert_eq!(generation, 1000, "only the newest load reports");
        assert_eq!(
            loads.load(Ordering::SeqCst),
            2,
            "the burst is one more load"
        );
        assert_eq!(most.load(Ordering::SeqCst), 1, "never two loads at once");
        assert_eq!(loader.threads(), 1);
        assert!(rx.try_recv().is_err(), "the cancelled load reports nothing");
    }

    /// Sources are loaded one after the other, each once, in one thread.
    #[test]
    fn several_sources_share_the_thread() {
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let load: Arc<LoadFn> = {
            let (running, most) = (running.clone(), most.clone());
            Arc::new(move |_: &Path, _: &AtomicBool| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(2));
                running.fetch_sub(1, Ordering::SeqCst);
                Err("none".to_owned())
            })
        };
        let (tx, rx) = crossbeam_channel::unbounded();
        let loader = Loader::new(tx, load);
        let sources: Vec<PathBuf> = (0..8)
            .map(|i| PathBuf::from(format!("/w{i}/.crds")))
            .collect();
        for (i, s) in sources.iter().enumerate() {
            loader.request(s, i as u64 + 1).expect("request");
        }
        let mut seen = Vec::new();
        for _ in 0..sources.len() {
            let Background::Crds { source, .. } = rx.recv_timeout(WAIT).expect("a result");
            seen.push(source);
        }
        seen.sort();
        assert_eq!(seen, sources);
        assert_eq!(most.load(Ordering::SeqCst), 1);
        assert_eq!(loader.threads(), 1);
    }
}
