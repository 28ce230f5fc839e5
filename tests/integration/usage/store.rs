//! The store's file under concurrent writers, killed writers and hostile files.

use super::db;
use skillhost_usage::store::SCHEMA_VERSION;
use skillhost_usage::{Error, UsageStore};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

fn writer(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_usage-writer"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the writer starts")
}

#[test]
fn two_processes_recording_1000_invocations_each_leave_2000_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    let path_arg = path.to_str().unwrap();
    // Both start on a store that does not exist yet: creation races too.
    let a = writer(&[path_arg, "invocations", "1000", "alpha"]);
    let b = writer(&[path_arg, "invocations", "1000", "beta"]);
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let lines = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(lines, 1000);
    }
    let store = UsageStore::open(&path).unwrap();
    assert_eq!(store.invocation_count().unwrap(), 2000);
    let usage = store.usage().unwrap();
    assert_eq!((usage["alpha"].count, usage["beta"].count), (1000, 1000));
    store.check_integrity().unwrap();
}

/// Reads the writer's lines until one equals `until`; returns the last
/// `committed N` seen.
fn read_until(child: &mut Child, until: &dyn Fn(&str) -> bool) -> u64 {
    let stdout = child.stdout.as_mut().expect("piped stdout");
    let mut last = 0;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("a line from the writer");
        if let Some(n) = line.strip_prefix("committed ") {
            last = n.parse().expect("a count");
        }
        if until(&line) {
            return last;
        }
    }
    panic!("the writer ended before saying so (last committed {last})");
}

#[test]
fn a_writer_killed_in_an_open_transaction_loses_nothing_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    let mut child = writer(&[path.to_str().unwrap(), "hold", "300"]);
    let committed = read_until(&mut child, &|l| l == "holding");
    assert_eq!(committed, 300);
    assert!(
        path.with_extension("db-wal").metadata().unwrap().len() > 0,
        "the open transaction spilled into the WAL"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let store = UsageStore::open(&path).unwrap();
    store.check_integrity().unwrap();
    assert_eq!(store.invocation_count().unwrap(), 300);
    assert!(
        !store
            .usage()
            .unwrap()
            .keys()
            .any(|k| k.starts_with("uncommitted")),
        "nothing of the killed transaction is visible"
    );
    // The dead writer's lock is gone: writing goes on.
    store.record_tool_call("after", "read_file").unwrap();
    assert_eq!(store.tool_call_count().unwrap(), 1);
}

#[test]
fn a_writer_killed_while_committing_keeps_every_acknowledged_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    let mut child = writer(&[path.to_str().unwrap(), "invocations", "1000000", "busy"]);
    let acknowledged = read_until(&mut child, &|l| l == "committed 500");
    child.kill().unwrap();
    child.wait().unwrap();
    let store = UsageStore::open(&path).unwrap();
    store.check_integrity().unwrap();
    let count = store.invocation_count().unwrap();
    assert!(
        count >= acknowledged,
        "{count} rows, {acknowledged} acknowledged"
    );
    assert_eq!(store.usage().unwrap()["busy"].count, count);
}

#[test]
fn a_file_that_is_not_sqlite_is_named_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let garbage: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&path, &garbage).unwrap();
    let err = UsageStore::open(&path).unwrap_err();
    assert!(matches!(err, Error::Foreign { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(path.to_str().unwrap()), "{message}");
    assert!(message.contains("not an SQLite database"), "{message}");
    assert_eq!(std::fs::read(&path).unwrap(), garbage, "never replaced");
}

#[test]
fn a_damaged_database_file_is_named_in_the_error_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    {
        let store = UsageStore::open(&path).unwrap();
        for i in 0..3000 {
            store
                .record_tool_call(&format!("session-{}", i % 40), &format!("tool-{i}"))
                .unwrap();
        }
    }
    // The last connection closed: the WAL is folded into the file. Scribble
    // over the pages after the first (the header stays valid).
    let mut bytes = std::fs::read(&path).unwrap();
    assert!(bytes.len() > 16 * 4096, "{} bytes", bytes.len());
    for (i, b) in bytes.iter_mut().enumerate().skip(4096) {
        *b = (i * 13 % 256) as u8;
    }
    std::fs::write(&path, &bytes).unwrap();
    let err = UsageStore::open(&path)
        .and_then(|store| store.sessions().map(drop).and(store.check_integrity()))
        .unwrap_err();
    assert!(matches!(err, Error::Damaged { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(path.to_str().unwrap()), "{message}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "never replaced");
}

#[test]
fn another_programs_database_is_refused_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');")
            .unwrap();
    }
    let err = UsageStore::open(&path).unwrap_err();
    assert!(matches!(err, Error::Foreign { .. }), "{err:?}");
    assert!(err.to_string().contains(path.to_str().unwrap()));
    let conn = rusqlite::Connection::open(&path).unwrap();
    let text: String = conn
        .query_row("SELECT text FROM notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(text, "mine");
}

#[test]
fn a_store_from_a_newer_skillhost_is_refused_and_reopening_ours_migrates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = db(dir.path());
    drop(UsageStore::open(&path).unwrap());
    // Opening again keeps the version and the data.
    {
        let store = UsageStore::open(&path).unwrap();
        store.record_tool_call("s", "t").unwrap();
    }
    let store = UsageStore::open(&path).unwrap();
    assert_eq!(store.tool_call_count().unwrap(), 1);
    drop(store);
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
            .unwrap();
    }
    let err = UsageStore::open(&path).unwrap_err();
    assert!(
        matches!(err, Error::Newer { found, known, .. } if found == SCHEMA_VERSION + 1 && known == SCHEMA_VERSION),
        "{err:?}"
    );
    assert!(err.to_string().contains(path.to_str().unwrap()));
}
