//! A provider that tests the sandbox from the inside.
//!
//! It is written against the frozen `skillhost:provider@0.1.0` contract
//! (`wit/v0.1.0`) with its own bindings and without the guest
//! SDK, on purpose: the SDK follows the newest contract, and this
//! component proves that one built for 0.1.0 keeps working.
//!
//! `snapshot` attempts things a provider must not be able to do and reports
//! each outcome as a diagnostic whose path names the attempt and whose
//! message starts with `allowed` or `denied`. Settings make exports
//! misbehave on purpose: `loop = <export>` spins forever in that export,
//! `trap = <export>` panics in it, `fail-if-exists = <file>` makes
//! `snapshot` panic while that file exists in the first root, and
//! `invalidate-during-snapshot = <n>` makes the first n snapshots invalidate
//! the provider while they run. `load("probe")` answers its one skill.
//!
//! `serve = tree` makes it a small filesystem provider of its first root
//! instead (see [`tree`]): no attempts and no `probe` skill, but the
//! bundles there, loaded and listed with their files, so tests can hold it
//! against the first-party local provider. The misbehaviour settings apply
//! in that mode too (`loop` and `trap` also name `list-resources` and
//! `read-resource`, which only that mode answers).

#[allow(missing_docs, clippy::all)]
mod bindings {
    wit_bindgen::generate!({
        path: "../../../wit/v0.1.0",
        world: "skill-provider",
    });
}

pub mod tree;

use bindings::exports::skillhost::provider::provider::Guest;
use bindings::skillhost::provider::host;
use bindings::skillhost::provider::types::{
    ChangeEvent, Diagnostic, Frontmatter as WitFrontmatter, InvocationContext, Observation,
    ProviderConfig, ProviderError, Resource, Severity, SkillDocument, SkillEntry, SnapshotRequest,
};
use skillhost_skill::frontmatter::{Context, Frontmatter};
use std::cell::RefCell;
use std::hint::black_box;

/// The probe's state: its roots, its settings and how many snapshots it took.
pub struct Probe {
    roots: Vec<String>,
    settings: Vec<(String, String)>,
    snapshots: u32,
    /// Set by `serve = tree`: what it serves of its first root.
    tree: Option<tree::Tree>,
}

impl Probe {
    fn setting(&self, key: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Misbehaves in `export` if the settings say so.
    fn misbehave(settings: &[(String, String)], export: &str) {
        let wants = |key: &str| settings.iter().any(|(k, v)| k == key && v == export);
        if wants("loop") {
            let mut n: u64 = 0;
            loop {
                n = black_box(n.wrapping_add(1));
            }
        }
        if wants("trap") {
            panic!("probe asked to trap in {export}");
        }
    }

    /// Its first root, where its skill lives and its attempts are made.
    fn root(&self) -> String {
        self.roots.first().cloned().unwrap_or_default()
    }

    /// Its one skill, placed in its first root.
    fn entry(&self) -> SkillEntry {
        let root = self.root();
        let mut frontmatter = Frontmatter::defaults("probe");
        frontmatter.description = Some("Reports what the sandbox let it do".to_string());
        SkillEntry {
            frontmatter: to_wit_frontmatter(frontmatter),
            path: format!("{root}/probe/SKILL.md"),
            base: format!("{root}/probe"),
        }
    }

    fn init(config: ProviderConfig) -> Result<Probe, ProviderError> {
        Probe::misbehave(&config.settings, "init");
        let mut probe = Probe {
            roots: config.roots,
            settings: config.settings,
            snapshots: 0,
            tree: None,
        };
        match probe.setting("serve") {
            None => {}
            Some("tree") => probe.tree = Some(tree::Tree::new(probe.root())),
            Some(other) => {
                return Err(ProviderError::Invalid(format!(
                    "serve = {other:?}: the probe serves only `tree`"
                )));
            }
        }
        Ok(probe)
    }

    fn snapshot(&mut self, _request: SnapshotRequest) -> Observation {
        Probe::misbehave(&self.settings, "snapshot");
        self.snapshots += 1;
        let restless: u32 = self
            .setting("invalidate-during-snapshot")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if self.snapshots <= restless {
            // As if a change arrived while discovery was running.
            host::invalidate_provider();
        }
        let root = self.root();
        if let Some(flag) = self.setting("fail-if-exists")
            && std::fs::metadata(format!("{root}/{flag}")).is_ok()
        {
            panic!("probe found {flag} and fails as asked");
        }
        if let Some(tree) = &mut self.tree {
            return tree.snapshot();
        }
        let outside = self
            .setting("outside")
            .unwrap_or("/etc/hostname")
            .to_string();
        let diagnostics = vec![
            outcome(
                "write-in-root",
                std::fs::write(format!("{root}/written-by-probe.txt"), b"x"),
            ),
            outcome(
                "create-dir-in-root",
                std::fs::create_dir(format!("{root}/probe-dir")),
            ),
            outcome("read-in-root", std::fs::read(format!("{root}/inside.txt"))),
            outcome("read-outside", std::fs::read(&outside)),
            outcome(
                "read-parent-of-root",
                std::fs::read(format!("{root}/../outside.txt")),
            ),
            outcome("list-filesystem-root", std::fs::read_dir("/")),
            outcome(
                "environment",
                match std::env::vars().count() {
                    0 => Err("empty"),
                    _ => Ok(()),
                },
            ),
        ];
        full_observation(vec![self.entry()], diagnostics, true)
    }

    fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
        Probe::misbehave(&self.settings, "load");
        if let Some(tree) = &mut self.tree {
            return tree.load(name);
        }
        if name != "probe" {
            return Err(ProviderError::NotFound(name.to_string()));
        }
        Ok(SkillDocument {
            entry: self.entry(),
            body: "Reports what the sandbox let it do.\n".to_string(),
        })
    }

