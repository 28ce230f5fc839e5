//! Beyond the reference's tests: its other verdicts (run through its code
//! for the porting notes), and where skillhost deliberately differs, as
//! docs/CLI.md lists.

use super::*;
use skillhost_publish::validate::Profile;
use skillhost_tests::write;

#[test]
fn every_problem_of_one_file_is_reported_in_the_references_order() {
    let report = agentskills(
        "Other",
        &fm(&format!(
            "name: My_Skill--\ndescription: {}\ncompatibility: {}\nfoo: bar",
            "x".repeat(1100),
            "y".repeat(501)
        )),
    );
    let fields: Vec<&str> = report.problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "foo",
            "name",
            "name",
            "name",
            "name",
            "name",
            "description",
            "compatibility"
        ],
        "{:#?}",
        errors(&report)
    );
}

#[test]
fn an_unsafe_name_does_not_hide_the_other_fields_problems() {
    // The loader refuses this name before reading anything else; the
    // validator still checks every field.
    for profile in [Profile::Claude, Profile::AgentSkills] {
        let report = Skill::new(
            "my-skill",
            &[(
                "SKILL.md",
                &fm(&format!(
                    "name: a/b\ndescription: {}\ncompatibility: {}",
                    "x".repeat(1100),
                    "y".repeat(501)
                )),
            )],
        )
        .validate(profile);
        let fields: Vec<&str> = report.problems.iter().map(|p| p.field.as_str()).collect();
        for field in ["name", "description", "compatibility"] {
            assert!(fields.contains(&field), "{profile}: {:#?}", errors(&report));
        }
    }
}

#[test]
fn claude_fields_are_unknown_to_the_spec_and_known_to_claude() {
    let text = fm(
        "name: my-skill\ndescription: d\nuser-invocable: false\nargument-hint: x\nmodel: y\ndisable-model-invocation: true",
    );
    let skill = Skill::new("my-skill", &[("SKILL.md", &text)]);
    let spec = skill.validate(Profile::AgentSkills);
    let mut fields: Vec<&str> = spec.problems.iter().map(|p| p.field.as_str()).collect();
    fields.sort_unstable();
    assert_eq!(
        fields,
        [
            "argument-hint",
            "disable-model-invocation",
            "model",
            "user-invocable"
        ]
    );
    assert_valid(&skill.validate(Profile::Claude));
    assert!(skill.validate(Profile::Claude).problems.is_empty());
}

#[test]
fn unknown_fields_are_warnings_for_the_claude_profile() {
    let skill = Skill::new(
        "my-skill",
        &[(
            "SKILL.md",
            &fm("name: my-skill\ndescription: A test skill\nunknown_field: x"),
        )],
    );
    let report = skill.validate(Profile::Claude);
    assert!(report.is_valid());
    assert_eq!(report.warnings(), 1);
    assert_eq!(report.problems[0].field, "unknown_field");
}

#[test]
fn the_claude_profile_keeps_names_to_portable_characters() {
    for (folder, name) in [
        ("技能", "技能"),
        ("мой-навык", "мой-навык"),
        ("навык", "навык"),
    ] {
        let report = Skill::new(
            folder,
            &[("SKILL.md", &fm(&format!("name: {name}\ndescription: d")))],
        )
        .validate(Profile::Claude);
        assert_invalid_on(&report, "name");
        assert_message(&report, "only lowercase letters a-z");
    }
}

#[test]
fn a_lowercase_skill_md_draws_a_warning_from_the_claude_profile() {
    let skill = Skill::new(
        "my-skill",
        &[("skill.md", &fm("name: my-skill\ndescription: d"))],
    );
    let report = skill.validate(Profile::Claude);
    assert!(report.is_valid(), "{:#?}", report.problems);
    assert_eq!(report.warnings(), 1);
    assert_message(&report, "rename it");
}

