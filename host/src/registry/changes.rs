//! The registry's one change channel: what changed, told to its listeners
//! on one notifier thread, never inside a provider call. Providers and the
//! watcher only send a [`Notice`]; the notifier gathers every notice
//! waiting, so a burst of invalidations becomes one catalog event naming
//! each provider once.

use super::listeners::Listeners;
use crate::provider::ChangeKind;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Weak};

/// What a registry's listeners are told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The catalog may have changed: take a snapshot to see it.
    Catalog {
        /// How many catalog changes the registry has seen so far; a later
        /// event carries a larger number.
        generation: u64,
        /// The providers invalidated since the last event, by id.
        providers: Vec<String>,
        /// The registry itself changed: a provider was added or removed,
        /// or the host reported a diagnostic.
        registry: bool,
    },
    /// The watcher delivered these host paths to a provider, after the
    /// provider was told. A body-only edit changes no catalog, so this is
    /// how an embedder learns that a file it serves changed.
    Files {
        /// The provider the files belong to.
        provider: String,
        /// Each path with what happened to it.
        changes: Vec<(PathBuf, ChangeKind)>,
    },
}

/// What providers, the registry and the watcher send the notifier.
pub(crate) enum Notice {
    /// This provider was invalidated (or faulted): its view may differ.
    Provider(String),
    /// The provider list or the host's own diagnostics changed.
    Registry,
    /// Files delivered to a provider.
    Files(String, Vec<(PathBuf, ChangeKind)>),
}

/// Starts the notifier thread for `listeners`; the sender feeds it. None
/// when no thread can be started (logged): listeners are then not called.
pub(crate) fn start_notifier(listeners: &Arc<Listeners<Change>>) -> Option<Sender<Notice>> {
    let (tx, rx) = mpsc::channel::<Notice>();
    let weak: Weak<Listeners<Change>> = Arc::downgrade(listeners);
    let spawned = std::thread::Builder::new()
        .name("skillhost-notify".into())
        .spawn(move || {
            let mut generation = 0;
            while let Ok(first) = rx.recv() {
                let burst = std::iter::once(first).chain(std::iter::from_fn(|| rx.try_recv().ok()));
                let (catalog, files) = gather(burst, &mut generation);
                let Some(listeners) = weak.upgrade() else {
                    return;
                };
                for event in files.into_iter().chain(catalog) {
                    if !listeners.notify(&event) {
                        return;
                    }
                }
            }
        });
    match spawned {
        Ok(_) => Some(tx),
        Err(e) => {
            tracing::error!(error = %e, "cannot start the change notifier; listeners will not be called");
            None
        }
    }
}

/// One burst of notices as events: the file deliveries in the order they
/// came, then at most one catalog event naming each provider once.
fn gather(
    burst: impl Iterator<Item = Notice>,
    generation: &mut u64,
) -> (Option<Change>, Vec<Change>) {
    let mut providers = BTreeSet::new();
    let mut registry = false;
    let mut catalog = false;
    let mut files = Vec::new();
    for notice in burst {
        match notice {
            Notice::Provider(id) => {
                *generation += 1;
                catalog = true;
                providers.insert(id);
            }
            Notice::Registry => {
                *generation += 1;
                catalog = true;
                registry = true;
            }
            Notice::Files(provider, changes) => files.push(Change::Files { provider, changes }),
        }
    }
    let catalog = catalog.then(|| Change::Catalog {
        generation: *generation,
        providers: providers.into_iter().collect(),
        registry,
    });
    (catalog, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_becomes_one_catalog_event_naming_each_provider_once() {
        let mut generation = 0;
        let burst = vec![
            Notice::Provider("b".into()),
            Notice::Files(
                "a".into(),
                vec![(PathBuf::from("/x"), ChangeKind::Modified)],
            ),
            Notice::Provider("a".into()),
            Notice::Provider("b".into()),
        ];
        let (catalog, files) = gather(burst.into_iter(), &mut generation);
        assert_eq!(
            catalog,
            Some(Change::Catalog {
                generation: 3,
                providers: vec!["a".into(), "b".into()],
                registry: false,
            })
        );
        assert_eq!(
            files,
            [Change::Files {
                provider: "a".into(),
                changes: vec![(PathBuf::from("/x"), ChangeKind::Modified)],
            }]
        );
    }

    #[test]
    fn files_alone_make_no_catalog_event_and_keep_the_generation() {
        let mut generation = 7;
        let burst = vec![Notice::Files("a".into(), Vec::new())];
        let (catalog, files) = gather(burst.into_iter(), &mut generation);
        assert_eq!(catalog, None);
        assert_eq!(files.len(), 1);
        assert_eq!(generation, 7);
    }

    #[test]
    fn a_registry_change_is_named_as_one() {
        let mut generation = 0;
        let (catalog, _) = gather([Notice::Registry].into_iter(), &mut generation);
        assert_eq!(
            catalog,
            Some(Change::Catalog {
                generation: 1,
                providers: Vec::new(),
                registry: true,
            })
        );
    }
}