    fn list_resources(&mut self, name: &str) -> Result<Vec<Resource>, ProviderError> {
        Probe::misbehave(&self.settings, "list-resources");
        match &mut self.tree {
            Some(tree) => tree.list_resources(name),
            None => Err(ProviderError::Unsupported(format!(
                "list-resources of {name:?}: this provider does not list resources"
            ))),
        }
    }

    fn read_resource(&mut self, name: &str, path: &str) -> Result<Vec<u8>, ProviderError> {
        Probe::misbehave(&self.settings, "read-resource");
        match &mut self.tree {
            Some(tree) => tree.read_resource(name, path),
            None => Err(ProviderError::Unsupported(format!(
                "read-resource {path:?} of {name:?}: this provider does not serve resources"
            ))),
        }
    }
}

fn outcome<T, E: std::fmt::Display>(attempt: &str, result: Result<T, E>) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        path: attempt.to_string(),
        line: None,
        field: None,
        message: match result {
            Ok(_) => "allowed".to_string(),
            Err(e) => format!("denied: {e}"),
        },
    }
}

/// A complete (non-incremental) observation.
fn full_observation(
    skills: Vec<SkillEntry>,
    diagnostics: Vec<Diagnostic>,
    complete: bool,
) -> Observation {
    Observation {
        epoch: 0,
        base: None,
        skills,
        removed: Vec::new(),
        diagnostics,
        complete,
    }
}

/// The shared parser's frontmatter as the 0.1.0 WIT record.
fn to_wit_frontmatter(f: Frontmatter) -> WitFrontmatter {
    WitFrontmatter {
        raw: f.raw,
        name: f.name,
        description: f.description,
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

const NOT_INITIALISED: &str = "the provider was called before init";

thread_local! {
    // The exports are free functions; the one instance lives here from
    // `init` on.
    static INSTANCE: RefCell<Option<Probe>> = const { RefCell::new(None) };
}

fn with<R>(missing: impl FnOnce() -> R, f: impl FnOnce(&mut Probe) -> R) -> R {
    INSTANCE.with(|cell| match cell.borrow_mut().as_mut() {
        Some(probe) => f(probe),
        None => missing(),
    })
}

fn not_initialised() -> ProviderError {
    ProviderError::Invalid(NOT_INITIALISED.to_string())
}

/// The component's `provider` export.
pub struct Component;

impl Guest for Component {
    fn init(config: ProviderConfig) -> Result<(), ProviderError> {
        let probe = Probe::init(config)?;
        INSTANCE.with(|cell| *cell.borrow_mut() = Some(probe));
        Ok(())
    }

    fn snapshot(request: SnapshotRequest) -> Observation {
        let uninitialised = || {
            let diagnostic = Diagnostic {
                severity: Severity::Error,
                path: String::new(),
                line: None,
                field: None,
                message: NOT_INITIALISED.to_string(),
            };
            full_observation(Vec::new(), vec![diagnostic], false)
        };
        with(uninitialised, |p| p.snapshot(request))
    }

    fn load(name: String) -> Result<SkillDocument, ProviderError> {
        with(|| Err(not_initialised()), |p| p.load(&name))
    }

    fn list_resources(name: String) -> Result<Vec<Resource>, ProviderError> {
        with(|| Err(not_initialised()), |p| p.list_resources(&name))
    }

    fn read_resource(name: String, path: String) -> Result<Vec<u8>, ProviderError> {
        with(|| Err(not_initialised()), |p| p.read_resource(&name, &path))
    }

    fn on_change(events: Vec<ChangeEvent>) {
        // Any change may alter what it lists.
        if with(|| false, |_| !events.is_empty()) {
            host::invalidate_provider();
        }
    }

    fn observe(paths: Vec<String>) {
        if with(|| false, |_| !paths.is_empty()) {
            host::invalidate_provider();
        }
    }
}

// The exports exist only in the component: a native link of this cdylib
// (the workspace build) refuses their names (`...@0.1.0#init`) in its
// version script.
#[cfg(target_arch = "wasm32")]
bindings::export!(Component with_types_in bindings);
