//! The boundary checks, on entries a provider could send.

use super::*;
use crate::model::Location;
use crate::sandbox::{GrantedRoot, Mount};

fn grants() -> Grants {
    Grants {
        roots: vec![GrantedRoot {
            guest: "/skills/0".into(),
            host: "/home/u/skills".into(),
            present: true,
        }],
        mounts: vec![Mount {
            guest: "/skills/0".into(),
            host: "/home/u/skills".into(),
        }],
        namespace: Some("team".into()),
        ..Grants::default()
    }
}

/// A 0.3.0 entry: its frontmatter only as JSON, the fields left to the host.
fn with_json(name: &str, json: &str) -> wit::SkillEntry {
    wit::SkillEntry {
        name: name.to_string(),
        raw: String::new(),
        json: json.to_string(),
        path: "/skills/0/x/SKILL.md".into(),
        base: "/skills/0/x".into(),
        given: None,
    }
}

fn entry(name: &str) -> wit::SkillEntry {
    with_json(
        name,
        &format!("{{\"name\": \"{name}\", \"description\": \"d\"}}"),
    )
}

fn checked(e: wit::SkillEntry) -> Result<Checked, String> {
    skill(e, &grants(), "p", &Caps::default())
}

#[test]
fn a_valid_entry_gets_host_paths() {
    let skill = checked(entry("x")).unwrap().skill;
    assert_eq!(
        skill.path,
        Location::Path("/home/u/skills/x/SKILL.md".into())
    );
    assert_eq!(skill.base, Location::Path("/home/u/skills/x".into()));
}

#[test]
fn every_field_is_derived_from_the_json_with_the_format_rules() {
    let e = with_json(
        "x",
        r#"{"description": " Trimmed ", "allowed-tools": "Read, Bash(git diff:*)",
            "paths": "src/**/*.{ts,tsx}", "user-invocable": "false", "context": "fork",
            "aliases": ["y", "x", "bad/alias"], "version": 2, "metadata": {"k": [1]}}"#,
    );
    let Checked { skill, warnings } = checked(e).unwrap();
    let f = &skill.frontmatter;
    assert_eq!(f.name, "x");
    assert_eq!(f.description.as_deref(), Some("Trimmed"));
    assert_eq!(f.allowed_tools, ["Read", "Bash(git diff:*)"]);
    assert_eq!(f.paths, ["src/**/*.ts", "src/**/*.tsx"]);
    assert!(!f.user_invocable);
    assert_eq!(f.context, skillhost_skill::frontmatter::Context::Fork);
    assert_eq!(f.aliases, ["y"]);
    assert_eq!(f.version.as_deref(), Some("2"));
    assert_eq!(f.metadata, [("k".to_string(), "- 1".to_string())]);
    // The unusable alias is a warning against the document, not a refusal.
    let [warning] = &warnings[..] else {
        panic!("{warnings:?}")
    };
    assert_eq!(warning.path, "/home/u/skills/x/SKILL.md");
    assert_eq!(warning.field.as_deref(), Some("aliases"));
    assert_eq!(warning.severity, Severity::Warning);
}

