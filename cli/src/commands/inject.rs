//! `skillhost inject`: the catalog into a session log, if the model's view
//! changed.

use crate::args::{Mode, SourceArgs};
use crate::context::{Ctx, cwd};
use anyhow::Result;
use skillhost::session::JsonlLog;
use skillhost::session::inject::Injector;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    ctx: &Ctx,
    session: &Path,
    sources: &SourceArgs,
    mode: Mode,
    agent: &str,
) -> Result<ExitCode> {
    let mut log = JsonlLog::open(session)?;
    let catalog = ctx.session_registry(sources, &cwd()?, &log)?.snapshot();
    let injector = Injector::default();
    let outcome = match mode {
        Mode::Replace => injector.replace(&catalog, &mut log)?,
        Mode::Delta => injector.delta(&catalog, agent, &mut log)?,
    };
    println!("{}", outcome.as_str());
    Ok(ExitCode::SUCCESS)
}
