//! Running one external tool, contained: a private working directory, a scrubbed environment,
//! input on stdin, output read back from pipes, a timeout, bounded capture, and Landlock.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::confine;
use crate::resolve::Roots;

/// How long an external checker or formatter may run.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(10);

/// How many characters of a tool's output are kept.
pub const MAX_OUTPUT_CHARS: usize = 2_000;

/// The largest input handed to an external tool, in bytes; a larger file is not checked or
/// formatted by external tools (the built-in syntax check has its own limit).
pub const MAX_TOOL_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// The most a formatter may print, in bytes; a formatter printing more is skipped.
pub const MAX_FORMATTED_BYTES: usize = 64 * 1024 * 1024;

/// How many bytes of a diagnostic stream are read into memory; the rest is drained and dropped.
const MAX_CAPTURE_BYTES: usize = 64 * 1024;

/// Variables passed through to tools from editkit's environment, when set: what programs
/// need to find their installation and speak the user's language. Everything else (`PYTHON*`,
/// `NODE_OPTIONS`, `RUSTUP_TOOLCHAIN`, `LD_PRELOAD`, ...) is dropped.
const KEPT_VARIABLES: &[&str] = &["HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "RUSTUP_HOME", "CARGO_HOME"];

/// One run of a tool.
pub struct Invocation<'a> {
    /// The program, an absolute path.
    pub program: PathBuf,
    /// The arguments after the program.
    pub args: Vec<String>,
    /// Written to the tool's stdin, which is then closed.
    pub stdin: &'a [u8],
    /// The private directory: working directory, `TMPDIR`, the only writable place.
    pub dir: &'a Path,
    /// The sanitised `PATH` for the child.
    pub path: OsString,
    /// The time limit.
    pub timeout: Duration,
    /// How many bytes of stdout to keep (a longer stdout is reported as overflowing).
    pub max_stdout: usize,
    /// Variables set for the child after the scrub (a language server's pinned toolchain,
    /// say); they override the kept ones.
    pub env: Vec<(String, OsString)>,
}

/// How a tool run ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum Run {
    /// The program could not be started.
    NotStarted(String),
    /// It ran longer than the timeout and was killed.
    TimedOut,
    /// It was killed by a signal or could not be waited for.
    Crashed,
    /// It exited with a status code.
    Exited {
        /// The exit code.
        code: i32,
        /// Its stdout, at most `max_stdout` bytes.
        stdout: Vec<u8>,
        /// Whether stdout went past `max_stdout`.
        overflow: bool,
        /// Its stderr, at most 64 KiB.
        stderr: Vec<u8>,
    },
}

/// Runs the invocation: its stdin written from a thread, stdout and stderr read from threads
/// (bounded), the time limit kept by killing the whole process group. Gives how it ended and
/// the confinement it ran under (see [`spawn`]).
#[must_use]
pub fn run(invocation: &Invocation<'_>) -> (Run, String) {
    let (spawned, confinement) = spawn(invocation);
    let mut child = match spawned {
        Ok(child) => child,
        Err(error) => return (Run::NotStarted(format!("could not start: {error}")), confinement),
    };
    let (sender, receiver) = mpsc::channel::<(usize, Vec<u8>, bool)>();
    if let Some(mut stdin) = child.stdin.take() {
        let bytes = invocation.stdin.to_vec();
        // A tool that exits without reading its input makes this fail with EPIPE: ignored.
        thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    if let Some(stream) = child.stdout.take() {
        let sender = sender.clone();
        let limit = invocation.max_stdout;
        thread::spawn(move || {
            let (bytes, overflow) = capture(stream, limit);
            sender.send((0, bytes, overflow))
        });
    }
    if let Some(stream) = child.stderr.take() {
        let sender = sender.clone();
        thread::spawn(move || {
            let (bytes, overflow) = capture(stream, MAX_CAPTURE_BYTES);
            sender.send((1, bytes, overflow))
        });
    }
    drop(sender);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < invocation.timeout => thread::sleep(Duration::from_millis(10)),
            Ok(None) | Err(_) => {
                reap(&mut child);
                break None;
            }
        }
    };
    let timed_out = status.is_none() && started.elapsed() >= invocation.timeout;
    // A grandchild may keep the pipes open after the tool exits: wait a little, not forever.
    let mut streams: [(Vec<u8>, bool); 2] = [(Vec::new(), false), (Vec::new(), false)];
    if status.is_some() {
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Ok((which, bytes, overflow)) =
            receiver.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {
            if let Some(slot) = streams.get_mut(which) {
                *slot = (bytes, overflow);
            }
        }
    }
    let [(stdout, overflow), (stderr, _)] = streams;
    let run = match status {
        None if timed_out => Run::TimedOut,
        None => Run::Crashed,
        Some(status) => match status.code() {
            Some(code) => Run::Exited { code, stdout, overflow, stderr },
            None => Run::Crashed,
        },
    };
    (run, confinement)
}

