//! Edit distance for "did you mean" suggestions.

/// The Levenshtein distance between `a` and `b`, counted in characters
/// (insertions, deletions and substitutions cost 1). `None` when either
/// string is longer than `max_chars` characters, so that callers can
/// bound the quadratic work on hostile input.
pub fn edit_distance(a: &str, b: &str, max_chars: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > max_chars || b.len() > max_chars {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()])
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn counts_characters_and_respects_the_cap() {
        assert_eq!(edit_distance("kitten", "sitting", 64), Some(3));
        assert_eq!(edit_distance("", "abc", 64), Some(3));
        assert_eq!(edit_distance("abc", "", 64), Some(3));
        assert_eq!(edit_distance("héllo", "hello", 64), Some(1));
        assert_eq!(edit_distance("same", "same", 64), Some(0));
        assert_eq!(edit_distance("abcd", "ab", 3), None);
        assert_eq!(edit_distance("abc", "abd", 3), Some(1));
    }
}
