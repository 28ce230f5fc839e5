//! Moving skills: archiving the candidates of a review (after a person
//! said so), remembering what moved so one command undoes it, and
//! restoring one by name. Nothing is deleted or overwritten, and an
//! archive folder that is a link is refused.

use super::{ARCHIVE_DIR, Archivable, HANDFUL, Report};
use crate::error::Error;
use crate::store::UsageStore;
use serde_json::{Value, json};
use skillhost::paths::canonical_or_lexical;
use skillhost_skill::frontmatter::{MAX_DOCUMENT_BYTES, parse_document};
use skillhost_skill::layout::{SKILL_FILE, markdown_stem};
use std::io::Read;
use std::path::{Path, PathBuf};

/// A skill moved by [`archive`] or [`restore`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// The skill's name.
    pub name: String,
    /// Where it was.
    pub from: PathBuf,
    /// Where it is now.
    pub to: PathBuf,
}

/// What [`archive`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Archived {
    /// Skills moved into an archive folder.
    pub moved: Vec<Moved>,
    /// Candidates left where they are, and why.
    pub skipped: Vec<(String, String)>,
}

/// Moves every archivable candidate of `report` into its root's archive
/// folder. A skill whose archived name is taken stays where it is.
pub fn archive(report: &Report) -> Archived {
    let mut done = Archived::default();
    for candidate in report.candidates() {
        let name = candidate.name.clone();
        match &candidate.archivable {
            Archivable::No(reason) => done.skipped.push((name, reason.clone())),
            Archivable::Yes { root, entry } => match move_into_archive(root, entry) {
                Ok(to) => done.moved.push(Moved {
                    name,
                    from: entry.clone(),
                    to,
                }),
                Err(e) => done.skipped.push((name, e.to_string())),
            },
        }
    }
    done
}

/// Whether archiving `report`'s candidates must be confirmed by a person:
/// more than [`HANDFUL`] of them would move, or any lies outside `own`
/// (skillhost's state folder), that is, in a folder of the user's.
pub fn needs_confirmation(report: &Report, own: &Path) -> bool {
    let moving: Vec<&PathBuf> = report
        .candidates()
        .filter_map(|c| match &c.archivable {
            Archivable::Yes { entry, .. } => Some(entry),
            Archivable::No(_) => None,
        })
        .collect();
    let own = canonical_or_lexical(own);
    moving.len() > HANDFUL || moving.iter().any(|entry| !entry.starts_with(&own))
}

/// Keeps what `archived` moved in `store` as the batch `curate --undo`
/// moves back (a run that moved nothing leaves the previous batch).
pub fn remember(store: &UsageStore, archived: &Archived) -> Result<(), Error> {
    if archived.moved.is_empty() {
        return Ok(());
    }
    let moved: Vec<Value> = archived
        .moved
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "from": m.from.display().to_string(),
                "to": m.to.display().to_string(),
            })
        })
        .collect();
    store.set_last_archive(Some(&json!({ "moved": moved })))
}

/// Moves every skill the latest `curate --archive` moved back where it was
/// (one command undoes one archive), restarting each one's grace period.
/// A skill whose old place is taken again, or whose archived copy is gone,
/// stays as it is and is reported with why.
pub fn undo(store: &UsageStore) -> Result<Undone, Error> {
    let Some(batch) = store.last_archive()? else {
        return Err(Error::Invalid {
            field: "undo",
            reason: "no archive to undo: the latest `curate --archive` was undone, or none ran"
                .to_string(),
        });
    };
    let mut back = Vec::new();
    let mut kept = Vec::new();
    for item in batch["moved"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let field = |key: &str| item[key].as_str().unwrap_or_default().to_string();
        let (name, from, to) = (
            field("name"),
            PathBuf::from(field("from")),
            PathBuf::from(field("to")),
        );
        // The record is the store's, but the paths are checked as if not:
        // only an entry of an archive folder goes back, to the folder above it.
        let sound = to
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == ARCHIVE_DIR)
            && to.parent().and_then(Path::parent) == from.parent()
            && to.file_name() == from.file_name();
        if !sound {
            kept.push((
                name,
                "its record does not name an archived skill".to_string(),
            ));
            continue;
        }
        match move_without_overwrite(&to, &from) {
            Ok(()) => {
                store.restart_grace(&name)?;
                back.push(Moved {
                    name,
                    from: to,
                    to: from,
                });
            }
            Err(e) => kept.push((name, e.to_string())),
        }
    }
    store.set_last_archive(None)?;
    Ok(Undone { back, kept })
}

