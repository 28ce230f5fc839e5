//! `serve = tree`: the probe as a small but real filesystem provider of its
//! first root, so a test can hold a 0.1.0 component written without the SDK
//! against the first-party local provider on the same tree.
//!
//! Only bundles are served (`<root>/<name>/SKILL.md`, else `skill.md`, by
//! the rules of [`layout`]); flat files and symlinked entries are left out.
//! Every snapshot lists and reads the whole root again and answers with the
//! complete list: it keeps only where each skill's document is, for `load`
//! and the resource calls.
//!
//! It reads through WASI (`std::fs`), not the host's `files` import: a
//! component importing `files` is judged a filesystem provider by the
//! conformance kit, which would then hold the probe's default mode (one
//! skill that is no file) to its fixture tree.

use crate::bindings::skillhost::provider::host::{self, LogLevel};
use crate::bindings::skillhost::provider::types::{
    Diagnostic, Observation, ProviderError, Resource, Severity, SkillDocument, SkillEntry,
};
use crate::{full_observation, to_wit_frontmatter};
use skillhost_skill::frontmatter::{Finding, MAX_DOCUMENT_BYTES, parse_document, too_large};
use skillhost_skill::layout::{self, Candidate, LOWERCASE_SKILL_FILE, SKILL_FILE};
use skillhost_skill::{digest, segments};

/// Largest file served or listed, in bytes (the local provider's limit).
const MAX_RESOURCE_BYTES: u64 = 64 * 1024 * 1024;
/// Deepest folder level walked inside a skill.
const MAX_DEPTH: usize = 16;

/// Where a listed skill lives.
#[derive(Debug, Clone)]
struct Found {
    name: String,
    doc: String,
    base: String,
    default_name: String,
}

/// What `serve = tree` keeps between calls.
pub struct Tree {
    root: String,
    /// The skills of the last scan, in folder order; `None` before the first.
    skills: Option<Vec<Found>>,
    watched: bool,
}

impl Tree {
    /// Serves the bundles of `root` (a guest path).
    pub fn new(root: String) -> Tree {
        Tree {
            root: root.trim_end_matches('/').to_string(),
            skills: None,
            watched: false,
        }
    }

    /// Every bundle of the root, with diagnostics for the documents that
    /// could not be used.
    pub fn snapshot(&mut self) -> Observation {
        if !self.watched {
            self.watched = true;
            // Depth 2 reaches a skill's subfolders, whose files it lists.
            for refusal in host::watch(std::slice::from_ref(&self.root), 2) {
                host::log(
                    LogLevel::Warn,
                    &format!("watch {} refused: {}", refusal.path, refusal.reason),
                );
            }
        }
        let (skills, diagnostics, complete) = self.scan();
        full_observation(skills, diagnostics, complete)
    }

    fn scan(&mut self) -> (Vec<SkillEntry>, Vec<Diagnostic>, bool) {
        let mut diagnostics = Vec::new();
        let mut complete = true;
        let mut folders: Vec<(String, String)> = match list_dir(&self.root) {
            Ok(listed) => listed
                .into_iter()
                .filter_map(|(name, kind)| match layout::classify(&name, kind)? {
                    Candidate::Bundle { default_name } => {
                        Some((format!("{}/{name}", self.root), default_name))
                    }
                    Candidate::Flat { .. } | Candidate::Link => None,
                })
                .collect(),
            // A root that does not exist yet is empty, and that is complete.
            Err(Failure::Missing) => Vec::new(),
            Err(e) => {
                complete = !matches!(e, Failure::Transient(_));
                diagnostics.push(error(
                    &self.root,
                    format!("cannot list the root: {}", message(&e)),
                ));
                Vec::new()
            }
        };
        folders.sort();
        let mut skills = Vec::new();
        let mut found = Vec::new();
        for ((base, default_name), (doc, read)) in folders.iter().zip(documents(&folders)) {
            let bytes = match read {
                Ok(bytes) => bytes,
                // A folder without a document is not a skill.
                Err(Failure::Missing) => continue,
                Err(Failure::TooLarge(n)) => {
                    diagnostics.push(diagnostic(Severity::Error, &doc, too_large(n)));
                    continue;
                }
                Err(e) => {
                    complete &= !matches!(e, Failure::Transient(_));
                    diagnostics.push(error(&doc, format!("cannot read: {}", message(&e))));
                    continue;
                }
            };
            match parse_document(&bytes, default_name) {
                Ok(parsed) => {
                    for warning in parsed.warnings {
                        diagnostics.push(diagnostic(Severity::Warning, &doc, warning));
                    }
                    found.push(Found {
                        name: parsed.frontmatter.name.clone(),
                        doc: doc.clone(),
                        base: base.clone(),
                        default_name: default_name.clone(),
                    });
                    skills.push(SkillEntry {
                        frontmatter: to_wit_frontmatter(parsed.frontmatter),
                        path: doc,
                        base: base.clone(),
                    });
                }
                Err(finding) => diagnostics.push(diagnostic(Severity::Error, &doc, finding)),
            }
        }
        self.skills = Some(found);
        (skills, diagnostics, complete)
    }

