//! The three batched calls a refresh makes: stat the suspect links, stat
//! the suspect documents that have a stamp (the unchanged ones settle
//! without a read), and read the rest.

use crate::entry::{Entry, Kind, State, note};
use crate::fs::Failure;
use crate::ledger::Ledger;
use skillhost_guest_sdk::files::{self, EntryKind, FsError};
use skillhost_guest_sdk::host;
use skillhost_guest_sdk::skill::frontmatter::{MAX_DOCUMENT_BYTES, too_large};
use skillhost_guest_sdk::skill::layout::{self, LOWERCASE_SKILL_FILE, SKILL_FILE};
use skillhost_guest_sdk::skill::reads::{BATCH, READ_AHEAD_FROM};
use skillhost_guest_sdk::{Severity, SkillEntry};

/// Learns what each suspect symlink points at (one batched stat).
pub fn resolve_links(mut links: Vec<&mut Entry>, ledger: &mut Ledger) {
    if links.is_empty() {
        return;
    }
    let paths: Vec<String> = links.iter().map(|e| e.path.clone()).collect();
    let answers = files::stat_paths(&paths);
    for (entry, answer) in links.iter_mut().zip(answers) {
        let name = entry
            .path
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string();
        match answer.map_err(Failure::from) {
            Ok(info) if info.kind == EntryKind::Directory => {
                // A folder read through its `skill.md` keeps it until a read
                // finds a `SKILL.md`: re-resolving the link changes nothing.
                let lowercase = format!("{}/{LOWERCASE_SKILL_FILE}", entry.path);
                let doc = if entry.doc == lowercase {
                    lowercase
                } else {
                    format!("{}/{SKILL_FILE}", entry.path)
                };
                let base = entry.path.clone();
                entry.retarget(Kind::Bundle, doc, base, ledger);
            }
            Ok(info) if info.kind == EntryKind::File && layout::markdown_stem(&name).is_some() => {
                let doc = entry.path.clone();
                // A flat skill's relative paths resolve against its root.
                let base = entry
                    .path
                    .rsplit_once('/')
                    .map_or_else(|| entry.path.clone(), |(root, _)| root.to_string());
                entry.default_name = layout::markdown_stem(&name).unwrap_or_default().to_string();
                entry.retarget(Kind::Flat, doc, base, ledger);
            }
            Ok(_) => entry.settle(State::NotSkill(None), ledger),
            Err(Failure::Missing) => entry.settle(
                State::NotSkill(Some((
                    Severity::Error,
                    note("dangling symlink: its target does not exist"),
                ))),
                ledger,
            ),
            Err(Failure::Transient(m)) => entry.fail(format!("cannot follow symlink: {m}"), ledger),
            Err(e) => entry.settle(
                State::NotSkill(Some((
                    Severity::Error,
                    note(&format!("cannot follow symlink: {e}")),
                ))),
                ledger,
            ),
        }
    }
}

/// Stats every suspect document that has a stamp (one batched call); the
/// unchanged ones are settled without a read.
pub fn check_stamps(mut entries: Vec<&mut Entry>, ledger: &mut Ledger) {
    if entries.is_empty() {
        return;
    }
    let paths: Vec<String> = entries.iter().map(|e| e.doc.clone()).collect();
    let answers = files::stat_paths(&paths);
    for (entry, answer) in entries.iter_mut().zip(answers) {
        match answer.map_err(Failure::from) {
            Ok(info) if info.kind == EntryKind::File && Some(info.stamp) == entry.stamp => {
                entry.suspect = false;
                if entry.transient.take().is_some() {
                    ledger.changes.touched();
                }
            }
            Ok(_) => entry.stamp = None,
            // A bundle whose `SKILL.md` went may still have a `skill.md`:
            // the read looks.
            Err(Failure::Missing) if entry.kind == Kind::Bundle => entry.stamp = None,
            Err(Failure::Missing) => {
                entry.stamp = None;
                entry.settle(State::NotSkill(None), ledger);
            }
            Err(Failure::Transient(m)) => entry.fail(format!("cannot read: {m}"), ledger),
            Err(_) => entry.stamp = None,
        }
    }
}

