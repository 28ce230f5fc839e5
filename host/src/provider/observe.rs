//! Asking a provider for its view: only a dirty provider is asked; only a
//! complete observation replaces the last complete view; an incomplete one
//! (a transient failure, a fault) keeps showing the last complete skills,
//! flagged incomplete, and is asked again next time.

use super::Provider;
use super::absorb::absorb;
use super::ahead::Receiver;
use super::incoming::Sender;
use super::view::ProviderView;
use crate::model::Diagnostic;
use crate::sandbox::Fault;
use crate::sandbox::contract as wit;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

impl Provider {
    /// The provider's current view, asking it only when it is dirty (a
    /// clean provider is not asked again). Returns the view and whether the
    /// provider was invalidated while it was being asked, in which case the
    /// caller should ask again.
    pub fn view(&self) -> (Arc<ProviderView>, bool) {
        if !self.signals.is_dirty()
            && let Some(view) = super::lock(&self.views).current.clone()
        {
            return (view, false);
        }
        let (generation, rescan) = self.signals.begin_observation();
        self.stats.snapshots.fetch_add(1, Ordering::Relaxed);
        let first_asked = *self.first_asked.get_or_init(Instant::now);
        let fresh = self.observe_now(rescan);
        let view = {
            let mut views = super::lock(&self.views);
            let view = if fresh.complete {
                let fresh = Arc::new(ProviderView {
                    seen_complete: true,
                    ..fresh
                });
                views.last_complete = Some(fresh.clone());
                fresh
            } else {
                self.signals.retry_later();
                let mut diagnostics = fresh.diagnostics;
                let seen_complete = views.last_complete.is_some();
                let waited = first_asked.elapsed();
                let holds_back = !seen_complete && waited < self.spec.limits.startup_grace;
                if seen_complete {
                    diagnostics.push(
                        Diagnostic::warning(
                            self.location(),
                            format!(
                                "provider {} is incomplete: its last complete view is shown",
                                self.id()
                            ),
                        )
                        .from_source(self.id())
                        .on_field("stale"),
                    );
                } else if !holds_back {
                    diagnostics.push(
                        Diagnostic::error(
                            self.location(),
                            format!(
                                "provider {} has given no complete view in {} ms; the catalog goes on without it",
                                self.id(),
                                waited.as_millis()
                            ),
                        )
                        .from_source(self.id())
                        .on_field("failed"),
                    );
                }
                Arc::new(ProviderView {
                    skills: views
                        .last_complete
                        .as_ref()
                        .map(|v| v.skills.clone())
                        .unwrap_or_default(),
                    diagnostics,
                    complete: false,
                    seen_complete,
                    holds_back,
                    granted: views
                        .last_complete
                        .as_ref()
                        .map(|v| v.granted.clone())
                        .unwrap_or_default(),
                })
            };
            let view = self.with_refusals(view);
            views.current = Some(view.clone());
            view
        };
        (view, self.signals.generation() != generation)
    }

    /// Asks the instance for a snapshot (the changes since what the host
    /// holds, when it can) and absorbs the answer.
    fn observe_now(&self, rescan: bool) -> ProviderView {
        let mut held = super::lock(&self.held);
        let answer = self.with_instance(|i| {
            held.follow(i.id());
            let request = wit::SnapshotRequest {
                known: held.epoch(),
                rescan,
            };
            let ahead = Receiver::new(
                Sender {
                    grants: i.grants().clone(),
                    id: self.id().to_string(),
                    caps: self.spec.caps,
                    namespace: self.namespace.clone(),
                    scope: self.spec.scope,
                    location: self.location(),
                },
                self.engine.workers(),
            );
            let obs = i.snapshot(request, ahead.sink())?;
            Ok((ahead.finish(), obs))
        });
        match answer {
            // The entries sent ahead and the answer have one source.
            Ok((((early, sender), mut obs), grants)) => {
                self.stats
                    .last_received_ahead
                    .store(early.received as u64, Ordering::Relaxed);
                let entries = early.and_answered(&mut obs, &sender, self.engine.workers());
                let mut absorbed = absorb(&mut held, entries, obs, &sender.source());
                self.stats
                    .last_received
                    .store(absorbed.received as u64, Ordering::Relaxed);
                for refused in &grants.refused_links {
                    absorbed.view.diagnostics.push(
                        Diagnostic::warning(
                            refused.link.display().to_string(),
                            format!("symlink not followed: {}", refused.reason),
                        )
                        .from_source(self.id())
                        .on_field("capability"),
                    );
                }
                absorbed.view.granted = grants
                    .roots
                    .iter()
                    .map(|r| r.host.clone())
                    .chain(grants.mounts.iter().map(|m| m.host.clone()))
                    .collect();
                absorbed.view
            }
            Err(fault) => {
                held.clear();
                ProviderView {
                    diagnostics: vec![self.fault_diagnostic(&fault)],
                    ..ProviderView::default()
                }
            }
        }
    }

    /// The view with the capabilities the provider was refused that its
    /// author must act on, as warnings (one per kind; the benign ones, such
    /// as an empty environment, are only logged).
    fn with_refusals(&self, view: Arc<ProviderView>) -> Arc<ProviderView> {
        let refusals = self.refusals.actionable();
        if refusals.is_empty() {
            return view;
        }
        let mut with = (*view).clone();
        with.diagnostics.extend(refusals.into_iter().map(|message| {
            Diagnostic::warning(self.location(), format!("provider {} {message}", self.id()))
                .from_source(self.id())
                .on_field("capability")
        }));
        Arc::new(with)
    }

    fn fault_diagnostic(&self, fault: &Fault) -> Diagnostic {
        Diagnostic::error(
            self.location(),
            format!(
                "provider {} failed ({}): {}",
                self.id(),
                fault.kind.as_str(),
                fault.message
            ),
        )
        .from_source(self.id())
        .on_field(fault.kind.as_str())
    }
}
