//! Bindings of `skillhost:provider@0.3.0` (`wit/v0.3.0`), the
//! latest version: the host's imports are implemented against its types,
//! and its answers convert into the host's model ([`contract`]) as they
//! are, the typed fields left for the host to derive.
//!
//! [`contract`]: crate::sandbox::contract

use crate::sandbox::contract;

wasmtime::component::bindgen!({
    path: "../wit/v0.3.0",
    world: "skill-provider",
    // A flood of invalidations stops the provider: this import may trap.
    imports: { "skillhost:provider/host.invalidate-provider": trappable },
});

pub(crate) use self::skillhost::provider::files;
pub(crate) use self::skillhost::provider::host as imports;
pub(crate) use self::skillhost::provider::types;

impl From<types::SkillEntry> for contract::SkillEntry {
    fn from(e: types::SkillEntry) -> Self {
        contract::SkillEntry {
            name: e.name,
            raw: e.frontmatter.raw,
            json: e.frontmatter.json,
            path: e.path,
            base: e.base,
            given: None,
        }
    }
}

impl From<types::Observation> for contract::Observation {
    fn from(o: types::Observation) -> Self {
        contract::Observation {
            epoch: o.epoch,
            base: o.base,
            skills: o.skills.into_iter().map(Into::into).collect(),
            removed: o.removed,
            diagnostics: o.diagnostics,
            complete: o.complete,
        }
    }
}

impl From<types::SkillDocument> for contract::SkillDocument {
    fn from(d: types::SkillDocument) -> Self {
        contract::SkillDocument {
            entry: d.entry.into(),
            body: d.body,
        }
    }
}
