//! Reading the normalised fields out of a parsed frontmatter tree: the
//! shapes each field may be written in (a list or one string, booleans as
//! `"true"`), their defaults, and a warning for every value of the wrong
//! shape (which falls back to its default instead of failing the skill).

use crate::braces::expand_braces;
use crate::model::{Context, Finding, Frontmatter};
use crate::names::check_name;
use crate::node::{Fields, Node};

/// Reads fields out of the frontmatter, collecting warnings for values of
/// the wrong shape (which fall back to their defaults).
struct Reader<'f, 'a, 'w> {
    fields: &'f Fields<'a>,
    warnings: &'w mut Vec<Finding>,
    /// Where each field read (by [`slot_of`]) first appears: found in one
    /// pass, since every document is asked for all of them (inside the
    /// sandbox, searching the fields for each was a tenth of the parse).
    slots: [Option<usize>; FIELDS],
}

/// The start of the warning for a field holding invisible characters
/// (the validator turns it into an error under the Agent Skills profile).
pub const INVISIBLE_WARNING: &str = "holds invisible format characters a reader cannot see";

/// How many fields the normaliser reads.
const FIELDS: usize = 18;

/// The slot of a field the normaliser reads.
fn slot_of(key: &str) -> Option<usize> {
    Some(match key {
        "name" => 0,
        "description" => 1,
        "when_to_use" => 2,
        "argument-hint" => 3,
        "context" => 4,
        "model" => 5,
        "effort" => 6,
        "allowed-tools" => 7,
        "user-invocable" => 8,
        "disable-model-invocation" => 9,
        "paths" => 10,
        "aliases" => 11,
        "version" => 12,
        "agent" => 13,
        "pinned" => 14,
        "license" => 15,
        "compatibility" => 16,
        "metadata" => 17,
        _ => return None,
    })
}

impl<'f, 'a, 'w> Reader<'f, 'a, 'w> {
    fn new(fields: &'f Fields<'a>, warnings: &'w mut Vec<Finding>) -> Self {
        let mut slots = [None; FIELDS];
        for (index, (key, _)) in fields.iter().enumerate() {
            if let Some(slot) = slot_of(key) {
                slots[slot].get_or_insert(index);
            }
        }
        Reader {
            fields,
            warnings,
            slots,
        }
    }

    fn get(&self, key: &str) -> Option<&'f Node<'a>> {
        let fields: &'f Fields<'a> = self.fields;
        let found = match slot_of(key) {
            Some(slot) => self.slots[slot].and_then(|i| fields.get(i)),
            None => fields.iter().find(|(k, _)| k == key),
        };
        match found {
            None | Some((_, Node::Null)) => None,
            Some((_, v)) => Some(v),
        }
    }

    fn warn(&mut self, key: &str, message: String) {
        self.warnings.push(Finding::new(None, Some(key), message));
    }

    /// `text` without its invisible characters, warning under `key` when
    /// it had any: a field says to a model only what a person reading it
    /// sees (see [`crate::invisible`]).
    fn visible(&mut self, key: &str, text: &str) -> String {
        let stripped = crate::invisible::strip(text);
        if let std::borrow::Cow::Owned(_) = stripped {
            let named = crate::invisible::named(text, 8).join(", ");
            self.warn(
                key,
                format!("{INVISIBLE_WARNING} ({named}); they were removed"),
            );
        }
        stripped.into_owned()
    }

    fn text(&mut self, key: &str) -> Option<String> {
        let value = self.get(key)?;
        match value.scalar_text() {
            Some(s) => {
                let s = self.visible(key, &s);
                let trimmed = s.trim();
                (!trimmed.is_empty()).then(|| trimmed.to_string())
            }
            None => {
                let found = value.kind();
                self.warn(key, format!("must be text, found {found}; ignored"));
                None
            }
        }
    }

