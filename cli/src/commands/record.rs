//! `skillhost record`: tool calls of a session, for `learn`; or the uses of
//! skills session logs show through the agent's own loader.

use crate::args::{SourceArgs, StateArgs};
use crate::context::{Ctx, usage_store};
use crate::output::print_json;
use anyhow::Result;
use serde_json::json;
use skillhost::text::escaped;
use skillhost_usage::native;
use std::path::PathBuf;
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

/// `record --log FILE...`: each log's native uses of the catalog's skills.
pub fn run_logs(
    ctx: &Ctx,
    logs: &[PathBuf],
    sources: &SourceArgs,
    state: &StateArgs,
    json: bool,
) -> Result<ExitCode> {
    let store = usage_store(state)?;
    let catalog = ctx.registry(sources)?.snapshot();
    let counted = native::record_logs(&store, &catalog, logs)?;
    if json {
        let logs: Vec<_> = counted
            .iter()
            .map(|c| {
                json!({
                    "log": c.log.display().to_string(),
                    "skills": c.skills,
                    "already_counted": c.already,
                    "skipped_lines": c.warnings,
                })
            })
            .collect();
        print_json(&json!({"store": store.path().display().to_string(), "logs": logs}))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = Vec::new();
    for c in &counted {
        let log = escaped(&c.log.display().to_string());
        out.push(if c.already {
            format!("{log}: counted before; not again")
        } else if c.skills.is_empty() {
            format!("{log}: no skill used through the agent's own loader")
        } else {
            format!("{log}: used {}", c.skills.join(", "))
        });
        for warning in &c.warnings {
            out.push(format!("  skipped {}", escaped(warning)));
        }
    }
    crate::output::print_text(&out.join("\n"))?;
    Ok(ExitCode::SUCCESS)
}
