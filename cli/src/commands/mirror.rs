//! `skillhost mirror`: skill roots published as a static SEP-2640 mirror.

use crate::context::Ctx;
use crate::output::print_json;
use anyhow::Result;
use skillhost_publish::mirror;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(ctx: &Ctx, roots: &[PathBuf], out: &Path, json: bool) -> Result<ExitCode> {
    let report = mirror::write(&ctx.runtime, roots, out)?;
    for warning in &report.warnings {
        crate::output::eprint_text(&format!("{warning}"));
    }
    if json {
        print_json(&serde_json::json!({
            "skills": report.skills,
            "written": report.written,
            "unchanged": report.unchanged,
            "removed": report.removed,
            "warnings": report.warnings.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        }))?;
    } else {
        crate::output::print_text(&format!(
            "published {} skill(s) to {}: {} file(s) written, {} unchanged, {} removed",
            report.skills,
            out.display(),
            report.written.len(),
            report.unchanged,
            report.removed.len()
        ))?;
    }
    Ok(ExitCode::SUCCESS)
}
