//! Local skill roots: where they are by default, and what a local provider
//! over one is granted (that root, read-only, and nothing else).

use crate::model::Scope;
use crate::paths::absolute;
use crate::provider::ProviderSpec;
use crate::sandbox::LoadedComponent;
use skillhost_skill::layout::ROOT_NAMES;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The id of the local provider over `root`.
pub fn id(root: &Path) -> String {
    format!("local:{}", root.display())
}

/// The specification of a local provider over one root in `scope`.
pub fn spec(component: Arc<LoadedComponent>, root: &Path, scope: Scope) -> ProviderSpec {
    let root = absolute(root);
    ProviderSpec {
        roots: vec![root.clone()],
        ..ProviderSpec::new(id(&root), scope, component)
    }
}

/// The usual roots, highest precedence first: `.agents/skills` and
/// `.claude/skills` under `cwd` (project scope), then under `home` (user
/// scope).
pub fn default_roots(cwd: &Path, home: Option<&Path>) -> Vec<(PathBuf, Scope)> {
    let mut roots: Vec<(PathBuf, Scope)> = ROOT_NAMES
        .iter()
        .map(|n| (cwd.join(n), Scope::Project))
        .collect();
    if let Some(home) = home {
        for name in ROOT_NAMES {
            let root = home.join(name);
            if !roots.iter().any(|(r, _)| *r == root) {
                roots.push((root, Scope::User));
            }
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_roots_come_before_user_roots() {
        let roots = default_roots(Path::new("/p"), Some(Path::new("/h")));
        assert_eq!(
            roots,
            [
                ("/p/.agents/skills".into(), Scope::Project),
                ("/p/.claude/skills".into(), Scope::Project),
                ("/h/.agents/skills".into(), Scope::User),
                ("/h/.claude/skills".into(), Scope::User),
            ]
        );
    }

    #[test]
    fn home_as_project_is_not_listed_twice() {
        assert_eq!(
            default_roots(Path::new("/h"), Some(Path::new("/h"))).len(),
            2
        );
    }
}
