//! The rules for each frontmatter field, per profile. They read the same
//! parse of the YAML as the loader (the one parser in `skillhost-skill`),
//! and every rule runs whatever the others found.

use super::Problem;
use super::name_rules::{name_problems, unicode_name_problems};
use super::profile::Profile;
use skillhost_skill::node::{Fields, Node};
use std::borrow::Cow;
use std::path::Path;

/// Longest description the spec allows, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// Longest compatibility note the spec allows, in characters.
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// Every problem of the fields of the document at `path`, whose name must
/// equal `folder`, by `profile`'s rules: unknown fields first, then `name`,
/// `description`, `compatibility` and the rest.
pub fn check_fields(
    fields: &Fields<'_>,
    path: &Path,
    folder: &str,
    profile: Profile,
) -> Vec<Problem> {
    let mut out = Vec::new();
    let get = |key: &str| fields.iter().find(|(k, _)| k == key).map(|(_, v)| v);
    let mut unknown: Vec<&str> = fields
        .iter()
        .map(|(k, _)| k.as_ref())
        .filter(|k| !profile.known_fields().contains(k))
        .collect();
    unknown.sort_unstable();
    unknown.dedup();
    // A key from the file is shown escaped: it may hold terminal escapes.
    let unknown: Vec<String> = unknown.into_iter().map(skillhost::text::escaped).collect();
    let unknown: Vec<&str> = unknown.iter().map(String::as_str).collect();
    invisible(fields, path, profile, &mut out);
    match profile {
        Profile::Claude => {
            for key in unknown {
                out.push(Problem::warning(
                    path,
                    key,
                    "is not a field Claude Code or skillhost reads, so it is ignored \
                     (keep extra properties under metadata)",
                ));
            }
            claude(
                &get,
                folder,
                &mut Out {
                    path,
                    problems: &mut out,
                },
            );
        }
        Profile::AgentSkills => {
            let spec = super::profile::SPEC_FIELDS.join(", ");
            for key in unknown {
                out.push(Problem::error(
                    path,
                    key,
                    format!(
                        "is not an Agent Skills field (the spec allows only {spec}); \
                         put it under metadata"
                    ),
                ));
            }
            agentskills(
                &get,
                folder,
                &mut Out {
                    path,
                    problems: &mut out,
                },
            );
        }
    }
    out
}

/// Every field holding invisible format characters, in its key or
/// anywhere in its value: an error under the Agent Skills profile (other
/// readers hand them to a model unseen), a warning under Claude's
/// (skillhost removes them before anything is shown).
fn invisible(fields: &Fields<'_>, path: &Path, profile: Profile, out: &mut Vec<Problem>) {
    fn texts(node: &Node<'_>, all: &mut String) {
        match node {
            Node::Text(t) => all.push_str(t),
            Node::Seq(items) => items.iter().for_each(|i| texts(i, all)),
            Node::Map(pairs) => pairs.iter().for_each(|(k, v)| {
                texts(k, all);
                texts(v, all);
            }),
            _ => {}
        }
    }
    for (key, value) in fields {
        let mut all = key.to_string();
        texts(value, &mut all);
        let named = skillhost_skill::invisible::named(&all, 8);
        if named.is_empty() {
            continue;
        }
        let message = format!(
            "{} ({})",
            skillhost_skill::frontmatter::INVISIBLE_WARNING,
            named.join(", ")
        );
        let key = skillhost::text::escaped(key);
        out.push(match profile {
            Profile::Claude => Problem::warning(path, &key, message),
            Profile::AgentSkills => Problem::error(path, &key, message),
        });
    }
}

type Get<'f, 'a> = dyn Fn(&str) -> Option<&'f Node<'a>> + 'f;

/// The problems of one document, as they are found.
struct Out<'p> {
    path: &'p Path,
    problems: &'p mut Vec<Problem>,
}

impl Out<'_> {
    fn error(&mut self, field: &str, message: impl Into<String>) {
        self.problems
            .push(Problem::error(self.path, field, message));
    }

    fn warning(&mut self, field: &str, message: impl Into<String>) {
        self.problems
            .push(Problem::warning(self.path, field, message));
    }
}

/// The portable rules, as skillhost has always applied them.
fn claude(get: &Get<'_, '_>, folder: &str, out: &mut Out<'_>) {
    match get("name") {
        None => out.error("name", "missing (required)"),
        Some(Node::Text(name)) => {
            for message in name_problems(name, folder) {
                out.error("name", message);
            }
        }
        Some(other) => out.error("name", format!("must be a string, found {}", other.kind())),
    }
    match get("description") {
        None => out.error("description", "missing (required)"),
        Some(Node::Text(d)) => {
            let chars = d.trim().chars().count();
            if chars == 0 {
                out.error("description", "must not be empty");
            } else if chars > MAX_DESCRIPTION_CHARS {
                out.error(
                    "description",
                    format!("has {chars} characters, more than {MAX_DESCRIPTION_CHARS}"),
                );
            }
        }
        Some(other) => out.error(
            "description",
            format!("must be a string, found {}", other.kind()),
        ),
    }
    match get("compatibility") {
        None => {}
        Some(Node::Text(c)) => {
            let chars = c.chars().count();
            if chars == 0 || chars > MAX_COMPATIBILITY_CHARS {
                out.error(
                    "compatibility",
                    format!("has {chars} characters; it must have 1 to {MAX_COMPATIBILITY_CHARS}"),
                );
            }
        }
        Some(other) => out.error(
            "compatibility",
            format!("must be a string, found {}", other.kind()),
        ),
    }
    match get("license") {
        None | Some(Node::Text(_)) => {}
        Some(other) => out.error(
            "license",
            format!("must be a string, found {}", other.kind()),
        ),
    }
    match get("metadata") {
        None => {}
        Some(Node::Map(pairs)) if pairs.iter().any(|(k, _)| !matches!(k, Node::Text(_))) => {
            out.error("metadata", "keys must be strings");
        }
        Some(Node::Map(_)) => {}
        Some(other) => out.error(
            "metadata",
            format!("must be a mapping, found {}", other.kind()),
        ),
    }
}

