//! Frontmatter as JSON, the shape SEP-2640 indexes and the catalog's JSON
//! carry it in.
//!
//! The JSON is built from the tree the one parser ([`crate::yaml`]) makes,
//! the same tree the normalised fields come from, so "the frontmatter" means
//! the same thing to the catalog, to a mirror's publisher and to the remote
//! provider that checks a fetched file against the mirror's index.

use crate::node::{Fields, Node};
use serde_json::{Map, Number, Value};

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
    match key.scalar_text() {
        Some(text) => text.into_owned(),
        None => serde_yaml::to_string(&key.to_value())
            .map(|s| s.trim_end().to_string())
            .unwrap_or_default(),
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
    fn broken_yaml_is_null_and_infinities_stay_text() {
        assert_eq!(frontmatter_json("a: [unclosed\n"), Value::Null);
        assert_eq!(frontmatter_json("x: .inf\n"), json!({"x": ".inf"}));
    }
}
