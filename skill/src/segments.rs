//! Path segment rules for everything a provider, a mirror or a client names.
//!
//! A path crossing a trust boundary is only ever joined to a base after it
//! passed one of these checks: no empty, `.` or `..` segment (so it cannot
//! climb out of its base or alias another path), no NUL or other control
//! character, and no backslash in a relative path. Paths are `/`-separated
//! text, never host paths.

/// Why a path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadPath {
    /// It is empty.
    Empty,
    /// A relative path starts with `/`, or an absolute one does not.
    WrongAnchor,
    /// It has an empty, `.` or `..` segment.
    DotOrEmptySegment,
    /// It holds a control character (NUL, newline, ANSI escape...).
    ControlCharacter,
    /// It holds a backslash, which some readers take for a separator.
    Backslash,
}

impl std::fmt::Display for BadPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BadPath::Empty => "the path is empty",
            BadPath::WrongAnchor => {
                "the path is anchored wrongly (absolute where relative is required, or the reverse)"
            }
            BadPath::DotOrEmptySegment => "the path has an empty, '.' or '..' segment",
            BadPath::ControlCharacter => "the path holds a control character",
            BadPath::Backslash => "the path holds a backslash",
        })
    }
}

impl std::error::Error for BadPath {}

fn check_segments(segments: &str, backslash: bool) -> Result<(), BadPath> {
    if segments.chars().any(char::is_control) {
        return Err(BadPath::ControlCharacter);
    }
    if !backslash && segments.contains('\\') {
        return Err(BadPath::Backslash);
    }
    if segments
        .split('/')
        .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err(BadPath::DotOrEmptySegment);
    }
    Ok(())
}

/// Checks a path relative to some base (`references/a.md`): it cannot
/// start with `/` and cannot leave its base. Such paths end up in URIs and
/// on other systems, so a backslash is refused too.
pub fn check_relative(path: &str) -> Result<(), BadPath> {
    if path.is_empty() {
        return Err(BadPath::Empty);
    }
    if path.starts_with('/') {
        return Err(BadPath::WrongAnchor);
    }
    check_segments(path, false)
}

/// Checks an absolute, normalised path (`/skills/0/pdf/SKILL.md`): it
/// starts with `/`, and no segment after it is empty, `.` or `..` or holds
/// a control character. A backslash is an ordinary character of a file
/// name here: these paths only ever name files through a grant.
pub fn check_absolute(path: &str) -> Result<(), BadPath> {
    let Some(rest) = path.strip_prefix('/') else {
        return Err(if path.is_empty() {
            BadPath::Empty
        } else {
            BadPath::WrongAnchor
        });
    };
    if rest.is_empty() {
        return Err(BadPath::Empty);
    }
    check_segments(rest, true)
}

/// Whether `path` is relative and stays inside its base.
pub fn is_relative(path: &str) -> bool {
    check_relative(path).is_ok()
}

/// Whether `path` is absolute and normalised.
pub fn is_absolute(path: &str) -> bool {
    check_absolute(path).is_ok()
}

/// `path` relative to `prefix` when it is `prefix` itself (empty) or below
/// it; `/skills/10` is not below `/skills/1`.
pub fn strip_prefix<'a>(path: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(prefix)?;
    if rest.is_empty() || prefix.ends_with('/') {
        Some(rest)
    } else {
        rest.strip_prefix('/')
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_stay_inside_their_base() {
        for good in ["SKILL.md", "references/a.md", "a/b/c", "é/ü.md", "..a/b.."] {
            assert_eq!(check_relative(good), Ok(()), "{good}");
        }
        for (bad, why) in [
            ("", BadPath::Empty),
            ("/etc/passwd", BadPath::WrongAnchor),
            ("../x", BadPath::DotOrEmptySegment),
            ("a/../../x", BadPath::DotOrEmptySegment),
            ("a//b", BadPath::DotOrEmptySegment),
            ("a/./b", BadPath::DotOrEmptySegment),
            ("a/", BadPath::DotOrEmptySegment),
            ("a\0b", BadPath::ControlCharacter),
            ("a\nb", BadPath::ControlCharacter),
            ("a\u{1b}[31m", BadPath::ControlCharacter),
            ("a\\..\\b", BadPath::Backslash),
        ] {
            assert_eq!(check_relative(bad), Err(why), "{bad:?}");
        }
    }

    #[test]
    fn absolute_paths_are_normalised() {
        assert!(is_absolute("/skills/0/pdf/SKILL.md"));
        for bad in [
            "",
            "/",
            "skills/0",
            "/skills/0/",
            "/skills//0",
            "/skills/0/../1",
            "/a\nb",
        ] {
            assert!(!is_absolute(bad), "{bad:?}");
        }
        assert!(is_absolute("/skills/0/odd\\name"));
    }

    #[test]
    fn prefixes_end_at_a_segment_boundary() {
        assert_eq!(strip_prefix("/skills/1/x", "/skills/1"), Some("x"));
        assert_eq!(strip_prefix("/skills/1", "/skills/1"), Some(""));
        assert_eq!(strip_prefix("/skills/10", "/skills/1"), None);
        assert_eq!(strip_prefix("/other", "/skills/1"), None);
    }
}
