//! Per-origin names: a remote source's skills are listed as
//! `namespace:name`, so they never shadow a local skill nor are shadowed by
//! one. The guest knows its skills by their bare names; the host adds the
//! namespace on the way in and strips it on the way out.

use crate::error::{Error, ProviderErrorKind};
use crate::model::Skill;

/// A provider's namespace (none for local and bundled sources).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Namespace(pub Option<String>);

impl Namespace {
    /// The name the guest knows a skill by: without the namespace.
    pub(crate) fn guest_name<'a>(&self, provider: &str, name: &'a str) -> Result<&'a str, Error> {
        let Some(namespace) = &self.0 else {
            return Ok(name);
        };
        name.strip_prefix(namespace.as_str())
            .and_then(|rest| rest.strip_prefix(':'))
            .ok_or_else(|| Error::Provider {
                provider: provider.to_string(),
                kind: ProviderErrorKind::NotFound,
                message: format!("{name:?} is not in the {namespace:?} namespace"),
            })
    }

    /// Puts a skill (and its aliases) in the namespace.
    pub(crate) fn apply(&self, skill: &mut Skill) {
        if let Some(namespace) = &self.0 {
            let f = &mut skill.frontmatter;
            f.name = format!("{namespace}:{}", f.name);
            for alias in &mut f.aliases {
                *alias = format!("{namespace}:{alias}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Location, Scope};
    use skillhost_skill::frontmatter::Frontmatter;

    #[test]
    fn names_gain_the_namespace_inbound_and_lose_it_outbound() {
        let ns = Namespace(Some("team".into()));
        let mut frontmatter = Frontmatter::defaults("pdf");
        frontmatter.aliases = vec!["read-pdf".into()];
        let mut skill = Skill {
            source: "remote:team".into(),
            scope: Scope::Remote,
            path: Location::Url("https://h/pdf/SKILL.md".into()),
            base: Location::Url("https://h/pdf".into()),
            frontmatter,
            json: None,
        };
        ns.apply(&mut skill);
        assert_eq!(skill.name(), "team:pdf");
        assert_eq!(skill.frontmatter.aliases, ["team:read-pdf"]);
        assert_eq!(ns.guest_name("p", "team:pdf").ok(), Some("pdf"));
        assert!(ns.guest_name("p", "pdf").is_err());
        assert!(ns.guest_name("p", "other:pdf").is_err());
        assert_eq!(Namespace(None).guest_name("p", "pdf").ok(), Some("pdf"));
    }
}
