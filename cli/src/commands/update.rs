//! `skillhost update [ID]`: the tags of providers added from a registry,
//! resolved again. For each, the old and new digest and how the two
//! manifests differ; a version that asks for more (a root, an origin, a
//! setting) says so in words. Nothing is re-pinned without approval, and
//! `--check` changes nothing and exits 1 when an update exists.

use super::oci;
use crate::args::{RegistryArgs, StateArgs};
use anyhow::{Context as _, Result, bail};
use skillhost::Runtime;
use skillhost::config::{Config, ProviderConfig, Source};
use skillhost::sandbox::{Manifest, RootNeed, read_component_file};
use skillhost_oci::{ComponentRef, Digest};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `update` was asked.
pub struct Args<'a> {
    /// `--config`.
    pub config: Option<&'a Path>,
    /// Only this provider.
    pub id: Option<&'a str>,
    /// `--check`.
    pub check: bool,
    /// `--yes`.
    pub yes: bool,
    /// How to reach the registry.
    pub registry: &'a RegistryArgs,
    /// The state folder.
    pub state: &'a StateArgs,
}

/// A new version found for one provider, ready to be pinned.
struct Found {
    line: usize,
    reference: ComponentRef,
    sha256: String,
    stored: PathBuf,
    component: Vec<u8>,
}

