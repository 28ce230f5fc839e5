//! `skillhost inject`: the catalog into a session log, if the model's view
//! changed.

use crate::args::{Mode, SourceArgs};
use crate::context::{Ctx, cwd};
use crate::output::print_json;
use anyhow::Result;
use serde_json::json;
use skillhost::session::inject::{Injector, Outcome};
use skillhost::session::{JsonlLog, SessionLog};
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    ctx: &Ctx,
    session: &Path,
    sources: &SourceArgs,
    mode: Mode,
    agent: &str,
    json: bool,
) -> Result<ExitCode> {
    let mut log = JsonlLog::open(session)?;
    let catalog = ctx.session_registry(sources, &cwd()?, &log)?.snapshot();
    let injector = Injector::default();
    let outcome = match mode {
        Mode::Replace => injector.replace(&catalog, &mut log)?,
        Mode::Delta => injector.delta(&catalog, agent, &mut log)?,
    };
    if json {
        // Publishing appends exactly one event: the last one.
        let appended = matches!(outcome, Outcome::Published | Outcome::Tombstone);
        let event = appended
            .then(|| log.len().checked_sub(1).and_then(|i| log.get(i)))
            .flatten()
            .map(|e| e.to_json());
        print_json(&json!({
            "outcome": outcome.as_str(),
            "mode": match mode {
                Mode::Replace => "replace",
                Mode::Delta => "delta",
            },
            "agent": (mode == Mode::Delta).then_some(agent),
            "event": event,
        }))?;
    } else {
        println!("{}", outcome.as_str());
    }
    Ok(ExitCode::SUCCESS)
}
