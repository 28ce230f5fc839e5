//! Reading a provider's frontmatter JSON back into the tree the
//! normaliser reads, so the host derives every typed field with the same
//! rules a provider's YAML would have gone through (`crate::fields`).
//!
//! The JSON is the provider's own parse of its YAML: the host never parses
//! a provider's YAML, only this bounded JSON. Strings without escapes are
//! borrowed from the text; numbers keep their spelling, as YAML numbers do.

use crate::node::{Fields, Node};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Why a frontmatter JSON was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// The text is not JSON (the parser's words, with line and column).
    Invalid(String),
    /// The JSON is valid but not one object (`found` says what it is).
    NotAnObject(&'static str),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Invalid(why) => write!(f, "frontmatter JSON does not parse: {why}"),
            JsonError::NotAnObject(found) => {
                write!(f, "frontmatter JSON must be one object, found {found}")
            }
        }
    }
}

impl std::error::Error for JsonError {}

/// The fields of a frontmatter JSON object, keys in the order written.
/// Nesting is bounded by the JSON parser's own recursion limit.
pub fn parse_fields(json: &str) -> Result<Fields<'_>, JsonError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let node = NodeSeed
        .deserialize(&mut de)
        .and_then(|node| de.end().map(|()| node))
        .map_err(|e| JsonError::Invalid(e.to_string()))?;
    match node {
        Node::Map(pairs) => Ok(pairs
            .into_iter()
            .filter_map(|(key, value)| match key {
                Node::Text(key) => Some((key, value)),
                _ => None,
            })
            .collect()),
        other => Err(JsonError::NotAnObject(match other {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Number(_) => "a number",
            Node::Text(_) => "text",
            Node::Seq(_) => "a list",
            Node::Map(_) => "a mapping",
        })),
    }
}

struct NodeSeed;

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = Node<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node<'de>, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Node<'de>, E> {
        Ok(Node::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Node<'de>, E> {
        Ok(Node::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Node<'de>, E> {
        Ok(Node::Number(n.to_string()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Node<'de>, E> {
        Ok(Node::Number(n.to_string()))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Node<'de>, E> {
        if !n.is_finite() {
            return Err(E::custom("a number out of range"));
        }
        Ok(Node::Number(n.to_string()))
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Node<'de>, E> {
        Ok(Node::Text(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Node<'de>, E> {
        Ok(Node::Text(Cow::Owned(s.to_string())))
    }

    fn visit_string<E>(self, s: String) -> Result<Node<'de>, E> {
        Ok(Node::Text(Cow::Owned(s)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element_seed(NodeSeed)? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node<'de>, A::Error> {
        let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(64));
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = map.next_value_seed(NodeSeed)?;
            pairs.push((Node::Text(key), value));
        }
        Ok(Node::Map(pairs))
    }
}

/// An object key: always text in JSON.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(s))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
#[path = "json_fields_tests.rs"]
mod tests;
