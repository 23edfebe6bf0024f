//! Integration tests of the editkit facade through `tools::call` and the typed methods.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs, unreachable_pub)]

mod agent_corpus;
mod bounds;
mod concurrency;
mod contract;
mod dry_runs;
mod encodings;
mod examples;
mod fuzz_replay;
#[path = "../../../../fuzz/src/lib.rs"]
#[allow(dead_code, clippy::all)]
mod fuzz_targets;
mod hard_links;
mod history_bytes;
mod hostile_state;
#[cfg(feature = "analyze")]
mod hostile_tools;
mod locks_across;
#[cfg(feature = "lsp")]
mod lsp;
mod model_patches;
mod multi_edit;
mod notebooks;
mod outside;
mod outside_patch;
mod patch_files;
mod patch_inputs;
#[cfg(feature = "patch")]
mod patch_sequence;
mod read_only;
mod schemas;
#[cfg(feature = "lsp")]
mod server_hook;
mod sessions;
mod snippet;
mod state_folder;
mod strict_json;
mod support;
mod tidy;
mod tidy_structure;
mod undo;
