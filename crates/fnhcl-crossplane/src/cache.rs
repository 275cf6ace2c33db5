//! Bounded least-recently-used caches.
//!
//! [`Lru`] is the data structure: a map plus a doubly linked recency list
//! threaded through a slab, bounded by a number of entries **and** by a
//! byte budget (each entry carries the weight its owner gives it). Lookups,
//! inserts and evictions are O(1); nothing scans the entries.
//!
//! [`LruCache`] is the compiled-program cache on top of it. Crossplane calls
//! the function for every XR on every reconcile with the same program text;
//! parsing and checking it once is most of the saving. A lookup hashes the
//! sources with a fast non-cryptographic hash (about a microsecond for
//! 8 KiB, where SHA-256 took several) and then compares them in full with
//! the cached entry's, so a hash collision can only cost a rebuild, never
//! return the wrong program.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, Weak};

/// No slot (end of the recency list).
const NIL: usize = usize::MAX;

struct Slot<K, V> {
    /// `None` while the slot is on the free list.
    entry: Option<(K, V)>,
    weight: usize,
    /// Towards the most recently used end.
    prev: usize,
    /// Towards the least recently used end.
    next: usize,
}

/// A least-recently-used map bounded by entries and by bytes. Not
/// thread-safe by itself (callers wrap it in a lock).
pub struct Lru<K, V> {
    index: HashMap<K, usize, foldhash::fast::RandomState>,
    slots: Vec<Slot<K, V>>,
    free: Vec<usize>,
    /// Most recently used.
    head: usize,
    /// Least recently used: the next to go.
    tail: usize,
    bytes: usize,
    max_entries: usize,
    max_bytes: usize,
    evictions: u64,
}

impl<K: Hash + Eq + Clone, V> Lru<K, V> {
    /// An empty map that keeps at most `max_entries` entries (at least one)
    /// whose weights add up to at most `max_bytes`.
    pub fn new(max_entries: usize, max_bytes: usize) -> Lru<K, V> {
        Lru {
            index: HashMap::default(),
            slots: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            bytes: 0,
            max_entries: max_entries.max(1),
            max_bytes,
            evictions: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Sum of the entries' weights.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Entries dropped to make room, so far (replacing or removing an entry
    /// is no eviction).
    pub fn evictions(&self) -> u64 {
        self.evictions
    }

    pub fn max_entries(&self) -> usize {
        self.max_entries
    }

    pub fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    fn unlink(&mut self, i: usize) {
        let (prev, next) = (self.slots[i].prev, self.slots[i].next);
        match prev {
            NIL => self.head = next,
            p => self.slots[p].next = next,
        }
        match next {
            NIL => self.tail = prev,
            n => self.slots[n].prev = prev,
        }
        self.slots[i].prev = NIL;
        self.slots[i].next = NIL;
    }

    fn push_front(&mut self, i: usize) {
        self.slots[i].prev = NIL;
        self.slots[i].next = self.head;
        match self.head {
            NIL => self.tail = i,
            h => self.slots[h].prev = i,
        }
        self.head = i;
    }

    /// Frees slot `i` and returns its entry.
    fn take(&mut self, i: usize) -> Option<(K, V)> {
        self.unlink(i);
        let entry = self.slots[i].entry.take()?;
        self.index.remove(&entry.0);
        self.bytes -= self.slots[i].weight;
        self.slots[i].weight = 0;
        self.free.push(i);
        Some(entry)
    }

    /// The value for `key`, which becomes the most recently used.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        let i = *self.index.get(key)?;
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
        self.slots[i].entry.as_ref().map(|(_, v)| v)
    }

    /// The value for `key` without changing the recency order.
    pub fn peek(&self, key: &K) -> Option<&V> {
        let i = *self.index.get(key)?;
        self.slots[i].entry.as_ref().map(|(_, v)| v)
    }

    /// Removes `key`'s entry.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let i = *self.index.get(key)?;
        self.take(i).map(|(_, v)| v)
    }

