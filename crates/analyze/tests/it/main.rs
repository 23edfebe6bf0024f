//! Integration tests for editkit-analyze, through the public API only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod corpus;
mod detect;
mod hostile_tools;
mod incremental;
mod markdown;
mod no_panic;
mod regional;
mod replace;
mod symbols;
mod syntax;
mod tools;
mod worker;

use std::path::{Path, PathBuf};

/// `fixtures/` at the workspace root.
pub(crate) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}
