//! `deadlines`: every call finished well inside its deadline (`init`
//! within the init budget, every other call within the call budget), and
//! none was stopped at the sandbox's limit.

use crate::report::{Check, summarise};
use crate::session::{Session, ms};
use skillhost::sandbox::FaultKind;

/// Judges every call of the session.
pub(crate) fn check(session: &Session) -> Check {
    let deadlines = session.deadlines;
    let mut problems = Vec::new();
    for call in &session.calls {
        let budget = if call.export == "init" {
            deadlines.init
        } else {
            deadlines.call
        };
        if call.fault == Some(FaultKind::Deadline) {
            problems.push(format!(
                "{} ran past the sandbox's deadline and was stopped after {} ms",
                call.what,
                ms(call.took)
            ));
        } else if call.took > budget {
            problems.push(format!(
                "{} took {} ms, more than {} ms",
                call.what,
                ms(call.took),
                budget.as_millis()
            ));
        }
    }
    if !problems.is_empty() {
        return Check::fail("deadlines", summarise(&problems));
    }
    let slowest = session
        .calls
        .iter()
        .filter(|c| c.export != "init")
        .max_by_key(|c| c.took);
    Check::pass(
        "deadlines",
        match slowest {
            Some(c) => format!(
                "{} calls, the slowest {} in {} ms (allowed {} ms; init {} ms)",
                session.calls.len(),
                c.what,
                ms(c.took),
                deadlines.call.as_millis(),
                deadlines.init.as_millis()
            ),
            None => format!("{} calls", session.calls.len()),
        },
    )
}
