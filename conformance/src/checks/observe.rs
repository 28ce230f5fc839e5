//! `observe`: told the agent wrote some of the paths it serves, the
//! provider answers (within the deadline, without a fault). A provider that
//! reads folders is told of a file in its root; one that reads none, of the
//! documents it listed in its own namespace.

use crate::report::Check;
use crate::session::Session;
use skillhost::provider::direct::Observed;
use std::path::PathBuf;

/// Most documents named in one `observe` call.
const NAMED: usize = 8;

/// The `observe` check. `file`: a host file inside its granted roots, when
/// it has any.
pub(crate) fn check(session: &mut Session, first: &Observed, file: Option<PathBuf>) -> Check {
    let answered = match file {
        Some(file) => {
            let what = format!("observe({})", file.display());
            session
                .call("observe", what, |i| i.observe(std::slice::from_ref(&file)))
                .map(|()| format!("answered observe of {}", file.display()))
        }
        None => {
            let paths: Vec<String> = first
                .entries
                .iter()
                .filter(|e| e.verdict.is_ok())
                .take(NAMED)
                .map(|e| e.path.clone())
                .collect();
            if paths.is_empty() {
                return Check::skip("observe", "it lists no document to be told about");
            }
            let what = format!("observe({paths:?})");
            let count = paths.len();
            session
                .call("observe", what, |i| i.observe_guest(&paths))
                .map(|()| format!("answered observe of {count} of its listed documents"))
        }
    };
    match answered {
        Ok(detail) => Check::pass("observe", detail),
        Err(e) => Check::fail("observe", super::said(&e)),
    }
}
