//! The merged catalog every consumer reads.

use super::{Diagnostic, Skill};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use std::sync::Arc;

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
    /// Some provider has never given a complete view and is still within
    /// its grace: publishing now could drop its skills, so injection waits.
    /// (Other incomplete providers contribute their last complete view.)
    pub held_back: bool,
    /// Skills another provider's skill of the same name shadows: listed
    /// nowhere, still reachable by asking for `SCOPE:name` (`user:pdf`) or
    /// `SOURCE:name` ([`Catalog::resolve`]).
    pub shadowed: Vec<Arc<Skill>>,
}

impl Catalog {
    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills
            .binary_search_by(|s| s.name().cmp(name))
            .ok()
            .map(|i| &self.skills[i])
    }

    /// The skill named `name`, or the first whose aliases include it, or
    /// the first whose folder is named `name` (a skill served under a name
    /// other than its folder's is still found by the folder people see).
    pub fn resolve(&self, name: &str) -> Option<&Arc<Skill>> {
        self.get(name)
            .or_else(|| {
                self.skills
                    .iter()
                    .find(|s| s.frontmatter.aliases.iter().any(|a| a == name))
            })
            .or_else(|| {
                self.skills
                    .iter()
                    .find(|s| s.folder().as_deref() == Some(name))
            })
            .or_else(|| self.qualified(name))
    }

    /// The skill `SCOPE:name` or `SOURCE:name` names (`user:pdf`,
    /// `local:/home/me/.claude/skills:pdf`), listed or shadowed: a skill
    /// that lost its name to a higher-precedence one stays reachable.
    pub fn qualified(&self, name: &str) -> Option<&Arc<Skill>> {
        let (prefix, bare) = name.rsplit_once(':')?;
        self.skills
            .iter()
            .chain(&self.shadowed)
            .find(|s| s.name() == bare && (s.scope.as_str() == prefix || s.source == prefix))
    }

    /// The catalog JSON: `{"complete", "skills", "diagnostics"}` (its
    /// [`Serialize`] form, which `catalog --json` writes directly).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The error for `name`, which this catalog does not hold: the names
    /// near it (at most five), never all of them.
    pub fn unknown(&self, name: &str) -> crate::Error {
        crate::Error::UnknownSkill {
            name: name.to_string(),
            near: super::near::near(name, self.skills.iter().map(|s| s.name()))
                .into_iter()
                .map(str::to_string)
                .collect(),
            count: self.skills.len(),
        }
    }
}

impl Serialize for Catalog {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut out = serializer.serialize_map(Some(3))?;
        out.serialize_entry("complete", &self.complete)?;
        out.serialize_entry("skills", &Skills(&self.skills))?;
        let diagnostics: Vec<Value> = self.diagnostics.iter().map(Diagnostic::to_json).collect();
        out.serialize_entry("diagnostics", &diagnostics)?;
        out.end()
    }
}

/// The skills as a JSON list, each in its catalog shape.
struct Skills<'a>(&'a [Arc<Skill>]);

impl Serialize for Skills<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|s| &**s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Location, Scope};
    use skillhost_skill::frontmatter::Frontmatter;

    #[test]
    fn the_catalog_json_keeps_its_shape_and_key_order() {
        let mut frontmatter = Frontmatter::defaults("a");
        frontmatter.raw = "name: a\nx-extra: [1, two]\n".to_string();
        let skill = Skill {
            source: "p".into(),
            scope: Scope::User,
            path: Location::Path("/s/a/SKILL.md".into()),
            base: Location::Path("/s/a".into()),
            frontmatter,
            json: Some(r#"{"name": "a", "x-extra": [1, "two"]}"#.into()),
        };
        let catalog = Catalog {
            complete: true,
            skills: vec![Arc::new(skill)],
            diagnostics: vec![Diagnostic::warning("/s/b", "odd")],
            held_back: false,
            shadowed: Vec::new(),
        };
        let value = catalog.to_json();
        let keys: Vec<&str> = value["skills"][0]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "name",
                "display_name",
                "description",
                "source",
                "scope",
                "path",
                "base",
                "frontmatter",
                "when_to_use",
                "argument_hint",
                "user_invocable",
                "model_invocable",
                "context",
                "model",
                "effort",
                "agent",
                "allowed_tools",
                "paths",
                "aliases",
                "pinned"
            ]
        );
        assert_eq!(value["skills"][0]["frontmatter"]["x-extra"][1], "two");
        assert_eq!(value["diagnostics"][0]["message"], "odd");
        // Written directly, it is the same document.
        let written: Value =
            serde_json::from_slice(&serde_json::to_vec(&catalog).unwrap()).unwrap();
        assert_eq!(written, value);
    }
}
