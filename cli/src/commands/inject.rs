//! `skillhost inject`: the catalog into a session log, if the model's view
//! changed.

use crate::args::{ListingArgs, Mode, SourceArgs, StateArgs};
use crate::context::{Ctx, cwd};
use crate::output::print_json;
use anyhow::Result;
use serde_json::json;
use skillhost::session::inject::Outcome;
use skillhost::session::{JsonlLog, SessionLog};
use std::path::Path;
use std::process::ExitCode;

/// What `inject` was asked for.
pub struct Args<'a> {
    pub session: &'a Path,
    pub sources: &'a SourceArgs,
    pub mode: Mode,
    pub agent: &'a str,
    pub state: &'a StateArgs,
    pub listing: &'a ListingArgs,
    pub json: bool,
}

pub fn run(ctx: &Ctx, a: Args<'_>) -> Result<ExitCode> {
    let Args {
        session,
        sources,
        mode,
        agent,
        json,
        ..
    } = a;
    let mut log = JsonlLog::open(session)?;
    let catalog = ctx.session_registry(sources, &cwd()?, &log)?.snapshot();
    let injector = ctx.injector(a.listing, a.state, &catalog);
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
        crate::output::print_text(outcome.as_str())?;
    }
    Ok(ExitCode::SUCCESS)
}
