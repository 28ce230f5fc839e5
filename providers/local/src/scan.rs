//! Discovery: which entries of a root are skills, parsed once and kept until
//! their size or modification time changes.

use crate::fs::{self, Entry, FsError, Preopens, Stamp};
use skillhost_guest_sdk::frontmatter::{
    Finding, Frontmatter, MAX_DOCUMENT_BYTES, parse_document, starts_with_frontmatter, too_large,
};
use std::collections::HashMap;
use wasip2::filesystem::types::{Descriptor, DescriptorType};

/// The document file of a bundle skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// What a candidate document turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A skill, with the warnings its frontmatter earned.
    Skill {
        /// The parsed frontmatter.
        frontmatter: Frontmatter,
        /// Problems that did not stop it loading.
        warnings: Vec<Finding>,
    },
    /// A flat `.md` file without frontmatter (a README, notes): not a skill.
    NotASkill,
    /// A document that cannot be a skill until someone fixes it.
    Broken(Finding),
}

struct Cached {
    stamp: Stamp,
    outcome: Outcome,
}

/// A skill as discovered, in guest paths.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovered {
    /// The document (`.../SKILL.md` or the flat file).
    pub doc: String,
    /// The folder its relative paths resolve against.
    pub base: String,
    /// Whether it is a flat `<root>/<name>.md` skill.
    pub flat: bool,
    /// The name it gets when the frontmatter declares none.
    pub default_name: String,
    /// The parsed frontmatter.
    pub frontmatter: Frontmatter,
}

/// A problem, in guest paths.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// True for errors (the skill was skipped), false for warnings.
    pub error: bool,
    /// The file or folder concerned.
    pub path: String,
    /// The parser's finding (line, field, message).
    pub finding: Finding,
}

/// The result of one scan over every root.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanResult {
    /// Skills in root order, then entry-name order. Names may repeat: the
    /// host, which knows the host paths, reports duplicates.
    pub skills: Vec<Discovered>,
    /// Problems found on the way.
    pub problems: Vec<Problem>,
    /// False when a transient failure hid part of a root.
    pub complete: bool,
    /// Folders whose changes matter: each present root and bundle folder.
    pub watch: Vec<String>,
}

impl ScanResult {
    /// The first skill named `name`, if discovered.
    pub fn find(&self, name: &str) -> Option<&Discovered> {
        self.skills.iter().find(|s| s.frontmatter.name == name)
    }
}

/// A document to look at: where it is and how to reach it.
struct Candidate<'p> {
    dir: &'p Descriptor,
    rel: String,
    doc: String,
    base: String,
    default_name: String,
    flat: bool,
}

/// Keeps parsed documents between scans.
#[derive(Default)]
pub struct Scanner {
    cache: HashMap<String, Cached>,
}

impl Scanner {
    /// Scans every root (highest precedence first). Documents whose size and
    /// mtime are unchanged since the last scan are not read again.
    pub fn scan(&mut self, roots: &[String], preopens: &Preopens) -> ScanResult {
        let mut result = ScanResult {
            complete: true,
            ..ScanResult::default()
        };
        let mut seen: HashMap<String, ()> = HashMap::with_capacity(self.cache.len());
        for root in roots {
            let Some(root_dir) = preopens.at(root) else {
                // Not granted: the root does not exist (yet). That is a
                // complete, empty view; the host watches for it to appear.
                result.watch.push(root.clone());
                continue;
            };
            result.watch.push(root.clone());
            let entries = match fs::list_dir(root_dir) {
                Ok(entries) => entries,
                Err(e) => {
                    result.complete &= !matches!(e, FsError::Transient(_));
                    result.problems.push(problem(root, format!("cannot list the root: {e}")));
                    continue;
                }
            };
            for entry in entries {
                let Some(candidate) = self.candidate(root, root_dir, &entry, preopens, &mut result)
                else {
                    continue;
                };
                seen.insert(candidate.doc.clone(), ());
                if !candidate.flat {
                    result.watch.push(candidate.base.clone());
                }
                let Some(outcome) = self.examine(&candidate, &mut result) else {
                    continue;
                };
                match outcome {
                    Outcome::NotASkill => {}
                    Outcome::Broken(finding) => result.problems.push(Problem {
                        error: true,
                        path: candidate.doc.clone(),
                        finding: finding.clone(),
                    }),
                    Outcome::Skill {
                        frontmatter,
                        warnings,
                    } => {
                        for w in warnings {
                            result.problems.push(Problem {
                                error: false,
                                path: candidate.doc.clone(),
                                finding: w.clone(),
                            });
                        }
                        result.skills.push(Discovered {
                            doc: candidate.doc,
                            base: candidate.base,
                            flat: candidate.flat,
                            default_name: candidate.default_name,
                            frontmatter: frontmatter.clone(),
                        });
                    }
                }
            }
        }
        self.cache.retain(|doc, _| seen.contains_key(doc));
        result
    }

