//! Who runs when: so that a heavy composition does not stall every other
//! XR, and a small one costs no more CPU than it must.
//!
//! A **small request** ([`small_request`]: at most [`SMALL_REQUEST_BYTES`]
//! of protobuf) first runs **inline**, on the runtime thread that received
//! it: handing a run to another thread and
//! back costs more CPU (wake-ups, context switches) than a small run
//! itself. An inline run is stopped at its first interrupt check (after
//! [`fnhcl_crossplane::INTERRUPT_INTERVAL`] evaluation steps, ~1 ms) and
//! starts again in the pool: no request holds the runtime thread longer.
//!
//! In the pool, every request starts in the **light lane**, which runs up to
//! [`LaneLimits::light`] requests at once (a request waits, without a
//! thread, for a light slot). A run that is still evaluating after
//! [`LaneLimits::demote_after_checks`] interrupt checks (each
//! [`fnhcl_eval::Limits::interrupt`] call is a few thousand evaluation
//! steps, ~1 ms) moves to the **heavy lane**: it gives its light slot
//! back, so the next request starts at once, and continues only while
//! fewer than [`LaneLimits::heavy_running`] heavy runs evaluate; the others
//! wait, parked in their interrupt check. At most
//! [`LaneLimits::heavy_total`] runs are in the heavy lane (running or
//! parked: each holds a thread and its memory); past that a long run stays
//! in the light lane. The threads the pool may need are therefore bounded
//! by `light + heavy_total` ([`LaneLimits::threads`]).
//!
//! The heavy lane is shared in turns: runs wait for a heavy slot in the
//! order they arrived, and a heavy run that has evaluated for
//! [`LaneLimits::heavy_slice_checks`] checks while others wait gives its
//! slot to the first of them and queues behind the last; so two long runs
//! never keep a newer one waiting until they end. With every heavy slot
//! busy, a trivial request still gets a light slot and its thread competes
//! for the cores with `heavy_running` threads, not with every heavy
//! request in flight.
//!
//! The same check stops a run whose caller has gone (cancelled, deadline
//! passed: tonic drops the handler, whose [`Guard`] raises the flag), and
//! a request whose caller has gone when its turn comes is not started.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The sizes of the lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneLimits {
    /// Requests evaluating at once in the light lane.
    pub light: usize,
    /// Heavy runs evaluating at once.
    pub heavy_running: usize,
    /// Runs in the heavy lane, evaluating or parked.
    pub heavy_total: usize,
    /// Interrupt checks (of [`fnhcl_expr`'s interval] steps each) after
    /// which a run moves to the heavy lane.
    ///
    /// [`fnhcl_expr`'s interval]: fnhcl_eval::Limits::interrupt
    pub demote_after_checks: u64,
    /// Interrupt checks a heavy run evaluates in one turn while other heavy
    /// runs wait (then it queues behind them).
    pub heavy_slice_checks: u64,
}

impl LaneLimits {
    /// The defaults for `cores` cores: light twice the cores (at least 4,
    /// the pool of earlier versions), heavy runs one per core, up to four
    /// per core in the heavy lane (at least 8), a run moves after ~4 ms of
    /// evaluation (4 checks of 4,096 steps), a heavy run's turn is ~50 ms
    /// (50 checks) while others wait.
    pub fn for_cores(cores: usize) -> LaneLimits {
        let cores = cores.max(1);
        LaneLimits {
            light: cores.saturating_mul(2).max(4),
            heavy_running: cores,
            heavy_total: cores.saturating_mul(4).max(8),
            demote_after_checks: 4,
            heavy_slice_checks: 50,
        }
    }

    /// The defaults for this machine's cores.
    pub fn detect() -> LaneLimits {
        LaneLimits::for_cores(std::thread::available_parallelism().map_or(2, usize::from))
    }

    /// Most threads the runs can occupy at once.
    pub fn threads(&self) -> usize {
        self.light.saturating_add(self.heavy_total)
    }
}

