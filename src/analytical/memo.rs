//! Times remembered by key, shared by the threads that ask for them:
//! selection prices the same configurations for every learner and size
//! table, and the prices of many configurations share their simulated runs
//! (see [`super::price::Recipe`]).

use rustc_hash::FxHashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::Mutex;

/// Values by key, at most [`Memo::MOST`] (then it starts again: a bound on
/// memory for long-lived callers and very large campaigns). A value is
/// computed outside the lock; two threads asking for the same new key at
/// once both compute it, with the same result.
pub struct Memo<K, V>(Mutex<FxHashMap<K, Option<V>>>);

impl<K: Hash + Eq + Copy, V: Clone> Memo<K, V> {
    pub const MOST: usize = 1 << 18;

    pub fn get_or(&self, key: &K, compute: impl FnOnce() -> Option<V>) -> Option<V> {
        if let Some(known) = self.0.lock().ok().and_then(|m| m.get(key).cloned()) {
            return known;
        }
        let value = compute();
        if let Ok(mut memo) = self.0.lock() {
            if memo.len() >= Self::MOST {
                memo.clear();
            }
            memo.insert(*key, value.clone());
        }
        value
    }
}

impl<K, V> Default for Memo<K, V> {
    fn default() -> Self {
        Memo(Mutex::new(FxHashMap::default()))
    }
}

// A copy starts empty: what it remembers follows from the owner's fields.
impl<K, V> Clone for Memo<K, V> {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

impl<K, V> fmt::Debug for Memo<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.lock().map_or(0, |m| m.len());
        write!(f, "Memo({n} remembered)")
    }
}
