//! Discovery state: every entry of every root, what it turned out to be,
//! and what changed since the host was last told, so a snapshot
//! re-examines only what may have changed and sends only what did.
//!
//! All file access goes through the host's bulk `files` capability: one call
//! lists a root, one stats every suspect document, one reads every document
//! that must be parsed again.

use crate::entry::{Entry, Kind, Skill, State};
use crate::fs::Failure;
use crate::ledger::Ledger;
use crate::reads::{check_stamps, read_documents, resolve_links};
use skillhost_guest_sdk::delta::Entries;
use skillhost_guest_sdk::files;
use skillhost_guest_sdk::skill::layout;
use skillhost_guest_sdk::{Diagnostic, Observation, Severity, SkillEntry, to_wit_diagnostic};
use std::collections::{BTreeMap, HashMap};

struct Root {
    guest: String,
    entries: BTreeMap<String, Entry>,
    listing_suspect: bool,
    /// Whether the failure is transient, and what it was.
    listing_failure: Option<(bool, String)>,
    watched: bool,
}

/// Discovery state across calls.
pub struct Catalog {
    roots: Vec<Root>,
    ledger: Ledger,
    listings: u64,
    scanned: bool,
    /// Whether some entry may be suspect. A snapshot after a change was
    /// already handled (the usual case: the change's event re-read it)
    /// then skips looking at every entry, which inside the sandbox costs
    /// more than the re-read itself.
    marked: bool,
}

/// The entries of every root, as the observation takes them: a skill's
/// parsed entry moves out once sent (the host holds it).
struct Pending<'a>(&'a mut [Root]);