/// Spawns the child, its stdin, stdout and stderr piped, from a fresh thread that first
/// restricts itself with Landlock, so the child starts inside the domain and nothing else in
/// this process is restricted. Gives the child and its confinement: `landlock`,
/// `landlock without network rules (kernel Landlock ABI n)` or `unavailable: <why>`.
///
/// The caller owns the child: end it with [`reap`].
pub fn spawn(invocation: &Invocation<'_>) -> (std::io::Result<Child>, String) {
    thread::scope(|scope| {
        let spawner = scope.spawn(|| {
            let confinement = confine::restrict_current_thread(invocation.dir);
            (command(invocation).spawn(), confinement)
        });
        spawner.join().unwrap_or_else(|_| {
            (Err(std::io::Error::other("the spawning thread panicked")), "unavailable: spawn failed".to_owned())
        })
    })
}

/// As [`spawn`], and the child (with everything it starts) may execute nothing beneath
/// `roots`: a program or library the repository ships, named by any configuration the child
/// reads, fails to start with "permission denied". Interpreters still read files there (a
/// script given to `node` or `python` runs); this is a backstop behind choosing what the
/// child runs. For long-lived programs such as language servers, which read configuration
/// from the workspace; the checkers and formatters of [`run`] get the file on stdin only.
///
/// When `unshare` (util-linux), found on the invocation's `PATH` outside the roots, can give
/// the child a network namespace of its own here (tried once per process, confined as the
/// child will be: `unshare -n`, else `unshare -rn`), the child starts through it and has no
/// network at all; its namespace is then compared with editkit's (`/proc/<pid>/ns/net`),
/// never taken from `unshare`'s exit code. The confinement word says exactly what holds, for example
/// `landlock (ABI 7): no writes outside the private folder, nothing beneath a root executed,
/// no TCP; UDP and pathname Unix sockets open (no network namespace: ...)`.
///
/// # Errors
/// The child is not started when the folders holding the roots have more than
/// [`MAX_EXEC_RULES`](crate::MAX_EXEC_RULES) entries.
pub fn spawn_no_exec_in(invocation: &Invocation<'_>, roots: &Roots) -> (std::io::Result<Child>, String) {
    // `unshare` takes the program as an argument, a `String` here: a path that is not UTF-8
    // would become another path, so such a program starts without a namespace.
    let namespace = match invocation.program.to_str() {
        Some(_) => network_namespace(invocation, roots),
        None => Err("the program's path is not UTF-8".to_owned()),
    };
    let wrapped = match &namespace {
        Ok((unshare, flag)) => {
            let program = invocation.program.to_str().unwrap_or_default().to_owned();
            let mut args = vec![(*flag).to_owned(), "--".to_owned(), program];
            args.extend(invocation.args.iter().cloned());
            Some(Invocation {
                program: unshare.clone(),
                args,
                stdin: invocation.stdin,
                dir: invocation.dir,
                path: invocation.path.clone(),
                timeout: invocation.timeout,
                max_stdout: invocation.max_stdout,
                env: invocation.env.clone(),
            })
        }
        Err(_) => None,
    };
    let unshare = namespace.as_ref().ok().map(|(unshare, _)| unshare.clone());
    let mut namespace = namespace.map(|(_, flag)| format!("unshare {flag}"));
    let started = wrapped.as_ref().unwrap_or(invocation);
    let spawned = thread::scope(|scope| {
        let spawner = scope.spawn(|| match confine::restrict_current_thread_no_exec(started.dir, &roots.paths()) {
            Ok(restricted) => Ok((command(started).spawn(), restricted.word, restricted.abi)),
            Err(why) => Err((std::io::Error::other(why.clone()), format!("unavailable: {why}"))),
        });
        spawner.join().unwrap_or_else(|_| {
            Err((std::io::Error::other("the spawning thread panicked"), "unavailable: spawn failed".to_owned()))
        })
    });
    match spawned {
        Ok((child, word, abi)) => {
            // `unshare` came from PATH: its exit code is not taken for a namespace; the
            // child's own namespace is compared with this process's.
            if let (Ok(child), Some(unshare)) = (&child, &unshare)
                && namespace.is_ok()
                && !own_network_namespace(child.id(), unshare)
            {
                namespace = Err("`unshare` did not make one (the child shares editkit's)".to_owned());
            }
            let word = confine::described(&word, abi, &namespace);
            (child, word)
        }
        Err((error, word)) => (Err(error), word),
    }
}

/// Whether process `pid`, started through `unshare` (at `unshare`), runs in a network
/// namespace other than this process's: watched until it differs, or until the process has
/// become its program (no longer `unshare`) in this one, for at most a second. A process that
/// cannot be read counts as not.
fn own_network_namespace(pid: u32, unshare: &Path) -> bool {
    let Ok(ours) = std::fs::read_link("/proc/self/ns/net") else { return false };
    let unshare = unshare.canonicalize().unwrap_or_else(|_| unshare.to_owned());
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        match std::fs::read_link(format!("/proc/{pid}/ns/net")) {
            Ok(theirs) if theirs != ours => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
        let exe = std::fs::read_link(format!("/proc/{pid}/exe"));
        if exe.is_ok_and(|exe| exe != unshare) || Instant::now() >= deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(1));
    }
}

