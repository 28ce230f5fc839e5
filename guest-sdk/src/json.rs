//! Frontmatter as JSON, the shape SEP-2640 indexes carry it in. Both ends
//! of a mirror (the publisher and the remote provider) convert with this
//! one function, so "the same frontmatter" means the same thing to both.

use serde_json::{Map, Value, json};

/// Converts verbatim YAML frontmatter to JSON (`{}` when there is none).
/// Non-text keys become their YAML text; values YAML cannot express in JSON
/// (tags) keep their inner value.
pub fn frontmatter_json(raw: &str) -> Value {
    match serde_yaml::from_str::<serde_yaml::Value>(raw) {
        Ok(serde_yaml::Value::Null) => Value::Object(Map::new()),
        Ok(value) => yaml_to_json(&value),
        Err(_) => Value::Null,
    }
}

fn yaml_to_json(value: &serde_yaml::Value) -> Value {
    use serde_yaml::Value as Y;
    match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                json!(i)
            } else if let Some(u) = n.as_u64() {
                json!(u)
            } else {
                n.as_f64()
                    .and_then(serde_json::Number::from_f64)
                    .map_or_else(|| Value::String(n.to_string()), Value::Number)
            }
        }
        Y::String(s) => Value::String(s.clone()),
        Y::Sequence(items) => Value::Array(items.iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let key = match k {
                        Y::String(s) => s.clone(),
                        other => serde_yaml::to_string(other)
                            .map(|s| s.trim_end().to_string())
                            .unwrap_or_default(),
                    };
                    (key, yaml_to_json(v))
                })
                .collect(),
        ),
        Y::Tagged(tagged) => yaml_to_json(&tagged.value),
    }
}
