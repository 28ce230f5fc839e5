//! The usage store: one SQLite file (bundled SQLite, no system library)
//! holding every recorded invocation, when each skill was first seen, the
//! tool calls of each session, and the runner's heartbeats, reviews and
//! pause switch.
//!
//! Several processes write to it at once (`serve`, `watch`, CLI calls): it
//! runs in WAL mode, every write is an immediate transaction that waits
//! for the others (up to [`BUSY_TIMEOUT`]), and a process killed in the
//! middle of one loses only that uncommitted transaction. The schema is
//! versioned (`PRAGMA user_version`, migrated forward on open) and the
//! file is marked as ours (`PRAGMA application_id`), so another program's
//! database, a file that is not SQLite, a damaged file or one written by a
//! newer skillhost is an error naming it — never silently replaced.

use super::clock::{Clock, SystemClock, from_millis, to_millis};
use super::error::Error;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior, params};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

mod settings;

/// The store's file name inside the state folder.
pub const FILE_NAME: &str = "usage.db";
pub use super::schema::{APPLICATION_ID, BUSY_TIMEOUT, SCHEMA_VERSION};
use super::schema::{check_header, migrate, set_wal, sql_error};
/// Most characters of any recorded text (names, sessions, tools).
pub const MAX_FIELD_CHARS: usize = 1024;

/// The state folder: `explicit` (`--state DIR`), else
/// [`skillhost::paths::state_dir`].
pub fn state_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    match explicit {
        Some(dir) => Some(dir.to_path_buf()),
        None => skillhost::paths::state_dir(),
    }
}

/// The store's path under [`state_dir`].
pub fn default_path(explicit_state_dir: Option<&Path>) -> Option<PathBuf> {
    state_dir(explicit_state_dir).map(|dir| dir.join(FILE_NAME))
}

/// How an invocation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The expanded text joined the conversation.
    Inline,
    /// A fork plan was handed to the embedder's runner.
    Fork,
    /// The caller may not invoke the skill.
    Refused,
    /// The skill exists but could not be loaded or run.
    Failed,
}

impl Outcome {
    /// `inline`, `fork`, `refused` or `failed`, as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Inline => "inline",
            Outcome::Fork => "fork",
            Outcome::Refused => "refused",
            Outcome::Failed => "failed",
        }
    }

    /// The outcome stored as `text`, if it is one.
    pub fn parse(text: &str) -> Option<Outcome> {
        Some(match text {
            "inline" => Outcome::Inline,
            "fork" => Outcome::Fork,
            "refused" => Outcome::Refused,
            "failed" => Outcome::Failed,
            _ => return None,
        })
    }

    /// Whether the skill was actually used (what the score counts).
    pub fn is_use(self) -> bool {
        matches!(self, Outcome::Inline | Outcome::Fork)
    }
}

/// One invocation to record; the store stamps it with its clock's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvocationRecord<'a> {
    /// The skill's catalog name (`label:name` for remote skills).
    pub skill: &'a str,
    /// The id of the provider that served it (empty when unknown).
    pub source: &'a str,
    /// Who invoked it: `user` or `model` (see
    /// [`caller_name`](super::record::caller_name)), or an embedder's word
    /// such as `mcp-prompt`.
    pub caller: &'a str,
    /// The session it happened in (empty when unknown).
    pub session: &'a str,
    /// How it ended.
    pub outcome: Outcome,
}

/// What the store knows of one skill.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkillUsage {
    /// Invocations that used it (inline or fork).
    pub count: u64,
    /// The latest of those.
    pub last_used: Option<SystemTime>,
    /// Invocations refused or failed.
    pub unsuccessful: u64,
    /// When it was first seen in a catalog or invoked (reset by a restore).
    pub first_seen: Option<SystemTime>,
}

/// One stored review.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    /// When it ran.
    pub at: SystemTime,
    /// `runner` (the idle runner) or `manual` (`skillhost curate`).
    pub kind: String,
    /// The curator's report, as JSON.
    pub report: serde_json::Value,
}

/// What the runner decides on.
#[derive(Debug, Clone, PartialEq)]
pub struct RunnerState {
    /// `curate --pause` is in effect.
    pub paused: bool,
    /// The latest heartbeat of any process.
    pub last_activity: Option<SystemTime>,
    /// When the latest review ran.
    pub last_review: Option<SystemTime>,
}

