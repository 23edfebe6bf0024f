//! editkit-lsp with the real servers `cargo xtask lsp-tools` installs under
//! `target/lsp-tools` (and rust-analyzer through rustup): the tests fail, naming that
//! command, when a server is missing.

mod freshness;
mod hostile;
mod rename;
mod servers;
mod support;
