//! Brace expansion of `paths` globs: `src/**/*.{ts,tsx}` → `src/**/*.ts`, `src/**/*.tsx`.

/// Upper bound on the globs one pattern may expand to, so a hostile
/// `{a,b}{a,b}{a,b}...` cannot exhaust memory.
pub const MAX_EXPANSIONS: usize = 256;

/// Expands every `{a,b,...}` group of `pattern`, left to right, nested groups
/// included. A brace without a matching partner, or a group without a comma,
/// is kept literally (as shells do). Stops adding alternatives at
/// [`MAX_EXPANSIONS`].
pub fn expand_braces(pattern: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into(pattern, &mut out);
    out
}

fn expand_into(pattern: &str, out: &mut Vec<String>) {
    if out.len() >= MAX_EXPANSIONS {
        return;
    }
    let Some((open, close, alternatives)) = first_group(pattern) else {
        out.push(pattern.to_string());
        return;
    };
    let (prefix, suffix) = (&pattern[..open], &pattern[close + 1..]);
    for alternative in alternatives {
        if out.len() >= MAX_EXPANSIONS {
            return;
        }
        expand_into(&format!("{prefix}{alternative}{suffix}"), out);
    }
}

/// Finds the first brace group that holds a top-level comma; returns its
/// byte range and its alternatives.
fn first_group(pattern: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = pattern.as_bytes();
    let mut search_from = 0;
    while let Some(offset) = pattern[search_from..].find('{') {
        let open = search_from + offset;
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        let mut i = open;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' => i += 1,
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
            i += 1;
        }
        match close {
            Some(close) if !commas.is_empty() => {
                let mut alternatives = Vec::with_capacity(commas.len() + 1);
                let mut start = open + 1;
                for comma in commas {
                    alternatives.push(&pattern[start..comma]);
                    start = comma + 1;
                }
                alternatives.push(&pattern[start..close]);
                return Some((open, close, alternatives));
            }
            // An unbalanced brace swallows the rest; a comma-less group is literal.
            None => return None,
            Some(_) => search_from = open + 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_one_group() {
        assert_eq!(
            expand_braces("src/**/*.{ts,tsx}"),
            ["src/**/*.ts", "src/**/*.tsx"]
        );
    }

    #[test]
    fn expands_groups_left_to_right_as_a_product() {
        assert_eq!(expand_braces("{a,b}/{c,d}"), ["a/c", "a/d", "b/c", "b/d"]);
    }

    #[test]
    fn expands_nested_groups() {
        assert_eq!(expand_braces("x{a,b{c,d}}"), ["xa", "xbc", "xbd"]);
    }

    #[test]
    fn keeps_pattern_without_groups() {
        assert_eq!(expand_braces("**/*.rs"), ["**/*.rs"]);
    }

    #[test]
    fn keeps_unbalanced_and_commaless_braces_literal() {
        assert_eq!(expand_braces("a{b,c"), ["a{b,c"]);
        assert_eq!(expand_braces("a{b}c"), ["a{b}c"]);
        assert_eq!(expand_braces("a{b}{c,d}"), ["a{b}c", "a{b}d"]);
    }

    #[test]
    fn keeps_empty_alternatives() {
        assert_eq!(expand_braces("a{,.bak}"), ["a", "a.bak"]);
    }

    #[test]
    fn caps_the_number_of_expansions() {
        let bomb = "{a,b}".repeat(20);
        assert_eq!(expand_braces(&bomb).len(), MAX_EXPANSIONS);
    }
}
