//! `skillhost usage`: each skill's uses, last use and usage score.

use crate::args::{SourceArgs, StateArgs};
use crate::context::{Ctx, usage_path};
use crate::output::{print_json, print_text};
use anyhow::Result;
use serde_json::json;
use skillhost_usage::UsageStore;
use skillhost_usage::clock::rfc3339;
use skillhost_usage::score::skill_score;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::time::SystemTime;

struct Row {
    name: String,
    source: Option<String>,
    count: u64,
    unsuccessful: u64,
    last_used: Option<SystemTime>,
    score: f64,
}

pub fn run(ctx: &Ctx, sources: &SourceArgs, state: &StateArgs, json: bool) -> Result<ExitCode> {
    let path = usage_path(state)?;
    // A listing only reads: no store is created for it.
    let usage = match UsageStore::open_existing(&path)? {
        Some(store) => store.usage()?,
        None => BTreeMap::new(),
    };
    let catalog = ctx.registry(sources)?.snapshot();
    let now = SystemTime::now();
    let mut rows: Vec<Row> = catalog
        .skills
        .iter()
        .map(|s| {
            let known = usage.get(s.name());
            Row {
                name: s.name().to_string(),
                source: Some(s.source.clone()),
                count: known.map_or(0, |u| u.count),
                unsuccessful: known.map_or(0, |u| u.unsuccessful),
                last_used: known.and_then(|u| u.last_used),
                score: skill_score(known, s.frontmatter.pinned, now),
            }
        })
        .collect();
    // Skills recorded but no longer in the catalog still show their history.
    for (name, known) in &usage {
        if catalog.get(name).is_none() && known.count + known.unsuccessful > 0 {
            rows.push(Row {
                name: name.clone(),
                source: None,
                count: known.count,
                unsuccessful: known.unsuccessful,
                last_used: known.last_used,
                score: skill_score(Some(known), false, now),
            });
        }
    }
    rows.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.name.cmp(&b.name))
    });
    if json {
        let skills: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({
                    "name": r.name,
                    "source": r.source,
                    "in_catalog": r.source.is_some(),
                    "count": r.count,
                    "unsuccessful": r.unsuccessful,
                    "last_used": r.last_used.map(rfc3339),
                    "score": r.score,
                })
            })
            .collect();
        print_json(&json!({"store": path.display().to_string(), "skills": skills}))?;
        return Ok(ExitCode::SUCCESS);
    }
    let width = rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(5)
        .max(5);
    let mut out = format!(
        "{:width$}  {:>5}  {:20}  SCORE\n",
        "SKILL", "USES", "LAST USE"
    );
    for r in &rows {
        let last = r.last_used.map_or_else(|| "never".to_string(), rfc3339);
        let gone = if r.source.is_none() {
            "  (not in the catalog)"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{:width$}  {:>5}  {last:20}  {:.3}{gone}",
            r.name, r.count, r.score
        );
    }
    let _ = write!(out, "\nstore: {}", path.display());
    print_text(&out)?;
    Ok(ExitCode::SUCCESS)
}
