//! Running external tools with a timeout and a cap on what is kept of their output.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long an external checker or formatter may run.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(10);

/// How many characters of a tool's output are kept.
pub const MAX_OUTPUT_CHARS: usize = 2_000;

/// How many bytes of each stream are read into memory; the rest is drained and dropped.
const MAX_CAPTURE_BYTES: usize = 64 * 1024;

/// How a tool run ended.
#[derive(Debug)]
pub(crate) enum Run {
    /// The program could not be started (not installed, not executable).
    NotInstalled,
    /// It ran longer than the timeout and was killed.
    TimedOut,
    /// It was killed by a signal or could not be waited for.
    Crashed,
    /// It exited with a status code.
    Exited {
        /// The exit code.
        code: i32,
        /// Stdout then stderr, capped at [`MAX_OUTPUT_CHARS`] characters.
        output: String,
    },
}

/// Runs `argv` in `dir` with no stdin, for at most `timeout`.
pub(crate) fn run(argv: &[String], dir: Option<&Path>, timeout: Duration) -> Run {
    let Some((program, args)) = argv.split_first() else {
        return Run::NotInstalled;
    };
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let Ok(mut child) = command.spawn() else {
        return Run::NotInstalled;
    };
    let (sender, receiver) = mpsc::channel::<(usize, Vec<u8>)>();
    if let Some(stream) = child.stdout.take() {
        let sender = sender.clone();
        thread::spawn(move || sender.send((0, capture(stream))));
    }
    if let Some(stream) = child.stderr.take() {
        let sender = sender.clone();
        thread::spawn(move || sender.send((1, capture(stream))));
    }
    drop(sender);
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if started.elapsed() < timeout => thread::sleep(Duration::from_millis(10)),
            Ok(None) | Err(_) => {
                // Killing fails only if it already exited; either way reap it.
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let timed_out = status.is_none() && started.elapsed() >= timeout;
    // A grandchild may keep the pipes open after the tool exits: wait a little, not forever.
    let mut streams: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    if status.is_some() {
        let deadline = Instant::now() + Duration::from_secs(1);
        while let Ok((which, bytes)) = receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            if let Some(slot) = streams.get_mut(which) {
                *slot = bytes;
            }
        }
    }
    let [mut bytes, errors] = streams;
    if !bytes.is_empty() && !errors.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(&errors);
    match status {
        None if timed_out => Run::TimedOut,
        None => Run::Crashed,
        Some(status) => match status.code() {
            Some(code) => Run::Exited { code, output: cap(&String::from_utf8_lossy(&bytes)) },
            None => Run::Crashed,
        },
    }
}

fn capture(mut stream: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buffer = [0_u8; 8192];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return kept,
            Ok(n) => {
                let room = MAX_CAPTURE_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(buffer.get(..n.min(room)).unwrap_or(&[]));
            }
        }
    }
}

/// Keeps at most [`MAX_OUTPUT_CHARS`] characters, saying how much was cut.
pub(crate) fn cap(text: &str) -> String {
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
    fn missing_program_is_not_installed() {
        let argv = vec!["editkit-no-such-program-xyz".to_owned()];
        assert!(matches!(run(&argv, None, TOOL_TIMEOUT), Run::NotInstalled));
        assert!(matches!(run(&[], None, TOOL_TIMEOUT), Run::NotInstalled));
    }
}
