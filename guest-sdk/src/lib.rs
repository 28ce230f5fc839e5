//! The skillhost guest SDK: what a skill provider author depends on.
//!
//! - The WIT bindings of `skillhost:provider@0.2.0` ([`bindings`]), the
//!   [`Provider`] trait with sensible defaults, and the [`export_provider!`]
//!   macro that turns a type into a component.
//! - [`files`] and [`host`]: the host's bulk file access and its callbacks.
//! - [`delta::Changes`]: answering snapshots with only what changed.
//! - [`listing`]: providers that compute every skill at once (skills held
//!   in one file, a database) implement [`listing::ListingProvider`] and
//!   get the whole contract answered.
//! - [`skill`]: the `SKILL.md` format (the `skillhost-skill` crate), the
//!   same parser and rules the host applies.
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

pub mod alloc;
pub mod delta;
mod guest;
pub mod listing;

pub use guest::*;
pub use skillhost_skill as skill;
