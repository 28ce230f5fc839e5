//! The injector's per-step costs: rendering plus digest of a large catalog
//! under the default budget, and the backward scan of a long session log.

use super::{ms, percentile, timed};
use skillhost::Catalog;
use skillhost::model::{Location, Scope, Skill};
use skillhost::session::inject::{DEFAULT_SOURCE, digest, latest, visible_to_model};
use skillhost::session::log::{CATALOG, Event, MemoryLog};
use skillhost::session::render::{RenderOptions, render};
use skillhost_skill::frontmatter::Frontmatter;
use std::sync::Arc;
use std::time::Duration;

/// Timings of the injector's two per-step costs.
#[derive(Debug, Clone, Default)]
pub struct CatalogReport {
    /// Skills in the catalog rendered.
    pub skills: usize,
    /// Events in the log scanned.
    pub events: usize,
    /// Render (visibility, budget) plus digest.
    pub render: Vec<Duration>,
    /// Backward scan stopping at a visible catalog 1,000 events back.
    pub scan_found: Vec<Duration>,
    /// Backward scan over the whole log (compaction hid every catalog).
    pub scan_hidden: Vec<Duration>,
}

impl CatalogReport {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let line = |what: &str, samples: &[Duration]| {
            format!(
                "{what:<44} p50 {:>7.3} ms  p99 {:>7.3} ms\n",
                ms(percentile(samples, 50.0)),
                ms(percentile(samples, 99.0))
            )
        };
        format!(
            "skillhost-bench catalog: {} skills, {} log events, {} rounds\n{}{}{}",
            self.skills,
            self.events,
            self.render.len(),
            line("render + digest (8,000-character budget)", &self.render),
            line("backward scan, visible catalog found", &self.scan_found),
            line("backward scan, every catalog hidden", &self.scan_hidden),
        )
    }

    /// The JSON of `skillhost-bench catalog --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        let figures = |samples: &[Duration]| serde_json::json!({"p50_ms": ms(percentile(samples, 50.0)), "p99_ms": ms(percentile(samples, 99.0))});
        serde_json::json!({
            "skills": self.skills,
            "events": self.events,
            "render_and_digest": figures(&self.render),
            "scan_found": figures(&self.scan_found),
            "scan_all_hidden": figures(&self.scan_hidden),
        })
    }
}

/// Measures rendering plus digest of a `skills`-skill catalog under the
/// default budget, and the backward scan of an `events`-event log.
pub fn run(skills: usize, events: usize, rounds: usize) -> CatalogReport {
    let catalog = Catalog {
        complete: true,
        skills: (0..skills)
            .map(|i| {
                let name = format!("skill-{i:05}");
                let mut frontmatter = Frontmatter::defaults(&name);
                frontmatter.description = Some(format!(
                    "Use when working on generated task {i} - a realistic one-sentence description of what it does"
                ));
                frontmatter.when_to_use = (i % 3 == 0).then(|| format!("When the user mentions task {i}"));
                frontmatter.paths = if i % 20 == 0 { vec!["src/**/*.rs".into()] } else { Vec::new() };
                Arc::new(Skill {
                    source: "bench".into(),
                    scope: if i % 50 == 0 { Scope::Bundled } else { Scope::User },
                    path: Location::Path(format!("/skills/{name}/SKILL.md").into()),
                    base: Location::Path(format!("/skills/{name}").into()),
                    frontmatter,
                    json: None,
                })
            })
            .collect(),
        ..Catalog::default()
    };
    let mut log = MemoryLog::default();
    for i in 0..events {
        let mut event = Event::new(if i == events.saturating_sub(1000) {
            CATALOG
        } else {
            "message"
        });
        if event.kind == CATALOG {
            event.source = Some(DEFAULT_SOURCE.into());
            event.digest = Some("sha256:00".into());
        }
        log.events.push(event);
    }
    let mut hidden = log.clone();
    for event in &mut hidden.events {
        event.visible = false;
    }
    let activated = std::collections::BTreeSet::new();
    let mut report = CatalogReport {
        skills,
        events,
        ..Default::default()
    };
    for _ in 0..rounds {
        let (elapsed, listing) = timed(|| {
            let listing = render(
                &visible_to_model(&catalog, &activated),
                RenderOptions::default(),
            );
            let digest = digest(&listing.inner);
            (listing, digest)
        });
        std::hint::black_box(listing);
        report.render.push(elapsed);
        let (elapsed, found) = timed(|| latest(&log, DEFAULT_SOURCE).visible.is_some());
        assert!(found, "the bench log has a visible catalog");
        report.scan_found.push(elapsed);
        let (elapsed, ever) = timed(|| latest(&hidden, DEFAULT_SOURCE).ever);
        assert!(ever, "the hidden catalog is still seen as published");
        report.scan_hidden.push(elapsed);
    }
    report
}
