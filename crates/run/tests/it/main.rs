//! Integration tests for editkit-run, through the public API only.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod exec;
mod lookup;
mod runs;
