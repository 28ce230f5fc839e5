//! Skills that learn from use: a usage store, scores, the curator's
//! lifecycle, the idle runner, and new skills from repeated tool sequences.
//!
//! - [`store`]: the SQLite file every process records into
//!   ([`UsageStore`]: invocations, first sightings, tool calls, heartbeats,
//!   reviews);
//! - [`record`]: what `invoke` and session logs feed it;
//! - [`native`]: uses a session log shows through an agent's own loader;
//! - [`score`]: `ln(1 + count) × 0.5^(hours since last use / 168)`;
//! - [`curator`]: Active, Inactive, Stale, Deprecated; archive and restore;
//! - [`runner`]: reviews when idle and due, with an injectable clock;
//! - [`patterns`]: tool sequences repeated across sessions;
//! - [`steps`]: what one call did (`Bash($git add)`), for names a model picks;
//! - [`learn`]: those sequences written as new skills.
//!
//! This layer sits above [`registry`](skillhost::registry) and
//! [`session`](skillhost::session); neither uses it. A session names what it
//! needs of a store ([`skillhost::session::Usage`]) and [`UsageStore`]
//! provides it:
//!
//! ```
//! use skillhost::session::MemoryLog;
//! use skillhost::session::invoke::Caller;
//! use skillhost::{Runtime, Session};
//! use skillhost_usage::UsageStore;
//! use std::sync::Arc;
//!
//! # let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills");
//! # let dir = tempfile::tempdir()?;
//! let store = Arc::new(UsageStore::open(&dir.path().join("usage.db"))?);
//! let runtime = Runtime::new()?;
//! let registry = runtime.registry_for_roots(&[root])?;
//! let mut session = Session::new(&runtime, registry, dir.path(), MemoryLog::default())?
//!     .with_id("s-1")
//!     .with_usage(store.clone());
//! session.invoke("writing-skill-md", &[], Caller::Model)?;
//! session.inject()?; // ranked by the store's scores
//! assert_eq!(store.usage()?["writing-skill-md"].count, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ```
//! use skillhost_usage::{UsageStore, store::{InvocationRecord, Outcome}};
//!
//! # let dir = tempfile::tempdir()?;
//! let store = UsageStore::open(&dir.path().join("usage.db"))?;
//! store.record_invocation(&InvocationRecord {
//!     skill: "code-review",
//!     source: "local:/home/me/.agents/skills",
//!     caller: "model",
//!     session: "s-1",
//!     outcome: Outcome::Inline,
//! })?;
//! store.record_tool_call("s-1", "search_papers")?;
//! assert_eq!(store.usage()?["code-review"].count, 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod clock;
pub mod curator;
pub mod error;
pub mod learn;
pub mod native;
pub mod patterns;
pub mod record;
pub mod runner;
mod schema;
pub mod score;
pub mod steps;
pub mod store;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::Error;
pub use store::UsageStore;
