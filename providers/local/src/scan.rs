//! Discovery state: every entry of every root, what it turned out to be,
//! and when that last changed, so a snapshot re-examines only what may have
//! changed and sends the host only what did.

use crate::fs::{self, FsError, Preopens, Stamp};
use skillhost_guest_sdk::frontmatter::{
    Finding, MAX_DOCUMENT_BYTES, parse_document, starts_with_frontmatter, too_large,
};
use skillhost_guest_sdk::{Diagnostic, Severity, SkillEntry, to_wit_diagnostic, to_wit_frontmatter};
use std::collections::BTreeMap;
use wasip2::filesystem::types::DescriptorType;

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
    /// A skill, with the warnings its frontmatter earned.
    Skill {
        /// The entry as the host receives it.
        entry: SkillEntry,
        /// Problems that did not stop it loading.
        warnings: Vec<Finding>,
    },
    /// A document that cannot be a skill until someone fixes it.
    Broken(Finding),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `<root>/<name>/SKILL.md`.
    Bundle,
    /// `<root>/<name>.md`.
    Flat,
    /// A symlink the sandbox must follow to learn what it is.
    Link,
}

/// One entry of a root.
pub struct Entry {
    /// What the directory listing said (a link stays a link here).
    listed: Kind,
    /// What it resolved to.
    kind: Kind,
    /// The document's guest path.
    pub doc: String,
    /// The folder its relative paths resolve against.
    pub base: String,
    /// Whether it is a flat skill.
    pub flat: bool,
    /// The name used when the frontmatter declares none.
    pub default_name: String,
    /// The preopen the document is read through, and the path inside it.
    dir: usize,
    rel: String,
    stamp: Option<Stamp>,
    /// What it is.
    pub state: State,
    version: u64,
    suspect: bool,
    transient: Option<String>,
    seen: u64,
    watched: bool,
}

impl Entry {
    /// The path of this entry's document relative to its preopen.
    pub fn location(&self) -> (usize, &str) {
        (self.dir, &self.rel)
    }
}

struct Root {
    guest: String,
    preopen: Option<usize>,
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
    unwatch: Vec<String>,
    listings: u64,
    scanned: bool,
}

/// What a refresh changed, for deciding whether to invalidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fingerprint {
    clock: u64,
    transient: usize,
}

