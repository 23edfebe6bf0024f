//! Poison recovery, in one place. A thread that panics while it holds a lock poisons it; every
//! value the toolkit keeps behind one (editor sessions, the analysis cache, the history's size
//! estimates, texts read outside the roots) is whole between statements, so a panic elsewhere
//! never leaves it half made, and the guard is taken back and used as it is.

use std::sync::{Mutex, MutexGuard, PoisonError};

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
