//! "Did you mean" for unknown field names: the closest candidate within
//! edit distance 2 (ties go to the first candidate, candidates come
//! sorted). Like HCL's `nameSuggestion` in `fnhcl-expr`, which sits above
//! this crate, but picking the closest name rather than the first close one.

pub(crate) fn closest<'a>(
    given: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        if c == given {
            continue;
        }
        let d = distance(given, c);
        // Short names: one edit at most, or everything would match.
        let limit = if given.chars().count() <= 3 { 1 } else { 2 };
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance over characters; long inputs are "far".
fn distance(a: &str, b: &str) -> usize {
    if a.len() > 128 || b.len() > 128 {
        return usize::MAX;
    }
    let mut prev = [0usize; 129];
    let mut cur = [0usize; 129];
    let b: Vec<char> = b.chars().collect();
    for (j, p) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *p = j;
    }
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_closest() {
        let names = ["reason", "region", "regions"];
        assert_eq!(closest("regoin", names.into_iter()), Some("region"));
        assert_eq!(closest("regionss", names.into_iter()), Some("regions"));
        assert_eq!(closest("zzzzzz", names.into_iter()), None);
        assert_eq!(closest("ab", ["xy", "ac"].into_iter()), Some("ac"));
        assert_eq!(distance("kitten", "sitting"), 3);
    }
}
