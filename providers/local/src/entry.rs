//! One entry of a skills root: what it turned out to be, and the record of
//! its changes (so the host is sent only what changed).

use crate::ledger::Ledger;
use crate::names::Claim;
use skillhost_guest_sdk::files::{EntryKind, Stamp};
use skillhost_guest_sdk::skill::frontmatter::{Finding, starts_with_frontmatter};
use skillhost_guest_sdk::skill::layout::{self, Candidate, LOWERCASE_SKILL_FILE, SKILL_FILE};
use skillhost_guest_sdk::{Severity, SkillEntry, parse_skill};

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
    /// The name it is served under (see `crate::names`).
    pub name: String,
    /// The name it declares, when it is served under its folder's because
    /// another skill holds that one.
    pub declared: Option<String>,
    /// The verbatim frontmatter: the parsed entry is a function of it
    /// (the host derives the fields, and warns about them, from it).
    raw: String,
    /// The parsed entry, until it is sent to the host.
    pub pending: Option<Box<SkillEntry>>,
}

impl PartialEq for Skill {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.declared == other.declared && self.raw == other.raw
    }
}

impl Skill {
    /// Gives up the name it is served under.
    fn release(&self, ledger: &mut Ledger) {
        ledger.names.release(&self.name, self.declared.is_some());
    }

    /// Serves the skill under the name `ledger` gives it.
    fn take_name(&mut self, folder: &str, ledger: &mut Ledger) {
        let Claim { name, declared } = ledger.names.claim(std::mem::take(&mut self.name), folder);
        if declared.is_some()
            && let Some(pending) = &mut self.pending
        {
            pending.name.clone_from(&name);
        }
        self.name = name;
        self.declared = declared;
    }
}

/// What an entry is, by the layout rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
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
    pub listed: Kind,
    /// What it resolved to.
    pub kind: Kind,
    /// The entry's own path (`<root>/<name>`).
    pub path: String,
    /// The document's guest path: the key the host knows it by.
    pub doc: String,
    /// The folder its relative paths resolve against.
    pub base: String,
    /// Whether it is a flat skill.
    pub flat: bool,
    /// The name used when the frontmatter declares none, or when another
    /// skill holds the one it declares (its folder's, or a flat file's stem).
    pub default_name: String,
    /// Size and time of the document when it was last read.
    pub stamp: Option<Stamp>,
    /// What it is.
    pub state: State,
    /// It must be examined again.
    pub suspect: bool,
    /// A failure that may pass, while it lasts.
    pub transient: Option<String>,
    /// The listing pass that last saw it.
    pub seen: u64,
}

