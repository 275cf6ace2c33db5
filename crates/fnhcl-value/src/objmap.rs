//! [`ObjMap`]: the attributes of an object or the entries of a map, as one
//! sorted, shared slice.
//!
//! Invariants: entries are sorted by key in byte order of the UTF-8 text
//! (the order `BTreeMap<Arc<str>, _>` gave, and cty's lexical order), and
//! keys are unique. The entries live in one `Arc<[(Key, Value)]>` (none for
//! an empty map): one allocation per map, shared by clones (a clone is a
//! reference count), binary-search lookups, and iteration is a slice walk.
//! [`crate::Value::Object`] holds an `ObjMap` directly, so an object is one
//! allocation, not an `Arc` box and a vector buffer.
//!
//! Changing a map is copy-on-write: changing values in place
//! ([`ObjMap::get_mut`], [`ObjMap::iter_mut`], ...) copies the entries only
//! when they are shared; adding or removing a key builds a new slice (O(n)
//! and an allocation each time). Code that builds a map collects
//! `(key, value)` pairs and calls [`FromIterator`] (one sort, last duplicate
//! wins, as `BTreeMap`'s `collect`) or [`ObjMap::from_sorted`] instead of
//! inserting in a loop; an iterator of known length (a slice or vector
//! mapped) becomes the slice in one allocation.
//!
//! Size: about 580 lines of code; the rest are its unit tests.

use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

use crate::{Key, Value};

/// Maps up to this size are searched linearly.
const LINEAR_MAX: usize = 8;

/// Byte order of the UTF-8 text (`str`'s `Ord`), deciding on the first
/// bytes inline: keys mostly differ there, and a `memcmp` call costs more
/// than the comparison.
#[inline]
fn key_cmp(a: &str, b: &str) -> Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.as_bytes().cmp(b.as_bytes()),
    }
}

