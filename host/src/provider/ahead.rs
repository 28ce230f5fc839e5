//! Entries a provider sends ahead of its snapshot's answer (`emit-skills`).
//!
//! A provider scanning many documents can hand the host each batch as soon
//! as it is parsed; the host then checks those entries at the boundary on a
//! helper thread while the provider reads on, so the scan ends with little
//! left to check. Nothing about the answer changes: absorb takes these
//! entries first, in the order sent, as though they led the answer's list.
//!
//! The helper starts only once enough entries came to be worth a thread
//! ([`HELPER_FROM`]), and never on a single core; entries without a helper
//! are checked with the answer, as any other. At most `caps.max_skills` are
//! kept; the rest are counted and dropped unexamined, as the answer's own
//! surplus is.

use super::boundary::Caps;
use super::incoming::{Incoming, Source};
use super::namespace::Namespace;
use crate::cores::cores;
use crate::model::Scope;
use crate::sandbox::contract as wit;
use crate::sandbox::{Ahead, Grants};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Entries sent ahead before the helper thread starts: below this a
/// snapshot's few entries cost less to check with the answer than a thread
/// costs to start.
pub(super) const HELPER_FROM: usize = 128;

/// Who the entries are from, owned, so the helper thread can check them.
pub(super) struct Sender {
    pub grants: Arc<Grants>,
    pub id: String,
    pub caps: Caps,
    pub namespace: Namespace,
    pub scope: Scope,
    pub location: String,
}

impl Sender {
    /// The same, borrowed, as absorb takes it.
    pub(super) fn source(&self) -> Source<'_> {
        Source {
            grants: &self.grants,
            id: &self.id,
            caps: &self.caps,
            namespace: &self.namespace,
            scope: self.scope,
            location: &self.location,
        }
    }
}

/// What came ahead of one answer, in the order sent.
#[derive(Default)]
pub(super) struct Early {
    /// The entries kept, checked already when the helper ran.
    pub entries: Vec<Incoming>,
    /// Entries sent in all.
    pub received: usize,
    /// Entries past `caps.max_skills`, dropped unexamined.
    pub dropped: usize,
}

struct Helper {
    batches: mpsc::Sender<Vec<wit::SkillEntry>>,
    done: JoinHandle<Vec<Incoming>>,
}

#[derive(Default)]
struct State {
    received: usize,
    dropped: usize,
    /// Kept entries handed to the helper.
    handed: usize,
    /// Kept entries not handed to a helper.
    waiting: Vec<wit::SkillEntry>,
    helper: Option<Helper>,
    /// The helper could not be started: check everything with the answer.
    no_helper: bool,
}

/// The receiving end of one snapshot call's entries sent ahead.
pub(super) struct Receiver {
    state: Arc<Mutex<State>>,
    from: Arc<Sender>,
}

impl Receiver {
    /// Ready for the entries of one snapshot call from `from`.
    pub(super) fn new(from: Sender) -> Self {
        Receiver {
            state: Arc::new(Mutex::new(State {
                no_helper: cores() < 2,
                ..State::default()
            })),
            from: Arc::new(from),
        }
    }

    /// What the instance calls with each batch, for the length of the call.
    pub(super) fn sink(&self) -> Ahead {
        let state = self.state.clone();
        let from = self.from.clone();
        Box::new(move |batch| {
            let mut state = super::lock(&state);
            take(&mut state, batch, &from);
        })
    }

    /// Everything sent ahead, once the call is over (the sink is gone with
    /// the call, so nothing more arrives), and who sent it.
    pub(super) fn finish(self) -> (Early, Arc<Sender>) {
        let mut state = super::lock(&self.state);
        let mut entries = Vec::new();
        if let Some(helper) = state.helper.take() {
            drop(helper.batches);
            match helper.done.join() {
                Ok(checked) => entries = checked,
                // Only a host bug panics there; it would have on this thread.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        // Entries no helper took are checked with the answer.
        let waiting = std::mem::take(&mut state.waiting);
        entries.extend(waiting.into_iter().map(|e| Incoming::new(e, None)));
        let early = Early {
            entries,
            received: state.received,
            dropped: state.dropped,
        };
        (early, self.from.clone())
    }
}

/// Keeps what fits of `batch` and hands it to the helper, starting it once
/// enough are waiting.
fn take(state: &mut State, mut batch: Vec<wit::SkillEntry>, from: &Arc<Sender>) {
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
    if let Some(helper) = &state.helper {
        let count = batch.len();
        match helper.batches.send(batch) {
            Ok(()) => state.handed += count,
            // The helper only ends when told to, or by a host bug that
            // `finish` reports; the entries stay here meanwhile.
            Err(mpsc::SendError(batch)) => state.waiting.extend(batch),
        }
        return;
    }
    state.waiting.extend(batch);
    if state.no_helper || state.waiting.len() < HELPER_FROM {
        return;
    }
    let (batches, arriving) = mpsc::channel::<Vec<wit::SkillEntry>>();
    let for_helper = from.clone();
    let started = std::thread::Builder::new()
        .name("skillhost-ahead".to_string())
        .spawn(move || {
            let from = for_helper.source();
            let mut out: Vec<Incoming> = Vec::new();
            for batch in arriving {
                out.extend(batch.into_iter().map(|e| Incoming::new(e, Some(&from))));
            }
            out
        });
    match started {
        Ok(done) => {
            let first = std::mem::take(&mut state.waiting);
            state.handed += first.len();
            // The receiver is alive (the helper holds it): this cannot fail.
            if let Err(mpsc::SendError(first)) = batches.send(first) {
                state.handed -= first.len();
                state.waiting = first;
            }
            state.helper = Some(Helper { batches, done });
        }
        Err(e) => {
            tracing::debug!(provider = %from.id, error = %e, "no helper thread for entries sent ahead");
            state.no_helper = true;
        }
    }
}

#[cfg(test)]
#[path = "ahead_tests.rs"]
mod tests;