#[test]
fn the_served_name_is_the_entrys_not_the_jsons() {
    let e = with_json("api-fuzzing", r#"{"name": "API Fuzzing for Bug Bounty"}"#);
    let skill = checked(e).unwrap().skill;
    assert_eq!(skill.name(), "api-fuzzing");
    assert_eq!(
        skill.frontmatter_json()["name"],
        serde_json::json!("API Fuzzing for Bug Bounty")
    );
}

#[test]
fn fields_a_0_2_0_component_gave_are_kept_as_given() {
    let mut given = skillhost_skill::frontmatter::Frontmatter::defaults("old");
    given.description = Some("from the typed field".into());
    let e = wit::SkillEntry {
        given: Some(Box::new(given)),
        raw: "description: from the yaml\n".into(),
        ..with_json("old", "{}")
    };
    let Checked { skill, warnings } = checked(e).unwrap();
    assert_eq!(skill.description(), Some("from the typed field"));
    assert_eq!(skill.frontmatter.raw, "description: from the yaml\n");
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn a_relative_path_names_the_providers_own_namespace_and_nothing_on_disk() {
    let e = wit::SkillEntry {
        path: "greeting/SKILL.md".into(),
        base: "greeting".into(),
        ..entry("greeting")
    };
    let skill = checked(e).unwrap().skill;
    assert_eq!(skill.path.to_string(), "team:greeting/SKILL.md");
    assert_eq!(skill.path.as_path(), None);
    assert_eq!(skill.base.as_path(), None);
    // Climbing out of the namespace, or a provider granted none, is refused.
    for (path, grants) in [
        ("../x/SKILL.md", grants()),
        ("a//b", grants()),
        ("greeting/SKILL.md", Grants::default()),
    ] {
        let e = wit::SkillEntry {
            path: path.into(),
            ..entry("x")
        };
        assert!(skill_in(e, &grants).is_err(), "{path}");
    }
}

fn skill_in(e: wit::SkillEntry, grants: &Grants) -> Result<Checked, String> {
    skill(e, grants, "p", &Caps::default())
}

#[test]
fn unsafe_names_paths_and_sizes_are_rejected() {
    let caps = Caps::default();
    for bad in ["../x", "a\nb", "", "origin:x"] {
        assert!(checked(entry(bad)).is_err(), "{bad:?}");
    }
    let mut outside = entry("x");
    outside.path = "/etc/passwd".into();
    assert!(checked(outside).unwrap_err().contains("outside"));
    let mut climbing = entry("x");
    climbing.base = "/skills/0/../..".into();
    assert!(checked(climbing).is_err());
    let long = with_json(
        "x",
        &format!("{{\"description\": \"{}\"}}", "d".repeat(caps.max_text + 1)),
    );
    assert!(checked(long).unwrap_err().contains("description"));
    let tools: Vec<String> = (0..=caps.max_list).map(|i| format!("t{i}")).collect();
    let many = with_json(
        "x",
        &serde_json::json!({ "allowed-tools": tools }).to_string(),
    );
    assert!(checked(many).unwrap_err().contains("allowed-tools"));
    let mut given = skillhost_skill::frontmatter::Frontmatter::defaults("x");
    given.aliases = vec!["../up".into()];
    let alias = wit::SkillEntry {
        given: Some(Box::new(given)),
        ..entry("x")
    };
    assert!(checked(alias).unwrap_err().contains("alias"));
}

#[test]
fn diagnostics_are_mapped_clipped_and_cleaned() {
    let d = diagnostic(
        wit::Diagnostic {
            severity: wit::Severity::Error,
            path: "/skills/0/x/SKILL.md".into(),
            line: Some(3),
            field: Some("name".into()),
            message: format!("forged\nerror: line{}", "!".repeat(5000)),
        },
        &grants(),
        "p",
    );
    assert_eq!(d.path, "/home/u/skills/x/SKILL.md");
    assert!(!d.message.contains('\n'));
    assert!(d.message.len() <= 2048);
    let capped = diagnostics(
        vec![
            wit::Diagnostic {
                severity: wit::Severity::Warning,
                path: "x".into(),
                line: None,
                field: None,
                message: "m".into(),
            };
            5
        ],
        &grants(),
        "p",
        &Caps {
            max_diagnostics: 2,
            ..Caps::default()
        },
    );
    assert_eq!(capped.len(), 3);
    assert!(capped[2].message.contains("3 more"));
}

#[test]
fn resource_listings_need_relative_paths_and_sha256_digests() {
    let ok = wit::Resource {
        path: "references/a.md".into(),
        size: 1,
        digest: format!("sha256:{}", "a".repeat(64)),
    };
    assert!(resources(vec![ok.clone()], &Caps::default()).is_ok());
    for (path, digest) in [
        ("../x", ok.digest.clone()),
        ("/abs", ok.digest.clone()),
        ("a", "md5:abc".to_string()),
        ("a", format!("sha256:{}", "G".repeat(64))),
    ] {
        let bad = wit::Resource {
            path: path.into(),
            size: 1,
            digest,
        };
        assert!(resources(vec![bad], &Caps::default()).is_err(), "{path}");
    }
}

#[test]
fn the_providers_frontmatter_json_is_kept_and_shown_as_sent() {
    let e = with_json("x", r#"{"name": "x", "metadata": {"k": [1, true]}}"#);
    let skill = checked(e).unwrap().skill;
    assert_eq!(
        skill.frontmatter_json(),
        serde_json::json!({"name": "x", "metadata": {"k": [1, true]}})
    );
}

#[test]
fn frontmatter_json_that_is_not_one_object_is_refused() {
    for bad in [
        "[1, 2]",
        "\"text\"",
        "{\"open\": ",
        "{} trailing",
        "",
        "null",
    ] {
        let refused = checked(with_json("x", bad)).unwrap_err();
        assert!(refused.contains("frontmatter JSON"), "{bad:?}: {refused}");
    }
    let e = with_json("x", &format!("{{\"d\": \"{}\"}}", "x".repeat(200_000)));
    let refused = checked(e).unwrap_err();
    assert!(refused.contains("over the"), "{refused}");
}
