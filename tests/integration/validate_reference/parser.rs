//! `skills-ref/tests/test_parser.py`: the cases `validate()` decides,
//! run through the validator.

use super::*;
use skillhost_publish::validate::Profile;

#[test]
fn test_valid_frontmatter() {
    assert_valid(&agentskills(
        "my-skill",
        "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n\nInstructions here.\n",
    ));
}

#[test]
fn test_missing_frontmatter() {
    let report = agentskills("my-skill", "# No frontmatter here");
    assert_invalid_on(&report, "frontmatter");
    assert_message(&report, "must open with a '---' line");
}

#[test]
fn test_unclosed_frontmatter() {
    let report = agentskills(
        "my-skill",
        "---\nname: my-skill\ndescription: A test skill\n",
    );
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "never closed");
}

#[test]
fn test_invalid_yaml() {
    let report = agentskills(
        "my-skill",
        "---\nname: [invalid\ndescription: broken\n---\nBody here\n",
    );
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "invalid YAML");
}

#[test]
fn test_non_dict_frontmatter() {
    let report = agentskills("my-skill", "---\n- just\n- a\n- list\n---\nBody\n");
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "must be a mapping");
}

#[test]
fn test_read_valid_skill() {
    assert_valid(&agentskills(
        "my-skill",
        "---\nname: my-skill\ndescription: A test skill\nlicense: MIT\n---\n# My Skill\n",
    ));
}

#[test]
fn test_read_with_metadata() {
    // `version: 1.0` is a number to ordinary YAML and a string to the
    // reference's reader: either way a scalar, as the spec's map wants.
    assert_valid(&agentskills(
        "my-skill",
        "---\nname: my-skill\ndescription: A test skill\nmetadata:\n  author: Test Author\n  version: 1.0\n---\nBody\n",
    ));
}

#[test]
fn test_missing_skill_md_read_properties() {
    let dir = tempfile::tempdir().unwrap();
    let report = validate(dir.path(), Profile::AgentSkills);
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);
    assert_invalid_on(&report, "file");
    assert_message(&report, "no SKILL.md in");
}

#[test]
fn test_missing_name() {
    let report = agentskills("my-skill", "---\ndescription: A test skill\n---\nBody\n");
    assert_invalid_on(&report, "name");
    assert_message(&report, "missing");
}

#[test]
fn test_missing_description() {
    let report = agentskills("my-skill", "---\nname: my-skill\n---\nBody\n");
    assert_invalid_on(&report, "description");
    assert_message(&report, "missing");
}

#[test]
fn test_find_skill_md_prefers_uppercase() {
    let skill = Skill::new(
        "my-skill",
        &[("SKILL.md", "uppercase"), ("skill.md", "lowercase")],
    );
    let report = skill.validate(Profile::AgentSkills);
    assert_invalid_on(&report, "frontmatter");
    assert_eq!(
        report.checked,
        [skill.path().canonicalize().unwrap().join("SKILL.md")]
    );
}

#[test]
fn test_find_skill_md_accepts_lowercase() {
    let skill = Skill::new("my-skill", &[("skill.md", "lowercase")]);
    let report = skill.validate(Profile::AgentSkills);
    // The lowercase file is the document (read, and found wanting), not
    // a missing SKILL.md.
    assert_invalid_on(&report, "frontmatter");
    assert_eq!(
        report.checked,
        [skill.path().canonicalize().unwrap().join("skill.md")]
    );
}

#[test]
fn test_find_skill_md_returns_none_when_missing() {
    let report = Skill::new("my-skill", &[]).validate(Profile::AgentSkills);
    assert_invalid_on(&report, "file");
    assert_message(&report, "no SKILL.md in");
}

#[test]
fn test_read_properties_with_lowercase_skill_md() {
    let skill = Skill::new(
        "my-skill",
        &[(
            "skill.md",
            "---\nname: my-skill\ndescription: A test skill\n---\n# My Skill\n",
        )],
    );
    assert_valid(&skill.validate(Profile::AgentSkills));
}

#[test]
fn test_read_with_allowed_tools() {
    assert_valid(&agentskills(
        "my-skill",
        "---\nname: my-skill\ndescription: A test skill\nallowed-tools: Bash(jq:*) Bash(git:*)\n---\nBody\n",
    ));
}
