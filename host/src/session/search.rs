//! Reaching every skill when the listing cannot hold them all: a query
//! over names, descriptions and `when_to_use`, answered one page at a time,
//! so a catalog of any size costs the model one short page per call.
//!
//! Every word of the query must appear (case-insensitive) in a skill's
//! text. A skill whose name is the query comes first, then those whose
//! name holds every word, then the rest; within each, rank order
//! ([`rank`](super::rank)), so search and listing agree. An empty query
//! lists every skill in rank order.

use super::rank::{Scores, ranked};
use super::render::lines;
use crate::model::Skill;
use crate::text::is_unsafe;

/// Skills on one page unless asked otherwise: with 250-character entries,
/// about 5,000 characters, a page a model reads in one turn.
pub const PER_PAGE: usize = 20;
/// Characters of a query that count; the rest is ignored, so a pasted
/// document costs no more than a sentence.
pub const MAX_QUERY: usize = 200;

/// One page of what a query found.
#[derive(Debug, Clone)]
pub struct Found<'a> {
    /// The query as searched (trimmed, bounded).
    pub query: String,
    /// The skills of this page, in order.
    pub skills: Vec<&'a Skill>,
    /// How many skills matched in all.
    pub matched: usize,
    /// How many skills were searched.
    pub total: usize,
    /// This page's number, from 1.
    pub page: usize,
    /// How many pages the matches fill (at least 1).
    pub pages: usize,
}

/// Page `page` (from 1; 0 reads as 1) of the skills among `skills` that
/// match `query`, `per_page` to a page.
pub fn search<'a>(
    skills: &[&'a Skill],
    scores: &Scores,
    query: &str,
    page: usize,
    per_page: usize,
) -> Found<'a> {
    // What the model reads back names the query: no control character or
    // bidirectional override of a caller's goes into it.
    let query: String = query
        .trim()
        .chars()
        .take(MAX_QUERY)
        .map(|c| {
            if c.is_control() || is_unsafe(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    let lowered = query.to_lowercase();
    let words: Vec<&str> = lowered.split_whitespace().collect();
    let mut tiers: [Vec<&'a Skill>; 3] = Default::default();
    for skill in ranked(skills, scores) {
        let name = skill.name().to_lowercase();
        if words.iter().all(|w| name.contains(w)) {
            let exact = !words.is_empty() && name == lowered;
            tiers[usize::from(!exact)].push(skill);
        } else if words.iter().all(|w| text_of(skill).contains(w)) {
            tiers[2].push(skill);
        }
    }
    let matched: Vec<&'a Skill> = tiers.into_iter().flatten().collect();
    let per_page = per_page.max(1);
    let pages = matched.len().div_ceil(per_page).max(1);
    let page = page.max(1);
    let total = skills.len();
    let skills = matched
        .iter()
        .skip((page - 1).saturating_mul(per_page))
        .take(per_page)
        .copied()
        .collect();
    Found {
        query,
        skills,
        matched: matched.len(),
        total,
        page,
        pages,
    }
}

/// What a skill is searched by, lowercased.
fn text_of(skill: &Skill) -> String {
    let f = &skill.frontmatter;
    [
        Some(f.name.as_str()),
        f.description.as_deref(),
        f.when_to_use.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" ")
    .to_lowercase()
}

impl Found<'_> {
    /// The page as the model reads it: a line saying what was found and
    /// where this page stands, the skills one per line (entries capped at
    /// `entry_cap`, escaped as the listing escapes them), and how to get
    /// the next page.
    pub fn text(&self, entry_cap: usize, next: impl Fn(usize) -> String) -> String {
        let what = if self.query.is_empty() {
            format!("All {} skills, in rank order", self.total)
        } else {
            format!(
                "{} of {} skills match {:?}",
                self.matched, self.total, self.query
            )
        };
        if self.matched == 0 {
            return format!("{what}. Try fewer or other words, or no query to list every skill.");
        }
        if self.skills.is_empty() {
            return format!(
                "{what}; page {} is past the last ({}).",
                self.page, self.pages
            );
        }
        let mut out = format!("{what} (page {} of {}):\n", self.page, self.pages);
        out.push_str(&lines(&self.skills, entry_cap));
        if self.page < self.pages {
            out.push_str(&format!("\nMore: {}.", next(self.page + 1)));
        }
        out
    }
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
