use super::*;
use crate::frontmatter::{Frontmatter, from_json, parse_document, read_document};

/// What the host derives from a document's JSON, as a provider sends it.
fn derived(doc: &str, folder: &str) -> (Frontmatter, Vec<String>) {
    let head = read_document(doc.as_bytes(), folder).expect("the document reads");
    let (fields, warnings) = from_json(head.raw, &head.json, &head.name).expect("the JSON derives");
    (fields, warnings.iter().map(ToString::to_string).collect())
}

/// What the one YAML parser makes of the same document directly.
fn parsed(doc: &str, folder: &str) -> (Frontmatter, Vec<String>) {
    let doc = parse_document(doc.as_bytes(), folder).expect("the document parses");
    let warnings = doc.warnings.iter().map(ToString::to_string).collect();
    (doc.frontmatter, warnings)
}

#[test]
fn fields_derived_from_the_json_equal_fields_parsed_from_the_yaml() {
    let documents = [
        "---\nname: pdf\ndescription: Read PDF files\n---\nbody\n",
        // Every lenient form: one string split into tools, globs with
        // braces, booleans as strings, numbers as versions, a metadata map.
        "---\nname: rich\ndescription: >\n  Folded\n  text\nallowed-tools: Read, Bash(git diff:*) Grep\n\
         paths: \"src/**/*.{ts,tsx}, docs/**\"\nuser-invocable: \"false\"\ndisable-model-invocation: 'TRUE'\n\
         context: Fork\nversion: 1.10\naliases: [r, rich, 'bad/alias']\npinned: true\n\
         metadata:\n  level: 3\n  tags: [a, b]\nx-custom: {deep: [1, 2.5, null]}\n---\nbody\n",
        // Values of the wrong shape: each a warning and its default.
        "---\ndescription: [not, text]\ncontext: sideways\nuser-invocable: maybe\nallowed-tools: {a: 1}\n\
         metadata: plain\npaths: [1, {x: y}]\n---\n",
        // No name: the folder's.
        "---\ndescription: d\n---\n",
        "---\nname: ~\ndescription: d\n---\n",
        // No frontmatter at all.
        "just a body\n",
        // Escapes the JSON must carry and give back.
        "---\nname: esc\ndescription: \"quote \\\" back\\\\slash \\t tab \\u00e9\"\n---\n",
    ];
    for doc in documents {
        let (from_json, json_warnings) = derived(doc, "folder");
        let (from_yaml, yaml_warnings) = parsed(doc, "folder");
        assert_eq!(from_json, from_yaml, "{doc:?}");
        // A document without frontmatter gets the parser's own line-1 note;
        // every field warning is the same.
        if doc.starts_with("---") {
            assert_eq!(json_warnings, yaml_warnings, "{doc:?}");
        }
    }
}

#[test]
fn the_corpus_derives_as_it_parses() {
    let corpus =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/superpowers/skills");
    let mut seen = 0;
    for entry in std::fs::read_dir(&corpus).expect("the vendored corpus is there") {
        let folder = entry.expect("a folder entry").path();
        let Ok(text) = std::fs::read_to_string(folder.join("SKILL.md")) else {
            continue;
        };
        let name = folder.file_name().and_then(|n| n.to_str()).unwrap_or("x");
        assert_eq!(derived(&text, name), parsed(&text, name), "{name}");
        seen += 1;
    }
    assert!(seen >= 10, "only {seen} corpus skills were read");
}

#[test]
fn the_served_name_stands_whatever_the_json_declares() {
    // A display name that is no identifier is the provider's to map; the
    // host takes the name the entry is served under.
    let (fields, _) = from_json(
        "name: API Fuzzing for Bug Bounty\n",
        r#"{"name":"API Fuzzing for Bug Bounty","aliases":["api-fuzzing"]}"#,
        "api-fuzzing",
    )
    .unwrap();
    assert_eq!(fields.name, "api-fuzzing");
    // An alias equal to the served name is not an alias.
    assert!(fields.aliases.is_empty());
    assert!(from_json("", "{}", "bad/name").is_err());
}

#[test]
fn json_that_is_not_one_object_is_refused_with_what_it_is() {
    for (json, found) in [
        ("[1, 2]", "a list"),
        ("\"text\"", "text"),
        ("null", "null"),
        ("3", "a number"),
        ("true", "a boolean"),
    ] {
        assert_eq!(
            parse_fields(json),
            Err(JsonError::NotAnObject(found)),
            "{json}"
        );
    }
    for bad in ["{", "{\"a\": }", "{} {}", "{\"a\": 1e999}", ""] {
        let error = parse_fields(bad).expect_err(bad);
        assert!(matches!(error, JsonError::Invalid(_)), "{bad}: {error:?}");
    }
}

#[test]
fn nesting_past_the_parsers_limit_is_refused_not_followed() {
    let deep = format!("{{\"a\":{}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(matches!(parse_fields(&deep), Err(JsonError::Invalid(_))));
}

#[test]
fn plain_strings_are_borrowed_and_escaped_ones_owned() {
    let fields = parse_fields(r#"{"a":"plain","b":"esc\"aped","n":-1.5,"t":true}"#).unwrap();
    assert!(matches!(&fields[0].1, Node::Text(Cow::Borrowed("plain"))));
    assert!(matches!(&fields[1].1, Node::Text(Cow::Owned(s)) if s == "esc\"aped"));
    assert_eq!(fields[2].1, Node::Number("-1.5".to_string()));
    assert_eq!(fields[3].1, Node::Bool(true));
}
