//! The curator: where each skill is in its lifecycle, and archiving the
//! ones nobody uses any more.
//!
//! A skill is Active when used within [`ACTIVE_DAYS`], Inactive up to
//! [`STALE_AFTER_DAYS`], Stale up to [`DEPRECATED_AFTER_DAYS`] and
//! Deprecated beyond. A skill never used counts from when it was first
//! seen, so a new skill has the same seven days of grace; a restored one
//! starts again from its restore. `pinned: true` keeps a skill Active with
//! a score of at least 0.8, and it is never a candidate.
//!
//! Archiving moves a Deprecated skill's folder (or flat file) from a
//! writable local root into `<root>/.archive/` — discovery skips hidden
//! folders, so a watching catalog drops it through its normal path — and
//! restoring moves it back. Nothing is ever deleted or overwritten, and
//! bundled, remote and pinned skills are never moved.

use super::clock::hours_between;
use super::error::Error;
use super::score::skill_score;
use super::store::{SkillUsage, UsageStore};
use serde_json::{Value, json};
use skillhost::model::{Catalog, Location, Scope, Skill};
use skillhost::paths::canonical_or_lexical;
use skillhost::registry::Registry;
use skillhost_skill::layout::SKILL_FILE;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Days without use a skill stays Active (also a new skill's grace).
pub const ACTIVE_DAYS: f64 = 7.0;
/// Days without use after which an Inactive skill is Stale.
pub const STALE_AFTER_DAYS: f64 = 30.0;
/// Days without use after which a Stale skill is Deprecated.
pub const DEPRECATED_AFTER_DAYS: f64 = 90.0;
/// The folder of a root that archived skills move into.
pub const ARCHIVE_DIR: &str = ".archive";
/// Most skills `curate --archive` moves without asking, and only skills
/// inside skillhost's own state folder (its learned skills there): any
/// more, or any skill of the user's own roots, is a person's decision
/// made on a prompt (or with `--yes`).
pub const HANDFUL: usize = 5;

/// Where a skill is in its lifecycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    /// Used within the last week (or new, or pinned).
    Active,
    /// Unused for one to four weeks.
    Inactive,
    /// Unused for one to three months.
    Stale,
    /// Unused for more than three months: a candidate to archive.
    Deprecated,
}

impl State {
    /// `active`, `inactive`, `stale` or `deprecated`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Active => "active",
            State::Inactive => "inactive",
            State::Stale => "stale",
            State::Deprecated => "deprecated",
        }
    }

    /// The state after `idle_days` without use (boundaries belong to the
    /// fresher state: exactly 7 days is still Active).
    pub fn after(idle_days: f64) -> State {
        if idle_days <= ACTIVE_DAYS {
            State::Active
        } else if idle_days <= STALE_AFTER_DAYS {
            State::Inactive
        } else if idle_days <= DEPRECATED_AFTER_DAYS {
            State::Stale
        } else {
            State::Deprecated
        }
    }
}

/// When a skill's idle time starts: its last use, or when it was first
/// seen (or restored) if that is later.
pub fn idle_since(usage: Option<&SkillUsage>) -> Option<SystemTime> {
    let usage = usage?;
    match (usage.last_used, usage.first_seen) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Whether a skill can be archived, and from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Archivable {
    /// It is the entry `entry` (folder or flat file) of the writable root `root`.
    Yes {
        /// The root.
        root: PathBuf,
        /// The folder or file to move.
        entry: PathBuf,
    },
    /// It may not or cannot be moved, and why.
    No(String),
}

/// One skill as the curator sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// The skill's catalog name.
    pub name: String,
    /// The provider that serves it.
    pub source: String,
    /// Where that provider's skills come from.
    pub scope: Scope,
    /// Its lifecycle state.
    pub state: State,
    /// Its usage score (pinned floor applied).
    pub score: f64,
    /// Times it was used.
    pub count: u64,
    /// When it was last used.
    pub last_used: Option<SystemTime>,
    /// When it was first seen (or restored).
    pub first_seen: Option<SystemTime>,
    /// Days since it was last used or first seen.
    pub idle_days: f64,
    /// `pinned: true` in its frontmatter.
    pub pinned: bool,
    /// Whether `--archive` may move it.
    pub archivable: Archivable,
}

