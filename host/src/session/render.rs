//! The listing the model sees: one line per skill,
//! `- name: description - when_to_use`, inside `<available_skills>` tags.
//!
//! Each entry's text is capped (250 characters by default) and the whole
//! listing is held to a budget (8,000 characters by default). When the full
//! listing does not fit, bundled skills keep their full entries and the
//! others share what is left: every entry gets the same allowance, and what
//! short entries do not use goes to the longer ones. Text is cut on
//! character boundaries, with `…` where it was cut. Order is by name.
//!
//! Whatever a skill says cannot change the listing's structure: `<`, `>`
//! and `&` are written as `&lt;`, `&gt;` and `&amp;` (so exactly one block
//! opens and closes), and control characters, line separators and
//! bidirectional overrides become spaces. Lengths count what is written.
//!
//! [`render_ranked`] orders by a score instead (highest first, ties by
//! name) and, when the listing must be cut, shortens the least-scored
//! skills first: the lowest-scored group of equal scores shares what is
//! left of its text (names only below [`MIN_SHARE`]) before the next group
//! is touched, and bundled skills keep their full text.

use crate::model::{Scope, Skill};
use crate::text::is_unsafe;
use std::borrow::Cow;
use std::collections::HashMap;

/// Opening tag of the listing.
pub const OPEN: &str = "<available_skills>";
/// Closing tag of the listing.
pub const CLOSE: &str = "</available_skills>";
/// Below this many characters per entry, descriptions are dropped and only
/// names are listed.
pub const MIN_SHARE: usize = 20;

/// Caps on the listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// Most characters of one entry's text (after `- name: `).
    pub entry_cap: usize,
    /// Most characters of the whole listing (between the tags).
    pub budget: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            entry_cap: 250,
            budget: 8_000,
        }
    }
}

/// A score per skill name for [`render_ranked`]; a skill not in the map
/// scores zero.
pub type Scores = HashMap<String, f64>;

/// A rendered listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The lines between the tags (what the digest covers).
    pub inner: String,
    /// The whole message, tags included.
    pub content: String,
    /// The skills listed, in order.
    pub names: Vec<String>,
}

/// One character of entry text as the listing writes it: itself, or the
/// escape that keeps it from reading as markup.
#[derive(Debug, Clone, Copy)]
enum Unit {
    Char(char),
    Escape(&'static str),
}

impl Unit {
    fn of(c: char) -> Unit {
        match c {
            '<' => Unit::Escape("&lt;"),
            '>' => Unit::Escape("&gt;"),
            '&' => Unit::Escape("&amp;"),
            c => Unit::Char(c),
        }
    }

    /// Characters written.
    fn len(self) -> usize {
        match self {
            Unit::Char(_) => 1,
            Unit::Escape(e) => e.len(),
        }
    }

    fn push(self, out: &mut String) {
        match self {
            Unit::Char(c) => out.push(c),
            Unit::Escape(e) => out.push_str(e),
        }
    }
}

/// Whether text needs no escaping or cleaning.
fn needs_no_escape(text: &str) -> bool {
    !text.contains(['<', '>', '&']) && !text.chars().any(is_unsafe)
}

/// `text` as the listing writes it, escaped.
fn escape(text: &str) -> Cow<'_, str> {
    if needs_no_escape(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        Unit::of(if is_unsafe(c) { ' ' } else { c }).push(&mut out);
    }
    Cow::Owned(out)
}

/// Whitespace runs (newlines of block scalars, unsafe characters included)
/// as single spaces, each character as it is written.
fn flat(text: &str) -> impl Iterator<Item = Unit> + '_ {
    let mut space = false;
    let blank = |c: char| c.is_whitespace() || is_unsafe(c);
    text.trim_matches(blank).chars().filter_map(move |c| {
        if blank(c) {
            let first = !space;
            space = true;
            first.then_some(Unit::Char(' '))
        } else {
            space = false;
            Some(Unit::of(c))
        }
    })
}

struct Item<'a> {
    /// The name, for ordering.
    name: &'a str,
    /// The name as written.
    shown: Cow<'a, str>,
    name_chars: usize,
    description: Option<&'a str>,
    when: Option<&'a str>,
    bundled: bool,
    /// Characters of the entry text, capped.
    text_chars: usize,
}

