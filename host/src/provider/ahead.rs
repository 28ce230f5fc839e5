//! Entries a provider sends ahead of its snapshot's answer (`emit-skills`).
//!
//! A provider scanning many documents can hand the host each batch as soon
//! as it is parsed; the host then checks those batches at the boundary on
//! the engine's workers while the provider reads on, so the scan ends with
//! little left to check. Nothing about the answer changes: absorb takes
//! these entries first, in the order sent, as though they led the answer's
//! list. This is the `Speedups::checks_ahead` speedup.
//!
//! Batches go to the workers only once enough entries came to be worth it
//! ([`HELPER_FROM`]), and never on a single core; entries not handed over
//! are checked with the answer, as any other, and a batch no worker took
//! is checked when the call ends. At most `caps.max_skills` are kept; the
//! rest are counted and dropped unexamined, as the answer's own surplus is.

use super::incoming::{Entries, Incoming, Sender, arrive};
use crate::cores::cores;
use crate::sandbox::contract as wit;
use crate::sandbox::{Ahead, Pending, Workers};
use std::sync::{Arc, Mutex};

/// Entries sent ahead before batches go to the workers: below this a
/// snapshot's few entries cost less to check with the answer than to hand
/// over.
pub(super) const HELPER_FROM: usize = 128;

#[derive(Default)]
struct State {
    received: usize,
    dropped: usize,
    /// Kept entries handed to the workers.
    handed: usize,
    /// Kept entries not handed over yet.
    waiting: Vec<wit::SkillEntry>,
    /// The batches handed over, in the order sent.
    checking: Vec<Pending<Vec<Incoming>>>,
}

/// The receiving end of one snapshot call's entries sent ahead.
pub(super) struct Receiver {
    state: Arc<Mutex<State>>,
    from: Arc<Sender>,
    /// None: every entry is checked with the answer.
    workers: Option<Workers>,
}

impl Receiver {
    /// Ready for the entries of one snapshot call from `from`, checked on
    /// `workers` once there are enough.
    pub(super) fn new(from: Sender, workers: &Workers) -> Self {
        let ahead = cores() >= 2 && workers.speedups().checks_ahead;
        Receiver {
            state: Arc::new(Mutex::new(State::default())),
            from: Arc::new(from),
            workers: ahead.then(|| workers.clone()),
        }
    }

    /// What the instance calls with each batch, for the length of the call.
    pub(super) fn sink(&self) -> Ahead {
        let state = self.state.clone();
        let from = self.from.clone();
        let workers = self.workers.clone();
        Box::new(move |batch| {
            let mut state = super::lock(&state);
            take(&mut state, batch, &from, workers.as_ref());
        })
    }

    /// Everything sent ahead, once the call is over (the sink is gone with
    /// the call, so nothing more arrives), and who sent it.
    pub(super) fn finish(self) -> (Entries, Arc<Sender>) {
        let mut state = super::lock(&self.state);
        let mut parts: Vec<Vec<Incoming>> = std::mem::take(&mut state.checking)
            .into_iter()
            .map(Pending::join)
            .collect();
        // Entries not handed over are checked with the answer.
        parts.push(arrive(std::mem::take(&mut state.waiting), None));
        let entries = Entries {
            parts,
            received: state.received,
            dropped: state.dropped,
        };
        (entries, self.from.clone())
    }
}

/// Keeps what fits of `batch` and hands it to the workers, once enough
/// have come.
fn take(
    state: &mut State,
    mut batch: Vec<wit::SkillEntry>,
    from: &Arc<Sender>,
    workers: Option<&Workers>,
) {
    state.received = state.received.saturating_add(batch.len());
    let room = from
        .caps
        .max_skills
        .saturating_sub(state.waiting.len() + state.handed);
    if batch.len() > room {
        state.dropped += batch.len() - room;
        batch.truncate(room);
    }
    if batch.is_empty() {
        return;
    }
    state.waiting.extend(batch);
    let Some(workers) = workers else {
        return;
    };
    if state.checking.is_empty() && state.waiting.len() < HELPER_FROM {
        return;
    }
    let part = std::mem::take(&mut state.waiting);
    state.handed += part.len();
    let from = from.clone();
    state
        .checking
        .push(workers.submit(move || arrive(part, Some(&from.source()))));
}

#[cfg(test)]
#[path = "ahead_tests.rs"]
mod tests;
