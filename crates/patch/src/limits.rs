//! The patch crate's bounds on agent-sized work, a leaf the planner and the error type share.

/// Default for [`crate::ApplyOptions::max_work`]: 256 Mi units (hunks × bytes), e.g. 64 hunks over a
/// 4 MiB file or 2,600 hunks over a 100 KB one; a few seconds of matching at worst.
pub const DEFAULT_MAX_WORK: u64 = 256 << 20;

/// Most files one patch may name (a move names two): each is locked, holding a file
/// descriptor or two, from planning to the commit. A patch naming more is refused as
/// [`crate::Error::TooManyFiles`] before anything is resolved or locked.
pub const MAX_PATCH_FILES: usize = 4096;