impl Entries for Pending<'_> {
    fn entry(&mut self, path: &str) -> Option<SkillEntry> {
        // A document is `<root>/<entry>` or beneath it: looked up by its
        // entry's name rather than compared with every document.
        for root in self.0.iter_mut() {
            if let Some(name) = entry_name(root, path)
                && let Some(entry) = root.entries.get_mut(name)
                && entry.doc == path
            {
                return entry.take_pending();
            }
        }
        all(self.0).find(|e| e.doc == path)?.take_pending()
    }

    fn all(&mut self) -> Vec<SkillEntry> {
        all(self.0).filter_map(Entry::take_pending).collect()
    }
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
            ledger: Ledger::new(),
            listings: 0,
            scanned: false,
            marked: true,
        }
    }

    /// Whether anything has been examined yet.
    pub fn scanned(&self) -> bool {
        self.scanned
    }

    fn entries_mut(&mut self) -> impl Iterator<Item = &mut Entry> {
        all(&mut self.roots)
    }

    /// Marks everything for re-examination. Documents with a stamp cost one
    /// stat (batched) when unchanged.
    pub fn suspect_all(&mut self) {
        self.marked = true;
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
            if inner.is_none_or(layout::is_document_name)
                && let Some(entry) = root.entries.get_mut(name)
            {
                // The event says it changed: read it, whatever its stamp, and
                // follow a link again.
                self.marked = true;
                entry.suspect = true;
                entry.stamp = None;
                entry.kind = entry.listed;
            }
        }
    }

    /// Marks the entry whose document is `doc` for re-examination.
    pub fn suspect_document(&mut self, doc: &str) {
        let mut found = false;
        for entry in self.entries_mut().filter(|e| e.doc == doc) {
            entry.suspect = true;
            entry.stamp = None;
            found = true;
        }
        self.marked |= found;
    }

    /// The epoch: it moves with every change to what the host sees — a
    /// transient failure appearing, changing or clearing included
    /// (`Entry::fail`, `Entry::settle`, the listing failure) — so comparing
    /// it is the whole change decision.
    pub fn epoch(&self) -> u64 {
        self.ledger.changes.epoch()
    }

    /// Re-examines whatever is suspect, in at most one listing per root and
    /// three batched calls. With `send_ahead` (a snapshot answered whole),
    /// each batch of skills read is sent to the host as soon as it is
    /// parsed (`emit-skills`) instead of waiting for the answer.
    pub fn refresh(&mut self, send_ahead: bool) {
        self.examine(send_ahead);
        // A skill served under its folder's name takes the one it declares
        // once that is free. Each round hands out names that were given
        // up; a few settle any real tree.
        for _ in 0..4 {
            if !(self.ledger.names.take_released() && self.reclaim()) {
                break;
            }
            self.examine(send_ahead);
        }
    }

    /// Marks for reading every skill served under its folder's name whose
    /// declared name is free; returns whether there was one.
    fn reclaim(&mut self) -> bool {
        let Catalog {
            roots,
            ledger,
            marked,
            ..
        } = self;
        let mut any = false;
        for entry in all(roots) {
            if let State::Skill(skill) = &entry.state
                && let Some(declared) = &skill.declared
                && !ledger.names.is_held(declared)
            {
                entry.suspect = true;
                entry.stamp = None;
                any = true;
            }
        }
        *marked |= any;
        any
    }

    /// One pass of [`Catalog::refresh`].
    fn examine(&mut self, send_ahead: bool) {
        self.scanned = true;
        for index in 0..self.roots.len() {
            if self.roots[index].listing_suspect {
                self.relist(index);
            }
        }
        let Catalog {
            roots,
            ledger,
            marked,
            ..
        } = self;
        if !std::mem::take(marked) {
            return;
        }
        // One pass over every entry; each step below only ever clears or
        // keeps the flag of the entries it is given, so the later steps
        // look among these alone (a change of one file among thousands
        // costs one pass, not three).
        let mut suspects: Vec<&mut Entry> = all(roots).filter(|e| e.suspect).collect();
        let links: Vec<&mut Entry> = suspects
            .iter_mut()
            .filter(|e| e.suspect && e.kind == Kind::Link)
            .map(|e| &mut **e)
            .collect();
        resolve_links(links, ledger);
        // A document read as `skill.md` is read again rather than stat'ed:
        // only a read tells whether a `SKILL.md` now takes over.
        let stamped: Vec<&mut Entry> = suspects
            .iter_mut()
            .filter(|e| {
                e.suspect && e.stamp.is_some() && e.kind != Kind::Link && !e.on_lowercase_doc()
            })
            .map(|e| &mut **e)
            .collect();
        check_stamps(stamped, ledger);
        let unread: Vec<&mut Entry> = suspects
            .iter_mut()
            .filter(|e| e.suspect && e.kind != Kind::Link)
            .map(|e| &mut **e)
            .collect();
        read_documents(unread, ledger, send_ahead);
        // A transient failure leaves its entry suspect for the next time.
        *marked = suspects.iter().any(|e| e.suspect);
    }

    /// Lists a root again: new entries are added (suspect), vanished ones
    /// removed.
    fn relist(&mut self, index: usize) {
        self.listings += 1;
        let pass = self.listings;
        let Catalog {
            roots,
            ledger,
            marked,
            ..
        } = self;
        let root = &mut roots[index];
        root.listing_suspect = false;
        let listed = match files::list_dir(&root.guest).map_err(Failure::from) {
            Ok(listed) => listed,
            // Not there: the root does not exist (yet). That is a complete,
            // empty view; the host watches for it to appear.
            Err(Failure::Missing) => Vec::new(),
            Err(e) => {
                let transient = matches!(e, Failure::Transient(_));
                let failure = Some((transient, format!("cannot list the root: {e}")));
                if root.listing_failure != failure {
                    root.listing_failure = failure;
                    ledger.changes.touched();
                }
                if transient {
                    // Try again next time; a failed listing proves nothing gone.
                    root.listing_suspect = true;
                }
                return;
            }
        };
        if root.listing_failure.take().is_some() {
            ledger.changes.touched();
        }
        if root.entries.is_empty() {
            // The first listing builds the map in one pass: a lookup and an
            // insert per name cost twenty string comparisons each, and
            // comparing is slow inside the sandbox. `collect` sorts, which
            // costs one comparison per name when the host listed them in
            // order (this host does).
            *marked = true;
            root.entries = listed
                .into_iter()
                .filter_map(|item| {
                    let entry = Entry::new(&root.guest, &item.name, item.kind, pass)?;
                    Some((item.name, entry))
                })
                .collect();
            return;
        }
        for item in listed {
            let Some(entry) = Entry::new(&root.guest, &item.name, item.kind, pass) else {
                continue;
            };
            match root.entries.get_mut(&item.name) {
                Some(existing) if existing.listed == entry.listed => existing.seen = pass,
                _ => {
                    // New entries are suspect.
                    *marked = true;
                    if let Some(old) = root.entries.insert(item.name, entry) {
                        old.forget(ledger);
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
                old.forget(ledger);
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
        // Who holds each name, to name it beside a skill that wanted it.
        let holders: HashMap<&str, (&str, &str)> = if self.ledger.names.any_renamed() {
            self.roots
                .iter()
                .flat_map(|r| r.entries.values().map(move |e| (r, e)))
                .filter_map(|(root, e)| match &e.state {
                    State::Skill(skill) => {
                        Some((skill.name.as_str(), (root.guest.as_str(), e.doc.as_str())))
                    }
                    _ => None,
                })
                .collect()
        } else {
            HashMap::new()
        };
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
                    State::Skill(Skill {
                        name,
                        declared: Some(declared),
                        ..
                    }) => {
                        let holder = holders.get(declared.as_str()).map_or_else(
                            || "another skill".to_string(),
                            |(root, doc)| relative(root, doc).to_string(),
                        );
                        out.push(Diagnostic {
                            severity: Severity::Warning,
                            path: entry.doc.clone(),
                            line: None,
                            field: Some("name".to_string()),
                            message: format!(
                                "declares the name {declared:?}, which {holder} already has: \
                                 served as {name:?}, its folder's name (ask for it by that name)"
                            ),
                        });
                    }
                    // The host warns about a kept skill's fields itself.
                    State::Skill(_) => {}
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

    /// Whether the host holding `known` gets everything: it does not hold
    /// the last observation sent.
    pub fn wants_everything(&self, known: Option<u64>) -> bool {
        !self.ledger.changes.holds(known)
    }

    /// Marks every skill for re-reading whose entry was already sent (the
    /// provider no longer keeps it), when everything must be sent again.
    /// Returns whether any was.
    pub fn reload_sent(&mut self) -> bool {
        let mut any = false;
        for entry in self.entries_mut() {
            if let State::Skill(skill) = &entry.state
                && skill.pending.is_none()
            {
                entry.suspect = true;
                entry.stamp = None;
                any = true;
            }
        }
        self.marked |= any;
        any
    }

    /// The observation for a host holding `known` (call
    /// [`Catalog::reload_sent`] first when it wants everything).
    pub fn observation(&mut self, known: Option<u64>) -> Observation {
        let (diagnostics, complete) = self.diagnostics();
        let Catalog { roots, ledger, .. } = self;
        ledger
            .changes
            .observation(known, &mut Pending(roots), diagnostics, complete)
    }

    /// The first skill named `name`.
    pub fn find(&self, name: &str) -> Option<&Entry> {
        self.roots
            .iter()
            .flat_map(|r| r.entries.values())
            .find(|e| matches!(&e.state, State::Skill(skill) if skill.name == name))
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

/// `doc` relative to the root `root` it lies in.
fn relative<'a>(root: &str, doc: &'a str) -> &'a str {
    doc.strip_prefix(root)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(doc)
}

/// The name of the entry of `root` that `path` is or lies beneath.
fn entry_name<'p>(root: &Root, path: &'p str) -> Option<&'p str> {
    let rest = path.strip_prefix(root.guest.as_str())?.strip_prefix('/')?;
    rest.split('/').next()
}

/// Every entry of every root.
fn all(roots: &mut [Root]) -> impl Iterator<Item = &mut Entry> {
    roots.iter_mut().flat_map(|r| r.entries.values_mut())
}
