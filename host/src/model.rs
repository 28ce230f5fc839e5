//! The host's view of skills, diagnostics and catalogs, and their JSON shape
//! (SPEC J2).

use serde_json::{Map, Value, json};
use skillhost_guest_sdk::frontmatter::{Context, Frontmatter};
use std::path::PathBuf;
use std::sync::Arc;

/// Where a provider's skills come from, for precedence and watching.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// A project's own skills (`.agents/skills` in the working folder): its
    /// watches are among the bounded set evicted least-recently-observed.
    Project,
    /// The user's skills, or roots named explicitly.
    User,
    /// Skills compiled into a provider.
    Bundled,
    /// Skills served over the network.
    Remote,
}

/// One skill as the host knows it: validated, with host paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The id of the provider that serves it.
    pub source: String,
    /// Where that provider's skills come from.
    pub scope: Scope,
    /// The document on the host (`SKILL.md` or the flat file).
    pub path: PathBuf,
    /// The folder its relative paths resolve against, on the host.
    pub base: PathBuf,
    /// Its frontmatter, verbatim and normalised.
    pub frontmatter: Frontmatter,
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

    /// Whether the model may invoke it.
    pub fn model_invocable(&self) -> bool {
        !self.frontmatter.disable_model_invocation
    }

    /// The catalog JSON of this skill.
    pub fn to_json(&self) -> Value {
        let f = &self.frontmatter;
        let mut out = Map::new();
        out.insert("name".into(), json!(f.name));
        out.insert("description".into(), json!(f.description));
        out.insert("source".into(), json!(self.source));
        out.insert(
            "scope".into(),
            json!(match self.scope {
                Scope::Project => "project",
                Scope::User => "user",
                Scope::Bundled => "bundled",
                Scope::Remote => "remote",
            }),
        );
        out.insert("path".into(), json!(self.path));
        out.insert("base".into(), json!(self.base));
        out.insert("frontmatter".into(), frontmatter_json(&f.raw));
        out.insert("when_to_use".into(), json!(f.when_to_use));
        out.insert("argument_hint".into(), json!(f.argument_hint));
        out.insert("user_invocable".into(), json!(f.user_invocable));
        out.insert("model_invocable".into(), json!(self.model_invocable()));
        out.insert(
            "context".into(),
            json!(match f.context {
                Context::Inline => "inline",
                Context::Fork => "fork",
            }),
        );
        out.insert("model".into(), json!(f.model));
        out.insert("effort".into(), json!(f.effort));
        out.insert("agent".into(), json!(f.agent));
        out.insert("allowed_tools".into(), json!(f.allowed_tools));
        out.insert("paths".into(), json!(f.paths));
        out.insert("aliases".into(), json!(f.aliases));
        out.insert("pinned".into(), json!(f.pinned));
        Value::Object(out)
    }
}

pub use skillhost_guest_sdk::json::frontmatter_json;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Something could not be used.
    Error,
    /// Something was used but is off.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// A problem found by a provider or by the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// The file or folder concerned (a host path), or the provider's location.
    pub path: String,
    /// The 1-based line, where known.
    pub line: Option<u32>,
    /// The frontmatter field, where there is one.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
    /// The provider that reported it (or that it is about).
    pub source: Option<String>,
}

impl Diagnostic {
    /// An error about `path`.
    pub fn error(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            path: path.into(),
            line: None,
            field: None,
            message: message.into(),
            source: None,
        }
    }

    /// A warning about `path`.
    pub fn warning(path: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(path, message)
        }
    }

    /// The same diagnostic, attributed to provider `source`.
    pub fn from_source(mut self, source: &str) -> Self {
        self.source = Some(source.to_string());
        self
    }

    /// The catalog JSON of this diagnostic.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("severity".into(), json!(self.severity.as_str()));
        out.insert("path".into(), json!(self.path));
        if let Some(line) = self.line {
            out.insert("line".into(), json!(line));
        }
        if let Some(field) = &self.field {
            out.insert("field".into(), json!(field));
        }
        out.insert("message".into(), json!(self.message));
        if let Some(source) = &self.source {
            out.insert("source".into(), json!(source));
        }
        Value::Object(out)
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.severity.as_str(), self.path)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The merged catalog of every provider.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Catalog {
    /// False when some provider's view is not complete (its last complete
    /// view, if any, stands in for it).
    pub complete: bool,
    /// The skills, sorted by name, names unique.
    pub skills: Vec<Arc<Skill>>,
    /// Everything worth telling the user.
    pub diagnostics: Vec<Diagnostic>,
}

impl Catalog {
    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills
            .binary_search_by(|s| s.name().cmp(name))
            .ok()
            .map(|i| &self.skills[i])
    }

    /// The catalog JSON: `{"complete", "skills", "diagnostics"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "complete": self.complete,
            "skills": self.skills.iter().map(|s| s.to_json()).collect::<Vec<_>>(),
            "diagnostics": self.diagnostics.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
        })
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
    /// Relative to the skill's base folder.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// `sha256:<hex>`.
    pub digest: String,
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
