//! The merged catalog every consumer reads.

use super::{Diagnostic, Skill};
use serde_json::{Value, json};
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
}

impl Catalog {
    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills
            .binary_search_by(|s| s.name().cmp(name))
            .ok()
            .map(|i| &self.skills[i])
    }

    /// The skill named `name`, or the first whose aliases include it.
    pub fn resolve(&self, name: &str) -> Option<&Arc<Skill>> {
        self.get(name).or_else(|| {
            self.skills
                .iter()
                .find(|s| s.frontmatter.aliases.iter().any(|a| a == name))
        })
    }

    /// The catalog JSON: `{"complete", "skills", "diagnostics"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "complete": self.complete,
            "skills": self.skills.iter().map(|s| s.to_json()).collect::<Vec<_>>(),
            "diagnostics": self.diagnostics.iter().map(Diagnostic::to_json).collect::<Vec<_>>(),
        })
    }

    /// Names of the skills, comma-separated and capped, for messages that
    /// say what exists ("none" when empty).
    pub fn names_for_message(&self) -> String {
        const SHOWN: usize = 50;
        if self.skills.is_empty() {
            return "none".to_string();
        }
        let mut names: Vec<&str> = self.skills.iter().take(SHOWN).map(|s| s.name()).collect();
        let more = self.skills.len().saturating_sub(SHOWN);
        let more = (more > 0).then(|| format!("and {more} more"));
        names.extend(more.as_deref());
        names.join(", ")
    }
}
