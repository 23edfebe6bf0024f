//! The set of canonical paths locked in this process (the in-process half of a file lock),
//! and the cross-process locks this workspace holds on workspace objects (a file's inode, the
//! root folder), shared by its locks.

use std::collections::{HashMap, HashSet};
use std::os::fd::OwnedFd;
use std::sync::{Condvar, Mutex};

use crate::sync::LockExt;

/// A workspace object by device and inode.
pub(crate) type ObjectKey = (u64, u64);

/// The set of canonical paths locked in this process.
#[derive(Debug)]
pub(crate) struct LockTable {
    held: Mutex<HashSet<String>>,
    freed: Condvar,
    pub(crate) cross_process: bool,
    /// The state folder's `locks/` as last opened (reopened when the name no longer leads to it).
    pub(crate) dir: Mutex<Option<std::sync::Arc<LocksDir>>>,
    /// Lock files this workspace created (the lock module sweeps the folder every so many).
    pub(crate) created: std::sync::atomic::AtomicUsize,
    /// The objects this workspace holds a `flock` on, and which locked path holds which.
    objects: Mutex<Objects>,
}

#[derive(Debug, Default)]
struct Objects {
    /// The open, `flock`ed descriptor of each object, with how many locked paths hold it.
    held: HashMap<ObjectKey, (OwnedFd, usize)>,
    /// Per locked canonical path, the objects its lock holds.
    by_path: HashMap<String, Vec<ObjectKey>>,
}

impl LockTable {
    pub(crate) fn new(cross_process: bool) -> Self {
        LockTable {
            held: Mutex::new(HashSet::new()),
            freed: Condvar::new(),
            cross_process,
            dir: Mutex::new(None),
            created: std::sync::atomic::AtomicUsize::new(0),
            objects: Mutex::new(Objects::default()),
        }
    }

    pub(crate) fn acquire(&self, rel: &str) {
        let mut held = self.held.lock_unpoisoned();
        while held.contains(rel) {
            held = crate::sync::wait(&self.freed, held);
        }
        held.insert(rel.to_owned());
    }

    /// Takes `rel` if nobody in this process holds it; says whether it did.
    pub(crate) fn try_acquire(&self, rel: &str) -> bool {
        self.held.lock_unpoisoned().insert(rel.to_owned())
    }

    /// Whether `rel` is locked in this workspace.
    pub(crate) fn holds(&self, rel: &str) -> bool {
        self.held.lock_unpoisoned().contains(rel)
    }

    pub(crate) fn release(&self, rel: &str) {
        self.release_objects(rel);
        self.held.lock_unpoisoned().remove(rel);
        self.freed.notify_all();
    }

    /// Counts `key` as held by `rel` too when this workspace holds it already; says whether.
    pub(crate) fn share(&self, rel: &str, key: ObjectKey) -> bool {
        let mut objects = self.objects.lock_unpoisoned();
        let Some((_, count)) = objects.held.get_mut(&key) else { return false };
        *count += 1;
        objects.by_path.entry(rel.to_owned()).or_default().push(key);
        true
    }

    /// Records `fd`, `flock`ed on `key`, as held by `rel` (or, when another lock of this
    /// workspace took it meanwhile, shares that one and closes `fd`).
    pub(crate) fn insert(&self, rel: &str, key: ObjectKey, fd: OwnedFd) {
        let mut objects = self.objects.lock_unpoisoned();
        objects.held.entry(key).and_modify(|(_, count)| *count += 1).or_insert((fd, 1));
        objects.by_path.entry(rel.to_owned()).or_default().push(key);
    }

    /// Lets go of the objects `rel`'s lock holds; an object no other lock holds is closed,
    /// which releases its `flock`.
    fn release_objects(&self, rel: &str) {
        // Closed once the table is unlocked: closing the last descriptor of a file replaced
        // meanwhile frees its blocks, which can wait on the disk (a file system that discards
        // freed blocks at once), and other locks of this workspace are released meanwhile.
        let mut closing = Vec::new();
        let mut objects = self.objects.lock_unpoisoned();
        for key in objects.by_path.remove(rel).unwrap_or_default() {
            if let Some((_, count)) = objects.held.get_mut(&key) {
                *count -= 1;
                if *count == 0 {
                    closing.extend(objects.held.remove(&key).map(|(fd, _)| fd));
                }
            }
        }
        drop(objects);
        drop(closing);
    }
}

/// The state folder's `locks/`, open, with the identity it had when opened.
#[derive(Debug)]
pub(crate) struct LocksDir {
    pub(crate) dir: cap_std::fs::Dir,
    pub(crate) dev: u64,
    pub(crate) ino: u64,
}
