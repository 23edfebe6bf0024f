//! Cancellation stops a walk at once; progress counts every file.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use editkit_search::{Control, Search};

fn tree(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..files {
        let sub = dir.path().join(format!("d{}", n % 20));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(format!("f{n}.txt")), "nothing to see\n").unwrap();
    }
    dir
}

#[test]
fn progress_counts_every_file_and_a_cancel_stops_the_walk_within_one_file_per_worker() {
    let dir = tree(2000);
    let workspace = editkit_vfs::Workspace::open(dir.path(), editkit_vfs::ambient_authority()).unwrap();
    let search = Search::builder("needle").build().unwrap();

    // Without a cancel: a report every 100 files, the last at 2000.
    let reports = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&reports);
    let control = Control::new().on_progress(100, move |_| {
        seen.fetch_add(1, Ordering::Relaxed);
    });
    let found = search.run_with(&workspace, ".", &control).unwrap();
    assert_eq!(found.files_searched, 2000);
    assert!(!found.truncated);
    assert_eq!(control.files_visited(), 2000);
    assert_eq!(reports.load(Ordering::Relaxed), 20);

    // Cancelled at the first report: every worker finishes at most the file it holds.
    let flag = Arc::new(AtomicBool::new(false));
    let at_cancel = Arc::new(AtomicU64::new(0));
    let (set, noted) = (Arc::clone(&flag), Arc::clone(&at_cancel));
    let control = Control::with_flag(flag).on_progress(100, move |visited| {
        if !set.swap(true, Ordering::Relaxed) {
            noted.store(visited, Ordering::Relaxed);
        }
    });
    let found = search.run_with(&workspace, ".", &control).unwrap();
    assert!(control.is_cancelled());
    assert!(found.truncated, "a cancelled search says it is cut short");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let after = control.files_visited() - at_cancel.load(Ordering::Relaxed);
    assert!(after <= workers, "{after} files were visited after the cancel, with {workers} workers");
    assert!(control.files_visited() < 2000);
}
