//! `skillhost touch`: files the agent touched; prints the reminder naming
//! skills that became available.

use crate::args::{ListingArgs, SourceArgs};
use crate::context::Ctx;
use crate::output::print_json;
use anyhow::{Context as _, Result};
use skillhost::session::JsonlLog;
use skillhost::session::activation;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(
    ctx: &Ctx,
    session: &Path,
    cwd: &Path,
    paths: &[PathBuf],
    sources: &SourceArgs,
    listing: &ListingArgs,
    json: bool,
) -> Result<ExitCode> {
    let mut log = JsonlLog::open(session)?;
    let cwd =
        std::fs::canonicalize(cwd).with_context(|| format!("{}: not a folder", cwd.display()))?;
    let touched: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            let p = if p.is_absolute() {
                p.clone()
            } else {
                cwd.join(p)
            };
            std::fs::canonicalize(&p).unwrap_or(p)
        })
        .collect();
    let registry = ctx.session_registry(sources, &cwd, &log)?;
    let activation = activation::touch(
        &ctx.runtime,
        &registry,
        &cwd,
        &touched,
        &mut log,
        ctx.render_options(listing),
    )?;
    if json {
        print_json(&serde_json::json!({
            "activated": activation.activated,
            "discovered": activation.discovered,
            "reminder": activation.reminder,
        }))?;
    } else if let Some(reminder) = activation.reminder {
        crate::output::print_text(&reminder.to_string())?;
    }
    Ok(ExitCode::SUCCESS)
}
