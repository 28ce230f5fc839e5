//! The listing the model sees: one line per skill,
//! `- name: description - when_to_use`, inside `<available_skills>` tags.
//!
//! Skills are listed in rank order ([`rank`](super::rank): precedence, then
//! activated conditional skills, then usage score, then name). Each entry's text is capped (250 characters by
//! default) and the whole listing is held to a budget sized from the
//! model's context (1% of 200,000 tokens: 8,000 characters, unless set).
//! Over budget, descriptions go before names: from the lowest rank up, each
//! group of equal rank shares what is left of its text (names only below
//! [`MIN_SHARE`] characters each) before the next group is touched, and
//! bundled skills keep their full text. Only when every description is gone
//! are the lowest-ranked left out, and a closing note gives their count and
//! the one way to reach them (a search the door offers). Text is cut on
//! character boundaries, with `…` where it was cut.
//!
//! Whatever a skill says cannot change the listing's structure: `<`, `>`
//! and `&` are written as `&lt;`, `&gt;` and `&amp;` (so exactly one block
//! opens and closes), and control characters, line separators and
//! bidirectional overrides become spaces. Lengths count what is written.

use super::rank::Key;
use crate::model::{Scope, Skill};
use crate::text::is_unsafe;
use std::borrow::Cow;

/// Opening tag of the listing.
pub const OPEN: &str = "<available_skills>";
/// Closing tag of the listing.
pub const CLOSE: &str = "</available_skills>";
/// Below this many characters per entry, descriptions are dropped and only
/// names are listed.
pub const MIN_SHARE: usize = 20;

/// Tokens of context the default budget is sized for: a 200,000-token
/// window, the size of the models agents most often run.
pub const CONTEXT_TOKENS: usize = 200_000;
/// Share of the context, in percent, the listing may take by default.
/// Claude Code gives its skill listing 1% of the window and Codex 2%; the
/// smaller share leaves the agent's own tools their room.
pub const LISTING_PERCENT: usize = 1;
/// Characters per token when sizing from tokens (English prose and
/// identifiers average about four).
pub const CHARS_PER_TOKEN: usize = 4;
/// What the closing note says by default about reaching skills that were
/// left out.
pub const MORE_DEFAULT: &str = "find them with `skillhost catalog --search WORDS`";

/// Caps on the listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderOptions {
    /// Most characters of one entry's text (after `- name: `).
    pub entry_cap: usize,
    /// Most characters of the whole listing (between the tags).
    pub budget: usize,
    /// How the closing note tells the model to reach skills left out
    /// (what the door it is read through offers: a tool, a command).
    pub more: &'static str,
}

impl RenderOptions {
    /// The options for a model with `tokens` of context: a budget of
    /// [`LISTING_PERCENT`] of it, in characters.
    pub fn for_context(tokens: usize) -> Self {
        Self::default().with_budget(budget_for(tokens))
    }

    /// These options with a budget of `budget` characters.
    pub fn with_budget(self, budget: usize) -> Self {
        RenderOptions { budget, ..self }
    }

    /// These options with the closing note pointing at `more`.
    pub fn with_more(self, more: &'static str) -> Self {
        RenderOptions { more, ..self }
    }
}

/// The budget, in characters, for a model with `tokens` of context.
pub fn budget_for(tokens: usize) -> usize {
    tokens.saturating_mul(CHARS_PER_TOKEN) / 100 * LISTING_PERCENT
}

impl Default for RenderOptions {
    /// 250 characters per entry, and the budget sized for
    /// [`CONTEXT_TOKENS`] (8,000 characters).
    fn default() -> Self {
        RenderOptions {
            entry_cap: 250,
            budget: budget_for(CONTEXT_TOKENS),
            more: MORE_DEFAULT,
        }
    }
}

pub use super::rank::Scores;

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
    /// Its rank, name aside.
    key: Key,
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

/// Renders `skills` (already filtered to what the model may see) in rank
/// order with no usage scores: by precedence, activated conditional skills
/// first within it, then name.
pub fn render(skills: &[&Skill], options: RenderOptions) -> Listing {
    render_ranked(skills, options, &Scores::new())
}

