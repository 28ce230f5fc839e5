//! Which skill names are safe to use as identifiers.
//!
//! A skill name ends up in slash commands, tool arguments, `skill://` URIs,
//! file paths and the listing the model reads, so the lenient loader still
//! refuses names that could escape a folder, break a line-oriented listing,
//! open or close a tag in it, or impersonate a remote namespace.

/// Longest accepted name, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// Why a name is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnsafeName {
    /// The name is empty (or only whitespace).
    Empty,
    /// The name has more than [`MAX_NAME_CHARS`] characters.
    TooLong(usize),
    /// The name contains a path separator.
    PathSeparator(char),
    /// The name is `.` or `..`.
    DotSegment,
    /// The name contains a control character (newline, NUL, tab, ...).
    ControlCharacter(char),
    /// The name contains `:`, reserved for remote namespaces (`origin:name`).
    NamespaceSeparator,
    /// The name starts or ends with whitespace.
    SurroundingWhitespace,
    /// The name contains `<` or `>`, which would read as markup in the
    /// listing the model is given.
    AngleBracket(char),
    /// The name contains a Unicode line or paragraph separator.
    LineSeparator(char),
}

impl std::fmt::Display for UnsafeName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnsafeName::Empty => write!(f, "name is empty"),
            UnsafeName::TooLong(n) => {
                write!(f, "name has {n} characters, more than {MAX_NAME_CHARS}")
            }
            UnsafeName::PathSeparator(c) => {
                write!(f, "name contains the path separator {c:?}")
            }
            UnsafeName::DotSegment => write!(f, "name is a relative path segment"),
            UnsafeName::ControlCharacter(c) => {
                write!(f, "name contains the control character {c:?}")
            }
            UnsafeName::NamespaceSeparator => {
                write!(f, "name contains ':', which is reserved for namespaces")
            }
            UnsafeName::SurroundingWhitespace => {
                write!(f, "name starts or ends with whitespace")
            }
            UnsafeName::AngleBracket(c) => {
                write!(f, "name contains {c:?}, which reads as markup")
            }
            UnsafeName::LineSeparator(c) => {
                write!(f, "name contains the line separator {c:?}")
            }
        }
    }
}

impl std::error::Error for UnsafeName {}

/// Checks that `name` is safe to use as a skill identifier.
pub fn check_name(name: &str) -> Result<(), UnsafeName> {
    // Almost every name is a short run of letters, digits and `-_.`: such a
    // name breaks none of the rules below, so one pass over its bytes
    // settles it (it runs for every skill, twice when a provider checks too).
    let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.');
    if !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.bytes().all(plain)
        && name != "."
        && name != ".."
    {
        return Ok(());
    }
    if name.trim().is_empty() {
        return Err(UnsafeName::Empty);
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(UnsafeName::ControlCharacter(c));
    }
    if name.trim() != name {
        return Err(UnsafeName::SurroundingWhitespace);
    }
    let count = name.chars().count();
    if count > MAX_NAME_CHARS {
        return Err(UnsafeName::TooLong(count));
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '/' | '\\')) {
        return Err(UnsafeName::PathSeparator(c));
    }
    if name == "." || name == ".." {
        return Err(UnsafeName::DotSegment);
    }
    if name.contains(':') {
        return Err(UnsafeName::NamespaceSeparator);
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '<' | '>')) {
        return Err(UnsafeName::AngleBracket(c));
    }
    if let Some(c) = name.chars().find(|c| matches!(c, '\u{2028}' | '\u{2029}')) {
        return Err(UnsafeName::LineSeparator(c));
    }
    Ok(())
}

/// Whether `name` can stand in commands and URIs as it is: safe
/// ([`check_name`]) and one word (`/API Fuzzing for Bug Bounty` is no
/// slash command).
pub fn is_identifier(name: &str) -> bool {
    check_name(name).is_ok() && !name.chars().any(char::is_whitespace)
}