#[test]
fn unicode_names_the_reference_accepts_and_refuses() {
    for name in ["スキル-技能", "مهارة", "٣٤"] {
        assert_valid(&agentskills(
            name,
            &fm(&format!("name: {name}\ndescription: d")),
        ));
    }
    // Marks are not letters: Thai and Devanagari vowel signs are refused.
    for name in ["ทักษะ", "हिन्दी", "😀", "my.skill"] {
        let report = agentskills(name, &fm(&format!("name: {name}\ndescription: d")));
        assert_invalid_on(&report, "name");
        assert_message(&report, "only letters, digits and '-'");
    }
    // NFKC on both sides: fullwidth letters, superscripts.
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: ｍｙ-skill\ndescription: d"),
    ));
    assert_valid(&agentskills("skill2", &fm("name: skill²\ndescription: d")));
}

#[test]
fn the_references_scalar_typing_is_kept() {
    // Its YAML reader makes every scalar a string.
    assert_valid(&agentskills("123", &fm("name: 123\ndescription: d")));
    assert_valid(&agentskills("true", &fm("name: true\ndescription: d")));
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: 42"),
    ));
    let report = agentskills("my-skill", &fm("name:\ndescription: d"));
    assert_invalid_on(&report, "name");
    assert_message(&report, "non-empty string");
    let report = agentskills("my-skill", &fm("name: my-skill\ndescription: '  '"));
    assert_invalid_on(&report, "description");
    // Counted as written: padding inside quotes counts.
    let padded = format!("'{}     '", "x".repeat(1020));
    let report = agentskills(
        "my-skill",
        &fm(&format!("name: my-skill\ndescription: {padded}")),
    );
    assert_invalid_on(&report, "description");
    assert_message(&report, "has 1025 characters");
}

// ---- where skillhost deliberately differs (listed in docs/CLI.md) -------

#[test]
fn an_empty_compatibility_is_refused_as_the_spec_says() {
    // The reference accepts it; the spec says 1-500 characters if given.
    let report = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\ncompatibility:"),
    );
    assert_invalid_on(&report, "compatibility");
}

#[test]
fn the_opening_fence_must_be_a_line_of_its_own() {
    let report = agentskills("my-skill", "---name: my-skill\ndescription: d\n---\n");
    assert_invalid_on(&report, "frontmatter");
    // A `---` inside a value does not end the frontmatter.
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: a --- b"),
    ));
}

#[test]
fn a_utf8_bom_is_accepted() {
    assert_valid(&agentskills(
        "my-skill",
        "\u{feff}---\nname: my-skill\ndescription: d\n---\n",
    ));
}

#[test]
fn files_the_reference_crashes_on_get_a_reason() {
    let skill = Skill::new("my-skill", &[]);
    std::fs::write(
        skill.path().join("SKILL.md"),
        b"---\nname: my-skill\ndescription: caf\xe9\n---\n",
    )
    .unwrap();
    let report = skill.validate(Profile::AgentSkills);
    assert_invalid_on(&report, "file");
    assert_message(&report, "not valid UTF-8");

    let skill = Skill::new("my-skill", &[("SKILL.md/x", "not a document")]);
    let report = skill.validate(Profile::AgentSkills);
    assert_invalid_on(&report, "file");
    assert_message(&report, "not a regular file");
}

#[test]
fn yaml_the_references_reader_refuses_but_yaml_allows_is_accepted() {
    assert!(
        agentskills("my-skill", &fm("name: &a my-skill\ndescription: *a")).is_valid(),
        "anchors"
    );
    assert!(
        agentskills("my-skill", &fm("name: !!str my-skill\ndescription: d")).is_valid(),
        "tags"
    );
    let flow = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\nallowed-tools: [Read, Write]"),
    );
    assert!(flow.is_valid(), "{:#?}", flow.problems);
    assert_eq!(flow.warnings(), 1, "a list, not the spec's string");
    // Where both refuse: duplicate keys, and unquoted `key: a: b`.
    assert!(
        !agentskills(
            "my-skill",
            &fm("name: my-skill\nname: my-skill\ndescription: d")
        )
        .is_valid()
    );
    let colon = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: Use this skill when: the user asks"),
    );
    assert_invalid_on(&colon, "frontmatter");
}

