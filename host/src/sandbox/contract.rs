//! The one model of what crosses the provider contract, whatever version a
//! component was built for. Each module under `bindings/` converts its
//! version's calls and answers into these types, and everything above the
//! sandbox (the boundary checks, the registry, the conformance kit) reads
//! only these.
//!
//! The records every version spells the same way are the latest version's
//! own. A skill entry is the host's: from 0.3.0 on, a provider sends its
//! frontmatter only as JSON and the host derives the typed fields with the
//! format crate's rules; a 0.1.0 or 0.2.0 component sent them already
//! normalised, and those are kept as given, so such a component keeps
//! working exactly as it did.

use super::bindings::latest::types as wit;
use skillhost_skill::frontmatter::Frontmatter;

pub(crate) use wit::{
    ChangeEvent, ChangeKind, Diagnostic, ProviderConfig, ProviderError, ProviderManifest, Resource,
    Severity, SnapshotRequest,
};

/// One skill as a provider listed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkillEntry {
    /// The name the provider serves it under.
    pub name: String,
    /// The YAML between the `---` lines, exactly as written.
    pub raw: String,
    /// The frontmatter as one JSON object, from the provider's own parse
    /// (for 0.1.0, made by the host from `raw`).
    pub json: String,
    /// The document: a guest path, or a path in the provider's namespace.
    pub path: String,
    /// The folder its relative paths resolve against.
    pub base: String,
    /// The typed fields a 0.1.0 or 0.2.0 component gave; `None` for a
    /// 0.3.0 entry, whose fields the host derives from `json`.
    pub given: Option<Box<Frontmatter>>,
}

/// What a provider sees, whole or as the changes since an earlier one.
#[derive(Debug, Clone)]
pub(crate) struct Observation {
    /// Identifies this observation; passed back as `known`.
    pub epoch: u64,
    /// `None`: `skills` is the whole list; `Some(e)`: the changes since `e`.
    pub base: Option<u64>,
    /// Entries (all, or those added or changed since `base`).
    pub skills: Vec<SkillEntry>,
    /// Documents gone since `base`.
    pub removed: Vec<String>,
    /// Always the complete current list.
    pub diagnostics: Vec<Diagnostic>,
    /// False when some source could not be read.
    pub complete: bool,
}

/// A loaded skill: its entry read again, and its body.
#[derive(Debug, Clone)]
pub(crate) struct SkillDocument {
    /// The entry, as of this read.
    pub entry: SkillEntry,
    /// The Markdown after the frontmatter.
    pub body: String,
}
