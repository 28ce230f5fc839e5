//! `skillhost load`: a skill's body, read again from its source.

use crate::args::SourceArgs;
use crate::context::Ctx;
use crate::output::{print_json, print_text};
use anyhow::Result;
use skillhost::session::approval::tools_approved;
use std::process::ExitCode;

pub fn run(ctx: &Ctx, name: &str, sources: &SourceArgs, json: bool) -> Result<ExitCode> {
    let registry = ctx.registry(sources)?;
    let doc = registry.load(name)?;
    if json {
        // Where each byte came from: the source, and every file of the
        // skill with the digest it was (or will be) verified against.
        // The catalog's name (a remote skill's carries its label).
        let skill = registry
            .snapshot()
            .get(name)
            .map_or_else(|| name.to_string(), |s| s.name().to_string());
        let base = doc.skill.base.to_string();
        let files: Vec<serde_json::Value> = registry
            .list_resources(&skill)?
            .into_iter()
            .map(|r| {
                serde_json::json!({
                    "path": r.path,
                    "from": format!("{}/{}", base.trim_end_matches('/'), r.path),
                    "digest": r.digest,
                    "size": r.size,
                })
            })
            .collect();
        let mut value = doc.to_json();
        if let serde_json::Value::Object(map) = &mut value {
            map.insert(
                "provenance".into(),
                serde_json::json!({
                    "source": doc.skill.source,
                    "scope": doc.skill.scope.as_str(),
                    "body_from": doc.skill.path.to_string(),
                    "files": files,
                    "allowed_tools_approved": tools_approved(&registry, &skill),
                }),
            );
        }
        print_json(&value)?;
    } else {
        print_text(&doc.body)?;
    }
    Ok(ExitCode::SUCCESS)
}
