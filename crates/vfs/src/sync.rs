//! Poison recovery, in one place. A thread that panics while it holds a lock poisons it; every
//! value this crate keeps behind one (the read ledger, the hash memo, the lock table, a
//! batch's open folders, the reaper's worker slot) is whole between statements, so a panic
//! elsewhere never leaves it half made, and the guard is taken back and used as it is.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// A [`Mutex`] taken whether or not it is poisoned.
pub(crate) trait LockExt<T> {
    /// The guard, also when a thread panicked while holding the lock.
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T>;
    /// The value through `&mut`, also when a thread panicked while holding the lock.
    fn get_mut_unpoisoned(&mut self) -> &mut T;
}

impl<T> LockExt<T> for Mutex<T> {
    fn lock_unpoisoned(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get_mut_unpoisoned(&mut self) -> &mut T {
        self.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`Condvar::wait`], taking the guard back as [`LockExt::lock_unpoisoned`] does.
pub(crate) fn wait<'a, T>(condvar: &Condvar, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
    condvar.wait(guard).unwrap_or_else(PoisonError::into_inner)
}
