//! The set of canonical paths locked in this process: the in-process half of a file lock.

use std::collections::HashSet;
use std::sync::{Condvar, Mutex, PoisonError};

/// The set of canonical paths locked in this process.
#[derive(Debug)]
pub(crate) struct LockTable {
    held: Mutex<HashSet<String>>,
    freed: Condvar,
    pub(crate) cross_process: bool,
    /// The state folder's `locks/` as last opened (reopened when the name no longer leads to it).
    pub(crate) dir: Mutex<Option<std::sync::Arc<crate::lock::LocksDir>>>,
    /// Lock files this workspace created (the lock module sweeps the folder every so many).
    pub(crate) created: std::sync::atomic::AtomicUsize,
}

impl LockTable {
    pub(crate) fn new(cross_process: bool) -> Self {
        LockTable {
            held: Mutex::new(HashSet::new()),
            freed: Condvar::new(),
            cross_process,
            dir: Mutex::new(None),
            created: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    pub(crate) fn acquire(&self, rel: &str) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        while held.contains(rel) {
            held = self.freed.wait(held).unwrap_or_else(PoisonError::into_inner);
        }
        held.insert(rel.to_owned());
    }

    pub(crate) fn release(&self, rel: &str) {
        self.held.lock().unwrap_or_else(PoisonError::into_inner).remove(rel);
        self.freed.notify_all();
    }
}
