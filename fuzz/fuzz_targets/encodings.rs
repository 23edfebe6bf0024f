//! libFuzzer target; the body is `editkit_fuzz::encodings` (see fuzz/src/lib.rs), replayed by `cargo test`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| editkit_fuzz::encodings(data));
