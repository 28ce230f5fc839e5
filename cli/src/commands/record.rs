//! `skillhost record`: tool calls of a session, for `learn`.

use crate::args::StateArgs;
use crate::context::usage_store;
use crate::output::print_json;
use anyhow::Result;
use serde_json::json;
use std::process::ExitCode;

pub fn run(session: &str, tools: &[String], state: &StateArgs, json: bool) -> Result<ExitCode> {
    let store = usage_store(state)?;
    store.record_tool_calls(session, tools)?;
    if json {
        print_json(&json!({
            "store": store.path().display().to_string(),
            "session": session,
            "recorded": tools,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    crate::output::print_text(&format!(
        "recorded {} tool call(s) for session {session}",
        tools.len()
    ))?;
    Ok(ExitCode::SUCCESS)
}
