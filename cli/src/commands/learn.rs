//! `skillhost learn`: new skills from tool sequences repeated across sessions.

use crate::args::{SourceArgs, StateArgs};
use crate::context::{Ctx, usage_store};
use crate::output::{print_json, print_text};
use anyhow::Result;
use serde_json::json;
use skillhost_usage::{learn, patterns, record};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `learn` was asked.
pub struct Args<'a> {
    pub dry_run: bool,
    pub min_confidence: f64,
    pub into: &'a Path,
    pub logs: &'a [PathBuf],
    pub sources: &'a SourceArgs,
    pub state: &'a StateArgs,
    pub json: bool,
}

pub fn run(ctx: &Ctx, a: Args<'_>) -> Result<ExitCode> {
    anyhow::ensure!(
        (0.0..=1.0).contains(&a.min_confidence),
        "--min-confidence must be between 0 and 1, not {}",
        a.min_confidence
    );
    let store = usage_store(a.state)?;
    // Read a line at a time, keeping only tool names: bounded memory
    // whatever the logs hold (their lines' warnings are logged as read).
    let (sessions, _skipped) = record::sessions_from_files(&store, a.logs)?;
    let found = patterns::detect_in(&sessions, &patterns::Options::default());
    let existing: BTreeSet<String> = ctx
        .registry(a.sources)?
        .snapshot()
        .skills
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    let planned = learn::plan(&found, a.into, &existing, a.min_confidence);
    let written = if a.dry_run {
        Vec::new()
    } else {
        learn::write(&planned, a.into)?
    };
    if a.json {
        let skills: Vec<_> = planned
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "path": p.folder.join("SKILL.md").display().to_string(),
                    "tools": p.pattern.tools,
                    "frequency": p.pattern.frequency,
                    "confidence": p.pattern.confidence,
                    "written": !a.dry_run && p.skipped.is_none(),
                    "skipped": p.skipped,
                    "content": p.content,
                })
            })
            .collect();
        print_json(&json!({
            "dry_run": a.dry_run,
            "sessions": sessions.len(),
            "patterns": found.len(),
            "skills": skills,
        }))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = format!(
        "{} pattern(s) in {} session(s); {} at confidence {} or more\n",
        found.len(),
        sessions.len(),
        planned.len(),
        a.min_confidence
    );
    for p in &planned {
        let verb = match (&p.skipped, a.dry_run) {
            (Some(reason), _) => format!("skip {} ({reason})", p.name),
            (None, true) => format!("would write {}", p.folder.join("SKILL.md").display()),
            (None, false) => format!("wrote {}", p.folder.join("SKILL.md").display()),
        };
        let _ = writeln!(
            out,
            "{verb}: {} (in {} sessions, confidence {:.2})",
            p.pattern.tools.join(" -> "),
            p.pattern.frequency,
            p.pattern.confidence
        );
    }
    if a.dry_run {
        for p in planned.iter().filter(|p| p.skipped.is_none()) {
            let _ = write!(out, "\n--- {} ---\n{}", p.name, p.content);
        }
    }
    if !a.dry_run {
        let _ = writeln!(
            out,
            "{} skill(s) written into {}",
            written.len(),
            a.into.display()
        );
    }
    print_text(&out)?;
    Ok(ExitCode::SUCCESS)
}
