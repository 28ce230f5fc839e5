//! Parsing the YAML of a frontmatter block into the tree the normaliser
//! reads: the fast path for the YAML skills are almost always written in,
//! `serde_yaml` for the rest, and the leniency agent hosts have long had
//! for unquoted globs and `key: a: b`.

use crate::frontmatter::Finding;
use crate::node::{Fields, fields_from_mapping};
use serde_yaml::Value;

/// Parses the YAML block; retries once with troublesome plain values quoted
/// (unquoted globs such as `*.md` or `{src,lib}/**`, and `key: a: b`), the
/// way agent hosts have long accepted them. Line numbers are file lines.
pub fn parse_fields(raw: &str) -> Result<Fields<'_>, Finding> {
    if let Some(fields) = crate::fast_yaml::parse(raw) {
        return Ok(fields);
    }
    let first = match serde_yaml::from_str::<Value>(raw) {
        Ok(value) => return into_mapping(value),
        Err(e) => e,
    };
    if let Some(fixed) = quote_troublesome_values(raw)
        && let Ok(value) = serde_yaml::from_str::<Value>(&fixed)
    {
        return into_mapping(value);
    }
    let line = first
        .location()
        .map(|l| u32::try_from(l.line()).unwrap_or(u32::MAX - 1) + 1);
    let message = first.to_string();
    // serde_yaml appends " at line L column C" in its own numbering.
    let message = message
        .split(" at line ")
        .next()
        .unwrap_or(&message)
        .to_string();
    Err(Finding::new(line, None, format!("invalid YAML: {message}")))
}

fn into_mapping(value: Value) -> Result<Fields<'static>, Finding> {
    match value {
        Value::Mapping(m) => Ok(fields_from_mapping(m)),
        Value::Null => Ok(Vec::new()),
        other => Err(Finding::new(
            Some(2),
            None,
            format!(
                "frontmatter must be a mapping of fields, found {}",
                crate::node::from_value(other).kind()
            ),
        )),
    }
}

fn quote_troublesome_values(raw: &str) -> Option<String> {
    let mut changed = false;
    let mut out = String::with_capacity(raw.len() + 16);
    for line in raw.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let ending = &line[content.len()..];
        match troublesome_value_start(content) {
            Some(start) => {
                let value = content[start..].trim_end();
                out.push_str(&content[..start]);
                out.push('\'');
                out.push_str(&value.replace('\'', "''"));
                out.push('\'');
                out.push_str(ending);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    changed.then_some(out)
}

/// Where the value of a `key: value` or `- value` line starts, if that value
/// is a plain scalar YAML would misread: an unquoted glob (`*.md` reads as an
/// alias, `{src,lib}/**` as a broken flow mapping) or `key: a: b`.
fn troublesome_value_start(line: &str) -> Option<usize> {
    let leading_ws = |s: &str| s.len() - s.trim_start().len();
    let indent = leading_ws(line);
    let rest = &line[indent..];
    let (value_start, is_item) = if let Some(item) = rest.strip_prefix("- ") {
        (indent + 2 + leading_ws(item), true)
    } else {
        let colon = rest.find(": ")?;
        let key = &rest[..colon];
        let plain_key = key
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
        if key.is_empty() || !plain_key {
            return None;
        }
        let after = &rest[colon + 1..];
        (indent + colon + 1 + leading_ws(after), false)
    };
    let value = line[value_start..].trim_end();
    let troublesome = match value.chars().next()? {
        '*' => true,
        '{' => serde_yaml::from_str::<Value>(value).is_err(),
        '"' | '\'' | '|' | '>' | '[' | '&' | '!' | '#' => false,
        _ => !is_item && value.contains(": "),
    };
    troublesome.then_some(value_start)
}

/// Whether `raw` is strict YAML, without the leniency [`parse_fields`]
/// grants (unquoted globs, `key: a: b`): other readers of the same file,
/// such as the Agent Skills reference validator, refuse those. The error
/// says why when it is not.
pub fn strict(raw: &str) -> Result<(), String> {
    if crate::fast_yaml::parse(raw).is_some() {
        return Ok(());
    }
    serde_yaml::from_str::<Value>(raw).map(|_| ()).map_err(|e| {
        let message = e.to_string();
        // serde_yaml appends " at line L column C" counted from the YAML's
        // first line; the file has the opening `---` above it.
        let message = message.split(" at line ").next().unwrap_or(&message);
        match e.location() {
            Some(l) => format!("line {}: {message}", l.line() + 1),
            None => message.to_string(),
        }
    })
}
