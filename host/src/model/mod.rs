//! The host's model of skills, diagnostics and catalogs, and their JSON
//! shapes. Plain data: every layer above the sandbox speaks it, and nothing
//! in it knows about WebAssembly.

mod catalog;
mod diagnostic;
mod location;
pub mod near;
mod skill;

pub use catalog::Catalog;
pub use diagnostic::{Diagnostic, Severity};
pub use location::Location;
pub use skill::{Scope, Skill, SkillDocument, SkillResource};
