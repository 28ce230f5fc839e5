//! `skillhost validate`: the strict Agent Skills rules; exit 1 on any problem.

use crate::context::Ctx;
use crate::output::print_json;
use anyhow::Result;
use skillhost::publish::validate;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(ctx: &Ctx, paths: &[PathBuf], json: bool) -> Result<ExitCode> {
    let report = validate::validate_paths(&ctx.runtime, paths)?;
    if json {
        print_json(&serde_json::json!({
            "checked": report.checked,
            "problems": report.problems.iter().map(validate::Problem::to_json).collect::<Vec<_>>(),
        }))?;
    } else {
        let mut out = std::io::stdout().lock();
        for problem in &report.problems {
            writeln!(out, "{problem}")?;
        }
        if report.problems.is_empty() {
            writeln!(out, "{} skill(s) valid", report.checked.len())?;
        }
    }
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