/// Whether two keys are the same text: lengths first, then keys of up to
/// 16 bytes (nearly all) as two overlapping words each, without a
/// `memcmp` call (keys of the same length often differ only at the end:
/// `bucket-1`, `bucket-2`).
#[inline(always)]
pub fn key_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// The eight bytes of `s` from `at` as a little-endian word.
#[inline(always)]
pub(crate) fn word(s: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&s[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The four bytes of `s` from `at` as a little-endian word.
#[inline(always)]
pub(crate) fn half(s: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&s[at..at + 4]);
    u32::from_le_bytes(w)
}

fn strictly_sorted(entries: &[(Key, Value)]) -> bool {
    entries
        .windows(2)
        .all(|w| key_cmp(&w[0].0, &w[1].0).is_lt())
}

/// The entries as a shared slice, `None` when empty.
type Store = Option<Arc<[(Key, Value)]>>;

/// One shared slice of `entries` (none when empty). A vector's buffer is
/// copied into the slice's allocation: builders that know the length use
/// an exact-size iterator instead (see [`ObjMap::from_sorted_iter`]).
#[inline]
fn store(entries: Vec<(Key, Value)>) -> Store {
    if entries.is_empty() {
        None
    } else {
        Some(Arc::from(entries))
    }
}

/// A sorted, duplicate-free map from [`Key`] to [`Value`] (see the module
/// documentation). Its API follows `BTreeMap`'s.
///
/// ```
/// use fnhcl_value::{Key, ObjMap, Value};
///
/// // `collect` sorts by key (byte order) and keeps the last duplicate.
/// let m: ObjMap = [("b", 1), ("a", 2), ("b", 3)]
///     .into_iter()
///     .map(|(k, v)| (Key::from(k), Value::int(v)))
///     .collect();
/// assert_eq!(m.keys().map(|k| &**k).collect::<Vec<_>>(), ["a", "b"]);
/// assert_eq!(m.get("b"), Some(&Value::int(3)));
/// ```
#[derive(Clone, Default)]
pub struct ObjMap {
    entries: Store,
}

impl PartialEq for ObjMap {
    fn eq(&self, other: &ObjMap) -> bool {
        match (&self.entries, &other.entries) {
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => true,
            _ => self.as_slice() == other.as_slice(),
        }
    }
}

impl ObjMap {
    pub const fn new() -> ObjMap {
        ObjMap { entries: None }
    }

    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_none()
    }

    /// The entries in key order.
    #[inline]
    pub fn as_slice(&self) -> &[(Key, Value)] {
        match &self.entries {
            Some(e) => e,
            None => &[],
        }
    }

    /// True if both maps share their entries (one is a clone of the
    /// other, unchanged since), or both are empty.
    pub fn ptr_eq(&self, other: &ObjMap) -> bool {
        match (&self.entries, &other.entries) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        }
    }

    /// The entries, to change in place (copied first if shared).
    fn slice_mut(&mut self) -> &mut [(Key, Value)] {
        match &mut self.entries {
            Some(e) => Arc::make_mut(e),
            None => &mut [],
        }
    }

    /// The entries as a vector to change (cloned out of the shared slice),
    /// the map left empty; put them back with `self.entries = store(v)`.
    fn take_vec(&mut self) -> Vec<(Key, Value)> {
        match self.entries.take() {
            Some(e) => e.to_vec(),
            None => Vec::new(),
        }
    }

    /// Where `key` is (`Ok`) or would go (`Err`): a binary search.
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.as_slice().binary_search_by(|(k, _)| key_cmp(k, key))
    }

    /// The index of `key`. Small maps (most objects) are scanned, which
    /// compares lengths first and calls no `memcmp` for most misses, nor
    /// for a hit on the same text (a key and a name read from the same
    /// parse share it).
    #[inline]
    fn position(&self, key: &str) -> Option<usize> {
        let entries = self.as_slice();
        if entries.len() <= LINEAR_MAX {
            entries.iter().position(|(k, _)| {
                k.len() == key.len()
                    && (std::ptr::eq(k.as_ptr(), key.as_ptr())
                        || key_eq(k.as_bytes(), key.as_bytes()))
            })
        } else {
            self.find(key).ok()
        }
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&Value>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).map(|i| &self.as_slice()[i].1)
    }

    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&Key, &Value)>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).map(|i| {
            let (k, v) = &self.as_slice()[i];
            (k, v)
        })
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut Value>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref())
            .map(|i| &mut self.slice_mut()[i].1)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).is_some()
    }

    /// Inserts or replaces; returns the previous value. Replacing changes
    /// the value in place; a new key builds the entries anew (O(n)).
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        let pos = match self.find(&key) {
            Ok(i) => return Some(std::mem::replace(&mut self.slice_mut()[i].1, value)),
            Err(i) => i,
        };
        let old = self.as_slice();
        let entries: Arc<[(Key, Value)]> = old[..pos]
            .iter()
            .cloned()
            .chain(std::iter::once((key, value)))
            .chain(old[pos..].iter().cloned())
            .collect();
        self.entries = Some(entries);
        None
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<Value>
    where
        Q: AsRef<str> + ?Sized,
    {
        let i = self.position(key.as_ref())?;
        let mut v = self.take_vec();
        let (_, value) = v.remove(i);
        self.entries = store(v);
        Some(value)
    }

    /// Keeps the entries for which `keep` is true (in one pass).
    pub fn retain(&mut self, mut keep: impl FnMut(&Key, &mut Value) -> bool) {
        let mut v = self.take_vec();
        v.retain_mut(|(k, v)| keep(k, v));
        self.entries = store(v);
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter(self.as_slice().iter())
    }

    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.slice_mut().iter_mut())
    }

    pub fn keys(&self) -> Keys<'_> {
        Keys(self.as_slice().iter())
    }

    pub fn values(&self) -> Values<'_> {
        Values(self.as_slice().iter())
    }

    pub fn values_mut(&mut self) -> ValuesMut<'_> {
        ValuesMut(self.slice_mut().iter_mut())
    }

    pub fn into_values(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        self.into_iter().map(|(_, v)| v)
    }

    /// A map of entries already in key order, without duplicates, for a
    /// caller that worked the order out once (a compiled object
    /// constructor, a merge of maps): no sort and, in release builds, no
    /// check. Debug builds check the order; out-of-order entries are a bug
    /// in the caller. Use `collect` when the order is not known.
    pub fn from_sorted(entries: Vec<(Key, Value)>) -> ObjMap {
        debug_assert!(
            strictly_sorted(&entries),
            "ObjMap::from_sorted: entries out of order or duplicated"
        );
        ObjMap {
            entries: store(entries),
        }
    }

    /// The entries `buf[base..]`, taken out of `buf` (which keeps its
    /// capacity, for a reader that collects every object's members in one
    /// buffer): sorted and deduplicated as [`FromIterator`] does, in the
    /// buffer itself, then moved into one allocation.
    pub fn drain_from(buf: &mut Vec<(Key, Value)>, base: usize) -> ObjMap {
        if !strictly_sorted(&buf[base..]) {
            // Sorted and deduplicated where they are (no vector in
            // between): a stable sort keeps equal keys in reading order,
            // and the last of each run's value is moved into the first.
            buf[base..].sort_by(|a, b| key_cmp(&a.0, &b.0));
            let mut kept = base;
            for next in base + 1..buf.len() {
                if key_eq(buf[next].0.as_bytes(), buf[kept].0.as_bytes()) {
                    let (head, tail) = buf.split_at_mut(next);
                    std::mem::swap(&mut head[kept].1, &mut tail[0].1);
                } else {
                    kept += 1;
                    buf.swap(kept, next);
                }
            }
            buf.truncate(kept + 1);
        }
        ObjMap::from_sorted_iter(buf.drain(base..))
    }

    /// [`ObjMap::from_sorted`] of an iterator: one allocation when the
    /// iterator's length is exact and trusted (a slice's or a vector's
    /// iterator, mapped or zipped), no vector in between.
    pub fn from_sorted_iter<I>(entries: I) -> ObjMap
    where
        I: IntoIterator<Item = (Key, Value)>,
        I::IntoIter: ExactSizeIterator,
    {
        let it = entries.into_iter();
        if it.len() == 0 {
            return ObjMap::new();
        }
        let entries: Arc<[(Key, Value)]> = it.collect();
        debug_assert!(
            strictly_sorted(&entries),
            "ObjMap::from_sorted_iter: entries out of order or duplicated"
        );
        ObjMap {
            entries: (!entries.is_empty()).then_some(entries),
        }
    }

    /// Entries of `self` and `later` in key order, `later`'s value kept
    /// where both have a key (one pass over both, no sort).
    pub fn merged_with(&self, later: &ObjMap) -> ObjMap {
        let (a, b) = (self.as_slice(), later.as_slice());
        if a.is_empty() {
            return later.clone();
        }
        if b.is_empty() {
            return self.clone();
        }
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match key_cmp(&a[i].0, &b[j].0) {
                Ordering::Less => {
                    out.push(a[i].clone());
                    i += 1;
                }
                Ordering::Greater => {
                    out.push(b[j].clone());
                    j += 1;
                }
                Ordering::Equal => {
                    out.push(b[j].clone());
                    i += 1;
                    j += 1;
                }
            }
        }
        out.extend_from_slice(&a[i..]);
        out.extend_from_slice(&b[j..]);
        ObjMap {
            entries: store(out),
        }
    }

    fn from_vec(mut entries: Vec<(Key, Value)>) -> ObjMap {
        if !strictly_sorted(&entries) {
            entries.sort_by(|a, b| key_cmp(&a.0, &b.0));
            // `dedup_by` passes (later, kept earlier); move the later value
            // into the kept slot so the last duplicate wins.
            entries.dedup_by(|later, kept| {
                if later.0 == kept.0 {
                    std::mem::swap(&mut later.1, &mut kept.1);
                    true
                } else {
                    false
                }
            });
        }
        ObjMap {
            entries: store(entries),
        }
    }
}

