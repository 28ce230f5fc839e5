//! [`Session`]: the one type an agent host holds for a conversation. It
//! joins a registry, the session's log and its working folder, and runs
//! the three things a host does each turn: inject the listing, report the
//! files its tools touched, and invoke the skills the model or the user
//! asks for, recording each invocation when a usage store is attached.

use super::activation::{self, Activation};
use super::inject::{Injector, Outcome, visible_to_model};
use super::invoke::{self, Caller, Invocation, Request};
use super::log::SessionLog;
use super::render::{Listing, RenderOptions};
use super::search;
use super::usage::Usage;
use crate::error::Error;
use crate::model::Catalog;
use crate::registry::Registry;
use crate::runtime::Runtime;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One conversation: its registry, event log, working folder and, if
/// attached, the usage store that ranks its listing and hears its
/// invocations.
///
/// ```
/// use skillhost::session::MemoryLog;
/// use skillhost::session::invoke::{Caller, Invocation};
/// use skillhost::{Runtime, Session};
///
/// # let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills");
/// # let project = tempfile::tempdir()?;
/// let runtime = Runtime::new()?;
/// let registry = runtime.registry_for_roots(&[root])?; // e.g. "examples/skills"
/// let mut session = Session::new(&runtime, registry, project.path(), MemoryLog::default())?
///     .with_id("s-1");
///
/// // Each step: a full replacement only if the model's view changed.
/// assert_eq!(session.inject()?.as_str(), "published");
/// assert_eq!(session.inject()?.as_str(), "unchanged");
///
/// // After the agent's tools wrote a file: conditional skills it matches
/// // become available, and the reminder (if any) goes into the tool result.
/// std::fs::write(project.path().join("notes.md"), "# notes")?;
/// let touched = session.touch(&["notes.md".into()])?;
/// let _for_the_tool_result = touched.reminder;
///
/// // The model calls the Skill tool.
/// match session.invoke("writing-skill-md", &[], Caller::Model)? {
///     Invocation::Inline { text, .. } => assert!(text.contains("description")),
///     Invocation::Fork(plan) => println!("run {} in a sub-agent", plan.skill),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Session<'r, L: SessionLog> {
    runtime: &'r Runtime,
    registry: Arc<Registry>,
    cwd: PathBuf,
    log: L,
    id: String,
    render: RenderOptions,
    usage: Option<Arc<dyn Usage>>,
    warnings: Vec<String>,
}

impl<'r, L: SessionLog> Session<'r, L> {
    /// A session over `registry` in the folder `cwd`, recording into `log`.
    /// A log that already holds a session resumes it: the nested roots it
    /// discovered are registered again.
    pub fn new(
        runtime: &'r Runtime,
        registry: impl Into<Arc<Registry>>,
        cwd: impl AsRef<Path>,
        log: L,
    ) -> Result<Self, Error> {
        let registry = registry.into();
        let cwd = std::fs::canonicalize(cwd.as_ref()).unwrap_or_else(|_| cwd.as_ref().into());
        activation::register_discovered(runtime, &registry, &cwd, &log)?;
        Ok(Session {
            runtime,
            registry,
            cwd,
            log,
            id: String::new(),
            render: RenderOptions::default(),
            usage: None,
            warnings: Vec::new(),
        })
    }

