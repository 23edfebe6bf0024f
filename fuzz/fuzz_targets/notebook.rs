//! libFuzzer target; the body is `editkit_fuzz::notebook` (see fuzz/src/lib.rs), replayed by `cargo test`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| editkit_fuzz::notebook(data));
