//! Frontmatter as JSON, the shape SEP-2640 indexes and the catalog's JSON
//! carry it in.
//!
//! The JSON is built from the tree the one parser ([`crate::yaml`]) makes,
//! the same tree the normalised fields come from, so "the frontmatter" means
//! the same thing to the catalog, to a mirror's publisher and to the remote
//! provider that checks a fetched file against the mirror's index.

use crate::node::{Fields, Node};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// Converts verbatim YAML frontmatter to JSON: `{}` when there is none,
/// `null` when it is not YAML the parser accepts.
pub fn frontmatter_json(raw: &str) -> Value {
    match crate::yaml::parse_fields(raw) {
        Ok(fields) => fields_json(&fields),
        Err(_) => Value::Null,
    }
}

/// The JSON object of a parsed top level, keys in document order.
pub fn fields_json(fields: &Fields<'_>) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|(key, value)| (key.to_string(), node_json(value)))
            .collect(),
    )
}

/// [`fields_json`] as JSON text, written as it is walked, with no tree
/// built: what a provider sends as the contract's `frontmatter.json` (inside
/// the sandbox, where every allocation costs). The text is exactly
/// `fields_json(fields).to_string()`; a mapping with a repeated key (where
/// the tree keeps the first position and the last value) is written
/// through the tree.
pub fn fields_json_text(fields: &Fields<'_>) -> String {
    let mut out = Vec::with_capacity(64 + fields.len() * 48);
    if has_repeats(fields.iter().map(|(k, _)| k.as_ref())) {
        write_value(&mut out, &fields_json(fields));
    } else {
        out.push(b'{');
        for (i, (key, value)) in fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(&mut out, key);
            out.push(b':');
            write_node(&mut out, value);
        }
        out.push(b'}');
    }
    // Only JSON was written: valid UTF-8 by construction.
    String::from_utf8(out).unwrap_or_default()
}

fn has_repeats<'k>(keys: impl Iterator<Item = &'k str> + Clone) -> bool {
    // A handful of keys is compared pairwise; thousands (a hostile
    // frontmatter) go through a set, so the check stays linear.
    if keys.clone().nth(16).is_none() {
        return keys
            .clone()
            .enumerate()
            .any(|(i, key)| keys.clone().skip(i + 1).any(|other| other == key));
    }
    let mut seen = std::collections::HashSet::new();
    keys.into_iter().any(|key| !seen.insert(key))
}

fn write_str(out: &mut Vec<u8>, text: &str) {
    // Most text needs no escape: it is copied in one go.
    if !needs_escape(text.as_bytes()) {
        out.reserve(text.len() + 2);
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
        return;
    }
    // Writing a string into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, text);
}

/// Whether any byte of `bytes` is one serde_json escapes: a control
/// character, `"` or `\\`. Eight bytes at a time: inside the sandbox a
/// loop over the bytes was a tenth of the whole parse.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Whether some byte of `x` is below `n` (exact for n <= 128).
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS != 0;
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let x = u64::from_le_bytes(eight);
        if below(x, 0x20)
            || below(x ^ (ONES * u64::from(b'"')), 1)
            || below(x ^ (ONES * u64::from(b'\\')), 1)
        {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

fn write_value(out: &mut Vec<u8>, value: &Value) {
    let _ = serde_json::to_writer(&mut *out, value);
}

fn write_node(out: &mut Vec<u8>, node: &Node<'_>) {
    match node {
        Node::Null => out.extend_from_slice(b"null"),
        Node::Bool(true) => out.extend_from_slice(b"true"),
        Node::Bool(false) => out.extend_from_slice(b"false"),
        Node::Text(s) => write_str(out, s),
        Node::Number(n) => write_value(out, &number_json(n)),
        Node::Seq(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_node(out, item);
            }
            out.push(b']');
        }
        Node::Map(pairs) => {
            let keys: Vec<Cow<'_, str>> = pairs.iter().map(|(k, _)| key_cow(k)).collect();
            if has_repeats(keys.iter().map(Cow::as_ref)) {
                write_value(out, &node_json(node));
                return;
            }
            out.push(b'{');
            for (i, (key, (_, value))) in keys.iter().zip(pairs).enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_str(out, key);
                out.push(b':');
                write_node(out, value);
            }
            out.push(b'}');
        }
    }
}

