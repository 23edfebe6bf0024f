//! Snapshot tests of the terminal commands: every subcommand's success, refusal and error
//! output, plain and coloured (`CLICOLOR_FORCE=1`), under `tests/cmd/`: one `.toml` case each,
//! run in a copy of `tests/cmd/fixture.in`, and `steps.md`, a sequence (edit, history, undo,
//! a patch undone from one of its files) in one copy of `steps.in`, plain and (in `colour/`)
//! coloured. Wording changes show as
//! diffs of the `.stdout`/`.stderr` files and of `steps.md`;
//! `TRYCMD=overwrite cargo test -p editkit-cli --test cmd` rewrites them.

#[test]
fn terminal_commands() {
    trycmd::TestCases::new()
        .register_bin("editkit", trycmd::cargo::cargo_bin!("editkit"))
        .env("NO_COLOR", "")
        // Help wraps at the terminal's width, else at `COLUMNS`.
        .env("COLUMNS", "100")
        .case("tests/cmd/*.toml")
        .case("tests/cmd/*.md");
}

#[test]
fn terminal_sequences_coloured() {
    trycmd::TestCases::new()
        .register_bin("editkit", trycmd::cargo::cargo_bin!("editkit"))
        .env("NO_COLOR", "")
        .env("CLICOLOR_FORCE", "1")
        .case("tests/cmd/colour/*.md");
}
