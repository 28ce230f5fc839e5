//! Where skills are found: the root folder names agents use, and which
//! entries of a skills root are skills.
//!
//! A root holds bundles (`<root>/<name>/SKILL.md`, the folder naming the
//! skill; a lowercase `skill.md` is the document of a folder without a
//! `SKILL.md`, as the Agent Skills reference reads it) and flat skills (`<root>/<name>.md`, which count only when the
//! file opens with frontmatter: a `README.md` beside the skills is not
//! one). Nothing deeper is ever taken for a skill: a bundle's references,
//! scripts and nested `SKILL.md` files are its resources. Hidden entries
//! (`.git`, `.archive`) are skipped. The local provider and the benchmark's
//! native baseline both classify entries with [`classify`], so the two can
//! never disagree about what a skill is.

/// The document of a bundle skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The lowercase spelling of a bundle's document, read only when the
/// folder has no [`SKILL_FILE`] (the Agent Skills reference reads it too;
/// Claude Code and the spec's client guide look for `SKILL.md` only).
pub const LOWERCASE_SKILL_FILE: &str = "skill.md";

/// The names a bundle's document may have, in the order they are looked for.
pub const DOCUMENT_NAMES: [&str; 2] = [SKILL_FILE, LOWERCASE_SKILL_FILE];

/// The skill folders agents keep under a project and under the home
/// folder, highest precedence first.
pub const ROOT_NAMES: [&str; 2] = [".agents/skills", ".claude/skills"];

/// What a directory entry is, symlinks not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A folder.
    Directory,
    /// A symbolic link: what it is depends on its target.
    Symlink,
    /// Anything else (FIFO, socket, device): never a skill.
    Other,
}

/// What an entry of a skills root may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Candidate {
    /// A folder: a skill if it holds [`SKILL_FILE`] (or, failing that,
    /// [`LOWERCASE_SKILL_FILE`]); named after the folder unless its
    /// frontmatter says otherwise.
    Bundle {
        /// The folder's name.
        default_name: String,
    },
    /// A `.md` file: a skill if it opens with frontmatter; named after its
    /// stem unless its frontmatter says otherwise.
    Flat {
        /// The file's stem.
        default_name: String,
    },
    /// A symlink: classify its target's kind again with [`classify`].
    Link,
}

/// Whether an entry is hidden and never examined.
pub fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

/// `name` without its `.md` extension (any case), if it has one and a
/// non-empty stem.
pub fn markdown_stem(name: &str) -> Option<&str> {
    let (stem, ext) = name.rsplit_once('.')?;
    (ext.eq_ignore_ascii_case("md") && !stem.is_empty()).then_some(stem)
}

/// What the entry `name` of kind `kind`, directly inside a skills root, may
/// be; `None` when it can never be a skill. A `SKILL.md` (or `skill.md`)
/// lying directly in a root is not a flat skill named `SKILL` (or `skill`):
/// its folder is the skill, so the root was given one level too deep (see
/// [`is_misplaced_document`]).
pub fn classify(name: &str, kind: EntryKind) -> Option<Candidate> {
    if is_hidden(name) {
        return None;
    }
    match kind {
        EntryKind::Directory => Some(Candidate::Bundle {
            default_name: name.to_string(),
        }),
        EntryKind::Symlink => Some(Candidate::Link),
        EntryKind::File => markdown_stem(name).map(|stem| Candidate::Flat {
            default_name: stem.to_string(),
        }),
        EntryKind::Other => None,
    }
}

/// Whether `name` is one of the names a bundle's document may have
/// ([`DOCUMENT_NAMES`]; other casings such as `Skill.md` are not).
pub fn is_document_name(name: &str) -> bool {
    DOCUMENT_NAMES.contains(&name)
}

/// Whether a flat candidate is really a bundle's document placed directly
/// in a root (the root should be its parent).
pub fn is_misplaced_document(name: &str) -> bool {
    is_document_name(name)
}

/// The document of a folder holding the entries `names`: [`SKILL_FILE`] if
/// it is there, else [`LOWERCASE_SKILL_FILE`] if that is.
pub fn bundle_document<'a>(names: impl IntoIterator<Item = &'a str>) -> Option<&'static str> {
    let mut lowercase = false;
    for name in names {
        if name == SKILL_FILE {
            return Some(SKILL_FILE);
        }
        lowercase |= name == LOWERCASE_SKILL_FILE;
    }
    lowercase.then_some(LOWERCASE_SKILL_FILE)
}

/// A name that is meant as a bundle's document but will never be read as
/// one (`Skill.md`, `SKILL.MD`): only [`DOCUMENT_NAMES`] are.
pub fn is_miscased_document(name: &str) -> bool {
    name.eq_ignore_ascii_case(SKILL_FILE) && !is_document_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundles_flat_files_and_links_are_candidates() {
        assert_eq!(
            classify("pdf", EntryKind::Directory),
            Some(Candidate::Bundle {
                default_name: "pdf".into()
            })
        );
        assert_eq!(
            classify("notes.MD", EntryKind::File),
            Some(Candidate::Flat {
                default_name: "notes".into()
            })
        );
        assert_eq!(
            classify("linked", EntryKind::Symlink),
            Some(Candidate::Link)
        );
    }

    #[test]
    fn hidden_entries_other_files_and_special_files_are_not() {
        assert_eq!(classify(".git", EntryKind::Directory), None);
        assert_eq!(classify(".hidden.md", EntryKind::File), None);
        assert_eq!(classify("script.sh", EntryKind::File), None);
        assert_eq!(classify(".md", EntryKind::File), None);
        assert_eq!(classify("fifo.md", EntryKind::Other), None);
    }

    #[test]
    fn a_document_directly_in_a_root_is_misplaced() {
        assert!(is_misplaced_document("SKILL.md"));
        // The lowercase spelling is a bundle's document too, never a flat
        // skill named `skill`.
        assert!(is_misplaced_document("skill.md"));
        assert!(!is_misplaced_document("Skill.md"));
        assert!(!is_misplaced_document("notes.md"));
    }

    #[test]
    fn a_folder_document_is_skill_md_else_lowercase_skill_md() {
        assert_eq!(bundle_document(["a.md", "SKILL.md"]), Some(SKILL_FILE));
        assert_eq!(bundle_document(["skill.md", "SKILL.md"]), Some(SKILL_FILE));
        assert_eq!(
            bundle_document(["skill.md", "scripts"]),
            Some(LOWERCASE_SKILL_FILE)
        );
        assert_eq!(bundle_document(["Skill.md", "SKILL.MD"]), None);
        assert!(is_miscased_document("Skill.md"));
        assert!(is_miscased_document("SKILL.MD"));
        assert!(!is_miscased_document("SKILL.md"));
        assert!(!is_miscased_document("skill.md"));
    }
}