pub fn run(args: Args<'_>) -> Result<ExitCode> {
    let path = oci::config_path(args.config)?;
    let config = Config::load(&path)?;
    let followed: Vec<&ProviderConfig> = config
        .providers
        .iter()
        .filter(|p| p.oci.is_some() && args.id.is_none_or(|id| p.id == id))
        .collect();
    if followed.is_empty() {
        match args.id {
            Some(id) => bail!(
                "{}: no provider {id:?} added from a registry",
                path.display()
            ),
            None => {
                println!("{}: no provider was added from a registry", path.display());
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    let (state, store) = oci::state(args.state)?;
    let mut found = Vec::new();
    let mut failed = false;
    for provider in followed {
        match check_one(&runtime, &store, provider, args.registry) {
            Ok(Some(new)) => found.push((provider.id.clone(), new)),
            Ok(None) => {}
            Err(e) => {
                failed = true;
                eprintln!("{}: cannot check for an update: {e:#}", provider.id);
            }
        }
    }
    if args.check || found.is_empty() {
        let code = if !found.is_empty() || failed { 1 } else { 0 };
        return Ok(ExitCode::from(code));
    }
    let mut text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let mut pinned = Vec::new();
    for (id, new) in found {
        if !oci::confirm(&format!("Re-pin {id} to {}?", new.reference), args.yes)? {
            continue;
        }
        store.put(&new.component)?;
        text = repin(&text, &new).with_context(|| {
            format!("cannot re-pin {id} in {}: edit it by hand", path.display())
        })?;
        pinned.push((id, new));
    }
    if pinned.is_empty() {
        return Ok(ExitCode::FAILURE);
    }
    let written = oci::write_config(&path, &text, &state)?;
    for (id, new) in &pinned {
        let now = written.providers.iter().find(|p| &p.id == id);
        if now.and_then(|p| p.sha256.as_deref()) != Some(new.sha256.as_str()) {
            bail!(
                "{}: {id} was not re-pinned; edit it by hand",
                path.display()
            );
        }
        runtime
            .engine()
            .load(&new.component)
            .context("cannot precompile the component")?;
        println!("re-pinned {id} to {}", new.reference);
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// Resolves one provider's tag; when it moved, pulls the new version,
/// shows how it differs and returns it.
fn check_one(
    runtime: &Runtime,
    store: &skillhost_oci::Store,
    provider: &ProviderConfig,
    registry: &RegistryArgs,
) -> Result<Option<Found>> {
    let id = skillhost::text::escaped(&provider.id);
    let pinned = ComponentRef::parse(provider.oci.as_deref().unwrap_or_default())?;
    let Some(follow) = pinned.unpinned() else {
        println!("{id}: pinned to a digest only; there is no tag to follow");
        return Ok(None);
    };
    let (client, credentials) = oci::client(&follow, registry)?;
    let resolved = oci::block_on(client.resolve(&follow, &credentials))??;
    if pinned.digest.as_ref() == Some(&resolved.digest) {
        println!("{id}: up to date ({pinned})");
        return Ok(None);
    }
    let new = follow.pinned(resolved.digest.clone());
    let pulled = oci::block_on(client.pull(&new, &credentials))??;
    let checked = oci::check(runtime, &new.to_string(), &pulled.component)?;
    println!("{id}: {follow} has a new version");
    println!(
        "  pinned  {}",
        pinned
            .digest
            .as_ref()
            .map_or_else(String::new, Digest::to_string)
    );
    println!("  now     {}", resolved.digest);
    let old = match &provider.source {
        Source::Wasm(file) => read_component_file(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))
            .and_then(|bytes| {
                let description =
                    skillhost::sandbox::describe::describe(runtime.engine(), &bytes, None)
                        .map_err(|e| e.to_string())?;
                super::inspect::declared(runtime, &bytes, &description)
            }),
        _ => Err("not a component file".to_string()),
    };
    match (&old, &checked.declared) {
        (Ok(Some(old)), Ok(Some(new))) => {
            for line in asks_more(old, new, provider) {
                println!("  {}", skillhost::text::escaped(&line));
            }
            for line in differences(old, new) {
                println!("  {}", skillhost::text::escaped(&line));
            }
        }
        (_, Ok(None)) => println!("  the new version declares nothing (a 0.1.0 component)"),
        (_, Err(e)) | (Err(e), _) => {
            println!(
                "  its manifest cannot be compared: {}",
                skillhost::text::escaped(e)
            );
        }
        (Ok(None), Ok(Some(new))) => {
            for line in new.lines() {
                println!("  + {}", skillhost::text::escaped(&line));
            }
        }
    }
    Ok(Some(Found {
        line: provider.line,
        reference: new,
        sha256: checked.description.sha256.clone(),
        stored: store.path(&pulled.resolved.manifest.layer),
        component: pulled.component,
    }))
}

fn rank(need: RootNeed) -> u8 {
    match need {
        RootNeed::None => 0,
        RootNeed::Optional => 1,
        RootNeed::Required => 2,
    }
}

/// What the new manifest asks for that the old one did not, in words, and
/// whether `skillhost.toml` grants it.
fn asks_more(old: &Manifest, new: &Manifest, provider: &ProviderConfig) -> Vec<String> {
    let mut out = Vec::new();
    let added: Vec<&String> = new
        .origins
        .iter()
        .filter(|o| !old.origins.contains(o))
        .collect();
    for origin in &added {
        let granted = if provider.origins.contains(origin) {
            "skillhost.toml grants it"
        } else {
            "skillhost.toml does not grant it; add it to origins to let it"
        };
        out.push(format!("it asks for one more origin: {origin} ({granted})"));
    }
    if rank(new.roots) > rank(old.roots) {
        out.push(format!(
            "it asks for more of the roots: {} before, {} now",
            old.roots.as_str(),
            new.roots.as_str()
        ));
    }
    for setting in &new.settings {
        match old.settings.iter().find(|s| s.key == setting.key) {
            None => out.push(format!(
                "it asks for a new setting: {}{}",
                setting.key,
                if setting.required { " (required)" } else { "" }
            )),
            Some(before) if setting.required && !before.required => {
                out.push(format!("its setting {} is now required", setting.key));
            }
            Some(_) => {}
        }
    }
    if out.is_empty() {
        out.push("it asks for nothing more".to_string());
    }
    out
}

/// The manifest's lines that went (`-`) and came (`+`).
fn differences(old: &Manifest, new: &Manifest) -> Vec<String> {
    let (old, new) = (old.lines(), new.lines());
    let gone = old
        .iter()
        .filter(|l| !new.contains(l))
        .map(|l| format!("- {l}"));
    let came = new
        .iter()
        .filter(|l| !old.contains(l))
        .map(|l| format!("+ {l}"));
    gone.chain(came).collect()
}

/// `text` with the provider table at `found.line` pointing at the new
/// version: its `oci`, `wasm` and `sha256` lines rewritten, nothing else.
fn repin(text: &str, found: &Found) -> Result<String> {
    let Some(file) = found.stored.to_str() else {
        bail!("{}: the path is not UTF-8", found.stored.display());
    };
    let mut out = Vec::new();
    let mut rewritten = 0;
    // The table runs from its header to the next header.
    let mut in_table = false;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let trimmed = line.trim_start();
        if index + 1 == found.line {
            in_table = true;
            out.push(line.to_string());
            continue;
        }
        if trimmed.starts_with('[') {
            in_table = false;
        }
        let key = trimmed
            .split_once('=')
            .map(|(k, _)| k.trim())
            .filter(|_| in_table);
        let value = match key {
            Some("oci") => Some(oci::quoted(&found.reference.to_string())),
            Some("wasm") => Some(oci::quoted(file)),
            Some("sha256") => Some(format!("\"{}\"", found.sha256)),
            _ => None,
        };
        match (key, value) {
            (Some(key), Some(value)) => {
                rewritten += 1;
                out.push(format!("{key} = {value}\n"));
            }
            _ => out.push(line.to_string()),
        }
    }
    if rewritten != 3 {
        bail!("its table does not have one oci, one wasm and one sha256 line");
    }
    Ok(out.concat())
}

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;
