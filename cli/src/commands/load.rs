//! `skillhost load`: a skill's body, read again from its source.

use crate::args::SourceArgs;
use crate::context::Ctx;
use crate::output::{print_json, print_text};
use anyhow::Result;
use std::process::ExitCode;

pub fn run(ctx: &Ctx, name: &str, sources: &SourceArgs, json: bool) -> Result<ExitCode> {
    let doc = ctx.registry(sources)?.load(name)?;
    if json {
        print_json(&doc.to_json())?;
    } else {
        print_text(&doc.body)?;
    }
    Ok(ExitCode::SUCCESS)
}
