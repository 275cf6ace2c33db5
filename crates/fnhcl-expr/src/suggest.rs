//! "Did you mean" suggestions, as HCL's `nameSuggestion`: the first
//! candidate within edit distance 2.

pub(crate) fn name_suggestion<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates.into_iter().find(|c| levenshtein(given, c) < 3)
}

fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len() > 256 || b.len() > 256 {
        return usize::MAX;
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
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn suggests_close_names() {
        assert_eq!(
            super::name_suggestion("uper", ["lower", "upper"]),
            Some("upper")
        );
        assert_eq!(super::name_suggestion("zzzzzz", ["upper"]), None);
    }
}
