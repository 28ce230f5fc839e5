//! `skillhost validate`: every problem of the skills at the paths given, by
//! the rules of a profile; exit 1 on any error (warnings do not fail).

use crate::args::ProfileArg;
use crate::context::Ctx;
use crate::output::print_json;
use anyhow::Result;
use skillhost_publish::validate::{self, Profile};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn run(ctx: &Ctx, paths: &[PathBuf], profile: ProfileArg, json: bool) -> Result<ExitCode> {
    let profile = match profile {
        ProfileArg::Claude => Profile::Claude,
        ProfileArg::AgentSkills => Profile::AgentSkills,
    };
    let report = validate::validate_paths(&ctx.runtime, paths, profile)?;
    if json {
        print_json(&report.to_json())?;
    } else {
        let mut out = std::io::stdout().lock();
        for problem in &report.problems {
            writeln!(out, "{problem}")?;
        }
        let (errors, warnings) = (report.errors(), report.warnings());
        let warned = if warnings > 0 {
            format!(", {warnings} warning(s)")
        } else {
            String::new()
        };
        if errors == 0 {
            writeln!(out, "{} skill(s) valid{warned}", report.checked.len())?;
        } else {
            writeln!(
                out,
                "{errors} error(s){warned} in {} skill(s) checked ({profile} profile)",
                report.checked.len()
            )?;
        }
    }
    Ok(if report.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
