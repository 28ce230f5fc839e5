//! What a PATH given to `validate` holds: one skill (a folder with its
//! document, or a flat `.md` file), a folder of skills, or nothing that can
//! be checked, with the real reason.

use super::Problem;
use super::profile::Profile;
use skillhost_skill::layout;
use std::path::{Path, PathBuf};

/// What to check for one PATH.
#[derive(Debug)]
pub enum Target {
    /// Nothing can be checked; the problem says why.
    Refused(Problem),
    /// One skill: its document, found by a local provider over `root`.
    Skill {
        /// The folder holding the skill's entry (its folder, or the flat file).
        root: PathBuf,
        /// The document the loader reads.
        document: PathBuf,
        /// What was noticed on the way (a `skill.md` that is not read).
        notes: Vec<Problem>,
    },
    /// A folder of skills: every entry the loader takes for a skill.
    Root(PathBuf),
}

/// What `path` holds, for `profile`.
pub fn discover(path: &Path, profile: Profile) -> Target {
    let refused =
        |path: &Path, message: String| Target::Refused(Problem::error(path, "file", message));
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return refused(path, "does not exist".into());
        }
        Err(e) => return refused(path, format!("cannot be read: {e}")),
    };
    let metadata = match std::fs::metadata(&target) {
        Ok(m) => m,
        Err(e) => return refused(&target, format!("cannot be read: {e}")),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if metadata.is_dir() {
        return folder(target, &name);
    }
    if !metadata.is_file() {
        return refused(&target, "is neither a file nor a folder".into());
    }
    if layout::is_document_name(&name) {
        return document_in_folder(target);
    }
    if layout::is_miscased_document(&name) {
        return refused(
            &target,
            format!(
                "is never read as a skill's document: only {} (or {}) is; rename it",
                layout::SKILL_FILE,
                layout::LOWERCASE_SKILL_FILE
            ),
        );
    }
    if layout::markdown_stem(&name).is_none() {
        let what = match profile {
            Profile::Claude => "a skill is a folder holding a SKILL.md, or a flat .md file",
            Profile::AgentSkills => "a skill is a folder holding a SKILL.md",
        };
        return refused(&target, format!("not a Markdown file: {what}"));
    }
    if layout::is_hidden(&name) {
        return refused(&target, hidden());
    }
    let root = target.parent().map(Path::to_path_buf).unwrap_or_default();
    Target::Skill {
        root,
        document: target,
        notes: Vec::new(),
    }
}

fn hidden() -> String {
    "is hidden (its name starts with '.'), and hidden entries are never skills".to_string()
}

/// A folder: a skill if it holds a document, else a folder of skills.
fn folder(dir: PathBuf, name: &str) -> Target {
    let names = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
        Err(e) => {
            return Target::Refused(Problem::error(
                &dir,
                "file",
                format!("cannot be listed: {e}"),
            ));
        }
    };
    let Some(document) = layout::bundle_document(names.iter().map(String::as_str)) else {
        if let Some(miscased) = names.iter().find(|n| layout::is_miscased_document(n)) {
            let message = format!(
                "{}: {miscased} is there, but only {} (or {}) is read as a skill's document; rename it",
                no_skill_md(&dir),
                layout::SKILL_FILE,
                layout::LOWERCASE_SKILL_FILE
            );
            return Target::Refused(Problem::error(&dir, "file", message));
        }
        return Target::Root(dir);
    };
    if layout::is_hidden(name) {
        return Target::Refused(Problem::error(&dir, "file", hidden()));
    }
    match dir.parent() {
        Some(root) => Target::Skill {
            root: root.to_path_buf(),
            document: dir.join(document),
            notes: Vec::new(),
        },
        None => Target::Refused(Problem::error(
            &dir,
            "file",
            "is the top of the filesystem: a skill folder has a folder above it",
        )),
    }
}

/// A file named like a document: its folder is the skill, and the file
/// the loader reads there may be another one.
fn document_in_folder(file: PathBuf) -> Target {
    let Some(dir) = file.parent() else {
        return Target::Refused(Problem::error(&file, "file", "has no folder"));
    };
    let dir_name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match folder(dir.to_path_buf(), &dir_name) {
        Target::Skill {
            root,
            document,
            mut notes,
        } => {
            if document != file {
                notes.push(Problem::warning(
                    &file,
                    "file",
                    format!(
                        "is not read: {} beside it is the skill's document",
                        layout::SKILL_FILE
                    ),
                ));
            }
            Target::Skill {
                root,
                document,
                notes,
            }
        }
        other => other,
    }
}

/// The problem of a folder that yields no skill.
pub fn no_skill_md(dir: &Path) -> String {
    format!("no SKILL.md in {}", dir.display())
}
