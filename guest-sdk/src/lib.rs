//! The skillhost guest SDK: what a skill provider author depends on.
//!
//! - [`frontmatter`]: the one `SKILL.md` parser, shared by every first-party
//!   provider and by the host's native baseline.
//! - [`names`]: which skill names are safe identifiers.
//! - [`braces`]: brace expansion of `paths` globs.
//! - With the `guest` feature (on by default): the WIT bindings of
//!   `skillhost:provider@0.1.0`, the [`Provider`] trait with sensible defaults,
//!   and the [`export_provider!`] macro that turns a type into a component.
//!
//! ```no_run
//! use skillhost_guest_sdk::{
//!     Observation, Provider, ProviderConfig, ProviderError, SkillDocument, SnapshotRequest,
//!     full_observation,
//! };
//!
//! struct Empty;
//!
//! impl Provider for Empty {
//!     fn init(_config: ProviderConfig) -> Result<Self, ProviderError> {
//!         Ok(Empty)
//!     }
//!     fn snapshot(&mut self, _request: SnapshotRequest) -> Observation {
//!         full_observation(vec![], vec![], true)
//!     }
//!     fn load(&mut self, name: &str) -> Result<SkillDocument, ProviderError> {
//!         Err(ProviderError::NotFound(name.to_string()))
//!     }
//! }
//!
//! skillhost_guest_sdk::export_provider!(Empty);
//! ```

pub mod braces;
mod fast_yaml;
pub mod frontmatter;
pub mod json;
pub mod names;
mod node;

#[cfg(feature = "guest")]
mod guest;
#[cfg(feature = "guest")]
pub use guest::*;
