//! Records into a usage store from its own process, for the tests that
//! need several real writers or one killed mid-transaction.
//!
//! - `usage-writer DB invocations N LABEL`: N invocations of skill LABEL,
//!   one transaction each, printing `committed I` after each commit;
//! - `usage-writer DB hold N`: N committed invocations (`committed N`), then
//!   a transaction inserting many more rows that is never committed
//!   (`holding`), then sleeps until killed.

use skillhost_usage::UsageStore;
use skillhost_usage::store::{InvocationRecord, Outcome};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

fn record(store: &UsageStore, skill: &str, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut out = std::io::stdout().lock();
    for i in 1..=n {
        store.record_invocation(&InvocationRecord {
            skill,
            source: "usage-writer",
            caller: "model",
            session: &format!("writer-{}", std::process::id()),
            outcome: Outcome::Inline,
        })?;
        writeln!(out, "committed {i}")?;
        out.flush()?;
    }
    Ok(())
}

fn run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let [db, mode, n, rest @ ..] = args else {
        return Err("usage: usage-writer DB (invocations N LABEL | hold N)".into());
    };
    let path = Path::new(db);
    let n: usize = n.parse()?;
    let store = UsageStore::open(path)?;
    match (mode.as_str(), rest) {
        ("invocations", [label]) => record(&store, label, n),
        ("hold", []) => {
            record(&store, "committed", n)?;
            drop(store);
            let mut conn = rusqlite::Connection::open(path)?;
            let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            // Enough rows to spill out of the page cache into the WAL file.
            for i in 0..100_000 {
                tx.execute(
                    "INSERT INTO invocations (skill, source, caller, session, at_ms, outcome)
                     VALUES (?1, 'usage-writer', 'model', 'held', 0, 'inline')",
                    [format!("uncommitted-{i}-{}", "x".repeat(64))],
                )?;
            }
            println!("holding");
            std::io::stdout().flush()?;
            loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
            }
        }
        _ => Err(format!("unknown mode {mode}").into()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("usage-writer: {e}");
            ExitCode::FAILURE
        }
    }
}
