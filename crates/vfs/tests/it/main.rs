//! Integration tests of editkit-vfs through its public API.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, unreachable_pub)]

mod canonical;
mod codec;
mod encodings;
mod limits;
mod locks;
mod locks_across;
mod ops;
mod paths;
mod policy;
mod public_api;
mod races;
mod races_blocked;
mod stage;
mod staleness;
mod support;
