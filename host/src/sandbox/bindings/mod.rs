//! Host-side bindings of each version of the provider contract, one module
//! per version of `guest-sdk/wit/` (a released version is never edited).

pub(crate) mod v0_1_0;