impl Assessment {
    /// Whether it is a candidate to archive: Deprecated and not pinned.
    pub fn is_candidate(&self) -> bool {
        self.state == State::Deprecated && !self.pinned
    }

    /// On what evidence its state was judged, in words: what skillhost
    /// recorded of its use, and since when it has watched it. Use through
    /// a loader skillhost did not see (an agent reading `SKILL.md` itself)
    /// is not counted, so the words say "recorded by skillhost".
    pub fn evidence(&self) -> String {
        if self.pinned {
            return "pinned: true in its frontmatter keeps it active".to_string();
        }
        let days = |d: f64| format!("{:.0} day(s)", d.max(0.0));
        match (self.last_used, self.first_seen) {
            (Some(last), _) => format!(
                "{} use(s) recorded by skillhost, the last {} ({} ago)",
                self.count,
                super::clock::rfc3339(last),
                days(self.idle_days)
            ),
            (None, Some(seen)) => format!(
                "no use recorded by skillhost since it was first seen {} ({} ago)",
                super::clock::rfc3339(seen),
                days(self.idle_days)
            ),
            (None, None) => "no use recorded by skillhost; first seen now".to_string(),
        }
    }

    /// The assessment as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "evidence": self.evidence(),
            "name": self.name,
            "source": self.source,
            "scope": self.scope.as_str(),
            "state": self.state.as_str(),
            "score": self.score,
            "count": self.count,
            "last_used": self.last_used.map(super::clock::rfc3339),
            "first_seen": self.first_seen.map(super::clock::rfc3339),
            "idle_days": (self.idle_days * 10.0).round() / 10.0,
            "pinned": self.pinned,
        })
    }
}

/// A review of every skill of a catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// When it was made.
    pub at: SystemTime,
    /// Every skill, by name.
    pub skills: Vec<Assessment>,
}

impl Report {
    /// The candidates to archive, by name.
    pub fn candidates(&self) -> impl Iterator<Item = &Assessment> {
        self.skills.iter().filter(|a| a.is_candidate())
    }

    /// How many skills are in `state`.
    pub fn count(&self, state: State) -> usize {
        self.skills.iter().filter(|a| a.state == state).count()
    }

    /// The report as JSON: `at`, `skills`, and `candidates` (name, path
    /// when archivable, or the reason it is not).
    pub fn to_json(&self) -> Value {
        let candidates: Vec<Value> = self
            .candidates()
            .map(|a| match &a.archivable {
                Archivable::Yes { entry, .. } => json!({
                    "name": a.name,
                    "archivable": true,
                    "path": entry.display().to_string(),
                }),
                Archivable::No(reason) => json!({
                    "name": a.name,
                    "archivable": false,
                    "reason": reason,
                }),
            })
            .collect();
        json!({
            "at": super::clock::rfc3339(self.at),
            "skills": self.skills.iter().map(Assessment::to_json).collect::<Vec<_>>(),
            "candidates": candidates,
        })
    }
}

/// The roots the curator may move skills in: those of the registry's
/// project and user providers (bundled and remote ones have no files to move).
pub fn writable_roots(registry: &Registry) -> Vec<PathBuf> {
    registry
        .providers()
        .iter()
        .filter(|p| matches!(p.scope(), Scope::Project | Scope::User))
        .flat_map(|p| p.roots().to_vec())
        .collect()
}

