//! Skills that learn from use: a usage store, scores, the curator's
//! lifecycle, the idle runner, and new skills from repeated tool sequences.
//!
//! - [`store`]: the SQLite file every process records into
//!   ([`UsageStore`]: invocations, first sightings, tool calls, heartbeats,
//!   reviews);
//! - [`record`]: what `invoke` and session logs feed it;
//! - [`score`]: `ln(1 + count) × 0.5^(hours since last use / 168)`;
//! - [`curator`]: Active, Inactive, Stale, Deprecated; archive and restore;
//! - [`runner`]: reviews when idle and due, with an injectable clock;
//! - [`patterns`]: tool sequences repeated across sessions;
//! - [`learn`]: those sequences written as new skills.
//!
//! This layer sits above [`registry`](crate::registry) and
//! [`session`](crate::session); neither uses it.
//!
//! ```
//! use skillhost::usage::{UsageStore, store::{InvocationRecord, Outcome}};
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
pub mod patterns;
pub mod record;
pub mod runner;
mod schema;
pub mod score;
pub mod store;

pub use clock::{Clock, ManualClock, SystemClock};
pub use error::Error;
pub use store::UsageStore;
