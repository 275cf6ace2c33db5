//! Which Crossplane release's `render` to imitate.

use std::fmt;
use std::str::FromStr;

/// A Crossplane version (`1.20`, `v2.2.1`). Only the classic renderer
/// (1.17 – 2.2) is modelled; later versions behave like 2.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CrossplaneVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl Default for CrossplaneVersion {
    /// v1.20: the release the upstream examples were rendered with.
    fn default() -> Self {
        CrossplaneVersion::new(1, 20, 0)
    }
}

impl CrossplaneVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        CrossplaneVersion {
            major,
            minor,
            patch,
        }
    }

    fn at_least(&self, major: u32, minor: u32, patch: u32) -> bool {
        *self >= CrossplaneVersion::new(major, minor, patch)
    }

    /// A change that arrived in the last listed release and was backported
    /// to patch releases of earlier minors (`fixes` ascending).
    fn has(&self, fixes: &[(u32, u32, u32)]) -> bool {
        let Some(&(a, b, c)) = fixes.last() else {
            return false;
        };
        if self.at_least(a, b, c) {
            return true;
        }
        fixes
            .iter()
            .any(|&(a, b, c)| self.major == a && self.minor == b && self.patch >= c)
    }

    /// `credentials` in requests (1.18+).
    pub fn credentials(&self) -> bool {
        self.at_least(1, 18, 0)
    }
    /// Function conditions on the XR and the XR/Composition checks (1.19+).
    pub fn conditions(&self) -> bool {
        self.at_least(1, 19, 0)
    }
    /// v2 semantics: `generateName` only for unnamed resources, composite
    /// readiness, required resources.
    pub fn v2(&self) -> bool {
        self.at_least(2, 0, 0)
    }
    /// The XR's namespace is copied and forced onto composed resources.
    pub fn namespaces(&self) -> bool {
        self.has(&[(2, 0, 3), (2, 1, 0)])
    }
    /// Root-composite `generateName` prefix and claim labels from XR labels.
    pub fn root_composite_labels(&self) -> bool {
        self.has(&[(2, 0, 7), (2, 1, 4), (2, 2, 0)])
    }
    /// Selectors without a match field select every resource of the kind.
    pub fn match_all_selectors(&self) -> bool {
        self.has(&[(2, 0, 8), (2, 1, 5), (2, 2, 1)])
    }
    /// The requirement pool is sorted by name (2.1+).
    pub fn sorted_pool(&self) -> bool {
        self.at_least(2, 1, 0)
    }
    /// `meta.capabilities`, YAML context values, schemas (2.2+).
    pub fn capabilities(&self) -> bool {
        self.at_least(2, 2, 0)
    }
}

impl fmt::Display for CrossplaneVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for CrossplaneVersion {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t.strip_prefix(['v', 'V']).unwrap_or(t);
        // Ignore pre-release/build suffixes (`2.0.0-rc.1`).
        let t = t.split(['-', '+']).next().unwrap_or(t);
        let mut parts = t.split('.');
        let mut next = |what: &str, required: bool| -> Result<u32, String> {
            match parts.next() {
                Some(p) => p
                    .parse::<u32>()
                    .map_err(|_| format!("invalid Crossplane version {s:?}: bad {what} number")),
                None if required => Err(format!("invalid Crossplane version {s:?}")),
                None => Ok(0),
            }
        };
        let major = next("major", true)?;
        let minor = next("minor", false)?;
        let patch = next("patch", false)?;
        if parts.next().is_some() {
            return Err(format!("invalid Crossplane version {s:?}"));
        }
        Ok(CrossplaneVersion::new(major, minor, patch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_features() {
        let v: CrossplaneVersion = "v2.1.4".parse().unwrap();
        assert_eq!(v, CrossplaneVersion::new(2, 1, 4));
        assert!(v.root_composite_labels());
        assert!(!v.match_all_selectors());
        assert!(
            "2.1.5"
                .parse::<CrossplaneVersion>()
                .unwrap()
                .match_all_selectors()
        );
        assert!(
            "2.3"
                .parse::<CrossplaneVersion>()
                .unwrap()
                .match_all_selectors()
        );
        assert!(!"2.0.2".parse::<CrossplaneVersion>().unwrap().namespaces());
        assert!("2.0.3".parse::<CrossplaneVersion>().unwrap().namespaces());
        assert!(!CrossplaneVersion::default().v2());
        assert!(CrossplaneVersion::default().conditions());
        assert!("x".parse::<CrossplaneVersion>().is_err());
        assert!("1.2.3.4".parse::<CrossplaneVersion>().is_err());
        assert_eq!(
            "2".parse::<CrossplaneVersion>().unwrap().to_string(),
            "v2.0.0"
        );
    }
}
