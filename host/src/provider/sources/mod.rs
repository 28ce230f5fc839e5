//! The first-party sources: local roots, the bundled skills, remote
//! mirrors. Each is a component like any third party's, compiled from
//! `providers/` by the build script, embedded, and run through the same
//! engine, cache and limits; these modules only say what each is granted.

pub mod builtin;
pub mod bundled;
pub mod local;
pub mod remote;
