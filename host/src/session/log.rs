//! The append-only session event log the catalog injector works over: the
//! embedder implements [`SessionLog`] over its own history;
//! [`JsonlLog`] is a file of one JSON object per line for the CLI.
//!
//! Events carry a type, a visibility flag (compaction clears it: the event
//! stays in the history but the model no longer sees it), and for catalog
//! events their source, digest (`sha256:<hex>`) and content. Scanning walks
//! backward over borrowed events; nothing is copied.

use crate::error::Error;
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Event type of a full catalog (replacement or tombstone).
pub const CATALOG: &str = "skill-catalog";
/// Event type of a delta listing for one agent.
pub const CATALOG_DELTA: &str = "skill-catalog-delta";
/// Event type recording conditional skills activated by touched files.
pub const ACTIVATED: &str = "skill-activated";
/// Event type recording skill folders discovered below the working folder.
pub const DISCOVERED: &str = "skill-roots-discovered";
/// Event type of a conversation clear: delta listings and activations reset.
pub const CLEAR: &str = "clear";

/// One event of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// What kind of event it is (`type` in JSON).
    pub kind: String,
    /// Whether the model still sees it (compaction clears this).
    pub visible: bool,
    /// Who published it (catalog events).
    pub source: Option<String>,
    /// `sha256:<hex>` of `content` (catalog events).
    pub digest: Option<String>,
    /// The text the model sees (catalog events).
    pub content: Option<String>,
    /// The agent it is for (delta listings, clears).
    pub agent: Option<String>,
    /// Skill names (delta listings, activations) or root paths (discoveries).
    pub items: Vec<String>,
    /// Any other fields, kept as they were.
    pub other: Map<String, Value>,
}

impl Event {
    /// An event of `kind`, visible, with nothing else set.
    pub fn new(kind: &str) -> Self {
        Event {
            kind: kind.to_string(),
            visible: true,
            source: None,
            digest: None,
            content: None,
            agent: None,
            items: Vec::new(),
            other: Map::new(),
        }
    }

    /// The JSON object of this event.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), json!(self.kind));
        out.insert("visible".into(), json!(self.visible));
        for (key, value) in [
            ("source", &self.source),
            ("digest", &self.digest),
            ("content", &self.content),
            ("agent", &self.agent),
        ] {
            if let Some(value) = value {
                out.insert(key.into(), json!(value));
            }
        }
        if !self.items.is_empty() {
            out.insert("items".into(), json!(self.items));
        }
        for (key, value) in &self.other {
            out.entry(key.clone()).or_insert_with(|| value.clone());
        }
        Value::Object(out)
    }

    /// Reads an event from its JSON object; `None` if it has no `type`.
    pub fn from_json(value: Value) -> Option<Self> {
        let Value::Object(mut map) = value else {
            return None;
        };
        let text = |map: &mut Map<String, Value>, key: &str| match map.remove(key) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let kind = text(&mut map, "type")?;
        let visible = !matches!(map.remove("visible"), Some(Value::Bool(false)));
        let items = match map.remove("items") {
            Some(Value::Array(items)) => items
                .into_iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        };
        Some(Event {
            kind,
            visible,
            source: text(&mut map, "source"),
            digest: text(&mut map, "digest"),
            content: text(&mut map, "content"),
            agent: text(&mut map, "agent"),
            items,
            other: map,
        })
    }
}

/// An append-only session history, as the embedder keeps it.
pub trait SessionLog {
    /// How many events there are.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The event at `index` (0 is the oldest), borrowed.
    fn get(&self, index: usize) -> Option<&Event>;
    /// Appends an event durably.
    fn append(&mut self, event: Event) -> Result<(), Error>;
}

/// Walks the log backward (newest first) without copying it.
pub fn backward(log: &dyn SessionLog) -> impl Iterator<Item = &Event> {
    (0..log.len()).rev().filter_map(move |i| log.get(i))
}

/// A session log kept in memory (tests, embedders without persistence).
#[derive(Debug, Default, Clone)]
pub struct MemoryLog {
    /// The events, oldest first.
    pub events: Vec<Event>,
}

impl SessionLog for MemoryLog {
    fn len(&self) -> usize {
        self.events.len()
    }

    fn get(&self, index: usize) -> Option<&Event> {
        self.events.get(index)
    }

    fn append(&mut self, event: Event) -> Result<(), Error> {
        self.events.push(event);
        Ok(())
    }
}

/// Largest session log read, in bytes.
pub const MAX_LOG_BYTES: u64 = 1024 * 1024 * 1024;

/// A session log in a JSONL file: one JSON object per line, appended to.
///
/// The file is data, not authority, and may have been written by anything:
/// a line that is not UTF-8, not JSON, or cut short by a writer killed
/// mid-append is skipped with a warning (and kept in the file), never a
/// reason to fail. Appends take an exclusive lock and write the whole
/// line at once, so two processes appending to one log never interleave
/// inside a line; a torn last line gets a newline first, so nothing
/// earlier is lost.
pub struct JsonlLog {
    path: PathBuf,
    events: Vec<Event>,
    warnings: Vec<String>,
}

