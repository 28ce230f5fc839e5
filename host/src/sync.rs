//! Locks that keep working after a holder panicked.
//!
//! Every critical section in skillhost leaves its data whole before it can
//! panic (it replaces a value, or pushes or removes one entry), so a poisoned
//! lock holds consistent data. Refusing it would turn one panicking listener
//! or provider thread into a host that can no longer serve anything; these
//! helpers take the data as it is instead. This is the one place that rule
//! is written.

use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `m`, taking the data even if a holder panicked.
pub fn lock<T: ?Sized>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Read-locks `l`, taking the data even if a writer panicked.
pub fn read<T: ?Sized>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|p| p.into_inner())
}

/// Write-locks `l`, taking the data even if a holder panicked.
pub fn write<T: ?Sized>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_lock_whose_holder_panicked_still_gives_its_data() {
        let m = Arc::new(Mutex::new(vec![1]));
        let l = Arc::new(RwLock::new(7));
        let (m2, l2) = (m.clone(), l.clone());
        let _ = std::thread::spawn(move || {
            let _g = m2.lock().unwrap();
            let _w = l2.write().unwrap();
            panic!("a holder panics");
        })
        .join();
        assert!(m.is_poisoned() && l.is_poisoned());
        lock(&m).push(2);
        assert_eq!(*lock(&m), [1, 2]);
        *write(&l) += 1;
        assert_eq!(*read(&l), 8);
    }
}
