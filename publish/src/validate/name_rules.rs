//! The two naming rules: the portable one (`a-z0-9-`, which every client
//! reads the same way) and the Agent Skills spec's as its reference
//! validator applies it (Unicode lowercase letters and digits, compared with
//! the folder after NFKC normalisation).
//!
//! Both report every way a name breaks the rule, not only the first.

use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

pub use skillhost_skill::names::MAX_NAME_CHARS;

/// Every way `name` breaks the portable rule: 1–64 of `a-z0-9-`, no
/// leading, trailing or doubled `-`, equal to `folder`.
pub fn name_problems(name: &str, folder: &str) -> Vec<String> {
    let mut out = Vec::new();
    let chars = name.chars().count();
    if chars == 0 || chars > MAX_NAME_CHARS {
        out.push(format!(
            "has {chars} characters; it must have 1 to {MAX_NAME_CHARS}"
        ));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !matches!(c, 'a'..='z' | '0'..='9' | '-'))
    {
        out.push(format!(
            "contains {c:?}; only lowercase letters a-z, digits and '-' are allowed"
        ));
    }
    out.extend(hyphen_problems(name));
    if name != folder {
        out.push(format!(
            "{name:?} does not match its folder name {folder:?}"
        ));
    }
    out
}

/// Every way `name` breaks the Agent Skills rule as the reference validator
/// reads it: the name is trimmed and NFKC-normalised, then it must have at
/// most 64 characters, be lowercase (a caseless script is), hold only
/// letters, digits and `-` (by Unicode general category: combining marks
/// are not letters), have no leading, trailing or doubled `-`, and equal
/// the NFKC form of `folder`. `name` must not be empty once trimmed (the
/// caller reports that as a missing value).
pub fn unicode_name_problems(name: &str, folder: &str) -> Vec<String> {
    let name: String = name.trim_matches(is_python_space).nfkc().collect();
    let mut out = Vec::new();
    let chars = name.chars().count();
    if chars > MAX_NAME_CHARS {
        out.push(format!(
            "has {chars} characters; it must have 1 to {MAX_NAME_CHARS}"
        ));
    }
    if name.to_lowercase() != name {
        out.push(format!("{name:?} must be lowercase"));
    }
    out.extend(hyphen_problems(&name));
    if let Some(c) = name.chars().find(|&c| c != '-' && !is_letter_or_digit(c)) {
        out.push(format!(
            "contains {c:?}; only letters, digits and '-' are allowed"
        ));
    }
    let normalised_folder: String = folder.nfkc().collect();
    if normalised_folder != name {
        out.push(format!(
            "{name:?} does not match its folder name {folder:?}"
        ));
    }
    out
}

fn hyphen_problems(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    if name.starts_with('-') || name.ends_with('-') {
        out.push("must not start or end with '-'".to_string());
    }
    if name.contains("--") {
        out.push("must not contain '--'".to_string());
    }
    out
}

/// What the reference's `str.isalnum()` accepts: the letter categories and
/// the number categories (not the marks, which Rust's `is_alphanumeric`
/// partly counts as alphabetic).
pub fn is_letter_or_digit(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
            | GeneralCategory::DecimalNumber
            | GeneralCategory::LetterNumber
            | GeneralCategory::OtherNumber
    )
}

/// What the reference's `str.strip()` removes: Rust's whitespace plus the
/// information separators U+001C–U+001F.
fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_conforming_name() {
        assert!(name_problems("pdf-tools", "pdf-tools").is_empty());
    }

    #[test]
    fn reports_each_naming_rule() {
        assert_eq!(name_problems("PDF", "PDF").len(), 1);
        assert_eq!(name_problems("-a", "-a").len(), 1);
        assert_eq!(name_problems("a--b", "a--b").len(), 1);
        assert_eq!(name_problems("a", "b").len(), 1);
        assert_eq!(name_problems(&"a".repeat(65), &"a".repeat(65)).len(), 1);
        assert_eq!(
            name_problems("", ""),
            ["has 0 characters; it must have 1 to 64"]
        );
    }

    #[test]
    fn unicode_rule_accepts_lowercase_scripts_and_caseless_ones() {
        for name in [
            "навык",
            "мой-навык",
            "技能",
            "スキル-技能",
            "مهارة",
            "٣٤",
            "λόγος",
        ] {
            assert!(unicode_name_problems(name, name).is_empty(), "{name}");
        }
    }

    #[test]
    fn unicode_rule_compares_with_the_folder_after_nfkc() {
        // A decomposed name and a precomposed folder are the same name.
        assert!(unicode_name_problems("cafe\u{301}", "caf\u{e9}").is_empty());
        assert!(unicode_name_problems("ｍｙ-skill", "my-skill").is_empty());
        assert!(unicode_name_problems("my-skill", "ｍｙ-skill").is_empty());
        assert!(unicode_name_problems("skill²", "skill2").is_empty());
        assert!(unicode_name_problems(" my-skill ", "my-skill").is_empty());
    }

    #[test]
    fn unicode_rule_refuses_marks_symbols_and_uppercase() {
        let invalid = |name: &str| {
            let problems = unicode_name_problems(name, name);
            assert!(
                problems.iter().any(|p| p.contains("only letters, digits")),
                "{name}: {problems:?}"
            );
        };
        // Thai and Devanagari vowel signs are marks, not letters.
        invalid("ทักษะ");
        invalid("हिन्दी");
        invalid("my_skill");
        invalid("my skill");
        invalid("😀");
        invalid("½");
        assert_eq!(
            unicode_name_problems("НАВЫК", "НАВЫК"),
            ["\"НАВЫК\" must be lowercase"]
        );
        assert_eq!(
            unicode_name_problems("\u{212A}", "k"),
            [
                "\"K\" must be lowercase",
                "\"K\" does not match its folder name \"k\""
            ]
        );
    }

    #[test]
    fn unicode_rule_reports_every_problem_of_one_name() {
        let problems = unicode_name_problems("My_Skill--", "Other");
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert_eq!(
            unicode_name_problems(&"я".repeat(64), &"я".repeat(64)),
            [""; 0]
        );
        assert_eq!(
            unicode_name_problems(&"a".repeat(65), &"a".repeat(65)),
            ["has 65 characters; it must have 1 to 64"]
        );
    }
}