/// `unshare` and the flag that gives a child a network namespace of its own here, or why
/// none: tried once per `unshare` program, from a thread confined as the child will be (so
/// `-rn`, which must write `/proc/self/uid_map`, works only where Landlock allows it).
fn network_namespace(invocation: &Invocation<'_>, roots: &Roots) -> Result<(PathBuf, &'static str), String> {
    type Tried = std::collections::HashMap<PathBuf, Result<&'static str, String>>;
    static TRIED: std::sync::Mutex<Option<Tried>> = std::sync::Mutex::new(None);
    let unshare = crate::resolve::find_program_on(Some(&invocation.path), "unshare", roots)
        .map_err(|_| "no `unshare` on PATH outside the workspace".to_owned())?;
    let mut tried = crate::lock(&TRIED);
    let tried = tried.get_or_insert_with(Default::default);
    if let Some(known) = tried.get(&unshare.path) {
        return known.clone().map(|flag| (unshare.path.clone(), flag));
    }
    let mut refused = Vec::new();
    let mut found = None;
    for flag in ["-n", "-rn"] {
        let probe = Invocation {
            program: unshare.path.clone(),
            args: vec![
                flag.to_owned(),
                "--".to_owned(),
                unshare.path.to_string_lossy().into_owned(),
                "--version".to_owned(),
            ],
            stdin: &[],
            dir: invocation.dir,
            path: invocation.path.clone(),
            timeout: Duration::from_secs(5),
            max_stdout: 1024,
            env: Vec::new(),
        };
        match run(&probe).0 {
            Run::Exited { code: 0, .. } => {
                found = Some(flag);
                break;
            }
            _ => refused.push(format!("`unshare {flag}`")),
        }
    }
    let answer = found.ok_or_else(|| format!("{} refused here", refused.join(" and ")));
    tried.insert(unshare.path.clone(), answer.clone());
    answer.map(|flag| (unshare.path, flag))
}

fn command(invocation: &Invocation<'_>) -> Command {
    let mut command = Command::new(&invocation.program);
    command
        .args(&invocation.args)
        .current_dir(invocation.dir)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout kills the tool's children too.
        .process_group(0);
    for (name, value) in std::env::vars_os() {
        let keep = name.to_str().is_some_and(|name| KEPT_VARIABLES.contains(&name) || name.starts_with("LC_"));
        if keep {
            command.env(name, value);
        }
    }
    command
        .env("PATH", &invocation.path)
        .env("TMPDIR", invocation.dir)
        .env("XDG_CACHE_HOME", invocation.dir.join("cache"))
        .env("NO_COLOR", "1");
    for (name, value) in &invocation.env {
        command.env(name, value);
    }
    command
}

/// Kills a child started by [`spawn`] with its whole process group (its children too) and
/// waits for it.
pub fn reap(child: &mut Child) {
    kill_group(child);
    // Killing fails only if it already exited; either way reap it.
    let _ = child.kill();
    let _ = child.wait();
}

/// Kills the tool's process group (its children too) while the tool is not yet reaped, so the
/// group id cannot belong to anyone else.
fn kill_group(child: &Child) {
    let pid = i32::try_from(child.id()).ok().and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // The group may already be gone: nothing to do then.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Reads a stream to its end, keeping at most `limit` bytes; says whether there was more.
fn capture(mut stream: impl Read, limit: usize) -> (Vec<u8>, bool) {
    let mut kept = Vec::new();
    let mut overflow = false;
    let mut buffer = [0_u8; 8192];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return (kept, overflow),
            Ok(n) => {
                let room = limit.saturating_sub(kept.len());
                if n > room {
                    overflow = true;
                }
                kept.extend_from_slice(buffer.get(..n.min(room)).unwrap_or(&[]));
            }
        }
    }
}

/// `text` without trailing white space, keeping at most [`MAX_OUTPUT_CHARS`] characters and
/// saying how many were cut.
#[must_use]
pub fn cap(text: &str) -> String {
    let text = text.trim_end();
    let total = text.chars().count();
    if total <= MAX_OUTPUT_CHARS {
        return text.to_owned();
    }
    let note_room = 40;
    let shown = MAX_OUTPUT_CHARS - note_room;
    let mut kept: String = text.chars().take(shown).collect();
    kept.push_str(&format!("\n… ({} more characters cut)", total - shown));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_keeps_short_output_and_cuts_long_output() {
        assert_eq!(cap("ok\n"), "ok");
        let long = "é".repeat(MAX_OUTPUT_CHARS + 10);
        let capped = cap(&long);
        assert!(capped.chars().count() <= MAX_OUTPUT_CHARS);
        assert!(capped.ends_with("(50 more characters cut)"), "{capped}");
    }

    #[test]
    fn capture_says_when_it_cut() {
        assert_eq!(capture(&b"abcdef"[..], 4), (b"abcd".to_vec(), true));
        assert_eq!(capture(&b"abcd"[..], 4), (b"abcd".to_vec(), false));
    }
}
