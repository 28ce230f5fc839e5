//! Listings built from frontmatter fields, read as the host reads a SKILL.md.

use super::*;
use crate::skill::frontmatter::{Frontmatter, from_json, parse_document};

/// What the host derives from an entry's frontmatter JSON.
fn derived(entry: &SkillEntry) -> (Frontmatter, Vec<Finding>) {
    from_json(&entry.frontmatter.raw, &entry.frontmatter.json, &entry.name).unwrap()
}
use std::collections::BTreeMap;

fn fields(pairs: &[(&str, serde_yaml::Value)]) -> BTreeMap<String, serde_yaml::Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

#[test]
fn fields_become_a_skill_named_by_its_key_at_file_hash_name() {
    let mut listing = Listing::default();
    let f = fields(&[
        ("description", "Writes commit messages".into()),
        ("allowed-tools", vec!["Bash(git diff)"].into()),
        ("user-invocable", false.into()),
    ]);
    listing.add_fields("/r/skills.toml", "/r", "commit", &f, "Write it.\n".into());
    assert!(listing.diagnostics.is_empty(), "{:?}", listing.diagnostics);
    let doc = &listing.documents[0];
    assert_eq!(doc.entry.path, "/r/skills.toml#commit");
    assert_eq!(doc.entry.base, "/r");
    assert_eq!(doc.entry.name, "commit");
    let (fm, warnings) = derived(&doc.entry);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(fm.description.as_deref(), Some("Writes commit messages"));
    assert_eq!(fm.allowed_tools, vec!["Bash(git diff)".to_string()]);
    assert!(!fm.user_invocable);
    assert!(fm.raw.starts_with("name: commit\n"), "{}", fm.raw);
    assert_eq!(doc.body, "Write it.\n");
}

#[test]
fn a_declared_name_wins_over_the_key() {
    let mut listing = Listing::default();
    let f = fields(&[("name", "other".into()), ("description", "d".into())]);
    listing.add_fields("/r/s.toml", "/r", "key", &f, String::new());
    assert_eq!(listing.documents[0].entry.name, "other");
    assert_eq!(listing.documents[0].entry.path, "/r/s.toml#other");
}

#[test]
fn refused_fields_are_an_error_on_the_file_naming_the_skill_and_field() {
    let mut listing = Listing::default();
    let f = fields(&[("description", "d".into())]);
    listing.add_fields("/r/s.toml", "/r", "a/b", &f, String::new());
    listing.add_fields("/r/s.toml", "/r", "scalar", &"not a table", String::new());
    assert!(listing.documents.is_empty());
    let [unsafe_name, scalar] = &listing.diagnostics[..] else {
        panic!("{:?}", listing.diagnostics)
    };
    assert_eq!(unsafe_name.path, "/r/s.toml");
    assert_eq!(unsafe_name.severity, Severity::Error);
    assert_eq!(unsafe_name.field.as_deref(), Some("name"));
    assert!(
        unsafe_name.message.starts_with("skill \"a/b\": "),
        "{}",
        unsafe_name.message
    );
    assert_eq!(
        scalar.message,
        "skill \"scalar\": its fields are not a table"
    );
}

#[test]
fn a_missing_description_is_the_hosts_warning_and_the_skill_stays() {
    let mut listing = Listing::default();
    listing.add_fields("/r/s.toml", "/r", "bare", &fields(&[]), "x".into());
    assert_eq!(listing.documents.len(), 1);
    // The provider reports nothing: the host's field rules warn.
    assert!(listing.diagnostics.is_empty(), "{:?}", listing.diagnostics);
    let (_, warnings) = derived(&listing.documents[0].entry);
    assert_eq!(warnings[0].field.as_deref(), Some("description"));
}

#[test]
fn the_one_resource_is_the_document_whose_digest_matches_its_bytes() {
    let mut listing = Listing::default();
    let f = fields(&[("description", "d".into())]);
    listing.add_fields("/r/s.toml", "/r", "one", &f, "Body\n".into());
    let resources = listing.clone().resources("one").unwrap();
    let [resource] = &resources[..] else {
        panic!("{resources:?}")
    };
    assert_eq!(resource.path, "s.toml#one");
    let bytes = listing.clone().read("one", &resource.path).unwrap();
    assert_eq!(resource.digest, digest::sha256(&bytes));
    assert_eq!(resource.size, bytes.len() as u64);
    let text = String::from_utf8(bytes).unwrap();
    let reparsed = parse_document(text.as_bytes(), "one").unwrap();
    assert_eq!(reparsed.body, "Body\n");
    assert_eq!(reparsed.frontmatter.description.as_deref(), Some("d"));
    assert!(matches!(
        listing.clone().read("one", "other.md"),
        Err(ProviderError::NotFound(_))
    ));
    assert!(matches!(
        listing.load("two"),
        Err(ProviderError::NotFound(_))
    ));
}

#[test]
fn an_observation_carries_every_entry_and_diagnostic_whole() {
    let mut listing = Listing::default();
    listing.add_fields(
        "/r/s.toml",
        "/r",
        "a",
        &fields(&[("description", "d".into())]),
        String::new(),
    );
    listing.error("/r/other.toml", "line 3: expected `=`");
    let observation = listing.observation();
    assert_eq!(observation.base, None);
    assert!(observation.complete);
    assert_eq!(observation.skills.len(), 1);
    assert_eq!(observation.diagnostics[0].path, "/r/other.toml");
}
