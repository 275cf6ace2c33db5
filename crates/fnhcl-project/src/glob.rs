//! The globs of `.crd-sources.yaml` (`*` and `?` within a path segment,
//! `**` for any number of segments), matched without backtracking
//! explosion: a segment is matched by the iterative two-pointer algorithm
//! (at most `pattern × name` steps, whatever the number of `*`), a path by
//! the set of pattern positions it can be at (each `**` is one position
//! that stays active), one path segment at a time, so a directory walk can
//! stop descending where no position is left. Every comparison counts as a
//! step against a budget the caller holds.

use std::fmt;

/// Longest pattern accepted (bytes).
pub const MAX_PATTERN_BYTES: usize = 1024;
/// Most `**` segments in one pattern.
pub const MAX_DOUBLE_STARS: usize = 8;
/// Longest path segment of a pattern (a file name is at most 255 bytes).
pub const MAX_SEGMENT_BYTES: usize = 255;

/// A pattern problem, worded for people.
#[derive(Debug, PartialEq, Eq)]
pub struct PatternError(pub String);

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Segment {
    /// `**`: any number of path segments, none included.
    Any,
    /// A name with `*` and `?` (consecutive `*` folded into one).
    Name(Vec<char>),
}

/// A pattern split at its first wildcard segment: the literal directories
/// before it (`.` and empty segments dropped, `..` kept for the caller to
/// resolve) and what the walk below them must match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    pub absolute: bool,
    pub prefix: Vec<String>,
    segments: Vec<Segment>,
}

/// Where a walk stands in a [`Pattern`]: the positions the segments seen
/// so far can have led to. Empty: nothing below can match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State(Vec<usize>);

impl State {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn has_wildcard(s: &str) -> bool {
    s.contains(['*', '?'])
}

impl Pattern {
    /// Parses a pattern of `.crd-sources.yaml`'s `paths`.
    pub fn parse(text: &str) -> Result<Pattern, PatternError> {
        if text.len() > MAX_PATTERN_BYTES {
            return Err(PatternError(format!(
                "the pattern is {} bytes, more than the limit of {MAX_PATTERN_BYTES}",
                text.len()
            )));
        }
        if text.trim().is_empty() {
            return Err(PatternError("the pattern is empty".to_owned()));
        }
        let absolute = text.starts_with('/');
        let parts: Vec<&str> = text
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        let first = parts
            .iter()
            .position(|s| has_wildcard(s))
            .unwrap_or(parts.len());
        let mut segments = Vec::new();
        for part in &parts[first..] {
            if part.len() > MAX_SEGMENT_BYTES {
                return Err(PatternError(format!(
                    "a path segment of the pattern is {} bytes, more than the limit of {MAX_SEGMENT_BYTES}",
                    part.len()
                )));
            }
            if *part == ".." {
                return Err(PatternError(
                    "`..` after a wildcard is not supported".to_owned(),
                ));
            }
            if *part == "**" {
                // `**/**` is `**`.
                if segments.last() != Some(&Segment::Any) {
                    segments.push(Segment::Any);
                }
                continue;
            }
            let mut name: Vec<char> = Vec::with_capacity(part.len());
            for c in part.chars() {
                if c == '*' && name.last() == Some(&'*') {
                    continue;
                }
                name.push(c);
            }
            segments.push(Segment::Name(name));
        }
        let stars = parts[first..].iter().filter(|p| **p == "**").count();
        if stars > MAX_DOUBLE_STARS {
            return Err(PatternError(format!(
                "the pattern has {stars} `**` segments, more than the limit of {MAX_DOUBLE_STARS}"
            )));
        }
        Ok(Pattern {
            absolute,
            prefix: parts[..first].iter().map(|s| (*s).to_owned()).collect(),
            segments,
        })
    }

    /// Whether the pattern has a wildcard (else it names one file: its
    /// prefix).
    pub fn has_wildcards(&self) -> bool {
        !self.segments.is_empty()
    }

    /// The state at the pattern's literal directory.
    pub fn start(&self) -> State {
        self.close(vec![0])
    }

    /// The state after one more path segment `name`, counting comparisons
    /// in `steps`.
    pub fn step(&self, state: &State, name: &str, steps: &mut u64) -> State {
        let name: Vec<char> = name.chars().collect();
        let mut next = Vec::new();
        for &i in &state.0 {
            match self.segments.get(i) {
                Some(Segment::Any) => next.push(i),
                Some(Segment::Name(p)) if match_segment(p, &name, steps) => next.push(i + 1),
                Some(Segment::Name(_)) | None => {}
            }
        }
        self.close(next)
    }

    /// Whether a path below one whose segments led to `state` can match
    /// (some of the pattern is left to match).
    pub fn can_descend(&self, state: &State) -> bool {
        state.0.iter().any(|&i| i < self.segments.len())
    }

