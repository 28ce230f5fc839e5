//! `skillhost catalog`: the merged catalog, as text or JSON.

use crate::args::SourceArgs;
use crate::context::Ctx;
use crate::output::{print_json, render_catalog};
use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

pub fn run(ctx: &Ctx, sources: &SourceArgs, json: bool) -> Result<ExitCode> {
    let catalog = ctx.registry(sources)?.snapshot();
    if json {
        print_json(&catalog.to_json())?;
    } else {
        std::io::stdout()
            .lock()
            .write_all(render_catalog(&catalog).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
