//! What the session layer feeds the store: invocations as
//! [`invoke`](skillhost::session::invoke::invoke) returned them, and tool calls
//! found in a session log (`{"type": "tool-call", "tool": "..."}` events).
//!
//! ```no_run
//! use skillhost::session::invoke::{self, Caller, Request};
//! use skillhost_usage::{UsageStore, record};
//! # let registry = skillhost::Registry::new();
//! # let activated = Default::default();
//! let store = UsageStore::open(&skillhost_usage::store::default_path(None).unwrap())?;
//! let request = Request { name: "code-review", args: &[], caller: Caller::Model, session_id: "s-1", max_steps: None };
//! let result = invoke::invoke(&registry, &request, &activated);
//! record::record_invoke(&store, &registry.snapshot(), &request, &result)?;
//! # Ok::<(), skillhost_usage::Error>(())
//! ```

use super::error::Error;
use super::patterns::Sessions;
use super::store::{InvocationRecord, Outcome, UsageStore};
use skillhost::model::{Catalog, Skill};
use skillhost::session::SessionLog;
use skillhost::session::invoke::{Caller, Invocation, Request};
use skillhost::session::render::Scores;
use skillhost::session::usage::{Usage, UsageError};

pub use skillhost::session::log::TOOL_CALL;

/// `user` or `model`, as invocations store the caller.
pub fn caller_name(caller: Caller) -> &'static str {
    match caller {
        Caller::User => "user",
        Caller::Model => "model",
    }
}

/// The skill `name` (or alias) of `catalog`.
fn resolve<'c>(catalog: &'c Catalog, name: &str) -> Option<&'c Skill> {
    catalog.get(name).map(|s| s.as_ref()).or_else(|| {
        catalog
            .skills
            .iter()
            .find(|s| s.frontmatter.aliases.iter().any(|a| a == name))
            .map(|s| s.as_ref())
    })
}

/// The skill an invocation concerned and how it ended; `None` when no such
/// skill exists (nothing to record against).
pub fn outcome_of(
    request: &Request<'_>,
    result: &Result<Invocation, skillhost::Error>,
) -> Option<(String, Outcome)> {
    match result {
        Ok(Invocation::Inline { skill, .. }) => Some((skill.clone(), Outcome::Inline)),
        Ok(Invocation::Fork(plan)) => Some((plan.skill.clone(), Outcome::Fork)),
        Err(skillhost::Error::Refused { skill, .. }) => Some((skill.clone(), Outcome::Refused)),
        Err(skillhost::Error::UnknownSkill { .. } | skillhost::Error::NotActive { .. }) => None,
        Err(_) => Some((request.name.to_string(), Outcome::Failed)),
    }
}

/// Records what `invoke` did for `request` (the skill's provider looked up
/// in `catalog`); says whether anything was recorded.
pub fn record_invoke(
    store: &UsageStore,
    catalog: &Catalog,
    request: &Request<'_>,
    result: &Result<Invocation, skillhost::Error>,
) -> Result<bool, Error> {
    let Some((name, outcome)) = outcome_of(request, result) else {
        return Ok(false);
    };
    let skill = resolve(catalog, &name);
    store.record_invocation(&InvocationRecord {
        skill: skill.map_or(name.as_str(), |s| s.name()),
        source: skill.map_or("", |s| s.source.as_str()),
        caller: caller_name(request.caller),
        session: request.session_id,
        outcome,
    })?;
    Ok(true)
}

/// A [`Session`](skillhost::Session) with a store attached ranks its
/// listing by the store's scores and records each invocation here.
impl Usage for UsageStore {
    fn scores(&self, catalog: &Catalog) -> Result<Scores, UsageError> {
        Ok(super::score::catalog_scores(
            catalog,
            &self.usage()?,
            self.now(),
        ))
    }

    fn record(
        &self,
        catalog: &Catalog,
        request: &Request<'_>,
        result: &Result<Invocation, skillhost::Error>,
    ) -> Result<(), UsageError> {
        record_invoke(self, catalog, request, result)?;
        Ok(())
    }
}

/// The step a `tool-call` event records, if its tool is usable (a
/// non-empty string of at most the store's field length, with no control
/// character): the tool, with what its `input` (or `arguments`, `args`)
/// says it was called on ([`steps::label`](super::steps::label)).
fn tool_of(event: &skillhost::session::Event) -> Option<String> {
    if event.kind != TOOL_CALL {
        return None;
    }
    let tool = event.other.get("tool")?.as_str()?;
    let usable = !tool.is_empty()
        && tool.chars().count() <= super::store::MAX_FIELD_CHARS
        && !tool.chars().any(char::is_control);
    let arguments = ["input", "arguments", "args"]
        .iter()
        .find_map(|k| event.other.get(*k));
    usable.then(|| super::steps::label(tool, arguments))
}

/// The tools a session log's visible and hidden `tool-call` events name,
/// in order (events without a usable `tool` are skipped).
pub fn tool_calls(log: &dyn SessionLog) -> Vec<String> {
    (0..log.len())
        .filter_map(|i| log.get(i))
        .filter_map(tool_of)
        .collect()
}

