//! The registry: providers in precedence order, the merged catalog with its
//! completeness bit, exact per-provider invalidation (SPEC C1–C3, B6).

use crate::boundary::ProviderObservation;
use crate::error::Error;
use crate::model::{Catalog, Diagnostic, SkillDocument, SkillResource};
use crate::provider::Provider;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// How many times discovery is repeated when a provider or the registry
/// changes while it runs, before a possibly stale result is returned.
pub const MAX_DISCOVERY_RETRIES: usize = 3;

/// Providers in precedence order (first wins) and the catalog they make.
#[derive(Default)]
pub struct Registry {
    providers: RwLock<Vec<Arc<Provider>>>,
    generation: AtomicU64,
    cached: Mutex<Option<(u64, Arc<Catalog>)>>,
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Self {
        Registry::default()
    }

    /// Adds a provider below every provider already registered.
    pub fn add(&self, provider: Arc<Provider>) {
        self.write().push(provider);
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// Removes and disposes the provider with this id; its late callbacks do
    /// nothing.
    pub fn remove(&self, id: &str) -> Option<Arc<Provider>> {
        let removed = {
            let mut providers = self.write();
            let index = providers.iter().position(|p| p.id() == id)?;
            providers.remove(index)
        };
        removed.dispose();
        self.generation.fetch_add(1, Ordering::AcqRel);
        Some(removed)
    }

    /// The providers, highest precedence first.
    pub fn providers(&self) -> Vec<Arc<Provider>> {
        self.read().clone()
    }

    /// The provider with this id.
    pub fn provider(&self, id: &str) -> Option<Arc<Provider>> {
        self.read().iter().find(|p| p.id() == id).cloned()
    }

    /// Marks exactly this registered provider instance dirty (SPEC C2). A
    /// provider that is not (or no longer) registered is ignored: identity,
    /// not name, decides (SPEC C4).
    pub fn invalidate_provider(&self, provider: &Arc<Provider>) -> bool {
        let registered = self.read().iter().any(|p| Arc::ptr_eq(p, provider));
        if registered {
            provider.invalidate();
        }
        registered
    }

    /// Marks the provider with this id dirty.
    pub fn invalidate(&self, id: &str) -> bool {
        match self.provider(id) {
            Some(p) => {
                p.invalidate();
                true
            }
            None => false,
        }
    }

    /// The merged catalog. Only dirty providers are asked again; a complete
    /// result is cached until some provider is invalidated (SPEC C1, C2).
    pub fn snapshot(&self) -> Arc<Catalog> {
        let generation = self.generation.load(Ordering::Acquire);
        let providers = self.providers();
        if let Some((cached_generation, catalog)) = self
            .cached
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            && cached_generation == generation
            && providers.iter().all(|p| !p.signals().is_dirty())
        {
            return catalog;
        }
        let mut attempt = 0;
        loop {
            let generation = self.generation.load(Ordering::Acquire);
            let providers = self.providers();
            let mut settled = true;
            let views: Vec<Arc<ProviderObservation>> = providers
                .iter()
                .map(|p| {
                    let (view, changed) = p.view();
                    settled &= !changed;
                    view
                })
                .collect();
            settled &= generation == self.generation.load(Ordering::Acquire);
            if settled || attempt == MAX_DISCOVERY_RETRIES {
                let mut catalog = merge(&views);
                catalog.complete &= settled;
                let catalog = Arc::new(catalog);
                if catalog.complete {
                    *self.cached.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some((generation, catalog.clone()));
                }
                return catalog;
            }
            attempt += 1;
        }
    }

    /// Resolves `name` (or an alias) in the current catalog.
    fn resolve(&self, name: &str) -> Result<(Arc<Provider>, String), Error> {
        let catalog = self.snapshot();
        let skill = catalog
            .get(name)
            .or_else(|| {
                catalog
                    .skills
                    .iter()
                    .find(|s| s.frontmatter.aliases.iter().any(|a| a == name))
            })
            .ok_or_else(|| Error::UnknownSkill {
                name: name.to_string(),
                available: available(&catalog),
            })?;
        let provider = self
            .provider(&skill.source)
            .ok_or_else(|| Error::UnknownSkill {
                name: name.to_string(),
                available: available(&catalog),
            })?;
        Ok((provider, skill.name().to_string()))
    }

    /// Loads a skill (by name or alias): its provider reads it again now.
    pub fn load(&self, name: &str) -> Result<SkillDocument, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.load(&name)
    }

    /// Lists the files of a skill.
    pub fn list_resources(&self, name: &str) -> Result<Vec<SkillResource>, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.list_resources(&name)
    }

    /// Reads one file of a skill.
    pub fn read_resource(&self, name: &str, path: &str) -> Result<Vec<u8>, Error> {
        let (provider, name) = self.resolve(name)?;
        provider.read_resource(&name, path)
    }

    /// Disposes every provider.
    pub fn dispose(&self) {
        let providers = std::mem::take(&mut *self.write());
        for p in providers {
            p.dispose();
        }
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Vec<Arc<Provider>>> {
        self.providers.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Vec<Arc<Provider>>> {
        self.providers.write().unwrap_or_else(|p| p.into_inner())
    }
}

fn available(catalog: &Catalog) -> String {
    const SHOWN: usize = 50;
    if catalog.skills.is_empty() {
        return "none".to_string();
    }
    let mut names: Vec<&str> = catalog
        .skills
        .iter()
        .take(SHOWN)
        .map(|s| s.name())
        .collect();
    let more = catalog.skills.len().saturating_sub(SHOWN);
    let more = (more > 0).then(|| format!("and {more} more"));
    names.extend(more.as_deref());
    names.join(", ")
}

/// Merges provider views in precedence order: the first skill of a name
/// wins; a later one from the same provider is a duplicate (an error), from
/// a lower provider it is shadowed (a warning); the same file reached
/// through two roots (a symlink) counts once (SPEC B6).
pub fn merge(views: &[Arc<ProviderObservation>]) -> Catalog {
    let mut catalog = Catalog {
        complete: true,
        ..Catalog::default()
    };
    let mut winners: HashMap<&str, usize> = HashMap::new();
    let mut files: HashSet<&PathBuf> = HashSet::new();
    for view in views {
        catalog.complete &= view.complete;
        catalog.diagnostics.extend(view.diagnostics.iter().cloned());
        for skill in &view.skills {
            if !files.insert(&skill.path) {
                continue;
            }
            if let Some(&winner) = winners.get(skill.name()) {
                let winner = &catalog.skills[winner];
                let path = skill.path.display().to_string();
                let mut d = if winner.source == skill.source {
                    Diagnostic::error(
                        path,
                        format!(
                            "duplicate skill name {:?}: already defined by {}; this one is ignored",
                            skill.name(),
                            winner.path.display()
                        ),
                    )
                } else {
                    Diagnostic::warning(
                        path,
                        format!(
                            "skill {:?} is shadowed by {} (from {})",
                            skill.name(),
                            winner.path.display(),
                            winner.source
                        ),
                    )
                }
                .from_source(&skill.source);
                d.field = Some("name".to_string());
                catalog.diagnostics.push(d);
                continue;
            }
            winners.insert(skill.name(), catalog.skills.len());
            catalog.skills.push(skill.clone());
        }
    }
    catalog.skills.sort_by(|a, b| a.name().cmp(b.name()));
    catalog
}
