//! Appends events to a session log, as another agent process would: used
//! by the tests that run several writers at once, or kill one mid-write.
//!
//! `skillhost-append LOG COUNT SIZE LABEL` appends COUNT events whose
//! content is SIZE bytes, each tagged with LABEL and its number.

use skillhost::session::log::{CATALOG, Event};
use skillhost::session::{JsonlLog, SessionLog};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, log, count, size, label] = &args[..] else {
        return Err("usage: skillhost-append LOG COUNT SIZE LABEL".into());
    };
    let count: usize = count.parse()?;
    let size: usize = size.parse()?;
    let mut log = JsonlLog::open(Path::new(log))?;
    for i in 0..count {
        // A type skillhost reads back, so its fields are held when read.
        let mut event = Event::new(CATALOG);
        event.source = Some(format!("{label}-{i}"));
        event.content = Some(label.repeat(size / label.len().max(1) + 1));
        log.append(event)?;
    }
    Ok(())
}
