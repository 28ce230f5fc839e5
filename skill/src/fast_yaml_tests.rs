//! Differential tests: the fast path against `serde_yaml`, on the YAML skills
//! are written in and on the YAML the fast path must decline.

use super::*;

use serde_yaml::{Mapping, Value};

/// Asserts the fast path agrees with serde_yaml whenever it answers.
fn agrees(text: &str) -> bool {
    let fast: Option<Mapping> = parse(text).map(|fields| {
        fields
            .iter()
            .map(|(k, v)| (Value::String(k.to_string()), v.to_value()))
            .collect()
    });
    let slow = serde_yaml::from_str::<Value>(text).ok().map(|v| match v {
        Value::Mapping(m) => m,
        Value::Null => Mapping::new(),
        _ => Mapping::from_iter([(Value::Null, Value::Null)]),
    });
    if let Some(fast) = &fast {
        assert_eq!(Some(fast), slow.as_ref(), "fast path disagrees on:\n{text}");
    }
    fast.is_some()
}

#[test]
fn typical_frontmatter_takes_the_fast_path() {
    for text in [
        "name: pdf\ndescription: Use when working with PDF files\n",
        "name: x\ndescription: \"Quoted: with colon\"\nlicense: MIT\n",
        "name: x\ndescription: 'it''s single'\nuser-invocable: false\n",
        "name: x\ndescription: >\n  folded\n  text\n\n  para\nallowed-tools:\n  - Read\n  - Bash(git:*)\n",
        "name: x\ndescription: |-\n  line one\n  line two\nmetadata:\n  author: me\n  version: \"1.0\"\n",
        "name: x\r\ndescription: crlf\r\n",
        "name: x # comment\n# full comment\ndescription: d\naliases: [a, b, \"c d\"]\n",
        "name: x\ndescription: d\nallowed-tools:\n- Read\n- Write\nlicense: MIT\n",
        "name: x\ndescription: d\nhooks:\nempty:\n",
        "name: x\ndescription: |+\n  keep\n\n\nz: a1\n",
    ] {
        assert!(agrees(text), "expected the fast path for:\n{text}");
    }
}

#[test]
fn unusual_yaml_falls_back() {
    for text in [
        "name: &a x\ndescription: *a\n",
        "version: 1.0\n",
        "count: 3\n",
        "name: !tag x\n",
        "description: plain\n  continued\n",
        "metadata:\n  deep:\n    deeper: x\n",
        "flow: {a: 1}\n",
        "description: yes\n",
        "name: x\nname: y\n",
        "description: >2\n   indented\n",
        "key: a: b\n",
        "paths: *.md\n",
        "list:\n  - - nested\n",
        "\tname: x\n",
    ] {
        assert!(!agrees(text), "expected a fallback for:\n{text}");
    }
}

#[test]
fn block_scalars_match_serde_yaml_in_every_chomping_mode() {
    for header in ["|", "|-", "|+", ">", ">-", ">+"] {
        for body in [
            "  a\n  b\n",
            "  a\n\n  b\n",
            "  a\n  b\n\n\n",
            "  a\n\n\n  b\n  c\n",
            "  single\n",
        ] {
            let text = format!("description: {header}\n{body}next: x\n");
            assert!(agrees(&text), "fallback on {text:?}");
            let text = format!("description: {header}\n{body}");
            assert!(agrees(&text), "fallback on {text:?}");
        }
    }
}

#[test]
fn generated_documents_agree_with_serde_yaml() {
    let keys = [
        "name",
        "description",
        "when_to_use",
        "allowed-tools",
        "metadata",
        "x-extra",
    ];
    let values = [
        "plain text",
        "\"double \\\"quoted\\\" \\n\"",
        "'single ''quoted'''",
        "true",
        "False",
        "~",
        "",
        "[a, 'b', \"c\"]",
        "[]",
        "|\n  lit\n  eral",
        ">-\n  fol\n  ded",
        "\n  - one\n  - 'two'",
        "\n  k: v\n  k2: 'w'",
        "text # with comment",
        "café ünïcode",
        "a-b_c/d.e",
        "http://example.com/x",
        "Use when: colon",
        "-leading",
        "12abc",
        // What the plain-scalar search looks for, and near misses.
        "tab\tinside",
        "hash#inside",
        "colons:in:a:row",
        "ends with #",
        "x:",
        "a\t#b",
    ];
    let mut seed: u32 = 0x2545_F491;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed as usize % n
    };
    let mut fast = 0;
    for _ in 0..2000 {
        let mut text = String::new();
        let mut used = Vec::new();
        for _ in 0..1 + next(4) {
            let key = keys[next(keys.len())];
            if used.contains(&key) {
                continue;
            }
            used.push(key);
            text.push_str(&format!("{key}: {}\n", values[next(values.len())]));
        }
        if agrees(&text) {
            fast += 1;
        }
    }
    assert!(
        fast > 500,
        "the fast path should cover most generated documents ({fast})"
    );
}
