//! `skillhost update [ID]`: the tags of providers added from a registry,
//! resolved again. For each, the old and new digest and how the two
//! manifests differ; a version that asks for more (a root, an origin, a
//! setting) says so in words. Nothing is re-pinned without approval, and
//! `--check` changes nothing and exits 1 when an update exists.

use super::oci;
use crate::args::{RegistryArgs, StateArgs};
use crate::output::print_json;
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
    /// `--json`: each provider's outcome on stdout as JSON.
    pub json: bool,
}

/// A new version found for one provider, ready to be pinned.
struct Found {
    line: usize,
    reference: ComponentRef,
    sha256: String,
    stored: PathBuf,
    component: Vec<u8>,
}

/// What was found for one provider.
enum Outcome {
    /// Its tag still names the pinned digest.
    UpToDate(ComponentRef),
    /// Pinned to a digest with no tag, so there is nothing to follow.
    DigestOnly(ComponentRef),
    /// Its tag names a new version.
    New(Box<Update>),
}

/// A new version and how it differs from the pinned one.
struct Update {
    /// The tag followed.
    follow: ComponentRef,
    /// The digest pinned now.
    pinned: Option<Digest>,
    /// The digest the tag names now.
    now: Digest,
    /// What it asks for that the pinned one did not, in words.
    asks: Vec<String>,
    /// The manifest lines that went (`- `) and came (`+ `).
    changes: Vec<String>,
    /// Ready to be pinned.
    found: Found,
}

impl Outcome {
    /// The outcome as lines for a person.
    fn text(&self, id: &str) -> Vec<String> {
        let e = skillhost::text::escaped;
        match self {
            Outcome::UpToDate(pinned) => vec![format!("{}: up to date ({pinned})", e(id))],
            Outcome::DigestOnly(_) => vec![format!(
                "{}: pinned to a digest only; there is no tag to follow",
                e(id)
            )],
            Outcome::New(u) => {
                let mut out = vec![
                    format!("{}: {} has a new version", e(id), u.follow),
                    format!(
                        "  pinned  {}",
                        u.pinned
                            .as_ref()
                            .map_or_else(String::new, Digest::to_string)
                    ),
                    format!("  now     {}", u.now),
                ];
                out.extend(
                    u.asks
                        .iter()
                        .chain(&u.changes)
                        .map(|l| format!("  {}", e(l))),
                );
                out
            }
        }
    }

    /// The outcome as JSON; `repinned` says whether it was pinned anew.
    fn json(&self, id: &str, repinned: bool) -> serde_json::Value {
        match self {
            Outcome::UpToDate(pinned) => serde_json::json!({
                "id": id, "status": "up-to-date", "pinned": pinned.to_string(),
            }),
            Outcome::DigestOnly(pinned) => serde_json::json!({
                "id": id, "status": "digest-only", "pinned": pinned.to_string(),
            }),
            Outcome::New(u) => serde_json::json!({
                "id": id,
                "status": "new",
                "follows": u.follow.to_string(),
                "pinned": u.pinned.as_ref().map(Digest::to_string),
                "now": u.now.to_string(),
                "reference": u.found.reference.to_string(),
                "sha256": u.found.sha256,
                "asks": u.asks,
                "changes": u.changes,
                "repinned": repinned,
            }),
        }
    }
}

pub fn run(args: Args<'_>) -> Result<ExitCode> {
    let path = oci::config_path(args.config)?;
    if !path.exists() {
        bail!(
            "{}: no such file, so no provider was added from a registry here (`skillhost add` writes one; --config names another)",
            path.display()
        );
    }
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
                if args.json {
                    print_json(&serde_json::json!({"config": path, "providers": []}))?;
                } else {
                    println!("{}: no provider was added from a registry", path.display());
                }
                return Ok(ExitCode::SUCCESS);
            }
        }
    }
    let runtime = Runtime::new().context("cannot start the sandbox")?;
    let (state, store) = oci::state(args.state)?;
    // One provider's registry failing leaves the others to be checked.
    let mut outcomes: Vec<(String, Result<Outcome, String>)> = Vec::new();
    for provider in followed {
        let outcome =
            check_one(&runtime, &store, provider, args.registry).map_err(|e| format!("{e:#}"));
        match &outcome {
            Ok(o) if !args.json => println!("{}", o.text(&provider.id).join("\n")),
            Err(e) => eprintln!(
                "{}: cannot check for an update: {e}",
                skillhost::text::escaped(&provider.id)
            ),
            Ok(_) => {}
        }
        outcomes.push((provider.id.clone(), outcome));
    }
    let failed = outcomes.iter().any(|(_, o)| o.is_err());
    let new = outcomes
        .iter()
        .filter(|(_, o)| matches!(o, Ok(Outcome::New(_))))
        .count();
    let mut repinned = Vec::new();
    if !args.check && new > 0 {
        repinned = repin_approved(&runtime, &store, &state, &path, &outcomes, &args)?;
    }
    if args.json {
        let providers: Vec<serde_json::Value> = outcomes
            .iter()
            .map(|(id, o)| match o {
                Ok(o) => o.json(id, repinned.contains(id)),
                Err(e) => serde_json::json!({"id": id, "status": "error", "error": e}),
            })
            .collect();
        print_json(&serde_json::json!({"config": path, "providers": providers}))?;
    } else {
        for id in &repinned {
            if let Some((_, Ok(Outcome::New(u)))) = outcomes.iter().find(|(i, _)| i == id) {
                println!(
                    "re-pinned {} to {}",
                    skillhost::text::escaped(id),
                    u.found.reference
                );
            }
        }
    }
    // --check: 1 when an update exists. Otherwise 1 when one was left
    // unpinned (not approved) or a registry could not be asked.
    let code = if args.check {
        new > 0 || failed
    } else {
        repinned.len() < new || failed
    };
    Ok(ExitCode::from(u8::from(code)))
}