#[test]
fn the_spec_types_of_metadata_license_and_allowed_tools_are_checked() {
    let report = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\nmetadata: hello"),
    );
    assert_invalid_on(&report, "metadata");
    let report = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\nmetadata:\n  nested:\n    a: b"),
    );
    assert_invalid_on(&report, "metadata");
    let report = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\nlicense:\n  a: b"),
    );
    assert_invalid_on(&report, "license");
    let report = agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\nallowed-tools:\n  a: b"),
    );
    assert_invalid_on(&report, "allowed-tools");
    assert_valid(&agentskills(
        "my-skill",
        &fm("name: my-skill\ndescription: d\nmetadata:"),
    ));
}

#[test]
fn validating_from_inside_the_skill_folder_uses_its_real_name() {
    let skill = Skill::new(
        "my-skill",
        &[("SKILL.md", &fm("name: my-skill\ndescription: d"))],
    );
    assert_valid(&validate(&skill.path().join("."), Profile::AgentSkills));
    assert_valid(&validate(
        &skill.path().join("SKILL.md"),
        Profile::AgentSkills,
    ));
}

#[test]
fn a_folder_of_skills_is_validated_skill_by_skill() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "good/SKILL.md",
        fm("name: good\ndescription: d").as_bytes(),
    );
    write(
        dir.path(),
        "Bad/SKILL.md",
        fm("name: Bad\ndescription: d").as_bytes(),
    );
    write(
        dir.path(),
        "flat.md",
        fm("name: flat\ndescription: d").as_bytes(),
    );
    let report = validate(dir.path(), Profile::AgentSkills);
    assert_eq!(report.checked.len(), 3, "{:?}", report.checked);
    let mut failing: Vec<String> = report
        .problems
        .iter()
        .filter(|p| p.is_error())
        .map(|p| p.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    failing.dedup();
    // The uppercase name, and a flat skill, which the spec does not know.
    assert_eq!(failing.len(), 2, "{:#?}", errors(&report));
    assert_message(&report, "is a flat skill");
    // The claude profile takes flat skills.
    let claude = validate(dir.path(), Profile::Claude);
    assert_eq!(
        claude.problems.iter().filter(|p| p.is_error()).count(),
        1,
        "{:#?}",
        errors(&claude)
    );
}

// ---- what a PATH holds, and the real reason when it is no skill --------

#[test]
fn a_path_that_yields_no_skill_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let reason = |path: &str| -> String {
        let report = validate(&dir.path().join(path), Profile::Claude);
        assert!(!report.is_valid(), "{path}");
        report.problems[0].message.clone()
    };
    write(
        dir.path(),
        ".hidden/SKILL.md",
        fm("name: hidden\ndescription: d").as_bytes(),
    );
    assert!(reason(".hidden").contains("is hidden"));
    write(
        dir.path(),
        "cased/Skill.md",
        fm("name: cased\ndescription: d").as_bytes(),
    );
    let folder = reason("cased");
    assert!(
        folder.contains("no SKILL.md in") && folder.contains("Skill.md is there"),
        "{folder}"
    );
    assert!(reason("cased/Skill.md").contains("rename it"));
    write(dir.path(), "notes.md", b"# Notes, not a skill\n");
    assert!(reason("notes.md").contains("must start with '---'"));
    write(dir.path(), "readme-only/README.md", b"# Nothing here\n");
    assert!(reason("readme-only").contains("no SKILL.md in"));
}

#[test]
fn a_lowercase_skill_md_beside_skill_md_is_named_as_not_read() {
    let skill = Skill::new(
        "my-skill",
        &[
            ("SKILL.md", &fm("name: my-skill\ndescription: d")),
            ("skill.md", &fm("name: other\ndescription: d")),
        ],
    );
    let report = validate(&skill.path().join("skill.md"), Profile::AgentSkills);
    assert!(report.is_valid(), "{:#?}", report.problems);
    assert_eq!(report.warnings(), 1);
    assert!(report.problems[0].path.ends_with("my-skill/skill.md"));
    assert_message(&report, "is not read");
    assert!(report.checked[0].ends_with("my-skill/SKILL.md"));
}
