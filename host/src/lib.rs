//! skillhost: serves agent skills from sandboxed WebAssembly providers.
//!
//! The host runs the registry, invalidation and catalog; every provider is a
//! component behind the `skillhost:provider@0.1.0` WIT contract, running in
//! wasmtime with only what it was granted. The modules are layers, each
//! using only those below it:
//!
//! - [`model`]: skills, diagnostics and catalogs, as plain data;
//! - [`sandbox`]: wasmtime, the compile cache, limits, grants and one file
//!   per host import — it knows nothing of providers;
//! - [`provider`]: one registered provider (lifecycle, backoff, boundary
//!   checks, deltas) and the first-party [`provider::sources`];
//! - [`registry`]: precedence, merge, invalidation, listeners, the host
//!   [`registry::watch`]er and the poller;
//! - [`session`]: what the model sees (rendering, injection into a session
//!   log, conditional activation) and invocation;
//! - [`config`] (`skillhost.toml`).
//!
//! Two layers above these are crates of their own, so an embedder who wants
//! neither builds neither: `skillhost-publish` (validation, mirrors) and
//! `skillhost-usage` (the SQLite usage store, scores, the curator, the idle
//! runner and skills learned from repeated tool sequences).
//!
//! The `SKILL.md` format itself lives in the `skillhost-skill` crate, shared
//! with the provider components.
//!
//! ```
//! use skillhost::Runtime;
//!
//! # let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills");
//! let runtime = Runtime::new()?;
//! let registry = runtime.registry_for_roots(&[root])?; // e.g. "examples/skills"
//! let catalog = registry.snapshot();
//! for skill in &catalog.skills {
//!     println!("{}: {}", skill.name(), skill.description().unwrap_or(""));
//! }
//! let doc = registry.load("writing-skill-md")?;
//! assert!(doc.body.contains("description"));
//! # Ok::<(), skillhost::Error>(())
//! ```
//!
//! An agent host holds one [`Session`] per conversation: at each step,
//! after each file tool, and for each skill call (the usage crate's
//! `UsageStore` plugs in with [`Session::with_usage`]):
//!
//! ```no_run
//! use skillhost::session::invoke::{self, Caller, ForkPlan, ForkRunner, Invocation};
//! use skillhost::session::JsonlLog;
//! use skillhost::{Runtime, Session};
//!
//! struct SubAgents;
//! impl ForkRunner for SubAgents {
//!     fn run(&mut self, plan: &ForkPlan, tools: &[String]) -> Result<String, String> {
//!         Ok(format!("ran {} with {tools:?}", plan.skill))
//!     }
//! }
//!
//! let cwd = std::env::current_dir().unwrap();
//! let runtime = Runtime::new()?;
//! let registry = runtime.registry_for_default_roots(&cwd, std::env::home_dir().as_deref())?;
//! registry.watch(Default::default())?;
//! let log = JsonlLog::open("session.jsonl".as_ref())?;
//! let mut session = Session::new(&runtime, registry, &cwd, log)?.with_id("s-1");
//!
//! // Each step: a full replacement only if the model's view changed.
//! println!("{}", session.inject()?.as_str());
//!
//! // After the agent wrote a file: visible at once, and conditional skills activated.
//! let touched = session.touch(&["src/ui/Button.tsx".into()])?;
//! let mut tool_result = String::from("wrote src/ui/Button.tsx");
//! if let Some(reminder) = touched.reminder {
//!     tool_result.push('\n');
//!     tool_result.push_str(&reminder);
//! }
//!
//! // The model calls the Skill tool.
//! match session.invoke("code-review", &["HEAD~1".to_string()], Caller::Model)? {
//!     Invocation::Inline { text, .. } => println!("{text}"),
//!     Invocation::Fork(plan) => {
//!         let tools = ["Read".to_string(), "Bash".to_string(), "Write".to_string()];
//!         println!("{}", invoke::run_fork(&plan, &tools, &mut SubAgents)?);
//!     }
//! }
//! # Ok::<(), skillhost::Error>(())
//! ```

mod clock;
pub mod config;
mod cores;
pub mod error;
pub mod model;
pub mod paths;
pub mod provider;
pub mod registry;
mod runtime;
pub mod sandbox;
pub mod session;
pub mod sync;
pub mod text;

pub use error::Error;
pub use model::{Catalog, Diagnostic, Location, Scope, Severity, Skill, SkillDocument};
pub use provider::sources::remote::{RemoteSource, Transport as RemoteTransport};
pub use provider::{Provider, ProviderSpec};
pub use registry::Registry;
pub use runtime::{Runtime, Sources};
pub use session::Session;

// The README's Rust example runs as a doc test, so it cannot go stale.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeExamples;
