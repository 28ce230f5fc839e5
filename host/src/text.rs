//! Text a provider or a file supplied, made safe to show: cut to a length
//! on a character boundary, with control characters turned into spaces.
//! Control characters (newlines, ANSI escapes), Unicode line and paragraph
//! separators, and bidirectional overrides would let the text forge lines
//! or reorder what a reader sees in listings, logs and terminals; format
//! characters ([`skillhost_skill::invisible`]: tag characters, zero-width
//! ones, the BOM, the soft hyphen) would let it say to a model what a
//! person reviewing it cannot see, so they are removed.

use skillhost_skill::invisible::is_invisible;

/// `text` cut to at most `max` bytes on a character boundary.
pub fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Whether `c` may not be shown as it is: a control character (the tab
/// excepted), a line or paragraph separator, or a bidirectional control.
pub fn is_unsafe(c: char) -> bool {
    (c.is_control() && c != '\t')
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061C}' | '\u{200E}' | '\u{200F}'
                | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
        )
}

/// `text` with every unsafe character (see [`is_unsafe`]) replaced by a
/// space and every invisible one removed.
pub fn clean(text: &str) -> String {
    if !text.chars().any(|c| is_unsafe(c) || is_invisible(c)) {
        return text.to_string();
    }
    text.chars()
        .filter(|&c| !is_invisible(c) || is_unsafe(c))
        .map(|c| if is_unsafe(c) { ' ' } else { c })
        .collect()
}

/// `text` with every unsafe or invisible character written as a visible
/// escape (`\u{1b}`), for strings a person must judge exactly, such as
/// what an untrusted configuration asks for: nothing in it can move the
/// cursor, clear the screen or hide a word.
pub fn escaped(text: &str) -> String {
    if !text.chars().any(|c| is_unsafe(c) || is_invisible(c)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unsafe(c) || is_invisible(c) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// [`clean`] after [`clip`]: what diagnostics and logs show of foreign text.
pub fn shown(text: &str, max: usize) -> String {
    clean(clip(text, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_respects_character_boundaries() {
        assert_eq!(clip("héllo", 2), "h");
        assert_eq!(clip("héllo", 3), "hé");
        assert_eq!(clip("abc", 10), "abc");
    }

    #[test]
    fn control_characters_cannot_forge_lines() {
        assert_eq!(clean("a\nerror: b\u{1b}[0m\tc"), "a error: b [0m\tc");
        assert_eq!(shown("x\ny", 1), "x");
        assert_eq!(clean("a\u{2028}b\u{202E}c\u{2066}d"), "a b c d");
        assert_eq!(clean("plain é 技能"), "plain é 技能");
    }

    #[test]
    fn invisible_characters_are_removed_and_escapes_show_everything_unseen() {
        assert_eq!(clean("say\u{E0068}\u{E0069} hi\u{200B}\u{FEFF}"), "say hi");
        assert_eq!(
            escaped("/\u{1b}[2J\u{1b}[H ok\u{200B}"),
            "/\\u{1b}[2J\\u{1b}[H ok\\u{200b}"
        );
        assert_eq!(escaped("~/skills"), "~/skills");
    }
}
