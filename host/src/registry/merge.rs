//! Merging provider views into one catalog, in precedence order. Pure.
//!
//! The first skill of a name wins. A later one from the same provider is a
//! duplicate (an error); from a lower provider it is shadowed (a warning).
//! The same file reached through two roots (a symlink) counts once. Remote
//! skills carry their origin's namespace, so they never collide with local
//! ones.

use crate::model::{Catalog, Diagnostic, Location};
use crate::provider::ProviderView;
use std::collections::HashMap;
use std::sync::Arc;

/// See [`file_key`].
type FileKey<'a> = (u8, &'a [u8], &'a [u8]);

/// A location as a key for "the same file": its kind and its bytes. The
/// host's paths are canonical (the grants resolve them), so bytes compare
/// as paths do, and hashing them costs a fraction of hashing a `Path`
/// component by component (a catalog of 1,000 skills is merged on every
/// change).
fn file_key(location: &Location) -> FileKey<'_> {
    match location {
        Location::Path(path) => (0, path.as_os_str().as_encoded_bytes(), &[]),
        Location::Url(url) => (1, url.as_bytes(), &[]),
        Location::Bundled(path) => (2, path.as_bytes(), &[]),
        Location::Provided { provider, path } => (3, provider.as_bytes(), path.as_bytes()),
    }
}

/// Merges provider views, highest precedence first.
pub fn merge(views: &[Arc<ProviderView>]) -> Catalog {
    let mut catalog = Catalog {
        complete: true,
        ..Catalog::default()
    };
    // Sized once: growing them rehashes every key several times over.
    let total: usize = views.iter().map(|v| v.skills.len()).sum();
    catalog.skills.reserve(total);
    let mut winners: HashMap<&str, usize> = HashMap::with_capacity(total);
    // Each file's first claim: which skill serves it.
    let mut files: HashMap<FileKey<'_>, (&str, &str)> = HashMap::with_capacity(total);
    for view in views {
        catalog.complete &= view.complete;
        catalog.held_back |= view.holds_back;
        catalog.diagnostics.extend(view.diagnostics.iter().cloned());
        for skill in &view.skills {
            let claimed = files.get(&file_key(&skill.path)).copied();
            if let Some((first, first_name)) = claimed {
                // One file has one owner, the provider of higher precedence.
                // The same root granted twice serves a file twice under one
                // name, which is no news; another provider serving it under
                // another name hides a skill, so both are named.
                if first != skill.source && first_name != skill.name() {
                    catalog.diagnostics.push(
                        Diagnostic::warning(
                            skill.path.to_string(),
                            format!(
                                "provider {} also serves this file, as {:?}; provider {first} \
                                 serves it as {first_name:?}, so this claim is ignored",
                                crate::text::shown(&skill.source, 128),
                                crate::text::shown(skill.name(), 128),
                            ),
                        )
                        .from_source(&skill.source),
                    );
                }
                continue;
            }
            files.insert(file_key(&skill.path), (&skill.source, skill.name()));
            if let Some(&winner) = winners.get(skill.name()) {
                let winner = &catalog.skills[winner];
                let path = skill.path.to_string();
                let d = if winner.source == skill.source {
                    Diagnostic::error(
                        path,
                        format!(
                            "duplicate skill name {:?}: already defined by {}; this one is ignored",
                            skill.name(),
                            winner.path
                        ),
                    )
                } else {
                    Diagnostic::warning(
                        path,
                        format!(
                            "skill {:?} is shadowed by {} (from {})",
                            skill.name(),
                            winner.path,
                            winner.source
                        ),
                    )
                };
                catalog
                    .diagnostics
                    .push(d.from_source(&skill.source).on_field("name"));
                continue;
            }
            winners.insert(skill.name(), catalog.skills.len());
            catalog.skills.push(skill.clone());
        }
    }
    catalog.skills.sort_by(|a, b| a.name().cmp(b.name()));
    catalog
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Scope, Skill};
    use skillhost_skill::frontmatter::Frontmatter;

    fn skill(source: &str, name: &str, path: &str) -> Arc<Skill> {
        Arc::new(Skill {
            source: source.into(),
            scope: Scope::User,
            path: Location::Path(path.into()),
            base: Location::Path(path.into()),
            frontmatter: Frontmatter::defaults(name),
            json: None,
        })
    }

    fn view(skills: Vec<Arc<Skill>>, complete: bool) -> Arc<ProviderView> {
        Arc::new(ProviderView {
            skills,
            complete,
            seen_complete: complete,
            ..ProviderView::default()
        })
    }

    #[test]
    fn a_file_claimed_by_two_providers_is_served_once_and_the_other_claim_is_named() {
        let catalog = merge(&[
            view(
                vec![skill("squatter", "other-name", "/r/good/SKILL.md")],
                true,
            ),
            view(vec![skill("local", "good", "/r/good/SKILL.md")], true),
        ]);
        assert_eq!(catalog.skills.len(), 1);
        let d = catalog
            .diagnostics
            .iter()
            .find(|d| d.path == "/r/good/SKILL.md")
            .expect("the second claim is named");
        assert!(
            d.message.contains("provider local") && d.message.contains("provider squatter"),
            "{}",
            d.message
        );
    }

    #[test]
    fn higher_sources_shadow_lower_ones_and_duplicates_are_errors() {
        let catalog = merge(&[
            view(
                vec![skill("a", "x", "/a/x"), skill("a", "x", "/a/x2")],
                true,
            ),
            view(vec![skill("b", "x", "/b/x"), skill("b", "y", "/b/y")], true),
        ]);
        let names: Vec<&str> = catalog.skills.iter().map(|s| s.name()).collect();
        assert_eq!(names, ["x", "y"]);
        assert_eq!(catalog.skills[0].source, "a");
        assert!(catalog.diagnostics[0].message.contains("duplicate"));
        assert!(catalog.diagnostics[1].message.contains("shadowed"));
        assert!(catalog.complete);
    }

    #[test]
    fn the_same_file_counts_once_and_incompleteness_spreads() {
        let catalog = merge(&[
            view(vec![skill("a", "x", "/same")], true),
            view(vec![skill("b", "x", "/same")], false),
        ]);
        assert_eq!(catalog.skills.len(), 1);
        assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
        assert!(!catalog.complete);
    }
}
