//! The names nearest to one that does not exist, for an error that fits in
//! a model's turn: at most [`MAX_NEAR`] of them, never the whole catalog
//! (a catalog of hundreds of skills listed on every typo costs thousands of
//! tokens and hides the likely one).

/// Most near names an error carries.
pub const MAX_NEAR: usize = 5;

/// Longest name (in bytes) compared at all: four of the longest a skill
/// may have.
const FARTHEST: usize = 4 * skillhost_skill::names::MAX_NAME_CHARS * 4;

/// Up to [`MAX_NEAR`] of `names` close to `wanted`, closest first (ties by
/// name): equal but for case, then those holding it or held by it (a name
/// typed without its prefix, or with a suffix), then those within a few
/// edits (about one in three characters, at least two).
pub fn near<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    // Past a few names' length nothing is near it, and scanning a huge
    // string for every name would let one request cost the whole catalog.
    if wanted.len() > FARTHEST {
        return Vec::new();
    }
    let wanted = wanted.to_lowercase();
    let allowed = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, &str)> = names
        .into_iter()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let score = if lower == wanted {
                0
            } else if wanted.len() >= 3 && (lower.contains(&wanted) || wanted.contains(&lower)) {
                1
            } else {
                let d = edits(&wanted, &lower, allowed)?;
                1 + d
            };
            Some((score, name))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(MAX_NEAR).map(|(_, n)| n).collect()
}

/// Edits (insertions, deletions, substitutions, adjacent swaps) from `a` to
/// `b`, when at most `most`; `None` past it. Bounded, so a long name costs
/// no more than a short one: a row whose least value passes `most` stops.
fn edits(a: &str, b: &str, most: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    let mut before: Vec<usize> = Vec::new();
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            row[j] = best;
        }
        if row.iter().min().is_some_and(|&m| m > most) {
            return None;
        }
        before = std::mem::replace(&mut last, row);
    }
    let d = last[b.len()];
    (d <= most).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &[
        "code-review",
        "commit-messages",
        "rust-testing",
        "writing-skill-md",
        "skill-authoring",
        "skill-publishing",
        "skill-troubleshooting",
    ];

    #[test]
    fn a_typo_finds_the_name_it_was_meant_to_be() {
        assert_eq!(near("code-reviw", NAMES.iter().copied()), ["code-review"]);
        assert_eq!(
            near("comit-messages", NAMES.iter().copied()),
            ["commit-messages"]
        );
        assert_eq!(
            near("rust-tetsing", NAMES.iter().copied()),
            ["rust-testing"]
        );
    }

    #[test]
    fn case_comes_first_then_names_holding_the_one_asked_for() {
        assert_eq!(near("Code-Review", NAMES.iter().copied()), ["code-review"]);
        assert_eq!(
            near("skill", NAMES.iter().copied()),
            [
                "skill-authoring",
                "skill-publishing",
                "skill-troubleshooting",
                "writing-skill-md"
            ]
        );
    }

    #[test]
    fn at_most_five_and_nothing_unlike_it() {
        let many: Vec<String> = (0..500).map(|i| format!("skill-{i:03}")).collect();
        let found = near("skill-1", many.iter().map(String::as_str));
        assert_eq!(found.len(), MAX_NEAR);
        assert!(near("deploy", NAMES.iter().copied()).is_empty());
        assert!(near("", NAMES.iter().copied()).is_empty());
        let huge = "code-review ".repeat(1 << 20);
        assert!(near(&huge, NAMES.iter().copied()).is_empty());
    }

    #[test]
    fn edits_are_bounded_and_count_a_swap_as_one() {
        assert_eq!(edits("abcd", "abdc", 2), Some(1));
        assert_eq!(edits("kitten", "sitting", 3), Some(3));
        assert_eq!(edits("kitten", "sitting", 2), None);
        assert_eq!(edits(&"a".repeat(200), &"b".repeat(200), 3), None);
    }
}