/// Assesses every skill of `catalog` at `now`.
pub fn assess(
    catalog: &Catalog,
    usage: &BTreeMap<String, SkillUsage>,
    roots: &[PathBuf],
    now: SystemTime,
) -> Report {
    let roots: Vec<PathBuf> = roots.iter().map(|r| canonical_or_lexical(r)).collect();
    let mut skills: Vec<Assessment> = catalog
        .skills
        .iter()
        .map(|skill| {
            let known = usage.get(skill.name());
            let pinned = skill.frontmatter.pinned;
            let idle_days = idle_since(known).map_or(0.0, |at| hours_between(at, now) / 24.0);
            Assessment {
                name: skill.name().to_string(),
                source: skill.source.clone(),
                scope: skill.scope,
                state: if pinned {
                    State::Active
                } else {
                    State::after(idle_days)
                },
                score: skill_score(known, pinned, now),
                count: known.map_or(0, |u| u.count),
                last_used: known.and_then(|u| u.last_used),
                first_seen: known.and_then(|u| u.first_seen),
                idle_days,
                pinned,
                archivable: archivable(skill, &roots),
            }
        })
        .collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    Report { at: now, skills }
}

/// A review now: notes the catalog's skills as seen, then assesses them.
pub fn review(store: &UsageStore, catalog: &Catalog, roots: &[PathBuf]) -> Result<Report, Error> {
    store.observe_skills(catalog.skills.iter().map(|s| s.name()))?;
    Ok(assess(catalog, &store.usage()?, roots, store.now()))
}

fn archivable(skill: &Skill, roots: &[PathBuf]) -> Archivable {
    if skill.frontmatter.pinned {
        return Archivable::No("it is pinned".into());
    }
    let path = match (&skill.scope, &skill.path) {
        (Scope::Bundled, _) => return Archivable::No("bundled skills are never moved".into()),
        (Scope::Remote, _) => return Archivable::No("remote skills are never moved".into()),
        (_, Location::Path(path)) => canonical_or_lexical(path),
        (_, other) => return Archivable::No(format!("{other} is not a local file")),
    };
    let entry = if path.file_name().is_some_and(|n| n == SKILL_FILE) {
        path.parent().map(Path::to_path_buf)
    } else {
        Some(path)
    };
    match entry {
        Some(entry) if entry.parent().is_some_and(|p| roots.iter().any(|r| r == p)) => {
            Archivable::Yes {
                root: entry.parent().map(Path::to_path_buf).unwrap_or_default(),
                entry,
            }
        }
        _ => Archivable::No("it is not directly inside a writable local root".into()),
    }
}

mod moves;

pub use moves::{Archived, Moved, Undone, archive, needs_confirmation, remember, restore, undo};

#[cfg(test)]
mod tests {
    use super::moves::{archived_name, move_into_archive};
    use super::*;
    use crate::clock::days;
    use skillhost_skill::frontmatter::Frontmatter;
    use std::time::UNIX_EPOCH;