/// A scalar as the reference validator's YAML reader gives it: every scalar
/// is text (`123`, `true`) and an empty value is the empty string.
fn spec_text<'n>(node: &'n Node<'_>) -> Option<Cow<'n, str>> {
    match node {
        Node::Null => Some(Cow::Borrowed("")),
        other => other.scalar_text(),
    }
}

/// The spec's rules, as its reference validator applies them (see the
/// docs/CLI.md for where skillhost deliberately differs).
fn agentskills(get: &Get<'_, '_>, folder: &str, out: &mut Out<'_>) {
    let non_empty = |node: &Node<'_>| {
        spec_text(node)
            .filter(|t| !t.trim().is_empty())
            .map(Cow::into_owned)
    };
    match get("name") {
        None => out.error("name", "missing (required)"),
        Some(node) => match non_empty(node) {
            None => out.error("name", "must be a non-empty string"),
            Some(name) => {
                for message in unicode_name_problems(&name, folder) {
                    out.error("name", message);
                }
            }
        },
    }
    match get("description") {
        None => out.error("description", "missing (required)"),
        Some(node) => match non_empty(node) {
            None => out.error("description", "must be a non-empty string"),
            Some(d) => {
                // Counted as written, spaces included, like the reference.
                let chars = d.chars().count();
                if chars > MAX_DESCRIPTION_CHARS {
                    out.error(
                        "description",
                        format!("has {chars} characters, more than {MAX_DESCRIPTION_CHARS}"),
                    );
                }
            }
        },
    }
    if let Some(node) = get("compatibility") {
        match spec_text(node) {
            None => out.error("compatibility", "must be a string"),
            Some(c) => {
                let chars = c.chars().count();
                if chars == 0 || chars > MAX_COMPATIBILITY_CHARS {
                    out.error(
                        "compatibility",
                        format!(
                            "has {chars} characters; it must have 1 to {MAX_COMPATIBILITY_CHARS}"
                        ),
                    );
                }
            }
        }
    }
    if get("license").is_some_and(|node| spec_text(node).is_none()) {
        out.error(
            "license",
            "must be a string (a licence name or the name of a bundled file)",
        );
    }
    match get("metadata") {
        None | Some(Node::Null) => {}
        Some(Node::Map(pairs)) => {
            if pairs.iter().any(|(k, _)| k.scalar_text().is_none()) {
                out.error("metadata", "keys must be strings");
            }
            for (key, value) in pairs {
                if spec_text(value).is_none() {
                    let key = key.scalar_text().unwrap_or(Cow::Borrowed("?"));
                    out.error(
                        "metadata",
                        format!(
                            "the value of {key:?} is {}; the spec's metadata maps strings to strings",
                            value.kind()
                        ),
                    );
                }
            }
        }
        Some(other) => out.error(
            "metadata",
            format!(
                "must be a mapping of strings to strings, found {}",
                other.kind()
            ),
        ),
    }
    match get("allowed-tools") {
        None => {}
        Some(node) if spec_text(node).is_some() => {}
        Some(Node::Seq(items)) if items.iter().all(|i| i.scalar_text().is_some()) => {
            out.warning(
                "allowed-tools",
                "is a list; the spec defines it as one space-separated string \
                 (Claude Code and skillhost read both)",
            );
        }
        Some(other) => out.error(
            "allowed-tools",
            format!("must be a space-separated string, found {}", other.kind()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillhost::model::Severity;

    fn problems(yaml: &str, profile: Profile) -> Vec<Problem> {
        let fields = skillhost_skill::yaml::parse_fields(yaml).unwrap();
        check_fields(&fields, Path::new("s/SKILL.md"), "s", profile)
    }

    #[test]
    fn invisible_characters_are_an_agentskills_error_and_a_claude_warning() {
        let yaml = "name: s\ndescription: \"Formats\u{E0068}\u{E0069} code\"\n";
        for (profile, severity) in [
            (Profile::AgentSkills, Severity::Error),
            (Profile::Claude, Severity::Warning),
        ] {
            let found: Vec<_> = problems(yaml, profile)
                .into_iter()
                .filter(|p| p.message.contains("invisible"))
                .collect();
            assert_eq!(found.len(), 1, "{profile:?}: {found:?}");
            assert_eq!(found[0].severity, severity);
            assert_eq!(found[0].field, "description");
            assert!(found[0].message.contains("U+E0068"), "{}", found[0].message);
        }
    }

    #[test]
    fn an_unknown_field_holding_escapes_is_named_escaped() {
        let yaml = "name: s\ndescription: d\n\"\\e[31mred\": 1\n";
        let unknown = problems(yaml, Profile::Claude);
        assert!(
            unknown.iter().all(|p| !p.field.contains('\u{1b}')),
            "{unknown:?}"
        );
        assert!(
            unknown.iter().any(|p| p.field.contains("\\u{1b}[31mred")),
            "{unknown:?}"
        );
    }
}
