//! Per-file work spread over a few threads: reading and hashing the files a patch touches,
//! hashing and diffing what they become, staging their new contents, removing backups; and,
//! in the toolkit and the CLI, checking each file a patch wrote. The one owner of that split:
//! a caller gives the items, a function and at most how many threads
//! ([`compute_threads`] for work that computes); the threads are started and joined here.

use std::sync::OnceLock;

/// Most threads one call uses.
const MAX_THREADS: usize = 8;

/// The cores this process may use (read once).
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// `f` of each contiguous part of `items` (at most `threads` parts of at least `per_thread`
/// items each), each part on a scoped thread of its own while the caller waits (on the caller
/// alone when there is one part), in order. Every part has finished when this returns; a
/// part that panicked gives its panic (caught), so the caller decides what it means.
pub(crate) fn parts<T: Sync, R: Send>(
    items: &[T],
    per_thread: usize,
    threads: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<std::thread::Result<R>> {
    let threads = items.len().div_ceil(per_thread.max(1)).clamp(1, threads.clamp(1, MAX_THREADS));
    let guarded = |part: &[T]| std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(part)));
    if threads == 1 {
        return vec![guarded(items)];
    }
    let guarded = &guarded;
    std::thread::scope(|scope| {
        // A part whose thread cannot be started (a thread or memory limit) is done here.
        let handles: Vec<_> = balanced(items, threads)
            .map(|part| std::thread::Builder::new().spawn_scoped(scope, move || guarded(part)).map_err(|_| part))
            .collect();
        // Every thread is joined before any outcome is looked at.
        handles
            .into_iter()
            .map(|handle| match handle {
                Ok(handle) => handle.join().unwrap_or_else(Err),
                Err(part) => guarded(part),
            })
            .collect()
    })
}

/// `items` cut into `parts` contiguous runs whose lengths differ by one at most (none empty
/// when there are at least as many items).
fn balanced<T>(items: &[T], parts: usize) -> impl Iterator<Item = &[T]> {
    let parts = parts.max(1);
    (0..parts).filter_map(move |n| items.get(n * items.len() / parts..(n + 1) * items.len() / parts))
}

/// As [`parts`] for work whose cost is the file system's: the first `probe` items are done on
/// this thread, timed, and the rest are spread over up to `threads` threads only when those
/// took at least `slow` on average (a file system that makes every create or removal search
/// or wait, where many threads overlap that cost); otherwise over one thread per core at most,
/// each with at least `probe` items, since more would cost more in starts than they save. The
/// first outcome is the probe's.
pub(crate) fn parts_if_slow<T: Sync, R: Send>(
    items: &[T],
    probe: usize,
    slow: std::time::Duration,
    threads: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<std::thread::Result<R>> {
    let (first, rest) = items.split_at(probe.min(items.len()));
    let started = std::time::Instant::now();
    let mut outcomes = vec![std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(first)))];
    if rest.is_empty() {
        return outcomes;
    }
    let per_item = started.elapsed() / u32::try_from(first.len().max(1)).unwrap_or(u32::MAX);
    let (per_thread, threads) = if per_item >= slow { (1, threads) } else { (probe, threads.min(cores())) };
    outcomes.extend(parts(rest, per_thread, threads, f));
    outcomes
}