    /// The first skill named `name`, scanning first if nothing was yet.
    fn find(&mut self, name: &str) -> Result<Found, ProviderError> {
        if self.skills.is_none() {
            self.scan();
        }
        self.skills
            .iter()
            .flatten()
            .find(|f| f.name == name)
            .cloned()
            .ok_or_else(|| ProviderError::NotFound(format!("no skill named {name:?}")))
    }

    /// Reads the skill's document again; refuses it if it now declares
    /// another name.
    pub fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        let found = self.find(name)?;
        let bytes = read_one(&found.doc, MAX_DOCUMENT_BYTES).map_err(|e| {
            // What it listed is gone or changed: the catalog is stale.
            host::invalidate_provider();
            read_error(&found.doc, e)
        })?;
        let parsed = parse_document(&bytes, &found.default_name)
            .map_err(|f| ProviderError::Invalid(format!("{}: {f}", found.doc)))?;
        if parsed.frontmatter.name != name {
            host::invalidate_provider();
            return Err(ProviderError::NameMismatch(format!(
                "{} now declares the name {:?}, not {name:?}",
                found.doc, parsed.frontmatter.name
            )));
        }
        Ok(SkillDocument {
            entry: SkillEntry {
                frontmatter: to_wit_frontmatter(parsed.frontmatter),
                path: found.doc,
                base: found.base,
            },
            body: parsed.body.to_string(),
        })
    }

    /// Every regular file under the skill's folder, sorted by path.
    pub fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        let found = self.find(name)?;
        let mut out = Vec::new();
        walk(&found.base, "", 0, &mut out)?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// One file of the skill; `path` may not leave its folder.
    pub fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        let found = self.find(name)?;
        segments::check_relative(path).map_err(|e| {
            ProviderError::Invalid(format!(
                "{path:?} is not a relative path inside the skill: {e}"
            ))
        })?;
        let full = format!("{}/{path}", found.base);
        read_one(&full, MAX_RESOURCE_BYTES).map_err(|e| read_error(&full, e))
    }
}

/// Lists `base/prefix`, reads its files and descends into its folders. Symlinked folders are not walked (a loop cannot trap it);
/// symlinked files inside the grant are listed.
fn walk(
    base: &str,
    prefix: &str,
    depth: usize,
    out: &mut Vec<Resource>,
) -> Result<(), ProviderError> {
    let folder = format!("{base}/{prefix}");
    let folder = folder.trim_end_matches('/');
    let entries = list_dir(folder).map_err(|e| read_error(folder, e))?;
    let (mut regular, mut folders) = (Vec::new(), Vec::new());
    for (name, kind) in entries {
        let rel = format!("{prefix}{name}");
        // A name that could not be served back (a backslash) is left out.
        if !segments::is_relative(&rel) {
            continue;
        }
        let linked_file = || std::fs::metadata(format!("{base}/{rel}")).is_ok_and(|m| m.is_file());
        match kind {
            layout::EntryKind::File => regular.push(rel),
            // A linked folder or a dangling link is not part of the skill.
            layout::EntryKind::Symlink if linked_file() => regular.push(rel),
            layout::EntryKind::Directory => folders.push(rel),
            layout::EntryKind::Symlink | layout::EntryKind::Other => {}
        }
    }
    for rel in regular {
        let path = format!("{base}/{rel}");
        let bytes = read_one(&path, MAX_RESOURCE_BYTES).map_err(|e| read_error(&path, e))?;
        out.push(Resource {
            path: rel,
            size: bytes.len() as u64,
            digest: digest::sha256(&bytes),
        });
    }
    if depth < MAX_DEPTH {
        for rel in folders {
            walk(base, &format!("{rel}/"), depth + 1, out)?;
        }
    }
    Ok(())
}

