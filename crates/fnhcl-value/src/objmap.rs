//! [`ObjMap`]: the attributes of an object or the entries of a map, as one
//! sorted vector.
//!
//! Invariants: entries are sorted by key in byte order of the UTF-8 text
//! (the order `BTreeMap<Arc<str>, _>` gave, and cty's lexical order), and
//! keys are unique. One allocation per map, binary-search lookups, and
//! iteration is a slice walk.
//!
//! Inserting a key in the middle moves the tail (O(n)), so code that builds
//! a map from input of unbounded size collects `(key, value)` pairs and
//! calls [`FromIterator`] (one sort, last duplicate wins, as `BTreeMap`'s
//! `collect`) instead of inserting in a loop. Inserting keys in increasing
//! order is a push.

use std::cmp::Ordering;
use std::fmt;

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

fn strictly_sorted(entries: &[(Key, Value)]) -> bool {
    entries
        .windows(2)
        .all(|w| key_cmp(&w[0].0, &w[1].0).is_lt())
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
#[derive(Clone, Default, PartialEq)]
pub struct ObjMap {
    entries: Vec<(Key, Value)>,
}

impl ObjMap {
    pub const fn new() -> ObjMap {
        ObjMap {
            entries: Vec::new(),
        }
    }

    pub fn with_capacity(capacity: usize) -> ObjMap {
        ObjMap {
            entries: Vec::with_capacity(capacity),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries in key order.
    pub fn as_slice(&self) -> &[(Key, Value)] {
        &self.entries
    }

    /// Where `key` is (`Ok`) or would go (`Err`): a binary search.
    fn find(&self, key: &str) -> Result<usize, usize> {
        self.entries.binary_search_by(|(k, _)| key_cmp(k, key))
    }

    /// The index of `key`. Small maps (most objects) are scanned, which
    /// compares lengths first and calls no `memcmp` for most misses, nor
    /// for a hit on the same text (a key and a name read from the same
    /// parse share it).
    #[inline]
    fn position(&self, key: &str) -> Option<usize> {
        if self.entries.len() <= LINEAR_MAX {
            self.entries.iter().position(|(k, _)| {
                k.len() == key.len() && (std::ptr::eq(k.as_ptr(), key.as_ptr()) || **k == *key)
            })
        } else {
            self.find(key).ok()
        }
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&Value>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).map(|i| &self.entries[i].1)
    }

    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&Key, &Value)>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).map(|i| {
            let (k, v) = &self.entries[i];
            (k, v)
        })
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut Value>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).map(|i| &mut self.entries[i].1)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref()).is_some()
    }

    /// Inserts or replaces; returns the previous value. A key greater than
    /// every present key is a push; any other new key moves the tail.
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        let pos = match self.entries.last() {
            None => 0,
            Some((last, _)) => match key_cmp(last, &key) {
                Ordering::Less => self.entries.len(),
                Ordering::Equal => {
                    let slot = &mut self.entries.last_mut().expect("non-empty").1;
                    return Some(std::mem::replace(slot, value));
                }
                Ordering::Greater => match self.find(&key) {
                    Ok(i) => return Some(std::mem::replace(&mut self.entries[i].1, value)),
                    Err(i) => i,
                },
            },
        };
        self.entries.insert(pos, (key, value));
        None
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<Value>
    where
        Q: AsRef<str> + ?Sized,
    {
        self.position(key.as_ref())
            .map(|i| self.entries.remove(i).1)
    }

    /// Keeps the entries for which `keep` is true (in one pass).
    pub fn retain(&mut self, mut keep: impl FnMut(&Key, &mut Value) -> bool) {
        self.entries.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn first_key_value(&self) -> Option<(&Key, &Value)> {
        self.entries.first().map(|(k, v)| (k, v))
    }

    pub fn last_key_value(&self) -> Option<(&Key, &Value)> {
        self.entries.last().map(|(k, v)| (k, v))
    }

    pub fn iter(&self) -> Iter<'_> {
        Iter(self.entries.iter())
    }

    pub fn iter_mut(&mut self) -> IterMut<'_> {
        IterMut(self.entries.iter_mut())
    }

    pub fn keys(&self) -> Keys<'_> {
        Keys(self.entries.iter())
    }

    pub fn values(&self) -> Values<'_> {
        Values(self.entries.iter())
    }

    pub fn values_mut(&mut self) -> ValuesMut<'_> {
        ValuesMut(self.entries.iter_mut())
    }

    pub fn into_keys(self) -> impl DoubleEndedIterator<Item = Key> + ExactSizeIterator {
        self.entries.into_iter().map(|(k, _)| k)
    }

    pub fn into_values(self) -> impl DoubleEndedIterator<Item = Value> + ExactSizeIterator {
        self.entries.into_iter().map(|(_, v)| v)
    }

    /// Merges `other` into `self` in one walk of both sorted sequences:
    /// keys only in `other` are cloned in, and for keys in both
    /// `both(key, mine, theirs)` is called (in key order). Linear, where
    /// inserting `other`'s keys one by one could move the tail each time.
    /// On the first error `self` is left with the keys it had (values may
    /// be partly merged) and the error is returned.
    pub fn merge_with<E>(
        &mut self,
        other: &ObjMap,
        mut both: impl FnMut(&Key, &mut Value, &Value) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut missing = 0usize;
        let mut mine = self.entries.iter_mut().peekable();
        for (k, theirs) in &other.entries {
            loop {
                match mine.peek() {
                    Some((mk, _)) if key_cmp(mk, k).is_lt() => {
                        mine.next();
                    }
                    Some((mk, _)) if **mk == **k => {
                        let (mk, mv) = mine.next().expect("peeked");
                        both(mk, mv, theirs)?;
                        break;
                    }
                    _ => {
                        missing += 1;
                        break;
                    }
                }
            }
        }
        if missing == 0 {
            return Ok(());
        }
        let old = std::mem::take(&mut self.entries);
        let mut merged = Vec::with_capacity(old.len() + missing);
        let mut theirs = other.entries.iter().peekable();
        for (k, v) in old {
            while let Some((tk, tv)) = theirs.next_if(|(tk, _)| key_cmp(tk, &k).is_lt()) {
                merged.push((tk.clone(), tv.clone()));
            }
            theirs.next_if(|(tk, _)| **tk == *k);
            merged.push((k, v));
        }
        merged.extend(theirs.map(|(k, v)| (k.clone(), v.clone())));
        self.entries = merged;
        Ok(())
    }

    /// Sorts `entries` by key (stable) and keeps the last of equal keys:
    /// the result `BTreeMap`'s `collect` gives. One pass when the input is
    /// already sorted and unique.
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
        ObjMap { entries }
    }

    /// Entries of `self` and `later` in key order, `later`'s value kept
    /// where both have a key (one pass over both, no sort).
    pub fn merged_with(&self, later: &ObjMap) -> ObjMap {
        let (a, b) = (self.as_slice(), later.as_slice());
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
        ObjMap { entries: out }
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
        ObjMap { entries }
    }
}

