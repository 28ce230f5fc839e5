//! The checks, one file per group; each returns finished [`Check`]s.
//!
//! [`Check`]: crate::Check

pub(crate) mod boundary;
pub(crate) mod changes;
pub(crate) mod contract;
pub(crate) mod documents;
pub(crate) mod fixture;
pub(crate) mod observe;
pub(crate) mod stability;
pub(crate) mod startup;
pub(crate) mod timing;

use skillhost::Skill;
use skillhost::provider::direct::Observed;

/// The valid skills of an observation, in its order.
pub(crate) fn skills(observed: &Observed) -> impl Iterator<Item = &Skill> {
    observed
        .entries
        .iter()
        .filter_map(|e| e.verdict.as_ref().ok())
}

/// `error` as one line for a check's detail.
pub(crate) fn said(error: &impl std::fmt::Display) -> String {
    skillhost::text::shown(&error.to_string(), 400)
}
