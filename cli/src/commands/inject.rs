//! `skillhost inject`: the catalog into a session log, if the model's view
//! changed.

use crate::args::{Mode, SourceArgs, StateArgs};
use crate::context::{Ctx, cwd, usage_path};
use crate::output::print_json;
use anyhow::Result;
use serde_json::json;
use skillhost::Catalog;
use skillhost::session::inject::{Injector, Outcome};
use skillhost::session::render::Scores;
use skillhost::session::{JsonlLog, SessionLog};
use skillhost_usage::UsageStore;
use skillhost_usage::score::catalog_scores;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(
    ctx: &Ctx,
    session: &Path,
    sources: &SourceArgs,
    mode: Mode,
    agent: &str,
    state: &StateArgs,
    json: bool,
) -> Result<ExitCode> {
    let mut log = JsonlLog::open(session)?;
    let catalog = ctx.session_registry(sources, &cwd()?, &log)?.snapshot();
    let injector = Injector {
        scores: scores(state, &catalog),
        ..Injector::default()
    };
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

/// The usage scores of `catalog`'s skills, when a usage store exists. The
/// listing matters more than its order: a store that cannot be read is
/// reported and the listing goes out unranked.
fn scores(state: &StateArgs, catalog: &Catalog) -> Option<Arc<Scores>> {
    let found = usage_path(state).and_then(|path| Ok(UsageStore::open_existing(&path)?));
    let store = match found {
        Ok(store) => store?,
        Err(e) => {
            crate::output::eprint_text(&format!(
                "skillhost: warning: usage scores not used: {e:#}"
            ));
            return None;
        }
    };
    match store.usage() {
        Ok(usage) => Some(Arc::new(catalog_scores(catalog, &usage, store.now()))),
        Err(e) => {
            crate::output::eprint_text(&format!("skillhost: warning: usage scores not used: {e}"));
            None
        }
    }
}