    /// Whether a path whose segments led to `state` matches.
    pub fn accepts(&self, state: &State) -> bool {
        state.0.contains(&self.segments.len())
    }

    /// Adds the positions reached by letting each `**` match nothing.
    fn close(&self, mut positions: Vec<usize>) -> State {
        let mut i = 0;
        while i < positions.len() {
            let p = positions[i];
            if self.segments.get(p) == Some(&Segment::Any) {
                positions.push(p + 1);
            }
            i += 1;
        }
        positions.sort_unstable();
        positions.dedup();
        State(positions)
    }
}

/// `*` (any run of characters) and `?` (one character) against one name:
/// the classic two-pointer match that, on a mismatch, goes back only to the
/// last `*` (earlier ones never need to be revisited), so it takes at most
/// about `pattern × name` steps.
pub(crate) fn match_segment(pat: &[char], name: &[char], steps: &mut u64) -> bool {
    let (mut p, mut n) = (0, 0);
    // The position after the last `*`, and where in `name` it is tried now.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        *steps += 1;
        match pat.get(p) {
            Some('*') => {
                star = Some((p + 1, n));
                p += 1;
            }
            Some(&c) if c == '?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    star = Some((sp, sn + 1));
                    p = sp;
                    n = sn + 1;
                }
                None => return false,
            },
        }
    }
    pat[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, path: &str) -> bool {
        let pat = Pattern::parse(pattern).expect("pattern");
        assert!(pat.prefix.is_empty(), "{pattern}: {:?}", pat.prefix);
        let mut steps = 0;
        let mut state = pat.start();
        for seg in path.split('/') {
            state = pat.step(&state, seg, &mut steps);
        }
        pat.accepts(&state)
    }

    #[test]
    fn globs() {
        assert!(matches("*.yaml", "a.yaml"));
        assert!(!matches("*.yaml", "d/a.yaml"));
        assert!(matches("**/*.yaml", "d/e/a.yaml"));
        assert!(matches("**/*.yaml", "a.yaml"));
        assert!(matches("*/**/x?.yml", "crds/xa.yml"));
        assert!(!matches("*/**/x?.yml", "crds/xab.yml"));
        assert!(matches("**/**/*.yaml", "a/b/c.yaml"));
        assert!(matches("*/**", "a/b/c.yaml"));
        assert!(matches("*a*b*", "xxaxxbxx"));
        assert!(!matches("*a*b*", "xxbxxaxx"));
        assert!(matches("a*", "a"));
        assert!(matches("?é?", "aéb"));
        assert!(!matches("a?", "a"));
        assert!(matches("**", "a/b"));
    }

    #[test]
    fn prefixes() {
        let p = Pattern::parse("../platform/./apis/*/definition.yaml").expect("pattern");
        assert_eq!(p.prefix, ["..", "platform", "apis"]);
        assert!(!p.absolute);
        let p = Pattern::parse("/abs/crds/x.yaml").expect("pattern");
        assert!(p.absolute && !p.has_wildcards());
        assert_eq!(p.prefix, ["abs", "crds", "x.yaml"]);
    }

    #[test]
    fn refused_patterns() {
        let long = "a".repeat(MAX_PATTERN_BYTES + 1);
        assert!(Pattern::parse(&long).is_err());
        let stars = ["**"; MAX_DOUBLE_STARS + 1].join("/a/");
        assert!(
            Pattern::parse(&stars)
                .expect_err("too many **")
                .0
                .contains("`**` segments")
        );
        assert!(Pattern::parse("crds/*/../x.yaml").is_err());
        assert!(Pattern::parse("").is_err());
        assert!(Pattern::parse(&format!("*{}", "a".repeat(300))).is_err());
    }

    /// The patterns that took the old recursive matcher exponential time
    /// take at most `pattern × name` steps here (counted, not timed).
    #[test]
    fn pathological_patterns_are_cheap() {
        let name: Vec<char> = "a".repeat(200).chars().collect();
        let pat: Vec<char> = format!("{}b", "*a".repeat(40)).chars().collect();
        let mut steps = 0;
        assert!(!match_segment(&pat, &name, &mut steps));
        assert!(
            steps <= (pat.len() * name.len()) as u64,
            "{steps} steps for {} x {}",
            pat.len(),
            name.len()
        );

        // Eight `**` against a path 100 segments deep: the state set has at
        // most one position per segment of the pattern.
        let pattern = format!("{}/*.yaml", ["**"; 8].join("/x*/"));
        let pat = Pattern::parse(&pattern).expect("pattern");
        let mut steps = 0;
        let mut state = pat.start();
        for _ in 0..100 {
            state = pat.step(&state, "xdir", &mut steps);
            assert!(state.0.len() <= pat.segments.len() + 1);
        }
        state = pat.step(&state, "a.yaml", &mut steps);
        assert!(pat.accepts(&state));
        assert!(steps <= 101 * 16 * 8, "{steps}");
    }
}
