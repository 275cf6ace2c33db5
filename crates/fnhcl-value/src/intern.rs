//! [`StrCache`]: sharing the short strings a reader meets again and again
//! (object keys such as `name` or `metadata`) instead of allocating each
//! one anew.
//!
//! A document of many similar objects repeats a few hundred distinct short
//! texts tens of thousands of times. A reader that asks the cache for each
//! one gets a clone of the string it made last time (a reference count)
//! instead of an allocation, a copy and, later, a `free`. The cache is
//! direct-mapped: a text goes to one slot chosen by a hash of its length
//! and its first and last bytes; a different text in that slot is replaced
//! (no probing, no growth). A miss costs the hash, one comparison and the
//! slot's reference: a handful of instructions beside the allocation it
//! would have made anyway.
//!
//! The strings handed out are ordinary `Arc<str>`: a caller cannot tell a
//! shared one from a fresh one except by `Arc::ptr_eq`.

use std::cell::Cell;
use std::sync::Arc;
use std::thread::LocalKey;

use crate::key_eq;
use crate::objmap::{half, word};

/// Texts longer than this are not looked up (long texts rarely repeat,
/// and comparing them costs more).
pub const MAX_CACHED_LEN: usize = 32;

/// Number of slots (a power of two): 32 KiB of slots, taken at the first
/// lookup. Direct-mapped slots must outnumber the keys that recur by
/// several times, or keys that land in the same slot evict each other on
/// every text. With the expression workload's ~490 distinct keys: 256
/// slots cost 398.0 M instructions against 391.3 M with 1,024; later,
/// with other costs cut, 1,024 slots cost 357.3 M and 2,048 slots 355.4 M
/// (1,239 misses in 300 lines); 4,096 gain nothing more
/// (docs/notes/memory-and-jsonl.md, "Keys shared across lines").
const SLOTS: usize = 2048;

/// A direct-mapped cache of shared short strings (see the module
/// documentation). Not shared between threads: readers use this thread's
/// ([`ThreadCache`]).
#[derive(Default)]
pub struct StrCache {
    slots: Vec<Option<Arc<str>>>,
}

impl StrCache {
    pub fn new() -> StrCache {
        StrCache::default()
    }

    /// `s` as a shared string: the cached one when the slot for `s` holds
    /// the same text, else a new one (which then takes the slot).
    #[inline]
    pub fn get(&mut self, s: &str) -> Arc<str> {
        let b = s.as_bytes();
        if b.len() > MAX_CACHED_LEN {
            return Arc::from(s);
        }
        if self.slots.is_empty() {
            self.slots.resize(SLOTS, None);
        }
        let slot = &mut self.slots[slot_of(b)];
        if let Some(cached) = slot
            && key_eq(cached.as_bytes(), b)
        {
            return cached.clone();
        }
        let fresh: Arc<str> = Arc::from(s);
        *slot = Some(fresh.clone());
        fresh
    }
}

/// A value lent out of a thread-local slot and given back when dropped:
/// what a reader keeps from one text to the next on its thread (its
/// buffers, [`ThreadCache`]). Taking from an empty slot (the first time,
/// or while another reader of the thread holds the value) gives a default
/// value; giving back replaces what the slot holds.
pub struct Lent<T: Default + 'static> {
    value: T,
    home: &'static LocalKey<Cell<Option<T>>>,
}

impl<T: Default + 'static> Lent<T> {
    pub fn from_slot(home: &'static LocalKey<Cell<Option<T>>>) -> Lent<T> {
        let value = home.try_with(Cell::take).ok().flatten();
        Lent {
            value: value.unwrap_or_default(),
            home,
        }
    }
}

impl<T: Default + 'static> Drop for Lent<T> {
    fn drop(&mut self) {
        let value = std::mem::take(&mut self.value);
        // A thread being torn down has no slot left: the value is freed.
        let _ = self.home.try_with(|slot| slot.set(Some(value)));
    }
}

