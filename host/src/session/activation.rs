//! Conditional and dynamic skills.
//!
//! A skill with `paths` stays hidden until the agent touches a file that one
//! of its globs matches (gitignore-style, relative to the working folder,
//! braces already expanded by the parser). It then activates once; the
//! activation is recorded in the session log so it survives a restart, and
//! a clear resets it. Touching a file below a nested `.agents/skills` or
//! `.claude/skills` folder (between the file and the working folder) makes
//! that folder a skill root too.

use super::log::{ACTIVATED, CLEAR, DISCOVERED, Event, SessionLog, backward};
use super::render::{RenderOptions, render};
use crate::error::Error;
use crate::model::{Catalog, Scope, Skill};
use ignore::gitignore::GitignoreBuilder;
use skillhost_skill::layout::ROOT_NAMES;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Most skill roots discovered below the working folder in one session.
pub const MAX_DISCOVERED_ROOTS: usize = 32;

/// Events after the latest clear, newest first.
fn since_clear(log: &dyn SessionLog) -> impl Iterator<Item = &Event> {
    backward(log).take_while(|e| !(e.kind == CLEAR && e.agent.is_none()))
}

/// The conditional skills activated in this session so far.
pub fn activated(log: &dyn SessionLog) -> BTreeSet<String> {
    since_clear(log)
        .filter(|e| e.kind == ACTIVATED)
        .flat_map(|e| e.items.iter().cloned())
        .collect()
}

/// The skill roots discovered below the working folder `cwd` in this
/// session, in the order they were found.
///
/// The log is data, not authority: anyone who can write it could name any
/// folder of the machine. A root is honoured only when it lies below `cwd`
/// (no `..`), is named like a skills folder (`.agents/skills` or
/// `.claude/skills`), and is among the first [`MAX_DISCOVERED_ROOTS`].
pub fn discovered_roots(log: &dyn SessionLog, cwd: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = since_clear(log)
        .filter(|e| e.kind == DISCOVERED)
        .flat_map(|e| e.items.iter().rev().map(PathBuf::from))
        .collect();
    roots.reverse();
    let mut seen = BTreeSet::new();
    roots.retain(|r| is_nested_root(r, cwd) && seen.insert(r.clone()));
    roots.truncate(MAX_DISCOVERED_ROOTS);
    roots
}

/// Whether `root` is a skills folder of a folder strictly below `cwd`
/// (`cwd`'s own skills folders are the usual roots, not nested ones).
fn is_nested_root(root: &Path, cwd: &Path) -> bool {
    let plain = root.is_absolute()
        && root.components().all(|c| {
            matches!(
                c,
                std::path::Component::RootDir | std::path::Component::Normal(_)
            )
        });
    plain
        && ROOT_NAMES.iter().any(|name| {
            root.ends_with(name)
                && root
                    .ancestors()
                    .nth(Path::new(name).components().count())
                    .is_some_and(|holder| holder.starts_with(cwd) && holder != cwd)
        })
}

/// Whether the skill is active: unconditional, or activated.
pub fn is_active(skill: &Skill, activated: &BTreeSet<String>) -> bool {
    skill.frontmatter.paths.is_empty() || activated.contains(skill.name())
}

/// Whether any touched file matches the skill's `paths`, relative to `cwd`.
/// Files outside `cwd` never match.
pub fn matches(skill: &Skill, cwd: &Path, touched: &[PathBuf]) -> bool {
    let mut builder = GitignoreBuilder::new(cwd);
    for pattern in &skill.frontmatter.paths {
        // A pattern gitignore cannot read matches nothing.
        let _ = builder.add_line(None, pattern);
    }
    let Ok(matcher) = builder.build() else {
        return false;
    };
    touched.iter().any(|path| {
        let path = if path.is_absolute() {
            path.clone()
        } else {
            cwd.join(path)
        };
        path.strip_prefix(cwd).is_ok_and(|rel| {
            !rel.as_os_str().is_empty()
                && matcher
                    .matched_path_or_any_parents(rel, path.is_dir())
                    .is_ignore()
        })
    })
}

/// What touching files did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Activation {
    /// Conditional skills activated now.
    pub activated: Vec<String>,
    /// Nested skill roots discovered now.
    pub discovered: Vec<PathBuf>,
    /// Text to append to the tool result that touched the files, naming the
    /// newly available skills the model may use; `None` when there are none.
    pub reminder: Option<String>,
}

