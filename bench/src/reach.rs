//! What the model can reach at scale: a catalog the size of a real
//! `~/.claude/skills` (550 community skills with the corpus's own
//! descriptions), 17 project skills and the bundled ones, through the two
//! doors a model reads — the listing `inject` publishes (default budget)
//! and the MCP `skill` tool's description (held under 2,048 characters) —
//! and then through search, which must reach every skill.
//!
//! These are counts, not timings: characters of each text, skills named in
//! it, skills named with a description, and skills reachable (named, or
//! found by a search for their name on its first page).

use skillhost::Catalog;
use skillhost::model::{Location, Scope, Skill};
use skillhost::session::inject::visible_to_model;
use skillhost::session::render::{CLOSE, OPEN, RenderOptions, Scores, render};
use skillhost::session::search;
use skillhost_skill::frontmatter::Frontmatter;
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

/// What one door shows.
#[derive(Debug, Clone, Default)]
pub struct Door {
    /// Characters of the whole text.
    pub chars: usize,
    /// Skills it names.
    pub named: usize,
    /// Skills it names with (some of) their description.
    pub described: usize,
    /// Skills it says were left out.
    pub left_out: usize,
}

/// The figures of one run.
#[derive(Debug, Clone, Default)]
pub struct ReachReport {
    /// Skills the model may call.
    pub skills: usize,
    /// The listing `inject` publishes (8,000-character budget).
    pub listing: Door,
    /// The `skill` tool's description.
    pub tool: Door,
    /// Skills found by a search for their name, on the first page.
    pub found_by_search: usize,
    /// Project skills named in the listing, of those there are.
    pub project_named: (usize, usize),
}

impl ReachReport {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let door = |what: &str, d: &Door| {
            format!(
                "{what:<34} {:>6} chars  {:>4} named  {:>4} with a description  {:>4} left out (counted in it)\n",
                d.chars, d.named, d.described, d.left_out
            )
        };
        format!(
            "skillhost-bench reach: {} skills the model may call (550 user, 17 project, bundled)\n{}{}\
             reachable through search_skills / catalog --search: {} of {} (each found by its name on page 1)\n\
             project skills named in the listing: {} of {}\n",
            self.skills,
            door("inject listing (8,000 budget)", &self.listing),
            door("MCP skill tool description", &self.tool),
            self.found_by_search,
            self.skills,
            self.project_named.0,
            self.project_named.1,
        )
    }

    /// The JSON of `skillhost-bench reach --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let door = |d: &Door| serde_json::json!({"chars": d.chars, "named": d.named, "described": d.described, "left_out": d.left_out});
        serde_json::json!({
            "skills": self.skills,
            "listing": door(&self.listing),
            "tool": door(&self.tool),
            "found_by_search": self.found_by_search,
            "project_named": self.project_named.0,
            "project_total": self.project_named.1,
        })
    }
}

/// The descriptions of the corpus's skills (`tests/corpus/superpowers`).
fn corpus_descriptions(workspace: &Path) -> Vec<String> {
    let root = workspace.join("tests/corpus/superpowers/skills");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&root).into_iter().flatten().flatten() {
        let Ok(text) = std::fs::read(entry.path().join("SKILL.md")) else {
            continue;
        };
        if let Ok(doc) = skillhost_skill::frontmatter::parse_document(&text, "x")
            && let Some(d) = doc.frontmatter.description
        {
            out.push(d);
        }
    }
    out.sort();
    if out.is_empty() {
        out.push("Use when a task calls for a careful, repeatable procedure".to_string());
    }
    out
}

fn skill(name: &str, description: &str, scope: Scope) -> Arc<Skill> {
    let mut frontmatter = Frontmatter::defaults(name);
    frontmatter.description = Some(description.to_string());
    Arc::new(Skill {
        source: scope.as_str().into(),
        scope,
        path: Location::Path(format!("/{}/{name}/SKILL.md", scope.as_str()).into()),
        base: Location::Path(format!("/{}/{name}", scope.as_str()).into()),
        frontmatter,
        json: None,
    })
}

/// A door's figures from its text (the lines between the listing's tags).
fn door(text: &str) -> Door {
    let inner = text
        .split_once(OPEN)
        .map_or("", |(_, rest)| rest)
        .split(CLOSE)
        .next()
        .unwrap_or("");
    let mut d = Door {
        chars: text.chars().count(),
        ..Door::default()
    };
    for line in inner.lines().filter_map(|l| l.strip_prefix("- ")) {
        if let Some(rest) = line.strip_prefix("(and ") {
            d.left_out = rest
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            continue;
        }
        d.named += 1;
        d.described += usize::from(line.contains(": "));
    }
    d
}

/// Builds the catalog and measures each door.
pub fn run(workspace: &Path) -> ReachReport {
    let descriptions = corpus_descriptions(workspace);
    let mut skills = Vec::new();
    for i in 0..550 {
        let d = &descriptions[i % descriptions.len()];
        skills.push(skill(&format!("community-{i:03}"), d, Scope::User));
    }
    for i in 0..17 {
        skills.push(skill(
            &format!("project-{i:02}"),
            "The project's own procedure",
            Scope::Project,
        ));
    }
    for name in [
        "writing-skill-md",
        "troubleshooting-skills",
        "publishing-a-mirror",
    ] {
        skills.push(skill(
            name,
            "How skills work, from skillhost",
            Scope::Bundled,
        ));
    }
    skills.sort_by(|a, b| a.name().cmp(b.name()));
    let catalog = Catalog {
        complete: true,
        skills,
        ..Catalog::default()
    };
    let visible = visible_to_model(&catalog, &BTreeSet::new());
    let listing = render(&visible, RenderOptions::default());
    let tool = skillhost_mcp::tools::skill_tool(&catalog, RenderOptions::default(), &Scores::new());
    let tool_text = tool.description.as_deref().unwrap_or_default();
    let found_by_search = visible
        .iter()
        .filter(|s| {
            let found = search::search(&visible, &Scores::new(), s.name(), 1, search::PER_PAGE);
            found.skills.iter().any(|f| f.name() == s.name())
        })
        .count();
    let project_named = listing
        .names
        .iter()
        .filter(|n| n.starts_with("project-"))
        .count();
    ReachReport {
        skills: visible.len(),
        listing: door(&listing.content),
        tool: door(tool_text),
        found_by_search,
        project_named: (project_named, 17),
    }
}
