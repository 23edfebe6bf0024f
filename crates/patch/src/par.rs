//! Per-file work spread over a few threads: reading and hashing the files a patch touches,
//! hashing and diffing what they become, staging their new contents, removing backups.

use std::sync::OnceLock;

/// Most threads one call uses.
const MAX_THREADS: usize = 8;

/// The cores this process may use (read once).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `f` of every item, in order, computed by up to `threads` scoped threads taking contiguous
/// runs of at least `per_thread` items (on this thread alone when there are few).
pub(crate) fn map<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = items.len().div_ceil(per_thread.max(1)).clamp(1, threads.clamp(1, MAX_THREADS));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        // A run whose thread cannot be started (a thread or memory limit) is done here.
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || part.iter().map(f).collect::<Vec<R>>())
                    .map_err(|_| part)
            })
            .collect();
        // A worker panics only on a bug; the panic goes on in the caller.
        handles
            .into_iter()
            .flat_map(|handle| match handle {
                Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(part) => part.iter().map(f).collect(),
            })
            .collect()
    })
}

/// Threads for work that mostly computes: one per core.
pub(crate) fn compute_threads() -> usize {
    cores()
}

/// Threads for work that mostly waits on the file system (creating files, discarding freed
/// blocks): more than the cores, so that the waits overlap.
pub(crate) const IO_THREADS: usize = MAX_THREADS;

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_back_in_order_whatever_the_split() {
        let items: Vec<usize> = (0..1000).collect();
        for (per_thread, threads) in [(1, 8), (7, 3), (1000, 8), (2000, 8), (1, 1)] {
            let doubled = super::map(&items, per_thread, threads, |n| n * 2);
            assert_eq!(doubled, items.iter().map(|n| n * 2).collect::<Vec<_>>());
        }
        assert!(super::map(&[] as &[usize], 1, 8, |n| *n).is_empty());
    }
}
