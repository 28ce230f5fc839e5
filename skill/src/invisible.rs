//! Characters a reader cannot see: Unicode's format characters (category
//! Cf) — the tag block U+E0000–E007F that "ASCII smuggling" hides words in,
//! zero-width spaces and joiners, the byte-order mark U+FEFF, the soft
//! hyphen, bidirectional marks. A model reads them; a person reviewing the
//! same text does not. So they never reach either from a skill's text:
//! the host removes them from everything it shows, and the validator names
//! them.

use std::borrow::Cow;

/// Whether `c` is a format character (Unicode general category Cf, as of
/// Unicode 16), or in the tag block.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{0600}'..='\u{0605}'
            | '\u{061C}'
            | '\u{06DD}'
            | '\u{070F}'
            | '\u{0890}'..='\u{0891}'
            | '\u{08E2}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{110BD}'
            | '\u{110CD}'
            | '\u{13430}'..='\u{1343F}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// Whether `text` holds an invisible character. Every one is outside
/// ASCII, so only the text from the first non-ASCII byte is decoded: most
/// fields are ASCII, and this runs on every field of every skill.
pub fn has_invisible(text: &str) -> bool {
    match text.bytes().position(|b| !b.is_ascii()) {
        // A non-ASCII byte found by position starts a character.
        Some(start) => text[start..].chars().any(is_invisible),
        None => false,
    }
}

/// `text` without its invisible characters (borrowed when it has none).
pub fn strip(text: &str) -> Cow<'_, str> {
    if !has_invisible(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().filter(|&c| !is_invisible(c)).collect())
}

/// The invisible characters of `text`, each once, in order of first
/// appearance, written `U+XXXX` (at most `max` of them).
pub fn named(text: &str, max: usize) -> Vec<String> {
    let mut seen: Vec<char> = Vec::new();
    for c in text.chars().filter(|&c| is_invisible(c)) {
        if !seen.contains(&c) {
            seen.push(c);
            if seen.len() == max {
                break;
            }
        }
    }
    seen.iter()
        .map(|c| format!("U+{:04X}", *c as u32))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_zero_widths_the_bom_and_the_soft_hyphen_are_removed_and_named() {
        // "hi" smuggled in tag characters after a visible word.
        let smuggled = "Formats code\u{E0068}\u{E0069}\u{200B} now\u{FEFF}\u{00AD}";
        assert_eq!(strip(smuggled), "Formats code now");
        assert_eq!(
            named(smuggled, 8),
            ["U+E0068", "U+E0069", "U+200B", "U+FEFF", "U+00AD"]
        );
        assert!(matches!(strip("plain é 技能 😀"), Cow::Borrowed(_)));
        assert!(matches!(strip("only ascii"), Cow::Borrowed(_)));
        assert!(has_invisible("ascii first, then é and a\u{200B}"));
        assert!(!has_invisible("ascii first, then é"));
        // Emoji joiners (U+200D) are format characters too.
        assert_eq!(strip("a\u{200D}b"), "ab");
    }
}
