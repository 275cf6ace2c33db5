//! The memory every evaluation a [`crate::Function`] runs at once shares
//! (issue 42: one request is bounded by `max_bytes`, but twelve at once
//! could each build that much). Each run takes what it builds from one
//! pool in 1 MiB pieces ([`RunMemory`], told by the evaluator every
//! [`fnhcl_eval::MEMORY_INTERVAL`] bytes) and gives it all back when it
//! ends. A run that cannot take more is stopped with an error naming the
//! pool's size: a Fatal result, which Crossplane answers by calling again,
//! and which never drops a resource (D12).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// Bytes a run takes from the pool at a time.
const PIECE: u64 = 1 << 20;

/// The bytes shared by the runs of one function.
#[derive(Debug)]
pub struct MemoryPool {
    limit: u64,
    taken: AtomicU64,
}

impl MemoryPool {
    pub fn new(limit: u64) -> Arc<MemoryPool> {
        Arc::new(MemoryPool {
            limit,
            taken: AtomicU64::new(0),
        })
    }

    /// Bytes the runs in progress hold.
    pub fn taken(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }

    /// The pool's size.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes `n` bytes if they are free.
    fn take(&self, n: u64) -> bool {
        self.taken
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                t.checked_add(n).filter(|&after| after <= self.limit)
            })
            .is_ok()
    }

    fn give_back(&self, n: u64) {
        self.taken.fetch_sub(n, Ordering::AcqRel);
    }
}

/// One run's share of a [`MemoryPool`]: what it built, what it took;
/// everything taken goes back when it is dropped.
#[derive(Debug)]
pub struct RunMemory {
    pool: Arc<MemoryPool>,
    built: AtomicU64,
    taken: AtomicU64,
}

impl RunMemory {
    pub fn new(pool: Arc<MemoryPool>) -> RunMemory {
        RunMemory {
            pool,
            built: AtomicU64::new(0),
            taken: AtomicU64::new(0),
        }
    }
}

impl fnhcl_eval::Memory for RunMemory {
    fn built(&self, bytes: u64) -> bool {
        let built = self.built.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let taken = self.taken.load(Ordering::Relaxed);
        if built <= taken {
            return true;
        }
        let more = (built - taken).div_ceil(PIECE) * PIECE;
        if !self.pool.take(more) {
            return false;
        }
        self.taken.fetch_add(more, Ordering::Relaxed);
        true
    }

    fn limit(&self) -> u64 {
        self.pool.limit
    }
}

impl Drop for RunMemory {
    fn drop(&mut self) {
        self.pool.give_back(*self.taken.get_mut());
    }
}

/// Programs over this many bytes of source compile through the
/// [`CompileGate`].
pub const GATED_PROGRAM_BYTES: usize = 32 << 10;

/// Memory a compile takes while it runs, per byte of source (measured:
/// a 4 MiB program's compile peaks at about 140 MiB).
pub const COMPILE_BYTES_PER_SOURCE_BYTE: u64 = 35;

/// Bounds the memory of the compiles running at once: a compile of `n`
/// bytes of source waits until `n` × [`COMPILE_BYTES_PER_SOURCE_BYTE`]
/// fits in what the others leave of the gate's bytes (one compile is
/// always let in, whatever its size). Eight requests compiling the largest
/// programs at once would otherwise take more than a pod's memory; a
/// waiting compile waits for others that each take well under a second.
#[derive(Debug)]
pub struct CompileGate {
    limit: u64,
    used: Mutex<u64>,
    freed: Condvar,
}

/// A compile let in: its bytes go back to the gate when it is dropped.
pub struct CompileTurn<'g> {
    gate: &'g CompileGate,
    bytes: u64,
}

impl CompileGate {
    pub fn new(limit: u64) -> CompileGate {
        CompileGate {
            limit,
            used: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Waits until a compile of `source_bytes` fits.
    pub fn enter(&self, source_bytes: usize) -> CompileTurn<'_> {
        let bytes = (source_bytes as u64).saturating_mul(COMPILE_BYTES_PER_SOURCE_BYTE);
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        while *used > 0 && used.saturating_add(bytes) > self.limit {
            used = self
                .freed
                .wait(used)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *used += bytes;
        CompileTurn { gate: self, bytes }
    }
}

impl Drop for CompileTurn<'_> {
    fn drop(&mut self) {
        *self
            .gate
            .used
            .lock()
            .unwrap_or_else(PoisonError::into_inner) -= self.bytes;
        self.gate.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fnhcl_eval::Memory as _;

    #[test]
    fn runs_take_pieces_and_give_them_back() {
        let pool = MemoryPool::new(3 * PIECE);
        let a = RunMemory::new(pool.clone());
        assert!(a.built(10));
        assert_eq!(pool.taken(), PIECE);
        assert!(a.built(PIECE));
        assert_eq!(pool.taken(), 2 * PIECE);
        let b = RunMemory::new(pool.clone());
        assert!(b.built(PIECE));
        // Full: neither can take more, and a new run gets nothing.
        assert!(!b.built(1));
        assert!(!RunMemory::new(pool.clone()).built(1));
        drop(a);
        assert_eq!(pool.taken(), PIECE);
        assert!(b.built(1));
        drop(b);
        assert_eq!(pool.taken(), 0);
    }

    #[test]
    fn the_gate_bounds_the_compiles_bytes() {
        // Room for two compiles of 1 KiB of source at a time.
        let gate = Arc::new(CompileGate::new(2 * 1024 * COMPILE_BYTES_PER_SOURCE_BYTE));
        let inside = Arc::new(AtomicU64::new(0));
        let most = Arc::new(AtomicU64::new(0));
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let _turn = gate.enter(1024);
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(now, Ordering::SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("no panic");
        }
        assert!(most.load(Ordering::SeqCst) <= 2);
        assert_eq!(*gate.used.lock().expect("lock"), 0);
        // One compile larger than the whole gate is still let in.
        drop(gate.enter(1 << 20));
    }
}
