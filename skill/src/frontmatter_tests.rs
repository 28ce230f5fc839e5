//! Tests of the SKILL.md parser, on documents written the ways real skills are.

use super::*;

fn parse(text: &str) -> Result<Document<'_>, Finding> {
    parse_document(text.as_bytes(), "folder")
}

#[test]
fn parses_every_documented_field() {
    let doc = parse(
        "---\nname: commit\ndescription: Create a git commit\nwhen_to_use: When committing\n\
         argument-hint: \"[message]\"\ncontext: fork\nmodel: sonnet\neffort: high\n\
         allowed-tools:\n  - Bash\n  - Read\nuser-invocable: \"false\"\n\
         disable-model-invocation: \"true\"\npaths: \"src/**/*.{ts,tsx}\"\n\
         aliases: [git-commit, gc]\nversion: 1.0\nagent: reviewer\npinned: true\n\
         license: MIT\ncompatibility: needs git\nmetadata:\n  author: me\n  tags: [a, b]\n\
         hooks:\n  PreToolUse: []\nx-custom: kept\n---\n# Commit\n$ARGUMENTS\n",
    )
    .unwrap();
    let f = &doc.frontmatter;
    assert_eq!(f.name, "commit");
    assert_eq!(f.description.as_deref(), Some("Create a git commit"));
    assert_eq!(f.when_to_use.as_deref(), Some("When committing"));
    assert_eq!(f.argument_hint.as_deref(), Some("[message]"));
    assert_eq!(f.context, Context::Fork);
    assert_eq!(f.model.as_deref(), Some("sonnet"));
    assert_eq!(f.effort.as_deref(), Some("high"));
    assert_eq!(f.allowed_tools, ["Bash", "Read"]);
    assert!(!f.user_invocable);
    assert!(f.disable_model_invocation);
    assert_eq!(f.paths, ["src/**/*.ts", "src/**/*.tsx"]);
    assert_eq!(f.aliases, ["git-commit", "gc"]);
    assert_eq!(f.version.as_deref(), Some("1.0"));
    assert_eq!(f.agent.as_deref(), Some("reviewer"));
    assert!(f.pinned);
    assert_eq!(f.license.as_deref(), Some("MIT"));
    assert_eq!(f.compatibility.as_deref(), Some("needs git"));
    assert_eq!(f.metadata[0], ("author".to_string(), "me".to_string()));
    assert!(f.raw.contains("x-custom: kept"));
    assert!(f.raw.contains("hooks:"));
    assert_eq!(doc.body, "# Commit\n$ARGUMENTS\n");
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
}

#[test]
fn missing_name_defaults_to_folder_and_missing_description_warns() {
    let doc = parse("---\nlicense: MIT\n---\nbody").unwrap();
    assert_eq!(doc.frontmatter.name, "folder");
    assert_eq!(doc.frontmatter.description, None);
    assert_eq!(doc.warnings[0].field.as_deref(), Some("description"));
}

#[test]
fn allowed_tools_string_splits_on_commas_and_whitespace() {
    let doc =
        parse("---\ndescription: d\nallowed-tools: Read, Grep Bash(git diff:*)\n---\n").unwrap();
    assert_eq!(
        doc.frontmatter.allowed_tools,
        ["Read", "Grep", "Bash(git diff:*)"]
    );
}

#[test]
fn paths_list_and_unquoted_globs_are_accepted() {
    let doc = parse("---\ndescription: d\npaths:\n  - *.md\n  - {src,lib}/**/*.rs\n---\n").unwrap();
    assert_eq!(
        doc.frontmatter.paths,
        ["*.md", "src/**/*.rs", "lib/**/*.rs"]
    );
    let doc = parse("---\ndescription: d\npaths: *.{md,txt}, docs/**\n---\n").unwrap();
    assert_eq!(doc.frontmatter.paths, ["*.md", "*.txt", "docs/**"]);
}

#[test]
fn an_unquoted_colon_in_a_description_is_accepted() {
    let doc = parse("---\nname: x\ndescription: Use when: the user asks\n---\n").unwrap();
    assert_eq!(
        doc.frontmatter.description.as_deref(),
        Some("Use when: the user asks")
    );
    assert!(
        doc.frontmatter
            .raw
            .contains("description: Use when: the user asks")
    );
}

#[test]
fn crlf_and_bom_are_handled() {
    let doc = parse_document(
        b"\xEF\xBB\xBF---\r\nname: crlf\r\ndescription: >-\r\n  folded\r\n  text\r\n---\r\nbody\r\n",
        "folder",
    )
    .unwrap();
    assert_eq!(doc.frontmatter.name, "crlf");
    assert_eq!(doc.frontmatter.description.as_deref(), Some("folded text"));
    assert_eq!(doc.body, "body\r\n");
}

#[test]
fn block_scalar_descriptions_are_trimmed() {
    let doc = parse("---\ndescription: |\n  line one\n  line two\n---\n").unwrap();
    assert_eq!(
        doc.frontmatter.description.as_deref(),
        Some("line one\nline two")
    );
    let doc = parse("---\ndescription: >\n  folded\n  words\n\n---\n").unwrap();
    assert_eq!(doc.frontmatter.description.as_deref(), Some("folded words"));
}

#[test]
fn unclosed_frontmatter_is_an_error_on_line_one() {
    let err = parse("---\nname: x\ndescription: y\n").unwrap_err();
    assert_eq!(err.line, Some(1));
    assert!(err.message.contains("never closed"), "{err}");
}