    fn flag(&mut self, key: &str, default: bool) -> bool {
        let Some(value) = self.get(key) else {
            return default;
        };
        match value {
            Node::Bool(b) => *b,
            Node::Text(s) if s.trim().eq_ignore_ascii_case("true") => true,
            Node::Text(s) if s.trim().eq_ignore_ascii_case("false") => false,
            other => {
                let found = other
                    .scalar_text()
                    .map_or_else(|| other.kind().to_string(), |t| t.into_owned());
                self.warn(
                    key,
                    format!("must be true or false, found {found:?}; using {default}"),
                );
                default
            }
        }
    }

    /// A list given as a YAML sequence or as one string split by `split`.
    fn list(&mut self, key: &str, split: Splitter) -> Vec<String> {
        let Some(value) = self.get(key) else {
            return Vec::new();
        };
        let mut out = Unique::default();
        let mut hidden = String::new();
        let mut push = |item: &str| {
            let visible = crate::invisible::strip(item);
            if visible.len() != item.len() {
                hidden.push_str(item);
            }
            let item = visible.trim();
            if !item.is_empty() {
                out.push(item);
            }
        };
        match value {
            Node::Seq(items) => {
                for item in items {
                    match item.scalar_text() {
                        Some(s) => push(&s),
                        None => {
                            let found = item.kind();
                            self.warnings.push(Finding::new(
                                None,
                                Some(key),
                                format!("list items must be text, found {found}"),
                            ));
                        }
                    }
                }
            }
            other => match other.scalar_text() {
                Some(s) => split(&s, &mut push),
                None => {
                    let found = other.kind();
                    self.warn(key, format!("must be a list or text, found {found}"));
                }
            },
        }
        if !hidden.is_empty() {
            self.visible(key, &hidden);
        }
        out.items
    }

    fn metadata(&mut self) -> Vec<(String, String)> {
        let Some(value) = self.get("metadata") else {
            return Vec::new();
        };
        let Node::Map(pairs) = value else {
            let found = value.kind();
            self.warn("metadata", format!("must be a mapping, found {found}"));
            return Vec::new();
        };
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .filter_map(|(k, v)| {
                let key = k.scalar_text()?.into_owned();
                let text = match v.scalar_text() {
                    Some(s) => s.into_owned(),
                    None => serde_yaml::to_string(&v.to_value())
                        .ok()?
                        .trim_end()
                        .to_string(),
                };
                Some((key, text))
            })
            .collect();
        pairs
            .into_iter()
            .map(|(k, v)| (self.visible("metadata", &k), self.visible("metadata", &v)))
            .collect()
    }
}

/// Items in first-seen order, each once. A few are compared directly; past
/// that a set answers, so a hostile list of thousands of items costs
/// linear time, not quadratic.
#[derive(Default)]
struct Unique {
    items: Vec<String>,
    seen: std::collections::HashSet<String>,
}

impl Unique {
    /// Lists this short are searched rather than hashed.
    const SEARCHED: usize = 16;

    fn push(&mut self, item: &str) {
        let new = if self.items.len() < Self::SEARCHED {
            !self.items.iter().any(|x| x == item)
        } else {
            if self.seen.is_empty() {
                self.seen.extend(self.items.iter().cloned());
            }
            self.seen.insert(item.to_string())
        };
        if new {
            self.items.push(item.to_string());
        }
    }
}

/// Splits a one-string list, handing each piece to the callback.
type Splitter = fn(&str, &mut dyn FnMut(&str));

/// Hands `out` each piece of `s` between characters for which `separator`
/// holds, except inside `open`/`close` pairs.
fn split_outside(
    s: &str,
    open: char,
    close: char,
    separator: fn(char) -> bool,
    out: &mut dyn FnMut(&str),
) {
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && separator(c) {
            out(&s[start..i]);
            start = i + c.len_utf8();
        }
    }
    out(&s[start..]);
}

/// Tools: commas and whitespace separate, except inside parentheses, so
/// `Read, Bash(git diff:*)` is two tools.
fn split_list_item(s: &str, out: &mut dyn FnMut(&str)) {
    split_outside(s, '(', ')', |c| c == ',' || c.is_whitespace(), out);
}

