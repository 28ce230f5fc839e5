//! `skillhost catalog`: the merged catalog, as text or JSON; or only what a
//! person may invoke as slash commands (`--for user`), or exactly the
//! listing the model is given (`--for model`).

use crate::args::{ListingArgs, SourceArgs, StateArgs, View};
use crate::context::{Ctx, cwd, listing_scores};
use crate::output::{print_json, print_text, render_catalog};
use anyhow::Result;
use serde_json::{Value, json};
use skillhost::Catalog;
use skillhost::session::JsonlLog;
use skillhost::session::activation;
use skillhost::session::inject::{digest, visible_to_model};
use skillhost::session::invoke::{Caller, invocable};
use skillhost::session::render::RenderOptions;
use skillhost::session::search;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// What `catalog` was asked for.
pub struct Args<'a> {
    pub sources: &'a SourceArgs,
    pub json: bool,
    pub view: Option<View>,
    pub session: Option<&'a Path>,
    pub search: Option<&'a str>,
    pub page: usize,
    pub listing: &'a ListingArgs,
    pub state: &'a StateArgs,
}

pub fn run(ctx: &Ctx, args: Args<'_>) -> Result<ExitCode> {
    let log = args.session.map(JsonlLog::open).transpose()?;
    let registry = match &log {
        Some(log) => ctx.session_registry(args.sources, &cwd()?, log)?,
        None => ctx.registry(args.sources)?,
    };
    let catalog = registry.snapshot();
    let activated = log
        .as_ref()
        .map(|log| activation::activated(log))
        .unwrap_or_default();
    let json = args.json;
    if let Some(query) = args.search {
        return find(&catalog, &activated, query, &args);
    }
    match args.view {
        None if json => print_json(&*catalog)?,
        None => std::io::stdout()
            .lock()
            .write_all(render_catalog(&catalog).as_bytes())?,
        Some(View::User) => user_view(&catalog, &activated, json)?,
        Some(View::Model) => {
            // The injector inject uses, with the same scores and budget, so
            // this prints what inject publishes.
            let injector = ctx.injector(args.listing, args.state, &catalog);
            let listing = injector.listing(&catalog, &activated);
            if json {
                print_json(&json!({
                    "complete": catalog.complete,
                    "digest": digest(&listing.inner),
                    "skills": listing.names,
                    "content": listing.content,
                }))?;
            } else {
                print_text(&listing.content)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `--search`: one page of the skills the model may see that match, in
/// rank order — the way to every skill a cut listing left out.
fn find(
    catalog: &Catalog,
    activated: &BTreeSet<String>,
    query: &str,
    args: &Args<'_>,
) -> Result<ExitCode> {
    let scores = listing_scores(args.state, catalog).unwrap_or_default();
    let visible = visible_to_model(catalog, activated);
    let found = search::search(&visible, &scores, query, args.page, search::PER_PAGE);
    if args.json {
        let skills: Vec<Value> = found
            .skills
            .iter()
            .map(|s| {
                json!({
                    "name": s.name(),
                    "description": s.description(),
                    "when_to_use": s.frontmatter.when_to_use,
                    "scope": s.scope.as_str(),
                    "source": s.source,
                })
            })
            .collect();
        print_json(&json!({
            "query": found.query,
            "matched": found.matched,
            "total": found.total,
            "page": found.page,
            "pages": found.pages,
            "skills": skills,
        }))?;
    } else {
        let text = found.text(RenderOptions::default().entry_cap, |page| {
            format!(
                "skillhost catalog --search {} --page {page}",
                shell_quote(&found.query)
            )
        });
        print_text(&text)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `text` as one shell word (single quotes, each `'` closed and escaped).
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The slash commands: name, argument hint and description of every skill
/// a person may invoke now.
fn user_view(catalog: &Catalog, activated: &BTreeSet<String>, json: bool) -> Result<()> {
    let commands = invocable(catalog, activated, Caller::User);
    if json {
        let commands: Vec<Value> = commands
            .iter()
            .map(|s| {
                json!({
                    "name": s.name(),
                    "argument_hint": s.frontmatter.argument_hint,
                    "description": s.description(),
                })
            })
            .collect();
        return print_json(&json!({"complete": catalog.complete, "commands": commands}));
    }
    let usage = |s: &skillhost::Skill| match &s.frontmatter.argument_hint {
        Some(hint) => format!("/{} {}", s.name(), flat(hint)),
        None => format!("/{}", s.name()),
    };
    let width = commands
        .iter()
        .map(|s| usage(s).chars().count())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for skill in &commands {
        let description = skill.description().map(flat).unwrap_or_default();
        let line = format!("{:width$}  {description}", usage(skill));
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out.push_str(&format!("\n{} command(s)", commands.len()));
    if !catalog.complete {
        out.push_str(" (incomplete: some sources could not be read)");
    }
    print_text(&out)
}

/// One line: whitespace runs (newlines of block scalars) as single spaces.
fn flat(text: &str) -> String {
    skillhost::text::clean(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
