//! One skill as the host knows it, a loaded document, and a skill's files.

use super::Location;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Value, json};
use skillhost_skill::frontmatter::{Context, Frontmatter};
use skillhost_skill::json::frontmatter_json;
use std::sync::Arc;

/// Where a provider's skills come from, for precedence and watching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A project's own skills (`.agents/skills` in the working folder): its
    /// watches are among the bounded set evicted least-recently-used.
    Project,
    /// The user's skills, or roots named explicitly.
    User,
    /// Skills compiled into a provider.
    Bundled,
    /// Skills served over the network.
    Remote,
}

impl Scope {
    /// `project`, `user`, `bundled` or `remote`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
            Scope::Bundled => "bundled",
            Scope::Remote => "remote",
        }
    }

    /// Where skills of this scope stand when two compete for a name or a
    /// place in a listing: lower first. A project's skills come before
    /// the user's, the user's before remote ones, and the skills bundled
    /// with the host last.
    pub fn precedence(self) -> u8 {
        match self {
            Scope::Project => 0,
            Scope::User => 1,
            Scope::Remote => 2,
            Scope::Bundled => 3,
        }
    }
}

/// One skill as the host knows it: validated, located on the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The id of the provider that serves it.
    pub source: String,
    /// Where that provider's skills come from.
    pub scope: Scope,
    /// The document (`SKILL.md` or the flat file).
    pub path: Location,
    /// The folder its relative paths resolve against.
    pub base: Location,
    /// Its frontmatter, verbatim and normalised.
    pub frontmatter: Frontmatter,
    /// The frontmatter as JSON text, as its provider sent it (checked at
    /// the boundary to be one JSON object). `None` for a skill made in the
    /// host, whose JSON comes from its verbatim YAML when asked for.
    pub json: Option<Arc<str>>,
}

impl Skill {
    /// The skill's name.
    pub fn name(&self) -> &str {
        &self.frontmatter.name
    }

    /// The skill's description, if it has one.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.description.as_deref()
    }

    /// The name of its folder, for a local skill that is a folder with its
    /// document in it (not a flat `<name>.md`): a second way to ask for it,
    /// as people name skills by the folder they see. A remote skill answers
    /// only to its namespaced name, so a mirror's folder cannot pass for a
    /// local skill's name.
    pub fn folder(&self) -> Option<String> {
        if !matches!(self.path, Location::Path(_)) || self.scope == Scope::Remote {
            return None;
        }
        let path = self.path.to_string();
        let base = self.base.to_string();
        let document = path.strip_prefix(base.as_str())?.strip_prefix('/')?;
        if !matches!(document, "SKILL.md" | "skill.md") {
            return None;
        }
        let folder = base.trim_end_matches('/').rsplit('/').next()?;
        (!folder.is_empty()).then(|| folder.to_string())
    }

    /// Whether the model may invoke it.
    pub fn model_invocable(&self) -> bool {
        !self.frontmatter.disable_model_invocation
    }

    /// Whether a user may invoke it (as a slash command).
    pub fn user_invocable(&self) -> bool {
        self.frontmatter.user_invocable
    }

    /// The frontmatter as JSON, every field the author wrote: the JSON the
    /// provider made inside its sandbox (the host parses no provider's
    /// YAML), or, for a skill made in the host, the one parser's reading
    /// of the verbatim text.
    pub fn frontmatter_json(&self) -> Value {
        match &self.json {
            Some(text) => serde_json::from_str(text).unwrap_or(Value::Null),
            None => frontmatter_json(&self.frontmatter.raw),
        }
    }

    /// The catalog JSON of this skill (its [`Serialize`] form, which
    /// `catalog --json` writes without building this tree).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The catalog JSON shape of a skill, in one place: written straight to
/// the output by `catalog --json` (a tree of 1,000 skills costs more to
/// build than to print) and made into a tree by [`Skill::to_json`].
impl Serialize for Skill {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let f = &self.frontmatter;
        let mut out = serializer.serialize_map(Some(21))?;
        out.serialize_entry("name", &f.name)?;
        out.serialize_entry("display_name", &f.display_name)?;
        out.serialize_entry("description", &f.description)?;
        out.serialize_entry("source", &self.source)?;
        out.serialize_entry("scope", self.scope.as_str())?;
        out.serialize_entry("path", &self.path.to_string())?;
        out.serialize_entry("base", &self.base.to_string())?;
        out.serialize_entry("frontmatter", &self.frontmatter_json())?;
        out.serialize_entry("when_to_use", &f.when_to_use)?;
        out.serialize_entry("argument_hint", &f.argument_hint)?;
        out.serialize_entry("user_invocable", &f.user_invocable)?;
        out.serialize_entry("model_invocable", &self.model_invocable())?;
        out.serialize_entry(
            "context",
            match f.context {
                Context::Inline => "inline",
                Context::Fork => "fork",
            },
        )?;
        out.serialize_entry("model", &f.model)?;
        out.serialize_entry("effort", &f.effort)?;
        out.serialize_entry("agent", &f.agent)?;
        out.serialize_entry("allowed_tools", &f.allowed_tools)?;
        out.serialize_entry("paths", &f.paths)?;
        out.serialize_entry("aliases", &f.aliases)?;
        out.serialize_entry("pinned", &f.pinned)?;
        out.end()
    }
}

/// A loaded skill: read again from its source, with its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillDocument {
    /// The skill as it is now.
    pub skill: Skill,
    /// The Markdown body.
    pub body: String,
}

impl SkillDocument {
    /// The JSON of `skillhost load --json`: the skill's catalog fields plus `body`.
    pub fn to_json(&self) -> Value {
        let mut value = self.skill.to_json();
        if let Value::Object(map) = &mut value {
            map.insert("body".into(), json!(self.body));
        }
        value
    }
}

/// One file of a skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillResource {
    /// Relative to the skill's base folder, `/`-separated.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// `sha256:<hex>`.
    pub digest: String,
}
