//! Integration tests of editkit-patch through its public API.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, unreachable_pub, dead_code)]

mod anchors;
mod api;
mod budget;
mod corpus;
mod crash;
mod dialect;
mod faults;
mod placement;
mod report;
mod review;
mod robustness;
mod support;
mod truncation;
