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
use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior, params};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// The store's file name inside the state folder.
pub const FILE_NAME: &str = "usage.db";
/// What `PRAGMA application_id` holds in a skillhost usage store ("SKUS").
pub const APPLICATION_ID: i32 = 0x534B_5553;
/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 1;
/// How long a write waits for other processes' transactions.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Most characters of any recorded text (names, sessions, tools).
pub const MAX_FIELD_CHARS: usize = 1024;

/// Migration `i` takes a store from version `i` to `i + 1`.
const MIGRATIONS: [&str; SCHEMA_VERSION as usize] = [SCHEMA_V1];

const SCHEMA_V1: &str = "
CREATE TABLE invocations (
    id INTEGER PRIMARY KEY,
    skill TEXT NOT NULL,
    source TEXT NOT NULL,
    caller TEXT NOT NULL,
    session TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    outcome TEXT NOT NULL
);
CREATE INDEX invocations_by_skill ON invocations (skill, outcome, at_ms);
CREATE TABLE skills (
    name TEXT PRIMARY KEY,
    first_seen_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE tool_calls (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL,
    tool TEXT NOT NULL,
    at_ms INTEGER NOT NULL
);
CREATE INDEX tool_calls_by_session ON tool_calls (session, id);
CREATE TABLE heartbeats (
    source TEXT PRIMARY KEY,
    at_ms INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE reviews (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    kind TEXT NOT NULL,
    report TEXT NOT NULL
);
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
";

const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// The state folder: `explicit` (`--state DIR`), else `SKILLHOST_STATE_DIR`,
/// else `$XDG_STATE_HOME/skillhost`, else `~/.local/state/skillhost`.
pub fn state_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = var("SKILLHOST_STATE_DIR") {
        return Some(dir.into());
    }
    // The XDG rules ignore relative values.
    if let Some(dir) = var("XDG_STATE_HOME").map(PathBuf::from)
        && dir.is_absolute()
    {
        return Some(dir.join("skillhost"));
    }
    std::env::home_dir().map(|home| home.join(".local/state/skillhost"))
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
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
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
        check("skill", record.skill, false)?;
        check("source", record.source, true)?;
        check("caller", record.caller, false)?;
        check("session", record.session, true)?;
        let at = to_millis(self.now());
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

    /// Pauses (`true`) or resumes the runner, for every process.
    pub fn set_paused(&self, paused: bool) -> Result<(), Error> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO settings (key, value) VALUES ('paused', ?1)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![if paused { "1" } else { "0" }],
            )
            .map(drop)
        })
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

fn sql_error(path: &Path, e: rusqlite::Error) -> Error {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => Error::Damaged {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
        _ => Error::Sqlite {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
    }
}

/// A non-empty file must start with SQLite's header; anything else is not
/// ours to open (SQLite would only say "file is not a database" later).
fn check_header(path: &Path) -> Result<(), Error> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(path)(e)),
    };
    let mut head = Vec::with_capacity(SQLITE_HEADER.len());
    (&mut file)
        .take(SQLITE_HEADER.len() as u64)
        .read_to_end(&mut head)
        .map_err(Error::io(path))?;
    if head.is_empty() || head == SQLITE_HEADER {
        return Ok(());
    }
    Err(Error::Foreign {
        path: path.to_path_buf(),
        reason: "it is not an SQLite database (no SQLite header)".into(),
    })
}

/// Turns on WAL mode. Switching needs a moment alone with the file, so a
/// process that finds another one opening it at the same time waits.
fn set_wal(conn: &Connection, path: &Path) -> Result<(), Error> {
    let started = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)) {
            Ok(mode) if mode.eq_ignore_ascii_case("wal") => return Ok(()),
            Ok(mode) => {
                return Err(Error::Sqlite {
                    path: path.to_path_buf(),
                    message: format!("cannot use WAL mode (the journal mode stays {mode})"),
                });
            }
            Err(e)
                if e.sqlite_error_code() == Some(ErrorCode::DatabaseBusy)
                    && started.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => return Err(sql_error(path, e)),
        }
    }
}

