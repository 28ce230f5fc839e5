//! The two tools a model calls: `skill` runs one skill, `search_skills`
//! finds any of them, ranked and a page at a time.
//!
//! A client may show a model only the first 2,048 characters of a tool's
//! description (Claude Code cuts MCP tool descriptions and server
//! instructions there, silently), so each description is held to
//! [`DESCRIPTION_MAX`] with what matters first: what the tool does, then
//! how to reach every skill, then as much of the ranked listing as fits.
//! The listing a model needs at any catalog size comes from
//! `search_skills`, never from a description.

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};
use skillhost::Catalog;
use skillhost::session::inject::visible_to_model;
use skillhost::session::render::{CLOSE, OPEN, RenderOptions, Scores, render_ranked};
use skillhost::session::search::{self, Found};
use std::collections::BTreeSet;
use std::sync::Arc;

/// The tool that runs a skill.
pub const SKILL: &str = "skill";
/// The tool that finds skills.
pub const SEARCH: &str = "search_skills";
/// Most characters of a tool description or of the server instructions:
/// what Claude Code shows of each.
pub const DESCRIPTION_MAX: usize = 2_048;
/// What the listing's closing note says about skills it left out.
const MORE: &str = "call search_skills to find them";
/// Skills on one page of `search_skills`.
pub const SEARCH_PAGE: usize = search::PER_PAGE;

/// The `skill` tool for `catalog`: its description says what it does and
/// lists the highest-ranked skills within [`DESCRIPTION_MAX`] (and within
/// `options.budget`, when that is smaller).
pub fn skill_tool(catalog: &Catalog, options: RenderOptions, scores: &Scores) -> Tool {
    let visible = visible_to_model(catalog, &BTreeSet::new());
    let head = format!(
        "Runs one skill by name: returns its instructions, with the arguments filled in, \
         its base directory and its files, to follow now; or, for a skill that runs as a \
         sub-agent, the plan (prompt, allowed tools, model) as JSON. Call it when a skill \
         matches the task. {} skills are available; the most relevant are listed below, \
         and search_skills finds any of them by words.\n\n",
        visible.len()
    );
    // The listing's tags and their newlines are outside its budget.
    let room = DESCRIPTION_MAX
        .saturating_sub(head.chars().count() + OPEN.len() + CLOSE.len() + 2)
        .min(options.budget);
    let listing = render_ranked(&visible, options.with_budget(room).with_more(MORE), scores);
    let schema = object(json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The skill's name, as listed or found"},
            "arguments": {
                "description": "The skill's arguments: one string (split on spaces, quotes group) or a list",
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            }
        },
        "required": ["name"],
        "additionalProperties": false
    }));
    Tool::new(
        SKILL,
        format!("{head}{}", listing.content),
        Arc::new(schema),
    )
    .with_annotations(ToolAnnotations::new().read_only(true))
}

/// The `search_skills` tool.
pub fn search_tool() -> Tool {
    let description = format!(
        "Finds skills to run with the skill tool: every word of `query` must appear in a \
         skill's name, description or when-to-use. Results are ranked (the project's own \
         skills first, then the ones used most) and come {SEARCH_PAGE} to a page with their \
         descriptions; ask for the next page with `page`. An empty query lists every skill."
    );
    let schema = object(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for (empty: every skill)"},
            "page": {"type": "integer", "minimum": 1, "description": "The page of results, from 1"}
        },
        "additionalProperties": false
    }));
    Tool::new(SEARCH, description, Arc::new(schema))
        .with_annotations(ToolAnnotations::new().read_only(true))
}

/// The answer to a `search_skills` call with `arguments`, over `catalog`:
/// the page's text, or why the arguments are wrong.
pub fn search_call(
    catalog: &Catalog,
    scores: &Scores,
    entry_cap: usize,
    arguments: &JsonObject,
) -> Result<String, String> {
    let query = match arguments.get("query") {
        None | Some(Value::Null) => "",
        Some(Value::String(text)) => text.as_str(),
        Some(_) => return Err("`query` must be a string".to_string()),
    };
    let page = match arguments.get("page") {
        None | Some(Value::Null) => 1,
        Some(value) => match value.as_u64() {
            Some(n) if n >= 1 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => return Err("`page` must be a whole number from 1".to_string()),
        },
    };
    let visible = visible_to_model(catalog, &BTreeSet::new());
    let found: Found<'_> = search::search(&visible, scores, query, page, SEARCH_PAGE);
    let shown = found.query.clone();
    Ok(found.text(entry_cap, |next| {
        format!("search_skills with query {shown:?} and page {next}")
    }))
}

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}
