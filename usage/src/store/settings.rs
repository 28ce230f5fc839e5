//! The `settings` table: switches every process sharing the store reads
//! (the runner's pause), and the one archive `curate --undo` moves back.

use super::{UsageStore, none_if_empty};
use crate::error::Error;
use rusqlite::params;

impl UsageStore {
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

    /// Keeps `batch` (the JSON of what the latest `curate --archive` moved)
    /// as the one `curate --undo` moves back; `None` forgets it (undone).
    pub fn set_last_archive(&self, batch: Option<&serde_json::Value>) -> Result<(), Error> {
        let text = batch.map(serde_json::Value::to_string);
        self.write(|tx| match &text {
            Some(text) => tx
                .execute(
                    "INSERT INTO settings (key, value) VALUES ('last_archive', ?1)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    params![text],
                )
                .map(drop),
            None => tx
                .execute("DELETE FROM settings WHERE key = 'last_archive'", [])
                .map(drop),
        })
    }

    /// What the latest `curate --archive` moved, if it was not undone.
    pub fn last_archive(&self) -> Result<Option<serde_json::Value>, Error> {
        let conn = self.lock();
        let text: Option<String> = conn
            .query_row(
                "SELECT value FROM settings WHERE key = 'last_archive'",
                [],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(none_if_empty)
            .map_err(|e| self.err(e))?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }
}
