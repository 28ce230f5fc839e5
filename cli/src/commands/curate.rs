//! `skillhost curate`: each skill's lifecycle state and the candidates to
//! archive; archiving, restoring, and the idle runner's pause switch.

use crate::args::{SourceArgs, StateArgs};
use crate::context::{Ctx, usage_store};
use crate::output::{print_json, print_text};
use anyhow::Result;
use serde_json::{Value, json};
use skillhost_usage::clock::rfc3339;
use skillhost_usage::curator::{self, Archivable, Archived, Moved, Report, State};
use std::fmt::Write as _;
use std::process::ExitCode;

/// What `curate` was asked.
pub struct Args<'a> {
    pub sources: &'a SourceArgs,
    pub state: &'a StateArgs,
    pub json: bool,
    pub archive: bool,
    pub restore: Option<&'a str>,
    pub pause: bool,
    pub resume: bool,
}

fn moved_json(m: &Moved) -> Value {
    json!({"name": m.name, "from": m.from.display().to_string(), "to": m.to.display().to_string()})
}

pub fn run(ctx: &Ctx, a: Args<'_>) -> Result<ExitCode> {
    let store = usage_store(a.state)?;
    if a.pause || a.resume {
        store.set_paused(a.pause)?;
    }
    let registry = ctx.registry(a.sources)?;
    let roots = curator::writable_roots(&registry);
    let restored = match a.restore {
        Some(name) => Some(curator::restore(&store, &roots, name)?),
        None => None,
    };
    // The catalog is read after a restore, so the restored skill is in it.
    let report = curator::review(&store, &registry.snapshot(), &roots)?;
    store.record_review("manual", &report.to_json(), None)?;
    let archived = if a.archive {
        curator::archive(&report)
    } else {
        Archived::default()
    };
    let runner = store.runner_state()?;
    if a.json {
        let mut value = report.to_json();
        value["store"] = json!(store.path().display().to_string());
        value["runner"] = json!({
            "paused": runner.paused,
            "last_activity": runner.last_activity.map(rfc3339),
            "last_review": runner.last_review.map(rfc3339),
        });
        value["restored"] = restored.as_ref().map_or(Value::Null, moved_json);
        value["archived"] = archived.moved.iter().map(moved_json).collect();
        value["kept"] = archived
            .skipped
            .iter()
            .map(|(name, reason)| json!({"name": name, "reason": reason}))
            .collect();
        print_json(&value)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    if let Some(m) = &restored {
        let _ = writeln!(
            out,
            "restored {}: {} -> {}\n",
            m.name,
            m.from.display(),
            m.to.display()
        );
    }
    out.push_str(&table(&report));
    for m in &archived.moved {
        let _ = writeln!(
            out,
            "archived {}: {} -> {}",
            m.name,
            m.from.display(),
            m.to.display()
        );
    }
    for (name, reason) in &archived.skipped {
        let _ = writeln!(out, "kept {name}: {reason}");
    }
    let _ = write!(
        out,
        "runner: {}; last review {}; store: {}",
        if runner.paused {
            "paused"
        } else {
            "running when idle"
        },
        runner
            .last_review
            .map_or_else(|| "never".to_string(), rfc3339),
        store.path().display()
    );
    print_text(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The report as people read it: one line per skill, then the candidates.
fn table(report: &Report) -> String {
    let width = report
        .skills
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!(
        "{:width$}  {:10}  {:>6}  LAST USE\n",
        "SKILL", "STATE", "SCORE"
    );
    for s in &report.skills {
        let last = match (s.last_used, s.first_seen) {
            (Some(at), _) => rfc3339(at),
            (None, Some(seen)) => format!("never (first seen {})", rfc3339(seen)),
            (None, None) => "never".to_string(),
        };
        let pinned = if s.pinned { "  (pinned)" } else { "" };
        let _ = writeln!(
            out,
            "{:width$}  {:10}  {:>6.3}  {last}{pinned}",
            s.name,
            s.state.as_str(),
            s.score
        );
    }
    let counts: Vec<String> = [
        State::Active,
        State::Inactive,
        State::Stale,
        State::Deprecated,
    ]
    .iter()
    .map(|state| format!("{} {}", report.count(*state), state.as_str()))
    .collect();
    let _ = writeln!(out, "\n{}", counts.join(", "));
    let candidates: Vec<String> = report
        .candidates()
        .map(|c| match &c.archivable {
            Archivable::Yes { entry, .. } => format!("{} ({})", c.name, entry.display()),
            Archivable::No(reason) => format!("{} (cannot be archived: {reason})", c.name),
        })
        .collect();
    if candidates.is_empty() {
        out.push_str("candidates to archive: none\n");
    } else {
        let _ = writeln!(out, "candidates to archive: {}", candidates.join(", "));
    }
    out
}
