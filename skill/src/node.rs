//! The YAML tree the frontmatter normaliser reads: borrowed from the text on
//! the fast path, owned when it comes from `serde_yaml`.

use serde_yaml::{Mapping, Value};
use std::borrow::Cow;

/// A YAML value.
#[derive(Debug, Clone, PartialEq)]
pub enum Node<'a> {
    /// `~`, `null` or nothing.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A string.
    Text(Cow<'a, str>),
    /// A number, as `serde_yaml` prints it.
    Number(String),
    /// A sequence.
    Seq(Vec<Node<'a>>),
    /// A mapping, in document order.
    Map(Vec<(Node<'a>, Node<'a>)>),
}

/// The top level of a frontmatter block: keys in document order.
pub type Fields<'a> = Vec<(Cow<'a, str>, Node<'a>)>;

impl Node<'_> {
    /// The node as an owned `serde_yaml` value (for rendering and tests).
    pub fn to_value(&self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(*b),
            Node::Text(s) => Value::String(s.to_string()),
            Node::Number(n) => serde_yaml::from_str(n).unwrap_or_else(|_| Value::String(n.clone())),
            Node::Seq(items) => Value::Sequence(items.iter().map(Node::to_value).collect()),
            Node::Map(pairs) => Value::Mapping(
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_value(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// Text for a scalar (strings, numbers, booleans); `None` otherwise.
    pub fn scalar_text(&self) -> Option<Cow<'_, str>> {
        match self {
            Node::Text(s) => Some(Cow::Borrowed(s.as_ref())),
            Node::Number(n) => Some(Cow::Borrowed(n.as_str())),
            Node::Bool(b) => Some(Cow::Borrowed(if *b { "true" } else { "false" })),
            _ => None,
        }
    }

    /// What kind of value this is, in words, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => "nothing",
            Node::Bool(_) => "a boolean",
            Node::Number(_) => "a number",
            Node::Text(_) => "text",
            Node::Seq(_) => "a list",
            Node::Map(_) => "a mapping",
        }
    }
}

/// Converts a `serde_yaml` value (tags dropped, numbers kept as text).
pub fn from_value(value: Value) -> Node<'static> {
    match value {
        Value::Null => Node::Null,
        Value::Bool(b) => Node::Bool(b),
        Value::Number(n) => Node::Number(n.to_string()),
        Value::String(s) => Node::Text(Cow::Owned(s)),
        Value::Sequence(items) => Node::Seq(items.into_iter().map(from_value).collect()),
        Value::Mapping(map) => Node::Map(
            map.into_iter()
                .map(|(k, v)| (from_value(k), from_value(v)))
                .collect(),
        ),
        Value::Tagged(tagged) => from_value(tagged.value),
    }
}

/// Converts a top-level `serde_yaml` mapping; keys that are not scalars are
/// dropped (they stay in the verbatim text).
pub fn fields_from_mapping(map: Mapping) -> Fields<'static> {
    map.into_iter()
        .filter_map(|(k, v)| {
            let key = from_value(k);
            let key = key.scalar_text()?.into_owned();
            Some((Cow::Owned(key), from_value(v)))
        })
        .collect()
}
