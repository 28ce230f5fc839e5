//! Discovery state: every entry of every root, what it turned out to be,
//! and when that last changed, so a snapshot re-examines only what may have
//! changed and sends the host only what did.
//!
//! All file access goes through the host's bulk `files` capability: one call
//! lists a root, one stats every suspect document, one reads every document
//! that must be parsed again.

use crate::fs::Failure;
use skillhost_guest_sdk::files::{self, EntryKind, Stamp};
use skillhost_guest_sdk::frontmatter::{
    Finding, MAX_DOCUMENT_BYTES, parse_document, starts_with_frontmatter, too_large,
};
use skillhost_guest_sdk::{
    Diagnostic, Severity, SkillEntry, to_wit_diagnostic, to_wit_frontmatter,
};
use std::collections::BTreeMap;

/// Documents read per `read-files` call.
const BATCH: usize = 64;
/// From this many documents on, they are announced for read-ahead first.
const READ_AHEAD_FROM: usize = 2 * BATCH;

/// The document file of a bundle skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// What an entry turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Not examined yet.
    Unknown,
    /// Not a skill (a folder without `SKILL.md`, a flat file without
    /// frontmatter), possibly with something worth reporting.
    NotSkill(Option<(Severity, Finding)>),
    /// A skill.
    Skill(Skill),
    /// A document that cannot be a skill until someone fixes it.
    Broken(Finding),
}

/// What the provider keeps of a skill between calls: enough to tell whether
/// it changed, not the whole entry (which the host holds once sent).
#[derive(Debug, Clone)]
pub struct Skill {
    /// Its name.
    pub name: String,
    /// The verbatim frontmatter: the parsed entry is a function of it.
    raw: String,
    /// Problems that did not stop it loading.
    warnings: Vec<Finding>,
    /// The parsed entry, until it is sent to the host.
    pending: Option<Box<SkillEntry>>,
}

impl PartialEq for Skill {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.raw == other.raw && self.warnings == other.warnings
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `<root>/<name>/SKILL.md`.
    Bundle,
    /// `<root>/<name>.md`.
    Flat,
    /// A symlink: what it is depends on its target.
    Link,
}

/// One entry of a root.
pub struct Entry {
    /// What the directory listing said (a link stays a link here).
    listed: Kind,
    /// What it resolved to.
    kind: Kind,
    /// The entry's own path (`<root>/<name>`).
    path: String,
    /// The document's guest path.
    pub doc: String,
    /// The folder its relative paths resolve against.
    pub base: String,
    /// Whether it is a flat skill.
    pub flat: bool,
    /// The name used when the frontmatter declares none.
    pub default_name: String,
    stamp: Option<Stamp>,
    /// What it is.
    pub state: State,
    version: u64,
    suspect: bool,
    transient: Option<String>,
    seen: u64,
}

struct Root {
    guest: String,
    entries: BTreeMap<String, Entry>,
    listing_suspect: bool,
    listing_failure: Option<(bool, String)>,
    watched: bool,
}

/// Discovery state across calls.
pub struct Catalog {
    roots: Vec<Root>,
    clock: u64,
    sent: Option<u64>,
    tombstones: Vec<String>,
    listings: u64,
    scanned: bool,
}

/// What a change decision compares: the clock advances whenever what the
/// host sees changes, and completeness is the number of transient failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    clock: u64,
    transient: usize,
}

impl Catalog {
    /// Discovery over `roots` (guest paths, highest precedence first).
    pub fn new(roots: Vec<String>) -> Self {
        let roots = roots
            .into_iter()
            .map(|guest| Root {
                guest,
                entries: BTreeMap::new(),
                listing_suspect: true,
                listing_failure: None,
                watched: false,
            })
            .collect();
        Catalog {
            roots,
            clock: 0,
            sent: None,
            tombstones: Vec::new(),
            listings: 0,
            scanned: false,
        }
    }

    /// Whether anything has been examined yet.
    pub fn scanned(&self) -> bool {
        self.scanned
    }

