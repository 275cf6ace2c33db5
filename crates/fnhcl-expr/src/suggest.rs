//! "Did you mean" suggestions, as HCL's `nameSuggestion`: the first
//! candidate within edit distance 2.

pub(crate) fn name_suggestion<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .find(|c| fnhcl_base::edit_distance(given, c, 256).is_some_and(|d| d < 3))
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
