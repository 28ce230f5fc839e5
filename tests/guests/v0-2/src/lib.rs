//! A provider built for the frozen `skillhost:provider@0.2.0` contract
//! (`wit/v0.2.0`) with its own bindings, on purpose without the
//! guest SDK (which follows the newest contract): it proves a component
//! built for 0.2.0 keeps working on a later host.
//!
//! It serves the `<name>/SKILL.md` bundles of its first root, read through
//! WASI, with every frontmatter field filled in by hand as 0.2.0 asks (the
//! shared parser's own normalisation), and its JSON. The first half of a
//! snapshot's entries are sent ahead with `emit-skills`. The setting
//! `description = <text>` overrides every typed description, so a test can
//! tell the typed fields were kept as given rather than derived from the
//! JSON.

#[allow(missing_docs, clippy::all)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../../wit/v0.2.0",
        world: "skill-provider",
    });
}

use bindings::exports::skillhost::provider::provider::Guest;
use bindings::skillhost::provider::host;
use bindings::skillhost::provider::types::{
    ChangeEvent, Diagnostic, Frontmatter as WitFrontmatter, InvocationContext, Need, Observation,
    ProviderConfig, ProviderError, ProviderManifest, Resource, Severity, SkillDocument, SkillEntry,
    SnapshotRequest,
};
use skillhost_skill::frontmatter::{Context, Frontmatter, parse_document_json};
use std::cell::RefCell;

struct State {
    root: String,
    description: Option<String>,
}

thread_local! {
    static STATE: RefCell<Option<State>> = const { RefCell::new(None) };
}

fn typed(f: Frontmatter, json: String, description: &Option<String>) -> WitFrontmatter {
    WitFrontmatter {
        json,
        raw: f.raw,
        name: f.name,
        description: description.clone().or(f.description),
        when_to_use: f.when_to_use,
        argument_hint: f.argument_hint,
        context: match f.context {
            Context::Inline => InvocationContext::Inline,
            Context::Fork => InvocationContext::Fork,
        },
        model: f.model,
        effort: f.effort,
        allowed_tools: f.allowed_tools,
        user_invocable: f.user_invocable,
        disable_model_invocation: f.disable_model_invocation,
        paths: f.paths,
        aliases: f.aliases,
        version: f.version,
        agent: f.agent,
        pinned: f.pinned,
        license: f.license,
        compatibility: f.compatibility,
        metadata: f.metadata,
    }
}

/// Every bundle of the root, parsed: entries and the documents' bodies.
fn scan(state: &State) -> (Vec<(SkillEntry, String)>, Vec<Diagnostic>) {
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut folders: Vec<String> = std::fs::read_dir(&state.root)
        .map(|dir| {
            dir.filter_map(Result::ok)
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    folders.sort();
    for folder in folders {
        let path = format!("{}/{folder}/SKILL.md", state.root);
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        match parse_document_json(&bytes, &folder) {
            Ok((doc, json)) => {
                let body = doc.body.to_string();
                let entry = SkillEntry {
                    frontmatter: typed(doc.frontmatter, json, &state.description),
                    path,
                    base: format!("{}/{folder}", state.root),
                };
                found.push((entry, body));
            }
            Err(finding) => problems.push(Diagnostic {
                severity: Severity::Error,
                path,
                line: finding.line,
                field: finding.field,
                message: finding.message,
            }),
        }
    }
    (found, problems)
}

fn with<R>(f: impl FnOnce(&State) -> R) -> Option<R> {
    STATE.with(|s| s.borrow().as_ref().map(f))
}

fn find(name: &str) -> Result<(SkillEntry, String), ProviderError> {
    with(|state| scan(state).0)
        .unwrap_or_default()
        .into_iter()
        .find(|(e, _)| e.frontmatter.name == name)
        .ok_or_else(|| ProviderError::NotFound(name.to_string()))
}

struct V02;

impl Guest for V02 {
    fn manifest() -> ProviderManifest {
        ProviderManifest {
            summary: "A 0.2.0 component serving the bundles of its root".to_string(),
            roots: Need::Required,
            origins: Vec::new(),
            settings: Vec::new(),
        }
    }

    fn init(config: ProviderConfig) -> Result<(), ProviderError> {
        let description = config
            .settings
            .iter()
            .find(|(k, _)| k == "description")
            .map(|(_, v)| v.clone());
        let root = config.roots.first().cloned().unwrap_or_default();
        STATE.with(|s| *s.borrow_mut() = Some(State { root, description }));
        Ok(())
    }

    fn snapshot(_request: SnapshotRequest) -> Observation {
        let (found, diagnostics) = with(scan).unwrap_or_default();
        let mut entries: Vec<SkillEntry> = found.into_iter().map(|(e, _)| e).collect();
        let rest = entries.split_off(entries.len() / 2);
        host::emit_skills(&entries);
        Observation {
            epoch: 1,
            base: None,
            skills: rest,
            removed: Vec::new(),
            diagnostics,
            complete: true,
        }
    }

    fn load(name: String) -> Result<SkillDocument, ProviderError> {
        let (entry, body) = find(&name)?;
        Ok(SkillDocument { entry, body })
    }

    fn list_resources(name: String) -> Result<Vec<Resource>, ProviderError> {
        let (entry, _) = find(&name)?;
        let bytes = std::fs::read(&entry.path).map_err(|e| ProviderError::Io(e.to_string()))?;
        Ok(vec![Resource {
            path: "SKILL.md".to_string(),
            size: bytes.len() as u64,
            digest: skillhost_skill::digest::sha256(&bytes),
        }])
    }

    fn read_resource(name: String, path: String) -> Result<Vec<u8>, ProviderError> {
        let (entry, _) = find(&name)?;
        if path != "SKILL.md" {
            return Err(ProviderError::NotFound(path));
        }
        std::fs::read(&entry.path).map_err(|e| ProviderError::Io(e.to_string()))
    }

    fn read_resource_range(
        name: String,
        path: String,
        offset: u64,
        len: u64,
    ) -> Result<Vec<u8>, ProviderError> {
        let bytes = Self::read_resource(name, path)?;
        Ok(bytes[skillhost_skill::reads::range_within(bytes.len(), offset, len)].to_vec())
    }

    fn on_change(events: Vec<ChangeEvent>) {
        if !events.is_empty() {
            host::invalidate_provider();
        }
    }

    fn observe(paths: Vec<String>) {
        if !paths.is_empty() {
            host::invalidate_provider();
        }
    }
}

bindings::export!(V02 with_types_in bindings);
