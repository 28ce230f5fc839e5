//! `memory`: linear memory stays put over 100 snapshots of an unchanged
//! source, and the provider never runs out of it; `invalidation-storm`:
//! nothing changed, so the provider never invalidates itself during them
//! (the host would ask again forever), and it never floods
//! `invalidate-provider`.

use crate::report::Check;
use crate::session::Session;
use skillhost::sandbox::FaultKind;

/// Snapshots taken.
pub const SNAPSHOTS: usize = 100;
/// Snapshots taken before memory is first measured (allocators settle).
const WARM_UP: usize = 10;
/// Longest the snapshots may take in all: a provider answering slowly
/// must not hold the kit for minutes.
const BUDGET: std::time::Duration = std::time::Duration::from_secs(30);
/// Most growth allowed between the warm-up and the last snapshot.
pub const MAX_GROWTH: usize = 1024 * 1024;

/// What the snapshots showed.
struct Soak {
    taken: usize,
    warm: Option<usize>,
    last: Option<usize>,
    failure: Option<String>,
    invalidations: u64,
}

fn soak(session: &mut Session) -> Soak {
    let before = session.invalidations();
    let mut soak = Soak {
        taken: 0,
        warm: None,
        last: None,
        failure: None,
        invalidations: 0,
    };
    let begun = std::time::Instant::now();
    for n in 1..=SNAPSHOTS {
        if begun.elapsed() > BUDGET {
            soak.failure = Some(format!(
                "stopped after {} s: snapshots this slow fail deadlines",
                BUDGET.as_secs()
            ));
            break;
        }
        if let Err(e) = session.snapshot(None, true) {
            // A dead instance's memory says nothing of the next one's.
            soak.failure = Some(format!("snapshot {n}: {}", super::said(&e)));
            break;
        }
        soak.taken = n;
        let memory = session.instance().and_then(|i| i.memory_bytes());
        if n == WARM_UP {
            soak.warm = memory;
        }
        soak.last = memory;
    }
    soak.invalidations = session.invalidations().saturating_sub(before);
    soak
}

fn kib(bytes: usize) -> usize {
    bytes / 1024
}

fn memory(soak: &Soak, session: &Session) -> Check {
    if let Some((_, fault)) = session.faults.iter().find(|(k, _)| *k == FaultKind::Memory) {
        return Check::fail("memory", format!("it ran out of memory: {fault}"));
    }
    let (Some(warm), Some(last)) = (soak.warm, soak.last) else {
        return Check::skip(
            "memory",
            format!(
                "only {} snapshots could be taken ({})",
                soak.taken,
                soak.failure.as_deref().unwrap_or("no instance")
            ),
        );
    };
    let taken = soak.taken;
    if last.saturating_sub(warm) > MAX_GROWTH {
        return Check::fail(
            "memory",
            format!(
                "linear memory grew from {} KiB after {WARM_UP} snapshots to {} KiB after {taken}, more than {} KiB",
                kib(warm),
                kib(last),
                kib(MAX_GROWTH)
            ),
        );
    }
    Check::pass(
        "memory",
        format!(
            "{} KiB of linear memory after {WARM_UP} snapshots, {} KiB after {taken}",
            kib(warm),
            kib(last)
        ),
    )
}

/// The storm check from what the session's faults and the soak showed.
fn storm(soak: Option<&Soak>, session: &Session) -> Check {
    let flood = session.faults.iter().find(|(k, _)| *k == FaultKind::Flood);
    match (soak, flood) {
        (Some(soak), flood) if soak.invalidations > 0 => Check::fail(
            "invalidation-storm",
            format!(
                "it called invalidate-provider {} times during {} snapshots of an unchanged source{}: the host would ask it again forever",
                soak.invalidations,
                soak.taken + usize::from(soak.failure.is_some()),
                if flood.is_some() {
                    " and was stopped as a flood"
                } else {
                    ""
                }
            ),
        ),
        (_, Some((_, fault))) => Check::fail(
            "invalidation-storm",
            format!("it flooded invalidate-provider and was stopped: {fault}"),
        ),
        (Some(_), None) => Check::pass(
            "invalidation-storm",
            format!("no invalidation during {SNAPSHOTS} snapshots of an unchanged source"),
        ),
        (None, None) => Check::skip("invalidation-storm", "no snapshot could be taken"),
    }
}

/// Takes the snapshots and judges both checks.
pub(crate) fn check(session: &mut Session) -> [Check; 2] {
    let soak = soak(session);
    [memory(&soak, session), storm(Some(&soak), session)]
}

/// What the faults alone show, for a run that never got to the
/// snapshots: a memory fault or a flood fails its check anyway.
pub(crate) fn from_faults(session: &Session) -> Vec<Check> {
    let mut out = Vec::new();
    if let Some((_, fault)) = session.faults.iter().find(|(k, _)| *k == FaultKind::Memory) {
        out.push(Check::fail(
            "memory",
            format!("it ran out of memory: {fault}"),
        ));
    }
    let storm = storm(None, session);
    if storm.status == crate::Status::Fail {
        out.push(storm);
    }
    out
}
