//! The requests that reach a provider: reading a file, refreshing one
//! skill's entry, and invoking a skill for the user (a prompt) or the
//! model (the `skill` tool). Provider calls block, so each runs on
//! tokio's blocking pool.

use crate::content;
use crate::entry::{self, Entry, FileEntry};
use crate::live::Live;
use rmcp::ErrorData as McpError;
use rmcp::model::ResourceContents;
use skillhost::session::invoke::{self, Caller, Invocation, Request};
use skillhost::{Error, Registry};
use skillhost_usage::record::record_invoke;
use std::collections::BTreeSet;
use std::sync::Arc;

/// Runs blocking registry work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, McpError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| McpError::internal_error(format!("the call did not finish: {e}"), None))
}

fn unknown_resource(uri: &str) -> McpError {
    McpError::resource_not_found(
        format!("No resource is served at {uri}"),
        Some(serde_json::json!({ "uri": uri })),
    )
}

/// The entry of the skill `name` as its provider sees it now.
fn fresh_entry(registry: &Registry, name: &str) -> Option<Entry> {
    let catalog = registry.snapshot();
    let skill = catalog.get(name)?;
    let provider = registry.provider(&skill.source)?;
    entry::build(
        registry,
        skill,
        provider.namespace(),
        provider.signals().generation(),
    )
    .ok()
}

/// `skills/get`: the entry of the skill at `uri`, its files listed again
/// now (a client whose copy failed to verify gets the current digests).
pub async fn get_skill(live: &Arc<Live>, uri: &str) -> Result<Entry, McpError> {
    let missing = || McpError::invalid_params(format!("No skill is served at {uri}"), None);
    let name = live.view().entry(uri).ok_or_else(missing)?.name.clone();
    let registry = live.registry().clone();
    let entry = blocking(move || fresh_entry(&registry, &name))
        .await?
        .ok_or_else(missing)?;
    if entry.uri != uri {
        return Err(missing());
    }
    Ok(entry)
}

/// `resources/read`: the bytes of the file at `uri`, read again from its
/// provider. Only URIs the provider listed are answered: first from the
/// view, then (a file just added) from the skill's listing asked again.
pub async fn read(live: &Arc<Live>, uri: &str) -> Result<ResourceContents, McpError> {
    let view = live.view();
    let (name, file) = match view.file(uri) {
        Some((entry, file)) => (entry.name.clone(), file.clone()),
        None => {
            let name = view
                .entry_under(uri)
                .ok_or_else(|| unknown_resource(uri))?
                .name
                .clone();
            let registry = live.registry().clone();
            let lookup = name.clone();
            let fresh = blocking(move || fresh_entry(&registry, &lookup)).await?;
            let file: Option<FileEntry> =
                fresh.and_then(|e| e.files.into_iter().find(|f| f.uri == uri));
            (name, file.ok_or_else(|| unknown_resource(uri))?)
        }
    };
    let max = live.options().max_read_bytes;
    too_large(uri, file.size, max)?;
    let registry = live.registry().clone();
    let path = file.path.clone();
    let bytes = blocking(move || registry.read_resource(&name, &path))
        .await?
        .map_err(|e| match e {
            Error::UnknownSkill { .. } | Error::Provider { .. } => unknown_resource(uri),
            other => McpError::internal_error(format!("{uri} could not be read: {other}"), None),
        })?;
    // A provider may answer more than it listed.
    too_large(uri, bytes.len() as u64, max)?;
    Ok(content::contents(uri, file.mime, bytes))
}

/// Refuses a read of `size` bytes over the server's `max`.
fn too_large(uri: &str, size: u64, max: u64) -> Result<(), McpError> {
    if size <= max {
        return Ok(());
    }
    Err(McpError::invalid_request(
        format!(
            "{uri} is {size} bytes; this server sends at most {max} bytes in one resources/read"
        ),
        Some(serde_json::json!({ "uri": uri, "size": size, "max": max })),
    ))
}

/// Why an invocation was refused, as the command line says it.
pub enum Refusal {
    /// No such skill (or not one this caller may see).
    Unknown(String),
    /// The skill may not be invoked by this caller.
    Refused(String),
    /// The skill could not be read.
    Failed(String),
}

/// Invokes a skill exactly as `skillhost invoke NAME ARGS --as user|model`
/// does with no session: the expanded text for an inline skill, the fork
/// plan as indented JSON for a fork skill. `session` is the MCP session's
/// id (empty on stdio), recorded with the invocation when usage is.
pub async fn invoke(
    live: &Arc<Live>,
    name: String,
    args: Vec<String>,
    caller: Caller,
    session: String,
) -> Result<Result<String, Refusal>, McpError> {
    let registry = live.registry().clone();
    let usage = live.options().usage.clone();
    let view = live.view();
    let root = view
        .catalog
        .resolve(&name)
        .and_then(|skill| view.entry_named(skill.name()))
        .map(|entry| entry.root.clone());
    blocking(move || {
        let request = Request {
            name: &name,
            args: &args,
            caller,
            session_id: &session,
            max_steps: None,
        };
        let result = invoke::invoke(&registry, &request, &BTreeSet::new());
        // Recording must not cost the client the invocation: a store that
        // cannot be written is logged and the answer goes out.
        if let Some(store) = usage
            && let Err(e) = record_invoke(&store, &registry.snapshot(), &request, &result)
        {
            tracing::warn!(skill = %name, "usage not recorded: {e}");
        }
        match result {
            // The skill's files as the URIs resources/read serves.
            Ok(invocation @ Invocation::Inline { .. }) => {
                Ok(invocation.message(|rel| match &root {
                    Some(root) => crate::uri::file_uri(root, rel),
                    None => rel.to_string(),
                }))
            }
            Ok(fork @ Invocation::Fork(_)) => Ok(fork.message(str::to_string)),
            Err(e @ (Error::UnknownSkill { .. } | Error::NotActive { .. })) => {
                Err(Refusal::Unknown(e.to_string()))
            }
            Err(e @ Error::Refused { .. }) => Err(Refusal::Refused(e.to_string())),
            Err(e) => Err(Refusal::Failed(e.to_string())),
        }
    })
    .await
}