    /// Marks everything for re-examination. Documents with a stamp cost one
    /// stat (batched) when unchanged.
    pub fn suspect_all(&mut self) {
        for root in &mut self.roots {
            root.listing_suspect = true;
            for entry in root.entries.values_mut() {
                entry.suspect = true;
                entry.kind = entry.listed;
            }
        }
    }

    /// Marks what a change at `path` may have affected. Deeper files of a
    /// bundle (references, scripts) cannot change the catalog and are ignored.
    pub fn suspect_path(&mut self, path: &str) {
        for root in &mut self.roots {
            if path == root.guest || root.guest.starts_with(&format!("{path}/")) {
                root.listing_suspect = true;
                continue;
            }
            let Some(rest) = path
                .strip_prefix(root.guest.as_str())
                .and_then(|r| r.strip_prefix('/'))
            else {
                continue;
            };
            let (name, inner) = match rest.split_once('/') {
                Some((name, inner)) => (name, Some(inner)),
                None => (rest, None),
            };
            let known = root.entries.contains_key(name);
            if inner.is_none() || !known {
                // A new entry may have appeared: list the root again.
                root.listing_suspect = true;
            }
            if matches!(inner, None | Some(SKILL_FILE))
                && let Some(entry) = root.entries.get_mut(name)
            {
                // The event says it changed: read it, whatever its stamp, and
                // follow a link again.
                entry.suspect = true;
                entry.stamp = None;
                entry.kind = entry.listed;
            }
        }
    }

    /// Marks the entry whose document is `doc` for re-examination.
    pub fn suspect_document(&mut self, doc: &str) {
        for entry in self.roots.iter_mut().flat_map(|r| r.entries.values_mut()) {
            if entry.doc == doc {
                entry.suspect = true;
                entry.stamp = None;
            }
        }
    }

    /// The state a change decision compares.
    pub fn fingerprint(&self) -> Fingerprint {
        let transient = self
            .roots
            .iter()
            .map(|r| {
                usize::from(r.listing_failure.as_ref().is_some_and(|(t, _)| *t))
                    + r.entries.values().filter(|e| e.transient.is_some()).count()
            })
            .sum();
        Fingerprint {
            clock: self.clock,
            transient,
        }
    }

    /// Re-examines whatever is suspect, in at most one listing per root and
    /// three batched calls.
    pub fn refresh(&mut self) {
        self.scanned = true;
        for index in 0..self.roots.len() {
            if self.roots[index].listing_suspect {
                self.relist(index);
            }
        }
        let Catalog { roots, clock, .. } = self;
        let links: Vec<&mut Entry> = roots
            .iter_mut()
            .flat_map(|r| r.entries.values_mut())
            .filter(|e| e.suspect && e.kind == Kind::Link)
            .collect();
        resolve_links(links, clock);
        let stamped: Vec<&mut Entry> = roots
            .iter_mut()
            .flat_map(|r| r.entries.values_mut())
            .filter(|e| e.suspect && e.stamp.is_some() && e.kind != Kind::Link)
            .collect();
        check_stamps(stamped, clock);
        let unread: Vec<&mut Entry> = roots
            .iter_mut()
            .flat_map(|r| r.entries.values_mut())
            .filter(|e| e.suspect && e.kind != Kind::Link)
            .collect();
        read_documents(unread, clock);
    }