/// What [`undo`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Undone {
    /// Skills moved back where they were.
    pub back: Vec<Moved>,
    /// Skills left archived, and why.
    pub kept: Vec<(String, String)>,
}

pub(super) fn move_into_archive(root: &Path, entry: &Path) -> Result<PathBuf, Error> {
    let archive = root.join(ARCHIVE_DIR);
    not_a_link(&archive)?;
    std::fs::create_dir_all(&archive).map_err(Error::io(&archive))?;
    // Made between the check and here by someone else: check again.
    not_a_link(&archive)?;
    let Some(file_name) = entry.file_name() else {
        return Err(Error::Invalid {
            field: "skill path",
            reason: format!("{} has no file name", entry.display()),
        });
    };
    let to = archive.join(file_name);
    move_without_overwrite(entry, &to)?;
    Ok(to)
}

/// Refuses an archive folder that is a symlink, as `mirror` refuses one in
/// its output: a `.archive` link planted in a root (a cloned repository's)
/// would move the user's skills wherever it points, while the message
/// named the link.
fn not_a_link(archive: &Path) -> Result<(), Error> {
    match std::fs::symlink_metadata(archive) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Error::Invalid {
            field: "archive folder",
            reason: format!(
                "{} is a symlink; skills are only archived into a real folder",
                skillhost::text::escaped(&archive.display().to_string())
            ),
        }),
        _ => Ok(()),
    }
}

/// Renames `from` to `to` unless something is at `to` already.
fn move_without_overwrite(from: &Path, to: &Path) -> Result<(), Error> {
    if to.symlink_metadata().is_ok() {
        return Err(Error::Exists {
            path: to.to_path_buf(),
        });
    }
    std::fs::rename(from, to).map_err(Error::io(from))
}

/// Moves the archived skill `name` back into its root (the first of
/// `roots`, in order, whose archive holds it) and gives it a new grace
/// period in `store`.
pub fn restore(store: &UsageStore, roots: &[PathBuf], name: &str) -> Result<Moved, Error> {
    let mut searched = Vec::new();
    for root in roots {
        let archive = root.join(ARCHIVE_DIR);
        searched.push(archive.display().to_string());
        not_a_link(&archive)?;
        let Ok(entries) = std::fs::read_dir(&archive) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for entry in entries {
            if archived_name(&entry).as_deref() != Some(name) {
                continue;
            }
            let Some(file_name) = entry.file_name() else {
                continue;
            };
            let to = root.join(file_name);
            move_without_overwrite(&entry, &to)?;
            store.restart_grace(name)?;
            return Ok(Moved {
                name: name.to_string(),
                from: entry,
                to,
            });
        }
    }
    Err(Error::NotArchived {
        name: name.to_string(),
        searched: if searched.is_empty() {
            "no writable root".into()
        } else {
            searched.join(", ")
        },
    })
}

/// The name of the skill an archive entry holds, as discovery would name
/// it: the frontmatter's `name`, else the folder's name or the file's stem.
pub(super) fn archived_name(entry: &Path) -> Option<String> {
    let file_name = entry.file_name()?.to_str()?;
    let meta = std::fs::metadata(entry).ok()?;
    let (document, default_name) = if meta.is_dir() {
        (entry.join(SKILL_FILE), file_name)
    } else {
        (entry.to_path_buf(), markdown_stem(file_name)?)
    };
    let mut bytes = Vec::new();
    // Only a regular file is read: a FIFO planted in the archive would
    // block the curator.
    skillhost::paths::open_regular(&document, std::fs::OpenOptions::new().read(true))
        .ok()?
        .take(MAX_DOCUMENT_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(match parse_document(&bytes, default_name) {
        Ok(doc) => doc.frontmatter.name,
        Err(_) => default_name.to_string(),
    })
}
