//! `skillhost record`: tool calls of a session, for `learn`.

use crate::args::StateArgs;
use crate::context::usage_store;
use anyhow::Result;
use std::process::ExitCode;

pub fn run(session: &str, tools: &[String], state: &StateArgs) -> Result<ExitCode> {
    let store = usage_store(state)?;
    store.record_tool_calls(session, tools)?;
    println!(
        "recorded {} tool call(s) for session {session}",
        tools.len()
    );
    Ok(ExitCode::SUCCESS)
}
