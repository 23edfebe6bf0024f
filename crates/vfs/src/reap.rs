//! State entries removed off the caller's path.
//!
//! Removing the last link of a large file frees its blocks, and some file systems make the
//! unlink wait for each freed block to be discarded by the device (ext4 mounted `discard`
//! without a journal: about a millisecond per megabyte). An undo entry dropped past the history
//! depth is such a file. [`crate::Txn::state_remove_soon`] renames the entry at once to a hidden
//! name in its folder, so nothing that lists entries sees it again, and hands the unlink to a
//! thread of the workspace.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, mpsc};
use std::thread::JoinHandle;

use cap_std::fs::Dir;

use crate::sync::LockExt;

/// How a state entry's name starts once it is handed over for removal. [`crate::Txn::state_list`]
/// never shows such names, and hands any it finds (left by a process that was killed) over
/// for removal too.
pub(crate) const HIDDEN_PREFIX: &str = ".reap-";

static HIDDEN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A hidden name unique within this process and across processes.
pub(crate) fn hidden_name() -> String {
    let n = HIDDEN_COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{}{n}", own_prefix())
}

/// How this process's hidden names start.
pub(crate) fn own_prefix() -> String {
    format!("{HIDDEN_PREFIX}{}-", std::process::id())
}

/// One removal: the folder and the hidden name in it.
type Job = (Dir, String);

/// The thread that unlinks hidden state entries, started on first use; dropping it waits for
/// every removal handed over, so a short process leaves none behind.
#[derive(Debug, Default)]
pub(crate) struct Reaper {
    worker: Mutex<Option<(mpsc::Sender<Job>, JoinHandle<()>)>>,
}

impl Reaper {
    /// Unlinks `name` in `folder` on the thread, or here when no thread can be started. A
    /// name already gone is not an error: nothing is reported either way.
    pub(crate) fn remove(&self, folder: Dir, name: String) {
        let mut worker = self.worker.lock_unpoisoned();
        if worker.is_none() {
            let (sender, receiver) = mpsc::channel::<Job>();
            let started = std::thread::Builder::new().name("editkit-reaper".into()).spawn(move || {
                for (folder, name) in receiver {
                    let _ = folder.remove_file(&name);
                }
            });
            match started {
                Ok(handle) => *worker = Some((sender, handle)),
                Err(_) => {
                    let _ = folder.remove_file(&name);
                    return;
                }
            }
        }
        if let Some((sender, _)) = worker.as_ref()
            && let Err(mpsc::SendError((folder, name))) = sender.send((folder, name))
        {
            // The thread is gone (it can only have panicked): remove it here.
            let _ = folder.remove_file(&name);
        }
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        let worker = self.worker.get_mut_unpoisoned().take();
        if let Some((sender, handle)) = worker {
            drop(sender);
            let _ = handle.join();
        }
    }
}
