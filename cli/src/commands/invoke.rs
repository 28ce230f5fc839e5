//! `skillhost invoke`: a skill expanded for the user or the model.

use crate::args::{CallerArg, SourceArgs, StateArgs};
use crate::context::{Ctx, cwd, usage_store};
use crate::output::{print_json, print_text};
use anyhow::Result;
use skillhost::session::invoke::{self, Caller, Invocation, Request};
use skillhost::session::{JsonlLog, MemoryLog, SessionLog, activation};
use std::path::Path;
use std::process::ExitCode;

/// What `invoke` was asked.
pub struct Args<'a> {
    pub name: &'a str,
    pub args: &'a [String],
    pub caller: CallerArg,
    pub session_id: Option<&'a str>,
    pub session: Option<&'a Path>,
    pub sources: &'a SourceArgs,
    pub json: bool,
    pub state: &'a StateArgs,
}

pub fn run(ctx: &Ctx, a: Args<'_>) -> Result<ExitCode> {
    let log: Box<dyn SessionLog> = match a.session {
        Some(path) => Box::new(JsonlLog::open(path)?),
        None => Box::new(MemoryLog::default()),
    };
    let registry = ctx.session_registry(a.sources, &cwd()?, log.as_ref())?;
    let request = Request {
        name: a.name,
        args: a.args,
        caller: match a.caller {
            CallerArg::User => Caller::User,
            CallerArg::Model => Caller::Model,
        },
        session_id: a.session_id.unwrap_or_default(),
        max_steps: None,
    };
    let result = invoke::invoke(&registry, &request, &activation::activated(log.as_ref()));
    // Recording must not cost the user the invocation: a store that cannot
    // be written is reported and the command goes on.
    if let Err(e) = usage_store(a.state).and_then(|store| {
        Ok(skillhost_usage::record::record_invoke(
            &store,
            &registry.snapshot(),
            &request,
            &result,
        )?)
    }) {
        crate::output::eprint_text(&format!("skillhost: warning: usage not recorded: {e:#}"));
    }
    let invocation = match result {
        Ok(invocation) => invocation,
        Err(
            e @ (skillhost::Error::Refused { .. }
            | skillhost::Error::UnknownSkill { .. }
            | skillhost::Error::NotActive { .. }),
        ) => {
            crate::output::eprint_text(&format!("skillhost: {e}"));
            return Ok(ExitCode::FAILURE);
        }
        Err(e) => return Err(e.into()),
    };
    match (&invocation, a.json) {
        (_, true) | (Invocation::Fork(_), false) => print_json(&invocation.to_json())?,
        (Invocation::Inline { .. }, false) => print_text(&invocation.message(str::to_string))?,
    }
    Ok(ExitCode::SUCCESS)
}