    /// Lists a root again: new entries are added (suspect), vanished ones
    /// removed.
    fn relist(&mut self, index: usize) {
        self.listings += 1;
        let pass = self.listings;
        let root = &mut self.roots[index];
        root.listing_suspect = false;
        let listed = match files::list_dir(&root.guest).map_err(Failure::from) {
            Ok(listed) => {
                if root.listing_failure.take().is_some() {
                    self.clock += 1;
                }
                listed
            }
            // Not there: the root does not exist (yet). That is a complete,
            // empty view; the host watches for it to appear.
            Err(Failure::Missing) => {
                if root.listing_failure.take().is_some() {
                    self.clock += 1;
                }
                Vec::new()
            }
            Err(e) => {
                let transient = matches!(e, Failure::Transient(_));
                let failure = Some((transient, format!("cannot list the root: {e}")));
                if root.listing_failure != failure {
                    root.listing_failure = failure;
                    self.clock += 1;
                }
                if transient {
                    // Try again next time; a failed listing proves nothing gone.
                    root.listing_suspect = true;
                }
                return;
            }
        };
        for item in listed {
            if item.name.starts_with('.') {
                continue;
            }
            let Some(entry) = new_entry(&root.guest, &item.name, item.kind, pass) else {
                continue;
            };
            match root.entries.get_mut(&item.name) {
                Some(existing) if existing.listed == entry.listed => existing.seen = pass,
                _ => {
                    if let Some(old) = root.entries.insert(item.name, entry) {
                        forget(old, &mut self.clock, &mut self.tombstones);
                    }
                }
            }
        }
        let gone: Vec<String> = root
            .entries
            .iter()
            .filter(|(_, e)| e.seen != pass)
            .map(|(name, _)| name.clone())
            .collect();
        for name in gone {
            if let Some(old) = root.entries.remove(&name) {
                forget(old, &mut self.clock, &mut self.tombstones);
            }
        }
    }

    /// Roots not yet watched. Each is watched one level deep: its own
    /// entries (bundles and flat files coming and going) and each bundle
    /// folder's entries (its `SKILL.md`); the host follows folders as they
    /// appear, so nothing deeper in a bundle is ever watched.
    pub fn unwatched_roots(&mut self) -> Vec<String> {
        self.roots
            .iter_mut()
            .filter(|r| !r.watched)
            .map(|r| {
                r.watched = true;
                r.guest.clone()
            })
            .collect()
    }

    /// Forgets that a root was watched (the host refused it).
    pub fn watch_refused(&mut self, path: &str) {
        for root in self.roots.iter_mut().filter(|r| r.guest == path) {
            root.watched = false;
        }
    }

    /// Every diagnostic, and whether the view is complete.
    pub fn diagnostics(&self) -> (Vec<Diagnostic>, bool) {
        let mut out = Vec::new();
        let mut complete = true;
        for root in &self.roots {
            if let Some((transient, message)) = &root.listing_failure {
                complete &= !transient;
                out.push(plain_diagnostic(&root.guest, message));
            }
            for entry in root.entries.values() {
                if let Some(message) = &entry.transient {
                    complete = false;
                    out.push(plain_diagnostic(&entry.doc, message));
                }
                match &entry.state {
                    State::Skill(skill) => {
                        for w in &skill.warnings {
                            out.push(to_wit_diagnostic(&entry.doc, Severity::Warning, w.clone()));
                        }
                    }
                    State::Broken(finding) => {
                        out.push(to_wit_diagnostic(
                            &entry.doc,
                            Severity::Error,
                            finding.clone(),
                        ));
                    }
                    State::NotSkill(Some((severity, finding))) => {
                        out.push(to_wit_diagnostic(&entry.path, *severity, finding.clone()));
                    }
                    State::NotSkill(None) | State::Unknown => {}
                }
            }
        }
        (out, complete)
    }

    /// Whether the host asks for everything (it does not hold the last
    /// observation sent).
    pub fn wants_everything(&self, known: Option<u64>) -> bool {
        known.is_none() || known != self.sent
    }

    /// Marks for re-reading every skill that would have to be sent but was
    /// sent before (its entry is no longer kept). Returns whether any was.
    pub fn reload_sent(&mut self, everything: bool) -> bool {
        let since = self.sent.unwrap_or(0);
        let mut any = false;
        for entry in self.roots.iter_mut().flat_map(|r| r.entries.values_mut()) {
            if let State::Skill(skill) = &entry.state
                && skill.pending.is_none()
                && (everything || entry.version > since)
            {
                entry.suspect = true;
                entry.stamp = None;
                any = true;
            }
        }
        any
    }

