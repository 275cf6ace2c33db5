//! Live heap bytes and their peak (feature `count-alloc`, which makes the
//! counting `peak_alloc` allocator this crate's global allocator): `--bench
//! memory` uses them to say what one request's peak memory consists of.
//! Requested sizes are counted, not an allocator's size classes or the
//! pages it retains (RSS shows those).

/// Live heap bytes now.
pub fn live() -> usize {
    crate::GLOBAL.current_usage()
}

/// Restarts the peak at the live bytes now; returns them.
pub fn reset_peak() -> usize {
    crate::GLOBAL.reset_peak_usage();
    live()
}

/// The highest live bytes since the last [`reset_peak`].
pub fn peak() -> usize {
    crate::GLOBAL.peak_usage()
}