impl Item<'_> {
    fn text(&self) -> impl Iterator<Item = Unit> + '_ {
        let description = self.description.map(flat).into_iter().flatten();
        let separator = (self.description.is_some() && self.when.is_some())
            .then_some(" - ")
            .into_iter()
            .flat_map(str::chars)
            .map(Unit::Char);
        let when = self.when.map(flat).into_iter().flatten();
        description.chain(separator).chain(when)
    }

    /// Characters of the entry text as written, counting no further than
    /// `cap`. Plain one-line ASCII (the usual description) is counted by
    /// its length.
    fn chars(&self, cap: usize) -> usize {
        let plain = |s: &str| {
            s.is_ascii()
                && s.trim().len() == s.len()
                && !s.bytes().any(|b| {
                    matches!(b, b'\n' | b'\r' | b'\t' | b'<' | b'>' | b'&') || b.is_ascii_control()
                })
                && !s.contains("  ")
        };
        if self.description.is_none_or(plain) && self.when.is_none_or(plain) {
            let separator = if self.description.is_some() && self.when.is_some() {
                3
            } else {
                0
            };
            let total =
                self.description.map_or(0, str::len) + separator + self.when.map_or(0, str::len);
            return total.min(cap);
        }
        let mut total = 0;
        for unit in self.text() {
            total += unit.len();
            if total > cap {
                break;
            }
        }
        total.min(cap)
    }

    fn line_chars(&self, text_chars: usize) -> usize {
        2 + self.name_chars + if text_chars > 0 { 2 + text_chars } else { 0 }
    }

    /// Writes `- name: text`, the text cut to `allowance` characters
    /// (never inside an escape).
    fn write(&self, out: &mut String, allowance: usize) {
        out.push_str("- ");
        out.push_str(&self.shown);
        let shown = allowance.min(self.text_chars);
        if shown == 0 {
            return;
        }
        out.push_str(": ");
        let full: usize = self.text().map(Unit::len).sum();
        if shown >= full {
            self.text().for_each(|u| u.push(out));
            return;
        }
        let room = shown.saturating_sub(1);
        let mut used = 0;
        for unit in self.text() {
            if used + unit.len() > room {
                break;
            }
            used += unit.len();
            unit.push(out);
        }
        out.push('…');
    }
}

/// Renders `skills` (already filtered to what the model may see).
pub fn render(skills: &[&Skill], options: RenderOptions) -> Listing {
    render_with(skills, options, None)
}

/// Renders `skills` ordered by `scores`, highest first (ties by name),
/// shortening the least-scored first when the budget cuts.
pub fn render_ranked(skills: &[&Skill], options: RenderOptions, scores: &Scores) -> Listing {
    render_with(skills, options, Some(scores))
}