impl FromIterator<(Key, Value)> for ObjMap {
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(iter: I) -> ObjMap {
        ObjMap::from_vec(iter.into_iter().collect())
    }
}

impl Extend<(Key, Value)> for ObjMap {
    fn extend<I: IntoIterator<Item = (Key, Value)>>(&mut self, iter: I) {
        let mut iter = iter.into_iter().peekable();
        if iter.peek().is_none() {
            return;
        }
        let mut entries = self.take_vec();
        entries.extend(iter);
        *self = ObjMap::from_vec(entries);
    }
}

impl<const N: usize> From<[(Key, Value); N]> for ObjMap {
    fn from(entries: [(Key, Value); N]) -> ObjMap {
        ObjMap::from_vec(entries.into())
    }
}

impl From<std::collections::BTreeMap<Key, Value>> for ObjMap {
    fn from(map: std::collections::BTreeMap<Key, Value>) -> ObjMap {
        ObjMap {
            entries: (!map.is_empty()).then(|| map.into_iter().collect()),
        }
    }
}

impl From<ObjMap> for std::collections::BTreeMap<Key, Value> {
    fn from(map: ObjMap) -> Self {
        map.into_iter().collect()
    }
}

impl<Q> std::ops::Index<&Q> for ObjMap
where
    Q: AsRef<str> + ?Sized,
{
    type Output = Value;

    fn index(&self, key: &Q) -> &Value {
        self.get(key).expect("no entry found for key")
    }
}