impl<T: Default + 'static> std::ops::Deref for Lent<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: Default + 'static> std::ops::DerefMut for Lent<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

thread_local! {
    static THREAD_CACHE: Cell<Option<StrCache>> = const { Cell::new(None) };
}

/// This thread's [`StrCache`], lent to one reader at a time: the readers
/// of a thread (the JSON reader, `jsondecode`) share their keys from one
/// text to the next. A reader started while another holds it gets an
/// empty cache of its own.
pub type ThreadCache = Lent<StrCache>;

impl Lent<StrCache> {
    pub fn take() -> ThreadCache {
        Lent::from_slot(&THREAD_CACHE)
    }
}

/// The slot of a text of at most [`MAX_CACHED_LEN`] bytes: its length and
/// up to its first and last eight bytes, mixed by one multiplication.
#[inline]
fn slot_of(b: &[u8]) -> usize {
    let n = b.len();
    let (head, tail) = match n {
        0 => (0, 0),
        1..=3 => (
            u64::from(b[0]) | u64::from(b[n / 2]) << 8,
            u64::from(b[n - 1]),
        ),
        4..=7 => (u64::from(half(b, 0)), u64::from(half(b, n - 4))),
        _ => (word(b, 0), word(b, n - 8)),
    };
    let mixed = (head ^ tail.rotate_left(29) ^ n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (mixed >> (64 - SLOTS.trailing_zeros())) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_text_is_shared() {
        let mut c = StrCache::new();
        let a = c.get("metadata");
        let b = c.get(&String::from("metadata"));
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(&*b, "metadata");
    }

    #[test]
    fn every_answer_is_the_text_asked_for() {
        // Texts of every length up to past the limit, differing anywhere
        // (the slot hash reads only the ends: texts that differ in the
        // middle share a slot and must still come back right).
        let mut c = StrCache::new();
        let mut texts = Vec::new();
        for len in 0..=MAX_CACHED_LEN + 3 {
            for at in 0..len.max(1) {
                for ch in [b'a', b'b', b'~'] {
                    let mut t = vec![b'x'; len];
                    if at < len {
                        t[at] = ch;
                    }
                    texts.push(String::from_utf8(t).unwrap());
                }
            }
        }
        for round in 0..2 {
            for t in &texts {
                assert_eq!(&*c.get(t), t.as_str(), "round {round}");
            }
        }
    }

    #[test]
    fn the_thread_cache_is_kept_between_readers() {
        let a = ThreadCache::take().get("apiVersion");
        let b = ThreadCache::take().get("apiVersion");
        assert!(Arc::ptr_eq(&a, &b));
        // Taken twice at once: the second is a cache of its own.
        let mut outer = ThreadCache::take();
        let mut inner = ThreadCache::take();
        assert!(!Arc::ptr_eq(&inner.get("apiVersion"), &a));
        assert!(Arc::ptr_eq(&outer.get("apiVersion"), &a));
    }

    #[test]
    fn long_texts_are_not_kept() {
        let mut c = StrCache::new();
        let long = "x".repeat(MAX_CACHED_LEN + 1);
        let a = c.get(&long);
        let b = c.get(&long);
        assert!(!Arc::ptr_eq(&a, &b));
        assert!(c.slots.iter().all(Option::is_none));
    }

    #[test]
    fn a_collision_replaces_the_slot() {
        let mut c = StrCache::new();
        // Same length, same first and last eight bytes: the same slot.
        let (x, y) = ("abcdefgh-1-12345678", "abcdefgh-2-12345678");
        assert_eq!(slot_of(x.as_bytes()), slot_of(y.as_bytes()));
        let first = c.get(x);
        assert_eq!(&*c.get(y), y);
        let again = c.get(x);
        assert_eq!(&*again, x);
        assert!(!Arc::ptr_eq(&first, &again), "y took the slot");
    }
}