    /// Inserts `value` under `key` (replacing any entry for `key`) as the
    /// most recently used entry, evicting least recently used ones until
    /// both bounds hold. An entry heavier than the whole byte budget is not
    /// kept (returns false).
    pub fn insert(&mut self, key: K, value: V, weight: usize) -> bool {
        self.remove(&key);
        if weight > self.max_bytes {
            return false;
        }
        while self.tail != NIL
            && (self.index.len() >= self.max_entries || self.bytes + weight > self.max_bytes)
        {
            self.take(self.tail);
            self.evictions += 1;
        }
        let slot = Slot {
            entry: Some((key.clone(), value)),
            weight,
            prev: NIL,
            next: NIL,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i] = slot;
                i
            }
            None => {
                self.slots.push(slot);
                self.slots.len() - 1
            }
        };
        self.push_front(i);
        self.index.insert(key, i);
        self.bytes += weight;
        true
    }

    /// The keys from most to least recently used.
    pub fn keys_by_recency(&self) -> Vec<&K> {
        let mut out = Vec::with_capacity(self.len());
        let mut i = self.head;
        while i != NIL {
            if let Some((k, _)) = &self.slots[i].entry {
                out.push(k);
            }
            i = self.slots[i].next;
        }
        out
    }
}

/// A cache's size, bounds and counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub entries: usize,
    /// Sum of the entries' weights (their estimated memory).
    pub bytes: usize,
    pub max_entries: usize,
    pub max_bytes: usize,
    pub hits: u64,
    pub misses: u64,
    /// Entries dropped to make room.
    pub evictions: u64,
}

/// The hash of a program's sources (length-prefixed parts).
pub(crate) fn hash_parts(parts: &[&[u8]]) -> u64 {
    let mut h = foldhash::fast::FixedState::with_seed(0x6663_6e2d_6863_6c00).build_hasher();
    for p in parts {
        h.write_u64(p.len() as u64);
        h.write(p);
    }
    h.finish()
}

/// What an entry costs beyond its sources and value: the slot, the index
/// entry, the parts' boxes and allocator rounding (an estimate).
const ENTRY_OVERHEAD: usize = 256;

struct Entry<T> {
    /// The sources this entry was built from, compared on every hit.
    parts: Vec<Box<[u8]>>,
    value: Arc<T>,
}

impl<T> Entry<T> {
    fn matches(&self, parts: &[&[u8]]) -> bool {
        self.parts.len() == parts.len() && self.parts.iter().zip(parts).all(|(a, b)| **a == **b)
    }
}

struct Inner<T> {
    /// Entries by the hash of their sources. Two sources with the same
    /// hash replace each other (a miss each time), which for a 64-bit hash
    /// does not happen in practice.
    lru: Lru<u64, Entry<T>>,
    hits: u64,
    misses: u64,
}

/// A thread-safe least-recently-used cache keyed by byte-string sources,
/// bounded by entries and by bytes: an entry weighs its sources plus what
/// the `weigh` function given to [`LruCache::new`] says its value costs.
/// Values are built outside the lock, so two threads missing the same key
/// at once may both build it (the results are equal; one is kept).
pub struct LruCache<T> {
    weigh: fn(&T) -> usize,
    inner: Mutex<Inner<T>>,
}