    /// The session's id, as skill bodies see it in `${SESSION_ID}`.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = id.into();
        self
    }

    /// The listing's entry cap and character budget.
    pub fn with_render(mut self, render: RenderOptions) -> Self {
        self.render = render;
        self
    }

    /// Ranks the listing by `usage`'s scores and records every invocation
    /// into it.
    pub fn with_usage(mut self, usage: Arc<dyn Usage>) -> Self {
        self.usage = Some(usage);
        self
    }

    /// The registry the session reads.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The session's event log.
    pub fn log(&self) -> &L {
        &self.log
    }

    /// The folder the session works in (canonical when it exists).
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// What went wrong on the side since the last call: a usage store that
    /// could not be read or written. The session went on without it.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn warn(&mut self, what: &str, e: &dyn std::fmt::Display) {
        let message = format!("{what}: {e}");
        tracing::warn!("{message}");
        self.warnings.push(message);
    }

    /// The injector for `catalog`, ranked by the usage store's scores of
    /// that same catalog.
    fn injector(&mut self, catalog: &Catalog) -> Injector {
        let scores = match self.usage.as_ref().map(|u| u.scores(catalog)) {
            Some(Ok(scores)) => Some(Arc::new(scores)),
            Some(Err(e)) => {
                // The listing matters more than its order.
                self.warn("usage scores not used", &e);
                None
            }
            None => None,
        };
        Injector {
            options: self.render,
            scores,
            ..Injector::default()
        }
    }

    /// The listing the model would be given now (what [`Session::inject`]
    /// publishes when it changed).
    pub fn listing(&mut self) -> Listing {
        let activated = activation::activated(&self.log);
        let catalog = self.registry.snapshot();
        self.injector(&catalog).listing(&catalog, &activated)
    }

    /// Page `page` (from 1) of the skills the model may see now that match
    /// `query` (every word, in name, description or `when_to_use`), in the
    /// listing's rank order: the way a model reaches the skills a listing
    /// cut for its budget left out. Returns the page as the model reads it.
    pub fn search(&mut self, query: &str, page: usize) -> String {
        let activated = activation::activated(&self.log);
        let catalog = self.registry.snapshot();
        let scores = self.injector(&catalog).scores.unwrap_or_default();
        let visible = visible_to_model(&catalog, &activated);
        let found = search::search(&visible, &scores, query, page, search::PER_PAGE);
        found.text(self.render.entry_cap, |next| format!("page {next}"))
    }

    /// Publishes the listing into the log as a full replacement, only if
    /// the model's view changed since the last one. Each turn counts as a
    /// use of the session's project, so a watcher shared by many projects
    /// keeps watching the ones in use (see [`Registry::resume_watching`]).
    pub fn inject(&mut self) -> Result<Outcome, Error> {
        self.registry.resume_watching();
        let catalog = self.registry.snapshot();
        self.injector(&catalog).replace(&catalog, &mut self.log)
    }

    /// Publishes only what changed for `agent` since it was last told.
    pub fn inject_delta(&mut self, agent: &str) -> Result<Outcome, Error> {
        self.registry.resume_watching();
        let catalog = self.registry.snapshot();
        self.injector(&catalog)
            .delta(&catalog, agent, &mut self.log)
    }

    /// The agent's tools touched `paths` (relative ones are under the
    /// session's folder): the providers holding them re-read before this
    /// returns, nested skill roots below them are registered, and the
    /// conditional skills they match are activated.
    pub fn touch(&mut self, paths: &[PathBuf]) -> Result<Activation, Error> {
        let touched: Vec<PathBuf> = paths
            .iter()
            .map(|p| {
                let p = self.cwd.join(p);
                std::fs::canonicalize(&p).unwrap_or(p)
            })
            .collect();
        self.registry.resume_watching();
        self.registry.observe_paths(&touched)?;
        activation::touch(
            self.runtime,
            &self.registry,
            &self.cwd,
            &touched,
            &mut self.log,
            self.render,
        )
    }

    /// Runs the skill `name` (or an alias) for `caller` with `args`, and
    /// records the invocation in the usage store if one is attached (a
    /// store that cannot be written costs a warning, never the invocation).
    pub fn invoke(
        &mut self,
        name: &str,
        args: &[String],
        caller: Caller,
    ) -> Result<Invocation, Error> {
        let request = Request {
            name,
            args,
            caller,
            session_id: &self.id,
            max_steps: None,
        };
        let result = invoke::invoke(&self.registry, &request, &activation::activated(&self.log));
        let unrecorded = self.usage.as_ref().and_then(|usage| {
            usage
                .record(&self.registry.snapshot(), &request, &result)
                .err()
        });
        if let Some(e) = unrecorded {
            self.warn("usage not recorded", &e);
        }
        result
    }
}
