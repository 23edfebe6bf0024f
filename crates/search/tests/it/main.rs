//! Integration tests of editkit-search through its public API.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, unreachable_pub)]

mod basics;
mod control;
mod filters;
mod limits;
mod listing;
mod reads;
mod sandbox;
mod support;
