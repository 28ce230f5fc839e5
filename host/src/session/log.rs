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

/// A session log in a JSONL file: one JSON object per line, appended to.
pub struct JsonlLog {
    path: PathBuf,
    events: Vec<Event>,
}

impl JsonlLog {
    /// Opens (or starts) the log at `path`. Lines that are not JSON objects
    /// with a `type` are kept in the file and skipped here.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(io(e)),
        };
        let events = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| serde_json::from_str(l).ok().and_then(Event::from_json))
            .collect();
        Ok(JsonlLog {
            path: path.to_path_buf(),
            events,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
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
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .map_err(io)?;
        // A file that does not end with a newline (a torn write) gets one
        // first, so this event is a line of its own.
        let length = file.metadata().map_err(io)?.len();
        if length > 0 && !ends_with_newline(&self.path).map_err(io)? {
            file.write_all(b"\n").map_err(io)?;
        }
        file.write_all(line.as_bytes()).map_err(io)?;
        file.sync_data().map_err(io)?;
        self.events.push(event);
        Ok(())
    }
}

fn ends_with_newline(path: &Path) -> std::io::Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::End(-1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
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
    fn backward_walks_newest_first() {
        let mut log = MemoryLog::default();
        for kind in ["a", "b", "c"] {
            log.append(Event::new(kind)).unwrap();
        }
        let kinds: Vec<&str> = backward(&log).map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["c", "b", "a"]);
    }
}
