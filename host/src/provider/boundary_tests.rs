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
        virtual_roots: Vec::new(),
        origins: Vec::new(),
        refused_links: Vec::new(),
    }
}

fn entry(name: &str) -> wit::SkillEntry {
    wit::SkillEntry {
        frontmatter: wit::Frontmatter {
            raw: format!("name: {name}"),
            json: format!("{{\"name\": \"{name}\"}}"),
            name: name.to_string(),
            description: Some("d".into()),
            when_to_use: None,
            argument_hint: None,
            context: wit::InvocationContext::Inline,
            model: None,
            effort: None,
            allowed_tools: Vec::new(),
            user_invocable: true,
            disable_model_invocation: false,
            paths: Vec::new(),
            aliases: Vec::new(),
            version: None,
            agent: None,
            pinned: false,
            license: None,
            compatibility: None,
            metadata: Vec::new(),
        },
        path: "/skills/0/x/SKILL.md".into(),
        base: "/skills/0/x".into(),
    }
}

#[test]
fn a_valid_entry_gets_host_paths() {
    let skill = skill(entry("x"), &grants(), "p", &Caps::default()).unwrap();
    assert_eq!(
        skill.path,
        Location::Path("/home/u/skills/x/SKILL.md".into())
    );
    assert_eq!(skill.base, Location::Path("/home/u/skills/x".into()));
}

#[test]
fn unsafe_names_paths_and_sizes_are_rejected() {
    let caps = Caps::default();
    for bad in ["../x", "a\nb", "", "origin:x"] {
        assert!(skill(entry(bad), &grants(), "p", &caps).is_err(), "{bad:?}");
    }
    let mut outside = entry("x");
    outside.path = "/etc/passwd".into();
    assert!(
        skill(outside, &grants(), "p", &caps)
            .unwrap_err()
            .contains("outside")
    );
    let mut climbing = entry("x");
    climbing.base = "/skills/0/../..".into();
    assert!(skill(climbing, &grants(), "p", &caps).is_err());
    let mut long = entry("x");
    long.frontmatter.description = Some("d".repeat(caps.max_text + 1));
    assert!(
        skill(long, &grants(), "p", &caps)
            .unwrap_err()
            .contains("description")
    );
    let mut many = entry("x");
    many.frontmatter.allowed_tools = vec!["t".into(); caps.max_list + 1];
    assert!(
        skill(many, &grants(), "p", &caps)
            .unwrap_err()
            .contains("allowed-tools")
    );
    let mut alias = entry("x");
    alias.frontmatter.aliases = vec!["../up".into()];
    assert!(
        skill(alias, &grants(), "p", &caps)
            .unwrap_err()
            .contains("alias")
    );
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
    let mut e = entry("x");
    e.frontmatter.json = r#"{"name": "x", "metadata": {"k": [1, true]}}"#.to_string();
    let skill = skill(e, &grants(), "p", &Caps::default()).unwrap();
    assert_eq!(
        skill.frontmatter_json(),
        serde_json::json!({"name": "x", "metadata": {"k": [1, true]}})
    );
}

#[test]
fn frontmatter_json_that_is_not_one_object_is_refused() {
    for bad in ["[1, 2]", "\"text\"", "{\"open\": ", "{} trailing", ""] {
        let mut e = entry("x");
        e.frontmatter.json = bad.to_string();
        let refused = skill(e, &grants(), "p", &Caps::default()).unwrap_err();
        assert!(refused.contains("frontmatter JSON"), "{bad:?}: {refused}");
    }
    let mut e = entry("x");
    e.frontmatter.json = format!("{{\"d\": \"{}\"}}", "x".repeat(200_000));
    let refused = skill(e, &grants(), "p", &Caps::default()).unwrap_err();
    assert!(refused.contains("over the"), "{refused}");
}
