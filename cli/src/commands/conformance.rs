//! `skillhost conformance`: the conformance kit on one component, printed
//! one line per check (or as JSON), optionally written as JUnit XML; exit 1
//! on any failed check.

use crate::args::Command;
use crate::output::{print_json, print_text};
use anyhow::{Context, Result};
use skillhost_conformance::{Options, check};
use std::process::ExitCode;

/// Runs `skillhost conformance` (any other command does nothing).
pub fn run(command: Command) -> Result<ExitCode> {
    let Command::Conformance {
        component,
        roots,
        settings,
        origins,
        json,
        junit,
    } = command
    else {
        return Ok(ExitCode::SUCCESS);
    };
    let options = Options {
        roots,
        settings,
        origins,
        ..Options::default()
    };
    let report = check(&component, options)?;
    if let Some(file) = &junit {
        std::fs::write(file, report.junit())
            .with_context(|| format!("cannot write the JUnit report to {}", file.display()))?;
    }
    if json {
        print_json(&report.json())?;
    } else {
        print_text(&report.text())?;
    }
    Ok(if report.is_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