/// The usage store: open it at a path, record into it from any number of
/// threads and processes.
pub struct UsageStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for UsageStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UsageStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl UsageStore {
    /// Opens the store at `path`, creating it (and its folder) if needed,
    /// and migrating an older schema forward. Uses the system clock.
    pub fn open(path: &Path) -> Result<UsageStore, Error> {
        UsageStore::open_with_clock(path, Arc::new(SystemClock))
    }

    /// [`UsageStore::open`] with the clock every record is stamped with.
    pub fn open_with_clock(path: &Path, clock: Arc<dyn Clock>) -> Result<UsageStore, Error> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
        }
        check_header(path)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let err = |e| sql_error(path, e);
        let mut conn = Connection::open_with_flags(path, flags).map_err(err)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        set_wal(&conn, path)?;
        // In WAL mode, NORMAL loses nothing when a process dies; only a
        // power cut may take back the last commits.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(err)?;
        migrate(&mut conn, path)?;
        Ok(UsageStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            clock,
        })
    }

    /// Opens the store only if its file exists (readers that must not
    /// create one, such as `inject`).
    pub fn open_existing(path: &Path) -> Result<Option<UsageStore>, Error> {
        if !path.exists() {
            return Ok(None);
        }
        UsageStore::open(path).map(Some)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The clock records are stamped with.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    /// The time on the store's clock.
    pub fn now(&self) -> SystemTime {
        self.clock.now()
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A connection stays usable after a panic elsewhere: an open
        // transaction is rolled back when its guard is dropped.
        skillhost::sync::lock(&self.conn)
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        sql_error(&self.path, e)
    }

    /// Runs `f` in one immediate transaction (waiting for other writers)
    /// and commits it.
    fn write<T>(
        &self,
        f: impl FnOnce(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> Result<T, Error> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let out = f(&tx).map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(out)
    }

    /// Records one invocation, notes the skill as seen, and counts as
    /// activity for the runner.
    pub fn record_invocation(&self, record: &InvocationRecord<'_>) -> Result<(), Error> {
        self.record_invocation_at(record, self.now())
    }

    /// Records an invocation that happened at `at` (a use a session log
    /// shows; a time after now counts as now).
    pub fn record_invocation_at(
        &self,
        record: &InvocationRecord<'_>,
        at: SystemTime,
    ) -> Result<(), Error> {
        check("skill", record.skill, false)?;
        check("source", record.source, true)?;
        check("caller", record.caller, false)?;
        check("session", record.session, true)?;
        let at = to_millis(at.min(self.now()));
        self.write(|tx| {
            tx.prepare_cached(
                "INSERT INTO invocations (skill, source, caller, session, at_ms, outcome)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                record.skill,
                record.source,
                record.caller,
                record.session,
                at,
                record.outcome.as_str()
            ])?;
            seen(tx, record.skill, at)?;
            beat(tx, "invocation", at)
        })
    }

    /// Whether any invocation by `caller` was recorded for `session` (a
    /// session log already counted).
    pub fn has_invocations(&self, session: &str, caller: &str) -> Result<bool, Error> {
        let conn = self.lock();
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM invocations WHERE session = ?1 AND caller = ?2)",
            params![session, caller],
            |r| r.get::<_, bool>(0),
        )
        .map_err(|e| self.err(e))
    }

    /// Records that `session` called `tool` (in this order relative to its
    /// other calls); counts as activity.
    pub fn record_tool_call(&self, session: &str, tool: &str) -> Result<(), Error> {
        self.record_tool_calls(session, &[tool])
    }

    /// Records several calls of one session, in order, in one transaction.
    pub fn record_tool_calls(&self, session: &str, tools: &[impl AsRef<str>]) -> Result<(), Error> {
        check("session", session, false)?;
        for tool in tools {
            check("tool", tool.as_ref(), false)?;
        }
        let at = to_millis(self.now());
        self.write(|tx| {
            let mut insert = tx.prepare_cached(
                "INSERT INTO tool_calls (session, tool, at_ms) VALUES (?1, ?2, ?3)",
            )?;
            for tool in tools {
                insert.execute(params![session, tool.as_ref(), at])?;
            }
            beat(tx, "tool-call", at)
        })
    }

    /// Records that `source` (a process or component: `serve`, `cli`, ...)
    /// saw user activity now. The runner waits for the configured idle time
    /// after the latest heartbeat of any source.
    pub fn heartbeat(&self, source: &str) -> Result<(), Error> {
        check("heartbeat source", source, false)?;
        let at = to_millis(self.now());
        self.write(|tx| beat(tx, source, at))
    }

    /// Notes skills as seen now, unless they were seen before: a skill with
    /// no invocation counts its idle time from then.
    pub fn observe_skills<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<(), Error> {
        let names: Vec<&str> = names
            .into_iter()
            .filter(|n| check("skill", n, false).is_ok())
            .collect();
        let at = to_millis(self.now());
        self.write(|tx| {
            for name in &names {
                seen(tx, name, at)?;
            }
            Ok(())
        })
    }

    /// Starts `name`'s idle time again from now (a restored skill gets a
    /// new grace period instead of being archived again at once).
    pub fn restart_grace(&self, name: &str) -> Result<(), Error> {
        check("skill", name, false)?;
        let at = to_millis(self.now());
        self.write(|tx| {
            tx.execute(
                "INSERT INTO skills (name, first_seen_ms) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET first_seen_ms = excluded.first_seen_ms",
                params![name, at],
            )
            .map(drop)
        })
    }

    /// Everything known per skill, by name.
    pub fn usage(&self) -> Result<BTreeMap<String, SkillUsage>, Error> {
        let conn = self.lock();
        let mut out: BTreeMap<String, SkillUsage> = BTreeMap::new();
        let result: rusqlite::Result<()> = (|| {
            let mut counts = conn.prepare_cached(
                "SELECT skill, outcome, COUNT(*), MAX(at_ms) FROM invocations GROUP BY skill, outcome",
            )?;
            let mut rows = counts.query([])?;
            while let Some(row) = rows.next()? {
                let entry = out.entry(row.get(0)?).or_default();
                let count = u64::try_from(row.get::<_, i64>(2)?).unwrap_or(0);
                let last = from_millis(row.get(3)?);
                match Outcome::parse(&row.get::<_, String>(1)?) {
                    Some(outcome) if outcome.is_use() => {
                        entry.count += count;
                        entry.last_used = Some(entry.last_used.map_or(last, |l| l.max(last)));
                    }
                    _ => entry.unsuccessful += count,
                }
            }
            let mut seen = conn.prepare_cached("SELECT name, first_seen_ms FROM skills")?;
            let mut rows = seen.query([])?;
            while let Some(row) = rows.next()? {
                out.entry(row.get(0)?).or_default().first_seen = Some(from_millis(row.get(1)?));
            }
            Ok(())
        })();
        result.map_err(|e| self.err(e))?;
        Ok(out)
    }

    /// How many invocations are recorded, of any outcome.
    pub fn invocation_count(&self) -> Result<u64, Error> {
        self.count("SELECT COUNT(*) FROM invocations")
    }

    /// How many tool calls are recorded.
    pub fn tool_call_count(&self) -> Result<u64, Error> {
        self.count("SELECT COUNT(*) FROM tool_calls")
    }

    fn count(&self, sql: &str) -> Result<u64, Error> {
        let n: i64 = self
            .lock()
            .query_row(sql, [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(u64::try_from(n).unwrap_or(0))
    }

    /// Every session's tool calls, in the order they were recorded,
    /// sessions by id.
    pub fn sessions(&self) -> Result<Vec<(String, Vec<String>)>, Error> {
        let conn = self.lock();
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        let result: rusqlite::Result<()> = (|| {
            let mut query =
                conn.prepare_cached("SELECT session, tool FROM tool_calls ORDER BY session, id")?;
            let mut rows = query.query([])?;
            while let Some(row) = rows.next()? {
                let session: String = row.get(0)?;
                let tool: String = row.get(1)?;
                match out.last_mut() {
                    Some((last, tools)) if *last == session => tools.push(tool),
                    _ => out.push((session, vec![tool])),
                }
            }
            Ok(())
        })();
        result.map_err(|e| self.err(e))?;
        Ok(out)
    }

    /// The pause switch, the latest heartbeat and the latest review.
    pub fn runner_state(&self) -> Result<RunnerState, Error> {
        let conn = self.lock();
        let state: rusqlite::Result<RunnerState> = (|| {
            let paused: Option<String> = conn
                .query_row("SELECT value FROM settings WHERE key = 'paused'", [], |r| {
                    r.get(0)
                })
                .map(Some)
                .or_else(none_if_empty)?;
            let activity: Option<i64> =
                conn.query_row("SELECT MAX(at_ms) FROM heartbeats", [], |r| r.get(0))?;
            let review: Option<i64> =
                conn.query_row("SELECT MAX(at_ms) FROM reviews", [], |r| r.get(0))?;
            Ok(RunnerState {
                paused: paused.as_deref() == Some("1"),
                last_activity: activity.map(from_millis),
                last_review: review.map(from_millis),
            })
        })();
        state.map_err(|e| self.err(e))
    }

    /// Stores a review of `kind` with its report, stamped now. With
    /// `due_after`, only if no review (by any process) ran within that
    /// long: the check and the insert are one transaction, so two runners
    /// never both review. Says whether it was stored.
    pub fn record_review(
        &self,
        kind: &str,
        report: &serde_json::Value,
        due_after: Option<Duration>,
    ) -> Result<bool, Error> {
        check("review kind", kind, false)?;
        let now = self.now();
        let at = to_millis(now);
        let text = report.to_string();
        self.write(|tx| {
            if let Some(interval) = due_after {
                let last: Option<i64> =
                    tx.query_row("SELECT MAX(at_ms) FROM reviews", [], |r| r.get(0))?;
                if let Some(last) = last
                    && now
                        .duration_since(from_millis(last))
                        .is_ok_and(|since| since < interval)
                {
                    return Ok(false);
                }
            }
            tx.execute(
                "INSERT INTO reviews (at_ms, kind, report) VALUES (?1, ?2, ?3)",
                params![at, kind, text],
            )?;
            Ok(true)
        })
    }

    /// The latest review, if any.
    pub fn last_review(&self) -> Result<Option<Review>, Error> {
        let conn = self.lock();
        let row: Option<(i64, String, String)> = conn
            .query_row(
                "SELECT at_ms, kind, report FROM reviews ORDER BY at_ms DESC, id DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map(Some)
            .or_else(none_if_empty)
            .map_err(|e| self.err(e))?;
        Ok(row.map(|(at, kind, report)| Review {
            at: from_millis(at),
            kind,
            report: serde_json::from_str(&report).unwrap_or(serde_json::Value::Null),
        }))
    }

    /// Has SQLite check every page; a problem is [`Error::Damaged`].
    pub fn check_integrity(&self) -> Result<(), Error> {
        let verdict: String = self
            .lock()
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(Error::Damaged {
                path: self.path.clone(),
                reason: verdict,
            })
        }
    }
}

fn none_if_empty<T>(e: rusqlite::Error) -> rusqlite::Result<Option<T>> {
    match e {
        rusqlite::Error::QueryReturnedNoRows => Ok(None),
        e => Err(e),
    }
}

fn seen(tx: &Transaction<'_>, name: &str, at: i64) -> rusqlite::Result<()> {
    tx.prepare_cached("INSERT OR IGNORE INTO skills (name, first_seen_ms) VALUES (?1, ?2)")?
        .execute(params![name, at])
        .map(drop)
}

fn beat(tx: &Transaction<'_>, source: &str, at: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO heartbeats (source, at_ms) VALUES (?1, ?2)
         ON CONFLICT (source) DO UPDATE SET at_ms = MAX(at_ms, excluded.at_ms)",
    )?
    .execute(params![source, at])
    .map(drop)
}

/// Refuses text no caller should send: empty (unless allowed), over
/// [`MAX_FIELD_CHARS`], or with control characters.
fn check(field: &'static str, value: &str, empty_ok: bool) -> Result<(), Error> {
    let invalid = |reason: String| Err(Error::Invalid { field, reason });
    if value.is_empty() && !empty_ok {
        return invalid("must not be empty".into());
    }
    let chars = value.chars().count();
    if chars > MAX_FIELD_CHARS {
        return invalid(format!("{chars} characters, more than {MAX_FIELD_CHARS}"));
    }
    if let Some(c) = value.chars().find(|c| c.is_control()) {
        return invalid(format!("contains the control character {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