/// Nested skill roots between each touched file and `cwd` (exclusive of
/// `cwd`, whose own roots are the usual ones), deepest first, that are not
/// in `known`. At most `limit` in all.
pub fn nested_roots(
    cwd: &Path,
    touched: &[PathBuf],
    known: &[PathBuf],
    limit: usize,
) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for path in touched {
        let path = if path.is_absolute() {
            path.clone()
        } else {
            cwd.join(path)
        };
        let mut dir = path.parent();
        while let Some(d) = dir {
            if d == cwd || !d.starts_with(cwd) {
                break;
            }
            for name in ROOT_NAMES {
                let root = d.join(name);
                if root.is_dir() && !known.contains(&root) && !found.contains(&root) {
                    found.push(root);
                }
            }
            dir = d.parent();
        }
    }
    found.truncate(limit.saturating_sub(known.len()));
    found
}

/// Activates the conditional skills of `catalog` that the touched files
/// match (each once per session), records that in `log`, and returns the
/// reminder for the model (only skills it may invoke are named).
pub fn activate(
    catalog: &Catalog,
    cwd: &Path,
    touched: &[PathBuf],
    log: &mut dyn SessionLog,
    options: RenderOptions,
) -> Result<Activation, Error> {
    let already = activated(log);
    let newly: Vec<&Skill> = catalog
        .skills
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| !s.frontmatter.paths.is_empty() && !already.contains(s.name()))
        .filter(|s| matches(s, cwd, touched))
        .collect();
    if newly.is_empty() {
        return Ok(Activation::default());
    }
    let mut event = Event::new(ACTIVATED);
    event.items = newly.iter().map(|s| s.name().to_string()).collect();
    log.append(event)?;
    let for_model: Vec<&Skill> = newly
        .iter()
        .copied()
        .filter(|s| s.model_invocable())
        .collect();
    let reminder = reminder(&for_model, options);
    Ok(Activation {
        activated: newly.iter().map(|s| s.name().to_string()).collect(),
        discovered: Vec::new(),
        reminder,
    })
}

/// The text appended to a tool result when skills became available.
fn reminder(skills: &[&Skill], options: RenderOptions) -> Option<String> {
    if skills.is_empty() {
        return None;
    }
    let listing = render(skills, options);
    Some(format!(
        "<system-reminder>\nThe following skills are now available for use with the Skill tool:\n{}\n</system-reminder>",
        listing.inner
    ))
}

/// Registers the nested roots `log` says the session discovered, ranked
/// with the project's roots (below them, above the user's and the bundled
/// skills), so a resumed session sees what it saw before.
pub fn register_discovered(
    runtime: &crate::Runtime,
    registry: &crate::Registry,
    cwd: &Path,
    log: &dyn SessionLog,
) -> Result<(), Error> {
    for root in discovered_roots(log, cwd) {
        registry.add_by_scope(runtime.local_provider_in(root, Scope::Project)?)?;
    }
    Ok(())
}

/// Records newly discovered nested roots in the log.
pub fn record_discovered(roots: &[PathBuf], log: &mut dyn SessionLog) -> Result<(), Error> {
    if roots.is_empty() {
        return Ok(());
    }
    let mut event = Event::new(DISCOVERED);
    event.items = roots.iter().map(|r| r.display().to_string()).collect();
    log.append(event)
}

/// Everything an agent host does when its tools touched files: registers
/// the nested skill roots they sit below (bounded), activates the
/// conditional skills they match, records both in the session log, and
/// returns the reminder naming what the model may now use (activated skills
/// and the new roots' skills).
pub fn touch(
    runtime: &crate::Runtime,
    registry: &crate::Registry,
    cwd: &Path,
    touched: &[PathBuf],
    log: &mut dyn SessionLog,
    options: RenderOptions,
) -> Result<Activation, Error> {
    let known = discovered_roots(log, cwd);
    let nested = nested_roots(cwd, touched, &known, MAX_DISCOVERED_ROOTS);
    let before: BTreeSet<String> = registry
        .snapshot()
        .skills
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    for root in &nested {
        registry.add_by_scope(runtime.local_provider_in(root, Scope::Project)?)?;
    }
    record_discovered(&nested, log)?;
    let catalog = registry.snapshot();
    let mut activation = activate(&catalog, cwd, touched, log, options)?;
    activation.discovered = nested;
    if !activation.discovered.is_empty() {
        let now_active = activated(log);
        let mut names: Vec<&Skill> = catalog
            .skills
            .iter()
            .map(|s| s.as_ref())
            .filter(|s| {
                !before.contains(s.name()) && is_active(s, &now_active) && s.model_invocable()
            })
            .collect();
        for name in &activation.activated {
            if let Some(skill) = catalog.get(name)
                && skill.model_invocable()
                && !names.iter().any(|s| s.name() == name)
            {
                names.push(skill);
            }
        }
        activation.reminder = reminder(&names, options);
    }
    Ok(activation)
}