    /// The skills to send: all of them, or only those changed since the
    /// observation the host holds. Their entries move out (call
    /// [`Catalog::reload_sent`] first). Returns (epoch, base, skills, removed).
    pub fn take_changes(
        &mut self,
        known: Option<u64>,
    ) -> (u64, Option<u64>, Vec<SkillEntry>, Vec<String>) {
        let base = known.filter(|_| !self.wants_everything(known));
        let since = base.unwrap_or(0);
        let mut skills = Vec::new();
        for entry in self.roots.iter_mut().flat_map(|r| r.entries.values_mut()) {
            if let State::Skill(skill) = &mut entry.state
                && (base.is_none() || entry.version > since)
                && let Some(pending) = skill.pending.take()
            {
                skills.push(*pending);
            }
        }
        let removed = if base.is_some() {
            let present: std::collections::HashSet<&str> =
                skills.iter().map(|s| s.path.as_str()).collect();
            self.tombstones
                .iter()
                .filter(|doc| !present.contains(doc.as_str()))
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        self.tombstones.clear();
        self.sent = Some(self.clock);
        (self.clock, base, skills, removed)
    }

    /// The first skill named `name`.
    pub fn find(&self, name: &str) -> Option<&Entry> {
        self.roots
            .iter()
            .flat_map(|r| r.entries.values())
            .find(|e| matches!(&e.state, State::Skill(skill) if skill.name == name))
    }
}

/// Learns what each suspect symlink points at (one batched stat).
fn resolve_links(mut links: Vec<&mut Entry>, clock: &mut u64) {
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
                entry.kind = Kind::Bundle;
                entry.doc = format!("{}/{SKILL_FILE}", entry.path);
                entry.base = entry.path.clone();
            }
            Ok(info) if info.kind == EntryKind::File && markdown_stem(&name).is_some() => {
                entry.kind = Kind::Flat;
                entry.flat = true;
                entry.doc = entry.path.clone();
                entry.default_name = markdown_stem(&name).unwrap_or_default().to_string();
            }
            Ok(_) => settle(entry, clock, State::NotSkill(None)),
            Err(Failure::Missing) => settle(
                entry,
                clock,
                State::NotSkill(Some((
                    Severity::Error,
                    note("dangling symlink: its target does not exist"),
                ))),
            ),
            Err(Failure::Transient(m)) => fail(entry, clock, format!("cannot follow symlink: {m}")),
            Err(e) => settle(
                entry,
                clock,
                State::NotSkill(Some((
                    Severity::Error,
                    note(&format!("cannot follow symlink: {e}")),
                ))),
            ),
        }
    }
}

/// Stats every suspect document that has a stamp (one batched call); the
/// unchanged ones are settled without a read.
fn check_stamps(mut entries: Vec<&mut Entry>, clock: &mut u64) {
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
                    *clock += 1;
                }
            }
            Ok(_) => entry.stamp = None,
            Err(Failure::Missing) => {
                entry.stamp = None;
                settle(entry, clock, State::NotSkill(None));
            }
            Err(Failure::Transient(m)) => fail(entry, clock, format!("cannot read: {m}")),
            Err(_) => entry.stamp = None,
        }
    }
}

/// Reads and parses the given documents (one batched read).
fn read_documents(mut entries: Vec<&mut Entry>, clock: &mut u64) {
    entries.retain_mut(|entry| {
        if entry.flat && entry.path.ends_with(&format!("/{SKILL_FILE}")) {
            let warning =
                note("a SKILL.md directly in a skills root is not a skill; use its parent folder as the root");
            settle(entry, clock, State::NotSkill(Some((Severity::Warning, warning))));
            return false;
        }
        true
    });
    if entries.is_empty() {
        return;
    }
    let paths: Vec<String> = entries.iter().map(|e| e.doc.clone()).collect();
    if paths.len() >= READ_AHEAD_FROM {
        // Parse each batch while the host reads the next ones.
        files::prefetch(&paths, MAX_DOCUMENT_BYTES);
    }
    for (batch, paths) in entries.chunks_mut(BATCH).zip(paths.chunks(BATCH)) {
        let result = files::read_files(paths, MAX_DOCUMENT_BYTES);
        for (index, entry) in batch.iter_mut().enumerate() {
            read_document(entry, files::file(&result, index), clock);
        }
    }
}