impl JsonlLog {
    /// Opens (or starts) the log at `path`.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let bytes = match crate::paths::read_regular(path, MAX_LOG_BYTES) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io(e)),
        };
        let mut events = Vec::new();
        let mut warnings = Vec::new();
        let last = bytes.split(|&b| b == b'\n').count();
        for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let number = index + 1;
            let Ok(text) = std::str::from_utf8(line) else {
                warnings.push(format!("{}:{number}: not UTF-8; skipped", path.display()));
                continue;
            };
            match serde_json::from_str(text).map(Event::from_json) {
                Ok(Some(event)) => events.push(event),
                // Another tool's line (an object without a type, say).
                Ok(None) => {}
                Err(_) if number == last => warnings.push(format!(
                    "{}:{number}: the last line is cut short (a write was interrupted); skipped",
                    path.display()
                )),
                Err(e) => warnings.push(format!(
                    "{}:{number}: not a JSON event ({e}); skipped",
                    path.display()
                )),
            }
        }
        for warning in &warnings {
            tracing::warn!("{warning}");
        }
        Ok(JsonlLog {
            path: path.to_path_buf(),
            events,
            warnings,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The lines skipped when the log was read, and why.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

impl SessionLog for JsonlLog {
    fn len(&self) -> usize {
        self.events.len()
    }

    fn get(&self, index: usize) -> Option<&Event> {
        self.events.get(index)
    }

    fn append(&mut self, event: Event) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        let mut line =
            serde_json::to_string(&event.to_json()).map_err(|e| io(std::io::Error::other(e)))?;
        line.push('\n');
        let mut file = crate::paths::open_regular(
            &self.path,
            std::fs::OpenOptions::new()
                .create(true)
                .read(true)
                .append(true),
        )
        .map_err(io)?;
        file.lock().map_err(io)?;
        let appended = append_line(&mut file, &line);
        let _ = file.unlock();
        appended.map_err(io)?;
        self.events.push(event);
        Ok(())
    }
}

/// Appends `line` as one write, after a newline if the file's last line
/// was cut short; called with the file locked.
fn append_line(file: &mut std::fs::File, line: &str) -> std::io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut out = Vec::with_capacity(line.len() + 1);
    if file.metadata()?.len() > 0 {
        file.seek(SeekFrom::End(-1))?;
        let mut last = [0u8; 1];
        file.read_exact(&mut last)?;
        if last[0] != b'\n' {
            out.push(b'\n');
        }
    }
    out.extend_from_slice(line.as_bytes());
    // O_APPEND puts the write at the end whatever the read position.
    file.write_all(&out)?;
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_jsonl_keeping_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        std::fs::write(
            &path,
            "{\"type\":\"user\",\"visible\":true,\"text\":\"hi\"}\nnot json\n{\"type\":\"tool\"}",
        )
        .unwrap();
        let mut log = JsonlLog::open(&path).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log.get(0).unwrap().other["text"], "hi");
        let mut event = Event::new(CATALOG);
        event.source = Some("skillhost".into());
        event.digest = Some("sha256:00".into());
        event.content = Some("<available_skills>\n</available_skills>".into());
        log.append(event.clone()).unwrap();
        let reopened = JsonlLog::open(&path).unwrap();
        assert_eq!(reopened.len(), 3);
        assert_eq!(reopened.get(2), Some(&event));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines().any(|l| l == "not json"),
            "foreign lines are kept"
        );
    }

    #[test]
    fn broken_lines_are_skipped_with_a_warning_and_nothing_earlier_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let mut bytes = b"{\"type\":\"user\"}\n".to_vec();
        bytes.extend_from_slice(b"\xff\xfe not utf-8\n");
        bytes.extend_from_slice(b"{\"type\":\"tool\"}\n");
        bytes.extend_from_slice(b"{\"type\":\"skill-cat");
        std::fs::write(&path, &bytes).unwrap();
        let mut log = JsonlLog::open(&path).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log.warnings().len(), 2, "{:?}", log.warnings());
        assert!(log.warnings()[0].contains(":2: not UTF-8"));
        assert!(log.warnings()[1].contains(":4: the last line is cut short"));
        log.append(Event::new("after")).unwrap();
        let reopened = JsonlLog::open(&path).unwrap();
        let kinds: Vec<&str> = (0..reopened.len())
            .map(|i| reopened.get(i).unwrap().kind.as_str())
            .collect();
        assert_eq!(kinds, ["user", "tool", "after"]);
    }

    #[test]
    fn backward_walks_newest_first() {
        let mut log = MemoryLog::default();
        for kind in ["a", "b", "c"] {
            log.append(Event::new(kind)).unwrap();
        }
        let kinds: Vec<&str> = backward(&log).map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["c", "b", "a"]);
    }
}
