//! Log lines on stderr that never hold up serving.
//!
//! Once [`start`] has run (the HTTP server does so before it accepts a connection), [`line()`]
//! hands each line to a thread that writes it, through a queue of [`QUEUE`] lines: a stderr
//! nobody reads blocks that thread only, and lines that find the queue full are dropped and
//! counted (the count is written once lines flow again). Each kind of line is also limited to
//! [`BURST`] a second; the rest are counted and the count rides on the next line of that kind.
//! Before `start` (the stdio server) a line is written directly, as `eprintln!` would.

use std::collections::HashMap;
use std::fmt::Display;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::sync::LockExt;

/// Lines waiting for the writer thread at most.
const QUEUE: usize = 256;

/// Lines of one kind written per [`WINDOW`] at most.
const BURST: u32 = 5;

/// The rate limit's window.
const WINDOW: Duration = Duration::from_secs(1);

/// The queue to the writer thread and the counts of what was left out.
struct Log {
    queue: SyncSender<String>,
    /// Lines dropped because the queue was full, not yet reported.
    dropped: AtomicU64,
    /// Each kind's current window.
    windows: Mutex<HashMap<&'static str, Window>>,
}

/// One kind's lines in the current window.
struct Window {
    start: Instant,
    written: u32,
    /// Lines left out in the window before, reported with the next line written.
    left_out: u64,
}

static LOG: OnceLock<Option<Log>> = OnceLock::new();

/// Starts the writer thread; from now on [`line()`] never blocks. When no thread can be started,
/// lines stay direct writes.
pub(crate) fn start() {
    LOG.get_or_init(|| {
        let (queue, lines) = sync_channel::<String>(QUEUE);
        let writer = std::thread::Builder::new().name("editkit-log".to_owned()).spawn(move || {
            for line in lines {
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            }
        });
        writer.ok().map(|_| Log { queue, dropped: AtomicU64::new(0), windows: Mutex::new(HashMap::new()) })
    });
}

/// Logs `text` as a line of `kind` (lines of one kind share a rate limit).
pub(crate) fn line(kind: &'static str, text: impl Display) {
    let Some(Some(log)) = LOG.get() else {
        eprintln!("{text}");
        return;
    };
    let left_out = {
        let mut windows = log.windows.lock_unpoisoned();
        let now = Instant::now();
        let window = windows.entry(kind).or_insert(Window { start: now, written: 0, left_out: 0 });
        if now.duration_since(window.start) >= WINDOW {
            let carried = std::mem::take(&mut window.left_out);
            *window = Window { start: now, written: 0, left_out: carried };
        }
        if window.written >= BURST {
            window.left_out += 1;
            return;
        }
        window.written += 1;
        std::mem::take(&mut window.left_out)
    };
    let dropped = log.dropped.swap(0, Ordering::Relaxed);
    if dropped > 0 {
        log.send(format!("editkit mcp: {dropped} log lines were dropped (stderr is not read fast enough)"));
    }
    if left_out > 0 {
        log.send(format!("{text} ({left_out} more like it were left out)"));
    } else {
        log.send(text.to_string());
    }
}

impl Log {
    /// Queues a line, or counts it as dropped when the queue is full.
    fn send(&self, line: String) {
        match self.queue.try_send(line) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}
