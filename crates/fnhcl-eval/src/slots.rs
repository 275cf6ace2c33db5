//! Slots of root variables: what `compile` resolves a root name to where
//! it knows the scope (`Env::compile`), and how a frame chain reads it
//! (`Frame::get_slot`). A local is its scope's id and its index there; a
//! named frame's variable (`self`, `each`) or the instance base's (`req`,
//! `param`) a tag. Names are unique along a chain (compile rejects
//! shadowing), so the first frame holding the slot's binding is the one
//! the name search would find; a read checks the local's name and falls
//! back to the name search when the slot is not on the chain.

/// Scope ids start at 1 (0: a scope without id, never matched) and stay
/// below this bound (larger programs read their locals by name).
pub(crate) const MAX_SCOPE_ID: u32 = 0x7FFF;
const MAX_INDEX: usize = 0xFFFF;
const NAMED: u32 = 0xFFFF_0000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Local `index` of the scope with id `scope`.
    Local { scope: u32, index: usize },
    /// A named frame's variable: `self` or `each`.
    Named,
    /// The instance base's `req` or `param`.
    Base,
}

pub(crate) fn encode(slot: Slot) -> Option<u32> {
    match slot {
        Slot::Local { scope, index } => {
            let index = u32::try_from(index)
                .ok()
                .filter(|i| *i as usize <= MAX_INDEX)?;
            (scope > 0 && scope <= MAX_SCOPE_ID).then_some(scope << 16 | index)
        }
        Slot::Named => Some(NAMED),
        Slot::Base => Some(NAMED + 1),
    }
}

pub(crate) fn decode(slot: u32) -> Slot {
    match slot {
        NAMED => Slot::Named,
        s if s > NAMED => Slot::Base,
        s => Slot::Local {
            scope: s >> 16,
            index: (s & 0xFFFF) as usize,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_round_trip() {
        for s in [
            Slot::Local { scope: 1, index: 0 },
            Slot::Local {
                scope: MAX_SCOPE_ID,
                index: MAX_INDEX,
            },
            Slot::Named,
            Slot::Base,
        ] {
            assert_eq!(decode(encode(s).unwrap()), s);
        }
        assert_eq!(encode(Slot::Local { scope: 0, index: 0 }), None);
        assert_eq!(
            encode(Slot::Local {
                scope: MAX_SCOPE_ID + 1,
                index: 0
            }),
            None
        );
        assert_eq!(
            encode(Slot::Local {
                scope: 1,
                index: MAX_INDEX + 1
            }),
            None
        );
    }
}