/// The sessions patterns are found in: the store's, then one per session
/// log given (`id` naming it, typically its path).
pub fn sessions(store: &UsageStore, logs: &[(String, &dyn SessionLog)]) -> Result<Sessions, Error> {
    let mut out = store_sessions(store)?;
    for (id, log) in logs {
        out.start(id);
        for tool in tool_calls(*log) {
            out.call(id, &tool);
        }
    }
    Ok(out)
}

/// The same, reading each JSONL log file a line at a time: only the tool
/// names are kept (interned, 4 bytes a call), never the events, so three
/// logs of two million calls each are read in tens of megabytes. Returns
/// the lines skipped, and why, beside.
pub fn sessions_from_files(
    store: &UsageStore,
    logs: &[std::path::PathBuf],
) -> Result<(Sessions, Vec<String>), Error> {
    let mut out = store_sessions(store)?;
    let mut warnings = Vec::new();
    for path in logs {
        let id = path.display().to_string();
        out.start(&id);
        let skipped = read_log(path, |event| {
            if let Some(step) = tool_of(&event) {
                out.call(&id, &step);
            }
        })?;
        warnings.extend(skipped);
    }
    Ok((out, warnings))
}

/// Reads the JSONL session log at `path` an event at a time, returning the
/// lines skipped and why; a log that cannot be read is an error naming it.
pub(crate) fn read_log(
    path: &std::path::Path,
    each: impl FnMut(skillhost::session::Event),
) -> Result<Vec<String>, Error> {
    skillhost::session::log::read_events(path, each).map_err(|e| match e {
        skillhost::Error::Io { path, error } => Error::Io { path, error },
        other => Error::Io {
            path: path.to_path_buf(),
            error: std::io::Error::other(other.to_string()),
        },
    })
}

fn store_sessions(store: &UsageStore) -> Result<Sessions, Error> {
    let mut out = Sessions::new();
    for (id, tools) in store.sessions()? {
        out.start(&id);
        for tool in &tools {
            out.call(&id, tool);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillhost::session::log::{Event, MemoryLog};

    #[test]
    fn tool_call_events_are_read_in_order_and_others_ignored() {
        let mut log = MemoryLog::default();
        for (kind, tool) in [
            (TOOL_CALL, Some(serde_json::json!("search_papers"))),
            ("skill-catalog", None),
            (TOOL_CALL, Some(serde_json::json!(42))),
            (TOOL_CALL, Some(serde_json::json!("bad\nname"))),
            (TOOL_CALL, None),
            (TOOL_CALL, Some(serde_json::json!("rag_search"))),
        ] {
            let mut event = Event::new(kind);
            if let Some(tool) = tool {
                event.other.insert("tool".into(), tool);
            }
            log.events.push(event);
        }
        assert_eq!(tool_calls(&log), ["search_papers", "rag_search"]);
    }

    #[test]
    fn outcomes_follow_the_invocation_result() {
        let request = Request {
            name: "alias",
            args: &[],
            caller: Caller::Model,
            session_id: "s",
            max_steps: None,
        };
        let inline = Ok(Invocation::Inline {
            skill: "real".into(),
            description: None,
            text: String::new(),
            place: Default::default(),
        });
        assert_eq!(
            outcome_of(&request, &inline),
            Some(("real".into(), Outcome::Inline))
        );
        let refused = Err(skillhost::Error::Refused {
            skill: "real".into(),
            reason: "no".into(),
        });
        assert_eq!(
            outcome_of(&request, &refused),
            Some(("real".into(), Outcome::Refused))
        );
        let unknown = Err(skillhost::Error::UnknownSkill {
            name: "alias".into(),
            near: Vec::new(),
            count: 0,
        });
        assert_eq!(outcome_of(&request, &unknown), None);
        let failed = Err(skillhost::Error::Mirror("x".into()));
        assert_eq!(
            outcome_of(&request, &failed),
            Some(("alias".into(), Outcome::Failed))
        );
    }

    #[test]
    fn log_files_are_read_as_tool_names_with_bad_lines_named() {
        let dir = tempfile::tempdir().unwrap();
        let store = UsageStore::open(&dir.path().join("usage.db")).unwrap();
        store
            .record_tool_calls("stored", &["read", "edit"])
            .unwrap();
        let log = dir.path().join("a.jsonl");
        std::fs::write(
            &log,
            concat!(
                r#"{"type":"tool-call","tool":"search"}"#,
                "\n",
                r#"{"type":"message","content":"long text the agent wrote"}"#,
                "\n",
                "not json\n",
                r#"{"type":"tool-call","tool":42}"#,
                "\n",
                r#"{"type":"tool-call","tool":"fetch","visible":false}"#,
                "\n",
            ),
        )
        .unwrap();
        let missing = dir.path().join("missing.jsonl");
        let (sessions, warnings) = sessions_from_files(&store, &[log.clone(), missing]).unwrap();
        assert_eq!(sessions.len(), 3, "the store's session and one per log");
        assert_eq!(sessions.calls(), 4);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with(&format!("{}:3: not a JSON event", log.display())));
        let seen = crate::patterns::detect_in(
            &sessions,
            &crate::patterns::Options {
                min_sessions: 1,
                ..Default::default()
            },
        );
        assert!(
            seen.iter().any(|p| p.tools == ["search", "fetch"]),
            "{seen:#?}"
        );
    }
}
