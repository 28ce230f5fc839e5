//! Skills made in memory for the session layer's unit tests: one shape,
//! so a test says only what differs (name, description, scope).

use crate::model::{Location, Scope, Skill};
use skillhost_skill::frontmatter::Frontmatter;

/// A folder skill `name` at `/s/name` with `description`, in `scope`.
pub(crate) fn skill(name: &str, description: &str, scope: Scope) -> Skill {
    let mut frontmatter = Frontmatter::defaults(name);
    frontmatter.description = Some(description.to_string());
    Skill {
        source: "test".into(),
        scope,
        path: Location::Path(format!("/s/{name}/SKILL.md").into()),
        base: Location::Path(format!("/s/{name}").into()),
        frontmatter,
        json: None,
    }
}