impl Catalog {
    /// Discovery over `roots` (guest paths, highest precedence first).
    pub fn new(roots: Vec<String>, preopens: &Preopens) -> Self {
        let roots = roots
            .into_iter()
            .map(|guest| Root {
                preopen: preopens.index_of(&guest),
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
            unwatch: Vec::new(),
            listings: 0,
            scanned: false,
        }
    }

    /// Whether anything has been examined yet.
    pub fn scanned(&self) -> bool {
        self.scanned
    }

    /// Marks everything for re-examination. With stamps, unchanged
    /// documents cost one `stat` instead of a read.
    pub fn suspect_all(&mut self) {
        for root in &mut self.roots {
            root.listing_suspect = true;
            for entry in root.entries.values_mut() {
                entry.suspect = true;
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
            let Some(rest) = path.strip_prefix(root.guest.as_str()).and_then(|r| r.strip_prefix('/')) else {
                continue;
            };
            let (name, inner) = match rest.split_once('/') {
                Some((name, inner)) => (name, Some(inner)),
                None => (rest, None),
            };
            match inner {
                None => {
                    root.listing_suspect = true;
                    if let Some(entry) = root.entries.get_mut(name) {
                        entry.suspect = true;
                        entry.stamp = None;
                    }
                }
                Some(SKILL_FILE) => {
                    if let Some(entry) = root.entries.get_mut(name) {
                        entry.suspect = true;
                        entry.stamp = None;
                    }
                }
                Some(_) => {}
            }
        }
    }

    /// Marks the entry whose document is `doc` for re-examination.
    pub fn suspect_document(&mut self, doc: &str) {
        for root in &mut self.roots {
            for entry in root.entries.values_mut() {
                if entry.doc == doc {
                    entry.suspect = true;
                    entry.stamp = None;
                }
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

    /// Re-examines whatever is suspect.
    pub fn refresh(&mut self, preopens: &Preopens) {
        self.scanned = true;
        for index in 0..self.roots.len() {
            if self.roots[index].listing_suspect {
                self.relist(index, preopens);
            }
            let Catalog { roots, clock, .. } = self;
            for entry in roots[index].entries.values_mut().filter(|e| e.suspect) {
                examine(entry, preopens, clock);
            }
        }
    }

    /// Lists a root again: new entries are added (suspect), vanished ones
    /// removed.
    fn relist(&mut self, index: usize, preopens: &Preopens) {
        self.listings += 1;
        let pass = self.listings;
        let root = &mut self.roots[index];
        root.listing_suspect = false;
        let listed = match root.preopen {
            // Not granted: the root does not exist (yet). That is a complete,
            // empty view; the host watches for it to appear.
            None => Ok(Vec::new()),
            Some(dir) => fs::list_dir(preopens.get(dir)),
        };
        let listed = match listed {
            Ok(listed) => {
                let changed = root.listing_failure.take().is_some();
                if changed {
                    self.clock += 1;
                }
                listed
            }
            Err(e) => {
                let transient = matches!(e, FsError::Transient(_));
                let failure = Some((transient, format!("cannot list the root: {e}")));
                if root.listing_failure != failure {
                    root.listing_failure = failure;
                    self.clock += 1;
                }
                // Keep the entries: a failed listing proves nothing gone.
                return;
            }
        };
        for item in listed {
            if item.name.starts_with('.') {
                continue;
            }
            let Some((kind, dir, rel, doc, base, default_name)) = classify_entry(root, &item, preopens) else {
                continue;
            };
            match root.entries.get_mut(&item.name) {
                Some(existing) if existing.listed == kind && existing.dir == dir => {
                    existing.seen = pass;
                }
                _ => {
                    if let Some(old) = root.entries.remove(&item.name) {
                        forget(old, &mut self.clock, &mut self.tombstones, &mut self.unwatch);
                    }
                    let entry = Entry {
                        listed: kind,
                        kind,
                        flat: kind == Kind::Flat,
                        doc,
                        base,
                        default_name,
                        dir,
                        rel,
                        stamp: None,
                        state: State::Unknown,
                        version: 0,
                        suspect: true,
                        transient: None,
                        seen: pass,
                        watched: false,
                    };
                    root.entries.insert(item.name, entry);
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
                forget(old, &mut self.clock, &mut self.tombstones, &mut self.unwatch);
            }
        }
    }

    /// Paths to start and stop watching: each root and each bundle folder.
    pub fn watch_changes(&mut self) -> (Vec<String>, Vec<String>) {
        let mut start = Vec::new();
        for root in &mut self.roots {
            if !root.watched {
                root.watched = true;
                start.push(root.guest.clone());
            }
            for entry in root.entries.values_mut() {
                if !entry.watched && entry.kind != Kind::Flat {
                    entry.watched = true;
                    start.push(entry.base.clone());
                }
            }
        }
        (start, std::mem::take(&mut self.unwatch))
    }

    /// Forgets that a path was watched (the host refused it).
    pub fn watch_refused(&mut self, path: &str) {
        for root in &mut self.roots {
            if root.guest == path {
                root.watched = false;
            }
            for entry in root.entries.values_mut() {
                if entry.base == path {
                    entry.watched = false;
                }
            }
        }
    }

    /// Every diagnostic, and whether the view is complete.
    pub fn diagnostics(&self) -> (Vec<Diagnostic>, bool) {
        let mut out = Vec::new();
        let mut complete = true;
        for root in &self.roots {
            if let Some((transient, message)) = &root.listing_failure {
                complete &= !transient;
                out.push(diagnostic(&root.guest, Severity::Error, None, message));
            }
            for entry in root.entries.values() {
                if let Some(message) = &entry.transient {
                    complete = false;
                    out.push(diagnostic(&entry.doc, Severity::Error, None, message));
                }
                match &entry.state {
                    State::Skill { warnings, .. } => {
                        for w in warnings {
                            out.push(to_wit_diagnostic(&entry.doc, Severity::Warning, w.clone()));
                        }
                    }
                    State::Broken(finding) => {
                        out.push(to_wit_diagnostic(&entry.doc, Severity::Error, finding.clone()));
                    }
                    State::NotSkill(Some((severity, finding))) => {
                        out.push(to_wit_diagnostic(&entry.doc, *severity, finding.clone()));
                    }
                    State::NotSkill(None) | State::Unknown => {}
                }
            }
        }
        (out, complete)
    }

    /// The skills to send: all of them, or only those changed since the
    /// observation the host holds. Returns (epoch, base, skills, removed).
    pub fn take_changes(&mut self, known: Option<u64>) -> (u64, Option<u64>, Vec<SkillEntry>, Vec<String>) {
        let base = known.filter(|k| Some(*k) == self.sent);
        let since = base.unwrap_or(0);
        let mut skills = Vec::new();
        for root in &self.roots {
            for entry in root.entries.values() {
                if let State::Skill { entry: skill, .. } = &entry.state
                    && (base.is_none() || entry.version > since)
                {
                    skills.push(skill.clone());
                }
            }
        }
        let removed = if base.is_some() {
            let present: std::collections::HashSet<&str> = skills.iter().map(|s| s.path.as_str()).collect();
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
            .find(|e| matches!(&e.state, State::Skill { entry, .. } if entry.frontmatter.name == name))
    }
}

/// Records that `old` left the catalog.
fn forget(old: Entry, clock: &mut u64, tombstones: &mut Vec<String>, unwatch: &mut Vec<String>) {
    if old.watched {
        unwatch.push(old.base.clone());
    }
    match old.state {
        State::Skill { .. } => {
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

type Classified = (Kind, usize, String, String, String, String);

/// What a root entry can be, and where its document is.
fn classify_entry(root: &Root, item: &fs::Entry, preopens: &Preopens) -> Option<Classified> {
    let root_dir = root.preopen?;
    let name = &item.name;
    let path = format!("{}/{name}", root.guest);
    match item.kind {
        DescriptorType::Directory => Some((
            Kind::Bundle,
            root_dir,
            format!("{name}/{SKILL_FILE}"),
            format!("{path}/{SKILL_FILE}"),
            path,
            name.clone(),
        )),
        DescriptorType::SymbolicLink => match preopens.index_of(&path) {
            // The host mounts the target of a linked skill folder at the
            // link's own path, so the sandbox never has to leave a grant.
            Some(mounted) => Some((
                Kind::Bundle,
                mounted,
                SKILL_FILE.to_string(),
                format!("{path}/{SKILL_FILE}"),
                path,
                name.clone(),
            )),
            None => Some((Kind::Link, root_dir, name.clone(), path.clone(), path, name.clone())),
        },
        DescriptorType::RegularFile => {
            let stem = markdown_stem(name)?;
            Some((Kind::Flat, root_dir, name.clone(), path, root.guest.clone(), stem.to_string()))
        }
        _ => None,
    }
}

/// Re-examines one entry, bumping `clock` when what it shows changed.
fn examine(entry: &mut Entry, preopens: &Preopens, clock: &mut u64) {
    entry.suspect = false;
    let previous_transient = entry.transient.take();
    let state = match look(entry, preopens) {
        Ok(Some(state)) => state,
        Ok(None) => {
            // Unchanged; recovering from a transient failure still changes
            // what the host sees (completeness).
            if previous_transient.is_some() {
                *clock += 1;
            }
            return;
        }
        Err(message) => {
            if previous_transient.as_ref() != Some(&message) {
                *clock += 1;
            }
            entry.transient = Some(message);
            return;
        }
    };
    if state != entry.state {
        *clock += 1;
        entry.version = *clock;
        entry.state = state;
    } else if previous_transient.is_some() {
        *clock += 1;
    }
}

/// The entry's state now; `Ok(None)` when its stamp shows it unchanged,
/// `Err` for a transient failure.
fn look(entry: &mut Entry, preopens: &Preopens) -> Result<Option<State>, String> {
    let dir = preopens.get(entry.dir);
    if entry.kind == Kind::Link {
        return Ok(Some(match fs::stat_at(dir, &entry.rel) {
            Ok(found) if found.kind == DescriptorType::Directory => {
                // A link to a folder inside the root: read it through the root.
                entry.rel = format!("{}/{SKILL_FILE}", entry.rel);
                entry.doc = format!("{}/{SKILL_FILE}", entry.base);
                entry.kind = Kind::Bundle;
                return look(entry, preopens);
            }
            Ok(found) if found.kind == DescriptorType::RegularFile && markdown_stem(&entry.rel).is_some() => {
                entry.kind = Kind::Flat;
                entry.flat = true;
                entry.default_name = markdown_stem(&entry.rel).unwrap_or_default().to_string();
                entry.base = entry.doc.rsplit_once('/').map(|(b, _)| b.to_string()).unwrap_or_default();
                return look(entry, preopens);
            }
            Ok(_) => State::NotSkill(None),
            Err(FsError::Missing) => State::NotSkill(Some((
                Severity::Error,
                note("dangling symlink: its target does not exist"),
            ))),
            Err(FsError::Transient(m)) => return Err(format!("cannot follow symlink: {m}")),
            Err(e) => State::NotSkill(Some((Severity::Error, note(&format!("cannot follow symlink: {e}"))))),
        }));
    }
    if entry.flat && entry.rel == SKILL_FILE {
        return Ok(Some(State::NotSkill(Some((
            Severity::Warning,
            note("a SKILL.md directly in a skills root is not a skill; use its parent folder as the root"),
        )))));
    }
    if let Some(stamp) = entry.stamp {
        match fs::stat_at(dir, &entry.rel) {
            Ok(found) if found.stamp == stamp && found.kind == DescriptorType::RegularFile => return Ok(None),
            Ok(_) => {}
            Err(FsError::Missing) => {
                entry.stamp = None;
                return Ok(Some(State::NotSkill(None)));
            }
            Err(FsError::Transient(m)) => return Err(format!("cannot read: {m}")),
            Err(_) => {}
        }
    }
    match fs::read_file(dir, &entry.rel, MAX_DOCUMENT_BYTES) {
        Ok((bytes, stamp)) => {
            entry.stamp = Some(stamp);
            Ok(Some(parse(entry, &bytes)))
        }
        Err(FsError::Missing) => {
            entry.stamp = None;
            Ok(Some(State::NotSkill(None)))
        }
        Err(FsError::TooLarge(n)) => {
            entry.stamp = None;
            Ok(Some(State::Broken(too_large(n))))
        }
        Err(FsError::Transient(m)) => Err(format!("cannot read: {m}")),
        Err(FsError::Permanent(m)) => {
            entry.stamp = None;
            Ok(Some(State::Broken(note(&format!("cannot read: {m}")))))
        }
    }
}

/// Parses a document read for `entry`.
fn parse(entry: &Entry, bytes: &[u8]) -> State {
    if entry.flat && !starts_with_frontmatter(bytes) {
        return State::NotSkill(None);
    }
    match parse_document(bytes, &entry.default_name) {
        Ok(doc) => State::Skill {
            entry: SkillEntry {
                frontmatter: to_wit_frontmatter(doc.frontmatter),
                path: entry.doc.clone(),
                base: entry.base.clone(),
            },
            warnings: doc.warnings,
        },
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

fn diagnostic(path: &str, severity: Severity, field: Option<&str>, message: &str) -> Diagnostic {
    Diagnostic {
        severity,
        path: path.to_string(),
        line: None,
        field: field.map(str::to_string),
        message: message.to_string(),
    }
}

/// `name` without its `.md` extension, if it has one.
fn markdown_stem(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (ext.eq_ignore_ascii_case("md") && !stem.is_empty()).then_some(stem)
}