/// Each folder's document and what reading it gave: its `SKILL.md`, else
/// its `skill.md`; when neither is there, the folder stays known by its
/// `SKILL.md`.
fn documents(folders: &[(String, String)]) -> Vec<(String, Result<Vec<u8>, Failure>)> {
    folders
        .iter()
        .map(|(folder, _)| {
            let first = format!("{folder}/{SKILL_FILE}");
            match read_one(&first, MAX_DOCUMENT_BYTES) {
                Err(Failure::Missing) => {
                    let second = format!("{folder}/{LOWERCASE_SKILL_FILE}");
                    match read_one(&second, MAX_DOCUMENT_BYTES) {
                        Err(Failure::Missing) => (first, Err(Failure::Missing)),
                        read => (second, read),
                    }
                }
                read => (first, read),
            }
        })
        .collect()
}

/// Why a path could not be read, as the local provider tells the cases apart.
enum Failure {
    /// It does not exist (any more).
    Missing,
    /// It is larger than the limit asked for (its size).
    TooLarge(u64),
    /// Waiting will not help: a permission, a folder where a file was expected.
    Denied(String),
    /// It may pass: an I/O error.
    Transient(String),
}

impl From<std::io::Error> for Failure {
    fn from(e: std::io::Error) -> Failure {
        match e.kind() {
            std::io::ErrorKind::NotFound => Failure::Missing,
            std::io::ErrorKind::PermissionDenied => Failure::Denied(e.to_string()),
            _ => Failure::Transient(e.to_string()),
        }
    }
}

/// A folder's entries, symlinks not followed.
fn list_dir(path: &str) -> Result<Vec<(String, layout::EntryKind)>, Failure> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let kind = if kind.is_symlink() {
            layout::EntryKind::Symlink
        } else if kind.is_dir() {
            layout::EntryKind::Directory
        } else if kind.is_file() {
            layout::EntryKind::File
        } else {
            layout::EntryKind::Other
        };
        // A name that is not UTF-8 could not be served back.
        if let Ok(name) = entry.file_name().into_string() {
            out.push((name, kind));
        }
    }
    Ok(out)
}

/// A whole regular file of at most `limit` bytes, symlinks followed inside
/// the grant.
fn read_one(path: &str, limit: u64) -> Result<Vec<u8>, Failure> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Failure::Denied("not a regular file".to_string()));
    }
    if meta.len() > limit {
        return Err(Failure::TooLarge(meta.len()));
    }
    Ok(std::fs::read(path)?)
}

/// What went wrong, in the local provider's words.
fn message(e: &Failure) -> String {
    match e {
        Failure::Missing => "does not exist".to_string(),
        Failure::TooLarge(n) => format!("file is larger than the limit ({n} bytes)"),
        Failure::Denied(m) | Failure::Transient(m) => m.clone(),
    }
}

fn read_error(path: &str, e: Failure) -> ProviderError {
    match e {
        Failure::Missing => ProviderError::NotFound(format!("{path} does not exist")),
        Failure::TooLarge(n) => ProviderError::Invalid(format!("{path}: {}", too_large(n))),
        other => ProviderError::Io(format!("{path}: {}", message(&other))),
    }
}

fn diagnostic(severity: Severity, path: &str, finding: Finding) -> Diagnostic {
    Diagnostic {
        severity,
        path: path.to_string(),
        line: finding.line,
        field: finding.field,
        message: finding.message,
    }
}

fn error(path: &str, message: String) -> Diagnostic {
    Diagnostic {
        severity: Severity::Error,
        path: path.to_string(),
        line: None,
        field: None,
        message,
    }
}
