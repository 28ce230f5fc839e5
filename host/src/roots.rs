//! The usual skill roots, in precedence order: project before user.

use std::path::{Path, PathBuf};

/// The folder names searched, in order, under the project and the home folder.
pub const ROOT_NAMES: [&str; 2] = [".agents/skills", ".claude/skills"];

/// `.agents/skills` and `.claude/skills` under `cwd`, then under `home`.
pub fn default_roots(cwd: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ROOT_NAMES.iter().map(|n| cwd.join(n)).collect();
    if let Some(home) = home {
        for name in ROOT_NAMES {
            let root = home.join(name);
            if !roots.contains(&root) {
                roots.push(root);
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
                "/p/.agents/skills",
                "/p/.claude/skills",
                "/h/.agents/skills",
                "/h/.claude/skills"
            ]
            .map(PathBuf::from)
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