impl Entry {
    /// The entry for a listed name, or `None` when it cannot hold a skill.
    pub fn new(root: &str, name: &str, kind: EntryKind, pass: u64) -> Option<Entry> {
        let path = join(root, name);
        let kind = match kind {
            EntryKind::File => layout::EntryKind::File,
            EntryKind::Directory => layout::EntryKind::Directory,
            EntryKind::Symlink => layout::EntryKind::Symlink,
            EntryKind::Other => layout::EntryKind::Other,
        };
        let (kind, doc, base, default_name) = match layout::classify(name, kind)? {
            Candidate::Bundle { default_name } => (
                Kind::Bundle,
                join(&path, SKILL_FILE),
                path.clone(),
                default_name,
            ),
            Candidate::Link => (Kind::Link, path.clone(), path.clone(), name.to_string()),
            Candidate::Flat { default_name } => {
                (Kind::Flat, path.clone(), root.to_string(), default_name)
            }
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
            suspect: true,
            transient: None,
            seen: pass,
        })
    }

    /// The document a read looks for first: a bundle's `SKILL.md`, whatever
    /// it was read from last time (so a `SKILL.md` added beside a
    /// `skill.md` takes over), or the flat file.
    pub fn first_doc(&self) -> String {
        match self.kind {
            Kind::Bundle => join(&self.path, SKILL_FILE),
            _ => self.doc.clone(),
        }
    }

    /// A bundle's lowercase `skill.md`, read when it has no `SKILL.md`.
    pub fn lowercase_doc(&self) -> Option<String> {
        (self.kind == Kind::Bundle).then(|| join(&self.path, LOWERCASE_SKILL_FILE))
    }

    /// Whether the document was found under its lowercase name last time:
    /// its stamp alone cannot tell whether a `SKILL.md` appeared since.
    pub fn on_lowercase_doc(&self) -> bool {
        // Asked of every stamped entry on a rescan: no allocation.
        self.kind == Kind::Bundle
            && self
                .doc
                .strip_prefix(self.path.as_str())
                .and_then(|rest| rest.strip_prefix('/'))
                == Some(LOWERCASE_SKILL_FILE)
    }

    /// Points the entry at another document (a link resolved to a folder or
    /// a file). A skill the host knew at the old document leaves it.
    pub fn retarget(&mut self, kind: Kind, doc: String, base: String, ledger: &mut Ledger) {
        if doc != self.doc
            && let State::Skill(skill) = &self.state
        {
            skill.release(ledger);
            ledger.changes.removed(&self.doc);
            self.state = State::Unknown;
        }
        self.kind = kind;
        self.flat = kind == Kind::Flat;
        self.doc = doc;
        self.base = base;
    }

    /// Records the entry's new state. The host is sent the entry again when
    /// it is or was a skill; anything else it shows (a diagnostic) only
    /// moves the epoch. The new state always replaces the old one, so a
    /// re-read skill has its entry ready to send again.
    pub fn settle(&mut self, mut state: State, ledger: &mut Ledger) {
        self.suspect = false;
        // Its own name is given up first, so a skill read again keeps it.
        if let State::Skill(old) = &self.state {
            old.release(ledger);
        }
        if let State::Skill(new) = &mut state {
            new.take_name(&self.default_name, ledger);
        }
        let recovered = self.transient.take().is_some();
        if state != self.state {
            let skill_involved =
                matches!(state, State::Skill(_)) || matches!(self.state, State::Skill(_));
            if skill_involved {
                ledger.changes.changed(&self.doc);
            } else {
                ledger.changes.touched();
            }
        } else if recovered {
            ledger.changes.touched();
        }
        self.state = state;
    }

    /// Records a transient failure: the state is kept, the view is
    /// incomplete, and the entry stays suspect so the next snapshot tries
    /// again.
    pub fn fail(&mut self, message: String, ledger: &mut Ledger) {
        if self.transient.as_ref() != Some(&message) {
            ledger.changes.touched();
        }
        self.transient = Some(message);
        self.suspect = true;
    }

    /// A skill's parsed entry, moved out to be sent (the host holds it
    /// from then on).
    pub fn take_pending(&mut self) -> Option<SkillEntry> {
        match &mut self.state {
            State::Skill(skill) => skill.pending.take().map(|p| *p),
            _ => None,
        }
    }

    /// Records that the entry left its root.
    pub fn forget(self, ledger: &mut Ledger) {
        match &self.state {
            State::Skill(skill) => {
                skill.release(ledger);
                ledger.changes.removed(&self.doc);
            }
            State::Broken(_) | State::NotSkill(Some(_)) => ledger.changes.touched(),
            State::NotSkill(None) | State::Unknown => {
                if self.transient.is_some() {
                    ledger.changes.touched();
                }
            }
        }
    }

    /// What the document's bytes (its frontmatter, as `read-frontmatters`
    /// gives it, or all of it) make of the entry.
    pub fn parse(&self, bytes: &[u8]) -> State {
        if self.flat && !starts_with_frontmatter(bytes) {
            return State::NotSkill(None);
        }
        match parse_skill(bytes, &self.default_name) {
            Ok(doc) => State::Skill(Skill {
                name: doc.name.clone(),
                declared: None,
                raw: doc.frontmatter.raw.clone(),
                pending: Some(Box::new(doc.entry(self.doc.clone(), self.base.clone()))),
            }),
            Err(finding) => State::Broken(finding),
        }
    }
}

/// `dir/name`. Every entry makes a few such paths, and inside the
/// sandbox `format!` costs several times the copy.
pub fn join(dir: &str, name: &str) -> String {
    let mut path = String::with_capacity(dir.len() + 1 + name.len());
    path.push_str(dir);
    path.push('/');
    path.push_str(name);
    path
}

/// A finding with only a message.
pub fn note(message: &str) -> Finding {
    Finding {
        line: None,
        field: None,
        message: message.to_string(),
    }
}