impl<T> LruCache<T> {
    pub fn new(max_entries: usize, max_bytes: usize, weigh: fn(&T) -> usize) -> LruCache<T> {
        LruCache {
            weigh,
            inner: Mutex::new(Inner {
                lru: Lru::new(max_entries, max_bytes),
                hits: 0,
                misses: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<T>> {
        // A panic while holding the lock cannot leave the list half-linked
        // (nothing in `Lru` panics between its updates), so poisoning is
        // ignored.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The cached value for the sources `parts` (a sequence of byte
    /// strings, compared part by part), or the one `build` makes (then
    /// cached if it fits the byte budget; a `build` that fails leaves
    /// nothing behind). Returns whether it was a hit.
    pub fn get_or_insert_with<E>(
        &self,
        parts: &[&[u8]],
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<(Arc<T>, bool), E> {
        self.get_or_insert_with_hash(hash_parts(parts), parts, &Weak::new(), build)
    }

    /// [`LruCache::get_or_insert_with`] given the sources' hash
    /// ([`hash_parts`] of `parts`), which a caller that sees the same
    /// sources call after call keeps instead of hashing them again, and the
    /// value it got for the same sources before (`last`, held weakly): an
    /// entry that is that value is theirs without comparing the sources
    /// again. (A live `Weak` keeps its allocation, so no other value can
    /// have its address.)
    pub(crate) fn get_or_insert_with_hash<E>(
        &self,
        hash: u64,
        parts: &[&[u8]],
        last: &Weak<T>,
        build: impl FnOnce() -> Result<T, E>,
    ) -> Result<(Arc<T>, bool), E> {
        debug_assert_eq!(hash, hash_parts(parts));
        {
            let mut inner = self.lock();
            let found = inner
                .lru
                .get(&hash)
                .filter(|e| std::ptr::eq(Arc::as_ptr(&e.value), last.as_ptr()) || e.matches(parts))
                .map(|e| e.value.clone());
            if let Some(v) = found {
                inner.hits += 1;
                return Ok((v, true));
            }
            inner.misses += 1;
        }
        let value = Arc::new(build()?);
        let weight = parts
            .iter()
            .map(|p| p.len())
            .sum::<usize>()
            .saturating_add((self.weigh)(&value))
            .saturating_add(ENTRY_OVERHEAD);
        let mut inner = self.lock();
        // Another thread may have built the same sources meanwhile.
        if inner.lru.peek(&hash).is_some_and(|e| e.matches(parts)) {
            return Ok((value, false));
        }
        let entry = Entry {
            parts: parts.iter().map(|p| Box::<[u8]>::from(*p)).collect(),
            value: value.clone(),
        };
        inner.lru.insert(hash, entry, weight);
        Ok((value, false))
    }

    /// Number of cached entries.
    pub fn len(&self) -> usize {
        self.lock().lru.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size, bounds and counters.
    pub fn stats(&self) -> CacheStats {
        let inner = self.lock();
        CacheStats {
            entries: inner.lru.len(),
            bytes: inner.lru.bytes(),
            max_entries: inner.lru.max_entries(),
            max_bytes: inner.lru.max_bytes(),
            hits: inner.hits,
            misses: inner.misses,
            evictions: inner.lru.evictions(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> [&[u8]; 1] {
        [s.as_bytes()]
    }

    fn ok(v: i32) -> Result<i32, std::convert::Infallible> {
        Ok(v)
    }

    fn built<T>(r: Result<T, std::convert::Infallible>) -> T {
        let Ok(v) = r;
        v
    }

    fn unweighed(_: &i32) -> usize {
        0
    }

    fn big(v: &i32) -> usize {
        usize::try_from(*v).unwrap_or(0)
    }

    #[test]
    fn builds_once_per_key() {
        let cache = LruCache::new(4, 1 << 20, unweighed);
        let mut builds = 0;
        let (a, hit) = built(cache.get_or_insert_with(&k("a"), || {
            builds += 1;
            ok(1)
        }));
        assert!(!hit);
        let (b, hit) = built(cache.get_or_insert_with(&k("a"), || {
            builds += 1;
            ok(2)
        }));
        assert!(hit);
        assert_eq!((*a, *b, builds), (1, 1, 1));
        let stats = cache.stats();
        assert_eq!((stats.hits, stats.misses, stats.evictions), (1, 1, 0));
        assert_eq!(stats.bytes, 1 + ENTRY_OVERHEAD);
    }

    #[test]
    fn evicts_the_least_recently_used() {
        let cache = LruCache::new(2, 1 << 20, unweighed);
        built(cache.get_or_insert_with(&k("a"), || ok(1)));
        built(cache.get_or_insert_with(&k("b"), || ok(2)));
        built(cache.get_or_insert_with(&k("a"), || ok(0))); // touch a
        built(cache.get_or_insert_with(&k("c"), || ok(3))); // evicts b
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.stats().evictions, 1);
        assert!(built(cache.get_or_insert_with(&k("a"), || ok(0))).1);
        assert!(!built(cache.get_or_insert_with(&k("b"), || ok(0))).1);
    }

    #[test]
    fn bounded_by_bytes() {
        // Each value weighs what it says, plus its one-byte key and the
        // overhead; the budget holds three entries of 1,000.
        let per = 1_000 + 1 + ENTRY_OVERHEAD;
        let cache = LruCache::new(100, 3 * per + 10, big);
        for key in ["a", "b", "c"] {
            built(cache.get_or_insert_with(&k(key), || ok(1_000)));
        }
        let s = cache.stats();
        assert_eq!((s.entries, s.bytes, s.evictions), (3, 3 * per, 0));
        built(cache.get_or_insert_with(&k("a"), || ok(0))); // touch a: b is now the oldest
        built(cache.get_or_insert_with(&k("d"), || ok(1_000)));
        let s = cache.stats();
        assert_eq!((s.entries, s.bytes, s.evictions), (3, 3 * per, 1));
        assert!(
            built(cache.get_or_insert_with(&k("a"), || ok(0))).1,
            "a was used recently"
        );
        // A heavy entry evicts as many as it needs.
        built(cache.get_or_insert_with(&k("e"), || ok(2_500)));
        let s = cache.stats();
        assert_eq!(s.entries, 1);
        assert!(s.bytes <= s.max_bytes);
        // One heavier than the whole budget is built but not kept.
        let (v, hit) = built(cache.get_or_insert_with(&k("f"), || ok(10_000)));
        assert_eq!((*v, hit), (10_000, false));
        assert!(!built(cache.get_or_insert_with(&k("f"), || ok(10_000))).1);
        assert_eq!(cache.stats().entries, 1);
    }

    #[test]
    fn many_distinct_sources_stay_within_bounds() {
        let cache = LruCache::new(8, 4_000, big);
        for i in 0..1_000 {
            let key = format!("program {i}");
            built(cache.get_or_insert_with(&k(&key), || ok(100)));
            let s = cache.stats();
            assert!(s.entries <= 8 && s.bytes <= 4_000, "{s:?}");
        }
        let s = cache.stats();
        assert_eq!(s.misses, 1_000);
        assert_eq!(s.evictions, 1_000 - s.entries as u64);
    }

    #[test]
    fn keys_are_unambiguous() {
        assert_ne!(
            hash_parts(&[b"ab".as_slice(), b"c"]),
            hash_parts(&[b"a".as_slice(), b"bc"])
        );
        let cache = LruCache::new(4, 1 << 20, unweighed);
        built(cache.get_or_insert_with(&[b"ab".as_slice(), b"c"], || ok(1)));
        assert!(!built(cache.get_or_insert_with(&[b"a".as_slice(), b"bc"], || ok(2))).1);
    }

    #[test]
    fn a_hash_collision_is_a_miss_not_a_wrong_hit() {
        let cache = LruCache::new(4, 1 << 20, unweighed);
        let (a, _) = built(cache.get_or_insert_with(&k("a"), || ok(1)));
        // Plant an entry for other sources under the same hash.
        {
            let mut inner = cache.lock();
            let h = hash_parts(&k("a"));
            let i = inner.lru.index[&h];
            let (_, entry) = inner.lru.slots[i].entry.as_mut().expect("entry");
            entry.parts = vec![Box::from(&b"b"[..])];
        }
        let (b, hit) = built(cache.get_or_insert_with(&k("a"), || ok(2)));
        assert!(!hit);
        assert_eq!((*a, *b, cache.len()), (1, 2, 1));
        assert!(built(cache.get_or_insert_with(&k("a"), || ok(3))).1);
    }

    #[test]
    fn the_value_got_last_is_found_by_identity() {
        let cache = LruCache::new(4, 1 << 20, unweighed);
        let h = hash_parts(&k("a"));
        let (a, _) = built(cache.get_or_insert_with(&k("a"), || ok(1)));
        let last = Arc::downgrade(&a);
        // The entry's sources no longer match "a": found by identity all
        // the same (not compared), and only then.
        {
            let mut inner = cache.lock();
            let i = inner.lru.index[&h];
            let (_, entry) = inner.lru.slots[i].entry.as_mut().expect("entry");
            entry.parts = vec![Box::from(&b"b"[..])];
        }
        let (b, hit) = built(cache.get_or_insert_with_hash(h, &k("a"), &last, || ok(2)));
        assert!(hit && Arc::ptr_eq(&a, &b));
        assert_eq!(cache.stats().hits, 1);
        let (c, hit) = built(cache.get_or_insert_with_hash(h, &k("a"), &Weak::new(), || ok(3)));
        assert!(!hit);
        assert_eq!(*c, 3);
        // The value got before is no longer the entry's: the sources are
        // compared, and the new entry is a hit.
        let (d, hit) = built(cache.get_or_insert_with_hash(h, &k("a"), &last, || ok(4)));
        assert!(hit && Arc::ptr_eq(&c, &d));
        // Another key's value given as the last one changes nothing.
        let (e, hit) =
            built(cache.get_or_insert_with_hash(hash_parts(&k("e")), &k("e"), &last, || ok(5)));
        assert!(!hit);
        assert_eq!(*e, 5);
    }

    #[test]
    fn lru_order_bounds_and_removal() {
        let mut lru = Lru::new(3, 100);
        assert!(lru.insert("a", 1, 10));
        assert!(lru.insert("b", 2, 10));
        assert!(lru.insert("c", 3, 10));
        assert_eq!(lru.keys_by_recency(), [&"c", &"b", &"a"]);
        assert_eq!(lru.get(&"a"), Some(&1));
        assert_eq!(lru.keys_by_recency(), [&"a", &"c", &"b"]);
        assert_eq!(lru.peek(&"b"), Some(&2));
        assert_eq!(
            lru.keys_by_recency(),
            [&"a", &"c", &"b"],
            "peek keeps the order"
        );
        // By entries: the least recently used goes.
        assert!(lru.insert("d", 4, 10));
        assert_eq!(lru.keys_by_recency(), [&"d", &"a", &"c"]);
        assert_eq!((lru.len(), lru.bytes(), lru.evictions()), (3, 30, 1));
        // Replacing is no eviction and re-weighs.
        assert!(lru.insert("c", 30, 50));
        assert_eq!(lru.keys_by_recency(), [&"c", &"d", &"a"]);
        assert_eq!((lru.len(), lru.bytes(), lru.evictions()), (3, 70, 1));
        // `e` (40) needs a free entry: `a` goes, then 60 + 40 fits.
        assert!(lru.insert("e", 5, 40));
        assert_eq!(lru.keys_by_recency(), [&"e", &"c", &"d"]);
        assert_eq!((lru.len(), lru.bytes(), lru.evictions()), (3, 100, 2));
        // By bytes: after `d` makes room for an entry, 90 + 20 > 100, so
        // `c` goes too.
        assert!(lru.insert("f", 6, 20));
        assert_eq!(lru.keys_by_recency(), [&"f", &"e"]);
        assert_eq!((lru.len(), lru.bytes(), lru.evictions()), (2, 60, 4));
        assert_eq!(lru.remove(&"e"), Some(5));
        assert_eq!((lru.len(), lru.bytes(), lru.evictions()), (1, 20, 4));
        assert!(!lru.insert("huge", 0, 101));
        assert_eq!(lru.keys_by_recency(), [&"f"]);
        // Slots are reused, the list stays consistent.
        for i in 0..10 {
            assert!(lru.insert(if i % 2 == 0 { "x" } else { "y" }, i, 10));
        }
        assert_eq!(lru.keys_by_recency(), [&"y", &"x", &"f"]);
        assert!(lru.slots.len() <= 4, "{} slots", lru.slots.len());
        assert_eq!(lru.get(&"nope"), None);
    }
}