/// Reads and parses the given documents' frontmatter (batched reads,
/// announced for read-ahead when there are many). Only the frontmatter
/// crosses into the sandbox: a snapshot needs no body. With `send_ahead`,
/// the skills of each batch go to the host once it is parsed (each entry
/// is settled by then: only the entries it skips are read again below).
pub fn read_documents(mut entries: Vec<&mut Entry>, ledger: &mut Ledger, send_ahead: bool) {
    entries.retain_mut(|entry| {
        let name = entry.path.rsplit('/').next().unwrap_or_default();
        if entry.flat && layout::is_misplaced_document(name) {
            let warning = note(&format!(
                "a {name} directly in a skills root is not a skill; use its parent folder as the root"
            ));
            entry.settle(State::NotSkill(Some((Severity::Warning, warning))), ledger);
            return false;
        }
        true
    });
    if entries.is_empty() {
        return;
    }
    let paths: Vec<String> = entries.iter().map(|e| e.first_doc()).collect();
    if paths.len() >= READ_AHEAD_FROM {
        // Parse each batch while the host reads the next ones.
        files::prefetch(&paths, MAX_DOCUMENT_BYTES);
    }
    // Bundles without a `SKILL.md`, to be read again through their `skill.md`.
    let mut lowercase = vec![false; entries.len()];
    let mut offset = 0;
    for (batch, paths) in entries.chunks_mut(BATCH).zip(paths.chunks(BATCH)) {
        let result = files::read_frontmatters(paths, MAX_DOCUMENT_BYTES);
        for (index, entry) in batch.iter_mut().enumerate() {
            let read = files::file(&result, index);
            if entry.kind == Kind::Bundle && matches!(read, Err(FsError::NotFound)) {
                lowercase[offset + index] = true;
                continue;
            }
            read_document(entry, &paths[index], read, ledger);
        }
        offset += batch.len();
        if send_ahead {
            send(batch);
        }
    }
    if !lowercase.contains(&true) {
        return;
    }
    let mut second: Vec<&mut Entry> = entries
        .into_iter()
        .zip(lowercase)
        .filter_map(|(e, again)| again.then_some(e))
        .collect();
    let paths: Vec<String> = second.iter().filter_map(|e| e.lowercase_doc()).collect();
    for (batch, paths) in second.chunks_mut(BATCH).zip(paths.chunks(BATCH)) {
        let result = files::read_frontmatters(paths, MAX_DOCUMENT_BYTES);
        for (index, entry) in batch.iter_mut().enumerate() {
            let read = files::file(&result, index);
            // Neither name is there: the folder is known by its `SKILL.md`.
            let doc = if matches!(read, Err(FsError::NotFound)) {
                entry.first_doc()
            } else {
                paths[index].clone()
            };
            read_document(entry, &doc, read, ledger);
        }
        if send_ahead {
            send(batch);
        }
    }
}

/// Sends the skills parsed in `batch` to the host ahead of the answer;
/// they leave the catalog's keeping as if sent with it.
fn send(batch: &mut [&mut Entry]) {
    let parsed: Vec<SkillEntry> = batch.iter_mut().filter_map(|e| e.take_pending()).collect();
    if !parsed.is_empty() {
        host::emit_skills(&parsed);
    }
}

/// Settles `entry` from what reading its document `doc` gave (a bundle's
/// document may have moved between `SKILL.md` and `skill.md`).
fn read_document(
    entry: &mut Entry,
    doc: &str,
    read: Result<(&[u8], files::Stamp), files::FsError>,
    ledger: &mut Ledger,
) {
    let read = match read.map_err(Failure::from) {
        Err(Failure::Transient(m)) => {
            // A failed read proves nothing: the entry keeps its document.
            entry.fail(format!("cannot read: {m}"), ledger);
            return;
        }
        other => other,
    };
    if doc != entry.doc {
        let (kind, base) = (entry.kind, entry.base.clone());
        entry.retarget(kind, doc.to_string(), base, ledger);
    }
    let state = match read {
        Ok((bytes, stamp)) => {
            entry.stamp = Some(stamp);
            entry.parse(bytes)
        }
        Err(failure) => {
            // Only a state read from the file has a stamp to keep.
            entry.stamp = None;
            match failure {
                Failure::Missing => State::NotSkill(None),
                Failure::TooLarge(n) => State::Broken(too_large(n)),
                other => State::Broken(note(&format!("cannot read: {other}"))),
            }
        }
    };
    entry.settle(state, ledger);
}