fn node_json(node: &Node<'_>) -> Value {
    match node {
        Node::Null => Value::Null,
        Node::Bool(b) => Value::Bool(*b),
        Node::Text(s) => Value::String(s.to_string()),
        Node::Number(n) => number_json(n),
        Node::Seq(items) => Value::Array(items.iter().map(node_json).collect()),
        Node::Map(pairs) => {
            let mut map = Map::with_capacity(pairs.len());
            for (key, value) in pairs {
                map.insert(key_text(key), node_json(value));
            }
            Value::Object(map)
        }
    }
}

/// A mapping key as JSON object keys must be: text. Scalars keep their
/// text; anything else becomes its YAML spelling.
fn key_text(key: &Node<'_>) -> String {
    key_cow(key).into_owned()
}

/// [`key_text`], borrowed where the key is already text.
fn key_cow<'k>(key: &'k Node<'_>) -> Cow<'k, str> {
    match key.scalar_text() {
        Some(text) => text,
        None => Cow::Owned(
            serde_yaml::to_string(&key.to_value())
                .map(|s| s.trim_end().to_string())
                .unwrap_or_default(),
        ),
    }
}

/// A YAML number (as `serde_yaml` prints it) as a JSON number; values JSON
/// cannot hold (`.inf`, `.nan`) stay text.
fn number_json(text: &str) -> Value {
    if let Ok(i) = text.parse::<i64>() {
        return Value::Number(i.into());
    }
    if let Ok(u) = text.parse::<u64>() {
        return Value::Number(u.into());
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map_or_else(|| Value::String(text.to_string()), Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatter_json_keeps_every_field() {
        let value = frontmatter_json(
            "name: x\nmetadata:\n  n: 1\n  f: 1.5\nlist: [a, true]\n1: numeric-key\n",
        );
        assert_eq!(
            value,
            json!({"name": "x", "metadata": {"n": 1, "f": 1.5}, "list": ["a", true], "1": "numeric-key"})
        );
        assert_eq!(frontmatter_json(""), json!({}));
    }

    #[test]
    fn leniently_accepted_values_read_as_written() {
        assert_eq!(
            frontmatter_json("description: Use when: the user asks\npaths: *.md\n"),
            json!({"description": "Use when: the user asks", "paths": "*.md"})
        );
    }

    #[test]
    fn the_text_written_as_walked_is_the_text_of_the_tree() {
        for raw in [
            "name: x\nmetadata:\n  n: 1\n  f: 1.5\nlist: [a, true, ~, -3]\n1: numeric-key\n",
            "description: \"quote \\\" and \\u00e9 \\t tab\"\nnested:\n  deeper:\n    - {a: 1}\n",
            "x: .inf\ny: 0x1F\nz: 1e400\n",
            // Each byte the fast path must leave to the escaper, and some it
            // must copy as they are (DEL, non-ASCII).
            "a: \"back\\\\slash \\u0001 \\u001f \\u007f \u{e9}\"\n\"k\\\"q\": plain\n",
            // Two keys that are one key in JSON: the tree's text is kept.
            "m:\n  1: a\n  '1': b\n  j: 3\n",
            "",
        ] {
            let fields = crate::yaml::parse_fields(raw).expect("the parser takes it");
            assert_eq!(
                fields_json_text(&fields),
                fields_json(&fields).to_string(),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn the_escape_check_finds_every_byte_json_escapes_wherever_it_is() {
        let naive = |b: &[u8]| b.iter().any(|&c| c < 0x20 || c == b'"' || c == b'\\');
        for len in 0..24 {
            for at in 0..len {
                for byte in 0..=255u8 {
                    let mut text = vec![b'a'; len];
                    text[at] = byte;
                    assert_eq!(
                        needs_escape(&text),
                        naive(&text),
                        "{byte:#x} at {at} of {len}"
                    );
                }
            }
        }
        // Bytes just around the ones escaped, and UTF-8, all in one word.
        let near = "\u{7f}!#[]\u{e9}\u{20ac} ".as_bytes();
        assert!(!needs_escape(near));
    }

    #[test]
    fn repeated_keys_are_found_among_few_and_among_many() {
        assert!(has_repeats(["a", "b", "a"].into_iter()));
        assert!(!has_repeats(["a", "b", "c"].into_iter()));
        let many: Vec<String> = (0..1000).map(|i| format!("k{i}")).collect();
        assert!(!has_repeats(many.iter().map(String::as_str)));
        let mut repeated = many.clone();
        repeated.push("k500".to_string());
        assert!(has_repeats(repeated.iter().map(String::as_str)));
    }

    #[test]
    fn broken_yaml_is_null_and_infinities_stay_text() {
        assert_eq!(frontmatter_json("a: [unclosed\n"), Value::Null);
        assert_eq!(frontmatter_json("x: .inf\n"), json!({"x": ".inf"}));
    }
}