/// The largest request (in protobuf bytes) that may run inline:
/// converting what a program reads of it takes well under a millisecond
/// (the view checks every byte once, a few instructions per byte).
pub const SMALL_REQUEST_BYTES: usize = 256 << 10;

/// The largest inline program (`hcl`, in bytes) a small request may
/// carry: a larger one compiles through the function's compile gate and
/// asks the run's interrupt while it compiles (which an inline run's
/// interrupt, stopping at its first call, would cut short), and must not
/// hold a runtime thread.
pub const SMALL_PROGRAM_BYTES: usize = fnhcl_crossplane::memory::GATED_PROGRAM_BYTES;

/// Whether `req`, `encoded_len` bytes long as received, is at most
/// [`SMALL_REQUEST_BYTES`] long and its program is inline and at most
/// [`SMALL_PROGRAM_BYTES`]: a `source: FileSystem` program is read from
/// disk, and a large one compiled, neither of which may happen on a
/// runtime thread.
pub fn small_request(
    req: &fnhcl_crossplane::proto::RunFunctionRequest,
    encoded_len: usize,
) -> bool {
    use pbjson_types::value::Kind;
    if encoded_len > SMALL_REQUEST_BYTES {
        return false;
    }
    let field = |name: &str| {
        req.input
            .as_ref()
            .and_then(|input| input.fields.get(name))
            .and_then(|v| v.kind.as_ref())
    };
    let inline = field("source").is_none_or(|k| matches!(k, Kind::StringValue(s) if s == "Inline"));
    let small = field("hcl").is_none_or(|k| match k {
        Kind::StringValue(s) => s.len() <= SMALL_PROGRAM_BYTES,
        _ => true,
    });
    inline && small
}

/// Counters of what the lanes did (since start).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaneStats {
    /// Small requests run inline to the end.
    pub inline: u64,
    /// Inline runs stopped at their first check and run in the pool.
    pub moved: u64,
    /// Requests that got a light slot.
    pub admitted: u64,
    /// Runs moved to the heavy lane.
    pub demoted: u64,
    /// Requests not started because their caller had gone.
    pub skipped: u64,
    /// Runs stopped in an interrupt check because their caller had gone.
    pub interrupted: u64,
}

#[derive(Default)]
struct Heavy {
    running: usize,
    total: usize,
    /// The runs waiting for a heavy slot, first come first served.
    queue: std::collections::VecDeque<u64>,
    /// The next place in the queue.
    next: u64,
}

/// The scheduler shared by every request of a server.
pub struct Lanes {
    limits: LaneLimits,
    light: Arc<Semaphore>,
    heavy: Mutex<Heavy>,
    heavy_free: Condvar,
    inline: AtomicU64,
    moved: AtomicU64,
    admitted: AtomicU64,
    demoted: AtomicU64,
    skipped: AtomicU64,
    interrupted: AtomicU64,
}

impl Lanes {
    pub fn new(limits: LaneLimits) -> Lanes {
        Lanes {
            light: Arc::new(Semaphore::new(limits.light.max(1))),
            limits,
            heavy: Mutex::new(Heavy::default()),
            heavy_free: Condvar::new(),
            inline: AtomicU64::new(0),
            moved: AtomicU64::new(0),
            admitted: AtomicU64::new(0),
            demoted: AtomicU64::new(0),
            skipped: AtomicU64::new(0),
            interrupted: AtomicU64::new(0),
        }
    }

    pub fn limits(&self) -> LaneLimits {
        self.limits
    }

