//! Uses a session log shows the agent made of skills on its own, through
//! its native loader rather than skillhost: a `Skill` tool call naming one
//! (Claude Code's), a read of a skill's `SKILL.md`, or a command that runs
//! something inside a skill's folder (`python …/pdf/scripts/fill.py`).
//!
//! Without these, every skill an agent loads natively looks unused, and
//! the curator would call it deprecated. Each skill counts once per log
//! (reading a skill and running its script is one use), at the time of the
//! event that showed it (`timestamp` RFC 3339, or `at_ms`), and a log is
//! counted once: a log whose uses are in the store already is skipped.

use super::clock::parse_rfc3339;
use super::error::Error;
use super::store::{InvocationRecord, Outcome, UsageStore};
use skillhost::model::{Catalog, Location, Skill};
use skillhost::session::log::{Event, TOOL_CALL};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The caller recorded for a use through a native loader.
pub const NATIVE: &str = "native";

/// What one log gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counted {
    /// The log.
    pub log: PathBuf,
    /// The skills it showed used, by name.
    pub skills: Vec<String>,
    /// Whether it had been counted before (and so was not again).
    pub already: bool,
    /// Lines of it that were skipped, and why.
    pub warnings: Vec<String>,
}

/// A catalog skill's folder and document on disk, for matching paths.
struct Local<'c> {
    skill: &'c Skill,
    document: PathBuf,
    folder: PathBuf,
}

fn locals(catalog: &Catalog) -> Vec<Local<'_>> {
    catalog
        .skills
        .iter()
        .filter_map(|s| match (&s.path, &s.base) {
            (Location::Path(document), Location::Path(folder)) => Some(Local {
                skill: s,
                document: skillhost::paths::canonical_or_lexical(document),
                folder: skillhost::paths::canonical_or_lexical(folder),
            }),
            _ => None,
        })
        .collect()
}

/// The skill one tool-call event shows used, if any.
fn used_by<'c>(event: &Event, catalog: &'c Catalog, locals: &[Local<'c>]) -> Option<&'c Skill> {
    if event.kind != TOOL_CALL {
        return None;
    }
    let tool = event.other.get("tool")?.as_str()?;
    let input = ["input", "arguments", "args"]
        .iter()
        .find_map(|k| event.other.get(*k))?;
    let text = |key: &str| input.get(key).and_then(|v| v.as_str());
    if tool == "Skill" {
        let name = text("skill").or_else(|| text("command"))?;
        return catalog
            .resolve(name.trim().trim_start_matches('/'))
            .map(AsRef::as_ref);
    }
    if let Some(path) = ["file_path", "path", "file"].iter().find_map(|k| text(k)) {
        let path = skillhost::paths::canonical_or_lexical(Path::new(path));
        return locals.iter().find(|l| l.document == path).map(|l| l.skill);
    }
    let command = text("command").or_else(|| text("cmd"))?;
    // A word of the command that names a file inside a skill's folder
    // (the deepest folder wins: a skill inside another's folder is itself).
    command
        .split_whitespace()
        .map(|w| w.trim_matches(|c| c == '"' || c == '\''))
        .filter(|w| w.starts_with('/'))
        .filter_map(|w| {
            let path = skillhost::paths::canonical_or_lexical(Path::new(w));
            locals
                .iter()
                .filter(|l| path.starts_with(&l.folder))
                .max_by_key(|l| l.folder.components().count())
        })
        .map(|l| l.skill)
        .next()
}

/// When an event happened, if it says.
fn time_of(event: &Event) -> Option<SystemTime> {
    if let Some(text) = event.other.get("timestamp").and_then(|v| v.as_str()) {
        return parse_rfc3339(text);
    }
    let ms = event.other.get("at_ms")?.as_u64()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_millis(ms))
}

/// Records into `store` the uses each of `logs` shows of `catalog`'s
/// skills, as invocations by [`NATIVE`] in a session named after the log.
pub fn record_logs(
    store: &UsageStore,
    catalog: &Catalog,
    logs: &[PathBuf],
) -> Result<Vec<Counted>, Error> {
    let locals = locals(catalog);
    let mut out = Vec::new();
    for log in logs {
        let session = format!(
            "log:{}",
            skillhost::paths::canonical_or_lexical(log).display()
        );
        let mut counted = Counted {
            log: log.clone(),
            ..Counted::default()
        };
        if store.has_invocations(&session, NATIVE)? {
            counted.already = true;
            out.push(counted);
            continue;
        }
        // The first event showing each skill, in the order they appear.
        let mut first: BTreeMap<String, (usize, &Skill, Option<SystemTime>)> = BTreeMap::new();
        let mut index = 0usize;
        counted.warnings = super::record::read_log(log, |event| {
            index += 1;
            if let Some(skill) = used_by(&event, catalog, &locals) {
                first
                    .entry(skill.name().to_string())
                    .or_insert((index, skill, time_of(&event)));
            }
        })?;
        let mut uses: Vec<(usize, &Skill, Option<SystemTime>)> = first.into_values().collect();
        uses.sort_by_key(|(i, _, _)| *i);
        for (_, skill, at) in uses {
            let record = InvocationRecord {
                skill: skill.name(),
                source: &skill.source,
                caller: NATIVE,
                session: &session,
                outcome: Outcome::Inline,
            };
            store.record_invocation_at(&record, at.unwrap_or_else(|| store.now()))?;
            counted.skills.push(skill.name().to_string());
        }
        out.push(counted);
    }
    Ok(out)
}
