use super::*;

#[test]
fn every_field_read_has_its_own_slot() {
    let names = [
        "name",
        "description",
        "when_to_use",
        "argument-hint",
        "context",
        "model",
        "effort",
        "allowed-tools",
        "user-invocable",
        "disable-model-invocation",
        "paths",
        "aliases",
        "version",
        "agent",
        "pinned",
        "license",
        "compatibility",
        "metadata",
    ];
    let mut slots: Vec<usize> = names.iter().filter_map(|n| slot_of(n)).collect();
    assert_eq!(slots.len(), FIELDS);
    slots.sort_unstable();
    assert_eq!(slots, (0..FIELDS).collect::<Vec<_>>());
    assert_eq!(slot_of("x-extra"), None);
}

#[test]
fn fields_are_found_wherever_they_are_written_and_unknown_ones_too() {
    let raw = "x-extra: e\nmetadata:\n  k: v\nname: n\ndescription: d\n";
    let fields = crate::yaml::parse_fields(raw).expect("parses");
    let mut warnings = Vec::new();
    let reader = Reader::new(&fields, &mut warnings);
    let text = |key: &str| {
        reader
            .get(key)
            .and_then(|n| n.scalar_text())
            .map(|t| t.into_owned())
    };
    assert_eq!(text("name").as_deref(), Some("n"));
    assert_eq!(text("description").as_deref(), Some("d"));
    assert_eq!(text("x-extra").as_deref(), Some("e"));
    assert!(matches!(reader.get("metadata"), Some(Node::Map(_))));
    assert!(reader.get("license").is_none());
}

#[test]
fn unique_keeps_the_first_of_each_item_in_order_past_the_searched_length() {
    let mut unique = Unique::default();
    let items: Vec<String> = (0..100).map(|i| format!("x{}", i % 40)).collect();
    for item in &items {
        unique.push(item);
    }
    let expected: Vec<String> = (0..40).map(|i| format!("x{i}")).collect();
    assert_eq!(unique.items, expected);
}

#[test]
fn invisible_characters_are_removed_from_every_field_with_a_warning_naming_them() {
    let doc = crate::frontmatter::parse_document(
        "---\nname: smuggle\ndescription: \"Formats code\u{E0069}\u{E0067}\u{200B}\"\nallowed-tools: \"Read\u{FEFF}, Bash\"\nmetadata:\n  note: \"ok\u{00AD}\"\n---\nbody\n".as_bytes(),
        "smuggle",
    )
    .unwrap();
    let f = &doc.frontmatter;
    assert_eq!(f.description.as_deref(), Some("Formats code"));
    assert_eq!(f.allowed_tools, ["Read", "Bash"]);
    assert_eq!(f.metadata, [("note".to_string(), "ok".to_string())]);
    let warned: Vec<_> = doc
        .warnings
        .iter()
        .filter(|w| w.message.starts_with(crate::frontmatter::INVISIBLE_WARNING))
        .collect();
    assert_eq!(warned.len(), 3, "{:?}", doc.warnings);
    assert!(warned[0].message.contains("U+E0069") && warned[0].message.contains("U+200B"));
}