    pub fn stats(&self) -> LaneStats {
        LaneStats {
            inline: self.inline.load(Ordering::Relaxed),
            moved: self.moved.load(Ordering::Relaxed),
            admitted: self.admitted.load(Ordering::Relaxed),
            demoted: self.demoted.load(Ordering::Relaxed),
            skipped: self.skipped.load(Ordering::Relaxed),
            interrupted: self.interrupted.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn note_inline(&self) {
        self.inline.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn note_moved(&self) {
        self.moved.fetch_add(1, Ordering::Relaxed);
    }

    /// Waits for a light slot; the [`Ticket`] goes to the thread that
    /// runs the request. Dropping this future (the caller went away)
    /// gives up the place in the queue.
    pub async fn admit(self: &Arc<Lanes>, gone: &Guard) -> Ticket {
        let permit = self
            .light
            .clone()
            .acquire_owned()
            .await
            // The semaphore is never closed.
            .ok();
        self.admitted.fetch_add(1, Ordering::Relaxed);
        Ticket {
            lanes: self.clone(),
            gone: gone.flag.clone(),
            state: Mutex::new(State::Light(permit)),
            checks: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        }
    }

    fn enter_heavy(&self) -> bool {
        let mut h = self.heavy.lock().unwrap_or_else(PoisonError::into_inner);
        if h.total >= self.limits.heavy_total {
            return false;
        }
        h.total += 1;
        true
    }

    /// Waits, in arrival order, for a heavy slot; false if the caller went
    /// away meanwhile (the run then leaves the heavy lane).
    fn wait_heavy(&self, gone: &AtomicBool) -> bool {
        let mut h = self.heavy.lock().unwrap_or_else(PoisonError::into_inner);
        let place = h.next;
        h.next += 1;
        h.queue.push_back(place);
        while h.running >= self.limits.heavy_running.max(1) || h.queue.front() != Some(&place) {
            if gone.load(Ordering::Relaxed) {
                h.queue.retain(|p| *p != place);
                h.total -= 1;
                drop(h);
                self.heavy_free.notify_all();
                return false;
            }
            // Woken when a slot frees; the timeout notices a caller gone.
            h = self
                .heavy_free
                .wait_timeout(h, Duration::from_millis(50))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        h.queue.pop_front();
        h.running += 1;
        drop(h);
        // The next in line may take another free slot.
        self.heavy_free.notify_all();
        true
    }

    /// A heavy run's turn is over: when others wait, it gives its slot to
    /// the first and queues behind the last. False if the caller went away
    /// while it waited.
    fn yield_heavy(&self, gone: &AtomicBool) -> bool {
        let mut h = self.heavy.lock().unwrap_or_else(PoisonError::into_inner);
        if h.queue.is_empty() {
            return true;
        }
        h.running -= 1;
        drop(h);
        self.heavy_free.notify_all();
        self.wait_heavy(gone)
    }

    fn leave_heavy(&self) {
        let mut h = self.heavy.lock().unwrap_or_else(PoisonError::into_inner);
        h.running -= 1;
        h.total -= 1;
        drop(h);
        self.heavy_free.notify_all();
    }
}

/// Raises the "caller gone" flag when dropped: held by the request's
/// handler, which tonic drops when the call is cancelled or its deadline
/// passes (and which drops it itself once it has the answer).
pub struct Guard {
    flag: Arc<AtomicBool>,
}

impl Guard {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Guard {
        Guard {
            flag: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::Relaxed);
    }
}

enum State {
    Light(Option<OwnedSemaphorePermit>),
    Heavy,
    /// Left the heavy lane (caller gone while parked).
    Done,
}

/// One admitted request: its lane and its interrupt check.
pub struct Ticket {
    lanes: Arc<Lanes>,
    gone: Arc<AtomicBool>,
    state: Mutex<State>,
    checks: AtomicU64,
    stopped: AtomicBool,
}

impl Ticket {
    /// Whether the caller has gone (then the request is not started).
    pub fn caller_gone(&self) -> bool {
        let gone = self.gone.load(Ordering::Relaxed);
        if gone {
            self.lanes.skipped.fetch_add(1, Ordering::Relaxed);
        }
        gone
    }

    /// The interrupt check: false when the caller has gone; moves the run
    /// to the heavy lane after enough checks (and may wait there).
    pub fn check(&self) -> bool {
        if self.gone.load(Ordering::Relaxed) {
            self.stop();
            return false;
        }
        let n = self.checks.fetch_add(1, Ordering::Relaxed) + 1;
        if n < self.lanes.limits.demote_after_checks {
            return true;
        }
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if matches!(*state, State::Heavy) {
            let slice = self.lanes.limits.heavy_slice_checks.max(1);
            if (n - self.lanes.limits.demote_after_checks).is_multiple_of(slice)
                && !self.lanes.yield_heavy(&self.gone)
            {
                *state = State::Done;
                self.stop();
                return false;
            }
            return true;
        }
        let State::Light(permit) = &mut *state else {
            return true;
        };
        if !self.lanes.enter_heavy() {
            // The heavy lane is full: go on in the light lane.
            return true;
        }
        // The next request may start now.
        drop(permit.take());
        self.lanes.demoted.fetch_add(1, Ordering::Relaxed);
        if self.lanes.wait_heavy(&self.gone) {
            *state = State::Heavy;
            true
        } else {
            *state = State::Done;
            self.stop();
            false
        }
    }

    /// Counts the run as interrupted (once: the evaluator may check again
    /// while it unwinds).
    fn stop(&self) {
        if !self.stopped.swap(true, Ordering::Relaxed) {
            self.lanes.interrupted.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Counts of what this ticket's lanes did so far.
    pub fn lanes(&self) -> &Arc<Lanes> {
        &self.lanes
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        if matches!(state, State::Heavy) {
            self.lanes.leave_heavy();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    fn limits() -> LaneLimits {
        LaneLimits {
            light: 2,
            heavy_running: 1,
            heavy_total: 4,
            demote_after_checks: 2,
            heavy_slice_checks: 1_000_000,
        }
    }

    /// Runs `ticket`'s checks until it is in the heavy lane and running.
    fn become_heavy(t: &Ticket) {
        for _ in 0..3 {
            assert!(t.check());
        }
        assert!(matches!(
            *t.state.lock().expect("state"),
            State::Heavy | State::Light(_)
        ));
    }

    #[test]
    fn a_trivial_request_gets_a_light_slot_while_the_heavy_lane_is_saturated() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let lanes = Arc::new(Lanes::new(limits()));
        // Four heavy runs, each blocked (on a barrier this test controls)
        // while holding what it holds: one evaluating in the heavy lane,
        // three parked waiting for it. Without the lanes, the two light
        // slots would be taken and the trivial request would wait.
        let release = Arc::new(Barrier::new(2));
        let guards: Vec<Guard> = (0..4).map(|_| Guard::new()).collect();
        let mut heavy = Vec::new();
        for (i, g) in guards.iter().enumerate() {
            let ticket = rt.block_on(lanes.admit(g));
            let release = release.clone();
            heavy.push(std::thread::spawn(move || {
                become_heavy(&ticket);
                if i == 0 {
                    // The running heavy run holds its slot until released.
                    release.wait();
                }
                drop(ticket);
            }));
            // Wait until this one left the light lane (its permit is back).
            while lanes.stats().demoted < i as u64 + 1 {
                std::thread::yield_now();
            }
        }
        assert_eq!(lanes.stats().demoted, 4);
        // A trivial request: admitted and run at once.
        let g = Guard::new();
        let ticket = rt.block_on(lanes.admit(&g));
        assert!(!ticket.caller_gone());
        assert!(ticket.check(), "one check: still light");
        drop(ticket);
        assert_eq!(lanes.stats().admitted, 5);
        // The heavy lane never held more than one run evaluating.
        release.wait();
        for h in heavy {
            h.join().expect("heavy run");
        }
        let h = lanes.heavy.lock().expect("heavy");
        assert_eq!((h.running, h.total), (0, 0));
    }

    #[test]
    fn a_full_heavy_lane_keeps_long_runs_light() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let lanes = Arc::new(Lanes::new(LaneLimits {
            heavy_total: 0,
            ..limits()
        }));
        let g = Guard::new();
        let t = rt.block_on(lanes.admit(&g));
        for _ in 0..10 {
            assert!(t.check());
        }
        assert_eq!(lanes.stats().demoted, 0);
        assert!(matches!(*t.state.lock().expect("state"), State::Light(_)));
    }

    #[test]
    fn a_gone_caller_stops_the_run_and_leaves_the_heavy_queue() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let lanes = Arc::new(Lanes::new(limits()));
        // One heavy run holds the only heavy slot.
        let g1 = Guard::new();
        let t1 = rt.block_on(lanes.admit(&g1));
        become_heavy(&t1);
        // A second long run whose caller goes away while it is parked.
        let g2 = Guard::new();
        let t2 = rt.block_on(lanes.admit(&g2));
        let parked = std::thread::spawn(move || {
            let mut ok = true;
            for _ in 0..3 {
                ok = t2.check();
                if !ok {
                    break;
                }
            }
            ok
        });
        while lanes.stats().demoted < 2 {
            std::thread::yield_now();
        }
        drop(g2);
        assert!(!parked.join().expect("parked run"), "stopped");
        assert_eq!(lanes.stats().interrupted, 1);
        // A request whose caller left before its turn is not started.
        let g3 = Guard::new();
        let t3 = rt.block_on(lanes.admit(&g3));
        drop(g3);
        assert!(t3.caller_gone());
        assert!(!t3.check());
        assert_eq!(lanes.stats().skipped, 1);
        drop(t1);
        let h = lanes.heavy.lock().expect("heavy");
        assert_eq!((h.running, h.total), (0, 0));
    }

    /// Two long runs share one heavy slot in turns: the one evaluating
    /// gives the slot to the one waiting after its slice, and resumes once
    /// that one is done (or its turn is over).
    #[test]
    fn heavy_runs_take_turns() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let lanes = Arc::new(Lanes::new(LaneLimits {
            demote_after_checks: 1,
            heavy_slice_checks: 2,
            ..limits()
        }));
        let order = Arc::new(Mutex::new(Vec::new()));
        let (ga, gb) = (Guard::new(), Guard::new());
        let a = rt.block_on(lanes.admit(&ga));
        assert!(a.check(), "A moves to the heavy lane and runs");
        let b = rt.block_on(lanes.admit(&gb));
        let b_order = order.clone();
        let b_run = std::thread::spawn(move || {
            // Moves to the heavy lane and waits for A's turn to end.
            assert!(b.check());
            b_order.lock().expect("order").push("B runs");
            drop(b);
        });
        // B is queued.
        while lanes.heavy.lock().expect("heavy").queue.is_empty() {
            std::thread::yield_now();
        }
        // A's slice ends at its next check: B takes the slot, A waits.
        assert!(a.check());
        assert!(a.check());
        order.lock().expect("order").push("A resumes");
        b_run.join().expect("B");
        assert_eq!(*order.lock().expect("order"), ["B runs", "A resumes"]);
        drop(a);
        let h = lanes.heavy.lock().expect("heavy");
        assert_eq!((h.running, h.total, h.queue.len()), (0, 0, 0));
    }

    /// A program too large to compile on a runtime thread, or read from
    /// disk, makes a request run in the pool.
    #[test]
    fn only_small_inline_programs_run_inline() {
        use fnhcl_crossplane::proto::RunFunctionRequest;
        let request = |input: serde_json::Value| RunFunctionRequest {
            input: fnhcl_crossplane::convert::json_to_struct(&input),
            ..Default::default()
        };
        let small = request(serde_json::json!({"hcl": "resource a { body = {} }"}));
        assert!(small_request(&small, 100));
        assert!(!small_request(&small, SMALL_REQUEST_BYTES + 1));
        let big = request(serde_json::json!({"hcl": "#".repeat(SMALL_PROGRAM_BYTES + 1)}));
        assert!(!small_request(&big, SMALL_PROGRAM_BYTES + 100));
        let fs = request(serde_json::json!({"source": "FileSystem", "path": "/p"}));
        assert!(!small_request(&fs, 100));
    }
}
