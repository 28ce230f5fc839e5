//! One conformance run's provider: started through the host's own
//! machinery ([`DirectInstance`]), restarted when a call kills it, and
//! every call timed, with the faults and boundary refusals it met kept for
//! the checks that judge them.

use crate::options::Deadlines;
use skillhost::provider::direct::{DirectInstance, Observed};
use skillhost::sandbox::{FaultKind, SandboxEngine};
use skillhost::{Error, ProviderSpec};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// One call into the provider.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    /// The export (`init`, `snapshot`, ...).
    pub export: &'static str,
    /// What was asked, for messages (`load("alpha")`).
    pub what: String,
    /// How long it took.
    pub took: Duration,
    /// The fault that ended it, if one did.
    pub fault: Option<FaultKind>,
}

/// The provider under test and what its calls showed.
pub(crate) struct Session {
    engine: SandboxEngine,
    spec: ProviderSpec,
    instance: Option<DirectInstance>,
    /// The time limits judged against.
    pub deadlines: Deadlines,
    /// Every call, in order.
    pub calls: Vec<Call>,
    /// Every fault, as `export: kind: message`.
    pub faults: Vec<(FaultKind, String)>,
    /// Everything refused at the boundary, once each.
    pub boundary: BTreeSet<String>,
    /// Capabilities it tried and was refused, across its instances.
    pub refusals: BTreeSet<String>,
    /// `invalidate-provider` calls of instances no longer live.
    past_invalidations: u64,
    /// Boundary refusals beyond the ones kept.
    pub boundary_overflow: usize,
}

/// Most boundary refusals kept (a provider may send a million bad entries).
const MAX_KEPT: usize = 1000;

/// Milliseconds, rounded up so a call is never shown as taking none.
pub(crate) fn ms(d: Duration) -> u64 {
    d.as_micros().div_ceil(1000) as u64
}

impl Session {
    /// A session that will run `spec` on `engine`; nothing is started yet.
    pub fn new(engine: SandboxEngine, spec: ProviderSpec, deadlines: Deadlines) -> Session {
        Session {
            engine,
            spec,
            instance: None,
            deadlines,
            calls: Vec::new(),
            faults: Vec::new(),
            boundary: BTreeSet::new(),
            refusals: BTreeSet::new(),
            past_invalidations: 0,
            boundary_overflow: 0,
        }
    }

    fn record(
        &mut self,
        export: &'static str,
        what: String,
        took: Duration,
        error: Option<&Error>,
    ) {
        let fault = match error {
            Some(Error::Fault { fault, .. }) => {
                self.faults
                    .push((fault.kind.clone(), format!("{what}: {fault}")));
                Some(fault.kind.clone())
            }
            Some(Error::Boundary { message, .. }) => {
                self.boundary.insert(format!("{what}: {message}"));
                None
            }
            _ => None,
        };
        self.calls.push(Call {
            export,
            what,
            took,
            fault,
        });
    }

    /// Starts an instance (instantiation and `init`), timed as `init`.
    fn started(&mut self) -> Result<DirectInstance, Error> {
        let begun = Instant::now();
        let started = DirectInstance::start(&self.engine, self.spec.clone());
        self.record(
            "init",
            "init".to_string(),
            begun.elapsed(),
            started.as_ref().err(),
        );
        started
    }

    /// Starts the session's instance; the error is `init`'s.
    pub fn start(&mut self) -> Result<(), Error> {
        let instance = self.started()?;
        self.instance = Some(instance);
        Ok(())
    }

    /// Runs `f` on the live instance, starting a new one if the last call
    /// killed it, and times it.
    pub fn call<R>(
        &mut self,
        export: &'static str,
        what: impl Into<String>,
        f: impl FnOnce(&mut DirectInstance) -> Result<R, Error>,
    ) -> Result<R, Error> {
        let mut instance = match self.instance.take() {
            Some(live) if live.is_alive() => live,
            dead => {
                if let Some(dead) = dead {
                    self.retire(&dead);
                }
                self.started()?
            }
        };
        let begun = Instant::now();
        let result = f(&mut instance);
        let took = begun.elapsed();
        self.instance = Some(instance);
        self.record(export, what.into(), took, result.as_ref().err());
        result
    }

    /// Calls `snapshot`; entries refused at the boundary are noted.
    pub fn snapshot(&mut self, known: Option<u64>, rescan: bool) -> Result<Observed, Error> {
        let what = match known {
            Some(epoch) => format!("snapshot(known: {epoch}, rescan: {rescan})"),
            None => format!("snapshot(rescan: {rescan})"),
        };
        let observed = self.call("snapshot", what, |i| i.snapshot(known, rescan))?;
        self.judge(&observed);
        Ok(observed)
    }

    /// A full snapshot from a new instance of the same component with the
    /// same grants: what the provider sees, with no history.
    pub fn fresh_snapshot(&mut self) -> Result<Observed, Error> {
        let mut fresh = self.started()?;
        let begun = Instant::now();
        let observed = fresh.snapshot(None, false);
        self.record(
            "snapshot",
            "snapshot of a fresh instance".to_string(),
            begun.elapsed(),
            observed.as_ref().err(),
        );
        self.refusals.extend(fresh.refusals());
        let observed = observed?;
        self.judge(&observed);
        Ok(observed)
    }

    /// Notes what of an observation breaks the host's caps or boundary.
    fn judge(&mut self, observed: &Observed) {
        let caps = self.spec.caps;
        if observed.dropped > 0 {
            self.boundary.insert(format!(
                "an observation holds {} entries, over the host's cap of {}",
                observed.entries.len() + observed.dropped,
                caps.max_skills
            ));
        }
        let bytes: usize = observed.entries.iter().map(|e| e.bytes).sum();
        if bytes > caps.max_observation_bytes {
            self.boundary.insert(format!(
                "an observation holds {bytes} bytes of entries, over the host's cap of {}",
                caps.max_observation_bytes
            ));
        }
        for entry in &observed.entries {
            if let Err(reason) = &entry.verdict {
                if self.boundary.len() >= MAX_KEPT {
                    self.boundary_overflow += 1;
                    continue;
                }
                let path = skillhost::text::clip(&entry.path, 120);
                self.boundary.insert(format!("entry {path:?}: {reason}"));
            }
        }
    }

    /// The caps the provider's answers are held to.
    pub fn caps(&self) -> &skillhost::provider::Caps {
        &self.spec.caps
    }

    /// The live instance, if there is one.
    pub fn instance(&self) -> Option<&DirectInstance> {
        self.instance.as_ref()
    }

    /// `invalidate-provider` calls of every instance so far.
    pub fn invalidations(&self) -> u64 {
        self.past_invalidations
            + self
                .instance
                .as_ref()
                .map_or(0, DirectInstance::invalidations)
    }

    /// Keeps what a replaced instance did.
    fn retire(&mut self, instance: &DirectInstance) {
        self.refusals.extend(instance.refusals());
        self.past_invalidations += instance.invalidations();
    }

    /// Every refusal, once the run is over.
    pub fn finish(&mut self) {
        if let Some(instance) = self.instance.take() {
            self.retire(&instance);
        }
    }
}
