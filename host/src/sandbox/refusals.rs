//! What a provider tried and was refused (capabilities it was not
//! granted), kept so the catalog can say so, once per kind.
//!
//! Some refusals are the contract working rather than a provider's fault:
//! a language runtime reads its (empty) environment at start, or prints to
//! a stdout that is discarded. Those are noted once per provider per
//! process, at info level, with a count, and are not catalog warnings.
//! Every other refusal is something the provider's author must act on: it
//! is logged once as a warning and the catalog shows one line for its kind,
//! however often it recurs.

use std::sync::{Arc, Mutex};

/// What kind of capability was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Refused {
    /// Reading environment variables (none are granted).
    Environment,
    /// Writing to stdout (discarded).
    Stdout,
    /// Opening a socket or resolving a name (no network below `wasi:http`).
    Socket,
    /// An HTTP request to an origin not granted, or too many at once.
    Http,
    /// A watch request for a path refused or outside the grants.
    Watch,
    /// A watch request past the most paths one provider may watch.
    WatchCount,
    /// A watch request past the most bytes of paths one provider may watch.
    WatchBytes,
    /// Opening something that is not a regular file or folder.
    File,
    /// `emit-skills` outside a `snapshot` call.
    Emit,
}

impl Refused {
    /// Whether this refusal is the contract working as designed, for which
    /// the provider's author has nothing to do.
    pub fn is_benign(self) -> bool {
        matches!(self, Refused::Environment | Refused::Stdout)
    }

    /// A short name for the kind, for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Refused::Environment => "environment",
            Refused::Stdout => "stdout",
            Refused::Socket => "socket",
            Refused::Http => "http",
            Refused::Watch => "watch",
            Refused::WatchCount => "watch-count",
            Refused::WatchBytes => "watch-bytes",
            Refused::File => "file",
            Refused::Emit => "emit-skills",
        }
    }
}

/// One kind of refusal: its first message and how often it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The kind.
    pub kind: Refused,
    /// What the provider did the first time, in words.
    pub message: String,
    /// How many times it was refused.
    pub count: u64,
}

impl Refusal {
    /// The message, with how often it recurred when it did.
    pub fn shown(&self) -> String {
        match self.count {
            0 | 1 => self.message.clone(),
            n => format!("{} ({n} times)", self.message),
        }
    }
}

/// Refusals of one provider, shared by all its instances in this process:
/// one entry per kind.
#[derive(Debug, Clone, Default)]
pub struct Refusals {
    provider: Arc<str>,
    kinds: Arc<Mutex<Vec<Refusal>>>,
}

impl Refusals {
    /// The refusals of provider `id` (named in the log lines).
    pub fn new(id: &str) -> Refusals {
        Refusals {
            provider: Arc::from(id),
            kinds: Arc::default(),
        }
    }

    /// Records a refusal of `kind`; only the first of a kind is logged
    /// (a warning, or info for a benign kind) and keeps its message.
    pub fn record(&self, kind: Refused, message: String) {
        let mut list = crate::sync::lock(&self.kinds);
        if let Some(known) = list.iter_mut().find(|r| r.kind == kind) {
            known.count = known.count.saturating_add(1);
            return;
        }
        let provider = &*self.provider;
        if kind.is_benign() {
            tracing::info!(provider, %message, kind = kind.as_str(), "a provider was refused a capability it is not granted; noted once");
        } else {
            tracing::warn!(provider, %message, kind = kind.as_str(), "a provider was refused a capability");
        }
        list.push(Refusal {
            kind,
            message,
            count: 1,
        });
    }

    /// Every kind refused so far, in the order first seen.
    pub fn all(&self) -> Vec<Refusal> {
        crate::sync::lock(&self.kinds).clone()
    }

    /// The refusals its author must act on, as lines for the catalog.
    pub fn actionable(&self) -> Vec<String> {
        self.all()
            .iter()
            .filter(|r| !r.kind.is_benign())
            .map(Refusal::shown)
            .collect()
    }

    /// Every refusal as a line, benign ones included.
    pub fn list(&self) -> Vec<String> {
        self.all().iter().map(Refusal::shown).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_kept_once_with_a_count_and_benign_ones_stay_out_of_the_catalog() {
        let r = Refusals::default();
        for _ in 0..3 {
            r.record(Refused::Environment, "read its environment".into());
        }
        r.record(Refused::Http, "asked for https://a".into());
        r.record(Refused::Http, "asked for https://b".into());
        let all = r.all();
        assert_eq!(all.len(), 2);
        assert_eq!(all[0].count, 3);
        assert_eq!(all[0].shown(), "read its environment (3 times)");
        assert_eq!(r.actionable(), ["asked for https://a (2 times)"]);
        assert_eq!(r.list().len(), 2);
    }
}
