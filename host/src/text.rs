//! Text a provider or a file supplied, made safe to show: cut to a length
//! on a character boundary, with control characters (which would let it
//! forge lines in listings, logs and terminals) turned into spaces.

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

/// `text` with every control character but the tab replaced by a space.
pub fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() && c != '\t' { ' ' } else { c })
        .collect()
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
    }
}
