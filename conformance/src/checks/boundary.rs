//! `boundary`: everything the provider returned passed the host's own
//! boundary checks (`skillhost::provider::boundary`): entries, documents,
//! resource listings and files, and the caps on an observation.

use crate::report::Check;
use crate::session::Session;

/// Judges what the session's calls met at the boundary.
pub(crate) fn check(session: &Session) -> Check {
    let mut refused: Vec<String> = session.boundary.iter().cloned().collect();
    if session.boundary_overflow > 0 {
        refused.push(format!(
            "{} more entries refused",
            session.boundary_overflow
        ));
    }
    let entries: usize = session
        .calls
        .iter()
        .filter(|c| c.export == "snapshot" && c.fault.is_none())
        .count();
    Check::from_problems(
        "boundary",
        &refused,
        format!(
            "every answer of {} calls passed the host's boundary checks ({entries} snapshots)",
            session.calls.len()
        ),
    )
}