impl fmt::Debug for ObjMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl IntoIterator for ObjMap {
    type Item = (Key, Value);
    type IntoIter = std::vec::IntoIter<(Key, Value)>;

    /// The entries, cloned out of the shared slice.
    fn into_iter(mut self) -> Self::IntoIter {
        self.take_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a ObjMap {
    type Item = (&'a Key, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut ObjMap {
    type Item = (&'a Key, &'a mut Value);
    type IntoIter = IterMut<'a>;

    fn into_iter(self) -> IterMut<'a> {
        self.iter_mut()
    }
}

/// Defines a slice-walking iterator that maps each entry with `$f`.
macro_rules! entry_iter {
    ($(#[$doc:meta])* $name:ident, $slice_iter:ident, $item:ty, $f:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<'a>(std::slice::$slice_iter<'a, (Key, Value)>);

        impl<'a> Iterator for $name<'a> {
            type Item = $item;

            #[inline]
            fn next(&mut self) -> Option<$item> {
                self.0.next().map($f)
            }

            #[inline]
            fn size_hint(&self) -> (usize, Option<usize>) {
                self.0.size_hint()
            }

            #[inline]
            fn nth(&mut self, n: usize) -> Option<$item> {
                self.0.nth(n).map($f)
            }
        }

        impl<'a> DoubleEndedIterator for $name<'a> {
            #[inline]
            fn next_back(&mut self) -> Option<$item> {
                self.0.next_back().map($f)
            }
        }

        impl ExactSizeIterator for $name<'_> {}
        impl std::iter::FusedIterator for $name<'_> {}
    };
}

entry_iter!(
    /// Entries in key order.
    Iter, Iter, (&'a Key, &'a Value), |(k, v): &'a (Key, Value)| (k, v)
);
entry_iter!(
    /// Entries in key order, values mutable.
    IterMut, IterMut, (&'a Key, &'a mut Value), |(k, v): &'a mut (Key, Value)| (&*k, v)
);
entry_iter!(
    /// Keys in order.
    Keys, Iter, &'a Key, |(k, _): &'a (Key, Value)| k
);
entry_iter!(
    /// Values in key order.
    Values, Iter, &'a Value, |(_, v): &'a (Key, Value)| v
);
entry_iter!(
    /// Values in key order, mutable.
    ValuesMut, IterMut, &'a mut Value, |(_, v): &'a mut (Key, Value)| v
);

impl Clone for Iter<'_> {
    fn clone(&self) -> Self {
        Iter(self.0.clone())
    }
}

impl Clone for Keys<'_> {
    fn clone(&self) -> Self {
        Keys(self.0.clone())
    }
}

impl Clone for Values<'_> {
    fn clone(&self) -> Self {
        Values(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(s: &str) -> Key {
        s.into()
    }

    /// Keys are ordered as `str` orders them: every pair of keys up to 18
    /// bytes that differ in one byte (low, high, multi-byte lead) at any
    /// place, or in length.
    #[test]
    fn key_order_is_byte_order() {
        let mut keys = vec![String::new()];
        for len in 1..=18 {
            let base = "k".repeat(len);
            keys.push(base.clone());
            for at in 0..len {
                for c in ['\u{0}', '0', 'a', 'z', '\u{7f}', 'é'] {
                    let mut t: Vec<char> = base.chars().collect();
                    t[at] = c;
                    keys.push(t.into_iter().collect());
                }
            }
        }
        for a in &keys {
            for b in &keys {
                assert_eq!(key_cmp(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn drain_from_takes_the_tail_sorted_or_not() {
        let mut buf = vec![(k("outer"), Value::int(0))];
        buf.extend([("a", 1), ("b", 2)].map(|(n, v)| (k(n), Value::int(v))));
        let m = ObjMap::drain_from(&mut buf, 1);
        assert_eq!(m.keys().map(|k| &**k).collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(buf.len(), 1);
        buf.extend([("b", 1), ("a", 2), ("b", 3)].map(|(n, v)| (k(n), Value::int(v))));
        let m = ObjMap::drain_from(&mut buf, 1);
        let expected: ObjMap = [("b", 1), ("a", 2), ("b", 3)]
            .into_iter()
            .map(|(n, v)| (k(n), Value::int(v)))
            .collect();
        assert_eq!(m, expected);
        assert_eq!(m.get("b"), Some(&Value::int(3)));
        assert!(ObjMap::drain_from(&mut buf, 1).is_empty());
        assert_eq!(buf.len(), 1);
    }

    #[test]
    fn drain_from_agrees_with_collect() {
        // Every sequence of up to five keys over three names (duplicates,
        // runs, every order), each value its place: the same map as
        // `collect`, with the last duplicate's value.
        let names = ["b", "a", "c"];
        for len in 0..=5u32 {
            for code in 0..3usize.pow(len) {
                let pairs: Vec<(Key, Value)> = (0..len)
                    .map(|i| {
                        let name = names[code / 3usize.pow(i) % 3];
                        (k(name), Value::int(i64::from(i)))
                    })
                    .collect();
                let mut buf = vec![(k("outer"), Value::int(-1))];
                buf.extend(pairs.iter().cloned());
                let m = ObjMap::drain_from(&mut buf, 1);
                let expected: ObjMap = pairs.iter().cloned().collect();
                assert_eq!(m, expected, "{pairs:?}");
                assert_eq!(
                    m.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>(),
                    expected.iter().map(|(_, v)| v.clone()).collect::<Vec<_>>()
                );
                assert_eq!(buf.len(), 1);
            }
        }
    }

    #[test]
    fn collect_sorts_and_last_duplicate_wins() {
        let pairs = vec![
            (k("b"), Value::int(1)),
            (k("a"), Value::int(2)),
            (k("b"), Value::int(3)),
            (k("é"), Value::int(4)),
            (k("Z"), Value::int(5)),
            (k("b"), Value::int(6)),
        ];
        let m: ObjMap = pairs.clone().into_iter().collect();
        let keys: Vec<&str> = m.keys().map(|k| &**k).collect();
        assert_eq!(keys, ["Z", "a", "b", "é"]);
        assert_eq!(m.get("b"), Some(&Value::int(6)));
        let reference: std::collections::BTreeMap<Key, Value> = pairs.into_iter().collect();
        assert_eq!(ObjMap::from(reference), m);
    }

    #[test]
    fn merged_with_is_collect_of_both_later_winning() {
        let words = ["", "a", "ab", "b", "B", "Z", "é", "z", "za", "kind", "spec"];
        // Every pair of subsets of a few words (by bit masks).
        for ma in 0u32..64 {
            for mb in (0u32..2048).step_by(37) {
                let a: ObjMap = words
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| ma & (1 << (i % 6)) != 0 && *i < 6)
                    .map(|(i, w)| (k(w), Value::int(i as i64)))
                    .collect();
                let b: ObjMap = words
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mb & (1 << i) != 0)
                    .map(|(i, w)| (k(w), Value::int(100 + i as i64)))
                    .collect();
                let expected: ObjMap = a
                    .iter()
                    .chain(b.iter())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let got = a.merged_with(&b);
                assert!(strictly_sorted(got.as_slice()));
                assert_eq!(got, expected, "{ma} {mb}");
            }
        }
    }

    #[test]
    fn from_sorted_keeps_sorted_entries() {
        let entries = vec![(k("a"), Value::int(1)), (k("b"), Value::int(2))];
        let m = ObjMap::from_sorted(entries.clone());
        assert_eq!(m, entries.into_iter().collect::<ObjMap>());
    }

    #[test]
    fn order_and_lookups_match_btreemap() {
        let words = [
            "",
            "a",
            "ab",
            "abc",
            "b",
            "B",
            "Z",
            "é",
            "e\u{301}",
            "z",
            "za",
            "\u{7f}",
            "aa",
            "a\0",
            "kind",
            "apiVersion",
            "metadata",
            "spec",
            "status",
            "x",
            "y",
            "xy",
        ];
        for n in [0, 1, 3, 8, 9, words.len()] {
            let pairs: Vec<(Key, Value)> = words[..n]
                .iter()
                .rev()
                .enumerate()
                .map(|(i, w)| (k(w), Value::int(i as i64)))
                .collect();
            let m: ObjMap = pairs.iter().cloned().collect();
            let b: std::collections::BTreeMap<Key, Value> = pairs.into_iter().collect();
            assert!(m.iter().eq(b.iter()), "{n}");
            for w in words.iter().chain(&["q", "aaa", "zz", "\u{ff}"]) {
                assert_eq!(m.get(*w), b.get(*w), "{n} {w:?}");
                assert_eq!(m.contains_key(*w), b.contains_key(*w));
            }
            let mut ins = ObjMap::new();
            for (key, v) in b.iter().rev() {
                ins.insert(key.clone(), v.clone());
            }
            assert_eq!(ins, m);
        }
    }

    #[test]
    fn key_eq_is_byte_equality() {
        // Every length up to past the word cases, differing at each place.
        for n in 0..24usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(key_eq(&a, &a.clone()), "{n}");
            for at in 0..n {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert_eq!(key_eq(&a, &b), a == b, "{n} {at}");
                assert!(!key_eq(&a, &b), "{n} {at}");
            }
            let mut longer = a.clone();
            longer.push(b'x');
            assert!(!key_eq(&a, &longer));
        }
    }

    #[test]
    fn changes_do_not_reach_clones() {
        let orig: ObjMap = ["a", "c", "e"].map(|s| (k(s), Value::int(1))).into();
        let check = |m: &ObjMap| assert_eq!(m, &orig);
        let mut m = orig.clone();
        assert!(m.ptr_eq(&orig));
        *m.get_mut("c").expect("c") = Value::int(2);
        check(&orig);
        assert!(!m.ptr_eq(&orig));
        let mut m = orig.clone();
        m.insert(k("b"), Value::int(3));
        m.insert(k("a"), Value::int(4));
        check(&orig);
        assert_eq!(m.keys().map(|k| &**k).collect::<String>(), "abce");
        let mut m = orig.clone();
        m.remove("a");
        m.retain(|k, _| &**k != "e");
        check(&orig);
        assert_eq!(m.keys().map(|k| &**k).collect::<String>(), "c");
        let mut m = orig.clone();
        for v in m.values_mut() {
            *v = Value::int(9);
        }
        check(&orig);
        // Emptied maps are empty, whatever they were built from.
        let mut m = orig.clone();
        m.retain(|_, _| false);
        assert!(m.is_empty());
        assert_eq!(m, ObjMap::new());
        assert_eq!(ObjMap::from_sorted_iter(Vec::new()), ObjMap::new());
    }

    #[test]
    fn insert_remove_extend() {
        let mut m = ObjMap::new();
        assert_eq!(m.insert(k("m"), Value::int(1)), None);
        assert_eq!(m.insert(k("z"), Value::int(2)), None);
        assert_eq!(m.insert(k("a"), Value::int(3)), None);
        assert_eq!(m.insert(k("m"), Value::int(4)), Some(Value::int(1)));
        assert_eq!(m.insert(k("z"), Value::int(5)), Some(Value::int(2)));
        assert_eq!(m.keys().map(|k| &**k).collect::<String>(), "amz");
        assert_eq!(m.remove("m"), Some(Value::int(4)));
        assert_eq!(m.remove("m"), None);
        m.extend([(k("b"), Value::int(6)), (k("a"), Value::int(7))]);
        assert_eq!(m.keys().map(|k| &**k).collect::<String>(), "abz");
        assert_eq!(m["a"], Value::int(7));
        m.extend([(k("zz"), Value::int(8))]);
        assert_eq!(m.iter().next_back().map(|(k, _)| &**k), Some("zz"));
        assert_eq!(m.iter().len(), 4);
    }
}