fn render_with(skills: &[&Skill], options: RenderOptions, scores: Option<&Scores>) -> Listing {
    let mut items: Vec<Item<'_>> = skills
        .iter()
        .map(|s| {
            let description = s.description().filter(|d| !d.trim().is_empty());
            let when = s
                .frontmatter
                .when_to_use
                .as_deref()
                .filter(|w| !w.trim().is_empty());
            let name = s.name();
            let shown = escape(name);
            let mut item = Item {
                name,
                name_chars: if shown.is_ascii() {
                    shown.len()
                } else {
                    shown.chars().count()
                },
                shown,
                description,
                when,
                bundled: s.scope == Scope::Bundled,
                text_chars: 0,
            };
            item.text_chars = item.chars(options.entry_cap);
            item
        })
        .collect();
    // Catalogs arrive sorted by name; sorting is then a single check.
    if !items.is_sorted_by(|a, b| a.name <= b.name) {
        items.sort_by(|a, b| a.name.cmp(b.name));
    }
    let allowances = match scores {
        None => allowances(&items, options.budget),
        Some(scores) => {
            let mut scored: Vec<(f64, Item<'_>)> = items
                .into_iter()
                .map(|i| (scores.get(i.name).copied().unwrap_or(0.0), i))
                .collect();
            // Stable: equal scores stay in name order.
            scored.sort_by(|a, b| b.0.total_cmp(&a.0));
            let ranked: Vec<f64> = scored.iter().map(|(s, _)| *s).collect();
            items = scored.into_iter().map(|(_, i)| i).collect();
            ranked_allowances(&items, &ranked, options.budget)
        }
    };
    // As many entries as fit, with a closing note when some do not.
    let lines: Vec<usize> = items
        .iter()
        .zip(&allowances)
        .map(|(item, &allowance)| item.line_chars(allowance.min(item.text_chars)))
        .collect();
    let note = |left: usize| format!("- (and {left} more; ask for a skill by name)");
    let note_chars = |left: usize| note(0).chars().count() - 1 + left.to_string().len();
    let mut prefix = Vec::with_capacity(lines.len() + 1);
    prefix.push(0usize);
    for chars in &lines {
        prefix.push(prefix[prefix.len() - 1] + chars);
    }
    let length = |kept: usize| {
        let left = items.len() - kept;
        let parts = kept + usize::from(left > 0);
        let note = if left > 0 { note_chars(left) } else { 0 };
        prefix[kept] + note + parts.saturating_sub(1)
    };
    // Everything, or as many entries as fit before the closing note.
    let mut kept = items.len();
    if length(kept) > options.budget {
        kept = 0;
        while kept < items.len() && length(kept + 1) <= options.budget {
            kept += 1;
        }
    }
    let mut inner = String::new();
    let mut names = Vec::with_capacity(kept);
    for (item, allowance) in items.iter().zip(&allowances).take(kept) {
        if !inner.is_empty() {
            inner.push('\n');
        }
        item.write(&mut inner, *allowance);
        names.push(item.name.to_string());
    }
    if kept < items.len() && length(kept) <= options.budget {
        if !inner.is_empty() {
            inner.push('\n');
        }
        inner.push_str(&note(items.len() - kept));
    }
    let content = if inner.is_empty() {
        format!("{OPEN}\n{CLOSE}")
    } else {
        format!("{OPEN}\n{inner}\n{CLOSE}")
    };
    Listing {
        inner,
        content,
        names,
    }
}

/// How many text characters each entry may have: everything when the full
/// listing fits; otherwise bundled entries keep theirs and the others share
/// the rest fairly (names only when the share is too small).
fn allowances(items: &[Item<'_>], budget: usize) -> Vec<usize> {
    let newlines = items.len().saturating_sub(1);
    let full: usize = items
        .iter()
        .map(|i| i.line_chars(i.text_chars))
        .sum::<usize>()
        + newlines;
    if full <= budget {
        return items.iter().map(|i| i.text_chars).collect();
    }
    let fixed: usize = items
        .iter()
        .map(|i| {
            if i.bundled {
                i.line_chars(i.text_chars)
            } else {
                i.line_chars(0) + 2
            }
        })
        .sum::<usize>()
        + newlines;
    // How many non-bundled entries have each text length (lengths are
    // capped, so this is a short table).
    let mut count_by_length: Vec<usize> = Vec::new();
    let mut others = 0usize;
    for item in items.iter().filter(|i| !i.bundled) {
        if count_by_length.len() <= item.text_chars {
            count_by_length.resize(item.text_chars + 1, 0);
        }
        count_by_length[item.text_chars] += 1;
        others += 1;
    }
    let room = budget.saturating_sub(fixed);
    if others == 0 || room < others * MIN_SHARE {
        return items
            .iter()
            .map(|i| if i.bundled { i.text_chars } else { 0 })
            .collect();
    }
    // The largest cap whose total fits: short entries keep all they have,
    // the rest get the cap.
    let total_at = |cap: usize| -> usize {
        count_by_length
            .iter()
            .enumerate()
            .map(|(length, count)| length.min(cap) * count)
            .sum()
    };
    let (mut low, mut high) = (0usize, count_by_length.len().saturating_sub(1));
    while low < high {
        let mid = (low + high).div_ceil(2);
        if total_at(mid) <= room {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    items
        .iter()
        .map(|i| {
            if i.bundled {
                i.text_chars
            } else {
                i.text_chars.min(low)
            }
        })
        .collect()
}

/// [`allowances`] for items in descending score order (`scores` beside
/// them): every entry keeps its full text unless the listing is over
/// budget; then, from the lowest score up, each group of equal scores
/// (bundled entries left out) gives up text — all of it when that is not
/// enough, else the least that makes the listing fit, shared under one cap.
fn ranked_allowances(items: &[Item<'_>], scores: &[f64], budget: usize) -> Vec<usize> {
    let mut allow: Vec<usize> = items.iter().map(|i| i.text_chars).collect();
    let full: usize = items
        .iter()
        .map(|i| i.line_chars(i.text_chars))
        .sum::<usize>()
        + items.len().saturating_sub(1);
    let mut excess = full.saturating_sub(budget);
    let mut end = items.len();
    while excess > 0 && end > 0 {
        let start = (0..end)
            .rev()
            .take_while(|&i| scores[i].total_cmp(&scores[end - 1]).is_eq())
            .last()
            .unwrap_or(end - 1);
        let group: Vec<usize> = (start..end).filter(|&i| !items[i].bundled).collect();
        end = start;
        // Cutting an entry to its name saves its text and the `: `.
        let all: usize = group
            .iter()
            .map(|&i| allow[i] + 2 * usize::from(allow[i] > 0))
            .sum();
        if all <= excess {
            group.iter().for_each(|&i| allow[i] = 0);
            excess -= all;
            continue;
        }
        // The largest cap whose savings cover the excess.
        let saved =
            |cap: usize| -> usize { group.iter().map(|&i| allow[i].saturating_sub(cap)).sum() };
        let (mut low, mut high) = (0usize, group.iter().map(|&i| allow[i]).max().unwrap_or(0));
        while low < high {
            let mid = (low + high).div_ceil(2);
            if saved(mid) >= excess {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        for &i in &group {
            allow[i] = if low < MIN_SHARE {
                0
            } else {
                allow[i].min(low)
            };
        }
        excess = 0;
    }
    allow
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "render_ranked_tests.rs"]
mod ranked_tests;