    /// Decides whether a root entry can hold a skill, and where its document is.
    fn candidate<'p>(
        &self,
        root: &str,
        root_dir: &'p Descriptor,
        entry: &Entry,
        preopens: &'p Preopens,
        result: &mut ScanResult,
    ) -> Option<Candidate<'p>> {
        let name = &entry.name;
        if name.starts_with('.') {
            return None;
        }
        let path = format!("{root}/{name}");
        let kind = match entry.kind {
            DescriptorType::SymbolicLink => {
                // The host mounts the target of a linked skill folder at the
                // link's own path, so the sandbox never has to leave a grant.
                if let Some(mounted) = preopens.at(&path) {
                    return Some(Candidate {
                        dir: mounted,
                        rel: SKILL_FILE.to_string(),
                        doc: format!("{path}/{SKILL_FILE}"),
                        base: path,
                        default_name: name.clone(),
                        flat: false,
                    });
                }
                match fs::stat_at(root_dir, name) {
                    Ok(found) => found.kind,
                    Err(FsError::Missing) => {
                        result.problems.push(problem(&path, "dangling symlink: its target does not exist"));
                        return None;
                    }
                    Err(e) => {
                        result.complete &= !matches!(e, FsError::Transient(_));
                        result
                            .problems
                            .push(problem(&path, format!("cannot follow symlink: {e}")));
                        return None;
                    }
                }
            }
            kind => kind,
        };
        match kind {
            DescriptorType::Directory => Some(Candidate {
                dir: root_dir,
                rel: format!("{name}/{SKILL_FILE}"),
                doc: format!("{path}/{SKILL_FILE}"),
                base: path,
                default_name: name.clone(),
                flat: false,
            }),
            DescriptorType::RegularFile => {
                let stem = markdown_stem(name)?;
                if name == SKILL_FILE {
                    result.problems.push(Problem {
                        error: false,
                        path,
                        finding: Finding {
                            line: None,
                            field: None,
                            message: "a SKILL.md directly in a skills root is not a skill; \
                                      use its parent folder as the root"
                                .to_string(),
                        },
                    });
                    return None;
                }
                Some(Candidate {
                    dir: root_dir,
                    rel: name.clone(),
                    doc: path,
                    base: root.to_string(),
                    default_name: stem.to_string(),
                    flat: true,
                })
            }
            _ => None,
        }
    }

    /// Returns the candidate's outcome, from the cache when its stamp is
    /// unchanged. `None` when there is no document (a folder that is not a
    /// skill) or a transient failure (recorded in `result`).
    fn examine(&mut self, c: &Candidate<'_>, result: &mut ScanResult) -> Option<&Outcome> {
        let found = match fs::stat_at(c.dir, &c.rel) {
            Ok(found) => found,
            Err(FsError::Missing) => {
                self.cache.remove(&c.doc);
                return None;
            }
            Err(e) => return self.failed(c, e, result),
        };
        if found.kind != DescriptorType::RegularFile {
            let outcome = Outcome::Broken(Finding {
                line: None,
                field: None,
                message: "is not a regular file".to_string(),
            });
            return Some(self.store(c, found.stamp, outcome));
        }
        if self.cache.get(&c.doc).is_some_and(|hit| hit.stamp == found.stamp) {
            return self.cache.get(&c.doc).map(|hit| &hit.outcome);
        }
        let outcome = if found.stamp.size > MAX_DOCUMENT_BYTES {
            Outcome::Broken(too_large(found.stamp.size))
        } else {
            match fs::read_at(c.dir, &c.rel, found.stamp.size, MAX_DOCUMENT_BYTES) {
                Ok(bytes) => classify(&bytes, c),
                Err(FsError::TooLarge(n)) => Outcome::Broken(too_large(n)),
                Err(FsError::Missing) => {
                    self.cache.remove(&c.doc);
                    return None;
                }
                Err(e) => return self.failed(c, e, result),
            }
        };
        Some(self.store(c, found.stamp, outcome))
    }

    fn store(&mut self, c: &Candidate<'_>, stamp: Stamp, outcome: Outcome) -> &Outcome {
        let slot = self.cache.entry(c.doc.clone()).insert_entry(Cached { stamp, outcome });
        &slot.into_mut().outcome
    }

    /// Records a read failure. A transient one leaves the cache alone and
    /// makes the scan incomplete; a permanent one is an error for that file.
    fn failed(&mut self, c: &Candidate<'_>, e: FsError, result: &mut ScanResult) -> Option<&Outcome> {
        if matches!(e, FsError::Transient(_)) {
            result.complete = false;
        } else {
            self.cache.remove(&c.doc);
        }
        result.problems.push(problem(&c.doc, format!("cannot read: {e}")));
        None
    }
}

/// Parses a document read for candidate `c`.
fn classify(bytes: &[u8], c: &Candidate<'_>) -> Outcome {
    if c.flat && !starts_with_frontmatter(bytes) {
        return Outcome::NotASkill;
    }
    match parse_document(bytes, &c.default_name) {
        Ok(doc) => Outcome::Skill {
            frontmatter: doc.frontmatter,
            warnings: doc.warnings,
        },
        Err(finding) => Outcome::Broken(finding),
    }
}

/// `name` without its `.md` extension, if it has one.
fn markdown_stem(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (ext.eq_ignore_ascii_case("md") && !stem.is_empty()).then_some(stem)
}

fn problem(path: &str, message: impl Into<String>) -> Problem {
    Problem {
        error: true,
        path: path.to_string(),
        finding: Finding {
            line: None,
            field: None,
            message: message.into(),
        },
    }
}
