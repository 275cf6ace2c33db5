//! A bounded cache of compiled programs, keyed by a hash of their sources.
//!
//! Crossplane calls the function for every XR on every reconcile with the
//! same program text; parsing and checking it once is most of the saving.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use sha2::{Digest, Sha256};

/// The SHA-256 of a program's sources.
pub type CacheKey = [u8; 32];

/// Hashes a sequence of byte strings unambiguously (each is length-prefixed).
pub fn key_of<'a>(parts: impl IntoIterator<Item = &'a [u8]>) -> CacheKey {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p);
    }
    h.finalize().into()
}

struct Entry<T> {
    value: Arc<T>,
    last_used: u64,
}

struct Inner<T> {
    entries: HashMap<CacheKey, Entry<T>>,
    clock: u64,
    hits: u64,
    misses: u64,
}

/// A least-recently-used cache of at most `capacity` entries. Thread-safe;
/// values are built outside the lock, so two threads missing the same key
/// at once may both build it (the results are equal; one wins).
pub struct LruCache<T> {
    capacity: usize,
    inner: Mutex<Inner<T>>,
}

impl<T> LruCache<T> {
    pub fn new(capacity: usize) -> LruCache<T> {
        LruCache {
            capacity: capacity.max(1),
            inner: Mutex::new(Inner {
                entries: HashMap::new(),
                clock: 0,
                hits: 0,
                misses: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<T>> {
        // A panic while holding the lock leaves consistent data (every
        // mutation is a single insert/remove), so poisoning is ignored.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The cached value for `key`, or the one `build` makes (then cached).
    /// Returns whether it was a hit.
    pub fn get_or_insert_with(&self, key: CacheKey, build: impl FnOnce() -> T) -> (Arc<T>, bool) {
        {
            let mut inner = self.lock();
            inner.clock += 1;
            let now = inner.clock;
            if let Some(e) = inner.entries.get_mut(&key) {
                e.last_used = now;
                let v = e.value.clone();
                inner.hits += 1;
                return (v, true);
            }
            inner.misses += 1;
        }
        let value = Arc::new(build());
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        if !inner.entries.contains_key(&key) && inner.entries.len() >= self.capacity {
            let oldest = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.last_used)
                .map(|(k, _)| *k);
            if let Some(k) = oldest {
                inner.entries.remove(&k);
            }
        }
        inner.entries.insert(
            key,
            Entry {
                value: value.clone(),
                last_used: now,
            },
        );
        (value, false)
    }

    /// Number of cached entries.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// (hits, misses) so far.
    pub fn stats(&self) -> (u64, u64) {
        let inner = self.lock();
        (inner.hits, inner.misses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> CacheKey {
        key_of([s.as_bytes()])
    }

    #[test]
    fn builds_once_per_key() {
        let cache = LruCache::new(4);
        let mut builds = 0;
        let (a, hit) = cache.get_or_insert_with(k("a"), || {
            builds += 1;
            1
        });
        assert!(!hit);
        let (b, hit) = cache.get_or_insert_with(k("a"), || {
            builds += 1;
            2
        });
        assert!(hit);
        assert_eq!((*a, *b, builds), (1, 1, 1));
        assert_eq!(cache.stats(), (1, 1));
    }

    #[test]
    fn evicts_the_least_recently_used() {
        let cache = LruCache::new(2);
        cache.get_or_insert_with(k("a"), || 1);
        cache.get_or_insert_with(k("b"), || 2);
        cache.get_or_insert_with(k("a"), || 0); // touch a
        cache.get_or_insert_with(k("c"), || 3); // evicts b
        assert_eq!(cache.len(), 2);
        assert!(cache.get_or_insert_with(k("a"), || 0).1);
        assert!(!cache.get_or_insert_with(k("b"), || 0).1);
    }

    #[test]
    fn keys_are_unambiguous() {
        assert_ne!(
            key_of([b"ab".as_slice(), b"c"]),
            key_of([b"a".as_slice(), b"bc"])
        );
    }
}
