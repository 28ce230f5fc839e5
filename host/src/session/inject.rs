//! Putting the catalog in front of the model, once and exactly: only skills
//! the model may invoke and that are active reach it.
//!
//! Full-replacement mode (the default) works over the append-only session
//! log: it hashes the exact rendered listing, walks the log backward for the
//! latest still-visible catalog it published, and appends a full
//! replacement only when the digest changed — an explicit empty catalog when
//! every skill is gone, nothing when nothing was ever published and there is
//! nothing to say. An incomplete snapshot keeps the last complete view (no
//! event). When compaction has hidden every catalog, the current one is
//! published again. Delta mode sends each agent only skills it was not yet
//! told about, until a clear.

use super::activation::{activated, is_active};
use super::log::{CATALOG, CATALOG_DELTA, CLEAR, Event, SessionLog, backward};
use super::render::{Listing, RenderOptions, Scores, render, render_ranked};
use crate::error::Error;
use crate::model::{Catalog, Skill};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The source name catalog events carry by default.
pub const DEFAULT_SOURCE: &str = "skillhost";

/// What one injection step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A (new) catalog was appended.
    Published,
    /// The visible catalog is current; nothing was appended.
    Unchanged,
    /// Every skill is gone: an explicit empty catalog was appended.
    Tombstone,
    /// The snapshot was incomplete and changed nothing the model sees, or a
    /// provider has not yet given its first complete view: the last
    /// published catalog stands.
    KeptIncomplete,
    /// Nothing was ever published and there is nothing to publish.
    None,
}

impl Outcome {
    /// The word the CLI prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Published => "published",
            Outcome::Unchanged => "unchanged",
            Outcome::Tombstone => "tombstone",
            Outcome::KeptIncomplete => "kept-incomplete",
            Outcome::None => "none",
        }
    }
}

/// `sha256:<hex>` of `text`: what a catalog event's digest covers.
pub fn digest(text: &str) -> String {
    skillhost_skill::digest::sha256(text.as_bytes())
}

/// The skills the model may see: model-invocable and active.
pub fn visible_to_model<'c>(catalog: &'c Catalog, activated: &BTreeSet<String>) -> Vec<&'c Skill> {
    catalog
        .skills
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| s.model_invocable() && is_active(s, activated))
        .collect()
}

/// Publishes catalogs into a session log.
#[derive(Debug, Clone)]
pub struct Injector {
    /// Identifies this injector's events among others in the log.
    pub source: String,
    /// Entry cap and budget.
    pub options: RenderOptions,
    /// Usage scores: when set, the listing is ordered by them and the
    /// least-scored skills are shortened first.
    pub scores: Option<Arc<Scores>>,
}

impl Default for Injector {
    fn default() -> Self {
        Injector {
            source: DEFAULT_SOURCE.to_string(),
            options: RenderOptions::default(),
            scores: None,
        }
    }
}

impl Injector {
    fn render(&self, skills: &[&Skill]) -> Listing {
        match &self.scores {
            Some(scores) => render_ranked(skills, self.options, scores),
            None => render(skills, self.options),
        }
    }

    /// The listing the model is given for `catalog` when the conditional
    /// skills in `activated` are active: exactly the text a full
    /// replacement publishes.
    pub fn listing(&self, catalog: &Catalog, activated: &BTreeSet<String>) -> Listing {
        self.render(&visible_to_model(catalog, activated))
    }

    /// Full-replacement mode: appends zero or one catalog event.
    pub fn replace(&self, catalog: &Catalog, log: &mut dyn SessionLog) -> Result<Outcome, Error> {
        // A provider that never gave a complete view, within its grace:
        // publishing now could drop its skills. Any other incomplete
        // provider contributes its last complete view, so it cannot stop
        // the others' changes from reaching the model.
        if catalog.held_back {
            return Ok(Outcome::KeptIncomplete);
        }
        let listing = self.listing(catalog, &activated(log));
        let digest = digest(&listing.inner);
        let published = latest(log, &self.source);
        // The log is data, not authority: what decides is the text the
        // model was shown, not the digest stored beside it.
        if published
            .visible
            .is_some_and(|e| e.content.as_deref() == Some(listing.content.as_str()))
        {
            return Ok(if catalog.complete {
                Outcome::Unchanged
            } else {
                Outcome::KeptIncomplete
            });
        }
        let ever_published = published.ever;
        if listing.names.is_empty() && !ever_published {
            return Ok(Outcome::None);
        }
        let outcome = if listing.names.is_empty() {
            Outcome::Tombstone
        } else {
            Outcome::Published
        };
        let mut event = Event::new(CATALOG);
        event.source = Some(self.source.clone());
        event.digest = Some(digest);
        event.content = Some(listing.content);
        event.items = listing.names;
        log.append(event)?;
        Ok(outcome)
    }

    /// Delta mode: appends a listing of the skills `agent` was not
    /// yet told about, if any.
    pub fn delta(
        &self,
        catalog: &Catalog,
        agent: &str,
        log: &mut dyn SessionLog,
    ) -> Result<Outcome, Error> {
        if catalog.held_back {
            return Ok(Outcome::KeptIncomplete);
        }
        let told = told(log, agent);
        let active = activated(log);
        let fresh: Vec<&Skill> = visible_to_model(catalog, &active)
            .into_iter()
            .filter(|s| !told.contains(s.name()))
            .collect();
        if fresh.is_empty() {
            return Ok(if told.is_empty() {
                Outcome::None
            } else {
                Outcome::Unchanged
            });
        }
        let listing = self.render(&fresh);
        let mut event = Event::new(CATALOG_DELTA);
        event.source = Some(self.source.clone());
        event.agent = Some(agent.to_string());
        event.digest = Some(digest(&listing.inner));
        event.content = Some(listing.content);
        event.items = listing.names;
        log.append(event)?;
        Ok(Outcome::Published)
    }
}

/// What the backward scan found of this source's catalogs.
#[derive(Debug, Clone, Copy)]
pub struct Published<'l> {
    /// The latest catalog the model still sees, if any.
    pub visible: Option<&'l Event>,
    /// Whether any catalog was ever published (visible or hidden).
    pub ever: bool,
}

/// Walks the log backward, without copying it, for the latest catalog of
/// `source` still visible. It usually stops there; when compaction hid
/// every catalog it costs one pass over the log to learn that.
pub fn latest<'l>(log: &'l dyn SessionLog, source: &str) -> Published<'l> {
    let mut ever = false;
    for event in backward(log) {
        if event.kind != CATALOG || event.source.as_deref() != Some(source) {
            continue;
        }
        if event.visible {
            return Published {
                visible: Some(event),
                ever: true,
            };
        }
        ever = true;
    }
    Published {
        visible: None,
        ever,
    }
}

/// The skills `agent` was told about since its last clear (or a clear for
/// everyone).
pub fn told(log: &dyn SessionLog, agent: &str) -> BTreeSet<String> {
    backward(log)
        .take_while(|e| !(e.kind == CLEAR && e.agent.as_deref().is_none_or(|a| a == agent)))
        .filter(|e| e.kind == CATALOG_DELTA && e.visible && e.agent.as_deref() == Some(agent))
        .flat_map(|e| e.items.iter().cloned())
        .collect()
}

/// Records a clear: delta listings (for `agent`, or for everyone) and
/// conditional activations (for everyone) start again.
pub fn clear(log: &mut dyn SessionLog, agent: Option<&str>) -> Result<(), Error> {
    let mut event = Event::new(CLEAR);
    event.agent = agent.map(str::to_string);
    log.append(event)
}
