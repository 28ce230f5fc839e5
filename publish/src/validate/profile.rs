//! The two rule sets `validate` applies, and the fields each knows.

/// The fields of the Agent Skills specification, and all its profile allows.
pub const SPEC_FIELDS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// The fields Claude Code and skillhost read: the spec's, Claude Code's
/// own, and skillhost's (`aliases`, `version`, `pinned`).
pub const CLAUDE_FIELDS: [&str; 21] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
    "when_to_use",
    "argument-hint",
    "arguments",
    "context",
    "model",
    "effort",
    "agent",
    "user-invocable",
    "disable-model-invocation",
    "paths",
    "hooks",
    "shell",
    "aliases",
    "version",
    "pinned",
];

/// Which rules `validate` applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Will Claude Code and skillhost read this skill as meant? The fields
    /// they document are accepted and others draw a warning; names keep to
    /// `a-z0-9-`, which every client reads the same way.
    #[default]
    Claude,
    /// Does this skill follow the Agent Skills specification, as its
    /// reference validator (`skills-ref`) reads it? Only the spec's fields;
    /// Unicode lowercase names compared with the folder after NFKC; a
    /// lowercase `skill.md` accepted as the document.
    AgentSkills,
}

impl Profile {
    /// `claude` or `agentskills`, as `--profile` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Claude => "claude",
            Profile::AgentSkills => "agentskills",
        }
    }

    /// The profile `--profile` names; `None` for any other word.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "claude" => Some(Profile::Claude),
            "agentskills" => Some(Profile::AgentSkills),
            _ => None,
        }
    }

    /// The frontmatter fields this profile knows.
    pub fn known_fields(self) -> &'static [&'static str] {
        match self {
            Profile::Claude => &CLAUDE_FIELDS,
            Profile::AgentSkills => &SPEC_FIELDS,
        }
    }

    /// Whether the profile's own rules check `field`, so that what the
    /// lenient loader said about it would only repeat them.
    pub(super) fn checks(self, field: &str) -> bool {
        match self {
            Profile::Claude => {
                matches!(
                    field,
                    "name" | "description" | "compatibility" | "license" | "metadata"
                )
            }
            Profile::AgentSkills => SPEC_FIELDS.contains(&field),
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_field_is_a_claude_field_too() {
        for field in SPEC_FIELDS {
            assert!(CLAUDE_FIELDS.contains(&field), "{field}");
        }
    }

    #[test]
    fn profiles_round_trip_through_their_names() {
        for profile in [Profile::Claude, Profile::AgentSkills] {
            assert_eq!(Profile::from_name(profile.as_str()), Some(profile));
        }
        assert_eq!(Profile::from_name("strict"), None);
        assert_eq!(Profile::default(), Profile::Claude);
    }
}