/// Asks about each new version, writes the approved ones into
/// `skillhost.toml` at once, and precompiles them. Returns their ids.
fn repin_approved(
    runtime: &Runtime,
    store: &skillhost_oci::Store,
    state: &Path,
    path: &Path,
    outcomes: &[(String, Result<Outcome, String>)],
    args: &Args<'_>,
) -> Result<Vec<String>> {
    let mut text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut approved = Vec::new();
    for (id, outcome) in outcomes {
        let Ok(Outcome::New(u)) = outcome else {
            continue;
        };
        let question = format!(
            "Re-pin {} to {}?",
            skillhost::text::escaped(id),
            u.found.reference
        );
        if !oci::confirm(&question, args.yes)? {
            continue;
        }
        store.put(&u.found.component)?;
        text = repin(&text, &u.found).with_context(|| {
            format!("cannot re-pin {id} in {}: edit it by hand", path.display())
        })?;
        approved.push((id.clone(), &u.found));
    }
    if approved.is_empty() {
        return Ok(Vec::new());
    }
    let written = oci::write_config(path, &text, state)?;
    for (id, found) in &approved {
        let now = written.providers.iter().find(|p| &p.id == id);
        if now.and_then(|p| p.sha256.as_deref()) != Some(found.sha256.as_str()) {
            bail!(
                "{}: {id} was not re-pinned; edit it by hand",
                path.display()
            );
        }
        runtime
            .engine()
            .load(&found.component)
            .context("cannot precompile the component")?;
    }
    Ok(approved.into_iter().map(|(id, _)| id).collect())
}

/// Resolves one provider's tag; when it moved, pulls the new version and
/// works out how it differs.
fn check_one(
    runtime: &Runtime,
    store: &skillhost_oci::Store,
    provider: &ProviderConfig,
    registry: &RegistryArgs,
) -> Result<Outcome> {
    let pinned = ComponentRef::parse(provider.oci.as_deref().unwrap_or_default())?;
    let Some(follow) = pinned.unpinned() else {
        return Ok(Outcome::DigestOnly(pinned));
    };
    let (client, credentials) = oci::client(&follow, registry)?;
    let resolved = oci::block_on(client.resolve(&follow, &credentials))??;
    if pinned.digest.as_ref() == Some(&resolved.digest) {
        return Ok(Outcome::UpToDate(pinned));
    }
    let new = follow.pinned(resolved.digest.clone());
    let pulled = oci::block_on(client.pull(&new, &credentials))??;
    let checked = oci::check(runtime, &new.to_string(), &pulled.component)?;
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
    let (asks, changes) = match (&old, &checked.declared) {
        (Ok(Some(old)), Ok(Some(new))) => (asks_more(old, new, provider), differences(old, new)),
        (_, Ok(None)) => (
            vec!["the new version declares nothing (a 0.1.0 component)".to_string()],
            Vec::new(),
        ),
        (_, Err(e)) | (Err(e), _) => (
            vec![format!("its manifest cannot be compared: {e}")],
            Vec::new(),
        ),
        (Ok(None), Ok(Some(new))) => (
            vec![
                "the pinned version declares nothing (a 0.1.0 component); the new one declares:"
                    .to_string(),
            ],
            new.lines().iter().map(|l| format!("+ {l}")).collect(),
        ),
    };
    Ok(Outcome::New(Box::new(Update {
        follow,
        pinned: pinned.digest.clone(),
        now: resolved.digest,
        asks,
        changes,
        found: Found {
            line: provider.line,
            reference: new,
            sha256: checked.description.sha256.clone(),
            stored: store.path(&pulled.resolved.manifest.layer),
            component: pulled.component,
        },
    })))
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
