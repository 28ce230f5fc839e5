//! The store's file: its schema and migrations, WAL mode, and telling a
//! skillhost usage store from anything else found at its path.

use super::error::Error;
use rusqlite::{Connection, ErrorCode, TransactionBehavior};
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// What `PRAGMA application_id` holds in a skillhost usage store ("SKUS").
pub const APPLICATION_ID: i32 = 0x534B_5553;
/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 1;
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

/// How long a write waits for other processes' transactions.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

pub(super) fn sql_error(path: &Path, e: rusqlite::Error) -> Error {
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
pub(super) fn check_header(path: &Path) -> Result<(), Error> {
    // A FIFO or device where the store should be is refused, not waited on.
    let mut file =
        match skillhost::paths::open_regular(path, std::fs::OpenOptions::new().read(true)) {
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
pub(super) fn set_wal(conn: &Connection, path: &Path) -> Result<(), Error> {
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
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), Error> {
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
