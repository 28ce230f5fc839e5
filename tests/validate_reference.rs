//! The Agent Skills reference validator's own test cases, ported.
//!
//! Every case of `skills-ref/tests/test_validator.py` (and the cases of
//! `tests/test_parser.py` that `validate()` decides), from the
//! `agentskills/agentskills` repository at 69ef37e9, unchanged there since
//! 547831f. Each writes the reference's input into a real temporary skill
//! folder and validates it with `--profile agentskills`; the verdict and
//! the field must be the reference's (the wording may differ). The last
//! tests pin where the `claude` profile and skillhost deliberately differ,
//! as the README lists.

use skillhost::Runtime;
use skillhost::publish::validate::{Profile, Report, validate_paths};
use skillhost_tests::{runtime, write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn shared_runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(runtime)
}

/// The reference's `"""---\n{x}\n---\nBody\n"""` documents.
fn fm(x: &str) -> String {
    format!("---\n{x}\n---\nBody\n")
}

/// A temporary folder holding `<folder>/<file>` for each file.
struct Skill {
    dir: tempfile::TempDir,
    folder: String,
}

impl Skill {
    fn new(folder: &str, files: &[(&str, &str)]) -> Skill {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        for (file, text) in files {
            write(dir.path(), &format!("{folder}/{file}"), text.as_bytes());
        }
        Skill {
            dir,
            folder: folder.to_string(),
        }
    }

    fn path(&self) -> PathBuf {
        self.dir.path().join(&self.folder)
    }

    fn validate(&self, profile: Profile) -> Report {
        validate(&self.path(), profile)
    }
}

fn validate(path: &Path, profile: Profile) -> Report {
    validate_paths(shared_runtime(), &[path.to_path_buf()], profile).unwrap()
}

/// A SKILL.md in `folder`, validated by the Agent Skills profile.
fn agentskills(folder: &str, text: &str) -> Report {
    Skill::new(folder, &[("SKILL.md", text)]).validate(Profile::AgentSkills)
}

fn errors(report: &Report) -> Vec<String> {
    report
        .problems
        .iter()
        .filter(|p| p.is_error())
        .map(|p| format!("{p}"))
        .collect()
}

fn assert_valid(report: &Report) {
    assert!(report.is_valid(), "{:#?}", report.problems);
    assert!(!report.checked.is_empty(), "a skill was checked");
}

/// Invalid, and every error is about `field`.
fn assert_invalid_on(report: &Report, field: &str) {
    assert!(!report.is_valid(), "expected an error on {field}");
    for p in report.problems.iter().filter(|p| p.is_error()) {
        assert_eq!(p.field, field, "{:#?}", errors(report));
    }
}

fn assert_message(report: &Report, part: &str) {
    assert!(
        report.problems.iter().any(|p| p.message.contains(part)),
        "no problem says {part:?}: {:#?}",
        errors(report)
    );
}

// ---- tests/test_validator.py ------------------------------------------

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

// ---- tests/test_parser.py, as validate() decides them -----------------

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

// ---- beyond the reference's tests: its other verdicts, and ours --------

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

// ---- where skillhost deliberately differs (listed in the README) -------

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
