//! Working on skills rather than serving them: checking them against the
//! strict rules of a profile (Claude Code and skillhost, or the Agent Skills
//! spec), and publishing them as a static mirror.

pub mod mirror;
mod out;
pub mod validate;
