//! What a provider says it wants granted (its 0.2.0 `manifest` export),
//! asked of an instance granted nothing and never initialised, so it can
//! be shown — by `skillhost inspect`, the conformance kit and the trust
//! prompt — before anything is granted.
//!
//! It is the provider's own claim and is treated as hostile text: capped,
//! cleaned for display, and never used to grant anything. A grant still
//! comes only from the host's configuration.

use super::bindings::latest::types as wit;
use super::engine::{LoadedComponent, SandboxEngine};
use super::{Fault, Grants, Instance, InstanceId, Limits, Refusals, Start, Upcalls, WatchTarget};
use crate::text::shown;
use std::sync::Arc;

/// Longest summary, setting key, description or origin kept, in bytes.
pub const MAX_MANIFEST_TEXT: usize = 512;
/// Most origins or settings kept from one manifest.
pub const MAX_MANIFEST_ITEMS: usize = 64;

/// Whether a provider reads the folders granted to it as roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootNeed {
    /// It reads none.
    None,
    /// It works without, and reads them when granted.
    Optional,
    /// It serves nothing unless granted at least one.
    Required,
}

impl RootNeed {
    /// `none`, `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            RootNeed::None => "none",
            RootNeed::Optional => "optional",
            RootNeed::Required => "required",
        }
    }
}

/// A setting a provider reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingSpec {
    /// Its key in `settings`.
    pub key: String,
    /// Whether the provider refuses to start without it.
    pub required: bool,
    /// One line on what it does.
    pub description: String,
}

/// What a provider wants granted, as it declares it (cleaned and capped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// One line on what it serves.
    pub summary: String,
    /// Whether it reads granted roots.
    pub roots: RootNeed,
    /// The origins it fetches from (`*`: those named in its settings).
    pub origins: Vec<String>,
    /// The settings it reads.
    pub settings: Vec<SettingSpec>,
    /// Origins or settings left out, over [`MAX_MANIFEST_ITEMS`].
    pub dropped: usize,
}

impl Manifest {
    /// The manifest's JSON, as `inspect --json` and the kit print it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "summary": self.summary,
            "roots": self.roots.as_str(),
            "origins": self.origins,
            "settings": self.settings.iter().map(|s| serde_json::json!({
                "key": s.key,
                "required": s.required,
                "description": s.description,
            })).collect::<Vec<_>>(),
            "dropped": self.dropped,
        })
    }
}

impl Manifest {
    /// The manifest in words, one line each, as `inspect` and `trust`
    /// show it to whoever decides what to grant.
    pub fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.summary.is_empty() {
            out.push(format!("serves: {}", self.summary));
        }
        out.push(match self.roots {
            RootNeed::None => "roots: reads none".to_string(),
            RootNeed::Optional => "roots: reads them if granted".to_string(),
            RootNeed::Required => "roots: serves nothing without one".to_string(),
        });
        if self.origins.is_empty() {
            out.push("origins: reaches none".to_string());
        } else {
            out.push(format!("origins: {}", self.origins.join(", ")));
        }
        for s in &self.settings {
            let required = if s.required { " (required)" } else { "" };
            out.push(format!("setting {}{required}: {}", s.key, s.description));
        }
        if self.dropped > 0 {
            out.push(format!(
                "({} more origins or settings not shown)",
                self.dropped
            ));
        }
        out
    }
}

impl From<wit::ProviderManifest> for Manifest {
    fn from(m: wit::ProviderManifest) -> Self {
        let text = |t: &str| shown(t, MAX_MANIFEST_TEXT);
        let dropped = m.origins.len().saturating_sub(MAX_MANIFEST_ITEMS)
            + m.settings.len().saturating_sub(MAX_MANIFEST_ITEMS);
        Manifest {
            summary: text(&m.summary),
            roots: match m.roots {
                wit::Need::None => RootNeed::None,
                wit::Need::Optional => RootNeed::Optional,
                wit::Need::Required => RootNeed::Required,
            },
            origins: m
                .origins
                .iter()
                .take(MAX_MANIFEST_ITEMS)
                .map(|o| text(o))
                .collect(),
            settings: m
                .settings
                .iter()
                .take(MAX_MANIFEST_ITEMS)
                .map(|s| SettingSpec {
                    key: text(&s.key),
                    required: s.required,
                    description: text(&s.description),
                })
                .collect(),
            dropped,
        }
    }
}

/// Nothing an instance asked only for its manifest reports counts.
struct Silent;

impl Upcalls for Silent {
    fn provider_id(&self) -> &str {
        "manifest"
    }
    fn invalidated(&self, _instance: InstanceId) {}
    fn watches_changed(&self, _instance: InstanceId, _targets: Vec<WatchTarget>) {}
}

/// The manifest `component` declares, asked of an instance granted
/// nothing, under the default limits; `None` for a 0.1.0 component, which
/// has no way to declare one.
pub fn manifest(
    engine: &SandboxEngine,
    component: &LoadedComponent,
) -> Result<Option<Manifest>, Fault> {
    let mut instance = Instance::start(Start {
        engine,
        component,
        grants: Arc::new(Grants::default()),
        limits: Limits::default(),
        refusals: Refusals::default(),
        upcalls: Arc::new(Silent),
        id: InstanceId::next(),
        config: None,
        listed: Default::default(),
    })?;
    Ok(instance.manifest()?.map(Manifest::from))
}

#[cfg(test)]
#[path = "manifest_tests.rs"]
mod tests;
