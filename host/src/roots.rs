//! The usual skill roots, in precedence order: project before user.

use crate::provider::Scope;
use std::path::{Path, PathBuf};

/// The folder names searched, in order, under the project and the home folder.
pub const ROOT_NAMES: [&str; 2] = [".agents/skills", ".claude/skills"];

/// `.agents/skills` and `.claude/skills` under `cwd` (project scope), then
/// under `home` (user scope).
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
