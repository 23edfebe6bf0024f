//! The process's table of open descriptors, grown before it is needed.
//!
//! Linux grows a process's descriptor table when a descriptor is opened past its size (64,
//! then 128, 256, 512...). In a process with more than one thread it then waits for an RCU
//! grace period before the new table is used: every thread that opens a descriptor meanwhile
//! waits with it, 5-30 ms on a busy machine (seen here: 28 ms inside a patch's commit, which
//! holds three descriptors per file). A process with one thread grows it at once. The kernel
//! never shrinks the table, so growing it at the start of a process, before any thread
//! starts, takes that wait off every later open.

use std::os::fd::AsFd;

use rustix::process::{Resource, getrlimit};

/// Grows this process's descriptor table now to hold at least `count` descriptors, or as
/// many as the soft limit on open descriptors allows when it is lower. Nothing stays open:
/// a descriptor is duplicated to the last slot wanted and closed again. Returns the count
/// the table now holds at least (0 when it could not be grown: no standard stream is open
/// to duplicate, or the limit is 0).
///
/// Call it first thing in a process, while it has one thread: a process with more waits for
/// an RCU grace period once here instead of at a later open (see the module docs).
///
/// ```
/// let held = editkit_vfs::grow_descriptor_table(1024);
/// let status = std::fs::read_to_string("/proc/self/status").unwrap();
/// let size: u64 = status.lines().find_map(|line| line.strip_prefix("FDSize:")).unwrap().trim().parse().unwrap();
/// assert!(size >= held);
/// ```
#[must_use = "the count held tells whether the table grew"]
pub fn grow_descriptor_table(count: u64) -> u64 {
    // `None` is no limit.
    let limit = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    let wanted = count.min(limit);
    let Some(last) = wanted.checked_sub(1).and_then(|last| i32::try_from(last).ok()) else { return 0 };
    // A standard stream is duplicated rather than anything opened: no path is looked up.
    let (stderr, stdout, stdin) = (std::io::stderr(), std::io::stdout(), std::io::stdin());
    for stream in [stderr.as_fd(), stdout.as_fd(), stdin.as_fd()] {
        // The lowest free descriptor at `last` or above: the table grows to hold it.
        if let Ok(duplicate) = rustix::io::fcntl_dupfd_cloexec(stream, last) {
            drop(duplicate);
            return wanted;
        }
    }
    0
}
