//! `skillhost catalog`: the merged catalog, as text or JSON; or only what a
//! person may invoke as slash commands (`--for user`), or exactly the
//! listing the model is given (`--for model`).

use crate::args::{SourceArgs, View};
use crate::context::{Ctx, cwd};
use crate::output::{print_json, print_text, render_catalog};
use anyhow::Result;
use serde_json::{Value, json};
use skillhost::Catalog;
use skillhost::session::JsonlLog;
use skillhost::session::activation;
use skillhost::session::inject::{Injector, digest};
use skillhost::session::invoke::{Caller, invocable};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    ctx: &Ctx,
    sources: &SourceArgs,
    json: bool,
    view: Option<View>,
    session: Option<&Path>,
) -> Result<ExitCode> {
    let log = session.map(JsonlLog::open).transpose()?;
    let registry = match &log {
        Some(log) => ctx.session_registry(sources, &cwd()?, log)?,
        None => ctx.registry(sources)?,
    };
    let catalog = registry.snapshot();
    let activated = log
        .as_ref()
        .map(|log| activation::activated(log))
        .unwrap_or_default();
    match view {
        None if json => print_json(&*catalog)?,
        None => std::io::stdout()
            .lock()
            .write_all(render_catalog(&catalog).as_bytes())?,
        Some(View::User) => user_view(&catalog, &activated, json)?,
        Some(View::Model) => {
            let listing = Injector::default().listing(&catalog, &activated);
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
