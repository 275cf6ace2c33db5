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
    fnhcl_base::edit_distance(a, b, 128).unwrap_or(usize::MAX)
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
