//! What a [`Session`](super::Session) asks of a usage store: scores that
//! rank the listing, and a place to record each invocation.
//!
//! The session layer names the need and the usage layer (the
//! `skillhost-usage` crate, whose `UsageStore` implements this) fills it,
//! so an embedder who records nothing builds no store.

use super::invoke::{Invocation, Request};
use super::render::Scores;
use crate::error::Error;
use crate::model::Catalog;

/// Why a usage store could not answer; reported, never fatal to the session.
pub type UsageError = Box<dyn std::error::Error + Send + Sync>;

/// A usage store a session reads scores from and records invocations into.
pub trait Usage: Send + Sync {
    /// The score of each of `catalog`'s skills (higher lists first).
    fn scores(&self, catalog: &Catalog) -> Result<Scores, UsageError>;

    /// Records what one invocation did; `catalog` names the skill's source.
    fn record(
        &self,
        catalog: &Catalog,
        request: &Request<'_>,
        result: &Result<Invocation, Error>,
    ) -> Result<(), UsageError>;
}
