//! Running external programs on text without trusting the workspace: the containment
//! editkit's post-edit checkers and formatters run under, and the one lookup of a program
//! outside the workspace roots (also used by the `editkit` binary for its pager).
//!
//! Reach first for [`run_tool`] (an [`ExternalTool`]'s argv template run on a text) and
//! [`find_program`] (a program looked up on the safe `PATH` entries); [`spawn`], [`run`] and
//! [`PrivateDir`] are the steps, for a caller that keeps a process alive between inputs.
//!
//! ```
//! use std::path::Path;
//! use std::time::Duration;
//! use editkit_run::{ExternalTool, Roots, find_program, run_tool};
//!
//! let roots = Roots::new(&[Path::new("/work/repo")]);
//! let sh = find_program("sh", &roots).expect("a shell on PATH");
//! assert!(sh.path.is_absolute());
//! assert!(find_program("./node_modules/.bin/prettier", &roots).is_err());
//!
//! let upper = ExternalTool::new("upper", &["tr", "a-z", "A-Z"]);
//! let ran = run_tool(&upper, &roots, "notes.txt", "hi\n", Duration::from_secs(10), 1024);
//! let done = ran.outcome.expect("tr ran");
//! assert_eq!((done.code, done.stdout), (0, b"HI\n".to_vec()));
//! ```
//!
//! # Security
//! Everything in the workspace is hostile input, and so is any program a `PATH` entry inside
//! it leads to. Each tool therefore runs:
//! - from a fresh private temporary directory as its working directory (never the file's
//!   folder), so no `py_compile.py`, `rust-toolchain.toml`, `.prettierignore` or other file of
//!   the repository is picked up by lookup from the working directory;
//! - as an absolute program found on the absolute `PATH` entries outside every workspace root
//!   (an empty, `.` or relative entry, or one inside a root, is ignored), or as the absolute
//!   path the tool's argv names; a relative program path is refused ([`find_program`]);
//! - with a scrubbed environment: `PATH` (those entries only), `HOME`, `USER`, `LOGNAME`,
//!   `LANG`, `LANGUAGE`, `LC_*`, `TZ`, `RUSTUP_HOME`, `CARGO_HOME`, plus `TMPDIR` and
//!   `XDG_CACHE_HOME` in the private directory and `NO_COLOR`; `PYTHON*`, `NODE_OPTIONS`,
//!   `RUSTUP_TOOLCHAIN` and the rest are dropped;
//! - on the file's content given on stdin, its result read back from stdout: tools never get
//!   the file's path on disk, so they cannot follow `#[path]` modules, `__pycache__` links or
//!   `extend` settings out of the root, and nothing is written into the workspace;
//! - confined with Landlock where the kernel has it: no writes anywhere but the private
//!   directory and `/dev/null`, no TCP (Landlock ABI 4; UDP from ABI 10), abstract Unix
//!   sockets and signals scoped (ABI 6); reads and execution stay allowed beneath `/` so tools
//!   can load themselves, so reads are confined only by the arguments above. Each run's
//!   confinement says `landlock`, `landlock without network rules (kernel Landlock ABI n)`,
//!   or `unavailable: <why>` (the tool then ran with the other measures only);
//! - with a time limit (the whole process group is killed), input and output bounds;
//! - for long-lived programs that read the workspace themselves (language servers),
//!   [`spawn_no_exec_in`] also denies executing any file beneath the roots, starts the
//!   program in a network namespace of its own where `unshare` can make one, and says
//!   exactly what holds (`landlock (ABI 7): ..., no TCP; UDP and pathname Unix sockets open`:
//!   the plain `landlock` leaves UDP open below ABI 10 and pathname Unix sockets below 9).
//!
//! Argv templates may use `{path}` (the file's name as the caller gives it, relative to its
//! workspace root: for messages and for the tool to pick a language; nothing is read from it),
//! `{file}` (a private copy of the content, for tools that cannot read stdin; its content after
//! the run comes back in [`Done::copy`]) and `{empty_config}` (an empty file, to point a tool's
//! `--config` option at). To run a program the repository ships (say
//! `./node_modules/.bin/prettier`), name it by absolute path in the tool's argv: that is the
//! explicit opt-in, and the program then runs with the same containment.
//!
//! Linux only (Landlock, process groups and `flock` are used as Linux has them).

#![deny(missing_docs)]

mod confine;
mod private;
mod process;
mod resolve;
mod tool;

pub use confine::MAX_EXEC_RULES;
pub use private::PrivateDir;
pub use process::{
    Invocation, MAX_FORMATTED_BYTES, MAX_OUTPUT_CHARS, MAX_TOOL_INPUT_BYTES, Run, TOOL_TIMEOUT, cap, reap, run, spawn,
    spawn_no_exec_in,
};
pub use resolve::{NotFound, Program, Roots, find_program, find_program_on};
pub use tool::{Done, ExternalTool, Ran, run_tool};

/// `mutex`'s guard, also when a thread panicked while holding it: every value kept behind a
/// mutex here stays valid between statements, so a panic elsewhere never leaves it half made.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
