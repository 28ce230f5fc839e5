//! Host-side bindings of each version of the provider contract, one module
//! per version of `guest-sdk/wit/` (a released version is never edited).
//!
//! Everything above these modules speaks one model, the latest version's
//! types ([`latest`]): the host's imports are implemented once, against
//! them, and each older version's module converts its calls into them and
//! its components' answers out of them. A rule about what a provider may
//! do therefore has one home, whatever version the provider was built for.

pub(crate) mod v0_1_0;
pub(crate) mod v0_2_0;

pub(crate) use v0_2_0 as latest;
