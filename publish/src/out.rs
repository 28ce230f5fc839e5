//! Writing into a mirror's output folder without following a symlink in it.
//!
//! The folder may hold anything (it may even be shared with others), so a
//! path inside it is written only through real folders: a symlink (or a
//! FIFO, or anything but a folder) where a folder of the mirror should be
//! is refused, a file is replaced by renaming a new one over it (renaming
//! replaces a link, never writes through it), temporary files are created
//! exclusively under random names, and removal never goes through a link.

use skillhost::Error;
use skillhost::paths::read_regular;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Largest file of a mirror compared before it is rewritten.
const MAX_COMPARED: u64 = 64 * 1024 * 1024;

/// A mirror's output folder.
pub(super) struct Out<'a> {
    root: &'a Path,
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |error| Error::Io {
        path: path.to_path_buf(),
        error,
    }
}

fn refused(path: &Path, why: &str) -> Error {
    Error::Mirror(format!(
        "refusing to write through {}: {why}",
        path.display()
    ))
}

impl<'a> Out<'a> {
    /// The folder `root` (created if needed; it is the user's choice, so
    /// it may itself be a link).
    pub(super) fn new(root: &'a Path) -> Result<Out<'a>, Error> {
        std::fs::create_dir_all(root).map_err(io(root))?;
        Ok(Out { root })
    }

    /// `root/relative` with its folders made, each a real folder; the file
    /// itself, if it exists, must not be a link.
    fn prepare(&self, relative: &str, create: bool) -> Result<PathBuf, Error> {
        let rel = Path::new(relative);
        let mut path = self.root.to_path_buf();
        let components: Vec<Component<'_>> = rel.components().collect();
        for (i, component) in components.iter().enumerate() {
            let Component::Normal(name) = component else {
                return Err(refused(&path.join(rel), "not a plain relative path"));
            };
            path.push(name);
            let last = i + 1 == components.len();
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Err(refused(&path, "it is a symlink"));
                }
                Ok(meta) if !last && !meta.is_dir() => {
                    return Err(refused(&path, "it is not a folder"));
                }
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && !last && create => {
                    std::fs::create_dir(&path).map_err(io(&path))?;
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&path)(e)),
            }
        }
        Ok(path)
    }

    /// Writes `bytes` at `relative` unless it already holds them. Returns
    /// the path and whether it wrote.
    ///
    /// A replaced file gets a modification time in a later second than the
    /// old one: web servers that derive ETags from the time and size
    /// (nginx) would otherwise miss a same-size change made within a second.
    pub(super) fn put(&self, relative: &str, bytes: &[u8]) -> Result<(PathBuf, bool), Error> {
        let path = self.prepare(relative, true)?;
        let old = std::fs::symlink_metadata(&path).ok();
        if let Some(meta) = &old {
            if !meta.is_file() {
                return Err(refused(&path, "it is not a regular file"));
            }
            if read_regular(&path, MAX_COMPARED).is_ok_and(|existing| existing == bytes) {
                return Ok((path, false));
            }
        }
        let parent = path.parent().unwrap_or(self.root);
        let mut tmp = tempfile::Builder::new()
            .prefix(".skillhost-")
            .tempfile_in(parent)
            .map_err(io(parent))?;
        tmp.write_all(bytes).map_err(io(tmp.path()))?;
        if let Some(old) = old.and_then(|m| m.modified().ok()) {
            // The new file's own time, not the clock's: the file system
            // stamps writes from a coarser clock that lags the system's by
            // up to a tick, so just after a second turns the clock says
            // "later second" while the file gets the old one.
            let written = tmp
                .as_file()
                .metadata()
                .and_then(|m| m.modified())
                .unwrap_or_else(|_| SystemTime::now());
            if let Some(later) = later_second(written, old) {
                tmp.as_file().set_modified(later).map_err(io(tmp.path()))?;
            }
        }
        tmp.persist(&path).map_err(|e| io(&path)(e.error))?;
        Ok((path, true))
    }

    /// Removes the file at `relative` (never through a link), and the
    /// folders it leaves empty. Returns its path if it was there.
    pub(super) fn remove(&self, relative: &str) -> Result<Option<PathBuf>, Error> {
        let path = self.prepare(relative, false)?;
        match std::fs::remove_file(&path) {
            Ok(()) => {
                let mut dir = path.parent();
                while let Some(d) = dir {
                    if d == self.root || std::fs::remove_dir(d).is_err() {
                        break;
                    }
                    dir = d.parent();
                }
                Ok(Some(path))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io(&path)(e)),
        }
    }
}

/// The time a replacement written at `written` must carry so that its
/// second is later than `old`'s (`None`: it already is).
fn later_second(written: SystemTime, old: SystemTime) -> Option<SystemTime> {
    let seconds = |t: SystemTime| t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    (seconds(written) <= seconds(old)).then(|| UNIX_EPOCH + Duration::from_secs(seconds(old) + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_written_or_removed_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("SKILL.md"), b"theirs").unwrap();
        let out = Out::new(dir.path()).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("evil")).unwrap();
        assert!(out.put("evil/SKILL.md", b"mine").is_err());
        assert!(out.remove("evil/SKILL.md").is_err());
        assert_eq!(
            std::fs::read(elsewhere.path().join("SKILL.md")).unwrap(),
            b"theirs"
        );
        std::os::unix::fs::symlink(
            elsewhere.path().join("SKILL.md"),
            dir.path().join("index.json"),
        )
        .unwrap();
        assert!(out.put("index.json", b"{}").is_err());
        assert_eq!(
            std::fs::read(elsewhere.path().join("SKILL.md")).unwrap(),
            b"theirs"
        );
    }

    #[test]
    fn a_file_is_written_once_and_left_alone_when_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let out = Out::new(dir.path()).unwrap();
        assert!(out.put("a/b/c.md", b"x").unwrap().1);
        assert!(!out.put("a/b/c.md", b"x").unwrap().1);
        assert!(out.put("a/b/c.md", b"y").unwrap().1);
        assert_eq!(
            out.remove("a/b/c.md").unwrap(),
            Some(dir.path().join("a/b/c.md"))
        );
        assert!(!dir.path().join("a").exists(), "emptied folders go too");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert!(leftovers.is_empty(), "no temporary file is left behind");
    }

    #[test]
    fn a_replacement_stamped_in_the_old_second_moves_to_the_next_even_after_the_clock_turned() {
        let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
        // Stamped 10.999 over 10.200 (the clock may already read 11.001).
        assert_eq!(later_second(at(10_999), at(10_200)), Some(at(11_000)));
        // An old time already in the future (an earlier bump) is passed.
        assert_eq!(later_second(at(10_500), at(12_000)), Some(at(13_000)));
        // A later second stands.
        assert_eq!(later_second(at(11_000), at(10_999)), None);
    }

    #[test]
    fn every_replacement_has_a_later_second_than_the_file_it_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let out = Out::new(dir.path()).unwrap();
        let path = dir.path().join("index.json");
        let second = |p: &Path| {
            std::fs::metadata(p)
                .unwrap()
                .modified()
                .unwrap()
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_secs()
        };
        out.put("index.json", b"0").unwrap();
        for n in 1..20u8 {
            let before = second(&path);
            assert!(out.put("index.json", &[b'0' + n % 10, n]).unwrap().1);
            assert!(
                second(&path) > before,
                "replacement {n} kept second {before}"
            );
        }
    }
}
