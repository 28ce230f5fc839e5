//! `skillhost curate`: each skill's lifecycle state and the candidates to
//! archive; archiving, restoring, and the idle runner's pause switch.

use crate::args::{SourceArgs, StateArgs};
use crate::context::{Ctx, usage_path, usage_store};
use crate::output::{eprint_text, print_json, print_text};
use anyhow::{Result, bail};
use serde_json::{Value, json};
use skillhost::text::escaped;
use skillhost_usage::clock::rfc3339;
use skillhost_usage::curator::{self, Archivable, Archived, Moved, Report, State};
use std::fmt::Write as _;
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::process::ExitCode;

/// What `curate` was asked.
pub struct Args<'a> {
    pub sources: &'a SourceArgs,
    pub state: &'a StateArgs,
    pub json: bool,
    pub archive: bool,
    pub yes: bool,
    pub undo: bool,
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
        Some(name) => vec![curator::restore(&store, &roots, name)?],
        None if a.undo => {
            let undone = curator::undo(&store)?;
            for (name, why) in &undone.kept {
                eprint_text(&format!(
                    "skillhost: {} stays archived: {}",
                    escaped(name),
                    escaped(why)
                ));
            }
            undone.back
        }
        None => Vec::new(),
    };
    // The catalog is read after a restore, so the restored skill is in it.
    let report = curator::review(&store, &registry.snapshot(), &roots)?;
    store.record_review("manual", &report.to_json(), None)?;
    // Archiving moves folders of the user's own roots: a person decides,
    // on a prompt or with --yes, unless it is a handful of skillhost's own.
    let own = usage_path(a.state)?
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let declined =
        a.archive && !a.yes && curator::needs_confirmation(&report, &own) && !confirmed(&report)?;
    let archived = if a.archive && !declined {
        let archived = curator::archive(&report);
        curator::remember(&store, &archived)?;
        archived
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
        value["restored"] = restored.iter().map(moved_json).collect();
        value["archived"] = archived.moved.iter().map(moved_json).collect();
        value["kept"] = archived
            .skipped
            .iter()
            .map(|(name, reason)| json!({"name": name, "reason": reason}))
            .collect();
        print_json(&value)?;
        return declined_exit(declined, &report);
    }
    let mut out = String::new();
    for m in &restored {
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
    declined_exit(declined, &report)
}

/// The skills `--archive` would move, one per line.
fn moving(report: &Report) -> Vec<String> {
    report
        .candidates()
        .filter_map(|c| match &c.archivable {
            Archivable::Yes { entry, .. } => Some(format!(
                "  {} ({})",
                escaped(&c.name),
                escaped(&entry.display().to_string())
            )),
            Archivable::No(_) => None,
        })
        .collect()
}

/// Asks on the terminal whether to archive; `false` without one.
fn confirmed(report: &Report) -> Result<bool> {
    if !(std::io::stdin().is_terminal() && std::io::stderr().is_terminal()) {
        return Ok(false);
    }
    let list = moving(report);
    let mut err = std::io::stderr().lock();
    writeln!(
        err,
        "These {} skill(s) will move into .archive (undo with `skillhost curate --undo`):\n{}",
        list.len(),
        list.join("\n")
    )?;
    write!(err, "Archive them? [y/N] ")?;
    err.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes"))
}

/// Exit 0, or fail saying that nothing moved when archiving was not
/// confirmed.
fn declined_exit(declined: bool, report: &Report) -> Result<ExitCode> {
    if !declined {
        return Ok(ExitCode::SUCCESS);
    }
    bail!(
        "nothing was archived: {} skill(s) of your skill roots would move; run again on a \
         terminal to be asked, or with --yes",
        moving(report).len()
    )
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
        "{:width$}  {:10}  {:>6}  EVIDENCE\n",
        "SKILL", "STATE", "SCORE"
    );
    for s in &report.skills {
        let _ = writeln!(
            out,
            "{:width$}  {:10}  {:>6.3}  {}",
            s.name,
            s.state.as_str(),
            s.score,
            s.evidence()
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
        let _ = writeln!(out, "candidates to archive ({}):", candidates.len());
        for candidate in &candidates {
            let _ = writeln!(out, "  {candidate}");
        }
    }
    out
}
