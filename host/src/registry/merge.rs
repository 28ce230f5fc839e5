//! Merging provider views into one catalog, in precedence order. Pure.
//!
//! The first skill of a name wins. A later one from the same provider is a
//! duplicate (an error: the local provider serves a second same-named
//! folder under its folder's name where it can, so this is the case where
//! it cannot); from a lower provider it is shadowed (a warning).
//! The same file reached through two roots (a symlink) counts once, and a
//! file two providers claim belongs to the one whose grant holds it most
//! closely (see `hold`); the other claim is named in a warning. Remote
//! skills carry their origin's namespace, so they never collide with local
//! ones.

use crate::model::{Catalog, Diagnostic, Location, Skill};
use crate::provider::ProviderView;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
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

/// How closely a provider's claim on a file holds it: the depth of the
/// deepest folder its grant holds the file under, then whether it names the
/// skill after the file's own folder (the format's rule for a name). A
/// provider granted a parent of someone else's root, or granted the same
/// root and serving a skill under another name, holds it less closely.
fn hold(view: &ProviderView, skill: &Skill) -> (usize, bool) {
    let depth = match &skill.path {
        Location::Path(path) => view
            .granted
            .iter()
            .filter(|folder| path.starts_with(folder))
            .map(|folder| folder.components().count())
            .max()
            .unwrap_or(0),
        _ => 0,
    };
    let named_by_folder = folder_of(&skill.path) == Some(skill.name());
    (depth, named_by_folder)
}

/// The name of the folder holding a skill's document.
fn folder_of(location: &Location) -> Option<&str> {
    match location {
        Location::Path(path) => path.parent()?.file_name()?.to_str(),
        Location::Url(path) | Location::Bundled(path) | Location::Provided { path, .. } => {
            path.rsplit('/').nth(1)
        }
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
    // Each file's owner (view, skill). One file has one owner: the provider
    // whose grant holds it most closely, and among equals the one of higher
    // precedence.
    let mut owners: HashMap<FileKey<'_>, (usize, usize)> = HashMap::with_capacity(total);
    for (v, view) in views.iter().enumerate() {
        for (s, skill) in view.skills.iter().enumerate() {
            match owners.entry(file_key(&skill.path)) {
                Entry::Vacant(slot) => {
                    slot.insert((v, s));
                }
                Entry::Occupied(mut slot) => {
                    let (ov, os) = *slot.get();
                    if ov != v && hold(view, skill) > hold(&views[ov], &views[ov].skills[os]) {
                        slot.insert((v, s));
                    }
                }
            }
        }
    }
    let mut winners: HashMap<&str, usize> = HashMap::with_capacity(total);
    let mut shadowed = Vec::new();
    for (v, view) in views.iter().enumerate() {
        catalog.complete &= view.complete;
        catalog.held_back |= view.holds_back;
        catalog.diagnostics.extend(view.diagnostics.iter().cloned());
        for (s, skill) in view.skills.iter().enumerate() {
            let (ov, os) = owners
                .get(&file_key(&skill.path))
                .copied()
                .unwrap_or((v, s));
            if (ov, os) != (v, s) {
                let owner = &views[ov].skills[os];
                // The same root granted twice serves a file twice under one
                // name, which is no news; another provider serving it under
                // another name would hide a skill, so both are named.
                if owner.source != skill.source && owner.name() != skill.name() {
                    catalog.diagnostics.push(
                        Diagnostic::warning(
                            skill.path.to_string(),
                            format!(
                                "provider {} also serves this file, as {:?}; provider {}, whose \
                                 grant holds it as closely or more, serves it as {:?}, so this \
                                 claim is ignored",
                                crate::text::shown(&skill.source, 128),
                                crate::text::shown(skill.name(), 128),
                                crate::text::shown(&owner.source, 128),
                                crate::text::shown(owner.name(), 128),
                            ),
                        )
                        .from_source(&skill.source),
                    );
                }
                continue;
            }
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
                            "skill {:?} is shadowed by {} (from {}); ask for it as {}:{}",
                            skill.name(),
                            winner.path,
                            winner.source,
                            skill.scope.as_str(),
                            skill.name()
                        ),
                    )
                };
                if winner.source != skill.source {
                    shadowed.push(skill.clone());
                }
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
    catalog.shadowed = shadowed;
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

    fn granted(view: Arc<ProviderView>, folders: &[&str]) -> Arc<ProviderView> {
        let mut view = Arc::unwrap_or_clone(view);
        view.granted = folders.iter().map(std::path::PathBuf::from).collect();
        Arc::new(view)
    }

    #[test]
    fn a_file_two_providers_claim_under_one_grant_stays_with_the_name_its_folder_gives() {
        // The squatter comes first (higher precedence) and is granted the
        // same root, but names `good/SKILL.md` otherwise: `good` stays.
        let catalog = merge(&[
            granted(
                view(
                    vec![skill("squatter", "other-name", "/r/good/SKILL.md")],
                    true,
                ),
                &["/r"],
            ),
            granted(
                view(vec![skill("local", "good", "/r/good/SKILL.md")], true),
                &["/r"],
            ),
        ]);
        let served: Vec<(&str, &str)> = catalog
            .skills
            .iter()
            .map(|s| (s.source.as_str(), s.name()))
            .collect();
        assert_eq!(served, [("local", "good")]);
        let d = catalog
            .diagnostics
            .iter()
            .find(|d| d.path == "/r/good/SKILL.md")
            .expect("the ignored claim is named");
        assert!(
            d.message.contains("provider local") && d.message.contains("provider squatter"),
            "{}",
            d.message
        );
    }

    #[test]
    fn a_file_two_providers_claim_belongs_to_the_closer_grant_whatever_the_precedence() {
        // Granted the whole home folder, a provider of higher precedence
        // still cannot take a file from the provider granted its root.
        let catalog = merge(&[
            granted(
                view(
                    vec![skill("wide", "good", "/home/u/skills/good/SKILL.md")],
                    true,
                ),
                &["/home/u"],
            ),
            granted(
                view(
                    vec![skill("local", "good", "/home/u/skills/good/SKILL.md")],
                    true,
                ),
                &["/home/u/skills"],
            ),
        ]);
        assert_eq!(catalog.skills.len(), 1);
        assert_eq!(catalog.skills[0].source, "local");
        // Same name: the second claim hides nothing, so nothing is said.
        assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
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