#[test]
fn invalid_yaml_reports_the_file_line() {
    let err = parse("---\nname: x\ndescription: [unclosed\nother: 1\n---\n").unwrap_err();
    assert!(err.message.starts_with("invalid YAML"), "{err}");
    assert!(matches!(err.line, Some(3..=5)), "{err:?}");
}

#[test]
fn non_utf8_reports_the_line() {
    let err = parse_document(b"---\nname: x\ndescription: caf\xE9\n---\n", "f").unwrap_err();
    assert_eq!(err.line, Some(3));
    assert!(err.message.contains("UTF-8"));
}

#[test]
fn oversized_documents_are_refused() {
    let big = vec![b'a'; MAX_DOCUMENT_BYTES as usize + 1];
    let err = parse_document(&big, "f").unwrap_err();
    assert!(err.message.contains("1 MiB"), "{err}");
}

#[test]
fn unsafe_names_are_refused_with_the_field() {
    for text in [
        "---\nname: ../../x\n---\n",
        "---\nname: \"a\\nb\"\n---\n",
        "---\nname: \"a\\0b\"\n---\n",
    ] {
        let err = parse(text).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("name"), "{text}");
    }
}

#[test]
fn document_without_frontmatter_loads_with_folder_name() {
    let doc = parse("# Just markdown\n").unwrap();
    assert!(!doc.has_frontmatter);
    assert_eq!(doc.frontmatter.name, "folder");
    assert_eq!(doc.body, "# Just markdown\n");
}

#[test]
fn wrongly_typed_values_warn_and_default() {
    let doc =
        parse("---\ndescription: d\nuser-invocable: maybe\ncontext: later\nmodel: [a]\n---\n")
            .unwrap();
    assert!(doc.frontmatter.user_invocable);
    assert_eq!(doc.frontmatter.context, Context::Inline);
    assert_eq!(doc.frontmatter.model, None);
    let fields: Vec<_> = doc
        .warnings
        .iter()
        .filter_map(|w| w.field.clone())
        .collect();
    assert_eq!(fields, ["context", "model", "user-invocable"]);
}

#[test]
fn detects_frontmatter_at_start_only() {
    assert!(starts_with_frontmatter(b"---\nname: x\n---\n"));
    assert!(starts_with_frontmatter(b"\xEF\xBB\xBF---\r\n"));
    assert!(!starts_with_frontmatter(b"# README\n---\n"));
    assert!(!starts_with_frontmatter(b"----\n"));
}

#[test]
fn non_mapping_frontmatter_is_an_error() {
    let err = parse("---\n- a\n- b\n---\n").unwrap_err();
    assert!(err.message.contains("mapping"), "{err}");
}

#[test]
fn split_document_cuts_the_frontmatter_before_any_field_is_read() {
    // An unsafe name does not stop the split: the validator reads the
    // fields of documents the loader refuses.
    let split = split_document(b"\xEF\xBB\xBF---\nname: ../x\n---\nbody\n").unwrap();
    assert_eq!(split.raw, Some("name: ../x\n"));
    assert_eq!(split.body, "body\n");
    let split = split_document(b"# just Markdown\n").unwrap();
    assert_eq!(split.raw, None);
    assert_eq!(split.body, "# just Markdown\n");
    assert!(split_document(b"---\nname: x\n").is_err());
    assert!(split_document(b"---\nname: caf\xe9\n---\n").is_err());
}

#[test]
fn the_json_made_with_the_parse_is_the_json_of_the_verbatim_text() {
    let doc = b"---\nname: a\ndescription: d\nmetadata:\n  n: 1\nlist: [x, true]\n---\nbody\n";
    let (parsed, json) = parse_document_json(doc, "folder").unwrap();
    assert_eq!(parsed, parse_document(doc, "folder").unwrap());
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value,
        crate::json::frontmatter_json(&parsed.frontmatter.raw)
    );
    let (_, none) = parse_document_json(b"# just a body\n", "folder").unwrap();
    assert_eq!(none, "{}");
}

#[test]
fn a_frontmatter_over_64_kib_is_refused_before_it_is_parsed() {
    let keys: String = (0..20_000).map(|i| format!("k{i}: v\n")).collect();
    let doc = format!("---\nname: wide\n{keys}---\nbody\n");
    let refused = parse_document(doc.as_bytes(), "wide").unwrap_err();
    assert!(refused.message.contains("64 KiB"), "{refused}");
}

#[test]
fn thousands_of_keys_or_list_items_just_under_the_limit_parse_and_dedupe() {
    // Near the limit in both shapes a hostile file can take: many keys (the
    // fast path declines, the fallback parses) and one long list with
    // repeats (kept once each, in order). Quadratic checks made a file like
    // this outlast a provider's deadline.
    let keys: String = (0..5_000).map(|i| format!("k{i}: v\n")).collect();
    let doc = format!("---\nname: wide\ndescription: d\n{keys}---\n");
    let (parsed, json) = parse_document_json(doc.as_bytes(), "wide").unwrap();
    assert_eq!(parsed.frontmatter.name, "wide");
    assert!(json.contains("\"k4999\":\"v\""));
    let tools: Vec<String> = (0..6_000).map(|i| format!("t{}", i % 3_000)).collect();
    let doc = format!(
        "---\nname: tools\nallowed-tools: {}\n---\n",
        tools.join(" ")
    );
    let parsed = parse_document(doc.as_bytes(), "tools").unwrap();
    let expected: Vec<String> = (0..3_000).map(|i| format!("t{i}")).collect();
    assert_eq!(parsed.frontmatter.allowed_tools, expected);
}
