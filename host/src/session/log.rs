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
/// Event type of one tool call the agent made; its `tool` field names the
/// tool (read by the usage layer's pattern detection).
pub const TOOL_CALL: &str = "tool-call";

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
/// Longest line of a session log read, in bytes; a longer one is skipped
/// (skillhost's own events stay far below: a catalog of 10,000 skills is
/// about 2 MB).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The event types skillhost reads back; any other event is kept by type
/// and visibility only.
const OURS: [&str; 6] = [
    CATALOG,
    CATALOG_DELTA,
    ACTIVATED,
    DISCOVERED,
    CLEAR,
    TOOL_CALL,
];

/// What of a read event is held in memory.
fn kept(event: Event) -> Event {
    if OURS.contains(&event.kind.as_str()) {
        return event;
    }
    Event {
        visible: event.visible,
        ..Event::new(&event.kind)
    }
}

/// One line read by [`read_line`].
struct Line {
    /// Bytes consumed, newline included (0 at the end of the file).
    bytes: u64,
    /// Whether it ended with a newline (else it is the file's cut-short last).
    ended: bool,
    /// Whether it was longer than the cap (then `line` holds nothing of it).
    too_long: bool,
}

/// Reads the next line into `line` (newline left out), holding at most
/// `cap` bytes of it: a longer line is consumed to its end and dropped.
fn read_line(
    reader: &mut impl std::io::BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut out = Line {
        bytes: 0,
        ended: false,
        too_long: false,
    };
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(out);
        }
        let newline = buffer.iter().position(|b| *b == b'\n');
        let part = &buffer[..newline.unwrap_or(buffer.len())];
        if !out.too_long {
            if line.len() + part.len() > cap {
                out.too_long = true;
                *line = Vec::new();
            } else {
                line.extend_from_slice(part);
            }
        }
        let used = part.len() + usize::from(newline.is_some());
        reader.consume(used);
        out.bytes += used as u64;
        if newline.is_some() {
            out.ended = true;
            return Ok(out);
        }
    }
}

/// Reads the JSONL log at `path` a line at a time, handing each event to
/// `each` as [`JsonlLog`] keeps it; returns the lines skipped and why (each
/// also logged). A missing file is an empty log. Nothing but the current
/// line is held, so a caller that keeps little (`learn` keeps tool names)
/// reads a 1 GiB log in little memory.
pub fn read_events(path: &Path, mut each: impl FnMut(Event)) -> Result<Vec<String>, Error> {
    let io = |error| Error::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut warnings = Vec::new();
    let file = match crate::paths::open_regular(path, std::fs::OpenOptions::new().read(true)) {
        Ok(file) => Some(file),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io(e)),
    };
    if let Some(file) = file {
        let mut reader = std::io::BufReader::with_capacity(
            64 * 1024,
            std::io::Read::take(file, MAX_LOG_BYTES.saturating_add(1)),
        );
        let mut line = Vec::new();
        let mut total = 0u64;
        let mut number = 0usize;
        loop {
            let read = read_line(&mut reader, &mut line, MAX_LINE_BYTES).map_err(io)?;
            if read.bytes == 0 {
                break;
            }
            total += read.bytes;
            number += 1;
            if total > MAX_LOG_BYTES {
                return Err(io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("larger than {MAX_LOG_BYTES} bytes"),
                )));
            }
            if read.too_long {
                warnings.push(format!(
                    "{}:{number}: longer than {MAX_LINE_BYTES} bytes; skipped",
                    path.display()
                ));
                continue;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let Ok(text) = std::str::from_utf8(&line) else {
                warnings.push(format!("{}:{number}: not UTF-8; skipped", path.display()));
                continue;
            };
            match serde_json::from_str(text).map(Event::from_json) {
                Ok(Some(event)) => each(kept(event)),
                // Another tool's line (an object without a type, say).
                Ok(None) => {}
                Err(_) if !read.ended => warnings.push(format!(
                    "{}:{number}: the last line is cut short (a write was interrupted); skipped",
                    path.display()
                )),
                Err(e) => warnings.push(format!(
                    "{}:{number}: not a JSON event ({e}); skipped",
                    path.display()
                )),
            }
        }
    }
    for warning in &warnings {
        tracing::warn!("{warning}");
    }
    Ok(warnings)
}

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
    ///
    /// It is read a line at a time, never whole: a line over
    /// [`MAX_LINE_BYTES`] is skipped without being held, and an event of a
    /// type skillhost does not use (the agent's own messages, tool output)
    /// keeps only its type and visibility in memory; its payload stays in the
    /// file. So memory follows skillhost's own events, not the log's size.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let mut events = Vec::new();
        let warnings = read_events(path, |event| events.push(event))?;
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
        let io = |error| Error::Io {
            path: self.path.clone(),
            error,
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
        // Another type's payload stays in the file, not in memory.
        let user = log.get(0).unwrap();
        assert_eq!((user.kind.as_str(), user.visible), ("user", true));
        assert!(user.other.is_empty());
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
    fn a_line_over_the_cap_is_skipped_without_being_held_and_the_rest_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        let mut catalog = Event::new(CATALOG);
        catalog.source = Some("skillhost".into());
        catalog.content = Some("listing".into());
        catalog.other.insert("extra".into(), json!(1));
        let mut bytes = format!("{}\n", catalog.to_json()).into_bytes();
        bytes.extend(std::iter::repeat_n(b'a', MAX_LINE_BYTES + 1));
        bytes
            .extend_from_slice(b"\n{\"type\":\"assistant\",\"visible\":false,\"text\":\"long\"}\n");
        std::fs::write(&path, &bytes).unwrap();
        let log = JsonlLog::open(&path).unwrap();
        assert_eq!(log.warnings().len(), 1, "{:?}", log.warnings());
        assert!(
            log.warnings()[0].contains(&format!(":2: longer than {MAX_LINE_BYTES} bytes")),
            "{:?}",
            log.warnings()
        );
        assert_eq!(log.len(), 2);
        assert_eq!(
            log.get(0),
            Some(&catalog),
            "skillhost's events are kept whole"
        );
        let assistant = log.get(1).unwrap();
        assert_eq!(
            (assistant.kind.as_str(), assistant.visible),
            ("assistant", false)
        );
        assert!(assistant.other.is_empty());
    }

    #[test]
    fn lines_are_read_across_buffer_boundaries_and_a_final_line_without_newline() {
        let text = "one\ntwo\n\nthree";
        let mut reader = std::io::BufReader::with_capacity(2, text.as_bytes());
        let mut line = Vec::new();
        let mut seen = Vec::new();
        loop {
            let read = read_line(&mut reader, &mut line, 4).unwrap();
            if read.bytes == 0 {
                break;
            }
            seen.push((
                String::from_utf8(line.clone()).unwrap(),
                read.ended,
                read.too_long,
            ));
        }
        assert_eq!(
            seen,
            [
                ("one".to_string(), true, false),
                ("two".to_string(), true, false),
                (String::new(), true, false),
                (String::new(), false, true),
            ]
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