/// `f` of every item, in order, computed by up to `threads` threads (at most one per
/// `per_thread` items; on this thread alone when there are few), each taking the next item
/// not yet taken: an item that costs more than the others holds up one thread, not a run of
/// items behind it. A panic in `f` (a bug) goes on in the caller once every thread has
/// finished.
///
/// ```
/// let doubled = editkit_patch::par::map(&[1, 2, 3], 1, editkit_patch::par::compute_threads(), |n| n * 2);
/// assert_eq!(doubled, [2, 4, 6]);
/// ```
pub fn map<T: Sync, R: Send>(items: &[T], per_thread: usize, threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = items.len().div_ceil(per_thread.max(1)).clamp(1, threads.clamp(1, MAX_THREADS));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    // The items a thread took, each with its index; a panic is caught so that every other
    // thread finishes first.
    let work = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut done = Vec::new();
            loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(index) else { break };
                done.push((index, f(item)));
            }
            done
        }))
    };
    let work = &work;
    let outcomes: Vec<std::thread::Result<Vec<(usize, R)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            (1..threads).filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok()).collect();
        // This thread works too (alone, when no thread could be started).
        let mine = work();
        std::iter::once(mine).chain(handles.into_iter().map(|handle| handle.join().unwrap_or_else(Err))).collect()
    });
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for outcome in outcomes {
        match outcome {
            Ok(done) => {
                for (index, result) in done {
                    if let Some(slot) = slots.get_mut(index) {
                        *slot = Some(result);
                    }
                }
            }
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
    // Every index below the count was taken by one thread, which finished it.
    slots.into_iter().flatten().collect()
}

/// Threads for work that mostly computes: one per core.
pub fn compute_threads() -> usize {
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
        // As many parts as threads asked for, whatever the count (10 items over 8 threads too).
        for (len, threads) in [(10, 8), (36, 7), (100, 3), (5, 8)] {
            let items: Vec<usize> = (0..len).collect();
            let sizes: Vec<usize> =
                super::parts(&items, 1, threads, <[usize]>::len).into_iter().map(Result::unwrap).collect();
            assert_eq!(sizes.len(), threads.min(len), "{len} items over {threads}");
            assert_eq!(sizes.iter().sum::<usize>(), len);
            assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1, "{sizes:?}");
        }
        let few = super::parts_if_slow(
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
            8,
            std::time::Duration::from_secs(3600),
            8,
            <[i32]>::len,
        );
        assert_eq!(few.len(), 2, "two quick items left are not worth a thread each");
    }

    #[test]
    fn a_panicking_part_is_caught_after_every_part_has_run() {
        let items: Vec<usize> = (0..64).collect();
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let outcomes = super::parts(&items, 1, 8, |part| {
            ran.fetch_add(part.len(), std::sync::atomic::Ordering::SeqCst);
            assert!(!part.contains(&9), "a bug in one part");
            part.len()
        });
        assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), items.len());
        assert_eq!(outcomes.len(), 8);
        assert_eq!(outcomes.iter().filter(|outcome| outcome.is_err()).count(), 1);
        assert!(outcomes[1].is_err(), "items 8..16 hold the 9");
        let caught = std::panic::catch_unwind(|| super::map(&items, 1, 8, |n| assert_ne!(*n, 40)));
        assert!(caught.is_err(), "map goes on with the panic");
    }

    #[test]
    fn slow_items_are_spread_over_many_threads_and_quick_ones_over_the_cores() {
        let items: Vec<usize> = (0..40).collect();
        let caller = std::thread::current().id();
        let on_caller = |part: &[usize]| (part.to_vec(), std::thread::current().id() == caller);
        let quick = super::parts_if_slow(&items, 4, std::time::Duration::from_secs(3600), 8, on_caller);
        let quick: Vec<(Vec<usize>, bool)> = quick.into_iter().map(Result::unwrap).collect();
        assert_eq!(
            quick.len(),
            1 + super::cores().min(8).min(36_usize.div_ceil(4)),
            "the probe, then one part per core"
        );
        assert!(quick[0].1, "the probe runs on the caller");
        assert_eq!(quick.iter().flat_map(|(part, _)| part.clone()).collect::<Vec<_>>(), items);
        let slow = super::parts_if_slow(&items, 4, std::time::Duration::ZERO, 8, on_caller);
        let slow: Vec<(Vec<usize>, bool)> = slow.into_iter().map(Result::unwrap).collect();
        assert_eq!(slow.len(), 1 + 8, "the probe, then the rest in eight parts");
        assert!(slow[0].1, "the probe runs on the caller");
        assert!(slow[1..].iter().all(|(_, here)| !here), "the rest on threads of their own");
        assert_eq!(slow.iter().flat_map(|(part, _)| part.clone()).collect::<Vec<_>>(), items);
        let panicking =
            super::parts_if_slow(&items, 4, std::time::Duration::ZERO, 8, |part| assert!(!part.contains(&2)));
        assert!(panicking[0].is_err() && panicking[1..].iter().all(Result::is_ok), "a panic in the probe is caught");
    }
}
