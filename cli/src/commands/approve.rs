//! `skillhost approve LABEL:name`: the user's approval of a remote skill's
//! `allowed-tools`, bound to every file's digest as the source lists it now.

use crate::args::SourceArgs;
use crate::context::Ctx;
use crate::output::print_json;
use anyhow::{Result, bail};
use skillhost::Scope;
use skillhost::session::approval::Approvals;
use std::process::ExitCode;

pub fn run(ctx: &Ctx, name: &str, sources: &SourceArgs, json: bool) -> Result<ExitCode> {
    let registry = ctx.registry(sources)?;
    let catalog = registry.snapshot();
    let Some(skill) = catalog.get(name) else {
        bail!("no skill named {name:?}");
    };
    if skill.scope != Scope::Remote {
        bail!("{name} is not a remote skill: its allowed-tools need no approval");
    }
    let name = skill.name().to_string();
    // The body must verify before anything is approved.
    registry.load(&name)?;
    let store = Approvals::open()?;
    let files = store.approve(&registry, &name)?;
    if json {
        print_json(&serde_json::json!({
            "skill": name,
            "record": store.path().display().to_string(),
            "files": files
                .iter()
                .map(|f| serde_json::json!({"uri": f.uri, "digest": f.digest}))
                .collect::<Vec<_>>(),
        }))?;
    } else {
        crate::output::print_text(&format!("approved {name} ({} files)", files.len()))?;
    }
    Ok(ExitCode::SUCCESS)
}
