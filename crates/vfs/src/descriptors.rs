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

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

/// Grows this process's descriptor table now to hold at least `count` descriptors, or as
/// many as the hard limit on open descriptors allows when it is lower. The soft limit is
/// raised for that moment only and put back: the process keeps its limits, and nothing stays
/// open (a new descriptor is duplicated to the last slot wanted, and both are closed). Returns
/// the count the table now holds at least; 0 when `count` is 0 or the table could not be
/// grown (no descriptor could be made or duplicated).
///
/// Call it first thing in a process, while it has one thread: a process with more waits for
/// an RCU grace period once here instead of at a later open (see the module docs). A program
/// using the toolkit in-process does this in its `main`, as the `editkit` binary does.
///
/// ```
/// let held = editkit_vfs::grow_descriptor_table(1024);
/// assert!(held > 0);
/// let status = std::fs::read_to_string("/proc/self/status").unwrap();
/// let size: u64 = status.lines().find_map(|line| line.strip_prefix("FDSize:")).unwrap().trim().parse().unwrap();
/// assert!(size >= held);
/// ```
#[must_use = "the count held tells whether the table grew"]
pub fn grow_descriptor_table(count: u64) -> u64 {
    let limit = getrlimit(Resource::Nofile);
    // `None` is no limit.
    let (soft, hard) = (limit.current.unwrap_or(u64::MAX), limit.maximum.unwrap_or(u64::MAX));
    let wanted = count.min(hard);
    let raised =
        wanted > soft && setrlimit(Resource::Nofile, Rlimit { current: Some(wanted), maximum: limit.maximum }).is_ok();
    let held = duplicate_to(if raised { wanted } else { wanted.min(soft) });
    if raised {
        // Put back as it was; a failure leaves the higher soft limit, under the hard one.
        let _ = setrlimit(Resource::Nofile, limit);
    }
    held
}

/// Duplicates a descriptor to the slot `wanted - 1` or above, and closes it: the table holds
/// `wanted` slots. Returns `wanted`, or 0 when nothing could be duplicated.
fn duplicate_to(wanted: u64) -> u64 {
    let Some(last) = wanted.checked_sub(1).and_then(|last| i32::try_from(last).ok()) else { return 0 };
    // A descriptor of its own, not a copy of one the host holds (closing a copy of a file
    // would drop the host's POSIX locks on it); a standard stream when none can be made.
    let own = rustix::fs::memfd_create("editkit-descriptor-table", rustix::fs::MemfdFlags::CLOEXEC).ok();
    let (stderr, stdout, stdin) = (std::io::stderr(), std::io::stdout(), std::io::stdin());
    let sources = own.as_ref().map(AsFd::as_fd).into_iter().chain([stderr.as_fd(), stdout.as_fd(), stdin.as_fd()]);
    for source in sources {
        // The lowest free descriptor at `last` or above: the table grows to hold it.
        match rustix::io::fcntl_dupfd_cloexec(source, last) {
            Ok(duplicate) => {
                drop(duplicate);
                return wanted;
            }
            // Every slot from `last` to the limit is taken: the table holds them already.
            Err(rustix::io::Errno::MFILE) => return wanted,
            Err(_) => {}
        }
    }
    0
}