    #[test]
    fn a_planted_archive_link_is_refused_and_nothing_moves_through_it() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let skill = root.path().join("mine");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(skill.join("SKILL.md"), "---\ndescription: d\n---\n").unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join(ARCHIVE_DIR)).unwrap();
        let refused = move_into_archive(root.path(), &skill)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("is a symlink"), "{refused}");
        assert!(
            skill.join("SKILL.md").exists(),
            "the skill stays where it was"
        );
        assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
        let refused = restore(
            &UsageStore::open(&root.path().join("usage.sqlite")).unwrap(),
            &[root.path().to_path_buf()],
            "mine",
        )
        .unwrap_err()
        .to_string();
        assert!(refused.contains("is a symlink"), "{refused}");
    }

    #[test]
    fn an_archived_skill_is_named_by_its_frontmatter_and_a_fifo_in_its_place_does_not_block() {
        let dir = tempfile::tempdir().unwrap();
        let entry = dir.path().join("folder");
        std::fs::create_dir_all(&entry).unwrap();
        std::fs::write(
            entry.join(SKILL_FILE),
            "---\nname: real-name\ndescription: x\n---\n",
        )
        .unwrap();
        assert_eq!(archived_name(&entry).as_deref(), Some("real-name"));

        let planted = dir.path().join("planted");
        std::fs::create_dir_all(&planted).unwrap();
        let fifo = planted.join(SKILL_FILE);
        skillhost::paths::mkfifo(&fifo);
        // Opening a FIFO with no writer the ordinary way would wait forever.
        assert_eq!(archived_name(&planted), None);
    }

    #[test]
    fn states_change_just_past_each_boundary() {
        for (idle, state) in [
            (0.0, State::Active),
            (6.9, State::Active),
            (7.0, State::Active),
            (7.1, State::Inactive),
            (29.9, State::Inactive),
            (30.1, State::Stale),
            (89.9, State::Stale),
            (90.1, State::Deprecated),
            (4000.0, State::Deprecated),
        ] {
            assert_eq!(State::after(idle), state, "{idle} days");
        }
    }

    fn skill(name: &str, pinned: bool, scope: Scope, path: &str) -> Skill {
        let mut frontmatter = Frontmatter::defaults(name);
        frontmatter.pinned = pinned;
        Skill {
            source: "test".into(),
            scope,
            path: Location::Path(path.into()),
            base: Location::Path(Path::new(path).parent().unwrap().to_path_buf()),
            frontmatter,
            json: None,
        }
    }

    #[test]
    fn a_skill_counts_from_its_last_use_or_first_sighting_and_pinned_stays_active() {
        let now = UNIX_EPOCH + days(1000.0);
        let catalog = Catalog {
            skills: vec![
                skill("used", false, Scope::User, "/r/used/SKILL.md").into(),
                skill("new", false, Scope::User, "/r/new/SKILL.md").into(),
                skill("old", false, Scope::User, "/r/old.md").into(),
                skill("kept", true, Scope::User, "/r/kept/SKILL.md").into(),
                skill("shipped", false, Scope::Bundled, "/b/shipped/SKILL.md").into(),
            ],
            complete: true,
            ..Catalog::default()
        };
        let mut usage = BTreeMap::new();
        usage.insert(
            "used".to_string(),
            SkillUsage {
                count: 3,
                last_used: Some(now - days(14.0)),
                first_seen: Some(now - days(200.0)),
                ..SkillUsage::default()
            },
        );
        usage.insert(
            "new".to_string(),
            SkillUsage {
                first_seen: Some(now - days(6.9)),
                ..SkillUsage::default()
            },
        );
        for name in ["old", "kept", "shipped"] {
            usage.insert(
                name.to_string(),
                SkillUsage {
                    first_seen: Some(now - days(120.0)),
                    ..SkillUsage::default()
                },
            );
        }
        let report = assess(&catalog, &usage, &[PathBuf::from("/r")], now);
        let by_name = |n: &str| report.skills.iter().find(|a| a.name == n).unwrap();
        assert_eq!(by_name("used").state, State::Inactive);
        assert!((by_name("used").score - 4f64.ln() * 0.25).abs() < 1e-12);
        assert_eq!(by_name("new").state, State::Active, "grace for a new skill");
        assert_eq!(by_name("old").state, State::Deprecated);
        assert_eq!(
            by_name("old").archivable,
            Archivable::Yes {
                root: "/r".into(),
                entry: "/r/old.md".into()
            }
        );
        let kept = by_name("kept");
        assert_eq!((kept.state, kept.score), (State::Active, 0.8));
        assert!(matches!(by_name("shipped").archivable, Archivable::No(_)));
        let candidates: Vec<&str> = report.candidates().map(|a| a.name.as_str()).collect();
        assert_eq!(candidates, ["old", "shipped"]);
        assert_eq!(report.to_json()["candidates"][1]["archivable"], false);
    }
}