impl FromIterator<(Key, Value)> for ObjMap {
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(iter: I) -> ObjMap {
        ObjMap::from_vec(iter.into_iter().collect())
    }
}

impl Extend<(Key, Value)> for ObjMap {
    fn extend<I: IntoIterator<Item = (Key, Value)>>(&mut self, iter: I) {
        let start = self.entries.len();
        self.entries.extend(iter);
        if !strictly_sorted(&self.entries[start.saturating_sub(1)..]) {
            let entries = std::mem::take(&mut self.entries);
            *self = ObjMap::from_vec(entries);
        }
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
            entries: map.into_iter().collect(),
        }
    }
}

impl From<ObjMap> for std::collections::BTreeMap<Key, Value> {
    fn from(map: ObjMap) -> Self {
        map.entries.into_iter().collect()
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

    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
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
    fn merge_with_walks_both() {
        let mine: ObjMap = ["b", "d", "f"].map(|s| (k(s), Value::int(1))).into();
        let theirs: ObjMap = ["a", "d", "e", "g"].map(|s| (k(s), Value::int(2))).into();
        let mut m = mine.clone();
        let mut common = Vec::new();
        m.merge_with(&theirs, |k, mv, tv| {
            common.push(k.to_string());
            *mv = tv.clone();
            Ok::<(), ()>(())
        })
        .unwrap();
        assert_eq!(common, ["d"]);
        assert_eq!(m.keys().map(|k| &**k).collect::<String>(), "abdefg");
        assert_eq!(m["d"], Value::int(2));
        assert_eq!(m["b"], Value::int(1));
        let mut e = mine.clone();
        assert_eq!(e.merge_with(&theirs, |_, _, _| Err("x")), Err("x"));
        assert_eq!(e, mine);
        let mut empty = ObjMap::new();
        empty
            .merge_with(&theirs, |_, _, _| Ok::<(), ()>(()))
            .unwrap();
        assert_eq!(empty, theirs);
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