/// Brings the schema to [`SCHEMA_VERSION`], refusing files that are not
/// ours or are newer.
fn migrate(conn: &mut Connection, path: &Path) -> Result<(), Error> {
    let err = |e| sql_error(path, e);
    let versions = |conn: &Connection| -> rusqlite::Result<(i32, i64)> {
        Ok((
            conn.query_row("PRAGMA application_id", [], |r| r.get(0))?,
            conn.query_row("PRAGMA user_version", [], |r| r.get(0))?,
        ))
    };
    if versions(conn).map_err(err)? == (APPLICATION_ID, SCHEMA_VERSION) {
        return Ok(());
    }
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(err)?;
    // Again inside the transaction: another process may have just done it.
    let (app, version) = versions(&tx).map_err(err)?;
    if app != APPLICATION_ID {
        let foreign = |reason: String| Error::Foreign {
            path: path.to_path_buf(),
            reason,
        };
        if app != 0 {
            return Err(foreign(format!(
                "its application id is {app:#x}, not skillhost's {APPLICATION_ID:#x}"
            )));
        }
        let objects: i64 = tx
            .query_row("SELECT COUNT(*) FROM sqlite_schema", [], |r| r.get(0))
            .map_err(err)?;
        if objects > 0 || version != 0 {
            return Err(foreign("it holds another program's tables".into()));
        }
        tx.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(err)?;
    }
    if version > SCHEMA_VERSION {
        return Err(Error::Newer {
            path: path.to_path_buf(),
            found: version,
            known: SCHEMA_VERSION,
        });
    }
    for step in MIGRATIONS
        .iter()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        tx.execute_batch(step).map_err(err)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(err)?;
    tx.commit().map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::usage::clock::{ManualClock, days};
    use std::time::UNIX_EPOCH;

    fn store_at(dir: &Path, clock: Arc<ManualClock>) -> UsageStore {
        UsageStore::open_with_clock(&dir.join("state/usage.db"), clock).unwrap()
    }

    fn invocation<'a>(skill: &'a str, outcome: Outcome) -> InvocationRecord<'a> {
        InvocationRecord {
            skill,
            source: "local:/skills",
            caller: "model",
            session: "s-1",
            outcome,
        }
    }

    #[test]
    fn a_new_store_is_marked_as_ours_in_wal_mode_at_the_current_version() {
        let dir = tempfile::tempdir().unwrap();
        let store = UsageStore::open(&dir.path().join("a/b/usage.db")).unwrap();
        let conn = store.lock();
        let mode: String = conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let app: i32 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .unwrap();
        assert_eq!(app, APPLICATION_ID);
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }

    #[test]
    fn usage_counts_uses_apart_from_refusals_and_keeps_first_seen() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(UNIX_EPOCH + days(1000.0)));
        let store = store_at(dir.path(), clock.clone());
        store.observe_skills(["review", "idle"]).unwrap();
        clock.advance(days(1.0));
        store
            .record_invocation(&invocation("review", Outcome::Inline))
            .unwrap();
        clock.advance(days(1.0));
        store
            .record_invocation(&invocation("review", Outcome::Fork))
            .unwrap();
        store
            .record_invocation(&invocation("review", Outcome::Refused))
            .unwrap();
        store
            .record_invocation(&invocation("fresh", Outcome::Failed))
            .unwrap();
        let usage = store.usage().unwrap();
        let review = &usage["review"];
        assert_eq!(review.count, 2);
        assert_eq!(review.unsuccessful, 1);
        assert_eq!(review.last_used, Some(UNIX_EPOCH + days(1002.0)));
        assert_eq!(review.first_seen, Some(UNIX_EPOCH + days(1000.0)));
        assert_eq!(usage["idle"].count, 0);
        assert_eq!(usage["idle"].first_seen, Some(UNIX_EPOCH + days(1000.0)));
        assert_eq!(usage["fresh"].last_used, None);
        assert_eq!(usage["fresh"].first_seen, Some(UNIX_EPOCH + days(1002.0)));
        assert_eq!(store.invocation_count().unwrap(), 4);
    }

    #[test]
    fn tool_calls_come_back_per_session_in_recorded_order() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_at(dir.path(), Arc::new(ManualClock::new(UNIX_EPOCH)));
        store.record_tool_calls("b", &["read", "edit"]).unwrap();
        store.record_tool_call("a", "search").unwrap();
        store.record_tool_call("b", "test").unwrap();
        assert_eq!(
            store.sessions().unwrap(),
            [
                ("a".to_string(), vec!["search".to_string()]),
                (
                    "b".to_string(),
                    vec!["read".to_string(), "edit".to_string(), "test".to_string()]
                ),
            ]
        );
        assert_eq!(store.tool_call_count().unwrap(), 4);
    }

    #[test]
    fn hostile_text_is_refused_before_it_reaches_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = store_at(dir.path(), Arc::new(ManualClock::new(UNIX_EPOCH)));
        let long = "x".repeat(MAX_FIELD_CHARS + 1);
        for (session, tool) in [("s", ""), ("", "t"), ("s", "a\nb"), ("s", long.as_str())] {
            assert!(matches!(
                store.record_tool_call(session, tool),
                Err(Error::Invalid { .. })
            ));
        }
        assert!(
            store
                .record_invocation(&invocation("", Outcome::Inline))
                .is_err()
        );
        assert_eq!(store.tool_call_count().unwrap(), 0);
    }

    #[test]
    fn runner_state_follows_heartbeats_pauses_and_reviews() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(UNIX_EPOCH + days(10.0)));
        let store = store_at(dir.path(), clock.clone());
        let state = store.runner_state().unwrap();
        assert_eq!(
            state,
            RunnerState {
                paused: false,
                last_activity: None,
                last_review: None
            }
        );
        store.heartbeat("serve").unwrap();
        clock.advance(days(1.0));
        store.heartbeat("cli").unwrap();
        store.set_paused(true).unwrap();
        let report = serde_json::json!({"skills": []});
        assert!(
            store
                .record_review("runner", &report, Some(days(7.0)))
                .unwrap()
        );
        clock.advance(days(1.0));
        assert!(
            !store
                .record_review("runner", &report, Some(days(7.0)))
                .unwrap(),
            "too soon after the last one"
        );
        let state = store.runner_state().unwrap();
        assert!(state.paused);
        assert_eq!(state.last_activity, Some(UNIX_EPOCH + days(11.0)));
        assert_eq!(state.last_review, Some(UNIX_EPOCH + days(11.0)));
        let last = store.last_review().unwrap().unwrap();
        assert_eq!((last.kind.as_str(), last.report), ("runner", report));
        store.set_paused(false).unwrap();
        assert!(!store.runner_state().unwrap().paused);
    }

    #[test]
    fn a_restore_restarts_the_grace_period() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(UNIX_EPOCH + days(1.0)));
        let store = store_at(dir.path(), clock.clone());
        store.observe_skills(["old"]).unwrap();
        clock.advance(days(100.0));
        store.observe_skills(["old"]).unwrap();
        assert_eq!(
            store.usage().unwrap()["old"].first_seen,
            Some(UNIX_EPOCH + days(1.0))
        );
        store.restart_grace("old").unwrap();
        assert_eq!(
            store.usage().unwrap()["old"].first_seen,
            Some(UNIX_EPOCH + days(101.0))
        );
    }
}
