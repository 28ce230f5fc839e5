//! Serves the skills in `skills.toml` in each granted root: one table per skill, named by its
//! key, holding any SKILL.md frontmatter field (`description`, `allowed-tools`, ...) and `body`.
use skillhost_guest_sdk::listing::{Listing, ListingProvider, SkillFields};
use skillhost_guest_sdk::{ProviderConfig, ProviderError, host};
use std::collections::BTreeMap;

struct SkillsToml(Vec<String>);

impl ListingProvider for SkillsToml {
    fn init(config: ProviderConfig) -> Result<Self, ProviderError> {
        host::watch(&config.roots, 0); // an edit reaches on-change, which invalidates
        Ok(SkillsToml(config.roots))
    }

    fn listing(&mut self) -> Listing {
        let mut listing = Listing::default();
        for root in &self.0 {
            let file = format!("{root}/skills.toml");
            let text = listing.read_text(&file).unwrap_or_default(); // no file: no skills
            match toml::from_str::<BTreeMap<String, SkillFields>>(&text) {
                Ok(skills) => listing.add_all(&file, root, skills),
                Err(e) => listing.error(&file, e.to_string()),
            }
        }
        listing
    }
}

skillhost_guest_sdk::export_provider!(SkillsToml);