/// The name a skill is served under when it declares `declared` and lives
/// in the folder (or flat file) named `folder`: the declared name when it
/// is an identifier; the folder's when the declared one is a display name
/// (it has spaces) or uses the `:` the host keeps for namespaces
/// (`ckm:design-system`), so such a skill is served, not refused, and
/// keeps its text as its display name. A name that is unsafe in any other
/// way (a control character, a separator, markup) is refused.
pub fn served<'a>(declared: &'a str, folder: &'a str) -> Result<&'a str, UnsafeName> {
    let usable_folder = || declared != folder && is_identifier(folder);
    match check_name(declared) {
        Ok(()) if is_identifier(declared) => Ok(declared),
        Ok(()) if usable_folder() => Ok(folder),
        Ok(()) => Ok(declared),
        Err(UnsafeName::NamespaceSeparator) if usable_folder() => Ok(folder),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_display_name_or_a_prefixed_name_is_served_under_its_folder() {
        assert_eq!(served("pdf", "pdf-folder"), Ok("pdf"));
        assert_eq!(
            served("API Fuzzing for Bug Bounty", "api-fuzzing-bug-bounty"),
            Ok("api-fuzzing-bug-bounty")
        );
        assert_eq!(
            served("ckm:design-system", "design-system"),
            Ok("design-system")
        );
        // No usable folder: a display name stays (it is safe), a prefix is refused.
        assert_eq!(
            served("Deploy Helper", "Deploy Helper"),
            Ok("Deploy Helper")
        );
        assert_eq!(served("a:b", "a:b"), Err(UnsafeName::NamespaceSeparator));
        // Unsafe names are refused whatever the folder.
        assert_eq!(
            served("a\nb", "ok"),
            Err(UnsafeName::ControlCharacter('\n'))
        );
        assert_eq!(served("<b>", "ok"), Err(UnsafeName::AngleBracket('<')));
    }

    #[test]
    fn accepts_ordinary_names_including_non_ascii() {
        for name in ["pdf", "writing-plans", "Deploy Helper", "文献综述", "a_b.c"] {
            assert_eq!(check_name(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn refuses_traversal_and_separators() {
        assert_eq!(check_name("../../x"), Err(UnsafeName::PathSeparator('/')));
        assert_eq!(check_name("a\\b"), Err(UnsafeName::PathSeparator('\\')));
        assert_eq!(check_name(".."), Err(UnsafeName::DotSegment));
    }

    #[test]
    fn refuses_control_characters() {
        assert_eq!(check_name("a\nb"), Err(UnsafeName::ControlCharacter('\n')));
        assert_eq!(check_name("a\0b"), Err(UnsafeName::ControlCharacter('\0')));
    }

    #[test]
    fn refuses_long_empty_and_namespaced_names() {
        assert_eq!(check_name(&"a".repeat(65)), Err(UnsafeName::TooLong(65)));
        assert_eq!(check_name(&"a".repeat(64)), Ok(()));
        assert_eq!(check_name(""), Err(UnsafeName::Empty));
        assert_eq!(check_name("."), Err(UnsafeName::DotSegment));
        assert_eq!(check_name(".."), Err(UnsafeName::DotSegment));
        assert_eq!(check_name(&"é".repeat(64)), Ok(()));
        assert_eq!(check_name(" "), Err(UnsafeName::Empty));
        assert_eq!(
            check_name("corp:deploy"),
            Err(UnsafeName::NamespaceSeparator)
        );
        assert_eq!(check_name(" x"), Err(UnsafeName::SurroundingWhitespace));
    }

    #[test]
    fn refuses_markup_and_line_separators() {
        assert_eq!(
            check_name("</available_skills>"),
            Err(UnsafeName::PathSeparator('/'))
        );
        assert_eq!(check_name("a<b"), Err(UnsafeName::AngleBracket('<')));
        assert_eq!(check_name("a>b"), Err(UnsafeName::AngleBracket('>')));
        assert_eq!(
            check_name("a\u{2028}b"),
            Err(UnsafeName::LineSeparator('\u{2028}'))
        );
    }
}
