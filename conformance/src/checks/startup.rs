//! `init`: the provider starts within its deadline; `snapshot`: its first
//! snapshot answers, whole and complete.

use crate::report::Check;
use crate::session::{Session, ms};
use skillhost::provider::direct::Observed;

/// Judges the start.
pub(crate) fn init(started: &Result<(), skillhost::Error>, session: &Session) -> Check {
    let budget = session.deadlines.init;
    let took = session
        .calls
        .iter()
        .find(|c| c.export == "init")
        .map(|c| c.took)
        .unwrap_or_default();
    match started {
        Err(e) => Check::fail("init", super::said(e)),
        Ok(()) if took > budget => Check::fail(
            "init",
            format!(
                "init took {} ms, more than the {} ms allowed",
                ms(took),
                budget.as_millis()
            ),
        ),
        Ok(()) => Check::pass(
            "init",
            format!(
                "instantiated and initialised in {} ms (allowed {} ms)",
                ms(took),
                budget.as_millis()
            ),
        ),
    }
}

/// Judges the first snapshot.
pub(crate) fn snapshot(first: &Result<Observed, skillhost::Error>) -> Check {
    let observed = match first {
        Err(e) => return Check::fail("snapshot", super::said(e)),
        Ok(o) => o,
    };
    let mut problems = Vec::new();
    if let Some(base) = observed.base {
        problems.push(format!(
            "the first snapshot is a delta since observation {base}, but the host held nothing"
        ));
    }
    if !observed.complete {
        let why = observed
            .diagnostics
            .first()
            .map(|d| format!(" ({}: {})", d.path, d.message))
            .unwrap_or_default();
        problems.push(format!("the snapshot is incomplete{why}"));
    }
    Check::from_problems(
        "snapshot",
        &problems,
        format!(
            "complete, {} entries, {} diagnostics",
            observed.entries.len(),
            observed.diagnostics.len()
        ),
    )
}