/// Globs: commas separate, except inside braces, so `*.{ts,tsx}, docs/**`
/// is two patterns before brace expansion.
fn split_commas(s: &str, out: &mut dyn FnMut(&str)) {
    split_outside(s, '{', '}', |c| c == ',', out);
}

/// The name a document is served under: its `name` field, trimmed, or
/// `default_name` (its folder, or a flat file's stem) when it has none.
/// A `name` that is not text is an error, as is a name unsafe as an
/// identifier.
pub fn served_name(fields: &Fields<'_>, default_name: &str) -> Result<String, Finding> {
    let declared = fields
        .iter()
        .find(|(k, _)| k == "name")
        .map(|(_, v)| v)
        .filter(|v| !matches!(v, Node::Null));
    let name = match declared {
        None => default_name.to_string(),
        Some(value) => match value.scalar_text() {
            Some(name) => name.trim().to_string(),
            None => {
                let found = value.kind();
                return Err(Finding::new(
                    None,
                    Some("name"),
                    format!("must be text, found {found}"),
                ));
            }
        },
    };
    crate::names::served(&name, default_name)
        .map(str::to_string)
        .map_err(|e| Finding::new(None, Some("name"), e.to_string()))
}

/// Every normalised field of `fields` for a skill served as `name` (which
/// the caller has checked): the shapes each field may take, defaults, brace
/// expansion and aliases, with a warning for each value of the wrong shape.
pub(crate) fn normalise_named(
    raw: &str,
    fields: &Fields<'_>,
    name: String,
    warnings: &mut Vec<Finding>,
) -> Frontmatter {
    let mut f = Reader::new(fields, warnings);
    // A declared name served under another (its folder's) is kept as the
    // text people read.
    let display_name = f.text("name").filter(|declared| *declared != name);
    // A declared name that could serve is the provider's to explain (the
    // local provider serves one of two same-named skills by its folder).
    if let Some(declared) = &display_name
        && !crate::names::is_identifier(declared)
    {
        let why = if declared.contains(':') {
            "':' is reserved for namespaces"
        } else {
            "it is not one word"
        };
        f.warn(
            "name",
            format!(
                "{declared:?} cannot name a command or a URI ({why}): served as {name:?}, \
                 shown as written"
            ),
        );
    }
    let description = f.text("description");
    if description.is_none() {
        f.warn(
            "description",
            "missing: the model cannot tell when to use this skill".to_string(),
        );
    }
    let context = match f.text("context") {
        None => Context::Inline,
        Some(c) if c.eq_ignore_ascii_case("inline") => Context::Inline,
        Some(c) if c.eq_ignore_ascii_case("fork") => Context::Fork,
        Some(c) => {
            f.warn(
                "context",
                format!("must be inline or fork, found {c:?}; using inline"),
            );
            Context::Inline
        }
    };
    let mut paths = Unique::default();
    for pattern in f.list("paths", split_commas) {
        for path in expand_braces(&pattern) {
            paths.push(&path);
        }
    }
    let paths = paths.items;
    let aliases = f.list("aliases", split_list_item);
    for alias in &aliases {
        if let Err(e) = check_name(alias) {
            f.warn("aliases", format!("alias {alias:?} is unusable: {e}"));
        }
    }
    let aliases = aliases
        .into_iter()
        .filter(|a| check_name(a).is_ok() && *a != name)
        .collect();
    Frontmatter {
        raw: raw.to_string(),
        name,
        display_name,
        description,
        when_to_use: f.text("when_to_use"),
        argument_hint: f.text("argument-hint"),
        context,
        model: f.text("model"),
        effort: f.text("effort"),
        allowed_tools: f.list("allowed-tools", split_list_item),
        user_invocable: f.flag("user-invocable", true),
        disable_model_invocation: f.flag("disable-model-invocation", false),
        paths,
        aliases,
        version: f.text("version"),
        agent: f.text("agent"),
        pinned: f.flag("pinned", false),
        license: f.text("license"),
        compatibility: f.text("compatibility"),
        metadata: f.metadata(),
    }
}

#[cfg(test)]
#[path = "fields_tests.rs"]
mod tests;
