//! Working on skills rather than serving them: checking them against the
//! strict Agent Skills rules, and publishing them as a static mirror.

pub mod mirror;
mod out;
pub mod validate;