/// Settles `entry` from what reading its document gave.
fn read_document(
    entry: &mut Entry,
    read: Result<(&[u8], files::Stamp), files::FsError>,
    clock: &mut u64,
) {
    let state = match read.map_err(Failure::from) {
        Ok((bytes, stamp)) => {
            entry.stamp = Some(stamp);
            parse(entry, bytes)
        }
        Err(Failure::Transient(m)) => {
            fail(entry, clock, format!("cannot read: {m}"));
            return;
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
    settle(entry, clock, state);
}

/// The entry for a listed name, or `None` when it cannot hold a skill.
fn new_entry(root: &str, name: &str, kind: EntryKind, pass: u64) -> Option<Entry> {
    let path = format!("{root}/{name}");
    let (kind, doc, base, default_name) = match kind {
        EntryKind::Directory => (
            Kind::Bundle,
            format!("{path}/{SKILL_FILE}"),
            path.clone(),
            name.to_string(),
        ),
        EntryKind::Symlink => (Kind::Link, path.clone(), path.clone(), name.to_string()),
        EntryKind::File => {
            let stem = markdown_stem(name)?;
            (Kind::Flat, path.clone(), root.to_string(), stem.to_string())
        }
        EntryKind::Other => return None,
    };
    Some(Entry {
        listed: kind,
        kind,
        flat: kind == Kind::Flat,
        path,
        doc,
        base,
        default_name,
        stamp: None,
        state: State::Unknown,
        version: 0,
        suspect: true,
        transient: None,
        seen: pass,
    })
}

/// Records an entry's new state, advancing the clock if it changed. The new
/// state always replaces the old one, so a re-read skill has its entry ready
/// to send again.
fn settle(entry: &mut Entry, clock: &mut u64, state: State) {
    entry.suspect = false;
    let recovered = entry.transient.take().is_some();
    if state != entry.state {
        *clock += 1;
        entry.version = *clock;
    } else if recovered {
        *clock += 1;
    }
    entry.state = state;
}

/// Records a transient failure: the state is kept, the view is incomplete,
/// and the entry stays suspect so the next snapshot tries again.
fn fail(entry: &mut Entry, clock: &mut u64, message: String) {
    if entry.transient.as_ref() != Some(&message) {
        *clock += 1;
    }
    entry.transient = Some(message);
    entry.suspect = true;
}

/// Records that `old` left the catalog.
fn forget(old: Entry, clock: &mut u64, tombstones: &mut Vec<String>) {
    match old.state {
        State::Skill(_) => {
            *clock += 1;
            tombstones.push(old.doc);
        }
        State::Broken(_) | State::NotSkill(Some(_)) => *clock += 1,
        State::NotSkill(None) | State::Unknown => {
            if old.transient.is_some() {
                *clock += 1;
            }
        }
    }
}

/// Parses a document read for `entry`.
fn parse(entry: &Entry, bytes: &[u8]) -> State {
    if entry.flat && !starts_with_frontmatter(bytes) {
        return State::NotSkill(None);
    }
    match parse_document(bytes, &entry.default_name) {
        Ok(doc) => State::Skill(Skill {
            name: doc.frontmatter.name.clone(),
            raw: doc.frontmatter.raw.clone(),
            warnings: doc.warnings,
            pending: Some(Box::new(SkillEntry {
                frontmatter: to_wit_frontmatter(doc.frontmatter),
                path: entry.doc.clone(),
                base: entry.base.clone(),
            })),
        }),
        Err(finding) => State::Broken(finding),
    }
}

fn note(message: &str) -> Finding {
    Finding {
        line: None,
        field: None,
        message: message.to_string(),
    }
}

fn plain_diagnostic(path: &str, message: &str) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        path: path.to_string(),
        line: None,
        field: None,
        message: message.to_string(),
    }
}

/// `name` without its `.md` extension, if it has one.
fn markdown_stem(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (ext.eq_ignore_ascii_case("md") && !stem.is_empty()).then_some(stem)
}
