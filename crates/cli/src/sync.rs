//! Poison recovery, in one place. A thread that panics while it holds a lock poisons it; every
//! value the binary keeps behind one (the toolkit being served, the roots problem, session
//! and task start times, the log's windows, unauthenticated connections) is whole between
//! statements, so a panic elsewhere never leaves it half made, and the guard is taken back and
//! used as it is.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A [`Mutex`] taken whether or not it is poisoned.
pub(crate) trait LockExt<T> {
    /// The guard, also when a thread panicked while holding the lock.
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T>;
}

impl<T> LockExt<T> for Mutex<T> {
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An [`RwLock`] taken whether or not it is poisoned.
pub(crate) trait RwLockExt<T> {
    /// The read guard, also when a thread panicked while holding the lock.
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T>;
    /// The write guard, also when a thread panicked while holding the lock.
    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T>;
}

impl<T> RwLockExt<T> for RwLock<T> {
    fn read_unpoisoned(&self) -> RwLockReadGuard<'_, T> {
        self.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_unpoisoned(&self) -> RwLockWriteGuard<'_, T> {
        self.write().unwrap_or_else(PoisonError::into_inner)
    }
}
