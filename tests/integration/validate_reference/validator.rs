//! `skills-ref/tests/test_validator.py`, every test.

use super::*;
use skillhost_publish::validate::Profile;
use skillhost_tests::write;

#[test]
fn test_valid_skill() {
    assert_valid(&agentskills(
        "my-skill",
        "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n",
    ));
}

#[test]
fn test_nonexistent_path() {
    let dir = tempfile::tempdir().unwrap();
    let report = validate(&dir.path().join("nonexistent"), Profile::AgentSkills);
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "does not exist");
}

#[test]
fn test_not_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file.txt", b"test");
    let report = validate(&dir.path().join("file.txt"), Profile::AgentSkills);
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "not a Markdown file");
}

#[test]
fn test_missing_skill_md() {
    let report = Skill::new("my-skill", &[]).validate(Profile::AgentSkills);
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "no SKILL.md in");
}

#[test]
fn test_invalid_name_uppercase() {
    let report = agentskills("MySkill", &fm("name: MySkill\ndescription: A test skill"));
    assert_invalid_on(&report, "name");
    assert_message(&report, "lowercase");
}

#[test]
fn test_name_too_long() {
    let long = "a".repeat(70);
    let report = agentskills(
        &long,
        &fm(&format!("name: {long}\ndescription: A test skill")),
    );
    assert_invalid_on(&report, "name");
    assert_message(&report, "has 70 characters");
}

#[test]
fn test_name_leading_hyphen() {
    let report = agentskills(
        "-my-skill",
        &fm("name: -my-skill\ndescription: A test skill"),
    );
    assert_invalid_on(&report, "name");
    assert_message(&report, "must not start or end with '-'");
}

#[test]
fn test_name_consecutive_hyphens() {
    let report = agentskills(
        "my--skill",
        &fm("name: my--skill\ndescription: A test skill"),
    );
    assert_invalid_on(&report, "name");
    assert_message(&report, "must not contain '--'");
}

#[test]
fn test_name_invalid_characters() {
    let report = agentskills("my_skill", &fm("name: my_skill\ndescription: A test skill"));
    assert_invalid_on(&report, "name");
    assert_message(&report, "contains '_'");
}

#[test]
fn test_name_directory_mismatch() {
    let report = agentskills(
        "wrong-name",
        &fm("name: correct-name\ndescription: A test skill"),
    );
    assert_invalid_on(&report, "name");
    assert_message(&report, "does not match its folder name \"wrong-name\"");
}

#[test]
fn test_unexpected_fields() {
    let report = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: A test skill\nunknown_field: should not be here"),
    );
    assert_invalid_on(&report, "unknown_field");
    assert_message(&report, "put it under metadata");
}

#[test]
fn test_valid_with_all_fields() {
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: A test skill\nlicense: MIT\nmetadata:\n  author: Test"),
    ));
}

#[test]
fn test_allowed_tools_accepted() {
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)"),
    ));
}

#[test]
fn test_i18n_chinese_name() {
    assert_valid(&agentskills(
        "技能",
        &fm("name: 技能\ndescription: A skill with Chinese name"),
    ));
}

#[test]
fn test_i18n_russian_name_with_hyphens() {
    assert_valid(&agentskills(
        "мой-навык",
        &fm("name: мой-навык\ndescription: A skill with Russian name"),
    ));
}

#[test]
fn test_i18n_russian_lowercase_valid() {
    assert_valid(&agentskills(
        "навык",
        &fm("name: навык\ndescription: A skill with Russian lowercase name"),
    ));
}

#[test]
fn test_i18n_russian_uppercase_rejected() {
    let report = agentskills(
        "НАВЫК",
        &fm("name: НАВЫК\ndescription: A skill with Russian uppercase name"),
    );
    assert_invalid_on(&report, "name");
    assert_message(&report, "lowercase");
}

#[test]
fn test_description_too_long() {
    let report = agentskills(
        "my-skill",
        &fm(&format!(
            "name: my-skill\ndescription: {}",
            "x".repeat(1100)
        )),
    );
    assert_invalid_on(&report, "description");
    assert_message(&report, "has 1100 characters, more than 1024");
}

#[test]
fn test_valid_compatibility() {
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: A test skill\ncompatibility: Requires Python 3.11+"),
    ));
}

#[test]
fn test_compatibility_too_long() {
    let report = agentskills(
        "my-skill",
        &fm(&format!(
            "name: my-skill\ndescription: A test skill\ncompatibility: {}",
            "x".repeat(550)
        )),
    );
    assert_invalid_on(&report, "compatibility");
    assert_message(&report, "has 550 characters");
}

#[test]
fn test_nfkc_normalization() {
    // The folder precomposed, the name decomposed (Linux keeps both as written).
    assert_valid(&agentskills(
        "caf\u{e9}",
        &fm("name: cafe\u{301}\ndescription: A test skill"),
    ));
}
