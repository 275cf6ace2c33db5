//! The memory every evaluation a [`crate::Function`] runs at once shares
//! (issue 42: one request is bounded by `max_bytes`, but twelve at once
//! could each build that much). Each run takes what it builds from one
//! pool in 1 MiB pieces ([`RunMemory`], told by the evaluator every
//! [`fnhcl_eval::MEMORY_INTERVAL`] bytes) and gives it all back when it
//! ends. A run that cannot take more is stopped with an error naming the
//! pool's size: a Fatal result, which Crossplane answers by calling again,
//! and which never drops a resource (D12).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
}