/// Renders `skills` in rank order ([`rank`](super::rank)): precedence,
/// activated conditional skills, then `scores` (highest first), then name; when the budget cuts, the
/// lowest-ranked are shortened first and, only when every description is
/// gone, left out.
pub fn render_ranked(skills: &[&Skill], options: RenderOptions, scores: &Scores) -> Listing {
    let mut items: Vec<Item<'_>> = skills
        .iter()
        .map(|s| item(s, options.entry_cap, scores))
        .collect();
    super::rank::sort(&mut items, |i| (&i.key, i.name));
    let allowances = allowances(&items, options.budget);
    let lines: Vec<usize> = items
        .iter()
        .zip(&allowances)
        .map(|(item, &allowance)| item.line_chars(allowance.min(item.text_chars)))
        .collect();
    let keep = kept(&items, &lines, options);
    let left = keep.iter().filter(|k| !**k).count();
    let mut inner = String::new();
    let mut names = Vec::with_capacity(items.len() - left);
    for ((item, allowance), _) in items
        .iter()
        .zip(&allowances)
        .zip(&keep)
        .filter(|(_, keep)| **keep)
    {
        if !inner.is_empty() {
            inner.push('\n');
        }
        item.write(&mut inner, *allowance);
        names.push(item.name.to_string());
    }
    if left > 0 {
        let note = note(left, options.more);
        let written = inner.chars().count() + usize::from(!inner.is_empty());
        if written + note.chars().count() <= options.budget {
            if !inner.is_empty() {
                inner.push('\n');
            }
            inner.push_str(&note);
        }
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

/// One line per skill of `skills`, in the order given, each entry capped at
/// `entry_cap` and escaped as the listing escapes it (what a page of search
/// results shows).
pub fn lines(skills: &[&Skill], entry_cap: usize) -> String {
    let mut out = String::new();
    for skill in skills {
        if !out.is_empty() {
            out.push('\n');
        }
        let item = item(skill, entry_cap, &Scores::new());
        item.write(&mut out, item.text_chars);
    }
    out
}

/// The closing note for `left` skills not listed.
fn note(left: usize, more: &str) -> String {
    format!("- (and {left} more not listed: {more})")
}

fn item<'a>(s: &'a Skill, entry_cap: usize, scores: &Scores) -> Item<'a> {
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
        key: Key::of(s, scores),
        text_chars: 0,
    };
    item.text_chars = item.chars(entry_cap);
    item
}

/// Which entries stay listed, given each one's line length: all when they
/// fit; otherwise the lowest-ranked go first, bundled ones last of all (the
/// host's own few skills on how skills work), until the rest and the
/// closing note fit.
fn kept(items: &[Item<'_>], lines: &[usize], options: RenderOptions) -> Vec<bool> {
    let mut keep = vec![true; items.len()];
    let mut total: usize = lines.iter().sum::<usize>() + items.len().saturating_sub(1);
    if total <= options.budget {
        return keep;
    }
    let mut listed = items.len();
    let over = |total: usize, listed: usize| {
        let left = items.len() - listed;
        let note = note(left, options.more).chars().count();
        total + usize::from(listed > 0) + note > options.budget
    };
    let order = (0..items.len())
        .rev()
        .filter(|&i| !items[i].bundled)
        .chain((0..items.len()).rev().filter(|&i| items[i].bundled));
    for i in order {
        if !over(total, listed) {
            break;
        }
        keep[i] = false;
        listed -= 1;
        // Its line and, but for the last one listed, a newline.
        total -= lines[i] + usize::from(listed > 0);
    }
    keep
}

/// How many text characters each entry may have (entries in rank order):
/// every entry keeps its full text unless the listing is over budget;
/// then, from the lowest rank up, each group of equal rank (bundled entries
/// left out) gives up text — all of it when that is not enough, else the
/// least that makes the listing fit, shared under one cap.
fn allowances(items: &[Item<'_>], budget: usize) -> Vec<usize> {
    let mut allow: Vec<usize> = items.iter().map(|i| i.text_chars).collect();
    let full: usize = items
        .iter()
        .map(|i| i.line_chars(i.text_chars))
        .sum::<usize>()
        + items.len().saturating_sub(1);
    let mut excess = full.saturating_sub(budget);
    let mut end = items.len();
    while excess > 0 && end > 0 {
        let last = items[end - 1].key;
        let start = (0..end)
            .rev()
            .take_while(|&i| items[i].key.same(&last))
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
