//! Host paths as the registry compares them, and files found on disk opened
//! without trusting what they are.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

/// `path` made absolute against the current folder, `.` and `..` resolved
/// lexically (the path may not exist, so it cannot be canonicalised).
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// `path` with symlinks resolved where it exists (its parent otherwise), so
/// it compares with the canonical roots the grants use.
pub fn canonical_or_lexical(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let absolute = absolute(path);
    match (absolute.parent(), absolute.file_name()) {
        (Some(parent), Some(name)) => {
            std::fs::canonicalize(parent).map_or(absolute.clone(), |p| p.join(name))
        }
        _ => absolute,
    }
}

/// Opens `path` with `options` without ever waiting on it: a FIFO, a
/// socket or a device someone planted where a file was expected is opened
/// non-blocking and refused once the opened descriptor says what it is
/// (so nothing can be swapped in between the check and the use).
pub fn open_regular(path: &Path, options: &mut OpenOptions) -> std::io::Result<File> {
    let not_regular =
        || std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file");
    // A socket cannot be opened at all: the same refusal.
    let file = match options.custom_flags(libc::O_NONBLOCK).open(path) {
        Err(e) if e.raw_os_error() == Some(libc::ENXIO) => return Err(not_regular()),
        opened => opened?,
    };
    if !file.metadata()?.is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// Reads a regular file of at most `max` bytes (see [`open_regular`]).
pub fn read_regular(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path, OpenOptions::new().read(true))?;
    // Sized from the file's length (within `max`): growing by doubling would
    // hold up to twice a large file (reading 300 MB peaked at 680 MB).
    let expected = file.metadata()?.len().min(max).saturating_add(1);
    let mut bytes = Vec::with_capacity(usize::try_from(expected).unwrap_or(0));
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {max} bytes"),
        ));
    }
    Ok(bytes)
}

/// The folder skillhost keeps the user's state in (trusted configuration
/// files, the compile cache's key, the usage store):
/// `$SKILLHOST_STATE_DIR`, else `$XDG_STATE_HOME/skillhost`, else
/// `~/.local/state/skillhost`.
pub fn state_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SKILLHOST_STATE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    // The XDG rules ignore relative values.
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").map(PathBuf::from)
        && dir.is_absolute()
    {
        return Some(dir.join("skillhost"));
    }
    std::env::home_dir().map(|home| home.join(".local/state/skillhost"))
}

/// [`state_dir`], or an error saying how to give one, for the records that
/// cannot be kept anywhere else (trusted configurations, approvals).
pub fn required_state_dir() -> Result<PathBuf, crate::error::Error> {
    state_dir().ok_or_else(|| crate::error::Error::Io {
        path: PathBuf::from("~/.local/state/skillhost"),
        error: std::io::Error::new(
            std::io::ErrorKind::NotFound,
            "no state folder: set SKILLHOST_STATE_DIR or HOME",
        ),
    })
}

/// Makes sure `dir` is a folder only its owner can change: created with
/// mode 0700 when missing; refused when it is a symlink, belongs to
/// another user, or is writable by group or others (anyone who could
/// write there could plant what skillhost would then trust).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let meta = std::fs::symlink_metadata(dir)?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    let why = if !meta.is_dir() {
        Some("it is not a folder (a symlink, say)".to_string())
    } else if meta.uid() != me {
        Some(format!("it belongs to user {}, not to {me}", meta.uid()))
    } else if meta.mode() & 0o022 != 0 {
        Some(format!(
            "others may write in it (mode {:o})",
            meta.mode() & 0o777
        ))
    } else {
        None
    };
    match why {
        Some(why) => Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} is not a private folder: {why}", dir.display()),
        )),
        None => Ok(()),
    }
}

/// Makes a FIFO at `path` (for the tests, here and in the crates above, of
/// files that must not be one): opening it for reading the ordinary way
/// would wait for a writer forever. Test support, not embedding surface.
#[doc(hidden)]
pub fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a node.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_where_a_file_was_expected_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("skillhost.toml");
        mkfifo(&fifo);
        let started = std::time::Instant::now();
        let error = read_regular(&fifo, 1024).unwrap_err();
        assert_eq!(error.to_string(), "not a regular file");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        std::fs::write(dir.path().join("big"), vec![0u8; 11]).unwrap();
        assert!(read_regular(&dir.path().join("big"), 10).is_err());
        assert_eq!(read_regular(&dir.path().join("big"), 11).unwrap().len(), 11);
    }

    #[test]
    fn a_folder_others_may_write_in_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("state");
        private_dir(&private).unwrap();
        std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o777)).unwrap();
        let error = private_dir(&private).unwrap_err();
        assert!(error.to_string().contains("others may write"), "{error}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        assert!(private_dir(&link).is_err());
    }

    #[test]
    fn absolute_resolves_dots_lexically() {
        assert_eq!(
            absolute(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
    }
}
