//! A skill's arguments from one string, split the way a shell would at its
//! simplest: on whitespace, with single or double quotes grouping and a
//! backslash escaping the next character (outside single quotes). A prompt
//! argument or a tool call then gives `invoke` the same list the command
//! line would.

/// Splits `text` into arguments.
pub fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut started = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some('\''), '\'') | (Some('"'), '"') => quote = None,
            (Some('\''), c) => current.push(c),
            (_, '\\') => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                started = true;
            }
            (Some(_), c) => current.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started {
                    out.push(std::mem::take(&mut current));
                    started = false;
                }
            }
            (None, c) => {
                current.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn words_quotes_and_escapes() {
        assert_eq!(split("  HEAD~1   main "), ["HEAD~1", "main"]);
        assert_eq!(
            split(r#"say "hello world" 'it''s' a\ b"#),
            ["say", "hello world", "its", "a b"]
        );
        assert_eq!(split(r#""" ''"#), ["", ""]);
        assert_eq!(split(r#"'a\b' "c\"d""#), [r"a\b", r#"c"d"#]);
        assert!(split("   ").is_empty());
        assert_eq!(split("\"unterminated rest"), ["unterminated rest"]);
    }
}
