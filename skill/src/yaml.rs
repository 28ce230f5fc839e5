//! Parsing the YAML of a frontmatter block into the tree the normaliser
//! reads: the fast path for the YAML skills are almost always written in,
//! `serde_yaml` for the rest, and the leniency agent hosts have long had
//! for unquoted globs and `key: a: b`.

use crate::model::Finding;
use crate::node::{Fields, fields_from_mapping};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_yaml::Value;
use std::cell::Cell;
use std::fmt;

/// Most values one frontmatter may expand to, aliases repeated: far more
/// than 64 KiB of YAML can write without aliases, far less than a
/// provider's memory. An alias bomb (anchors repeating anchors, under
/// serde_yaml's own repetition limit) would otherwise fill the sandbox and
/// fault the provider, hiding every other skill of its root.
pub const MAX_EXPANDED_VALUES: usize = 100_000;

/// Most bytes of text one frontmatter may expand to, aliases repeated.
pub const MAX_EXPANDED_BYTES: usize = 1 << 20;

/// Why an expansion was stopped.
fn expansion_refused() -> Finding {
    Finding::new(
        None,
        None,
        format!(
            "the YAML expands past {MAX_EXPANDED_VALUES} values or {MAX_EXPANDED_BYTES} bytes \
             (aliases repeating anchors): refused"
        ),
    )
}

/// Whether `raw`, its aliases expanded, stays within the caps: counted by
/// walking serde_yaml's events without building anything, stopped at the
/// first value past them. `Ok` also for YAML that does not parse (the real
/// parse reports that).
fn within_expansion(raw: &str) -> Result<(), Finding> {
    let budget = Budget {
        values: Cell::new(MAX_EXPANDED_VALUES),
        bytes: Cell::new(MAX_EXPANDED_BYTES),
        exceeded: Cell::new(false),
    };
    let _ = Counted(&budget).deserialize(serde_yaml::Deserializer::from_str(raw));
    if budget.exceeded.get() {
        return Err(expansion_refused());
    }
    Ok(())
}

struct Budget {
    values: Cell<usize>,
    bytes: Cell<usize>,
    exceeded: Cell<bool>,
}

impl Budget {
    fn spend<E: serde::de::Error>(&self, bytes: usize) -> Result<(), E> {
        let values = self.values.get().checked_sub(1);
        let left = self.bytes.get().checked_sub(bytes);
        match (values, left) {
            (Some(values), Some(left)) => {
                self.values.set(values);
                self.bytes.set(left);
                Ok(())
            }
            _ => {
                self.exceeded.set(true);
                Err(E::custom("expansion limit"))
            }
        }
    }
}

/// Counts one value and everything inside it.
struct Counted<'b>(&'b Budget);

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.0.spend(1)
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.0.spend(8)
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.0.spend(8)
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.0.spend(8)
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<(), E> {
        self.0.spend(s.len())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.spend(1)
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.0.spend(1)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        Counted(self.0).deserialize(d)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        Counted(self.0).deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.spend(1)?;
        while seq.next_element_seed(Counted(self.0))?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.0.spend(1)?;
        while map.next_key_seed(Counted(self.0))?.is_some() {
            map.next_value_seed(Counted(self.0))?;
        }
        Ok(())
    }

    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        use serde::de::VariantAccess as _;
        let ((), variant) = data.variant_seed(Counted(self.0))?;
        variant.newtype_variant_seed(Counted(self.0))
    }
}

/// Parses the YAML block; retries once with troublesome plain values quoted
/// (unquoted globs such as `*.md` or `{src,lib}/**`, and `key: a: b`), the
/// way agent hosts have long accepted them. Line numbers are file lines.
pub fn parse_fields(raw: &str) -> Result<Fields<'_>, Finding> {
    if let Some(fields) = crate::fast_yaml::parse(raw) {
        return Ok(fields);
    }
    // Anchors are the only way YAML grows past its text; the fast path
    // takes none.
    if raw.contains('&') && raw.contains('*') {
        within_expansion(raw)?;
    }
    let first = match serde_yaml::from_str::<Value>(raw) {
        Ok(value) => return into_mapping(value),
        Err(e) => e,
    };
    if let Some(fixed) = quote_troublesome_values(raw)
        && within_expansion(&fixed).is_ok()
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
    within_expansion(raw).map_err(|f| f.message)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten anchors, each a list of ten of the one before: 10^9 values once
    /// expanded, in under 1 KiB of text.
    fn alias_bomb() -> String {
        let mut yaml =
            String::from("name: bomb\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            yaml.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        yaml
    }

    #[test]
    fn an_alias_bomb_is_refused_as_one_document_before_it_is_built() {
        let refused = parse_fields(&alias_bomb()).unwrap_err();
        assert!(
            refused.message.contains("aliases repeating anchors"),
            "{}",
            refused.message
        );
        assert!(strict(&alias_bomb()).unwrap_err().contains("expands past"));
    }

    #[test]
    fn ordinary_anchors_and_large_plain_lists_stay_within_the_caps() {
        let anchors = "name: a\ndescription: d\nbase: &b {x: 1}\nmore: *b\n";
        assert_eq!(parse_fields(anchors).unwrap().len(), 4);
        // A list as long as 64 KiB of frontmatter can write.
        let mut long = String::from("name: a\ndescription: d\nitems: [");
        long.push_str(&vec!["y"; 30_000].join(", "));
        long.push_str("]\nx: &z 1\ny: *z\n");
        assert!(within_expansion(&long).is_ok());
    }
}
