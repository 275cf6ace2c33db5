//! A bounded cache of compiled programs, keyed by their sources.
//!
//! Crossplane calls the function for every XR on every reconcile with the
//! same program text; parsing and checking it once is most of the saving.
//! A lookup hashes the sources with a fast non-cryptographic hash (about a
//! microsecond for 8 KiB, where SHA-256 took several) and then compares
//! them in full with the cached entry's, so a hash collision can only cost
//! a rebuild, never return the wrong program.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex};

/// The hash of a program's sources (length-prefixed parts).
fn hash_parts(parts: &[&[u8]]) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x6663_6e2d_6863_6c00).build_hasher();
    for p in parts {
        h.write_u64(p.len() as u64);
        h.write(p);
    }
    h.finish()
}

struct Entry<T> {
    /// The sources this entry was built from, compared on every hit.
    parts: Vec<Box<[u8]>>,
    value: Arc<T>,
    last_used: u64,
}

impl<T> Entry<T> {
    fn matches(&self, parts: &[&[u8]]) -> bool {
        self.parts.len() == parts.len() && self.parts.iter().zip(parts).all(|(a, b)| **a == **b)
    }
}

struct Inner<T> {
    /// Entries by hash; a bucket holds more than one only on collision.
    buckets: HashMap<u64, Vec<Entry<T>>>,
    len: usize,
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
                buckets: HashMap::new(),
                len: 0,
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

    /// The cached value for the sources `parts` (a sequence of byte
    /// strings, compared part by part), or the one `build` makes (then
    /// cached). Returns whether it was a hit.
    pub fn get_or_insert_with(&self, parts: &[&[u8]], build: impl FnOnce() -> T) -> (Arc<T>, bool) {
        let hash = hash_parts(parts);
        {
            let mut inner = self.lock();
            inner.clock += 1;
            let now = inner.clock;
            let found = inner
                .buckets
                .get_mut(&hash)
                .and_then(|b| b.iter_mut().find(|e| e.matches(parts)))
                .map(|e| {
                    e.last_used = now;
                    e.value.clone()
                });
            if let Some(v) = found {
                inner.hits += 1;
                return (v, true);
            }
            inner.misses += 1;
        }
        let value = Arc::new(build());
        let mut inner = self.lock();
        inner.clock += 1;
        let now = inner.clock;
        let present = inner
            .buckets
            .get(&hash)
            .is_some_and(|b| b.iter().any(|e| e.matches(parts)));
        if present {
            return (value, false);
        }
        if inner.len >= self.capacity {
            let oldest = inner
                .buckets
                .iter()
                .flat_map(|(h, b)| b.iter().enumerate().map(move |(i, e)| (e.last_used, *h, i)))
                .min();
            if let Some((_, h, i)) = oldest {
                if let Some(b) = inner.buckets.get_mut(&h) {
                    b.swap_remove(i);
                    if b.is_empty() {
                        inner.buckets.remove(&h);
                    }
                }
                inner.len -= 1;
            }
        }
        inner.buckets.entry(hash).or_default().push(Entry {
            parts: parts.iter().map(|p| Box::<[u8]>::from(*p)).collect(),
            value: value.clone(),
            last_used: now,
        });
        inner.len += 1;
        (value, false)
    }

    /// Number of cached entries.
    pub fn len(&self) -> usize {
        self.lock().len
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

    fn k(s: &str) -> [&[u8]; 1] {
        [s.as_bytes()]
    }

    #[test]
    fn builds_once_per_key() {
        let cache = LruCache::new(4);
        let mut builds = 0;
        let (a, hit) = cache.get_or_insert_with(&k("a"), || {
            builds += 1;
            1
        });
        assert!(!hit);
        let (b, hit) = cache.get_or_insert_with(&k("a"), || {
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
        cache.get_or_insert_with(&k("a"), || 1);
        cache.get_or_insert_with(&k("b"), || 2);
        cache.get_or_insert_with(&k("a"), || 0); // touch a
        cache.get_or_insert_with(&k("c"), || 3); // evicts b
        assert_eq!(cache.len(), 2);
        assert!(cache.get_or_insert_with(&k("a"), || 0).1);
        assert!(!cache.get_or_insert_with(&k("b"), || 0).1);
    }

    #[test]
    fn keys_are_unambiguous() {
        assert_ne!(
            hash_parts(&[b"ab".as_slice(), b"c"]),
            hash_parts(&[b"a".as_slice(), b"bc"])
        );
        let cache = LruCache::new(4);
        cache.get_or_insert_with(&[b"ab".as_slice(), b"c"], || 1);
        assert!(!cache.get_or_insert_with(&[b"a".as_slice(), b"bc"], || 2).1);
    }

    #[test]
    fn a_hash_collision_is_a_miss_not_a_wrong_hit() {
        let cache = LruCache::new(4);
        let (a, _) = cache.get_or_insert_with(&k("a"), || 1);
        // Plant an entry for other sources under the same hash.
        {
            let mut inner = cache.lock();
            let h = hash_parts(&k("a"));
            inner.buckets.get_mut(&h).expect("bucket")[0].parts = vec![Box::from(&b"b"[..])];
        }
        let (b, hit) = cache.get_or_insert_with(&k("a"), || 2);
        assert!(!hit);
        assert_eq!((*a, *b, cache.len()), (1, 2, 2));
        assert!(cache.get_or_insert_with(&k("a"), || 3).1);
    }
}
